// tests/test_cpu_rounding.c: fp16 and bf16 reductions of random values,
// where rounding depends on the order of additions.
//
// Each algorithm reduces in its own order and rounds partial sums to the
// storage type after every addition, so results are checked against an fp64
// reference within the bound of recursive summation: |got - ref| <= R * u *
// sum_r |x_r| (+ u * |ref| for the avg division), with u the unit roundoff
// (2^-11 fp16, 2^-8 bf16). Stronger checks hold exactly:
//   - every rank ends with bitwise the same all_reduce result;
//   - the ring adds chunk c along the ring, from rank c+1 round to rank c,
//     rounding at every hop (schedule.h), in place and out of place alike
//     (out of place the CPU backend folds the initial copy into the first
//     addition of each chunk: backend_cpu/cpu_ring.c), so its result equals
//     that chain computed here;
//   - the direct pass adds in the order of gloo's ring and rounds at every
//     hop, so its result equals that computed here from gloo's rules
//     (gloo/allreduce.cc: ceil-sized segments, chunk c summed from rank c-1
//     down to rank c);
//   - hand-worked cases: [1, 2^-11, 2^-11] placed on 3, 4 and 5 ranks every
//     way give what gloo gives (measured with torch 1.13: on 3 ranks
//     1.000977, 1.0, 1.0), and the same in bf16 with 2^-8.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll/coll.h"
#include "engine/comm.h"
#include "test_world.h"

#define COUNT 4099 // not a multiple of any R below

typedef struct {
    SimDtype dt;
    SimAlgo algo;
    SimRedOp op;
    int inplace;
} Case;

typedef struct {
    int R;
    Case cases[32];
    int ncases;
    uint16_t *in;   // [ncases][R][COUNT] inputs, by rank
    uint16_t *out;  // [ncases][R][COUNT] all_reduce results, by rank
    SimStatus st[16];
} Plan;

static double widen(SimDtype dt, uint16_t v) {
    return dt == SIM_FP16 ? sim_f16_to_f32(v) : sim_bf16_to_f32(v);
}

static uint16_t narrow(SimDtype dt, float f) {
    return dt == SIM_FP16 ? sim_f32_to_f16(f) : sim_f32_to_bf16(f);
}

static SimStatus rank_main(SimRank *r, void *arg) {
    Plan *p = arg;
    int me = r->rank;
    uint16_t send[COUNT], recv[COUNT];
    SimStatus st = SIM_OK;
    for (int c = 0; st == SIM_OK && c < p->ncases; c++) {
        const Case *k = &p->cases[c];
        size_t at = ((size_t)c * (size_t)p->R + (size_t)me) * COUNT;
        memcpy(send, p->in + at, sizeof send);
        uint16_t *out = k->inplace ? send : recv;
        st = sim_all_reduce(r, send, out, COUNT, k->dt, k->op, k->algo);
        memcpy(p->out + at, out, sizeof recv);
    }
    p->st[me] = st;
    return st;
}

// Inputs uniform in [-1, 1], stored in the element type.
static void make_inputs(Plan *p) {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int c = 0; c < p->ncases; c++)
        for (size_t i = 0; i < (size_t)p->R * COUNT; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            float u = (float)((s >> 40) & 0xffffff) / (float)0xffffff * 2.0f - 1.0f;
            p->in[(size_t)c * (size_t)p->R * COUNT + i] = narrow(p->cases[c].dt, u);
        }
}

// gloo's chunk of element i (its own arithmetic, gloo/allreduce.cc): 2-byte
// elements, 1 MiB segments at most, at least 2R segments, a multiple of R.
static int gloo_chunk(size_t count, int R, size_t i) {
    size_t bytes = count * 2, by_size = (bytes + (1u << 20) - 1) >> 20;
    size_t nseg = by_size > (size_t)(2 * R) ? by_size : (size_t)(2 * R);
    nseg = (nseg + (size_t)R - 1) / (size_t)R * (size_t)R;
    size_t seg = (count + nseg - 1) / nseg; // elements per segment
    return (int)(i / (seg * (nseg / (size_t)R)));
}

// Element i summed as gloo's ring sums it, rounded at every hop.
static uint16_t gloo_sum(SimDtype dt, const uint16_t *in, int R, size_t i) {
    int c = gloo_chunk(COUNT, R, i);
    int q = ((c - 1) % R + R) % R;
    float acc = (float)widen(dt, in[(size_t)q * COUNT + i]);
    for (int k = 1; k < R; k++) {
        q = ((c - 1 - k) % R + R) % R;
        acc = (float)widen(dt, narrow(dt, acc + (float)widen(dt, in[(size_t)q * COUNT + i])));
    }
    return narrow(dt, acc);
}

// Element i summed as our ring sums it: its chunk c (a balanced part of R)
// starts on rank c+1, and each rank after it adds its own value to what it
// received, rounding, until rank c.
static uint16_t ring_sum(SimDtype dt, const uint16_t *in, int R, size_t i) {
    int c = 0;
    while (c + 1 < R && i >= sim_part_begin(COUNT, R, c + 1))
        c++;
    float acc = (float)widen(dt, in[(size_t)((c + 1) % R) * COUNT + i]);
    for (int k = 2; k <= R; k++) {
        int q = (c + k) % R;
        acc = (float)widen(dt, narrow(dt, (float)widen(dt, in[(size_t)q * COUNT + i]) + acc));
    }
    return narrow(dt, acc);
}

static int check_case(const Plan *p, int c, double *worst) {
    const Case *k = &p->cases[c];
    int R = p->R;
    double u = k->dt == SIM_FP16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    const uint16_t *in = p->in + (size_t)c * (size_t)R * COUNT;
    const uint16_t *out = p->out + (size_t)c * (size_t)R * COUNT;
    for (size_t i = 0; i < COUNT; i++) {
        double ref = 0, mag = 0;
        for (int q = 0; q < R; q++) {
            double x = widen(k->dt, in[(size_t)q * COUNT + i]);
            ref += x;
            mag += fabs(x);
        }
        if (k->op == SIM_AVG) {
            ref /= R;
            mag /= R;
        }
        double got = widen(k->dt, out[i]);
        double tol = R * u * mag + u * fabs(ref) + 1e-12;
        double err = fabs(got - ref);
        if (err / tol > *worst)
            *worst = err / tol;
        if (!(err <= tol)) {
            fprintf(stderr, "  R=%d %s %s %s [%zu]: got %.8g, fp64 %.8g, tol %.3g\n", R,
                    sim_dtype_name(k->dt), sim_algo_name(k->algo), sim_redop_name(k->op), i,
                    got, ref, tol);
            return 1;
        }
        uint16_t want = gloo_sum(k->dt, in, R, i); // gloo's ring, hop by hop
        if (k->algo == SIM_ALGO_DIRECT && k->op == SIM_SUM && out[i] != want) {
            fprintf(stderr, "  R=%d %s direct [%zu]: 0x%04x, want 0x%04x\n", R,
                    sim_dtype_name(k->dt), i, out[i], want);
            return 1;
        }
        uint16_t chain = ring_sum(k->dt, in, R, i);
        if (k->algo == SIM_ALGO_RING && k->op == SIM_SUM && out[i] != chain) {
            fprintf(stderr, "  R=%d %s ring %s [%zu]: 0x%04x, want 0x%04x\n", R,
                    sim_dtype_name(k->dt), k->inplace ? "in place" : "out of place", i, out[i],
                    chain);
            return 1;
        }
        for (int q = 1; q < R; q++)
            if (out[(size_t)q * COUNT + i] != out[i]) {
                fprintf(stderr, "  R=%d %s %s: rank %d differs from rank 0 at [%zu]\n", R,
                        sim_dtype_name(k->dt), sim_algo_name(k->algo), q, i);
                return 1;
            }
    }
    return 0;
}

static int run_size(int R) {
    static Plan p;
    memset(&p, 0, sizeof p);
    p.R = R;
    SimAlgo algos[] = {SIM_ALGO_RING, SIM_ALGO_TREE, SIM_ALGO_NAIVE, SIM_ALGO_DIRECT,
                       SIM_ALGO_DBTREE};
    for (int d = 0; d < 2; d++)
        for (int a = 0; a < 5; a++)
            for (int o = 0; o < 2; o++)
                p.cases[p.ncases++] = (Case){d ? SIM_BF16 : SIM_FP16, algos[a],
                                             o ? SIM_AVG : SIM_SUM, 0};
    for (int d = 0; d < 2; d++) // the ring in place too: no initial copy to fold
        for (int o = 0; o < 2; o++)
            p.cases[p.ncases++] = (Case){d ? SIM_BF16 : SIM_FP16, SIM_ALGO_RING,
                                         o ? SIM_AVG : SIM_SUM, 1};
    size_t n = (size_t)p.ncases * (size_t)R * COUNT;
    p.in = malloc(n * sizeof *p.in);
    p.out = malloc(n * sizeof *p.out);
    CHECK(p.in && p.out);
    make_inputs(&p);
    SimStatus st = tworld_run_cpu(R, 0, rank_main, &p);
    CHECK_EQ_INT(st, SIM_OK);
    double worst = 0;
    int bad = 0;
    for (int c = 0; c < p.ncases; c++)
        bad += check_case(&p, c, &worst);
    printf("  R=%d: %d cases, largest error %.2f of the bound\n", R, p.ncases, worst);
    free(p.in);
    free(p.out);
    CHECK_EQ_INT(bad, 0);
    return 0;
}

static int test_rounding(void) {
    int sizes[] = {2, 3, 4, 5, 8};
    int bad = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        bad += run_size(sizes[i]);
    return bad;
}

// ----------------------------------------------------------------------------
// hand-worked: one large value and R-1 half-ulps of it. At 1.0 an fp16 ulp is
// 2^-10, so 1 + 2^-11 is a tie and rounds (to even) back to 1; the half-ulps
// survive only where gloo adds them together before the 1. On one element
// (chunk 0: ranks, ..., 0) the 1 on rank 0 comes last:
//   R=3  1 on rank 0: (e + e) + 1 = 1 + 2^-10               0x3c01
//        1 on rank 1: (e + 1) + e = 1, then 1               0x3c00
//        1 on rank 2: (1 + e) + e                           0x3c00
//   R=4  1 on rank 0: ((e + e) + e) + 1 = 1 + 1.5 * 2^-10, a tie: 1 + 2^-9
//                                                           0x3c02
//        1 on rank 1: 2e + 1 = 1 + 2^-10, + e: a tie: 1 + 2^-9 0x3c02
//        1 on rank 2, 3:                                    0x3c00
//   R=5  1 on rank 0: 4e + 1 = 1 + 2^-9                     0x3c02
//        1 on rank 1: 3e + 1 -> 1 + 2^-9, + e: a tie, stays 0x3c02
//        1 on rank 2: 2e + 1 = 1 + 2^-10, + e -> 1 + 2^-9, + e stays 0x3c02
//        1 on rank 3, 4:                                    0x3c00
// A rank-order fp32 sum rounded once gives 1 + 2^-10 (R=3) for every
// placement. In bf16 (ulp 2^-7 at 1.0, e = 2^-8) the same pattern: 0x3f81 /
// 0x3f80 on 3 ranks. On 9 elements with the 1 of element i on rank i % 3,
// gloo's chunks are elements 0-3, 4-7 and 8 (6 segments of 2), summed from
// ranks 2, 0 and 1 down, so the 1 comes last for elements 0, 3 (rank 0),
// 4, 7 (rank 1) and 8 (rank 2).

enum { HAND_N = 9 };

typedef struct {
    SimDtype dt;
    uint16_t one, half_ulp;
    int placements;            // R single-element cases, then the 9-element one
    uint16_t out[6][HAND_N];   // rank 0's results
    SimStatus st[5];
} Hand;

static SimStatus hand_rank(SimRank *r, void *arg) {
    Hand *h = arg;
    int R = r->world->cfg.nranks, me = r->rank;
    uint16_t buf[HAND_N];
    SimStatus st = SIM_OK;
    for (int p = 0; st == SIM_OK && p < R; p++) {
        buf[0] = me == p ? h->one : h->half_ulp;
        st = sim_all_reduce(r, buf, buf, 1, h->dt, SIM_SUM, SIM_ALGO_AUTO);
        if (me == 0)
            h->out[p][0] = buf[0];
    }
    for (int i = 0; i < HAND_N; i++)
        buf[i] = i % R == me ? h->one : h->half_ulp;
    if (st == SIM_OK)
        st = sim_all_reduce(r, buf, buf, HAND_N, h->dt, SIM_SUM, SIM_ALGO_AUTO);
    if (me == 0)
        memcpy(h->out[R], buf, sizeof buf);
    h->st[me] = st;
    return st;
}

static int hand_case(SimDtype dt, int R, const uint16_t *want_one, const uint16_t *want_vec) {
    Hand h;
    memset(&h, 0, sizeof h);
    h.dt = dt;
    h.one = dt == SIM_FP16 ? 0x3c00 : 0x3f80;           // 1.0
    h.half_ulp = dt == SIM_FP16 ? 0x1000 : 0x3b80;      // 2^-11, 2^-8
    CHECK(widen(dt, h.half_ulp) == ldexp(1.0, dt == SIM_FP16 ? -11 : -8));
    CHECK_EQ_INT(tworld_run_cpu(R, 0, hand_rank, &h), SIM_OK);
    for (int p = 0; p < R; p++)
        if (h.out[p][0] != want_one[p]) {
            fprintf(stderr, "  %s R=%d, 1 on rank %d: 0x%04x, want 0x%04x\n",
                    sim_dtype_name(dt), R, p, h.out[p][0], want_one[p]);
            return 1;
        }
    for (int i = 0; want_vec && i < HAND_N; i++)
        if (h.out[R][i] != want_vec[i]) {
            fprintf(stderr, "  %s R=%d, 9 elements [%d]: 0x%04x, want 0x%04x\n",
                    sim_dtype_name(dt), R, i, h.out[R][i], want_vec[i]);
            return 1;
        }
    return 0;
}

static int test_hand_values(void) {
    static const uint16_t r3[3] = {0x3c01, 0x3c00, 0x3c00};
    static const uint16_t r4[4] = {0x3c02, 0x3c02, 0x3c00, 0x3c00};
    static const uint16_t r5[5] = {0x3c02, 0x3c02, 0x3c02, 0x3c00, 0x3c00};
    static const uint16_t v3[HAND_N] = {0x3c01, 0x3c00, 0x3c00, 0x3c01, 0x3c01,
                                        0x3c00, 0x3c00, 0x3c01, 0x3c01};
    static const uint16_t b3[3] = {0x3f81, 0x3f80, 0x3f80};
    // 2 ranks: 1 + e is a tie either way round, as before
    static const uint16_t r2[2] = {0x3c00, 0x3c00};
    CHECK(hand_case(SIM_FP16, 3, r3, v3) == 0);
    CHECK(hand_case(SIM_FP16, 4, r4, NULL) == 0);
    CHECK(hand_case(SIM_FP16, 5, r5, NULL) == 0);
    CHECK(hand_case(SIM_BF16, 3, b3, NULL) == 0);
    CHECK(hand_case(SIM_FP16, 2, r2, NULL) == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// the ring on buffers large enough that the CPU backend writes its steps
// with non-temporal stores (every rank's send and recv buffers together one
// and a half last-level caches or more: backend_cpu/cpu_ring.c; the test
// sets the cache's size to 1 MiB through DDPLAB_CPU_LLC_BYTES, so the case
// does not depend on this machine's cache): the same chain, bit for bit, on
// every rank, in fp32 (whose sums are stored to memory as they are made, from
// any alignment) and in bf16 (whose sums are rounded through an L1-sized
// block before they are streamed out).

#define BIG_LLC_BYTES (1.0 * 1024 * 1024)

typedef struct {
    SimDtype dt;
    size_t count;
    unsigned char *in;  // [R][count] elements, by rank
    unsigned char *out; // [R][count]
} Big;

static SimStatus big_rank(SimRank *r, void *arg) {
    const Big *b = arg;
    size_t at = (size_t)r->rank * b->count * sim_dtype_size(b->dt);
    return sim_all_reduce(r, b->in + at, b->out + at, b->count, b->dt, SIM_SUM, SIM_ALGO_RING);
}

static float big_in(const Big *b, int q, size_t i) {
    return (float)sim_elem_get(b->in, b->dt, (size_t)q * b->count + i);
}

// Element i as the ring sums it (as ring_sum above), as the type's bytes.
static void big_want(const Big *b, int R, int c, size_t i, unsigned char *bytes) {
    float acc = big_in(b, (c + 1) % R, i);
    for (int k = 2; k <= R; k++) {
        acc = big_in(b, (c + k) % R, i) + acc;
        if (b->dt != SIM_FP32)
            acc = (float)widen(b->dt, narrow(b->dt, acc));
    }
    if (b->dt == SIM_FP32) {
        memcpy(bytes, &acc, sizeof acc);
    } else {
        uint16_t h = narrow(b->dt, acc);
        memcpy(bytes, &h, sizeof h);
    }
}

static int big_case(SimDtype dt, int R, size_t count) {
    size_t esz = sim_dtype_size(dt), n = (size_t)R * count;
    Big b = {dt, count, malloc(n * esz), malloc(n * esz)};
    CHECK(b.in && b.out);
    CHECK(2.0 * R * (double)count * (double)esz >= 1.5 * BIG_LLC_BYTES);
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        sim_elem_set(b.in, dt, i, (double)((s >> 40) & 0xffffff) / (double)0xffffff * 2.0 - 1.0);
    }
    CHECK_EQ_INT(tworld_run_cpu(R, 0, big_rank, &b), SIM_OK);
    int bad = 0, c = 0;
    for (size_t i = 0; i < count && !bad; i++) {
        while (c + 1 < R && i >= sim_part_begin(count, R, c + 1))
            c++;
        unsigned char want[4];
        big_want(&b, R, c, i, want);
        for (int q = 0; q < R && !bad; q++)
            if (memcmp(b.out + ((size_t)q * count + i) * esz, want, esz) != 0) {
                fprintf(stderr, "  R=%d %s ring, %zu elements: rank %d differs at [%zu]\n", R,
                        sim_dtype_name(dt), count, q, i);
                bad = 1;
            }
    }
    free(b.in);
    free(b.out);
    return bad;
}

static int test_streamed_ring(void) {
    CHECK(setenv("DDPLAB_CPU_LLC_BYTES", "1M", 1) == 0);
    CHECK(big_case(SIM_FP32, 2, ((size_t)1 << 20) + 5) == 0);
    CHECK(big_case(SIM_FP32, 3, ((size_t)1 << 19) + 7) == 0);
    CHECK(big_case(SIM_FP32, 4, ((size_t)1 << 18) + 1) == 0);
    CHECK(big_case(SIM_BF16, 2, ((size_t)1 << 20) + 3) == 0);
    CHECK(unsetenv("DDPLAB_CPU_LLC_BYTES") == 0);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_hand_values);
    RUN(test_rounding);
    RUN(test_streamed_ring);
    return failures != 0;
}
