// sim/strategy/ddp_powersgd_math.c: the arithmetic of the PowerSGD hook
// (ddp_powersgd.h) on host floats: the compression test, Gram-Schmidt, the
// three matrix products and the seed of the first Qs. Matrices are
// row-major, as torch's views of a bucket are: element (i, j) of an
// n x m matrix at i * m + j.
#include <math.h>
#include <stdio.h>

#include "strategy/ddp_powersgd.h"

void sim_ddp_powersgd_options_default(SimDdpPowersgdOptions *o) {
    o->rank = 1;
    o->start_iter = 10;
    o->min_compression_rate = 2.0;
    o->epsilon = 0.0f;
    o->seed = 0;
}

int sim_ddp_powersgd_options_check(const SimDdpPowersgdOptions *o, char *err, size_t len) {
    if (o->rank < 1) {
        snprintf(err, len, "matrix_approximation_rank must be at least 1 (got %d)", o->rank);
        return -1;
    }
    // error feedback and warm start are always on here
    if (o->start_iter <= 1) {
        snprintf(err, len, "Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or "
                 "`warm_start` is enabled, because PowerSGD can only be applied after the "
                 "first two iterations in DDP.");
        return -1;
    }
    return 0;
}

int sim_ddp_powersgd_should_compress(int64_t n, int64_t m, int r, double rate) {
    return (double)((n + m) * r) * rate < (double)(n * m);
}

// The 2-norm of column c of a[n x r], summed in fp32 as a float
// reduction does (the order of torch's kernel is not copied: rounding).
static float column_norm(const float *a, int64_t n, int r, int c) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; i++)
        s += a[i * r + c] * a[i * r + c];
    return sqrtf(s);
}

void sim_ddp_powersgd_orthogonalize(float *a, int64_t n, int r, float eps) {
    for (int c = 0; c < r; c++) {
        float norm = column_norm(a, n, r, c) + eps;
        for (int64_t i = 0; i < n; i++)
            a[i * r + c] = norm > 0.0f ? a[i * r + c] / norm : 0.0f;
        // the later columns lose their component along this one
        for (int d = c + 1; d < r; d++) {
            float dot = 0.0f;
            for (int64_t i = 0; i < n; i++)
                dot += a[i * r + c] * a[i * r + d];
            for (int64_t i = 0; i < n; i++)
                a[i * r + d] -= dot * a[i * r + c];
        }
    }
}

void sim_ddp_powersgd_matmul(float *c, const float *a, const float *b, int64_t n, int64_t m,
                             int64_t k, int trans_a) {
    int64_t rows = trans_a ? m : n, inner = trans_a ? n : m;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < k; j++) {
            float s = 0.0f;
            for (int64_t t = 0; t < inner; t++)
                s += (trans_a ? a[t * m + i] : a[i * m + t]) * b[t * k + j];
            c[i * k + j] = s;
        }
}

void sim_ddp_powersgd_outer(float *m, const float *p, const float *q, int64_t n, int64_t cols,
                            int r) {
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < cols; j++) {
            float s = 0.0f;
            for (int c = 0; c < r; c++)
                s += p[i * r + c] * q[j * r + c];
            m[i * cols + j] = s;
        }
}

// numpy's legacy randint for a range below 2^32: 32-bit outputs masked to
// the smallest 2^k - 1 that covers the range, redrawn until inside it.
uint32_t sim_ddp_powersgd_draw_seed(SimTorchGen *np_rng) {
    const uint32_t max = 999999999u, mask = (1u << 30) - 1u;
    uint32_t v;
    do
        v = sim_torchgen_random(np_rng) & mask;
    while (v > max);
    return v;
}
