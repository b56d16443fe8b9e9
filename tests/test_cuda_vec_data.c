// tests/test_cuda_vec_data.c: seeded inputs for the tests of the CUDA
// vector kernels (see test_cuda_vec_data.h).
#include "test_cuda_vec_data.h"

#include <stdio.h>
#include <string.h>

void tcv_seed(TcvRng *g, uint64_t seed) {
    g->s = seed;
}

uint64_t tcv_next(TcvRng *g) {
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float tcv_uniform(TcvRng *g, float lo, float hi) {
    double u = (double)(tcv_next(g) >> 11) / 9007199254740992.0; // [0, 1)
    return (float)(lo + (hi - lo) * u);
}

static float from_bits(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

// fp32 bit patterns every float kernel meets sooner or later.
static const uint32_t f32_specials[] = {
    0x00000000u, 0x80000000u, // +-0
    0x7f800000u, 0xff800000u, // +-inf
    0x7fc00000u, 0xffc01234u, 0x7f800001u, // quiet NaN, NaN with payload, signalling NaN
    0x00000001u, 0x80400000u, 0x00800000u, // subnormals, the smallest normal
    0x7f7fffffu, 0xff7fffffu, // +-FLT_MAX
    0x3f800000u, 0xbf800000u, // +-1
    0x477fe000u, 0x477ff000u, 0x477fefffu, 0xc77ff000u, // 65504, 65520 (tie to inf), just below
    0x33800000u, 0x33000000u, 0x33400000u, 0xb3000001u, // 2^-24, 2^-25 (tie to 0), 3*2^-25
    0x38800000u, 0x387fffffu, 0x387ff000u, // fp16's smallest normal, just below, tie
    0x3f808000u, 0x3f818000u, 0xbf808001u, // bf16 ties: to even down, up; above
    0x3f801000u, 0x3f803000u, 0x3f801001u, // fp16 ties: down, up; above
    0x41200000u, 0xc0a00000u, 0x40400000u, 0xc0600000u, // 10, -5, 3, -3.5
};
#define F32_SPECIALS (sizeof f32_specials / sizeof f32_specials[0])

void tcv_fill(TcvRng *g, float *x, size_t n, float lo, float hi, int specials) {
    size_t i = 0;
    for (; specials && i < n && i < F32_SPECIALS; i++)
        x[i] = from_bits(f32_specials[i]);
    for (; i < n; i++)
        x[i] = tcv_uniform(g, lo, hi);
}

// ----------------------------------------------------------------------------
// cast sources

static const uint16_t f16_specials[] = {
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe12, // zeros, infs, NaNs
    0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x3c01,
};
static const uint16_t bf16_specials[] = {
    0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffa5, // zeros, infs, NaNs
    0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0x3f81,
};
// Integers at the rounding edges of fp16 (ulp 2 above 2048, 4 above 4096),
// bf16 (ulp 2 above 256) and fp32 (ulp 2 above 2^24).
static const int32_t i32_specials[] = {
    0, 1, -1, 2049, -2049, 2051, 4097, 4098, 4102, 257, 259, -259, 65504, 65519,
    65520, -65520, 65536, 16777217, 16777219, -16777217, INT32_MAX, INT32_MIN,
};
// Above 2^53 a double rounds first: 2^60 + 2^36 + 1 becomes 2^60 + 2^36, a
// tie in fp32 that goes to 2^60, where fp32 alone would give 2^60 + 2^37.
static const int64_t i64_specials[] = {
    (INT64_C(1) << 60) + (INT64_C(1) << 36) + 1, -((INT64_C(1) << 60) + (INT64_C(1) << 36) + 1),
    (INT64_C(1) << 53) + 1, INT64_MAX, INT64_MIN, (INT64_C(1) << 24) + 1, 2049, 0, -1,
};
#define COUNT(a) (sizeof a / sizeof a[0])

static int is_int(SimDtype dt) {
    return dt == SIM_INT32 || dt == SIM_INT64;
}

// fp32 values with |v| < 2^31, including fractions (truncation) and -0.
static float f32_int_safe(TcvRng *g, size_t i) {
    static const float edge[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.75f,
                                 2147483520.0f, -2147483648.0f, 1e-30f, -1e-30f};
    if (i < COUNT(edge))
        return edge[i];
    return i % 2 ? tcv_uniform(g, -2.1e9f, 2.1e9f) : tcv_uniform(g, -100.0f, 100.0f);
}

static float f32_any(TcvRng *g, size_t i) {
    if (i < F32_SPECIALS)
        return from_bits(f32_specials[i]);
    switch (i % 4) {
    case 0: return from_bits((uint32_t)tcv_next(g)); // any pattern, NaNs included
    case 1: return tcv_uniform(g, -70000.0f, 70000.0f); // fp16's range and beyond
    case 2: return tcv_uniform(g, -1.0f, 1.0f) * 1e-6f; // fp16 subnormals
    default: return tcv_uniform(g, -4.0f, 4.0f);
    }
}

static uint16_t f16_bits(TcvRng *g, size_t i, int int_safe) {
    uint16_t h = i < COUNT(f16_specials) ? f16_specials[i] : (uint16_t)tcv_next(g);
    if (int_safe && (h & 0x7c00u) == 0x7c00u)
        h &= 0xbfffu; // inf/NaN -> a finite value (at most 65504 < 2^31)
    return h;
}

static uint16_t bf16_bits(TcvRng *g, size_t i, int int_safe) {
    uint16_t b = i < COUNT(bf16_specials) ? bf16_specials[i] : (uint16_t)tcv_next(g);
    if (int_safe && ((b >> 7) & 0xffu) > 157u) // |v| >= 2^31, inf or NaN
        b = (uint16_t)((b & 0x807fu) | (157u << 7));
    return b;
}

static int32_t i32_any(TcvRng *g, size_t i) {
    return i < COUNT(i32_specials) ? i32_specials[i] : (int32_t)(uint32_t)tcv_next(g);
}

void tcv_cast_source(TcvRng *g, void *buf, SimDtype src, SimDtype dst, size_t n) {
    int int_safe = is_int(dst);
    for (size_t i = 0; i < n; i++) {
        switch (src) {
        case SIM_FP32:
            ((float *)buf)[i] = int_safe ? f32_int_safe(g, i) : f32_any(g, i);
            break;
        case SIM_FP16: ((uint16_t *)buf)[i] = f16_bits(g, i, int_safe); break;
        case SIM_BF16: ((uint16_t *)buf)[i] = bf16_bits(g, i, int_safe); break;
        case SIM_INT32: ((int32_t *)buf)[i] = i32_any(g, i); break;
        case SIM_INT64:
            if (dst == SIM_INT32) // int64 -> int32 goes through a double: stay in range
                ((int64_t *)buf)[i] = i32_any(g, i);
            else
                ((int64_t *)buf)[i] = i < COUNT(i64_specials) ? i64_specials[i]
                                                              : (int64_t)tcv_next(g);
            break;
        default: break;
        }
    }
}

// ----------------------------------------------------------------------------
// optimizer cases

// {lr, momentum, dampening, weight_decay, nesterov, first_step}
const SimSgdHyper tcv_sgd_cases[TCV_SGD_CASES] = {
    {0.1, 0.0, 0.0, 0.0, 0, 0},
    {0.05, 0.0, 0.0, 1e-2, 0, 0},
    {0.1, 0.9, 0.0, 0.0, 0, 0},
    {0.01, 0.9, 0.1, 5e-4, 0, 0},
    {0.01, 0.9, 0.0, 1e-4, 1, 0},
    {0.3, 0.5, 0.0, 0.1, 1, 0},
};

// {lr, beta1, beta2, eps, weight_decay, decoupled, step}
const SimAdamHyper tcv_adam_cases[TCV_ADAM_CASES] = {
    {1e-3, 0.9, 0.999, 1e-8, 0.0, 0, 1},
    {1e-3, 0.9, 0.999, 1e-8, 1e-2, 0, 1},
    {1e-3, 0.9, 0.999, 1e-8, 1e-2, 1, 1},
    {3e-4, 0.8, 0.95, 1e-6, 0.1, 1, 1},
    {1e-2, 0.5, 0.9, 1e-3, 0.0, 1, 1},
};

void tcv_sgd_name(const SimSgdHyper *h, char *buf, size_t len) {
    snprintf(buf, len, "sgd lr=%g mom=%g damp=%g wd=%g%s", h->lr, h->momentum, h->dampening,
             h->weight_decay, h->nesterov ? " nesterov" : "");
}

void tcv_adam_name(const SimAdamHyper *h, char *buf, size_t len) {
    snprintf(buf, len, "%s lr=%g betas=(%g,%g) eps=%g wd=%g", h->decoupled ? "adamw" : "adam",
             h->lr, h->beta1, h->beta2, h->eps, h->weight_decay);
}
