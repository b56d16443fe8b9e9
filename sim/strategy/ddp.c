// sim/strategy/ddp.c: DistributedDataParallel's life on one rank, as the training
// loop's strategy (see ddp.h for the order of events): construction, the
// checks and broadcasts around each forward, the gradient-ready hook, and
// the end of backward. The buckets themselves are in ddp_reducer.c, their
// plans in ddp_buckets.c.
#include "strategy/ddp.h"

#include <stdlib.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_broadcast
#include "engine/ops.h"  // defines: sim_tensor_alloc, sim_tensor_upload
#include "strategy/ddp_internal.h"
#include "train/train.h" // defines: SimTrainer

void sim_ddp_options_default(SimDdpOptions *o) {
    memset(o, 0, sizeof *o);
    sim_ddp_bucket_options_default(&o->buckets);
    o->broadcast_buffers = 1;
    o->init_broadcast = 1;
    sim_ddp_powersgd_options_default(&o->powersgd);
}

const char *sim_ddp_comm_hook_name(SimDdpCommHook h) {
    switch (h) {
    case SIM_DDP_HOOK_FP16: return "fp16";
    case SIM_DDP_HOOK_BF16: return "bf16";
    case SIM_DDP_HOOK_SUM: return "sum";
    case SIM_DDP_HOOK_POWERSGD: return "powersgd";
    default: return "allreduce";
    }
}

// --print-buckets: rank 0 prints each plan it starts using.
static void print_plan(const DdpState *s, SimRank *r, const char *when) {
    if (s->o->print_buckets == NULL || r->rank != 0)
        return;
    const char **names = malloc((size_t)s->m->nparams * sizeof *names);
    if (names == NULL)
        return;
    for (int i = 0; i < s->m->nparams; i++)
        names[i] = s->m->params[i].name;
    fprintf(s->o->print_buckets, "ddp buckets, %s: %d bucket%s\n", when, s->plan.nbuckets,
            s->plan.nbuckets == 1 ? "" : "s");
    sim_bucket_plan_print(s->o->print_buckets, &s->plan, names);
    fflush(s->o->print_buckets);
    free(names);
}

// The plan as trace events (sim/trace/trace.h): "plan-begin", then one "plan"
// event per parameter in bucket order, named after it, so a view can draw
// the buckets without the model.
static void trace_plan(const DdpState *s, SimRank *r) {
    SimTrace *tr = r->world->trace;
    if (tr == NULL)
        return;
    double now = r->clock[SIM_STREAM_COMPUTE];
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_BUCKET, SIM_STREAM_COMPUTE, "bucket", "plan-begin", now);
    ev.nsteps = s->plan.nbuckets;
    ev.count = (uint64_t)s->m->nparams;
    sim_rank_trace(r, &ev);
    for (int b = 0; b < s->plan.nbuckets; b++) {
        const SimBucket *bk = &s->plan.buckets[b];
        for (int k = 0; k < bk->nparams; k++) {
            const SimParamInfo *p = &s->m->params[bk->params[k]];
            const char *name = sim_trace_intern(tr, p->name);
            sim_rank_event(&ev, r, SIM_EV_BUCKET, SIM_STREAM_COMPUTE,
                           name ? name : "parameter", "plan", now);
            ev.step = b;
            ev.nsteps = s->plan.nbuckets;
            ev.chunk = bk->params[k];
            ev.count = (uint64_t)p->numel;
            ev.bytes = (uint64_t)p->numel * sim_dtype_size(bk->dtype);
            sim_rank_trace(r, &ev);
        }
    }
}

static SimBucketParam *bucket_params(const SimModel *m) {
    SimBucketParam *p = malloc((size_t)m->nparams * sizeof *p);
    for (int i = 0; p && i < m->nparams; i++) {
        p[i].bytes = m->params[i].numel * sizeof(float);
        p[i].dtype = SIM_FP32;
    }
    return p;
}

// _sync_params_and_buffers: the root's parameters and buffers to every
// rank (rank 0, or under Join the rank the others agreed on).
SimStatus ddp_broadcast_state(DdpState *s, SimRank *r, int params, int root) {
    SimModel *m = s->m;
    if (params && m->param_count > 0)
        SIM_CHECK(sim_broadcast(r, m->param.data, m->param.data, m->param_count, SIM_FP32,
                                root, r->world->cfg.algo));
    if (m->buffer_count > 0)
        SIM_CHECK(sim_broadcast(r, m->buffer.data, m->buffer.data, m->buffer_count, SIM_FP32,
                                root, r->world->cfg.algo));
    return SIM_OK;
}

// The powersgd hook's state, after its options' check. Join's shadow
// all_reduces a whole bucket where the others run three smaller ones, so
// PyTorch's join hook cannot match the hook: refused.
static SimStatus powersgd_setup(DdpState *s, SimRank *r) {
    if (s->o->comm_hook != SIM_DDP_HOOK_POWERSGD)
        return SIM_OK;
    if (sim_ddp_powersgd_options_check(&s->o->powersgd, r->error, sizeof r->error) != 0)
        return SIM_EINVAL;
    if (s->join) {
        snprintf(r->error, sizeof r->error, "the powersgd hook cannot run under Join: a "
                 "joined rank's shadow all_reduces do not match its three all_reduces");
        return SIM_EINVAL;
    }
    s->psgd = sim_ddp_powersgd_new(&s->o->powersgd, s->world, s->plan.nbuckets);
    if (s->psgd == NULL) {
        snprintf(r->error, sizeof r->error, "out of memory for the PowerSGD state");
        return SIM_ENOMEM;
    }
    return SIM_OK;
}

int sim_ddp_powersgd_traffic_of(const SimTrainer *t, SimDdpPowersgdTraffic *out) {
    if (t->cfg->strategy != &sim_ddp_strategy || t->strategy == NULL)
        return 0;
    const DdpState *s = t->strategy;
    if (s->psgd == NULL)
        return 0;
    sim_ddp_powersgd_traffic(s->psgd, out);
    return 1;
}

static SimStatus ddp_setup(SimRank *r, SimTrainer *t, const void *cfg, void **state) {
    DdpState *s = calloc(1, sizeof *s);
    *state = s;
    if (s == NULL) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return SIM_ENOMEM;
    }
    s->o = cfg;
    s->m = t->model;
    s->world = r->world->cfg.nranks;
    s->fwd_param_sync = 1;
    s->join = t->cfg->data.join && t->cfg->data.uneven > 0;
    int n = s->m->nparams;
    s->bucket_of = malloc((size_t)n * sizeof *s->bucket_of);
    s->slot = calloc((size_t)n, sizeof *s->slot);
    s->ready = calloc((size_t)n, 1);
    s->ready_order = malloc((size_t)n * sizeof *s->ready_order);
    SimBucketParam *bp = bucket_params(s->m);
    if (!s->bucket_of || !s->slot || !s->ready || !s->ready_order || !bp) {
        free(bp);
        snprintf(r->error, sizeof r->error, "out of memory");
        return SIM_ENOMEM;
    }
    SimStatus st = sim_ddp_initial_plan(bp, n, &s->o->buckets, &s->plan);
    free(bp);
    if (st != SIM_OK) {
        snprintf(r->error, sizeof r->error, "cannot make the bucket plan: %s",
                 sim_strerror(st));
        return st;
    }
    SIM_CHECK(powersgd_setup(s, r));
    if (s->o->init_broadcast)
        SIM_CHECK(ddp_broadcast_state(s, r, 1, 0));
    SIM_CHECK(ddp_reducer_build(s, r));
    print_plan(s, r, "iteration 0 (initial plan)");
    trace_plan(s, r);
    return SIM_OK;
}

static void ddp_teardown(void *state, SimRank *r) {
    DdpState *s = state;
    if (s == NULL)
        return;
    ddp_reducer_free(s, r);
    sim_ddp_powersgd_free(s->psgd, r);
    sim_bucket_plan_free(&s->plan);
    free(s->bucket_of);
    free(s->slot);
    free(s->ready);
    free(s->ready_order);
    free(s);
}

// The plan rebuilt from s->ready_order, in place of the current one, with
// its buckets.
static SimStatus use_rebuilt_plan(DdpState *s, SimRank *r) {
    int n = s->m->nparams;
    SimBucketParam *bp = bucket_params(s->m);
    if (bp == NULL) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return SIM_ENOMEM;
    }
    SimBucketPlan plan;
    SimStatus st = sim_ddp_rebuilt_plan(bp, n, s->ready_order, s->nready, &s->o->buckets, &plan);
    free(bp);
    if (st != SIM_OK) {
        snprintf(r->error, sizeof r->error, "cannot rebuild the buckets: %s", sim_strerror(st));
        return st;
    }
    ddp_reducer_free(s, r); // the old plan's buckets, before the plan goes
    sim_bucket_plan_free(&s->plan);
    s->plan = plan;
    SIM_CHECK(ddp_reducer_build(s, r));
    // static_graph: iteration 0's hooks only counted, so the order is the
    // second backward's
    print_plan(s, r, s->o->buckets.static_graph
                         ? "rebuilt after the second backward (static_graph) from the "
                           "gradient-ready order"
                         : "rebuilt after the first backward from the gradient-ready order");
    trace_plan(s, r);
    return SIM_OK;
}

// rebuild_buckets: once, at the forward of iteration
// sim_ddp_rebuild_iteration (1; 2 with static_graph; never with
// find_unused_parameters alone), from the order in which gradients became
// ready in the backward before it; rank 0's order is used everywhere
// (sync_bucket_indices broadcasts it). Iterations count reducing forwards.
SimStatus ddp_rebuild(DdpState *s, SimRank *r) {
    int n = s->m->nparams;
    const SimDdpBucketOptions *bo = &s->o->buckets;
    int when = sim_ddp_rebuild_iteration(bo);
    if (s->rebuilt || when < 0 || s->iteration != when || s->nready == 0)
        return SIM_OK;
    s->rebuilt = 1;
    // [count, order...] in one int32 broadcast from rank 0
    int *msg = malloc(((size_t)n + 1) * sizeof *msg);
    if (msg == NULL) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return SIM_ENOMEM;
    }
    msg[0] = s->nready;
    memcpy(msg + 1, s->ready_order, (size_t)n * sizeof *msg);
    SimTensor order;
    int64_t shape[1] = {n + 1};
    sim_tensor_init(&order, "ddp.rebuilt_order", SIM_INT32, 1, shape);
    order.mem_cat = SIM_MEM_COMM;
    SimStatus st = sim_tensor_alloc(r, &order, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &order, msg);
    if (st == SIM_OK)
        st = sim_broadcast(r, order.data, order.data, (size_t)n + 1, SIM_INT32, 0,
                           r->world->cfg.algo);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &order, msg);
    sim_tensor_free(r, &order);
    s->nready = msg[0] >= 0 && msg[0] <= n ? msg[0] : 0;
    memcpy(s->ready_order, msg + 1, (size_t)n * sizeof *msg);
    free(msg);
    SIM_CHECK(st);
    return use_rebuilt_plan(s, r);
}

// A resumed run's DDP goes on as the saved run's did: a new process would
// construct DDP again and rebuild its buckets once more (a broadcast, a
// first iteration on the initial plan), which the run that was never
// stopped does not do. The counters and the gradient order of the rebuild
// come back; with the rebuild done, so do its buckets.
static void ddp_timeline_write(const void *state, const SimRank *r, SimRecOut *o) {
    (void)r;
    const DdpState *s = state;
    int64_t *order = malloc(((size_t)s->nready + 1) * sizeof *order);
    if (order == NULL) {
        o->oom = 1;
        return;
    }
    for (int i = 0; i < s->nready; i++)
        order[i] = s->ready_order[i];
    sim_rec_i64(o, "ddp_rebuilt", s->rebuilt);
    sim_rec_i64(o, "ddp_forwards", s->forwards);
    sim_rec_i64(o, "ddp_iteration", s->iteration);
    sim_rec_i64(o, "ddp_fwd_param_sync", s->fwd_param_sync);
    sim_rec_i64(o, "ddp_shadowed", s->shadowed);
    sim_rec_i64s(o, "ddp_ready_order", order, (size_t)s->nready);
    free(order);
}

static SimStatus ddp_timeline_read(void *state, SimRank *r, SimRecIn *in) {
    DdpState *s = state;
    int n = s->m->nparams;
    int64_t *order = malloc(((size_t)n + 1) * sizeof *order);
    if (order == NULL) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return SIM_ENOMEM;
    }
    int64_t rebuilt = sim_rec_get_i64(in, "ddp_rebuilt");
    int64_t forwards = sim_rec_get_i64(in, "ddp_forwards");
    int64_t iteration = sim_rec_get_i64(in, "ddp_iteration");
    int64_t sync = sim_rec_get_i64(in, "ddp_fwd_param_sync");
    int64_t shadowed = sim_rec_get_i64(in, "ddp_shadowed");
    size_t nready = sim_rec_get_i64s_upto(in, "ddp_ready_order", order, (size_t)n);
    int ok = !in->bad && (rebuilt == 0 || rebuilt == 1) && forwards >= 0 &&
             forwards <= INT32_MAX && iteration >= 0 && iteration <= forwards &&
             (sync == 0 || sync == 1) && (shadowed == 0 || shadowed == 1) &&
             (!rebuilt || nready > 0);
    for (size_t i = 0; ok && i < nready; i++)
        ok = order[i] >= 0 && order[i] < n;
    if (!ok) {
        free(order);
        in->bad = 1;
        snprintf(r->error, sizeof r->error, "DDP's part of the record does not read back");
        return SIM_EFORMAT;
    }
    s->forwards = (int)forwards;
    s->iteration = (int)iteration;
    s->fwd_param_sync = (int)sync;
    s->shadowed = (int)shadowed;
    s->nready = (int)nready;
    for (size_t i = 0; i < nready; i++)
        s->ready_order[i] = (int)order[i];
    free(order);
    if (!rebuilt || s->rebuilt)
        return SIM_OK;
    s->rebuilt = 1;
    return use_rebuilt_plan(s, r);
}

static SimStatus ddp_before_forward(void *state, SimRank *r, SimTrainer *t, int sync) {
    DdpState *s = state;
    if (s->require_finalize) // ensure_prior_reduction_finished
        return ddp_error_unfinished(s, r, (long long)t->step);
    if (sync && s->forwards++ > 0)
        s->iteration++; // num_iterations (0-based): forwards that reduce
    if (s->join) // the same steps, with Join's all_reduces around them
        return ddp_join_forward(s, r, sync);
    SIM_CHECK(ddp_rebuild(s, r));
    // will_sync_module_buffers: only when the previous forward reduced
    if (s->fwd_param_sync && s->o->broadcast_buffers && s->m->nbuffers > 0)
        SIM_CHECK(ddp_broadcast_state(s, r, 0, 0));
    return SIM_OK;
}

static SimStatus ddp_after_forward(void *state, SimRank *r, SimTrainer *t, int sync) {
    (void)t;
    DdpState *s = state;
    s->fwd_param_sync = sync;
    s->hook_status = SIM_OK;
    if (!sync)
        return SIM_OK;
    ddp_reducer_prepare(s);
    // the backward that gives the rebuild its order
    int when = sim_ddp_rebuild_iteration(&s->o->buckets);
    s->recording = !s->rebuilt && when >= 0 && s->iteration == when - 1;
    if (s->recording)
        s->nready = 0;
    if (!s->o->buckets.find_unused)
        return SIM_OK;
    for (int i = 0; i < s->m->nparams; i++)
        if (!sim_model_param_used(s->m, i))
            SIM_CHECK(ddp_reducer_mark_ready(s, r, i));
    return SIM_OK;
}

static void ddp_on_grad(void *state, SimRank *r, int param) {
    DdpState *s = state;
    if (s->hook_status != SIM_OK)
        return;
    SimStatus st = ddp_reducer_mark_ready(s, r, param);
    if (st != SIM_OK) {
        s->hook_status = st;
        snprintf(s->hook_error, sizeof s->hook_error, "%s", r->error);
    }
}

static SimStatus ddp_after_backward(void *state, SimRank *r, SimTrainer *t, int sync) {
    (void)t;
    DdpState *s = state;
    if (s->hook_status != SIM_OK) {
        snprintf(r->error, sizeof r->error, "%s", s->hook_error);
        return s->hook_status;
    }
    return sync ? ddp_reducer_finalize(s, r) : SIM_OK;
}

static int ddp_reduces_unused(const void *cfg) {
    return ((const SimDdpOptions *)cfg)->buckets.find_unused;
}

const SimStrategyOps sim_ddp_strategy = {
    .name = "ddp",
    .setup = ddp_setup,
    .before_forward = ddp_before_forward,
    .after_forward = ddp_after_forward,
    .on_grad = ddp_on_grad,
    .after_backward = ddp_after_backward,
    .sync = NULL, // the reduction is waited for at the end of each reducing backward
    .teardown = ddp_teardown,
    .join_shadow = ddp_join_shadow,
    .join_exit = ddp_join_exit,
    .reduces_unused = ddp_reduces_unused,
    .timeline_write = ddp_timeline_write,
    .timeline_read = ddp_timeline_read,
};
