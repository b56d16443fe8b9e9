// tests/test_cpu_matrix.c: every collective x algorithm x in-place/out-of-place
// x count x dtype x reduction op on the CPU backend, checked element by
// element against expected values computed independently of the backend.
//
// Algorithms: every one the collective supports, and AUTO (the backend's
// default) at count 1000.
//
// Inputs are chosen as in nccl-tests' verifiable mode so that every result is
// exact in any order of reduction: small integers for sum/avg/max/min (sums
// of up to 16 ranks stay below 2^8, exact even in bf16), and +-1/+-2 with at
// most four 2s per element for prod. Expected reductions are computed in
// int64 from the input formula; avg divides the exact sum once, rounding as
// the element type does (integer division for ints).
//
// Usage: test_cpu_matrix [R ...]   (default: 1 2 3 4 5 8 16)
// One world per R runs the whole case list in one sim_world_run. Every case
// of the small counts runs; the large count ((1<<20)+3, or that divided by R
// for the collectives whose buffers hold R blocks) runs in fp32 for every op,
// with DDPLAB_TEST_QUICK=1 only for R <= 4, sum and out-of-place, and with
// DDPLAB_TEST_FULL=1 for every dtype x op.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "test_env.h"
#include "test_world.h"

#define BIG_COUNT (((size_t)1 << 20) + 3)

typedef struct {
    SimCollKind kind;
    SimAlgo algo;
    int inplace;
    size_t count;
    SimDtype dt;
    SimRedOp op;
    int root;
} Case;

typedef struct {
    int R;
    Case *cases;
    int ncases;
    size_t max_elems;      // elements in each per-rank buffer
    int64_t *expect[2];    // [max_elems] shared reduction results, by case parity
    long long *wrong;      // [R]
    long long *checked;    // [R]
    char (*detail)[1024];   // [R] first problem seen by the rank
} Plan;

// ----------------------------------------------------------------------------
// inputs and expected values

// Input element k of rank r for case c.
static int64_t gen(const Case *c, int r, size_t k) {
    uint32_t h = (uint32_t)r * 2654435761u + (uint32_t)k * 40503u + (uint32_t)c->count * 97u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    if (!sim_coll_is_reduction(c->kind))
        return (int64_t)(h % 201u) - 100;
    switch (c->op) {
    case SIM_MAX:
    case SIM_MIN: return (int64_t)(h % 17u) - 8;
    case SIM_PROD: return ((h & 1u) ? -1 : 1) * (((size_t)r + k) % 4 == 0 ? 2 : 1);
    default: return (int64_t)(h % 5u) - 2; // sum, avg
    }
}

static int64_t reduce_all(const Case *c, int R, size_t k) {
    int64_t acc = gen(c, 0, k);
    for (int r = 1; r < R; r++) {
        int64_t v = gen(c, r, k);
        switch (c->op) {
        case SIM_MAX: acc = v > acc ? v : acc; break;
        case SIM_MIN: acc = v < acc ? v : acc; break;
        case SIM_PROD: acc *= v; break;
        default: acc += v; break;
        }
    }
    return acc;
}

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

// The bit pattern the element type stores for the value v.
static uint64_t bits_of(SimDtype dt, float v) {
    switch (dt) {
    case SIM_FP32: return f32_bits(v);
    case SIM_FP16: return sim_f32_to_f16(v);
    case SIM_BF16: return sim_f32_to_bf16(v);
    default: return 0;
    }
}

// Bits of the small integers [-TABLE_MAX, TABLE_MAX] in each float type,
// filled once before any rank runs (every value the inputs and exact
// reductions produce lies in that range).
#define TABLE_MAX 1024
static uint64_t small_bits[SIM_DTYPE_COUNT][2 * TABLE_MAX + 1];

static void fill_small_bits(void) {
    for (int dt = 0; dt < SIM_DTYPE_COUNT; dt++)
        for (int v = -TABLE_MAX; v <= TABLE_MAX; v++)
            small_bits[dt][v + TABLE_MAX] = bits_of((SimDtype)dt, (float)v);
}

// What an element holding the integer s (divided by avg_ranks when > 0) must
// contain, as raw bits.
static uint64_t want_bits(SimDtype dt, int64_t s, int avg_ranks) {
    if (avg_ranks > 0 && (dt == SIM_INT32 || dt == SIM_INT64))
        s /= avg_ranks;
    else if (avg_ranks > 0)
        return bits_of(dt, (float)s / (float)avg_ranks);
    switch (dt) {
    case SIM_INT32: return (uint32_t)(int32_t)s;
    case SIM_INT64: return (uint64_t)s;
    default:
        if (s >= -TABLE_MAX && s <= TABLE_MAX)
            return small_bits[dt][s + TABLE_MAX];
        return bits_of(dt, (float)s);
    }
}

static uint64_t read_bits(const void *buf, SimDtype dt, size_t i) {
    switch (dt) {
    case SIM_FP32:
    case SIM_INT32: return ((const uint32_t *)buf)[i];
    case SIM_INT64: return ((const uint64_t *)buf)[i];
    default: return ((const uint16_t *)buf)[i];
    }
}

static void put(void *buf, SimDtype dt, size_t i, int64_t v) {
    uint64_t b = want_bits(dt, v, 0);
    switch (dt) {
    case SIM_FP32:
    case SIM_INT32: ((uint32_t *)buf)[i] = (uint32_t)b; break;
    case SIM_INT64: ((uint64_t *)buf)[i] = b; break;
    default: ((uint16_t *)buf)[i] = (uint16_t)b; break;
    }
}

// ----------------------------------------------------------------------------
// the case list

static int per_block(SimCollKind k) {
    return k == SIM_COLL_REDUCE_SCATTER || k == SIM_COLL_ALL_GATHER || k == SIM_COLL_GATHER ||
           k == SIM_COLL_SCATTER;
}

static int want_big(int R, SimDtype dt, SimRedOp op, int reduction, int inplace) {
    if (tenv_full())
        return 1;
    if (tenv_quick())
        return R <= 4 && dt == SIM_FP32 && (!reduction || op == SIM_SUM) && !inplace;
    return dt == SIM_FP32;
}

static void add_case(Plan *p, Case c) {
    size_t elems = per_block(c.kind) ? (size_t)p->R * c.count : c.count;
    if (elems > p->max_elems)
        p->max_elems = elems;
    p->cases[p->ncases++] = c;
}

static int build_cases(Plan *p) {
    int R = p->R;
    size_t counts[6] = {0, 1, 7, (size_t)(R - 1), 1000, BIG_COUNT};
    p->cases = malloc(20000 * sizeof *p->cases);
    if (p->cases == NULL)
        return -1;
    for (int k = 0; k < SIM_COLL_SEND; k++) {
        SimCollKind kind = (SimCollKind)k;
        int red = sim_coll_is_reduction(kind);
        for (int a = SIM_ALGO_AUTO; a < SIM_ALGO_COUNT; a++) {
            if (!sim_coll_supports(kind, (SimAlgo)a))
                continue;
            for (int ip = 0; ip < 2; ip++)
                for (int ci = 0; ci < 6; ci++)
                    for (int dt = 0; dt < SIM_DTYPE_COUNT; dt++)
                        for (int op = 0; op < (red ? SIM_REDOP_COUNT : 1); op++) {
                            size_t count = counts[ci];
                            if (a == SIM_ALGO_AUTO && ci != 4)
                                continue; // the default, once per dtype x op

                            if (ci == 5 && !want_big(R, (SimDtype)dt, (SimRedOp)op, red, ip))
                                continue;
                            if (ci == 5 && per_block(kind))
                                count = BIG_COUNT / (size_t)R; // keep buffers ~1M elements
                            Case c = {kind, (SimAlgo)a, ip, count, (SimDtype)dt,
                                      red ? (SimRedOp)op : SIM_SUM,
                                      (int)((count * 7 + (size_t)k) % (size_t)R)};
                            add_case(p, c);
                        }
        }
    }
    return 0;
}

static void describe(const Case *c, char *out, size_t n) {
    snprintf(out, n, "%s algo=%s %s count=%zu %s%s%s root=%d", sim_coll_name(c->kind),
             sim_algo_name(c->algo), c->inplace ? "in-place" : "out-of-place", c->count,
             sim_dtype_name(c->dt), sim_coll_is_reduction(c->kind) ? " op=" : "",
             sim_coll_is_reduction(c->kind) ? sim_redop_name(c->op) : "", c->root);
}

// ----------------------------------------------------------------------------
// one case on one rank

typedef struct {
    const void *send;
    void *recv;
    void *in;         // where this rank's input lives (send, or inside buf)
    size_t nin, nout; // input and output elements of this rank
} Bufs;

// Sets up send/recv for the case following NCCL's in-place conventions.
static Bufs layout(const Case *c, int R, int me, char *sbuf, char *rbuf) {
    size_t esz = sim_dtype_size(c->dt), n = c->count;
    Bufs b;
    b.nin = sim_coll_send_count(c->kind, n, R, me, c->root);
    b.nout = sim_coll_recv_count(c->kind, n, R, me, c->root);
    b.send = sbuf;
    b.recv = rbuf;
    if (c->inplace) {
        switch (c->kind) {
        case SIM_COLL_REDUCE_SCATTER: b.send = rbuf, b.recv = rbuf + (size_t)me * n * esz; break;
        case SIM_COLL_ALL_GATHER: b.send = rbuf + (size_t)me * n * esz; break;
        case SIM_COLL_GATHER:
            b.send = me == c->root ? rbuf + (size_t)me * n * esz : rbuf;
            break;
        case SIM_COLL_SCATTER:
            if (me == c->root)
                b.send = rbuf, b.recv = rbuf + (size_t)me * n * esz;
            break;
        default: b.send = rbuf; break;
        }
    }
    b.in = (void *)b.send;
    return b;
}

// Expected output element o of rank me (raw bits).
static uint64_t expected(const Plan *p, const Case *c, int me, size_t o, const int64_t *E) {
    int R = p->R;
    size_t n = c->count;
    int avg = c->op == SIM_AVG && sim_coll_is_reduction(c->kind) ? R : 0;
    switch (c->kind) {
    case SIM_COLL_ALL_REDUCE:
    case SIM_COLL_REDUCE: return want_bits(c->dt, E[o], avg);
    case SIM_COLL_REDUCE_SCATTER: return want_bits(c->dt, E[(size_t)me * n + o], avg);
    case SIM_COLL_ALL_GATHER:
    case SIM_COLL_GATHER: return want_bits(c->dt, gen(c, (int)(o / n), o % n), 0);
    case SIM_COLL_BROADCAST: return want_bits(c->dt, gen(c, c->root, o), 0);
    default: return want_bits(c->dt, gen(c, c->root, (size_t)me * n + o), 0); // scatter
    }
}

static void note(Plan *p, int me, const Case *c, const char *what, size_t i, uint64_t got,
                 uint64_t want) {
    if (p->detail[me][0])
        return;
    char d[200];
    describe(c, d, sizeof d);
    snprintf(p->detail[me], sizeof p->detail[me], "rank %d: %s: %s[%zu] = 0x%llx, want 0x%llx",
             me, d, what, i, (unsigned long long)got, (unsigned long long)want);
}

static SimStatus run_case(Plan *p, SimRank *r, int ci, char *sbuf, char *rbuf) {
    const Case *c = &p->cases[ci];
    int R = p->R, me = r->rank;
    int64_t *E = p->expect[ci & 1];
    Bufs b = layout(c, R, me, sbuf, rbuf);
    // Poison the output first (the previous case may have left the right
    // answer there), then write the input, which in place overlaps it.
    memset(b.recv, 0xff, b.nout * sim_dtype_size(c->dt));
    for (size_t k = 0; k < b.nin; k++)
        put(b.in, c->dt, k, gen(c, me, k));
    if (sim_coll_is_reduction(c->kind)) { // my share of the shared expected values
        size_t total = c->kind == SIM_COLL_REDUCE_SCATTER ? (size_t)R * c->count : c->count;
        size_t k0 = sim_part_begin(total, R, me), k1 = k0 + sim_part_size(total, R, me);
        for (size_t k = k0; k < k1; k++)
            E[k] = reduce_all(c, R, k);
    }
    SimCollArgs a = {c->kind, c->algo, c->dt, c->op, b.send, b.recv, c->count, c->root, -1};
    SimCollHandle h;
    SimStatus st = sim_coll_launch(r, &a, &h);
    if (st == SIM_OK)
        st = sim_coll_wait(r, &h);
    if (st != SIM_OK) {
        char d[200];
        describe(c, d, sizeof d);
        snprintf(p->detail[me], sizeof p->detail[me], "rank %d: %s: status %s (%.600s)", me, d,
                 sim_status_name(st), r->error);
        return st;
    }
    // Every rank wrote its share of E before arriving at this collective, so
    // E is complete now. The next case fills the other E; the case after it
    // refills this one only after the next collective's rendezvous, which no
    // rank reaches before it has finished checking this case.
    for (size_t o = 0; o < b.nout; o++) {
        uint64_t want = expected(p, c, me, o, E), got = read_bits(b.recv, c->dt, o);
        if (got != want) {
            p->wrong[me]++;
            note(p, me, c, "recv", o, got, want);
        }
    }
    p->checked[me] += (long long)b.nout;
    if (!c->inplace) { // the send buffer is read-only
        for (size_t k = 0; k < b.nin; k++) {
            uint64_t want = want_bits(c->dt, gen(c, me, k), 0), got = read_bits(b.in, c->dt, k);
            if (got != want) {
                p->wrong[me]++;
                note(p, me, c, "send (modified)", k, got, want);
            }
        }
    }
    return SIM_OK;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    Plan *p = arg;
    size_t bytes = (p->max_elems + 1) * sizeof(int64_t);
    char *sbuf = malloc(bytes), *rbuf = malloc(bytes);
    SimStatus st = sbuf && rbuf ? SIM_OK : SIM_ENOMEM;
    for (int ci = 0; st == SIM_OK && ci < p->ncases; ci++)
        st = run_case(p, r, ci, sbuf, rbuf);
    free(sbuf);
    free(rbuf);
    return st;
}

// ----------------------------------------------------------------------------

static int run_world_size(int R) {
    Plan p = {0};
    p.R = R;
    CHECK(build_cases(&p) == 0);
    p.expect[0] = malloc((p.max_elems + 1) * sizeof(int64_t));
    p.expect[1] = malloc((p.max_elems + 1) * sizeof(int64_t));
    p.wrong = calloc((size_t)R, sizeof *p.wrong);
    p.checked = calloc((size_t)R, sizeof *p.checked);
    p.detail = calloc((size_t)R, sizeof *p.detail);
    CHECK(p.expect[0] && p.expect[1] && p.wrong && p.checked && p.detail);

    SimWorld w; // a long watchdog: sanitizers and 16 ranks on 2 cores are slow
    SimStatus st = tworld_init_cpu(&w, R, 0, 60);
    double t0 = sim_wall_now();
    if (st == SIM_OK)
        st = sim_world_run(&w, rank_main, &p);
    double dt = sim_wall_now() - t0;
    long long wrong = 0, checked = 0;
    for (int r = 0; r < R; r++) {
        wrong += p.wrong[r];
        checked += p.checked[r];
        if (p.detail[r][0])
            fprintf(stderr, "%s\n", p.detail[r]);
    }
    printf("R=%-2d %5d cases, %lld elements checked, %lld wrong, %.2f s\n", R, p.ncases,
           checked, wrong, dt);
    if (st != SIM_OK)
        fprintf(stderr, "R=%d: run failed: %s: %s\n", R, sim_status_name(st), sim_world_error(&w));
    sim_world_free(&w);
    free(p.cases);
    free(p.expect[0]);
    free(p.expect[1]);
    free(p.wrong);
    free(p.checked);
    free(p.detail);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(wrong, 0);
    return 0;
}

int main(int argc, char **argv) {
    int sizes[] = {1, 2, 3, 4, 5, 8, 16};
    int failures = 0;
    fill_small_bits();
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            failures += run_world_size(atoi(argv[i])) != 0;
    } else {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            failures += run_world_size(sizes[i]) != 0;
    }
    return failures != 0;
}
