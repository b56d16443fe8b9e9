// tests/test_ddp_behaviour.c: what DDP does besides averaging gradients:
// the initial broadcast, the buffer broadcast, the unused-parameter error
// (a clear failure, not a hang), the bucket launch order (a late gradient
// delays every later bucket), and the trace of an iteration (ready events,
// launches and all_reduce steps in order, communication overlapping the
// rest of backward). `test_ddp_behaviour torch` compares the unused-parameter
// error text with the installed torch's (exit 77 without it).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "engine/ops.h"
#include "strategy/ddp_internal.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_files.h"
#include "test_world.h"
#include "torch_ref.h"

// Ranks seeded differently end identical with the initial broadcast, and
// differ without it.
static int test_init_broadcast(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,4", &spec) == SIM_OK);
    for (int bcast = 0; bcast <= 1; bcast++) {
        TddpRun t;
        tddp_config(&t, &ds, &spec, 3, 4, 2);
        t.use_ddp = 1;
        t.cfg.init_seed_per_rank = 1;
        t.ddp.init_broadcast = bcast;
        CHECK(tddp_run(&t) == SIM_OK);
        for (int r = 1; r < 3; r++) {
            double d = tddp_maxdiff(t.params[r], t.params[0], t.nparam);
            if (bcast)
                CHECK(d == 0);
            else
                CHECK(d > 1e-3);
        }
        tddp_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

// After the run every rank's BatchNorm statistics are its own (its last
// forward saw its own batch); the next forward's broadcast makes them rank
// 0's. With --broadcast-buffers off they stay different.
static SimStatus next_forward_broadcast(void *arg, SimRank *r, SimTrainer *t) {
    (void)arg;
    return sim_ddp_strategy.before_forward(t->strategy, r, t, 1);
}

static int test_buffer_broadcast(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,32,4,bn", &spec) == SIM_OK);
    for (int on = 0; on <= 1; on++) {
        TddpRun t;
        tddp_config(&t, &ds, &spec, 2, 8, 2);
        t.use_ddp = 1;
        t.ddp.broadcast_buffers = on;
        t.after = next_forward_broadcast;
        CHECK(tddp_run(&t) == SIM_OK);
        CHECK(t.nbuffer > 0);
        double d = tddp_maxdiff(t.buffers[1], t.buffers[0], t.nbuffer);
        if (on)
            CHECK(d == 0);
        else
            CHECK(d > 1e-6);
        tddp_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

// PyTorch 1.13's text for the unused head of mlp:16,32,4,unused (3.weight,
// 3.bias: indices 4 and 5) on rank 0 of 2, as `python3 -c` printed str(e) of
// the RuntimeError that DDP raised at the third forward of the same model
// (the head used on even iterations only), with TORCH_DISTRIBUTED_DEBUG
// unset (off) and set to INFO (names) - word for word, line breaks included.
static const char unused_head[] =
    "ddp (before forward): Expected to have finished reduction in the prior iteration before "
    "starting a new one. This error indicates that your module has parameters that were not "
    "used in producing loss. You can enable unused parameter detection by passing the keyword "
    "argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, "
    "and by \nmaking sure all `forward` function outputs participate in calculating loss. "
    "\nIf you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` "
    "function. Please include the loss function and the structure of the return value of "
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n";
static const char unused_off[] =
    "Parameter indices which did not receive grad for rank 0: 4 5\n In addition, you can set "
    "the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out "
    "information about which particular parameters did not receive gradient on this rank as "
    "part of this error\n";
static const char unused_info[] =
    "Parameters which did not receive grad for rank 0: 3.bias, 3.weight\n"
    "Parameter indices which did not receive grad for rank 0: 4 5\n";
// ddplab's own diagnosis, the last line.
static const char unused_diag[] =
    "ddplab's diagnosis: in the backward of step 2, rank 0 gave no gradient to the parameters "
    "3.weight, 3.bias (indices 4 5): the forward did not use them, so bucket 0 never became "
    "ready, and neither its all_reduce nor any later bucket's was launched (buckets launch in "
    "order); the reduction was left unfinished, and the optimizer step that followed used "
    "gradients that were not averaged across the ranks. Use every parameter in forward, or "
    "pass --find-unused-parameters (find_unused_parameters=True).";

// The unused branch (used on even steps only) without
// find_unused_parameters: step 2 leaves its parameters without gradients,
// and step 3's forward fails at once with PyTorch's text, exactly, then
// ddplab's diagnosis; names in PyTorch's part only at INFO and DETAIL.
static int test_unused_parameter_error(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,4,unused", &spec) == SIM_OK);
    const SimDdpDebugLevel levels[3] = {SIM_DDP_DEBUG_OFF, SIM_DDP_DEBUG_INFO,
                                        SIM_DDP_DEBUG_DETAIL};
    for (int k = 0; k < 3; k++) {
        TddpRun t;
        tddp_config(&t, &ds, &spec, 2, 4, 4);
        t.use_ddp = 1;
        t.ddp.debug_level = levels[k];
        // SIM_EPROTO, not the 5 s watchdog's SIM_ETIMEDOUT: no hang
        CHECK(tddp_run(&t) == SIM_EPROTO);
        char want[2560];
        snprintf(want, sizeof want, "%s%s%s", unused_head, k ? unused_info : unused_off,
                 unused_diag);
        if (strcmp(t.error, want) != 0)
            fprintf(stderr, "debug %s:\n got: %s\nwant: %s\n", sim_ddp_debug_name(levels[k]),
                    t.error, want);
        CHECK(strcmp(t.error, want) == 0);
        tddp_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

// PyTorch's part of ddplab's text (after "ddp (before forward): ", before
// the diagnosis line) for the unused head at `level`, into out.
static int pytorch_part(const SimDataset *ds, const SimModelSpec *spec, SimDdpDebugLevel level,
                        char *out, size_t len) {
    TddpRun t;
    tddp_config(&t, ds, spec, 2, 4, 4);
    t.use_ddp = 1;
    t.ddp.debug_level = level;
    CHECK(tddp_run(&t) == SIM_EPROTO);
    const char *lead = "ddp (before forward): ", *diag = strstr(t.error, "\nddplab's diagnosis: ");
    CHECK(strncmp(t.error, lead, strlen(lead)) == 0 && diag != NULL);
    snprintf(out, len, "%.*s", (int)(diag - t.error - (int)strlen(lead)), t.error + strlen(lead));
    tddp_free(&t);
    return 0;
}

// The same texts against what the installed torch prints for the same
// model (tests/conformance/ddp_error_ref.py: 2 gloo processes).
static int test_unused_error_torch(void) {
    char dir[512], path[600];
    CHECK_EQ_INT(torchref_tmpdir(dir, sizeof dir), 0);
    const char *args[] = {dir, "60", NULL};
    int rc = torchref_run("ddp_error_ref.py", args);
    snprintf(path, sizeof path, "%s/off.txt", dir);
    char *off = rc == 0 ? tfile_read(path, NULL) : NULL;
    snprintf(path, sizeof path, "%s/info.txt", dir);
    char *info = rc == 0 ? tfile_read(path, NULL) : NULL;
    torchref_rmdir(dir);
    CHECK_EQ_INT(rc, 0);
    CHECK(off != NULL && info != NULL);
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,4,unused", &spec) == SIM_OK);
    char mine[2560];
    CHECK(pytorch_part(&ds, &spec, SIM_DDP_DEBUG_OFF, mine, sizeof mine) == 0);
    if (strcmp(mine, off) != 0)
        fprintf(stderr, "debug off:\nddplab: %s\n torch: %s\n", mine, off);
    CHECK(strcmp(mine, off) == 0);
    CHECK(pytorch_part(&ds, &spec, SIM_DDP_DEBUG_INFO, mine, sizeof mine) == 0);
    if (strcmp(mine, info) != 0)
        fprintf(stderr, "debug INFO:\nddplab: %s\n torch: %s\n", mine, info);
    CHECK(strcmp(mine, info) == 0);
    printf("  the texts at TORCH_DISTRIBUTED_DEBUG off and INFO equal torch's (%zu and %zu "
           "bytes)\n", strlen(off), strlen(info));
    free(off);
    free(info);
    sim_dataset_free(&ds);
    return 0;
}

// TORCH_DISTRIBUTED_DEBUG's values as c10d takes them: the three names in
// any case, nothing else (not even an empty value).
static int test_debug_level_parse(void) {
    SimDdpDebugLevel d = SIM_DDP_DEBUG_OFF;
    CHECK(sim_ddp_debug_parse("INFO", &d) == 0 && d == SIM_DDP_DEBUG_INFO);
    CHECK(sim_ddp_debug_parse("detail", &d) == 0 && d == SIM_DDP_DEBUG_DETAIL);
    CHECK(sim_ddp_debug_parse("Off", &d) == 0 && d == SIM_DDP_DEBUG_OFF);
    CHECK(sim_ddp_debug_parse("", &d) == -1);
    CHECK(sim_ddp_debug_parse("1", &d) == -1);
    CHECK(sim_ddp_debug_parse("DETAILS", &d) == -1);
    CHECK(strcmp(sim_ddp_debug_name(SIM_DDP_DEBUG_INFO), "INFO") == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// the reducer alone: three one-parameter buckets whose gradients arrive in
// the order 1, 2, 0

#define NP 3
#define PN 4 // elements per parameter

typedef struct {
    int fails;
} OrderCtx;

static SimStatus order_main(SimRank *r, void *arg) {
    OrderCtx *c = arg;
    SimModel m;
    memset(&m, 0, sizeof m);
    SimParamInfo params[NP];
    memset(params, 0, sizeof params);
    for (int i = 0; i < NP; i++) {
        snprintf(params[i].name, sizeof params[i].name, "p%d", i);
        params[i].offset = (size_t)i * PN;
        params[i].numel = PN;
    }
    m.nparams = NP;
    m.params = params;
    m.param_count = NP * PN;
    int64_t shape[1] = {NP * PN};
    sim_tensor_init(&m.grad, "grads", SIM_FP32, 1, shape);
    SIM_CHECK(sim_tensor_alloc(r, &m.grad, 0));
    SimDdpOptions o;
    sim_ddp_options_default(&o);
    DdpState s;
    memset(&s, 0, sizeof s);
    s.o = &o;
    s.m = &m;
    s.world = r->world->cfg.nranks;
    int bucket_of[NP], order[NP] = {0, 1, 2}, ready_order[NP];
    size_t slot[NP];
    uint8_t ready[NP];
    s.bucket_of = bucket_of, s.slot = slot, s.ready = ready, s.ready_order = ready_order;
    SimBucketParam bp[NP];
    for (int i = 0; i < NP; i++)
        bp[i] = (SimBucketParam){PN * sizeof(float), SIM_FP32};
    size_t limit = 1; // every parameter closes its own bucket
    SimStatus st = sim_bucket_assign(bp, order, NP, &limit, 1, &s.plan);
    if (st == SIM_OK)
        st = ddp_reducer_build(&s, r);
    float g[NP * PN];
    for (int i = 0; i < NP * PN; i++)
        g[i] = (float)(r->rank + 1) * (float)(i + 1);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &m.grad, g);
    if (st == SIM_OK && s.plan.nbuckets != NP)
        c->fails++;
    ddp_reducer_prepare(&s);
    const int arrive[NP] = {1, 2, 0};
    for (int k = 0; k < NP && st == SIM_OK; k++) {
        sim_rank_compute(r, "backward", 1e-3); // the backward of the layer
        st = ddp_reducer_mark_ready(&s, r, arrive[k]);
        // nothing launches before parameter 0 (bucket 0) is ready
        if (k < NP - 1 && s.next_launch != 0)
            c->fails++;
    }
    if (st == SIM_OK && s.next_launch != NP)
        c->fails++;
    if (st == SIM_OK)
        st = ddp_reducer_finalize(&s, r);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &m.grad, g);
    int R = r->world->cfg.nranks;
    for (int i = 0; st == SIM_OK && i < NP * PN; i++) {
        float want = (float)(R + 1) / 2.0f * (float)(i + 1); // mean of (rank+1)(i+1)
        if (fabsf(g[i] - want) > 1e-5f * want)
            c->fails++;
    }
    ddp_reducer_free(&s, r);
    sim_bucket_plan_free(&s.plan);
    sim_tensor_free(r, &m.grad);
    return st;
}

static int test_launch_order(void) {
    OrderCtx c = {0};
    SimWorld w;
    CHECK(tworld_init_cpu(&w, 3, 1, 5.0) == SIM_OK);
    CHECK(sim_world_run(&w, order_main, &c) == SIM_OK);
    CHECK_EQ_INT(c.fails, 0);
    // rank 0's bucket events: ready 1, ready 2, ready 0, launch 0, 1, 2
    const SimEvent *ev = sim_trace_rank_events(w.trace, 0);
    size_t n = sim_trace_rank_count(w.trace, 0);
    int seen = 0;
    double ready0 = -1;
    const char *want_label[] = {"ready", "ready", "ready", "launch", "launch", "launch",
                                "done", "done", "done"};
    const int want_bucket[] = {1, 2, 0, 0, 1, 2, 0, 1, 2};
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != SIM_EV_BUCKET)
            continue;
        CHECK(seen < 9);
        CHECK(strcmp(ev[i].label, want_label[seen]) == 0);
        CHECK_EQ_INT(ev[i].step, want_bucket[seen]);
        if (seen == 2)
            ready0 = ev[i].sim_start;
        if (seen >= 3 && seen < 6)
            CHECK(ev[i].sim_start >= ready0); // launched only once bucket 0 was ready
        seen++;
    }
    CHECK_EQ_INT(seen, 9);
    CHECK(ready0 >= 3e-3); // after the three layers' backward
    sim_world_free(&w);
    return 0;
}

// ----------------------------------------------------------------------------
// the trace of one iteration after the rebuild

static int test_trace_overlap(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,600,600,4", &spec) == SIM_OK);
    TddpRun t;
    tddp_config(&t, &ds, &spec, 2, 4, 2);
    t.use_ddp = 1;
    t.ddp.buckets.bucket_cap_mb = 0.01;
    t.trace = 1;
    CHECK(tddp_run(&t) == SIM_OK);
    CHECK(t.events != NULL);
    // rank 0's events in the order it recorded them; iteration 1 (the second
    // step) runs from its first ready event to its last done event
    double last_ready = -1, first_launch = -1, first_step = -1, bwd_end = -1;
    int readies = 0, launches = 0, steps = 0, iteration = -1, prev_ready_param = -2;
    for (size_t i = 0; i < t.nevents; i++) {
        const SimEvent *e = &t.events[i];
        if (e->rank != 0)
            continue;
        if (e->kind == SIM_EV_BUCKET && strcmp(e->label, "ready") == 0 &&
            prev_ready_param == -2) {
            iteration++;
            prev_ready_param = -1;
        }
        if (e->kind == SIM_EV_BUCKET && strcmp(e->label, "done") == 0)
            prev_ready_param = -2; // the iteration's reduction is over
        if (iteration != 1)
            continue;
        if (e->kind == SIM_EV_BUCKET && strcmp(e->label, "ready") == 0) {
            readies++;
            last_ready = e->sim_start;
        } else if (e->kind == SIM_EV_BUCKET && strcmp(e->label, "launch") == 0) {
            if (launches++ == 0)
                first_launch = e->sim_start;
        } else if (e->kind == SIM_EV_COLL_STEP && e->coll == SIM_COLL_ALL_REDUCE) {
            if (steps++ == 0)
                first_step = e->sim_start;
        } else if (e->kind == SIM_EV_COMPUTE && e->sim_end > bwd_end && readies < 6) {
            bwd_end = e->sim_end;
        }
    }
    printf("iteration 1 on rank 0: %d ready, %d launches, %d all_reduce steps; first launch "
           "at %.3g us, last gradient ready at %.3g us\n", readies, launches, steps,
           first_launch * 1e6, last_ready * 1e6);
    CHECK_EQ_INT(readies, 6);
    CHECK(launches >= 2); // rebuilt with the 0.01 MB cap: more than one bucket
    CHECK(steps >= launches);
    CHECK(first_launch >= 0 && first_step >= first_launch);
    // overlap: the first bucket's all_reduce starts while backward still runs
    CHECK(first_launch < last_ready);
    tddp_free(&t);
    sim_dataset_free(&ds);
    return 0;
}

int main(int argc, char **argv) {
    int failures = 0;
    if (argc > 1 && strcmp(argv[1], "torch") == 0) {
        if (!torchref_available())
            return 77;
        RUN(test_unused_error_torch);
        return failures ? 1 : 0;
    }
    RUN(test_init_broadcast);
    RUN(test_buffer_broadcast);
    RUN(test_unused_parameter_error);
    RUN(test_debug_level_parse);
    RUN(test_launch_order);
    RUN(test_trace_overlap);
    return failures ? 1 : 0;
}
