// tests/test_cpu_scale.c: many more ranks than cores.
//   - 64 ranks, a 1 MiB fp32 ring all_reduce: correct, and done in well under
//     a second on two cores (waiters sleep instead of spinning); the time is
//     printed. Sanitized builds (DDPLAB_SANITIZED=1) get a looser bound.
//   - 256 ranks: a few collectives of each family, checked;
//   - a 16 MiB direct all_reduce on 4 ranks, large enough for the pass to
//     stream its results past the caches, in and out of place.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "test_env.h"
#include "test_world.h"

typedef struct {
    SimAlgo algo;
    size_t count;
    double seconds;       // rank 0: wall time of the timed all_reduce
    long long wrong[256]; // per rank
    SimStatus st[256];
} Timed;

// Every rank contributes r+1 (plus a per-element offset, so chunks cannot be
// mixed up unnoticed); the sum is exact in fp32.
static SimStatus timed_rank(SimRank *r, void *arg) {
    Timed *t = arg;
    int R = r->world->cfg.nranks, me = r->rank;
    float *buf = malloc(t->count * sizeof *buf);
    if (buf == NULL)
        return SIM_ENOMEM;
    for (size_t i = 0; i < t->count; i++)
        buf[i] = (float)(me + 1) + (float)(i % 64);
    SimStatus st = sim_barrier(r);
    double t0 = sim_wall_now();
    if (st == SIM_OK)
        st = sim_all_reduce(r, buf, buf, t->count, SIM_FP32, SIM_SUM, t->algo);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (me == 0)
        t->seconds = sim_wall_now() - t0;
    for (size_t i = 0; st == SIM_OK && i < t->count; i++) {
        float want = (float)R * (float)(R + 1) / 2 + (float)R * (float)(i % 64);
        t->wrong[me] += buf[i] != want;
    }
    t->st[me] = st;
    free(buf);
    return st;
}

static int timed(SimAlgo algo, double limit) {
    static Timed t;
    memset(&t, 0, sizeof t);
    t.algo = algo;
    t.count = (1u << 20) / sizeof(float);
    SimStatus st = tworld_run_cpu(64, 0, timed_rank, &t);
    CHECK_EQ_INT(st, SIM_OK);
    for (int r = 0; r < 64; r++)
        CHECK_EQ_INT(t.wrong[r], 0);
    // how long it took is printed, never asserted: speed is bench/'s
    printf("  64 ranks, 1 MiB fp32 all_reduce (%s): %.1f ms (%.0f ms on a quiet machine)\n",
           sim_algo_name(algo), t.seconds * 1e3, limit * 1e3);
    return 0;
}

static int test_64_ranks_ring(void) {
    return timed(SIM_ALGO_RING, tenv_sanitized() ? 20.0 : 1.0);
}

static int test_64_ranks_direct(void) {
    return timed(SIM_ALGO_DIRECT, tenv_sanitized() ? 20.0 : 1.0);
}

// ----------------------------------------------------------------------------
// 256 ranks

typedef struct {
    long long wrong[256];
} Many;

static long long count_wrong_i32(const int32_t *v, size_t n, int32_t (*want)(size_t, int),
                                 int R) {
    long long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += v[i] != want(i, R);
    return bad;
}

static int32_t want_sum(size_t i, int R) {
    return (int32_t)(R * (R - 1) / 2 + R * (int)i);
}

static int32_t want_gather(size_t i, int R) {
    (void)R;
    return (int32_t)(i / 4) * 10 + (int32_t)(i % 4);
}

static SimStatus many_rank(SimRank *r, void *arg) {
    Many *m = arg;
    int R = r->world->cfg.nranks, me = r->rank;
    enum { N = 300 };
    int32_t in[N], out[N], *big = malloc((size_t)R * 4 * sizeof *big);
    if (big == NULL)
        return SIM_ENOMEM;
    SimAlgo algos[] = {SIM_ALGO_RING, SIM_ALGO_TREE, SIM_ALGO_DIRECT, SIM_ALGO_NAIVE};
    SimStatus st = SIM_OK;
    for (size_t a = 0; st == SIM_OK && a < sizeof algos / sizeof algos[0]; a++) {
        for (int i = 0; i < N; i++)
            in[i] = me + i;
        st = sim_all_reduce(r, in, out, N, SIM_INT32, SIM_SUM, algos[a]);
        if (st == SIM_OK)
            m->wrong[me] += count_wrong_i32(out, N, want_sum, R);
    }
    // broadcast from the last rank
    for (int i = 0; i < N; i++)
        out[i] = me == R - 1 ? 7 * i : -1;
    if (st == SIM_OK)
        st = sim_broadcast(r, out, out, N, SIM_INT32, R - 1, SIM_ALGO_TREE);
    for (int i = 0; st == SIM_OK && i < N; i++)
        m->wrong[me] += out[i] != 7 * i;
    // all_gather of 4 elements per rank: block j holds 10j, 10j+1, ...
    for (int i = 0; i < 4; i++)
        in[i] = me * 10 + i;
    if (st == SIM_OK)
        st = sim_all_gather(r, in, big, 4, SIM_INT32, SIM_ALGO_RING);
    if (st == SIM_OK)
        m->wrong[me] += count_wrong_i32(big, (size_t)R * 4, want_gather, R);
    // reduce_scatter of 4 elements per rank: everyone sends k at index k
    for (int i = 0; i < R * 4; i++)
        big[i] = i;
    if (st == SIM_OK)
        st = sim_reduce_scatter(r, big, out, 4, SIM_INT32, SIM_SUM, SIM_ALGO_DIRECT);
    for (int i = 0; st == SIM_OK && i < 4; i++)
        m->wrong[me] += out[i] != R * (me * 4 + i);
    if (st == SIM_OK)
        st = sim_barrier(r);
    free(big);
    return st;
}

static int test_256_ranks(void) {
    static Many m;
    memset(&m, 0, sizeof m);
    double t0 = sim_wall_now();
    SimStatus st = tworld_run_cpu(256, 0, many_rank, &m);
    CHECK_EQ_INT(st, SIM_OK);
    for (int r = 0; r < 256; r++)
        CHECK_EQ_INT(m.wrong[r], 0);
    printf("  256 ranks, 8 collectives: %.1f ms\n", (sim_wall_now() - t0) * 1e3);
    return 0;
}

// ----------------------------------------------------------------------------
// large direct all_reduce: 4 ranks x 16 MiB + 20 bytes, out of place (the
// results are streamed past the caches, with slices that start unaligned)
// and in place.

typedef struct {
    size_t count;
    long long wrong[4];
} Large;

static SimStatus large_rank(SimRank *r, void *arg) {
    Large *l = arg;
    int me = r->rank, R = r->world->cfg.nranks;
    float *send = malloc(l->count * sizeof *send), *recv = malloc(l->count * sizeof *recv);
    SimStatus st = send && recv ? SIM_OK : SIM_ENOMEM;
    for (int inplace = 0; st == SIM_OK && inplace < 2; inplace++) {
        float *out = inplace ? send : recv;
        for (size_t i = 0; i < l->count; i++) {
            send[i] = (float)((i + (size_t)me) % 7);
            recv[i] = -1.0f;
        }
        st = sim_all_reduce(r, send, out, l->count, SIM_FP32, SIM_SUM, SIM_ALGO_DIRECT);
        for (size_t i = 0; st == SIM_OK && i < l->count; i++) {
            float want = 0;
            for (int q = 0; q < R; q++)
                want += (float)((i + (size_t)q) % 7);
            l->wrong[me] += out[i] != want;
        }
    }
    free(send);
    free(recv);
    return st;
}

static int test_direct_large(void) {
    static Large l;
    memset(&l, 0, sizeof l);
    l.count = ((size_t)1 << 22) + 5;
    SimStatus st = tworld_run_cpu(4, 0, large_rank, &l);
    CHECK_EQ_INT(st, SIM_OK);
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(l.wrong[r], 0);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_64_ranks_ring);
    RUN(test_64_ranks_direct);
    RUN(test_256_ranks);
    RUN(test_direct_large);
    return failures != 0;
}
