// sim/base/ulp.c: distances in units in the last place, and the element-wise
// comparison of two buffers (see ulp.h).
#include "base/ulp.h"

#include <math.h>
#include <string.h>

// The three floating formats differ only in where the sign bit is and what
// the infinity's bit pattern is (all exponent bits set, mantissa zero).
#define F32_SIGN 0x80000000u
#define F32_INF 0x7f800000u
#define H_SIGN 0x8000u
#define F16_INF 0x7c00u
#define BF16_INF 0x7f80u

// Above the infinity (ignoring the sign) lie only NaNs.
static int is_nan_bits(uint32_t bits, uint32_t sign, uint32_t inf) {
    return (bits & (sign - 1)) > inf;
}

// Sign-magnitude to two's complement: negative values count down from zero,
// so -0 lands on 0 beside +0 and the integers keep the order of the values.
static int64_t ordered(uint32_t bits, uint32_t sign) {
    int64_t mag = (int64_t)(bits & (sign - 1));
    return (bits & sign) ? -mag : mag;
}

static uint64_t ulp_bits(uint32_t a, uint32_t b, uint32_t sign, uint32_t inf) {
    int na = is_nan_bits(a, sign, inf), nb = is_nan_bits(b, sign, inf);
    if (na || nb)
        return na && nb ? 0 : UINT64_MAX;
    int64_t x = ordered(a, sign), y = ordered(b, sign);
    return x > y ? (uint64_t)(x - y) : (uint64_t)(y - x);
}

uint64_t sim_ulp_f32(float a, float b) {
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    return ulp_bits(ua, ub, F32_SIGN, F32_INF);
}

uint64_t sim_ulp_f16(uint16_t a, uint16_t b) { return ulp_bits(a, b, H_SIGN, F16_INF); }

uint64_t sim_ulp_bf16(uint16_t a, uint16_t b) { return ulp_bits(a, b, H_SIGN, BF16_INF); }

// |x - y| without overflow: the unsigned difference wraps to the true
// distance, which always fits in 64 bits.
static uint64_t int_dist(int64_t x, int64_t y) {
    return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}

// One pair of elements, as the statistics need it.
typedef struct {
    int differ;    // bits differ, and not both NaN
    int nan_a, nan_b;
    uint64_t ulp;
    double a, b;
} UlpPair;

// Elements are read with memcpy: a tensor in a safetensors file may start
// at any byte offset.
static UlpPair pair_f32(const uint8_t *pa, const uint8_t *pb) {
    uint32_t ua, ub;
    float fa, fb;
    memcpy(&ua, pa, 4);
    memcpy(&ub, pb, 4);
    memcpy(&fa, pa, 4);
    memcpy(&fb, pb, 4);
    UlpPair p = {0, is_nan_bits(ua, F32_SIGN, F32_INF), is_nan_bits(ub, F32_SIGN, F32_INF),
                 ulp_bits(ua, ub, F32_SIGN, F32_INF), fa, fb};
    p.differ = ua != ub && !(p.nan_a && p.nan_b);
    return p;
}

static UlpPair pair_half(const uint8_t *pa, const uint8_t *pb, int bf16) {
    uint16_t ua, ub;
    memcpy(&ua, pa, 2);
    memcpy(&ub, pb, 2);
    uint32_t inf = bf16 ? BF16_INF : F16_INF;
    UlpPair p = {0, is_nan_bits(ua, H_SIGN, inf), is_nan_bits(ub, H_SIGN, inf),
                 ulp_bits(ua, ub, H_SIGN, inf),
                 bf16 ? sim_bf16_to_f32(ua) : sim_f16_to_f32(ua),
                 bf16 ? sim_bf16_to_f32(ub) : sim_f16_to_f32(ub)};
    p.differ = ua != ub && !(p.nan_a && p.nan_b);
    return p;
}

static UlpPair pair_int(const uint8_t *pa, const uint8_t *pb, int wide) {
    int64_t x, y;
    if (wide) {
        memcpy(&x, pa, 8);
        memcpy(&y, pb, 8);
    } else {
        int32_t x32, y32;
        memcpy(&x32, pa, 4);
        memcpy(&y32, pb, 4);
        x = x32;
        y = y32;
    }
    UlpPair p = {x != y, 0, 0, int_dist(x, y), (double)x, (double)y};
    return p;
}

static UlpPair pair_at(SimDtype dt, const uint8_t *a, const uint8_t *b, int64_t i) {
    size_t off = (size_t)i * sim_dtype_size(dt);
    switch (dt) {
    case SIM_FP32: return pair_f32(a + off, b + off);
    case SIM_FP16: return pair_half(a + off, b + off, 0);
    case SIM_BF16: return pair_half(a + off, b + off, 1);
    case SIM_INT32: return pair_int(a + off, b + off, 0);
    default: return pair_int(a + off, b + off, 1);
    }
}

// |a - b| / max(|a|, |b|), with the formula's limits where it is inf/inf:
// an infinity against a finite value is 1 apart relatively, +inf against
// -inf 2. Returns -1 for 0/0 (+0 against -0), which is skipped.
static double rel_diff(double a, double b, double abs) {
    double den = fmax(fabs(a), fabs(b));
    if (den == 0)
        return -1;
    if (isinf(den))
        return isinf(a) && isinf(b) ? 2 : 1;
    return abs / den;
}

static void add_pair(SimUlpStats *s, const UlpPair *p, int64_t i, int integer) {
    s->ndiff++;
    if (p->nan_a != p->nan_b)
        s->nan_mismatch++;
    if (s->argmax < 0 || p->ulp > s->max_ulp) {
        s->max_ulp = p->ulp;
        s->argmax = i;
        s->a_at = p->a;
        s->b_at = p->b;
    }
    if (p->nan_a || p->nan_b)
        return;
    // For integers the exact distance, not a difference of rounded doubles.
    double abs = integer ? (double)p->ulp : fabs(p->a - p->b);
    s->max_abs = fmax(s->max_abs, abs);
    s->max_rel = fmax(s->max_rel, rel_diff(p->a, p->b, abs));
}

void sim_ulp_compare(SimDtype dt, const void *a, const void *b, int64_t n, SimUlpStats *out) {
    memset(out, 0, sizeof *out);
    out->argmax = -1;
    if (sim_dtype_size(dt) == 0 || n <= 0)
        return;
    out->n = n;
    int integer = !sim_dtype_is_float(dt);
    for (int64_t i = 0; i < n; i++) {
        UlpPair p = pair_at(dt, a, b, i);
        if (p.differ)
            add_pair(out, &p, i, integer);
    }
}

void sim_ulp_merge(SimUlpStats *acc, const SimUlpStats *s) {
    int had = acc->ndiff > 0, has = s->ndiff > 0;
    if (has && (!had || s->max_ulp > acc->max_ulp)) {
        acc->max_ulp = s->max_ulp;
        acc->a_at = s->a_at;
        acc->b_at = s->b_at;
    }
    // A zeroed acc holds argmax 0, which means nothing until a part differs.
    acc->argmax = had && has ? -1 : had ? acc->argmax : has ? s->argmax : -1;
    acc->n += s->n;
    acc->ndiff += s->ndiff;
    acc->nan_mismatch += s->nan_mismatch;
    acc->max_abs = fmax(acc->max_abs, s->max_abs);
    acc->max_rel = fmax(acc->max_rel, s->max_rel);
}
