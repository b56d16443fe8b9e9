// backend_cpu/cpu_math_misc.c: the small element-wise and reduction kernels:
// add (residual connections), axpy and scale (gradient accumulation, loss
// scaling, clipping), fill (zeroing), the sum of squares (gradient norms),
// the inf/NaN check (GradScaler) and dtype conversion (fp16/bf16 storage).
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "cpu_math.h"

SimStatus cpu_math_add(void *ctx, int rank, float *out, const float *a, const float *b, size_t n) {
    (void)ctx;
    (void)rank;
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
    return SIM_OK;
}

// y += alpha * x, fused (one rounding) as torch's add_(x, alpha=...) is on
// CPUs with FMA.
SimStatus cpu_math_axpy(void *ctx, int rank, float *y, float alpha, const float *x, size_t n) {
    (void)ctx;
    (void)rank;
    for (size_t i = 0; i < n; i++)
        y[i] = fmaf(alpha, x[i], y[i]);
    return SIM_OK;
}

SimStatus cpu_math_scale(void *ctx, int rank, float *x, float alpha, size_t n) {
    (void)ctx;
    (void)rank;
    for (size_t i = 0; i < n; i++)
        x[i] *= alpha;
    return SIM_OK;
}

SimStatus cpu_math_fill(void *ctx, int rank, float *x, float value, size_t n) {
    (void)ctx;
    (void)rank;
    if (value == 0.0f && !signbit(value)) {
        memset(x, 0, n * sizeof *x); // all-zero bits are +0.0f
        return SIM_OK;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = value;
    return SIM_OK;
}

SimStatus cpu_math_sumsq(void *ctx, int rank, double *out, const float *x, size_t n) {
    (void)ctx;
    (void)rank;
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)x[i] * x[i];
    *out = s;
    return SIM_OK;
}

SimStatus cpu_math_nonfinite(void *ctx, int rank, int *out, const float *x, size_t n) {
    (void)ctx;
    (void)rank;
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i++)
        bad = !isfinite(x[i]);
    *out = bad;
    return SIM_OK;
}

// Conversions: fp32 <-> fp16/bf16 directly (round to nearest even); any other
// pair through a double (exact for every value of these types except int64
// beyond 2^53), rounded to the destination type by sim_elem_set.
SimStatus cpu_math_cast(void *ctx, int rank, void *dst, SimDtype dst_dt, const void *src,
                        SimDtype src_dt, size_t n) {
    (void)ctx;
    (void)rank;
    if (sim_dtype_size(dst_dt) == 0 || sim_dtype_size(src_dt) == 0)
        return SIM_EINVAL;
    if (dst_dt == src_dt) {
        if (dst != src)
            memmove(dst, src, n * sim_dtype_size(dst_dt));
        return SIM_OK;
    }
    const float *f = src;
    float *fo = dst;
    const uint16_t *h = src;
    uint16_t *ho = dst;
    if (src_dt == SIM_FP32 && dst_dt == SIM_FP16) {
        for (size_t i = 0; i < n; i++)
            ho[i] = sim_f32_to_f16(f[i]);
    } else if (src_dt == SIM_FP32 && dst_dt == SIM_BF16) {
        for (size_t i = 0; i < n; i++)
            ho[i] = sim_f32_to_bf16(f[i]);
    } else if (src_dt == SIM_FP16 && dst_dt == SIM_FP32) {
        for (size_t i = 0; i < n; i++)
            fo[i] = sim_f16_to_f32(h[i]);
    } else if (src_dt == SIM_BF16 && dst_dt == SIM_FP32) {
        for (size_t i = 0; i < n; i++)
            fo[i] = sim_bf16_to_f32(h[i]);
    } else {
        for (size_t i = 0; i < n; i++)
            sim_elem_set(dst, dst_dt, i, sim_elem_get(src, src_dt, i));
    }
    return SIM_OK;
}
