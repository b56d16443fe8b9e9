// sim/base/dtype.c: element types, fp16/bf16 conversions (round-to-nearest-even)
// and the reduction kernels used by every collective.
#include "base/dtype.h"

#include <math.h>
#include <string.h>

// ----------------------------------------------------------------------------
// names

static const char *const dtype_names[SIM_DTYPE_COUNT] = {"fp32", "fp16", "bf16", "int32", "int64"};
static const size_t dtype_sizes[SIM_DTYPE_COUNT] = {4, 2, 2, 4, 8};
static const char *const redop_names[SIM_REDOP_COUNT] = {"sum", "avg", "max", "min", "prod"};

size_t sim_dtype_size(SimDtype dt) {
    return (unsigned)dt < SIM_DTYPE_COUNT ? dtype_sizes[dt] : 0;
}

const char *sim_dtype_name(SimDtype dt) {
    return (unsigned)dt < SIM_DTYPE_COUNT ? dtype_names[dt] : "?";
}

int sim_dtype_parse(const char *s, SimDtype *out) {
    static const struct { const char *name; SimDtype dt; } aliases[] = {
        {"fp32", SIM_FP32}, {"float", SIM_FP32}, {"float32", SIM_FP32},
        {"fp16", SIM_FP16}, {"half", SIM_FP16}, {"float16", SIM_FP16},
        {"bf16", SIM_BF16}, {"bfloat16", SIM_BF16},
        {"int32", SIM_INT32}, {"int", SIM_INT32},
        {"int64", SIM_INT64}, {"long", SIM_INT64},
    };
    for (size_t i = 0; s && i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(s, aliases[i].name) == 0) {
            *out = aliases[i].dt;
            return 0;
        }
    }
    return -1;
}

int sim_dtype_is_float(SimDtype dt) {
    return dt == SIM_FP32 || dt == SIM_FP16 || dt == SIM_BF16;
}

const char *sim_redop_name(SimRedOp op) {
    return (unsigned)op < SIM_REDOP_COUNT ? redop_names[op] : "?";
}

int sim_redop_parse(const char *s, SimRedOp *out) {
    for (int i = 0; s && i < SIM_REDOP_COUNT; i++) {
        if (strcmp(s, redop_names[i]) == 0) {
            *out = (SimRedOp)i;
            return 0;
        }
    }
    return -1;
}

// ----------------------------------------------------------------------------
// fp16 / bf16 conversions

uint32_t sim_f32_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

float sim_f32_from_bits(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

// Shifts m right by `shift` bits, rounding to nearest, ties to even.
static uint32_t shift_round_even(uint32_t m, int shift) {
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u)))
        q++;
    return q;
}

uint16_t sim_f32_to_f16(float f) {
    uint32_t x = sim_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    int exp = (int)((x >> 23) & 0xffu);
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xff) // inf stays inf, NaN stays a (quiet) NaN
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
    int e = exp - 127 + 15; // biased fp16 exponent
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        // fp16 subnormal: value = m * 2^-24 with the 24-bit significand
        // shifted right by 14 - e; below half the smallest subnormal -> 0.
        int shift = 14 - e;
        if (shift > 24)
            return sign;
        return (uint16_t)(sign | shift_round_even(mant | 0x800000u, shift));
    }
    // Normal: a carry out of the mantissa bumps the exponent (up to inf).
    uint32_t v = ((uint32_t)e << 10) + shift_round_even(mant, 13);
    return (uint16_t)(sign | v);
}

float sim_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        if (mant == 0)
            return sim_f32_from_bits(sign);
        int k = 0; // normalise the subnormal
        while (!(mant & 0x400u)) {
            mant <<= 1;
            k++;
        }
        mant &= 0x3ffu;
        return sim_f32_from_bits(sign | ((uint32_t)(127 - 14 - k) << 23) | (mant << 13));
    }
    if (exp == 31)
        return sim_f32_from_bits(sign | 0x7f800000u | (mant << 13));
    return sim_f32_from_bits(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t sim_f32_to_bf16(float f) {
    uint32_t x = sim_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet
        return (uint16_t)((x >> 16) | 0x40u);
    uint32_t bias = 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)((x + bias) >> 16);
}

float sim_bf16_to_f32(uint16_t b) {
    return sim_f32_from_bits((uint32_t)b << 16);
}

// ----------------------------------------------------------------------------
// element access

double sim_elem_get(const void *buf, SimDtype dt, size_t i) {
    switch (dt) {
    case SIM_FP32: return ((const float *)buf)[i];
    case SIM_FP16: return sim_f16_to_f32(((const uint16_t *)buf)[i]);
    case SIM_BF16: return sim_bf16_to_f32(((const uint16_t *)buf)[i]);
    case SIM_INT32: return ((const int32_t *)buf)[i];
    case SIM_INT64: return (double)((const int64_t *)buf)[i];
    default: return 0.0;
    }
}

void sim_elem_set(void *buf, SimDtype dt, size_t i, double v) {
    switch (dt) {
    case SIM_FP32: ((float *)buf)[i] = (float)v; break;
    case SIM_FP16: ((uint16_t *)buf)[i] = sim_f32_to_f16((float)v); break;
    case SIM_BF16: ((uint16_t *)buf)[i] = sim_f32_to_bf16((float)v); break;
    case SIM_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case SIM_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    default: break;
    }
}

// ----------------------------------------------------------------------------
// reduction kernels. Work is done in blocks of BLOCK elements with a typed
// accumulator, so that fp16/bf16 chains are combined in fp32 and rounded once
// and so that dst may alias any source.

#define BLOCK 1024

static float op_f32(float a, float b, SimRedOp op) {
    switch (op) {
    case SIM_MAX: return a > b || isnan(a) ? a : b;
    case SIM_MIN: return a < b || isnan(a) ? a : b;
    case SIM_PROD: return a * b;
    default: return a + b; // SUM and AVG
    }
}

// Integers combine in unsigned arithmetic so that overflow wraps instead of
// being undefined behaviour.
static int32_t op_i32(int32_t a, int32_t b, SimRedOp op) {
    switch (op) {
    case SIM_MAX: return a > b ? a : b;
    case SIM_MIN: return a < b ? a : b;
    case SIM_PROD: return (int32_t)((uint32_t)a * (uint32_t)b);
    default: return (int32_t)((uint32_t)a + (uint32_t)b);
    }
}

static int64_t op_i64(int64_t a, int64_t b, SimRedOp op) {
    switch (op) {
    case SIM_MAX: return a > b ? a : b;
    case SIM_MIN: return a < b ? a : b;
    case SIM_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
    default: return (int64_t)((uint64_t)a + (uint64_t)b);
    }
}

// acc[i] = acc[i] (op) src[i], fp32 with a fast path for the common sum.
static void acc_f32(float *acc, const float *src, size_t n, SimRedOp op) {
    if (op == SIM_SUM || op == SIM_AVG) {
        for (size_t i = 0; i < n; i++)
            acc[i] += src[i];
        return;
    }
    for (size_t i = 0; i < n; i++)
        acc[i] = op_f32(acc[i], src[i], op);
}

static void widen_half(float *acc, const uint16_t *src, size_t n, SimDtype dt) {
    for (size_t i = 0; i < n; i++)
        acc[i] = dt == SIM_FP16 ? sim_f16_to_f32(src[i]) : sim_bf16_to_f32(src[i]);
}

static void narrow_half(uint16_t *dst, const float *acc, size_t n, SimDtype dt) {
    for (size_t i = 0; i < n; i++)
        dst[i] = dt == SIM_FP16 ? sim_f32_to_f16(acc[i]) : sim_f32_to_bf16(acc[i]);
}

static void reduce_block(void *dst, const void *const *src, int nsrc, size_t off,
                         size_t n, SimDtype dt, SimRedOp op) {
    switch (dt) {
    case SIM_FP32: {
        float acc[BLOCK];
        memcpy(acc, (const float *)src[0] + off, n * sizeof(float));
        for (int j = 1; j < nsrc; j++)
            acc_f32(acc, (const float *)src[j] + off, n, op);
        memcpy((float *)dst + off, acc, n * sizeof(float));
        break;
    }
    case SIM_FP16:
    case SIM_BF16: {
        float acc[BLOCK], tmp[BLOCK];
        widen_half(acc, (const uint16_t *)src[0] + off, n, dt);
        for (int j = 1; j < nsrc; j++) {
            widen_half(tmp, (const uint16_t *)src[j] + off, n, dt);
            acc_f32(acc, tmp, n, op);
        }
        narrow_half((uint16_t *)dst + off, acc, n, dt);
        break;
    }
    case SIM_INT32: {
        int32_t acc[BLOCK];
        memcpy(acc, (const int32_t *)src[0] + off, n * sizeof(int32_t));
        for (int j = 1; j < nsrc; j++) {
            const int32_t *s = (const int32_t *)src[j] + off;
            for (size_t i = 0; i < n; i++)
                acc[i] = op_i32(acc[i], s[i], op);
        }
        memcpy((int32_t *)dst + off, acc, n * sizeof(int32_t));
        break;
    }
    case SIM_INT64: {
        int64_t acc[BLOCK];
        memcpy(acc, (const int64_t *)src[0] + off, n * sizeof(int64_t));
        for (int j = 1; j < nsrc; j++) {
            const int64_t *s = (const int64_t *)src[j] + off;
            for (size_t i = 0; i < n; i++)
                acc[i] = op_i64(acc[i], s[i], op);
        }
        memcpy((int64_t *)dst + off, acc, n * sizeof(int64_t));
        break;
    }
    default:
        break;
    }
}

void sim_reduce_multi(void *dst, const void *const *src, int nsrc, size_t n,
                      SimDtype dt, SimRedOp op) {
    if (nsrc <= 0 || n == 0)
        return;
    for (size_t off = 0; off < n; off += BLOCK) {
        size_t len = n - off < BLOCK ? n - off : BLOCK;
        reduce_block(dst, src, nsrc, off, len, dt, op);
    }
}

// acc[i] = round(acc[i] (op) src[i]) for a half type: one hop of a chain.
static void hop_half(float *acc, const float *src, size_t n, SimDtype dt, SimRedOp op) {
    acc_f32(acc, src, n, op);
    for (size_t i = 0; i < n; i++)
        acc[i] = dt == SIM_FP16 ? sim_f16_to_f32(sim_f32_to_f16(acc[i]))
                                : sim_bf16_to_f32(sim_f32_to_bf16(acc[i]));
}

void sim_reduce_chain(void *dst, const void *const *src, int nsrc, size_t n, SimDtype dt,
                      SimRedOp op) {
    if (dt != SIM_FP16 && dt != SIM_BF16) {
        sim_reduce_multi(dst, src, nsrc, n, dt, op);
        return;
    }
    if (nsrc <= 0)
        return;
    for (size_t off = 0; off < n; off += BLOCK) {
        size_t len = n - off < BLOCK ? n - off : BLOCK;
        float acc[BLOCK], tmp[BLOCK];
        widen_half(acc, (const uint16_t *)src[0] + off, len, dt);
        for (int j = 1; j < nsrc; j++) {
            widen_half(tmp, (const uint16_t *)src[j] + off, len, dt);
            hop_half(acc, tmp, len, dt, op);
        }
        narrow_half((uint16_t *)dst + off, acc, len, dt); // exact: acc holds half values
    }
}

void sim_reduce_inplace(void *dst, const void *src, size_t n, SimDtype dt, SimRedOp op) {
    if (dt == SIM_FP32 && (op == SIM_SUM || op == SIM_AVG)) {
        acc_f32((float *)dst, (const float *)src, n, op); // the hot path, no staging
        return;
    }
    const void *srcs[2] = {dst, src};
    sim_reduce_multi(dst, srcs, 2, n, dt, op);
}

void sim_scale_avg(void *buf, size_t n, SimDtype dt, int nranks) {
    if (nranks <= 1)
        return;
    for (size_t i = 0; i < n; i++) {
        switch (dt) {
        case SIM_FP32: ((float *)buf)[i] /= (float)nranks; break;
        case SIM_FP16: {
            uint16_t *p = (uint16_t *)buf + i;
            *p = sim_f32_to_f16(sim_f16_to_f32(*p) / (float)nranks);
            break;
        }
        case SIM_BF16: {
            uint16_t *p = (uint16_t *)buf + i;
            *p = sim_f32_to_bf16(sim_bf16_to_f32(*p) / (float)nranks);
            break;
        }
        case SIM_INT32: ((int32_t *)buf)[i] /= nranks; break;
        case SIM_INT64: ((int64_t *)buf)[i] /= nranks; break;
        default: break;
        }
    }
}
