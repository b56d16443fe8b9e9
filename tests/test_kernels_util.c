// tests/test_kernels_util.c: see test_kernels_util.h.
#include "test_kernels_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void tk_seed(TkRng *g, uint64_t seed) {
    g->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (g->s == 0)
        g->s = 1;
}

static uint64_t next(TkRng *g) {
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return g->s * 0x2545F4914F6CDD1Dull;
}

float tk_uniform(TkRng *g, float lo, float hi) {
    double u = (double)(next(g) >> 11) / 9007199254740992.0; // [0, 1)
    return (float)(lo + (hi - lo) * u);
}

float tk_normal(TkRng *g) {
    double s = 0;
    for (int i = 0; i < 12; i++)
        s += (double)(next(g) >> 11) / 9007199254740992.0;
    return (float)(s - 6.0);
}

void tk_fill_uniform(TkRng *g, float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++)
        x[i] = tk_uniform(g, lo, hi);
}

void tk_fill_normal(TkRng *g, float *x, size_t n, float scale) {
    for (size_t i = 0; i < n; i++)
        x[i] = scale * tk_normal(g);
}

int tk_make(SimRank *r, TkList *l, SimTensor *t, SimDtype dt, int ndim, const int64_t *shape) {
    sim_tensor_init(t, "test", dt, ndim, shape);
    if (l->n >= 64 || sim_tensor_alloc(r, t, 0) != SIM_OK) {
        fprintf(stderr, "tk_make: %s\n", l->n >= 64 ? "too many tensors" : r->error);
        return 1;
    }
    memset(t->data, 0, sim_tensor_bytes(t));
    l->t[l->n++] = *t;
    return 0;
}

void tk_free(SimRank *r, TkList *l) {
    for (int i = 0; i < l->n; i++)
        sim_tensor_free(r, &l->t[i]);
    l->n = 0;
}

double tk_max_rel(const float *a, const float *b, size_t n, double floor) {
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double den = fabs((double)b[i]) > floor ? fabs((double)b[i]) : floor;
        double e = fabs((double)a[i] - (double)b[i]) / den;
        if (!(e <= m))
            m = isnan(e) ? INFINITY : e;
    }
    return m;
}
