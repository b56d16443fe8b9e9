// sim/base/ulp.h: how far apart two floating-point values are, in units in the
// last place (ULP), and the element-wise comparison of two buffers of one
// dtype that `ddplab compare` and the tests build on.
//
// The distance between a and b is the number of steps from one
// representable value to the next that it takes to get from a to b: 1 for
// neighbours, 2^23 from 1.0f to 2.0f. It is computed by mapping each bit
// pattern to an integer that grows with the value (the sign-magnitude bits
// turned into a signed integer, +0 and -0 both becoming 0) and subtracting,
// so the count is exact at every scale, across zero and up to the
// infinities, which sit one step beyond the largest finite value.
#ifndef DDPLAB_SIM_ULP_H
#define DDPLAB_SIM_ULP_H

#include <stdint.h>

#include "base/dtype.h" // defines: SimDtype

// Units in the last place between two values of one floating dtype: how many
// representable values lie between them, counting across zero (+0 and -0 are 0 apart).
// Both NaN: 0. One NaN: UINT64_MAX. Infinities are ordered as the largest values.
uint64_t sim_ulp_f32(float a, float b);
uint64_t sim_ulp_f16(uint16_t a, uint16_t b);   // IEEE binary16 bit patterns
uint64_t sim_ulp_bf16(uint16_t a, uint16_t b);  // bfloat16 bit patterns

typedef struct {
    int64_t n;          // elements compared
    int64_t ndiff;      // elements whose bits differ (NaN vs NaN counts as equal)
    uint64_t max_ulp;   // largest distance (integer dtypes: largest |a-b|)
    int64_t argmax;     // index of the first element at max_ulp (-1: none differ)
    double a_at, b_at;  // the two values there
    double max_abs;     // largest |a - b| (NaN pairs skipped)
    double max_rel;     // largest |a - b| / max(|a|, |b|) (0/0 skipped)
    int64_t nan_mismatch; // elements NaN on one side only
} SimUlpStats;

// Compares n elements of dtype dt (SIM_FP32, SIM_FP16, SIM_BF16, SIM_INT32,
// SIM_INT64). The buffers need no particular alignment (tensors in a
// safetensors file are packed). Pairs with one infinite side count as
// relative difference 1 (2 for +inf vs -inf), the limit of the formula.
void sim_ulp_compare(SimDtype dt, const void *a, const void *b, int64_t n, SimUlpStats *out);

// Adds s into acc (acc zeroed first by the caller): n, ndiff and
// nan_mismatch summed, max_ulp and the values there kept from the larger
// (the earlier on a tie), max_abs/max_rel maxima. argmax is an index into
// one tensor, so it is kept only while a single merged part had
// differences, and is -1 otherwise.
void sim_ulp_merge(SimUlpStats *acc, const SimUlpStats *s);

#endif
