// tests/test_cpu_trace.c: the trace the CPU backend leaves of a ring
// all_reduce. On R ranks each rank reports 2(R-1) steps, in order, each with
// exactly one transfer that follows the ring mapping of sim/coll/schedule.h:
//   reduce-scatter step s: rank r receives chunk (r-2-s) mod R from r-1;
//   all-gather step s:     rank r receives chunk (r-1-s) mod R from r-1.
// The direct all_reduce reports the steps of its schedule as well.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "test_world.h"

#define COUNT 1000

static int mod(int a, int n) {
    return ((a % n) + n) % n;
}

static SimStatus ring_rank(SimRank *r, void *arg) {
    SimAlgo algo = *(const SimAlgo *)arg;
    float buf[COUNT];
    for (int i = 0; i < COUNT; i++)
        buf[i] = (float)(r->rank + i);
    return sim_all_reduce(r, buf, buf, COUNT, SIM_FP32, SIM_SUM, algo);
}

static SimStatus run(int R, SimAlgo algo, SimWorld *w) {
    SimStatus st = tworld_init_cpu(w, R, 1, 30);
    if (st == SIM_OK)
        st = sim_world_run(w, ring_rank, &algo);
    return st;
}

static int check_ring(int R) {
    SimWorld w;
    CHECK_EQ_INT(run(R, SIM_ALGO_RING, &w), SIM_OK);
    for (int r = 0; r < R; r++) {
        size_t n = sim_trace_rank_count(w.trace, r);
        const SimEvent *ev = sim_trace_rank_events(w.trace, r);
        int steps = 0, xfers = 0, colls = 0, last_step = -1;
        for (size_t i = 0; i < n; i++) {
            const SimEvent *e = &ev[i];
            CHECK_EQ_INT(e->rank, r);
            if (e->kind == SIM_EV_COLL) {
                colls++;
                CHECK_EQ_INT(e->nsteps, 2 * (R - 1));
            } else if (e->kind == SIM_EV_COLL_STEP) {
                CHECK_EQ_INT(e->step, last_step + 1);
                CHECK_EQ_INT(e->nsteps, 2 * (R - 1));
                CHECK(e->wall_end >= e->wall_start);
                CHECK(e->sim_end >= e->sim_start);
                last_step = e->step;
                steps++;
            } else if (e->kind == SIM_EV_XFER) {
                int s = e->step, rs = s < R - 1;
                int chunk = rs ? mod(r - 2 - s, R) : mod(r - 1 - (s - (R - 1)), R);
                CHECK_EQ_INT(e->step, last_step); // follows its step event
                CHECK_EQ_INT(e->src, mod(r - 1, R));
                CHECK_EQ_INT(e->dst, r);
                CHECK_EQ_INT(e->chunk, chunk);
                CHECK_EQ_INT(e->count, sim_part_size(COUNT, R, chunk));
                CHECK_EQ_INT(e->bytes, sim_part_size(COUNT, R, chunk) * sizeof(float));
                CHECK(strcmp(e->label, rs ? "reduce" : "copy") == 0);
                xfers++;
            }
        }
        CHECK_EQ_INT(steps, 2 * (R - 1));
        CHECK_EQ_INT(xfers, 2 * (R - 1));
        CHECK_EQ_INT(colls, 1);
    }
    sim_world_free(&w);
    return 0;
}

static int test_ring_trace(void) {
    int sizes[] = {2, 3, 4, 5, 8};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (check_ring(sizes[i]) != 0) {
            fprintf(stderr, "  ring trace wrong on %d ranks\n", sizes[i]);
            return 1;
        }
    return 0;
}

// The fused direct pass still reports its schedule: 2 steps (reduce-scatter,
// all-gather), R-1 transfers each, all with the pass's wall time.
static int test_direct_trace(void) {
    const int R = 4;
    SimWorld w;
    CHECK_EQ_INT(run(R, SIM_ALGO_DIRECT, &w), SIM_OK);
    for (int r = 0; r < R; r++) {
        size_t n = sim_trace_rank_count(w.trace, r);
        const SimEvent *ev = sim_trace_rank_events(w.trace, r);
        int steps = 0, xfers = 0;
        for (size_t i = 0; i < n; i++) {
            if (ev[i].kind == SIM_EV_COLL_STEP) {
                CHECK_EQ_INT(ev[i].step, steps);
                CHECK(strcmp(ev[i].label, steps == 0 ? "reduce-scatter" : "all-gather") == 0);
                steps++;
            }
            if (ev[i].kind == SIM_EV_XFER) {
                CHECK(ev[i].src != r);
                CHECK_EQ_INT(ev[i].dst, r);
                CHECK_EQ_INT(ev[i].chunk, ev[i].step == 0 ? r : ev[i].src);
                xfers++;
            }
        }
        CHECK_EQ_INT(steps, 2);
        CHECK_EQ_INT(xfers, 2 * (R - 1));
    }
    sim_world_free(&w);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ring_trace);
    RUN(test_direct_trace);
    return failures != 0;
}
