// tests/test_ulp.c: distances in units in the last place (sim/base/ulp.h):
//   f32          hand-checked distances: neighbours, across zero, +0/-0,
//                a binade (1 to 2 = 2^23), the infinities, NaNs; and a walk
//                with nextafterf across zero that counts every step
//   f16, bf16    the same with explicit bit patterns, then every pair of
//                sampled patterns against an oracle that is independent of
//                the bit trick: the rank of the value among all the
//                format's distinct values, sorted
//   compare      arrays with known statistics (ndiff, max_ulp, argmax, the
//                values there, max_abs, max_rel, nan_mismatch) in every
//                dtype, identical arrays, unaligned buffers, infinities
//   merge        sums, maxima, and argmax kept only while one part differs
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/ulp.h"
#include "check.h"

static float f32_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int test_f32(void) {
    CHECK_EQ_INT(sim_ulp_f32(1.0f, nextafterf(1.0f, 2.0f)), 1);
    CHECK_EQ_INT(sim_ulp_f32(nextafterf(1.0f, 2.0f), 1.0f), 1);
    CHECK_EQ_INT(sim_ulp_f32(1.0f, nextafterf(1.0f, 0.0f)), 1);
    float dmin = f32_bits(0x00000001u), ndmin = f32_bits(0x80000001u);
    CHECK_EQ_INT(sim_ulp_f32(dmin, ndmin), 2);
    CHECK_EQ_INT(sim_ulp_f32(0.0f, dmin), 1);
    CHECK_EQ_INT(sim_ulp_f32(-0.0f, dmin), 1);
    CHECK_EQ_INT(sim_ulp_f32(0.0f, -0.0f), 0);
    CHECK_EQ_INT(sim_ulp_f32(1.0f, 2.0f), 1 << 23);
    CHECK_EQ_INT(sim_ulp_f32(-1.0f, -2.0f), 1 << 23);
    CHECK_EQ_INT(sim_ulp_f32(1.0f, 1.0f), 0);
    // -1 to 1: down to zero and up again, 0x3f800000 steps each way.
    CHECK_EQ_INT(sim_ulp_f32(-1.0f, 1.0f), 2LL * 0x3f800000);
    CHECK_EQ_INT(sim_ulp_f32(INFINITY, FLT_MAX), 1);
    CHECK_EQ_INT(sim_ulp_f32(-INFINITY, -FLT_MAX), 1);
    CHECK_EQ_INT(sim_ulp_f32(INFINITY, -INFINITY), 2LL * 0x7f800000);
    CHECK_EQ_INT(sim_ulp_f32(INFINITY, INFINITY), 0);
    CHECK_EQ_INT(sim_ulp_f32(NAN, NAN), 0);
    CHECK_EQ_INT(sim_ulp_f32(NAN, -NAN), 0);
    CHECK(sim_ulp_f32(NAN, 1.0f) == UINT64_MAX);
    CHECK(sim_ulp_f32(0.0f, NAN) == UINT64_MAX);
    CHECK(sim_ulp_f32(NAN, INFINITY) == UINT64_MAX);
    return 0;
}

// nextafterf one step at a time, from below zero to above it: the distance
// to the start is the number of steps. nextafterf goes -denorm_min -> -0 ->
// +denorm_min, never through +0, so zero is one step as it should be.
static int test_f32_walk(void) {
    float start = -100 * f32_bits(0x00000001u), x = start;
    for (int64_t steps = 1; steps <= 300; steps++) {
        x = nextafterf(x, 1.0f);
        CHECK_EQ_INT(sim_ulp_f32(start, x), steps);
        CHECK_EQ_INT(sim_ulp_f32(x, start), steps);
    }
    CHECK(x > 0);
    return 0;
}

static int test_f16(void) {
    CHECK_EQ_INT(sim_ulp_f16(0x3C00, 0x3C01), 1);  // 1.0 and the next
    CHECK_EQ_INT(sim_ulp_f16(0x3C00, 0x4000), 1024); // 1.0 to 2.0: 2^10
    CHECK_EQ_INT(sim_ulp_f16(0x8001, 0x0001), 2);  // smallest denormals
    CHECK_EQ_INT(sim_ulp_f16(0x0000, 0x8000), 0);  // +0, -0
    CHECK_EQ_INT(sim_ulp_f16(0x7C00, 0x7BFF), 1);  // inf, 65504
    CHECK_EQ_INT(sim_ulp_f16(0xFC00, 0xFBFF), 1);  // -inf, -65504
    CHECK_EQ_INT(sim_ulp_f16(0x7C00, 0xFC00), 2 * 0x7C00);
    CHECK_EQ_INT(sim_ulp_f16(0x7E00, 0x7E00), 0);  // NaN, NaN
    CHECK_EQ_INT(sim_ulp_f16(0x7E01, 0xFE00), 0);  // NaNs of other payload, sign
    CHECK(sim_ulp_f16(0x7E00, 0x3C00) == UINT64_MAX);
    CHECK(sim_ulp_f16(0x7C01, 0x7C00) == UINT64_MAX); // smallest NaN vs inf
    return 0;
}

static int test_bf16(void) {
    CHECK_EQ_INT(sim_ulp_bf16(0x3F80, 0x3F81), 1);  // 1.0 and the next
    CHECK_EQ_INT(sim_ulp_bf16(0x3F80, 0x4000), 128); // 1.0 to 2.0: 2^7
    CHECK_EQ_INT(sim_ulp_bf16(0x8001, 0x0001), 2);
    CHECK_EQ_INT(sim_ulp_bf16(0x0000, 0x8000), 0);
    CHECK_EQ_INT(sim_ulp_bf16(0x7F80, 0x7F7F), 1);  // inf, the largest finite
    CHECK_EQ_INT(sim_ulp_bf16(0xBF80, 0x3F80), 2 * 0x3F80); // -1, 1
    CHECK_EQ_INT(sim_ulp_bf16(0x7FC0, 0xFFC1), 0);
    CHECK(sim_ulp_bf16(0x7FC0, 0x0000) == UINT64_MAX);
    CHECK(sim_ulp_bf16(0x7F81, 0x7F80) == UINT64_MAX);
    // 0x7C00 is an ordinary number in bf16 (about 2.7e36), a NaN check
    // borrowed from fp16 would get it wrong.
    CHECK_EQ_INT(sim_ulp_bf16(0x7C00, 0x7C01), 1);
    return 0;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

// The oracle: every non-NaN value of a 16-bit format, sorted and with +0
// and -0 merged; a value's rank is its index. The distance is the
// difference of ranks. Built from the converters alone.
typedef struct {
    float v[65536];
    int n;
} Ranks;

static void ranks_build(Ranks *r, float (*conv)(uint16_t)) {
    float all[65536];
    int n = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = conv((uint16_t)h);
        if (!isnan(f))
            all[n++] = f;
    }
    qsort(all, (size_t)n, sizeof all[0], cmp_float);
    r->n = 0;
    for (int i = 0; i < n; i++)
        if (r->n == 0 || all[i] != r->v[r->n - 1])
            r->v[r->n++] = all[i];
}

// Index of f in r->v (f is one of the values).
static int64_t rank_of(const Ranks *r, float f) {
    int lo = 0, hi = r->n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (r->v[mid] < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Pattern a against every bstep-th pattern b, by ulp and by the ranks.
static int check_row(const int64_t *rank, uint32_t a, uint32_t bstep,
                     uint64_t (*ulp)(uint16_t, uint16_t)) {
    for (uint32_t b = 0; b < 65536; b += bstep) {
        uint64_t want = (uint64_t)llabs(rank[a] - rank[b]);
        if (rank[a] < 0 || rank[b] < 0) // NaNs: equal to each other only
            want = rank[a] < 0 && rank[b] < 0 ? 0 : UINT64_MAX;
        uint64_t got = ulp((uint16_t)a, (uint16_t)b);
        if (got != want) {
            fprintf(stderr, "0x%04x vs 0x%04x: %llu, want %llu\n", (unsigned)a, (unsigned)b,
                    (unsigned long long)got, (unsigned long long)want);
            return 1;
        }
    }
    return 0;
}

static int check_against_ranks(float (*conv)(uint16_t), uint64_t (*ulp)(uint16_t, uint16_t)) {
    static Ranks r;
    static int64_t rank[65536]; // of each pattern; -1: NaN
    ranks_build(&r, conv);
    for (uint32_t h = 0; h < 65536; h++)
        rank[h] = isnan(conv((uint16_t)h)) ? -1 : rank_of(&r, conv((uint16_t)h));
    // Every 37th pattern against every 11th: about 10 million pairs over
    // all signs, exponents and mantissas; then the zeros, the smallest
    // denormals, 1.0 and both formats' infinities against every pattern.
    for (uint32_t a = 0; a < 65536; a += 37)
        if (check_row(rank, a, 11, ulp) != 0)
            return 1;
    static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x3C00,
                                       0x3F80, 0x7C00, 0xFC00, 0x7F80, 0xFF80};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (check_row(rank, special[i], 1, ulp) != 0)
            return 1;
    return 0;
}

static int test_half_oracle(void) {
    CHECK(check_against_ranks(sim_f16_to_f32, sim_ulp_f16) == 0);
    CHECK(check_against_ranks(sim_bf16_to_f32, sim_ulp_bf16) == 0);
    return 0;
}

static int test_compare_f32(void) {
    float a[] = {1.0f, 2.0f, 3.0f, NAN, NAN, 0.0f, 5.0f, -1.0f};
    // Element 3: NaNs of opposite signs, other bits but equal as NaNs.
    float b[] = {1.0f, nextafterf(2.0f, 3.0f), 3.0f, -NAN, 1.0f, -0.0f, 4.0f, -1.0f};
    SimUlpStats s;
    sim_ulp_compare(SIM_FP32, a, b, 8, &s);
    CHECK_EQ_INT(s.n, 8);
    CHECK_EQ_INT(s.ndiff, 4); // 1, 4 (NaN vs 1), 5 (+0 vs -0), 6; not 3 (two NaNs)
    CHECK_EQ_INT(s.nan_mismatch, 1);
    CHECK(s.max_ulp == UINT64_MAX);
    CHECK_EQ_INT(s.argmax, 4);
    CHECK(isnan(s.a_at) && s.b_at == 1.0);
    CHECK(s.max_abs == 1.0);                 // 5 vs 4; the NaN pair skipped
    CHECK_NEAR(s.max_rel, 0.2, 1e-15);       // 1 / 5
    // Without the NaN: 5 vs 4 is the largest, 2^21 apart (one binade of
    // 2^23 steps, a quarter of the way).
    b[4] = NAN;
    sim_ulp_compare(SIM_FP32, a, b, 8, &s);
    CHECK_EQ_INT(s.ndiff, 3);
    CHECK_EQ_INT(s.nan_mismatch, 0);
    CHECK_EQ_INT(s.max_ulp, 1 << 21);
    CHECK_EQ_INT(s.argmax, 6);
    CHECK(s.a_at == 5.0 && s.b_at == 4.0);
    // Only +0 vs -0 left: it differs by its bits, 0 apart, 0/0 skipped.
    a[1] = b[1];
    a[6] = b[6];
    sim_ulp_compare(SIM_FP32, a, b, 8, &s);
    CHECK_EQ_INT(s.ndiff, 1);
    CHECK_EQ_INT(s.max_ulp, 0);
    CHECK_EQ_INT(s.argmax, 5);
    CHECK(s.max_abs == 0 && s.max_rel == 0);
    // Identical.
    sim_ulp_compare(SIM_FP32, a, a, 8, &s);
    CHECK_EQ_INT(s.ndiff, 0);
    CHECK_EQ_INT(s.argmax, -1);
    CHECK_EQ_INT(s.max_ulp, 0);
    return 0;
}

// The first element at the largest distance; infinities; unaligned data.
static int test_compare_edges(void) {
    float a[] = {1.0f, 8.0f, 1.0f, INFINITY, INFINITY};
    float b[] = {2.0f, 8.0f, 2.0f, FLT_MAX, -INFINITY};
    SimUlpStats s;
    sim_ulp_compare(SIM_FP32, a, b, 3, &s);
    CHECK_EQ_INT(s.argmax, 0); // elements 0 and 2 tie
    CHECK_EQ_INT(s.max_ulp, 1 << 23);
    CHECK_NEAR(s.max_rel, 0.5, 0);
    sim_ulp_compare(SIM_FP32, a + 3, b + 3, 1, &s);
    CHECK_EQ_INT(s.max_ulp, 1);
    CHECK(isinf(s.max_abs));
    CHECK(s.max_rel == 1); // inf vs finite: the limit of |a-b|/max
    sim_ulp_compare(SIM_FP32, a + 4, b + 4, 1, &s);
    CHECK(s.max_rel == 2);
    // At an odd address, as a tensor packed after an fp16 one can be.
    unsigned char ua[1 + sizeof a], ub[1 + sizeof b];
    memcpy(ua + 1, a, sizeof a);
    memcpy(ub + 1, b, sizeof b);
    sim_ulp_compare(SIM_FP32, ua + 1, ub + 1, 3, &s);
    CHECK_EQ_INT(s.ndiff, 2);
    CHECK_EQ_INT(s.max_ulp, 1 << 23);
    return 0;
}

static int test_compare_half(void) {
    uint16_t a[] = {0x3C00, 0x3C01, 0x7E00, 0x0001};
    uint16_t b[] = {0x3C00, 0x3C00, 0xFE01, 0x8001}; // NaN, another NaN: equal
    SimUlpStats s;
    sim_ulp_compare(SIM_FP16, a, b, 4, &s);
    CHECK_EQ_INT(s.ndiff, 2);
    CHECK_EQ_INT(s.max_ulp, 2);
    CHECK_EQ_INT(s.argmax, 3);
    CHECK(s.a_at == ldexp(1, -24) && s.b_at == -ldexp(1, -24));
    CHECK(s.max_abs == ldexp(1, -10)); // 1 + 2^-10 vs 1
    CHECK(s.max_rel == 2);             // 2^-23 / 2^-24
    CHECK_EQ_INT(s.nan_mismatch, 0);
    uint16_t c[] = {0x3F80, 0x4000, 0x7FC0};
    uint16_t d[] = {0x3F81, 0x4000, 0x3F80};
    sim_ulp_compare(SIM_BF16, c, d, 3, &s);
    CHECK_EQ_INT(s.ndiff, 2);
    CHECK(s.max_ulp == UINT64_MAX);
    CHECK_EQ_INT(s.argmax, 2);
    CHECK_EQ_INT(s.nan_mismatch, 1);
    CHECK(s.max_abs == ldexp(1, -7)); // 1 vs 1 + 2^-7
    CHECK(isnan(s.a_at) && s.b_at == 1.0);
    return 0;
}

static int test_compare_int(void) {
    int32_t a[] = {5, -7, INT32_MIN, 9};
    int32_t b[] = {5, 7, INT32_MAX, 9};
    SimUlpStats s;
    sim_ulp_compare(SIM_INT32, a, b, 4, &s);
    CHECK_EQ_INT(s.ndiff, 2);
    CHECK_EQ_INT(s.max_ulp, 4294967295LL);
    CHECK_EQ_INT(s.argmax, 2);
    CHECK(s.max_abs == 4294967295.0);
    CHECK(s.max_rel == 2); // 14 / 7
    int64_t c[] = {0, 10, INT64_MIN};
    int64_t d[] = {0, 3, INT64_MAX};
    sim_ulp_compare(SIM_INT64, c, d, 2, &s);
    CHECK_EQ_INT(s.ndiff, 1);
    CHECK_EQ_INT(s.max_ulp, 7);
    CHECK_EQ_INT(s.argmax, 1);
    CHECK(s.a_at == 10 && s.b_at == 3);
    CHECK(s.max_abs == 7 && s.max_rel == 0.7);
    sim_ulp_compare(SIM_INT64, c, d, 3, &s);
    CHECK(s.max_ulp == UINT64_MAX); // the whole range, without overflow
    CHECK_EQ_INT(s.argmax, 2);
    return 0;
}

static SimUlpStats stats(int64_t n, int64_t ndiff, uint64_t ulp, int64_t argmax, double at,
                         double abs) {
    SimUlpStats s = {n, ndiff, ulp, argmax, at, -at, abs, abs / 2, ndiff > 1};
    return s;
}

static int test_merge(void) {
    SimUlpStats acc;
    memset(&acc, 0, sizeof acc);
    SimUlpStats same = stats(5, 0, 0, -1, 0, 0);
    sim_ulp_merge(&acc, &same);
    CHECK_EQ_INT(acc.n, 5);
    CHECK_EQ_INT(acc.argmax, -1); // the zeroed 0 is not an index
    SimUlpStats one = stats(10, 2, 7, 3, 1.5, 0.25);
    sim_ulp_merge(&acc, &one);
    CHECK_EQ_INT(acc.argmax, 3); // one part differs: its index holds
    CHECK_EQ_INT(acc.max_ulp, 7);
    CHECK(acc.a_at == 1.5 && acc.b_at == -1.5);
    sim_ulp_merge(&acc, &same);
    CHECK_EQ_INT(acc.argmax, 3);
    SimUlpStats two = stats(4, 1, 100, 0, 2.5, 0.125);
    sim_ulp_merge(&acc, &two);
    CHECK_EQ_INT(acc.argmax, -1); // two parts differ: no single index
    CHECK_EQ_INT(acc.max_ulp, 100);
    CHECK(acc.a_at == 2.5);
    SimUlpStats tie = stats(4, 3, 100, 1, 9.0, 0.5);
    sim_ulp_merge(&acc, &tie);
    CHECK(acc.a_at == 2.5); // a tie keeps the earlier
    CHECK_EQ_INT(acc.n, 5 + 10 + 5 + 4 + 4);
    CHECK_EQ_INT(acc.ndiff, 2 + 1 + 3);
    CHECK_EQ_INT(acc.nan_mismatch, 2); // one and tie have ndiff > 1
    CHECK(acc.max_abs == 0.5 && acc.max_rel == 0.25);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_f32);
    RUN(test_f32_walk);
    RUN(test_f16);
    RUN(test_bf16);
    RUN(test_half_oracle);
    RUN(test_compare_f32);
    RUN(test_compare_edges);
    RUN(test_compare_half);
    RUN(test_compare_int);
    RUN(test_merge);
    return failures != 0;
}
