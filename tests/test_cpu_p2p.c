// tests/test_cpu_p2p.c: point-to-point messages and the asynchronous handles
// on the CPU backend.
//   - a ring exchange (every rank sends right and receives from the left) with
//     launch-then-wait, which must not deadlock;
//   - several messages between one pair arrive in the order they were sent;
//   - empty messages, blocking send/recv pairs, and p2p interleaved with
//     collectives and barriers.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "test_world.h"

#define N 1000

typedef struct {
    long long wrong[8];
} Out;

static SimStatus ring_exchange(SimRank *r, void *arg) {
    Out *o = arg;
    int R = r->world->cfg.nranks, me = r->rank;
    int32_t out[N], in[N];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            out[i] = me * 100000 + round * 1000 + i;
        SimCollArgs sa = {SIM_COLL_SEND, SIM_ALGO_AUTO, SIM_INT32, SIM_SUM, out, NULL, N, 0,
                          (me + 1) % R};
        SimCollArgs ra = {SIM_COLL_RECV, SIM_ALGO_AUTO, SIM_INT32, SIM_SUM, NULL, in, N, 0,
                          (me + R - 1) % R};
        SimCollHandle hs, hr;
        SIM_CHECK(sim_coll_launch(r, &sa, &hs));
        SIM_CHECK(sim_coll_launch(r, &ra, &hr));
        SIM_CHECK(sim_coll_wait(r, &hr));
        SIM_CHECK(sim_coll_wait(r, &hs));
        int left = (me + R - 1) % R;
        for (int i = 0; i < N; i++)
            o->wrong[me] += in[i] != left * 100000 + round * 1000 + i;
        SIM_CHECK(sim_barrier(r));
    }
    return SIM_OK;
}

// Rank 0 posts three sends to rank 1 before waiting; rank 1 receives them in
// order. Then an empty message each way, a blocking pair, and collectives in
// between.
static SimStatus ordered(SimRank *r, void *arg) {
    Out *o = arg;
    int me = r->rank;
    int64_t msg[3][16], got[16];
    if (me == 0) {
        SimCollHandle h[3];
        for (int m = 0; m < 3; m++) {
            for (int i = 0; i < 16; i++)
                msg[m][i] = m * 100 + i;
            SimCollArgs a = {SIM_COLL_SEND, SIM_ALGO_AUTO, SIM_INT64, SIM_SUM, msg[m], NULL,
                             16, 0, 1};
            SIM_CHECK(sim_coll_launch(r, &a, &h[m]));
        }
        for (int m = 0; m < 3; m++)
            SIM_CHECK(sim_coll_wait(r, &h[m]));
    } else if (me == 1) {
        for (int m = 0; m < 3; m++) {
            SIM_CHECK(sim_recv(r, got, 16, SIM_INT64, 0));
            for (int i = 0; i < 16; i++)
                o->wrong[me] += got[i] != m * 100 + i;
        }
    }
    float x = (float)me;
    SIM_CHECK(sim_all_reduce(r, &x, &x, 1, SIM_FP32, SIM_SUM, SIM_ALGO_RING));
    o->wrong[me] += x != 3.0f; // ranks 0, 1, 2
    if (me == 1)
        SIM_CHECK(sim_send(r, NULL, 0, SIM_FP32, 2));
    if (me == 2)
        SIM_CHECK(sim_recv(r, NULL, 0, SIM_FP32, 1));
    if (me == 2) {
        int32_t v = 42;
        SIM_CHECK(sim_send(r, &v, 1, SIM_INT32, 0));
    }
    if (me == 0) {
        int32_t v = 0;
        SIM_CHECK(sim_recv(r, &v, 1, SIM_INT32, 2));
        o->wrong[me] += v != 42;
    }
    return sim_barrier(r);
}

static int test_ring_exchange(void) {
    int sizes[] = {2, 3, 5, 8};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        Out o;
        memset(&o, 0, sizeof o);
        CHECK_EQ_INT(tworld_run_cpu(sizes[k], 1, ring_exchange, &o), SIM_OK);
        for (int r = 0; r < sizes[k]; r++)
            CHECK_EQ_INT(o.wrong[r], 0);
    }
    return 0;
}

static int test_ordered_messages(void) {
    Out o;
    memset(&o, 0, sizeof o);
    CHECK_EQ_INT(tworld_run_cpu(3, 1, ordered, &o), SIM_OK);
    for (int r = 0; r < 3; r++)
        CHECK_EQ_INT(o.wrong[r], 0);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ring_exchange);
    RUN(test_ordered_messages);
    return failures != 0;
}
