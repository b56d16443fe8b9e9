// tests/test_cli_verify.c: the verifiable data of `ddplab bench`
// (cli/bench/bench_verify.c), checked in both directions:
//   - exact: reductions of the pattern computed with sim/'s kernels, one
//     rank at a time (rounding to the element type after every step) in
//     forward and in backward rank order, pass the check with #wrong == 0, for
//     every element type and reduction, up to 4096 ranks;
//   - sensitive: one changed element, a missing rank's contribution, or
//     blocks delivered to the wrong place are counted as wrong.
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "check.h"

static BenchOptions options(SimCollKind kind, SimDtype dt, SimRedOp op, int R, int root) {
    BenchOptions o;
    memset(&o, 0, sizeof o);
    o.coll = kind;
    o.dtype = dt;
    o.op = op;
    o.nranks = R;
    o.root = root;
    return o;
}

// Reduces the send data of ranks [first..last] (in that order, either way)
// into out, n elements; skip (or -1) leaves one rank out.
static void reduce_ranks(const BenchPattern *p, int first, int last, int skip, void *out,
                         void *tmp, size_t n) {
    int step = first <= last ? 1 : -1, started = 0;
    for (int r = first;; r += step) {
        if (r != skip) {
            bench_fill_send(p, r, started ? tmp : out, n);
            if (started)
                sim_reduce_inplace(out, tmp, n, p->dtype, p->op);
            started = 1;
        }
        if (r == last)
            break;
    }
    if (p->op == SIM_AVG)
        sim_scale_avg(out, n, p->dtype, p->nranks);
}

// Wrong elements of the result `res` (the whole reduced array) as the ranks
// that receive it see it.
static uint64_t wrong_in(const BenchPattern *p, const void *res, size_t count) {
    size_t esize = sim_dtype_size(p->dtype);
    if (p->kind == SIM_COLL_REDUCE_SCATTER) {
        uint64_t w = 0;
        for (int q = 0; q < p->nranks; q++)
            w += bench_count_wrong(p, q, count, (const char *)res + (size_t)q * count * esize,
                                   count);
        return w;
    }
    return bench_count_wrong(p, p->root, count, res, count);
}

static int check_reduction(SimCollKind kind, SimDtype dt, SimRedOp op, int R, size_t count) {
    BenchOptions o = options(kind, dt, op, R, R - 1);
    BenchPattern p;
    bench_pattern_init(&p, &o);
    size_t n = kind == SIM_COLL_REDUCE_SCATTER ? (size_t)R * count : count;
    size_t esize = sim_dtype_size(dt);
    char *fwd = malloc(n * esize), *bwd = malloc(n * esize), *tmp = malloc(n * esize);
    CHECK(fwd && bwd && tmp);

    reduce_ranks(&p, 0, R - 1, -1, fwd, tmp, n);
    reduce_ranks(&p, R - 1, 0, -1, bwd, tmp, n);
    uint64_t wf = wrong_in(&p, fwd, count), wb = wrong_in(&p, bwd, count);
    if (wf || wb)
        fprintf(stderr, "%s %s %s R=%d: %llu / %llu wrong\n", sim_coll_name(kind),
                sim_dtype_name(dt), sim_redop_name(op), R, (unsigned long long)wf,
                (unsigned long long)wb);
    CHECK_EQ_INT(wf, 0);
    CHECK_EQ_INT(wb, 0);

    // One changed element is one wrong element (negated: representable in
    // every type, unlike v + 1 for large bf16 values).
    double v = sim_elem_get(fwd, dt, 3);
    sim_elem_set(fwd, dt, 3, v != 0 ? -v : 1);
    CHECK_EQ_INT(wrong_in(&p, fwd, count), 1);
    // Rank 0's contribution missing: its value is never neutral for sums and
    // sometimes -1 for products, so some elements must be wrong. (An average
    // over many ranks cannot resolve one small contribution: skipped there.)
    if (R > 1 && op != SIM_MAX && op != SIM_MIN && (op != SIM_AVG || R <= 16)) {
        reduce_ranks(&p, 1, R - 1, -1, fwd, tmp, n);
        CHECK(wrong_in(&p, fwd, count) > 0);
    }
    free(fwd);
    free(bwd);
    free(tmp);
    return 0;
}

static int test_reductions_exact(void) {
    static const SimDtype dts[] = {SIM_FP32, SIM_FP16, SIM_BF16, SIM_INT32, SIM_INT64};
    static const SimCollKind kinds[] = {SIM_COLL_ALL_REDUCE, SIM_COLL_REDUCE,
                                        SIM_COLL_REDUCE_SCATTER};
    static const int ranks[] = {1, 2, 3, 5, 8, 16};
    for (size_t k = 0; k < 3; k++)
        for (size_t d = 0; d < 5; d++)
            for (int op = 0; op < SIM_REDOP_COUNT; op++)
                for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++)
                    if (check_reduction(kinds[k], dts[d], (SimRedOp)op, ranks[r], 200) != 0)
                        return 1;
    return 0;
}

// Many ranks: sums must stay exact in bf16 and fp16 (few contributors per
// element) and products within the exponent range.
static int test_many_ranks(void) {
    static const SimDtype dts[] = {SIM_FP32, SIM_FP16, SIM_BF16, SIM_INT32, SIM_INT64};
    static const int ranks[] = {64, 257, 1000, 4096};
    for (size_t d = 0; d < 5; d++)
        for (int op = 0; op < SIM_REDOP_COUNT; op++)
            for (size_t r = 0; r < 4; r++)
                if (check_reduction(SIM_COLL_ALL_REDUCE, dts[d], (SimRedOp)op, ranks[r], 64) != 0)
                    return 1;
    return 0;
}

// all_gather: rank j's data lands in block j; swapping two blocks is caught.
static int test_copies(void) {
    static const SimDtype dts[] = {SIM_FP32, SIM_FP16, SIM_BF16, SIM_INT32, SIM_INT64};
    const int R = 5;
    const size_t count = 50;
    for (size_t d = 0; d < 5; d++) {
        SimDtype dt = dts[d];
        size_t esize = sim_dtype_size(dt);
        BenchOptions o = options(SIM_COLL_ALL_GATHER, dt, SIM_SUM, R, 0);
        BenchPattern p;
        bench_pattern_init(&p, &o);
        char *recv = malloc((size_t)R * count * esize), *tmp = malloc(count * esize);
        CHECK(recv && tmp);
        for (int j = 0; j < R; j++)
            bench_fill_send(&p, j, recv + (size_t)j * count * esize, count);
        for (int q = 0; q < R; q++)
            CHECK_EQ_INT(bench_count_wrong(&p, q, count, recv, (size_t)R * count), 0);
        memcpy(tmp, recv, count * esize); // blocks 0 and 1 swapped
        memcpy(recv, recv + count * esize, count * esize);
        memcpy(recv + count * esize, tmp, count * esize);
        CHECK(bench_count_wrong(&p, 0, count, recv, (size_t)R * count) >= count);

        // broadcast from root 2 and the sendrecv ring (data from rank q-1).
        BenchOptions ob = options(SIM_COLL_BROADCAST, dt, SIM_SUM, R, 2);
        BenchOptions os = options(BENCH_SENDRECV, dt, SIM_SUM, R, 0);
        BenchPattern pb, ps;
        bench_pattern_init(&pb, &ob);
        bench_pattern_init(&ps, &os);
        bench_fill_send(&pb, 2, tmp, count);
        CHECK_EQ_INT(bench_count_wrong(&pb, 4, count, tmp, count), 0);
        bench_fill_send(&ps, 2, tmp, count);
        CHECK_EQ_INT(bench_count_wrong(&ps, 3, count, tmp, count), 0);
        CHECK(bench_count_wrong(&ps, 2, count, tmp, count) >= count / 2); // from itself: wrong
        // A recv buffer left at the sentinel is all wrong.
        bench_fill_value(tmp, dt, count, BENCH_SENTINEL);
        CHECK_EQ_INT(bench_count_wrong(&pb, 0, count, tmp, count), count);
        free(recv);
        free(tmp);
    }
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_reductions_exact);
    RUN(test_many_ranks);
    RUN(test_copies);
    return failures ? 1 : 0;
}
