// tests/test_kernels_util.h: helpers for the kernel tests: a seeded random
// generator, tensors with storage on a CPU-backend rank (whose data is plain
// host memory the test may read and write), and comparisons.
#ifndef DDPLAB_TESTS_KERNELS_UTIL_H
#define DDPLAB_TESTS_KERNELS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/ops.h"

// xorshift64*: the same sequence on every machine.
typedef struct {
    uint64_t s;
} TkRng;

void tk_seed(TkRng *g, uint64_t seed);
// Uniform in [lo, hi).
float tk_uniform(TkRng *g, float lo, float hi);
// Approximately standard normal (sum of uniforms), deterministic.
float tk_normal(TkRng *g);
void tk_fill_uniform(TkRng *g, float *x, size_t n, float lo, float hi);
void tk_fill_normal(TkRng *g, float *x, size_t n, float scale);

// A tensor of `ndim` dims with storage on rank r, zero-filled; on failure
// prints why and returns non-zero. The list keeps a copy of each tensor, so
// tk_free can free every tensor made on it even after the originals (often
// locals) are gone.
typedef struct {
    SimTensor t[64];
    int n;
} TkList;

int tk_make(SimRank *r, TkList *l, SimTensor *t, SimDtype dt, int ndim, const int64_t *shape);
void tk_free(SimRank *r, TkList *l);

static inline float *tk_f(const SimTensor *t) {
    return (float *)t->data;
}

// Largest |a - b| / max(|b|, floor) over n values.
double tk_max_rel(const float *a, const float *b, size_t n, double floor);

#endif
