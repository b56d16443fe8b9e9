// sim/base/dtype.h: element types, reduction operators, fp16/bf16 conversions and
// the element-wise reduction kernels the collectives use.
//
// fp16 and bf16 are storage types: values are widened to fp32, combined in
// fp32, and rounded back to the storage type with round-to-nearest-even.
#ifndef DDPLAB_SIM_DTYPE_H
#define DDPLAB_SIM_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SIM_FP32 = 0,
    SIM_FP16,
    SIM_BF16,
    SIM_INT32,
    SIM_INT64,
    SIM_DTYPE_COUNT
} SimDtype;

typedef enum {
    SIM_SUM = 0,
    SIM_AVG, // sum, then divide by the number of ranks (integer division for ints)
    SIM_MAX,
    SIM_MIN,
    SIM_PROD,
    SIM_REDOP_COUNT
} SimRedOp;

size_t sim_dtype_size(SimDtype dt);   // bytes per element; 0 if invalid
const char *sim_dtype_name(SimDtype dt); // "fp32", "fp16", "bf16", "int32", "int64"
// Parses a dtype name (also accepts float/half/bfloat16/int/long aliases).
// Returns 0 on success, -1 if the name is unknown.
int sim_dtype_parse(const char *s, SimDtype *out);
int sim_dtype_is_float(SimDtype dt);

const char *sim_redop_name(SimRedOp op); // "sum", "avg", "max", "min", "prod"
int sim_redop_parse(const char *s, SimRedOp *out);

// IEEE binary16 and bfloat16 conversions, round-to-nearest-even, NaN kept NaN.
// A float's bits and back (memcpy: no aliasing rules broken).
uint32_t sim_f32_bits(float f);
float sim_f32_from_bits(uint32_t x);
uint16_t sim_f32_to_f16(float f);
float sim_f16_to_f32(uint16_t h);
uint16_t sim_f32_to_bf16(float f);
float sim_bf16_to_f32(uint16_t b);

// Reads element i of buf as a double (exact for every type except int64
// beyond 2^53) and writes a double into element i, rounding to the type.
double sim_elem_get(const void *buf, SimDtype dt, size_t i);
void sim_elem_set(void *buf, SimDtype dt, size_t i, double v);

// dst[i] = dst[i] (op) src[i] for i in [0, n). AVG behaves as SUM here; the
// division happens once at the end of a collective (sim_scale_avg).
void sim_reduce_inplace(void *dst, const void *src, size_t n, SimDtype dt,
                        SimRedOp op);

// dst[i] = src[0][i] (op) src[1][i] (op) ... (op) src[nsrc-1][i], combined in
// that order. For fp16/bf16 the whole chain is computed in fp32 and rounded
// once. dst may alias one of the sources.
void sim_reduce_multi(void *dst, const void *const *src, int nsrc, size_t n,
                      SimDtype dt, SimRedOp op);

// The same chain as a ring computes it, hop by hop: each partial result is
// rounded to the element type before the next source is combined (for
// fp16/bf16: widen, combine in fp32, round to nearest even, as gloo's
// float16 and NCCL's half kernels do at every hop). For fp32 and the
// integers the same as sim_reduce_multi. dst may alias one of the sources.
void sim_reduce_chain(void *dst, const void *const *src, int nsrc, size_t n,
                      SimDtype dt, SimRedOp op);

// buf[i] /= nranks for i in [0, n): the final step of an AVG reduction.
void sim_scale_avg(void *buf, size_t n, SimDtype dt, int nranks);

#endif
