// backend_cuda/cuda_arith_vec.h: the per-element arithmetic of the CUDA
// backend's activation, vector, cast, optimizer and embedding kernels
// (cuda_math_act.cu, cuda_math_vec.cu, cuda_math_optim.cu, cuda_math_embed.cu),
// in the CUDA_HD convention of cuda_arith.h: nvcc builds these functions for
// the GPU, the C compiler builds the same text for tests/test_cuda_arith_vec.c,
// which checks them against the cpu backend (backend_cpu/cpu_math_*.c).
//
// Every function computes what the cpu backend computes, operation by
// operation and in the same precision, so that results agree bit for bit:
// - the cpu backend is C11 built without FMA contraction (ISO mode), and the
//   four .cu files are built with nvcc --fmad=false (backend_cuda/
//   CMakeLists.txt), so a*b + c rounds twice on both sides and fmaf() is
//   the only fused operation, on both sides;
// - fp16/bf16 conversions are integer bit operations, round to nearest even,
//   with NaN kept NaN as sim/base/dtype.c does;
// - the optimizer coefficients are derived in double and rounded to fp32
//   exactly where cpu_math_optim.c does it (cuda_sgd_coef, cuda_adam_coef).
// Two differences remain on the GPU. Its libm: erff, expf and tanhf are
// CUDA's own (within 2 ulp), not glibc's, so GELU (both forms) and the erf
// GELU's derivative may differ from the cpu backend by a few ulps. And NaN
// payloads: arithmetic that makes a NaN returns the canonical 0x7fffffff on
// the GPU, a quiet copy of an input NaN on x86 (conversions, selects and
// stores keep the payload on both). Everything else is bit for bit.
#ifndef DDPLAB_BACKEND_CUDA_ARITH_VEC_H
#define DDPLAB_BACKEND_CUDA_ARITH_VEC_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"     // defines: SimDtype
#include "cuda_arith.h"     // defines: CUDA_HD
#include "engine/kernels.h" // defines: SimAct, SimSgdHyper, SimAdamHyper

// ----------------------------------------------------------------------------
// Bits of an fp32 value (memcpy: defined in C and C++, one move on the GPU)

static inline CUDA_HD uint32_t cuda_f32_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static inline CUDA_HD float cuda_f32_from_bits(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

// 1 when x is inf or NaN (all exponent bits set), as !isfinite(x).
static inline CUDA_HD int cuda_is_nonfinite(float x) {
    return (cuda_f32_bits(x) & 0x7f800000u) == 0x7f800000u;
}

// ----------------------------------------------------------------------------
// Activations (cpu_math_act.c): relu, GELU with erf, GELU with tanh.

#define CUDA_GELU_RSQRT2 0.707106781186547524401f      // 1/sqrt(2)
#define CUDA_GELU_RSQRT_2PI 0.398942280401432677940f   // 1/sqrt(2 pi)
#define CUDA_GELU_SQRT_2_PI 0.797884560802865355879f   // sqrt(2/pi)
#define CUDA_GELU_CUBIC 0.044715f

// NaN stays NaN and -0 stays -0 (a select, as torch.relu).
static inline CUDA_HD float cuda_relu(float x) {
    return x < 0.0f ? 0.0f : x;
}

// The derivative times dout: 0 at x == 0, and 0 * dout (NaN for an infinite
// dout) where x <= 0, as the cpu backend multiplies.
static inline CUDA_HD float cuda_relu_grad_times(float x, float dout) {
    return (x > 0.0f ? 1.0f : 0.0f) * dout;
}

// x Phi(x), Phi(x) = (1 + erf(x/sqrt 2))/2
static inline CUDA_HD float cuda_gelu(float x) {
    return 0.5f * x * (1.0f + erff(x * CUDA_GELU_RSQRT2));
}

// Phi(x) + x phi(x), phi the normal density
static inline CUDA_HD float cuda_gelu_grad(float x) {
    float phi_cdf = 0.5f * (1.0f + erff(x * CUDA_GELU_RSQRT2));
    float phi_pdf = expf(-0.5f * x * x) * CUDA_GELU_RSQRT_2PI;
    return phi_cdf + x * phi_pdf;
}

// x/2 (1 + tanh u), u = sqrt(2/pi) (x + 0.044715 x^3)
static inline CUDA_HD float cuda_gelu_tanh(float x) {
    float u = CUDA_GELU_SQRT_2_PI * (x + CUDA_GELU_CUBIC * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
}

// (1 + tanh u)/2 + x/2 (1 - tanh^2 u) u', in double as the cpu backend does
// (in fp32 the two terms cancel for x below about -3), from the fp32
// constants widened.
static inline CUDA_HD float cuda_gelu_tanh_grad(float xf) {
    double x = xf;
    double x2 = x * x;
    double s = (double)CUDA_GELU_SQRT_2_PI, kc = (double)CUDA_GELU_CUBIC;
    double t = tanh(s * (x + kc * x2 * x));
    double du = s * (1.0 + 3.0 * kc * x2);
    return (float)(0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du);
}

// act(x) for one of SimAct (an unknown act gives 0; the caller refuses it).
static inline CUDA_HD float cuda_act_forward_elem(SimAct act, float x) {
    switch (act) {
    case SIM_ACT_RELU: return cuda_relu(x);
    case SIM_ACT_GELU: return cuda_gelu(x);
    case SIM_ACT_GELU_TANH: return cuda_gelu_tanh(x);
    default: return 0.0f;
    }
}

// dinp + act'(x) * dout: the new value of dinp[i] (backward accumulates).
static inline CUDA_HD float cuda_act_backward_elem(SimAct act, float dinp, float x,
                                                   float dout) {
    switch (act) {
    case SIM_ACT_RELU: return dinp + cuda_relu_grad_times(x, dout);
    case SIM_ACT_GELU: return dinp + cuda_gelu_grad(x) * dout;
    case SIM_ACT_GELU_TANH: return dinp + cuda_gelu_tanh_grad(x) * dout;
    default: return dinp;
    }
}

// ----------------------------------------------------------------------------
// Element-wise vector ops and reductions (cpu_math_misc.c)

static inline CUDA_HD float cuda_add_elem(float a, float b) {
    return a + b;
}

// y + alpha x with one rounding (torch's add_(x, alpha=...) with FMA).
static inline CUDA_HD float cuda_axpy_elem(float y, float alpha, float x) {
    return fmaf(alpha, x, y);
}

static inline CUDA_HD float cuda_scale_elem(float x, float alpha) {
    return x * alpha;
}

// One term of the sum of squares: exact in double (a 24-bit significand
// squared has at most 48 bits), so only the order of the additions can differ
// from the cpu backend's.
static inline CUDA_HD double cuda_sumsq_term(float x) {
    return (double)x * (double)x;
}

// ----------------------------------------------------------------------------
// fp16 / bf16 conversions (sim/base/dtype.c): round to nearest, ties to even;
// overflow to inf; NaN stays NaN with its top payload bits and the quiet bit
// set. Integer arithmetic only.

static inline CUDA_HD uint16_t cuda_f32_to_f16(float f) {
    uint32_t x = cuda_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) // NaN
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) // 65520 and up (the tie above 65504 goes up): inf
        return (uint16_t)(sign | 0x7c00u);
    if (ax >= 0x38800000u) {
        // Normal in fp16 (2^-14 and up): rebias the exponent (127 - 15) and
        // drop 13 mantissa bits rounding to even; a carry out of the mantissa
        // moves to the next exponent, which is the right result.
        uint32_t r = ax - 0x38000000u;
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(sign | (r >> 13));
    }
    uint32_t e = ax >> 23;
    if (e < 102) // below 2^-25 (and 2^-25 itself, a tie to the even 0): zero
        return (uint16_t)sign;
    // Subnormal in fp16: the value in units of 2^-24 is the 24-bit
    // significand shifted right by 126 - e (14 to 24 bits), rounded to even;
    // rounding up to 0x400 gives the smallest normal, also right.
    uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)e;
    uint32_t half = 1u << (shift - 1);
    uint32_t q = (m + (half - 1u) + ((m >> shift) & 1u)) >> shift;
    return (uint16_t)(sign | q);
}

static inline CUDA_HD float cuda_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1fu) // inf, or NaN with its payload
        return cuda_f32_from_bits(sign | 0x7f800000u | (m << 13));
    if (e != 0)
        return cuda_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0)
        return cuda_f32_from_bits(sign);
    // Subnormal: m 2^-24 = 2^(k-24) (m / 2^k) with k the top set bit of m,
    // a normal fp32 value.
    int k = 9;
    while (((m >> k) & 1u) == 0)
        k--;
    uint32_t frac = (m << (23 - k)) & 0x7fffffu;
    return cuda_f32_from_bits(sign | ((uint32_t)(k + 103) << 23) | frac);
}

static inline CUDA_HD uint16_t cuda_f32_to_bf16(float f) {
    uint32_t x = cuda_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: truncate and keep it quiet
        return (uint16_t)((x >> 16) | 0x40u);
    // Adding 0x7fff plus the kept lowest bit carries into bit 16 exactly when
    // the dropped half is above the tie, or at the tie with an odd result.
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static inline CUDA_HD float cuda_bf16_to_f32(uint16_t b) {
    return cuda_f32_from_bits((uint32_t)b << 16);
}

// ----------------------------------------------------------------------------
// Casts between storage types (cpu_math_cast): between the float types
// through fp32 (which is what the cpu backend's fp32 pairs do directly, and
// what its path through a double gives for the fp16 <-> bf16 pairs, since
// every fp16 and bf16 value is an fp32 value); any pair with an integer type
// through a double, rounded to the destination: (float) of the double for the
// float types (int64 -> fp16 thus rounds twice, as on the cpu backend),
// truncation toward zero for the integers.
//
// Where C leaves a conversion undefined (NaN, or a value out of the
// integer's range), the cpu backend has no defined result; here NaN gives 0
// and out-of-range values saturate, as the GPU's own conversions do.

// Bytes per element, 0 for an invalid dtype (sim_dtype_size, which the .cu
// files cannot call: sim/base/dtype.h declares it without C linkage for C++).
static inline CUDA_HD size_t cuda_dtype_bytes(SimDtype dt) {
    switch (dt) {
    case SIM_FP32: return 4;
    case SIM_FP16: return 2;
    case SIM_BF16: return 2;
    case SIM_INT32: return 4;
    case SIM_INT64: return 8;
    default: return 0;
    }
}

static inline CUDA_HD int cuda_dtype_is_float(SimDtype dt) {
    return dt == SIM_FP32 || dt == SIM_FP16 || dt == SIM_BF16;
}

// Element i of a float-typed buffer as fp32.
static inline CUDA_HD float cuda_load_f32(const void *buf, SimDtype dt, size_t i) {
    switch (dt) {
    case SIM_FP16: return cuda_f16_to_f32(((const uint16_t *)buf)[i]);
    case SIM_BF16: return cuda_bf16_to_f32(((const uint16_t *)buf)[i]);
    default: return ((const float *)buf)[i];
    }
}

static inline CUDA_HD void cuda_store_f32(void *buf, SimDtype dt, size_t i, float v) {
    switch (dt) {
    case SIM_FP16: ((uint16_t *)buf)[i] = cuda_f32_to_f16(v); break;
    case SIM_BF16: ((uint16_t *)buf)[i] = cuda_f32_to_bf16(v); break;
    default: ((float *)buf)[i] = v; break;
    }
}

static inline CUDA_HD double cuda_load_f64(const void *buf, SimDtype dt, size_t i) {
    switch (dt) {
    case SIM_INT32: return (double)((const int32_t *)buf)[i];
    case SIM_INT64: return (double)((const int64_t *)buf)[i];
    default: return (double)cuda_load_f32(buf, dt, i);
    }
}

static inline CUDA_HD int32_t cuda_f64_to_i32(double v) {
    if (v != v)
        return 0;
    if (v <= -2147483648.0)
        return INT32_MIN;
    if (v >= 2147483647.0)
        return INT32_MAX;
    return (int32_t)v;
}

static inline CUDA_HD int64_t cuda_f64_to_i64(double v) {
    if (v != v)
        return 0;
    if (v < -9223372036854775808.0)
        return INT64_MIN;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    return (int64_t)v;
}

static inline CUDA_HD void cuda_store_f64(void *buf, SimDtype dt, size_t i, double v) {
    switch (dt) {
    case SIM_INT32: ((int32_t *)buf)[i] = cuda_f64_to_i32(v); break;
    case SIM_INT64: ((int64_t *)buf)[i] = cuda_f64_to_i64(v); break;
    default: cuda_store_f32(buf, dt, i, (float)v); break;
    }
}

// dst[i] = src[i] converted; dst_dt != src_dt, both valid.
static inline CUDA_HD void cuda_cast_elem(void *dst, SimDtype dst_dt, const void *src,
                                          SimDtype src_dt, size_t i) {
    if (cuda_dtype_is_float(dst_dt) && cuda_dtype_is_float(src_dt))
        cuda_store_f32(dst, dst_dt, i, cuda_load_f32(src, src_dt, i));
    else
        cuda_store_f64(dst, dst_dt, i, cuda_load_f64(src, src_dt, i));
}

// ----------------------------------------------------------------------------
// Optimizers (cpu_math_optim.c): torch.optim's single-tensor SGD and
// Adam/AdamW. The coefficients are computed once per step on the host, in
// double, and rounded to fp32 where torch hands them to a kernel; the
// per-element updates then round each tensor op to fp32 in torch's order,
// with fmaf where torch's kernel fuses.

typedef struct {
    float wd, mom, one_minus_damp, neg_lr;
    int has_wd, nesterov, first;
} CudaSgdCoef;

static inline CudaSgdCoef cuda_sgd_coef(const SimSgdHyper *h) {
    CudaSgdCoef k;
    k.wd = (float)h->weight_decay;
    k.mom = (float)h->momentum;
    k.one_minus_damp = (float)(1.0 - h->dampening);
    k.neg_lr = (float)(-h->lr);
    k.has_wd = h->weight_decay != 0.0;
    k.nesterov = h->nesterov != 0;
    k.first = h->first_step != 0;
    return k;
}

// Plain SGD (momentum 0): p -= lr (g + wd p).
static inline CUDA_HD void cuda_sgd_elem(float *p, const float *g, size_t i, CudaSgdCoef k) {
    // d_p = grad.add(param, alpha=wd), skipped without weight decay (fmaf
    // with 0 would turn -0 into +0 and inf p into NaN)
    float d = k.has_wd ? fmaf(p[i], k.wd, g[i]) : g[i];
    p[i] = fmaf(d, k.neg_lr, p[i]); // param.add_(d_p, alpha=-lr)
}

// SGD with a momentum buffer.
static inline CUDA_HD void cuda_sgd_momentum_elem(float *p, const float *g, float *buf,
                                                  size_t i, CudaSgdCoef k) {
    float d = k.has_wd ? fmaf(p[i], k.wd, g[i]) : g[i];
    // first step: buf = clone(d_p); then buf.mul_(m).add_(d_p, alpha=1-dampening)
    float b = k.first ? d : fmaf(d, k.one_minus_damp, buf[i] * k.mom);
    buf[i] = b;
    // nesterov: d_p = d_p.add(buf, alpha=m); else d_p = buf
    float step = k.nesterov ? fmaf(b, k.mom, d) : b;
    p[i] = fmaf(step, k.neg_lr, p[i]);
}

typedef struct {
    float wd;    // Adam: the L2 term added to the gradient
    float decay; // AdamW: param.mul_(1 - lr wd); 1 (exact) for Adam
    float beta1, one_minus_beta1, beta2, one_minus_beta2;
    float bc2_sqrt, eps, neg_step_size;
    int has_wd;  // Adam with weight_decay != 0
} CudaAdamCoef;

// h->step >= 1 (the caller checks).
static inline CudaAdamCoef cuda_adam_coef(const SimAdamHyper *h) {
    double t = (double)h->step;
    double bias1 = 1.0 - pow(h->beta1, t);
    double bias2 = 1.0 - pow(h->beta2, t);
    CudaAdamCoef k;
    k.wd = (float)h->weight_decay;
    k.decay = h->decoupled ? (float)(1.0 - h->lr * h->weight_decay) : 1.0f;
    k.beta1 = (float)h->beta1;
    k.one_minus_beta1 = (float)(1.0 - h->beta1);
    k.beta2 = (float)h->beta2;
    k.one_minus_beta2 = (float)(1.0 - h->beta2);
    k.bc2_sqrt = (float)sqrt(bias2);
    k.eps = (float)h->eps;
    k.neg_step_size = (float)(-(h->lr / bias1));
    k.has_wd = !h->decoupled && h->weight_decay != 0.0;
    return k;
}

static inline CUDA_HD void cuda_adam_elem(float *p, const float *g, float *m, float *v,
                                          size_t i, CudaAdamCoef k) {
    float pd = p[i] * k.decay;                                 // AdamW decay
    float gi = k.has_wd ? fmaf(pd, k.wd, g[i]) : g[i];         // Adam L2 term
    float mi = fmaf(gi, k.one_minus_beta1, m[i] * k.beta1);    // exp_avg
    float vi = fmaf(k.one_minus_beta2 * gi, gi, v[i] * k.beta2); // exp_avg_sq (addcmul_)
    float denom = sqrtf(vi) / k.bc2_sqrt + k.eps;
    p[i] = pd + k.neg_step_size * mi / denom;                  // addcdiv_, not fused
    m[i] = mi;
    v[i] = vi;
}

// ----------------------------------------------------------------------------
// Token + position embedding (cpu_math_embed.c). Token ids were checked by
// the wrapper; a negative one is still never used as an index: these return 1
// for it (the kernel reports SIM_EINVAL), 0 otherwise.

// out[b,t,c] = wte[idx[b,t],c] + wpe[t,c]; i indexes out [B,T,C].
static inline CUDA_HD int cuda_embed_forward_elem(float *out, const int32_t *idx,
                                                  const float *wte, const float *wpe, int T,
                                                  int C, size_t i) {
    size_t pos = i / (size_t)C, c = i % (size_t)C;
    int32_t ix = idx[pos];
    if (ix < 0)
        return 1;
    size_t t = pos % (size_t)T;
    out[i] = wte[(size_t)ix * C + c] + wpe[t * C + c];
    return 0;
}

// dwpe[t,c] += dout[b,t,c] for b = 0, 1, ..., B-1 in that order: the cpu
// backend's order for this element; tc indexes dwpe [T,C].
static inline CUDA_HD void cuda_embed_dwpe_elem(float *dwpe, const float *dout, int B, int T,
                                                int C, size_t tc) {
    float acc = dwpe[tc];
    size_t stride = (size_t)T * C;
    for (int b = 0; b < B; b++)
        acc += dout[(size_t)b * stride + tc];
    dwpe[tc] = acc;
}

// The token rows' gradient without atomics, deterministic, in the cpu
// backend's order: channel c of the rows whose token id is congruent to
// `lane` modulo `lanes` belongs to one thread, which walks the B*T positions
// in order and adds dout[pos,c] to dwte[idx[pos],c] for the positions it
// owns. Every element of dwte thus receives its additions in position order,
// from one thread, exactly as the cpu loop does. Negative ids are skipped
// (cuda_embed_id_bad reports them).
static inline CUDA_HD void cuda_embed_dwte_lane(float *dwte, const float *dout,
                                                const int32_t *idx, size_t BT, int C, int c,
                                                int lane, int lanes) {
    for (size_t pos = 0; pos < BT; pos++) {
        int32_t ix = idx[pos];
        if (ix >= 0 && ix % lanes == lane)
            dwte[(size_t)ix * C + c] += dout[pos * (size_t)C + c];
    }
}

static inline CUDA_HD int cuda_embed_id_bad(const int32_t *idx, size_t pos) {
    return idx[pos] < 0;
}

#endif
