// tests/test_cuda_vec_data.h: inputs shared by the tests of the CUDA
// backend's vector, activation, cast, optimizer and embedding kernels: the
// host test of their arithmetic (test_cuda_arith_vec.c) and the GPU test
// (test_cuda_math_vec.c). Every input is seeded, so a failure repeats.
#ifndef DDPLAB_TESTS_CUDA_VEC_DATA_H
#define DDPLAB_TESTS_CUDA_VEC_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"     // defines: SimDtype
#include "engine/kernels.h" // defines: SimSgdHyper, SimAdamHyper

// splitmix64: the same sequence on every machine.
typedef struct {
    uint64_t s;
} TcvRng;

void tcv_seed(TcvRng *g, uint64_t seed);
uint64_t tcv_next(TcvRng *g);
// Uniform in [lo, hi).
float tcv_uniform(TcvRng *g, float lo, float hi);

// x[0..n): uniform in [lo, hi); with `specials`, the first values (as many as
// fit) are +-0, +-inf, NaN, subnormals and values at the edges of fp32.
void tcv_fill(TcvRng *g, float *x, size_t n, float lo, float hi, int specials);

// buf[0..n) of dtype src, the source of a cast to dst (src != dst): values
// whose conversion the cpu backend defines (no NaN, inf or out-of-range
// value where dst is an integer type, for which C leaves the conversion
// undefined), starting with the cases that matter for rounding (fp16 and
// bf16 ties, overflow to inf, subnormals, NaN payloads, int64 values that a
// double rounds before fp32 does) and then random bit patterns.
void tcv_cast_source(TcvRng *g, void *buf, SimDtype src, SimDtype dst, size_t n);

// Optimizer cases: torch.optim.SGD (plain, weight decay, momentum with and
// without dampening, nesterov) and Adam / AdamW, each run for several steps
// (first_step / step are set by the caller).
#define TCV_SGD_CASES 6
#define TCV_ADAM_CASES 5
extern const SimSgdHyper tcv_sgd_cases[TCV_SGD_CASES];
extern const SimAdamHyper tcv_adam_cases[TCV_ADAM_CASES];
// "sgd lr=0.1 mom=0.9 damp=0 wd=0 nesterov" and the like.
void tcv_sgd_name(const SimSgdHyper *h, char *buf, size_t len);
void tcv_adam_name(const SimAdamHyper *h, char *buf, size_t len);

#endif
