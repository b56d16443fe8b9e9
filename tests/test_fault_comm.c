// tests/test_fault_comm.c: the collective-level injected faults (sim/engine/fault.h,
// sim/engine/comm_fault.c) on CPU ranks, each with the effect it must have:
//   skip      a middle all_reduce skipped: the rank's next one pairs with
//             the others' skipped one and the protocol check names both
//             sizes; the last one skipped: the rank finishes (its wait
//             returns at once, its buffer untouched) and the others wait
//             until the watchdog names the rank that never arrived
//   mismatch  count - 1 and a broadcast instead: SIM_EPROTO naming the rank
//   reorder   unequal sizes: SIM_EPROTO; equal sizes: the run completes and
//             the two results are exchanged (checked by value); a blocking
//             call: nothing to reorder, results right; under DDP two equal
//             buckets swap their gradients and the replicas diverge
//   crash     the rank returns SIM_ECRASHED only after the watchdog aborted
//             the others, within the watchdog's bound; the diagnosis names it
//   slow-rank the straggler's compute takes F times as long and the others'
//             collective starts when it arrives
//   slow-link a ring all_reduce, each of its steps and a message to the slow
//             rank take F times as long; other messages do not
// Every fault leaves exactly one "injected" event, on the rank it hits.
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "engine/fault.h"
#include "engine/ops.h"
#include "strategy/ddp.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_files.h"
#include "test_world.h"
#include "train/train.h"

#define FC_R 4
#define FC_COLLS 4

typedef struct {
    SimFaultPlan plan;
    int R;
    double watchdog_s;
    // the script every rank runs in step 1 (sim_rank_begin_step)
    int ncoll;
    size_t count[FC_COLLS];
    SimAlgo algo;
    int async;          // 1: launch them all, then wait for them all
    double compute_s;   // simulated compute before the collectives
    int p2p;            // 1: instead, rank 0 sends to ranks 1 and 2
    // results
    SimStatus st, rank_st[FC_R];
    char error[4096], rank_error[FC_R][2048];
    float first[FC_R][FC_COLLS], last[FC_R][FC_COLLS]; // each buffer's ends
    double ret_wall[FC_R]; // wall seconds at which each rank returned
    double wall_s;
    int threads_before, threads_after; // of this process, around the run
    SimEvent *events[FC_R];
    size_t nevents[FC_R];
} FcRun;

static void fc_config(FcRun *t, int R) {
    memset(t, 0, sizeof *t);
    t->R = R;
    t->watchdog_s = tenv_sanitized() ? 2.0 : 0.5;
    t->algo = SIM_ALGO_AUTO;
}

static int fc_fault(SimFaultPlan *plan, const char *spec) {
    char err[512];
    if (sim_fault_parse(plan, spec, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

// Buffer k of rank r starts as (r + 1) * (k + 1) everywhere.
static float init_value(int r, int k) {
    return (float)((r + 1) * (k + 1));
}

static SimStatus p2p_rank(SimRank *r) {
    float buf[1024];
    for (int i = 0; i < 1024; i++)
        buf[i] = (float)i;
    if (r->rank == 0) {
        SIM_CHECK(sim_send(r, buf, 1024, SIM_FP32, 1));
        return sim_send(r, buf, 1024, SIM_FP32, 2);
    }
    if (r->rank == 1 || r->rank == 2)
        return sim_recv(r, buf, 1024, SIM_FP32, 0);
    return SIM_OK;
}

static SimStatus script_rank(SimRank *r, void *arg) {
    FcRun *t = arg;
    int me = r->rank;
    sim_rank_begin_step(r, 1);
    if (t->compute_s > 0)
        sim_rank_compute(r, "work", t->compute_s);
    if (t->p2p) {
        t->rank_st[me] = p2p_rank(r);
        t->ret_wall[me] = sim_rank_wall(r);
        return t->rank_st[me];
    }
    float *b[FC_COLLS] = {0};
    SimCollHandle h[FC_COLLS];
    int launched[FC_COLLS] = {0};
    SimStatus st = SIM_OK;
    for (int k = 0; k < t->ncoll; k++) {
        b[k] = malloc(t->count[k] * sizeof(float));
        if (b[k] == NULL)
            st = SIM_ENOMEM;
        for (size_t i = 0; b[k] && i < t->count[k]; i++)
            b[k][i] = init_value(me, k);
    }
    for (int k = 0; st == SIM_OK && k < t->ncoll; k++) {
        if (t->async) {
            SimCollArgs a = {SIM_COLL_ALL_REDUCE, t->algo, SIM_FP32, SIM_SUM, b[k], b[k],
                             t->count[k], 0, -1};
            st = sim_coll_launch(r, &a, &h[k]);
            launched[k] = st == SIM_OK;
        } else {
            st = sim_all_reduce(r, b[k], b[k], t->count[k], SIM_FP32, SIM_SUM, t->algo);
        }
    }
    for (int k = 0; k < t->ncoll; k++) {
        SimStatus ws = launched[k] ? sim_coll_wait(r, &h[k]) : SIM_OK;
        if (st == SIM_OK)
            st = ws;
    }
    for (int k = 0; k < t->ncoll; k++) {
        if (b[k]) {
            t->first[me][k] = b[k][0];
            t->last[me][k] = b[k][t->count[k] - 1];
        }
        free(b[k]);
    }
    t->rank_st[me] = st;
    snprintf(t->rank_error[me], sizeof t->rank_error[me], "%s", r->error);
    t->ret_wall[me] = sim_rank_wall(r);
    return st;
}

// Threads of this process (the test's own, the BLAS library's).
static int threads_now(void) {
    return tfile_dir_entries("/proc/self/task");
}

// Runs fn on a fresh world with the plan; keeps the trace's events (fault
// names copied: they live in the trace's pool).
static SimStatus fc_world(FcRun *t, SimRankMain fn, void *arg) {
    SimWorld w;
    t->st = tworld_init_cpu(&w, t->R, 1, t->watchdog_s);
    if (t->st == SIM_OK) {
        w.cfg.faults = &t->plan;
        double w0 = sim_wall_now();
        t->threads_before = threads_now();
        t->st = sim_world_run(&w, fn, arg);
        t->threads_after = threads_now(); // the ranks' threads are gone
        t->wall_s = sim_wall_now() - w0;
    }
    snprintf(t->error, sizeof t->error, "%s", sim_world_error(&w));
    for (int r = 0; w.trace && r < t->R; r++) {
        size_t n = sim_trace_rank_count(w.trace, r);
        t->events[r] = malloc((n + 1) * sizeof(SimEvent));
        if (t->events[r] == NULL)
            continue;
        if (n > 0) // a rank without events has no buffer
            memcpy(t->events[r], sim_trace_rank_events(w.trace, r), n * sizeof(SimEvent));
        t->nevents[r] = n;
        for (size_t i = 0; i < n; i++)
            if (t->events[r][i].kind == SIM_EV_FAULT)
                t->events[r][i].name = strdup(t->events[r][i].name ? t->events[r][i].name : "");
    }
    sim_world_free(&w);
    return t->st;
}

static SimStatus fc_run(FcRun *t) {
    return fc_world(t, script_rank, t);
}

static void fc_free(FcRun *t) {
    for (int r = 0; r < FC_R; r++) {
        for (size_t i = 0; t->events[r] && i < t->nevents[r]; i++)
            if (t->events[r][i].kind == SIM_EV_FAULT)
                free((char *)t->events[r][i].name);
        free(t->events[r]);
        t->events[r] = NULL;
    }
}

static int is_injected(const SimEvent *e) {
    return e->kind == SIM_EV_FAULT && e->label && strcmp(e->label, "injected") == 0;
}

// Exactly one "injected" event in the whole trace, on rank `on`, whose name
// holds `want`.
static int one_event(const FcRun *t, int on, const char *want) {
    for (int r = 0; r < t->R; r++) {
        int n = 0;
        const char *name = NULL;
        for (size_t i = 0; i < t->nevents[r]; i++)
            if (is_injected(&t->events[r][i]) && n++ == 0)
                name = t->events[r][i].name;
        CHECK_EQ_INT(n, r == on ? 1 : 0);
        if (r == on)
            CHECK_STR_CONTAINS(name, want);
    }
    return 0;
}

// Rank r's k-th event of a kind (named `name` when not NULL), or NULL.
static const SimEvent *nth_event(const FcRun *t, int r, int kind, const char *name, int k) {
    for (size_t i = 0; i < t->nevents[r]; i++) {
        const SimEvent *e = &t->events[r][i];
        if (e->kind == kind && (name == NULL || (e->name && strcmp(e->name, name) == 0)) &&
            k-- == 0)
            return e;
    }
    return NULL;
}

static double sum_values(const FcRun *t, int k) {
    double s = 0;
    for (int r = 0; r < t->R; r++)
        s += init_value(r, k);
    return s;
}

// ----------------------------------------------------------------------------
// skip

static int test_skip_middle_mismatch(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 3;
    t.count[0] = 100, t.count[1] = 200, t.count[2] = 300;
    CHECK(fc_fault(&t.plan, "skip:rank=1,step=1,coll=1") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_EPROTO);
    // rank 1's collective #1 is its 300 elements: the others' #1 has 200
    CHECK_STR_CONTAINS(t.error, "AllReduce #1: rank 1 count 300 != rank 0 count 200");
    CHECK(one_event(&t, 1, "fault skip:rank=1,step=1,coll=1: rank 1 skips AllReduce #1 "
                           "(200 x fp32) (step 1, collective 1)") == 0);
    // the first all_reduce was done by everybody; the skipped buffer untouched
    CHECK_NEAR(t.first[1][0], sum_values(&t, 0), 0);
    CHECK_NEAR(t.first[1][1], init_value(1, 1), 0);
    CHECK_NEAR(t.last[1][1], init_value(1, 1), 0);
    fc_free(&t);
    return 0;
}

static int test_skip_last_hangs(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 2;
    t.count[0] = 100, t.count[1] = 200;
    CHECK(fc_fault(&t.plan, "skip:rank=2,step=1,coll=1") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_ETIMEDOUT);
    // rank 2 was done at once: its wait said OK, its buffer is as it was
    CHECK_EQ_INT(t.rank_st[2], SIM_OK);
    CHECK_NEAR(t.first[2][0], sum_values(&t, 0), 0);
    CHECK_NEAR(t.first[2][1], init_value(2, 1), 0);
    for (int r = 0; r < FC_R; r++)
        if (r != 2)
            CHECK(t.rank_st[r] == SIM_ETIMEDOUT || t.rank_st[r] == SIM_EABORTED);
    // the watchdog names the missing rank
    CHECK_STR_CONTAINS(t.error, "rank 2 never arrived");
    CHECK(one_event(&t, 2, "rank 2 skips AllReduce #1 (200 x fp32)") == 0);
    CHECK_EQ_INT(t.threads_after, t.threads_before);
    // no collective event for the skipped call on rank 2
    CHECK(nth_event(&t, 2, SIM_EV_COLL, NULL, 0) != NULL);
    CHECK(nth_event(&t, 2, SIM_EV_COLL, NULL, 1) == NULL);
    fc_free(&t);
    return 0;
}

// ----------------------------------------------------------------------------
// mismatch

static int test_mismatch_count(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 2;
    t.count[0] = 100, t.count[1] = 200;
    CHECK(fc_fault(&t.plan, "mismatch:rank=3,step=1,coll=1") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_EPROTO);
    CHECK_STR_CONTAINS(t.error, "AllReduce #1: rank 3 count 199 != rank 0 count 200");
    CHECK(one_event(&t, 3, "rank 3 calls AllReduce #1 (200 x fp32) with 199 elements "
                           "instead of 200 (step 1, collective 1)") == 0);
    fc_free(&t);
    return 0;
}

static int test_mismatch_op(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 2;
    t.count[0] = 100, t.count[1] = 200;
    CHECK(fc_fault(&t.plan, "mismatch:rank=0,step=1,coll=0,as=op") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_EPROTO);
    // compared with rank 0, which is the odd one here: every other rank differs
    CHECK_STR_CONTAINS(t.error, "collective #0: rank 1 called AllReduce, rank 0 called Broadcast");
    CHECK(one_event(&t, 0, "rank 0 calls AllReduce #0 (100 x fp32) as a Broadcast from rank 0") ==
          0);
    fc_free(&t);
    return 0;
}

// ----------------------------------------------------------------------------
// reorder

static int test_reorder_unequal(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 3;
    t.async = 1;
    t.count[0] = 100, t.count[1] = 200, t.count[2] = 300;
    CHECK(fc_fault(&t.plan, "reorder:rank=1,step=1,coll=0") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_EPROTO);
    CHECK_STR_CONTAINS(t.error, "AllReduce #0: rank 1 count 200 != rank 0 count 100");
    CHECK(one_event(&t, 1, "rank 1 launches collective 1 of step 1, AllReduce #0 (200 x fp32), "
                           "before collective 0, AllReduce #1 (100 x fp32)") == 0);
    fc_free(&t);
    return 0;
}

static int test_reorder_equal_swaps(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 3;
    t.async = 1;
    t.count[0] = t.count[1] = t.count[2] = 64;
    CHECK(fc_fault(&t.plan, "reorder:rank=1,step=1,coll=0") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_OK);
    // the others' #0 met rank 1's buffer 1, their #1 its buffer 0
    double into0 = sum_values(&t, 0) - init_value(1, 0) + init_value(1, 1);
    double into1 = sum_values(&t, 1) - init_value(1, 1) + init_value(1, 0);
    for (int r = 0; r < FC_R; r++) {
        CHECK_NEAR(t.first[r][r == 1 ? 1 : 0], into0, 0);
        CHECK_NEAR(t.last[r][r == 1 ? 1 : 0], into0, 0);
        CHECK_NEAR(t.first[r][r == 1 ? 0 : 1], into1, 0);
        CHECK_NEAR(t.first[r][2], sum_values(&t, 2), 0);
    }
    CHECK(into0 != sum_values(&t, 0));
    CHECK(one_event(&t, 1, "before collective 0") == 0);
    // rank 1 ran its held call second: its collectives in launch order
    const SimEvent *c0 = nth_event(&t, 1, SIM_EV_COLL, NULL, 0);
    const SimEvent *c1 = nth_event(&t, 1, SIM_EV_COLL, NULL, 1);
    CHECK(c0 && c1);
    CHECK_EQ_INT(c0->seq + c1->seq, 1);
    fc_free(&t);
    return 0;
}

static int test_reorder_blocking_in_order(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 2;
    t.count[0] = 100, t.count[1] = 200; // blocking calls: waited before the next launch
    CHECK(fc_fault(&t.plan, "reorder:rank=2,step=1,coll=0") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_OK);
    for (int r = 0; r < FC_R; r++)
        for (int k = 0; k < 2; k++)
            CHECK_NEAR(t.first[r][k], sum_values(&t, k), 0);
    CHECK(one_event(&t, 2, "no reorder possible") == 0);
    fc_free(&t);
    return 0;
}

// DDP on 4 ranks with buckets [6.*, 4.*], [2.*] and [0.*] (first_bucket_is_cap,
// cap 0.001 MB; the last two 272 elements each): in step 2 (after the
// rebuild's broadcast, collective 0) buckets 1 and 2 are collectives 2 and 3.
typedef struct {
    SimTrainConfig cfg;
    SimDdpOptions ddp;
    SimTrainer tr[FC_R];
    float *params[FC_R];
    size_t nparam;
    SimStatus rank_st[FC_R];
} DdpCase;

static SimStatus ddp_rank(SimRank *r, void *arg) {
    DdpCase *d = arg;
    SimTrainer *tr = &d->tr[r->rank];
    SimStatus st = sim_train_run(r, d->tr);
    const SimModel *m = tr->model;
    if (m && m->param.data) {
        d->params[r->rank] = malloc(m->param_count * sizeof(float) + 1);
        if (d->params[r->rank] &&
            sim_tensor_download(r, &m->param, d->params[r->rank]) != SIM_OK) {
            free(d->params[r->rank]);
            d->params[r->rank] = NULL;
        }
        if (r->rank == 0)
            d->nparam = m->param_count;
    }
    d->rank_st[r->rank] = st;
    sim_train_free(tr, r);
    return st;
}

static int ddp_case(FcRun *t, DdpCase *d, const SimDataset *ds, const SimModelSpec *spec,
                    const char *fault) {
    fc_config(t, FC_R);
    memset(d, 0, sizeof *d);
    sim_train_config_default(&d->cfg);
    d->cfg.model = *spec;
    d->cfg.data.set = ds;
    d->cfg.data.batch = 16;
    d->cfg.loop.steps = 3;
    d->cfg.data.shuffle = 0;
    char err[256];
    CHECK(sim_optim_flags_set(&d->cfg.opt, "lr", "0.1", err, sizeof err) == SIM_OK);
    CHECK(sim_optim_flags_validate(&d->cfg.opt, err, sizeof err) == SIM_OK);
    sim_ddp_options_default(&d->ddp);
    d->ddp.buckets.bucket_cap_mb = 0.001;
    d->ddp.buckets.first_bucket_is_cap = 1;
    d->cfg.strategy = &sim_ddp_strategy;
    d->cfg.strategy_cfg = &d->ddp;
    if (fault)
        CHECK(fc_fault(&t->plan, fault) == 0);
    d->cfg.faults = &t->plan;
    for (int i = 0; i < FC_R; i++)
        d->tr[i].cfg = &d->cfg;
    CHECK_EQ_INT(fc_world(t, ddp_rank, d), SIM_OK);
    for (int i = 0; i < FC_R; i++)
        CHECK(d->params[i] != NULL);
    return 0;
}

static void ddp_free(DdpCase *d) {
    for (int i = 0; i < FC_R; i++)
        free(d->params[i]);
}

static int test_reorder_ddp_equal_buckets(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,16,16,16,4", &spec) == SIM_OK);
    FcRun t0, t1;
    DdpCase *d0 = calloc(1, sizeof *d0), *d1 = calloc(1, sizeof *d1);
    CHECK(d0 && d1);
    CHECK(ddp_case(&t0, d0, &ds, &spec, NULL) == 0);
    CHECK(ddp_case(&t1, d1, &ds, &spec, "reorder:rank=1,step=2,coll=2") == 0);
    // fault-free: the replicas agree; with the swap they do not, and even
    // rank 0 (which kept its order) ends elsewhere
    CHECK(tddp_maxdiff(d0->params[1], d0->params[0], d0->nparam) == 0);
    CHECK(tddp_maxdiff(d1->params[0], d0->params[0], d0->nparam) > 1e-6);
    CHECK(tddp_maxdiff(d1->params[1], d1->params[0], d0->nparam) > 1e-6);
    CHECK(one_event(&t1, 1, "rank 1 launches collective 3 of step 2, AllReduce #4 (272 x fp32), "
                            "before collective 2, AllReduce #5 (272 x fp32)") == 0);
    fc_free(&t0);
    fc_free(&t1);
    ddp_free(d0);
    ddp_free(d1);
    free(d0);
    free(d1);
    sim_dataset_free(&ds);
    return 0;
}

// ----------------------------------------------------------------------------
// crash

static int test_crash(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 2;
    t.count[0] = 100, t.count[1] = 200;
    CHECK(fc_fault(&t.plan, "crash:rank=2,step=1,coll=1") == 0);
    SimStatus st = fc_run(&t);
    CHECK(st == SIM_ETIMEDOUT || st == SIM_ECRASHED);
    CHECK_EQ_INT(t.rank_st[2], SIM_ECRASHED);
    CHECK_STR_CONTAINS(t.rank_error[2], "rank 2 crashed (injected fault crash:rank=2,step=1,"
                                        "coll=1) as it was about to launch AllReduce #1 in step 1");
    for (int r = 0; r < FC_R; r++)
        if (r != 2)
            CHECK(t.rank_st[r] == SIM_ETIMEDOUT || t.rank_st[r] == SIM_EABORTED);
    // the watchdog's diagnosis says who crashed; all within its bound
    CHECK_STR_CONTAINS(t.error, "rank 2 crashed");
    // the crashed rank stayed until the watchdog had fired on the others
    CHECK(t.ret_wall[2] >= t.watchdog_s * 0.9);
    CHECK_EQ_INT(t.threads_after, t.threads_before);
    CHECK(one_event(&t, 2, "rank 2 crashed as it was about to launch AllReduce #1 (200 x fp32)") ==
          0);
    fc_free(&t);
    return 0;
}

// ----------------------------------------------------------------------------
// slow-rank, slow-link

static int test_slow_rank(void) {
    FcRun t;
    fc_config(&t, FC_R);
    t.ncoll = 1;
    t.count[0] = 256;
    t.compute_s = 1e-3;
    CHECK(fc_fault(&t.plan, "slow-rank:rank=1,factor=3") == 0);
    CHECK_EQ_INT(fc_run(&t), SIM_OK);
    const SimEvent *work1 = nth_event(&t, 1, SIM_EV_COMPUTE, "work", 0);
    const SimEvent *work0 = nth_event(&t, 0, SIM_EV_COMPUTE, "work", 0);
    CHECK(work0 && work1);
    CHECK_NEAR(work1->sim_end - work1->sim_start, 3e-3, 1e-12);
    CHECK_NEAR(work0->sim_end - work0->sim_start, 1e-3, 1e-12);
    // everybody's all_reduce starts when the straggler arrives: rank 0
    // waited 2 ms with nothing to do
    for (int r = 0; r < FC_R; r++) {
        const SimEvent *c = nth_event(&t, r, SIM_EV_COLL, NULL, 0);
        CHECK(c != NULL);
        CHECK_NEAR(c->sim_start, 3e-3, 1e-12);
    }
    CHECK(one_event(&t, 1, "rank 1 computes 3 times slower from step 1 on") == 0);
    fc_free(&t);
    return 0;
}

static int test_slow_link(void) {
    FcRun t0, t1;
    size_t n = tenv_quick() ? (1u << 16) : (1u << 20);
    fc_config(&t0, FC_R);
    t0.ncoll = 1;
    t0.count[0] = n;
    t0.algo = SIM_ALGO_RING;
    t1 = t0;
    CHECK(fc_fault(&t1.plan, "slow-link:rank=2,factor=4") == 0);
    CHECK_EQ_INT(fc_run(&t0), SIM_OK);
    CHECK_EQ_INT(fc_run(&t1), SIM_OK);
    for (int r = 0; r < FC_R; r++) {
        const SimEvent *a = nth_event(&t0, r, SIM_EV_COLL, NULL, 0);
        const SimEvent *b = nth_event(&t1, r, SIM_EV_COLL, NULL, 0);
        CHECK(a && b);
        // every ring step has rank 2 in it: the whole collective is 4x
        CHECK_NEAR((b->sim_end - b->sim_start) / (a->sim_end - a->sim_start), 4.0, 1e-9);
        const SimEvent *sa = nth_event(&t0, r, SIM_EV_COLL_STEP, NULL, 3);
        const SimEvent *sb = nth_event(&t1, r, SIM_EV_COLL_STEP, NULL, 3);
        CHECK(sa && sb);
        CHECK_NEAR((sb->sim_end - sb->sim_start) / (sa->sim_end - sa->sim_start), 4.0, 1e-9);
    }
    CHECK(one_event(&t1, 2, "transfers to and from rank 2 take 4 times as long") == 0);
    fc_free(&t0);
    fc_free(&t1);

    // messages: to the slow rank 4x, to another rank as before
    FcRun p;
    fc_config(&p, FC_R);
    p.p2p = 1;
    CHECK(fc_fault(&p.plan, "slow-link:rank=2,factor=4") == 0);
    CHECK_EQ_INT(fc_run(&p), SIM_OK);
    const SimEvent *to1 = nth_event(&p, 0, SIM_EV_COLL, NULL, 0);
    const SimEvent *to2 = nth_event(&p, 0, SIM_EV_COLL, NULL, 1);
    CHECK(to1 && to2 && to1->dst == 1 && to2->dst == 2);
    CHECK_NEAR((to2->sim_end - to2->sim_start) / (to1->sim_end - to1->sim_start), 4.0, 1e-9);
    fc_free(&p);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_skip_middle_mismatch);
    RUN(test_skip_last_hangs);
    RUN(test_mismatch_count);
    RUN(test_mismatch_op);
    RUN(test_reorder_unequal);
    RUN(test_reorder_equal_swaps);
    RUN(test_reorder_blocking_in_order);
    RUN(test_reorder_ddp_equal_buckets);
    RUN(test_crash);
    RUN(test_slow_rank);
    RUN(test_slow_link);
    return failures ? 1 : 0;
}
