// tests/test_data_stage.c: the input pipeline's schedule (sim/data/data_stage.h)
// against ready and wait times computed by hand, the host link each profile
// copies over, the checks of a configuration, and the stage inside the
// training loop on CPU ranks: off (sample_cost 0) it changes nothing in the
// trace, bit for bit; on, every rank leaves its data.load / data.h2d /
// data.wait events, and loader workers start afresh at each epoch.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data/data_stage.h"
#include "test_ddp_util.h"
#include "test_env.h"

#define MS 1e-3
#define EPS 1e-12

// A link whose copies take exactly `copy` seconds for one byte pinned (and
// twice that pageable): no latency, 1/copy bytes per second.
static SimLinkProfile link_for(double copy) {
    SimLinkProfile l;
    memset(&l, 0, sizeof l);
    strcpy(l.name, "test");
    l.alpha_s = 0;
    l.bw_Bps = copy > 0 ? 1.0 / copy : 1e300;
    return l;
}

static SimDataStage stage(int workers, int prefetch, double cost, int pin) {
    SimDataStage c;
    sim_data_stage_default(&c);
    c.workers = workers;
    c.prefetch = prefetch;
    c.sample_cost = cost;
    c.pin_memory = pin;
    return c;
}

// Runs a loop that asks for `nb` batches of 4 samples (1 byte each, so the
// copy takes link_for's time) and computes `compute` seconds on each, from
// time 0; the slots in out[nb].
static int loop(const SimDataStage *c, double copy, double compute, int nb, SimDataSlot *out) {
    SimDataStageState s;
    memset(&s, 0, sizeof s);
    SimLinkProfile l = link_for(copy);
    CHECK(sim_data_stage_restart(&s, c, 0) == SIM_OK);
    double now = 0;
    for (int i = 0; i < nb; i++) {
        sim_data_stage_next(&s, now, 4, 1, &l, &out[i]);
        now = out[i].got + compute;
    }
    CHECK_EQ_INT(s.stats.batches, nb);
    sim_data_stage_free(&s);
    return 0;
}

// 2 workers, prefetch 2, 1 ms per sample, batch 4 (4 ms per batch), free
// copies, and a loop that computes 1 ms per batch: the loader (2 batches per
// 4 ms) is the bottleneck. By hand:
//   i  worker  load        ready  asked  wait  got
//   0  0       0 .. 4      4      0      4     4
//   1  1       0 .. 4      4      5      0     5
//   2  0       4 .. 8      8      6      2     8
//   3  1       4 .. 8      8      9      0     9
//   4  0       8 .. 12     12     10     2     12
//   5  1       8 .. 12     12     13     0     13
static int test_schedule_fast_compute(void) {
    SimDataStage c = stage(2, 2, 1 * MS, 1);
    SimDataSlot d[6];
    CHECK(loop(&c, 0, 1 * MS, 6, d) == 0);
    const double load[6] = {0, 0, 4, 4, 8, 8}, ready[6] = {4, 4, 8, 8, 12, 12};
    const double wait[6] = {4, 0, 2, 0, 2, 0}, got[6] = {4, 5, 8, 9, 12, 13};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(d[i].worker, i % 2);
        CHECK_NEAR(d[i].load_start, load[i] * MS, EPS);
        CHECK_NEAR(d[i].ready, ready[i] * MS, EPS);
        CHECK_NEAR(d[i].wait, wait[i] * MS, EPS);
        CHECK_NEAR(d[i].got, got[i] * MS, EPS);
    }
    return 0;
}

// The same loader with a loop that computes 5 ms per batch: after the first
// batch nothing waits, and the prefetch factor holds the workers back: batch
// i + 4 is dispatched only when batch i leaves the DataLoader (a pinned
// copy's start: max(ready_i, got_{i-1})). By hand:
//   taken: 4 4 9 14 19 24 29 34 39      (got_i = 4 + 5 i for i >= 1)
//   i  worker  dispatch   load
//   4  0       taken0=4   8 .. 12   (the worker was busy until 8)
//   6  0       taken2=9   12 .. 16
//   7  1       taken3=14  14 .. 18  (held back by the prefetch factor)
//   8  0       taken4=19  19 .. 23
static int test_schedule_slow_compute(void) {
    SimDataStage c = stage(2, 2, 1 * MS, 1);
    SimDataSlot d[9];
    CHECK(loop(&c, 0, 5 * MS, 9, d) == 0);
    CHECK_NEAR(d[0].wait, 4 * MS, EPS);
    for (int i = 1; i < 9; i++) {
        CHECK_NEAR(d[i].wait, 0, EPS);
        CHECK_NEAR(d[i].got, (4 + 5 * i) * MS, EPS);
    }
    const double taken[9] = {4, 4, 9, 14, 19, 24, 29, 34, 39};
    const double load[9] = {0, 0, 4, 4, 8, 8, 12, 14, 19};
    for (int i = 0; i < 9; i++) {
        CHECK_NEAR(d[i].taken, taken[i] * MS, EPS);
        CHECK_NEAR(d[i].load_start, load[i] * MS, EPS);
        CHECK_NEAR(d[i].ready, (load[i] + 4) * MS, EPS);
    }
    // prefetch 1: each worker holds one batch; batch i + 2 waits for batch i
    c = stage(2, 1, 1 * MS, 1);
    CHECK(loop(&c, 0, 5 * MS, 9, d) == 0);
    CHECK_NEAR(d[2].load_start, 4 * MS, EPS);  // taken0 = 4
    CHECK_NEAR(d[3].load_start, 4 * MS, EPS);  // taken1 = 4
    CHECK_NEAR(d[4].load_start, 9 * MS, EPS);  // taken2 = got1 = 9
    CHECK_NEAR(d[5].load_start, 14 * MS, EPS); // taken3 = got2 = 14
    return 0;
}

// Enough workers: after the first batch (the warm-up) the wait is gone.
static int test_schedule_warm_up(void) {
    SimDataStage c = stage(8, 2, 1 * MS, 1); // 4 ms per batch, 8 at a time
    SimDataSlot d[40];
    CHECK(loop(&c, 0, 1 * MS, 40, d) == 0);
    CHECK_NEAR(d[0].wait, 4 * MS, EPS);
    for (int i = 1; i < 40; i++)
        CHECK_NEAR(d[i].wait, 0, EPS);
    // one worker cannot keep up: every batch but the first waits 3 ms
    c = stage(1, 2, 1 * MS, 1);
    CHECK(loop(&c, 0, 1 * MS, 10, d) == 0);
    for (int i = 1; i < 10; i++)
        CHECK_NEAR(d[i].wait, 3 * MS, EPS);
    return 0;
}

// No workers: the loop loads each batch itself (4 ms), then copies it.
// Pinned, 1 ms: wait 5 ms, got = asked + 5. Pageable: twice the copy time,
// on the compute stream after a 4 ms wait: got = asked + 6.
static int test_schedule_no_workers(void) {
    SimDataStage c = stage(0, 2, 1 * MS, 1);
    SimDataSlot d[3];
    CHECK(loop(&c, 1 * MS, 1 * MS, 3, d) == 0);
    for (int i = 0; i < 3; i++) {
        double asked = 6 * MS * i;
        CHECK_EQ_INT(d[i].worker, -1);
        CHECK_NEAR(d[i].load_start, asked, EPS);
        CHECK_NEAR(d[i].wait, 5 * MS, EPS);
        CHECK_NEAR(d[i].copy_start, asked + 4 * MS, EPS);
        CHECK_NEAR(d[i].got, asked + 5 * MS, EPS);
    }
    c = stage(0, 2, 1 * MS, 0);
    CHECK(loop(&c, 1 * MS, 1 * MS, 3, d) == 0);
    for (int i = 0; i < 3; i++) {
        double asked = 7 * MS * i;
        CHECK_NEAR(d[i].wait, 4 * MS, EPS);
        CHECK_NEAR(d[i].copy_start, asked + 4 * MS, EPS);
        CHECK_NEAR(d[i].copy_end, asked + 6 * MS, EPS);
        CHECK_NEAR(d[i].got, asked + 6 * MS, EPS);
    }
    // with workers the pinned copy overlaps the compute: 2 workers at 4 ms
    // a batch and 3 ms of compute keep up, and the 1 ms copy hides too
    c = stage(2, 2, 1 * MS, 1);
    SimDataSlot e[12];
    CHECK(loop(&c, 1 * MS, 3 * MS, 12, e) == 0);
    CHECK_NEAR(e[0].wait, 5 * MS, EPS);
    for (int i = 2; i < 12; i++)
        CHECK_NEAR(e[i].wait, 0, EPS);
    return 0;
}

static int test_host_link_and_check(void) {
    const char *sys[] = {"dgx-h100", "dgx-a100", "pcie-ib200", "pcie5-eth100"};
    const char *want[] = {"pcie5-x16", "pcie4-x16", "pcie4-x16", "pcie5-x16"};
    for (int i = 0; i < 4; i++) {
        const SimSysProfile *p = sim_sys_find(sys[i]);
        CHECK(p != NULL);
        const SimLinkProfile *l = sim_data_stage_host_link(p, sim_device_effective(NULL, p));
        CHECK(l != NULL);
        if (strcmp(l->name, want[i]) != 0) {
            fprintf(stderr, "%s: host link %s, want %s\n", sys[i], l->name, want[i]);
            return 1;
        }
    }
    // 1 MB pinned over PCIe 5 (50 GB/s, 2 us): 22 us; pageable at half: 42 us
    const SimLinkProfile *g5 = sim_link_find("pcie5-x16");
    CHECK_NEAR(sim_data_stage_copy_s(g5, 1e6, 1), 22e-6, 1e-12);
    CHECK_NEAR(sim_data_stage_copy_s(g5, 1e6, 0), 42e-6, 1e-12);
    // a batch's bytes: 4 samples x (16 floats + 1 label)
    float x[64] = {0};
    int32_t y[4] = {0};
    SimBatch b = {.n = 4, .features = 16, .x = x, .labels = y};
    CHECK_NEAR(sim_data_stage_batch_bytes(&b), 4 * (16 * 4 + 4), 0);
    char err[256];
    SimDataStage c = stage(2, 2, 0.001, 1);
    CHECK(sim_data_stage_check(&c, err, sizeof err) == SIM_OK);
    c.sample_cost = -1;
    CHECK(sim_data_stage_check(&c, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "sample_cost");
    c = stage(-1, 2, 0.001, 1);
    CHECK(sim_data_stage_check(&c, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "workers -1");
    c = stage(2, 0, 0.001, 1);
    CHECK(sim_data_stage_check(&c, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "prefetch 0");
    CHECK(!sim_data_stage_on(&(SimDataStage){.workers = 4, .prefetch = 2}));
    return 0;
}

// ----------------------------------------------------------------------------
// inside the training loop

// The name of a compute event (static strings), else NULL: the names of
// bucket, shard and fault events are interned by the trace, which is gone
// once tddp_run returns.
static const char *compute_name(const SimEvent *e) {
    return e->kind == SIM_EV_COMPUTE ? e->name : NULL;
}

// Rank 0's compute events named `name` (TddpRun keeps rank 0's trace).
static int count_named(const TddpRun *t, const char *name, double *sum) {
    int n = 0;
    *sum = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (compute_name(&t->events[i]) && strcmp(t->events[i].name, name) == 0) {
            n++;
            *sum += t->events[i].sim_end - t->events[i].sim_start;
        }
    return n;
}

static int same_trace(const TddpRun *a, const TddpRun *b) {
    CHECK_EQ_INT(a->nevents, b->nevents);
    for (size_t i = 0; i < a->nevents; i++) {
        const SimEvent *x = &a->events[i], *y = &b->events[i];
        int same = x->kind == y->kind && x->stream == y->stream && x->step == y->step &&
                   x->chunk == y->chunk && x->bytes == y->bytes && x->count == y->count &&
                   memcmp(&x->sim_start, &y->sim_start, sizeof(double)) == 0 &&
                   memcmp(&x->sim_end, &y->sim_end, sizeof(double)) == 0 &&
                   ((compute_name(x) == NULL && compute_name(y) == NULL) ||
                    (compute_name(x) && compute_name(y) && strcmp(x->name, y->name) == 0));
        if (!same) {
            fprintf(stderr, "event %zu differs: %s/%d/%d/%d/%d/%llu/%llu [%.17g, %.17g] against "
                    "%s/%d/%d/%d/%d/%llu/%llu [%.17g, %.17g]\n", i,
                    compute_name(x) ? x->name : "?",
                    x->kind, x->stream, x->step, x->chunk, (unsigned long long)x->bytes,
                    (unsigned long long)x->count, x->sim_start, x->sim_end,
                    compute_name(y) ? y->name : "?", y->kind, y->stream, y->step, y->chunk,
                    (unsigned long long)y->bytes, (unsigned long long)y->count, y->sim_start,
                    y->sim_end);
            return 1;
        }
    }
    return 0;
}

// 2 DDP ranks, 64 samples, batch 8: 4 batches per rank and epoch; 8 steps
// (2 epochs; 4 under QUICK, 1 epoch).
static int setup_run(TddpRun *t, const SimDataset *ds, const SimModelSpec *spec,
                     int64_t steps) {
    memset(t, 0, sizeof *t);
    tddp_config(t, ds, spec, 2, 8, steps);
    t->use_ddp = 1;
    t->trace = 1;
    return 0;
}

static int test_in_loop(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 64, "mlp:16,32,4", &spec) == SIM_OK);
    int64_t steps = tenv_quick() ? 4 : 8;
    int rc = 1;
    TddpRun base, off, on, warm;
    setup_run(&base, &ds, &spec, steps);
    setup_run(&off, &ds, &spec, steps);
    setup_run(&on, &ds, &spec, steps);
    setup_run(&warm, &ds, &spec, steps);
    // off: the fields set, the cost 0: the trace is the same bit for bit
    off.cfg.data.stage = stage(4, 3, 0, 0);
    // on, no workers: every batch waits 8 us to load plus its pinned copy
    on.cfg.data.stage = stage(0, 2, 1e-6, 1);
    // on, 4 workers: 2 us per batch of throughput, far below a step's
    // compute: only each epoch's first batch waits (the workers restart)
    warm.cfg.data.stage = stage(4, 2, 1e-6, 1);
    if (tddp_run(&base) != SIM_OK || tddp_run(&off) != SIM_OK || tddp_run(&on) != SIM_OK ||
        tddp_run(&warm) != SIM_OK) {
        fprintf(stderr, "run failed: %s%s%s%s\n", base.error, off.error, on.error, warm.error);
        goto out;
    }
    if (same_trace(&base, &off) != 0)
        goto out;
    double sum = 0;
    CHECK(count_named(&base, "data.wait", &sum) == 0);
    CHECK(count_named(&base, "data.load", &sum) == 0);
    const SimSysProfile *sys = sim_sys_find("dgx-h100");
    const SimLinkProfile *host = sim_data_stage_host_link(sys, sim_device_effective(NULL, sys));
    double copy = sim_data_stage_copy_s(host, 8 * (16 * 4 + 4), 1);
    int n = count_named(&on, "data.wait", &sum);
    CHECK_EQ_INT(n, steps);
    CHECK_NEAR(sum, steps * (8e-6 + copy), 1e-12);
    CHECK_EQ_INT(count_named(&on, "data.load", &sum), steps);
    CHECK_NEAR(sum, steps * 8e-6, 1e-12);
    CHECK_EQ_INT(count_named(&on, "data.h2d", &sum), steps);
    // the wait shows in the step time: rank 0 ends later by exactly the waits
    // (nothing else moves: ranks are symmetric, the copies are pinned)
    CHECK(on.events[on.nevents - 1].sim_end > base.events[base.nevents - 1].sim_end);
    int64_t epochs = (steps + 3) / 4;
    n = count_named(&warm, "data.wait", &sum);
    CHECK_EQ_INT(n, epochs);
    CHECK_NEAR(sum, epochs * (8e-6 + copy), 1e-12);
    // every wait is the first batch of an epoch, and loads name their worker
    for (size_t i = 0; i < warm.nevents; i++) {
        const SimEvent *e = &warm.events[i];
        if (compute_name(e) == NULL)
            continue;
        if (strcmp(e->name, "data.wait") == 0)
            CHECK_EQ_INT(e->step, 0);
        if (strcmp(e->name, "data.load") == 0) {
            CHECK_EQ_INT(e->chunk, e->step % 4);
            CHECK_EQ_INT(e->stream, SIM_STREAM_HOST);
        }
        if (strcmp(e->name, "data.wait") == 0)
            CHECK_EQ_INT(e->stream, SIM_STREAM_COMPUTE);
    }
    rc = 0;
out:
    tddp_free(&base);
    tddp_free(&off);
    tddp_free(&on);
    tddp_free(&warm);
    sim_dataset_free(&ds);
    return rc;
}

int main(void) {
    int failures = 0;
    RUN(test_schedule_fast_compute);
    RUN(test_schedule_slow_compute);
    RUN(test_schedule_warm_up);
    RUN(test_schedule_no_workers);
    RUN(test_host_link_and_check);
    RUN(test_in_loop);
    return failures ? 1 : 0;
}
