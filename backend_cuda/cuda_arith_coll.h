// backend_cuda/cuda_arith_coll.h: the per-element arithmetic of ddplab's own
// device collectives (cuda_devcoll.cu), in the CUDA_HD convention of
// cuda_arith.h: dst[i] = dst[i] (op) src[i] exactly as the cpu backend's
// sim_reduce_inplace does it (sim/base/dtype.c): fp16 and bf16 widened to fp32,
// combined, rounded back to nearest even; integers wrap; MAX and MIN keep a
// NaN of either side. tests/test_cuda_arith_coll.c checks it against
// sim_reduce_inplace on the host.
#ifndef DDPLAB_BACKEND_CUDA_ARITH_COLL_H
#define DDPLAB_BACKEND_CUDA_ARITH_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"     // defines: SimDtype, SimRedOp
#include "cuda_arith.h"     // defines: CUDA_HD
#include "cuda_arith_vec.h" // defines: cuda_f16_to_f32, cuda_f32_to_f16, ...

static inline CUDA_HD float cuda_red_f32(float a, float b, SimRedOp op) {
    switch (op) {
    case SIM_MAX: return a > b || a != a ? a : b;
    case SIM_MIN: return a < b || a != a ? a : b;
    case SIM_PROD: return a * b;
    default: return a + b; // SUM and AVG (divided once at the end)
    }
}

static inline CUDA_HD int64_t cuda_red_i64(int64_t a, int64_t b, SimRedOp op) {
    switch (op) {
    case SIM_MAX: return a > b ? a : b;
    case SIM_MIN: return a < b ? a : b;
    case SIM_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
    default: return (int64_t)((uint64_t)a + (uint64_t)b);
    }
}

static inline CUDA_HD int32_t cuda_red_i32(int32_t a, int32_t b, SimRedOp op) {
    switch (op) {
    case SIM_MAX: return a > b ? a : b;
    case SIM_MIN: return a < b ? a : b;
    case SIM_PROD: return (int32_t)((uint32_t)a * (uint32_t)b);
    default: return (int32_t)((uint32_t)a + (uint32_t)b);
    }
}

// Element i of dst (op)= element i of src, both of type dt.
static inline CUDA_HD void cuda_reduce_elem(void *dst, const void *src, size_t i, SimDtype dt,
                                            SimRedOp op) {
    switch (dt) {
    case SIM_FP32: {
        float *d = (float *)dst;
        d[i] = cuda_red_f32(d[i], ((const float *)src)[i], op);
        break;
    }
    case SIM_FP16: {
        uint16_t *d = (uint16_t *)dst;
        float r = cuda_red_f32(cuda_f16_to_f32(d[i]), cuda_f16_to_f32(((const uint16_t *)src)[i]),
                               op);
        d[i] = cuda_f32_to_f16(r);
        break;
    }
    case SIM_BF16: {
        uint16_t *d = (uint16_t *)dst;
        float r = cuda_red_f32(cuda_bf16_to_f32(d[i]),
                               cuda_bf16_to_f32(((const uint16_t *)src)[i]), op);
        d[i] = cuda_f32_to_bf16(r);
        break;
    }
    case SIM_INT32: {
        int32_t *d = (int32_t *)dst;
        d[i] = cuda_red_i32(d[i], ((const int32_t *)src)[i], op);
        break;
    }
    case SIM_INT64: {
        int64_t *d = (int64_t *)dst;
        d[i] = cuda_red_i64(d[i], ((const int64_t *)src)[i], op);
        break;
    }
    default: break;
    }
}

#endif
