// cli/plan/plan_run.c: one configuration of `ddplab plan`, run in phantom mode.
//
// The world has the configuration's R ranks, but on the "sym" backend only
// rank 0 runs: every rank of a data-parallel strategy does the same thing on
// data of the same shape, so rank 0's ledger and clocks are every rank's
// (sim/engine/world.h: represent). The training loop takes two optimizer steps on
// a synthetic token set (the sampler reading it as one replica, so the set
// stays a few micro-batches long whatever R is); the second step is the one
// reported, since the first carries one-time work (DDP's bucket rebuild).
#include "plan/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/backends.h"     // defines: cli_backend_find
#include "core/cli.h"          // defines: CLI_EXIT_*
#include "data/dataset.h"      // defines: SimDataset, sim_dataset_synth
#include "model/optim_flags.h" // defines: sim_optim_flags_set
#include "strategy/dp.h"       // defines: sim_dp_strategy
#include "train/train.h"       // defines: SimTrainer, sim_train_run

#define PLAN_STEPS 2
#define PLAN_TRACE_CAP 4000000 // events kept for rank 0

typedef struct {
    SimTrainer *t;         // [1], or [R] for DataParallel: rank 0's first
    double step_end[PLAN_STEPS + 1]; // compute-stream time at the end of each step
    int nsteps;
    int64_t params;
    size_t largest_unit;
    SimMemLedger mem;
} PlanCtx;

static void on_step(void *arg, int rank, const SimStepStats *s) {
    PlanCtx *c = arg;
    if (rank == 0 && c->nsteps < PLAN_STEPS)
        c->step_end[++c->nsteps] = s->sim_s;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    PlanCtx *c = arg;
    SimTrainer *t = &c->t[r->rank];
    SimStatus st = sim_train_run(r, c->t);
    if (r->rank == 0) {
        c->mem = r->mem;
        if (t->model)
            c->params = (int64_t)t->model->param_count;
        const SimFsdpPlan *p = sim_fsdp_plan_of(t);
        c->largest_unit = p ? p->largest_unit : 0;
    }
    sim_train_free(t, r);
    return st;
}

// DataParallel is not symmetric (device 0 is the controller): its ranks all
// run, on the cpu backend in phantom mode, so it plans single machines.
static int is_dp(const PlanOptions *o) {
    return strcmp(o->strategy, "dp") == 0;
}

static int fail(PlanResult *res, int code, const char *fmt, const char *what) {
    snprintf(res->error, sizeof res->error, fmt, what);
    return code;
}

// The optimizer, the autocast dtype and the strategy into the loop's config.
static int configure(const PlanOptions *o, SimTrainConfig *tc, SimFsdpOptions *fsdp,
                     SimDdpOptions *ddp, SimDpOptions *dp, PlanResult *res) {
    char err[512];
    sim_optim_flags_default(&tc->opt);
    if (sim_optim_flags_set(&tc->opt, "optimizer", o->optimizer, err, sizeof err) != SIM_OK ||
        sim_optim_flags_set(&tc->opt, "amp", strcmp(o->amp, "fp32") == 0 ? "off" : o->amp,
                            err, sizeof err) != SIM_OK ||
        sim_optim_flags_validate(&tc->opt, err, sizeof err) != SIM_OK)
        return fail(res, CLI_EXIT_USAGE, "%s", err);
    *fsdp = o->fsdp;
    SimDtype low = strcmp(o->amp, "bf16") == 0 ? SIM_BF16
                   : strcmp(o->amp, "fp16") == 0 ? SIM_FP16 : SIM_FP32;
    if (fsdp->param_dtype == SIM_FP32) // mixed precision: units gathered in the low type
        fsdp->param_dtype = low;
    static const char *const zero_labels[] = {"zero1", "zero2 (shard_grad_op)",
                                              "zero3 (full_shard)"};
    res->strategy_label = o->strategy;
    if (is_dp(o)) {
        tc->strategy = &sim_dp_strategy;
        tc->strategy_cfg = dp;
        tc->data.batch = o->micro_batch * o->nranks; // one loader, split over the devices
    } else if (strcmp(o->strategy, "ddp") == 0) {
        *ddp = o->ddp;
        tc->strategy = &sim_ddp_strategy;
        tc->strategy_cfg = ddp;
    } else if (strcmp(o->strategy, "single") != 0) {
        tc->strategy = &sim_fsdp_strategy;
        tc->strategy_cfg = fsdp;
        res->strategy_label = sim_fsdp_sharding_name(fsdp->sharding);
        if (strcmp(o->strategy, "fsdp2") == 0) {
            fsdp->per_param = 1;
            res->strategy_label = fsdp->sharding == SIM_FSDP_FULL_SHARD
                                  ? "fsdp2 (fully_shard)"
                                  : "fsdp2 (reshard_after_forward=False)";
        }
        if (strncmp(o->strategy, "zero", 4) == 0)
            res->strategy_label = zero_labels[o->strategy[4] - '1'];
    }
    return 0;
}

// Busy time of rank 0's compute and communication streams in [t0, t1], and
// the time the host stream was busy while the compute stream was not (what
// the device waited for on the host: offloaded copies and optimizer steps).
// Events of one stream do not overlap each other, so host time not under
// compute is each host event's length less its overlap with compute events.
static void stream_busy(const SimTrace *tr, double t0, double t1, double *compute,
                        double *comm, double *host_only) {
    *compute = *comm = *host_only = 0;
    size_t n = sim_trace_rank_count(tr, 0);
    const SimEvent *ev = sim_trace_rank_events(tr, 0);
    for (size_t i = 0; i < n; i++) {
        const SimEvent *e = &ev[i];
        double a = e->sim_start > t0 ? e->sim_start : t0;
        double b = e->sim_end < t1 ? e->sim_end : t1;
        if (b <= a)
            continue;
        if (e->kind == SIM_EV_COMPUTE && e->stream == SIM_STREAM_COMPUTE)
            *compute += b - a;
        else if (e->kind == SIM_EV_COLL && e->stream == SIM_STREAM_COMM)
            *comm += b - a;
        else if (e->kind == SIM_EV_COMPUTE && e->stream == SIM_STREAM_HOST) {
            double alone = b - a;
            for (size_t k = 0; k < n; k++) {
                const SimEvent *f = &ev[k];
                if (f->kind != SIM_EV_COMPUTE || f->stream != SIM_STREAM_COMPUTE)
                    continue;
                double x = f->sim_start > a ? f->sim_start : a;
                double y = f->sim_end < b ? f->sim_end : b;
                if (y > x)
                    alone -= y - x;
            }
            *host_only += alone > 0 ? alone : 0;
        }
    }
}

// FLOPs of one step over every rank, as the benchmarks define them
// (PaLM, Chowdhery et al. 2022, appendix B; llm-foundry's
// scripts/train/benchmarking/README.md; Korthikanti et al. 2022 for HFU).
// Model FLOPs: 6 per parameter and token (forward 2, backward 4) plus
// attention's 12 x layers x width x sequence per token (q.k and the
// weights' use, 2 x 2 x width x sequence a layer forward, three times for
// training; counted over every pair, causal or not, by the convention). A
// model that is a parameter count alone: 3 x its forward FLOPs per sample.
// Hardware FLOPs add what the step computes again: full checkpointing one
// more forward (2 per parameter, 4 x layers x width x sequence: the
// benchmarks' 4 instead of 3), selective recomputation the attention core's
// forward (eager; under flash it has none to recompute), and flash
// attention's backward Q K^T, one of the forward's two products
// (2 x layers x width x sequence; llm-foundry's note counts the whole core).
static void step_flops(const PlanOptions *o, double params, double tokens, double *model,
                       double *hardware) {
    if (o->model.kind == SIM_MODEL_COUNT) { // its stated forward FLOPs, backward twice that
        *model = *hardware = 3.0 * (double)o->model.count_flops * tokens;
        return;
    }
    double lhs = 0, extra = 0;
    if (o->model.kind == SIM_MODEL_GPT)
        lhs = (double)o->model.layers * o->model.embd * (double)o->seq;
    int flash = sim_model_attn_fused(o->model.attn);
    if (o->model.kind == SIM_MODEL_GPT && strcmp(o->ckpt, "full") == 0)
        extra = 2.0 * params + 4.0 * lhs;
    else if (strcmp(o->ckpt, "selective") == 0 && !flash)
        extra = 4.0 * lhs;
    if (flash)
        extra += 2.0 * lhs;
    *model = (6.0 * params + 12.0 * lhs) * tokens;
    *hardware = *model + extra * tokens;
}

// Rank 0's all_reduce calls that start in [t0, t1), by algorithm.
static void count_allreduce(const SimTrace *tr, double t0, double t1, int *by) {
    size_t n = sim_trace_rank_count(tr, 0);
    const SimEvent *ev = sim_trace_rank_events(tr, 0);
    for (size_t i = 0; i < n; i++)
        if (ev[i].kind == SIM_EV_COLL && ev[i].coll == SIM_COLL_ALL_REDUCE &&
            ev[i].sim_start >= t0 && ev[i].sim_start < t1 && ev[i].algo >= 0 &&
            ev[i].algo < SIM_ALGO_COUNT)
            by[ev[i].algo]++;
}

static void summarise(const PlanOptions *o, const PlanCtx *c, const SimWorld *w,
                      PlanResult *res) {
    res->params = c->params;
    res->largest_unit = c->largest_unit;
    res->mem = c->mem;
    res->capacity = o->capacity ? o->capacity : (uint64_t)w->cost.device.mem_bytes;
    if (res->capacity == 0)
        res->capacity = (uint64_t)sim_device_default()->mem_bytes;
    res->fits = (uint64_t)res->mem.peak[SIM_MEM_DEVICE] <= res->capacity;
    double t0 = c->step_end[PLAN_STEPS - 1], t1 = c->step_end[PLAN_STEPS];
    res->step_s = t1 - t0;
    if (w->trace) {
        stream_busy(w->trace, t0, t1, &res->compute_s, &res->comm_s, &res->host_s);
        count_allreduce(w->trace, t0, t1, res->allreduce_by);
    }
    if (res->host_s > res->step_s - res->compute_s)
        res->host_s = res->step_s - res->compute_s;
    if (res->host_s < 0)
        res->host_s = 0;
    res->exposed_s = res->step_s - res->compute_s - res->host_s;
    if (res->exposed_s < 0)
        res->exposed_s = 0;
    res->tokens_per_step = (double)o->nranks * o->micro_batch * o->accum *
                           (o->model.kind == SIM_MODEL_GPT ? o->seq : 1);
    step_flops(o, (double)res->params, res->tokens_per_step, &res->flops_per_step,
               &res->hw_flops_per_step);
    const SimDeviceProfile *d = w->cost.device.peak_fp32_flops > 0 ? &w->cost.device
                                                                   : sim_device_default();
    double peak = strcmp(o->amp, "fp32") == 0 ? d->peak_fp32_flops : d->peak_lowp_flops;
    if (res->step_s > 0 && peak > 0) {
        res->mfu = res->flops_per_step / (res->step_s * peak * o->nranks);
        res->hfu = res->hw_flops_per_step / (res->step_s * peak * o->nranks);
    }
}

static int run_world(const PlanOptions *o, PlanCtx *c, PlanResult *res) {
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = o->nranks;
    wc.nodes = o->nodes;
    wc.profile = o->sys;
    wc.device = o->device;
    wc.phantom = 1;
    wc.represent = !is_dp(o);
    // --algo prices ddp's, fsdp's and ZeRO's collectives; DataParallel's
    // broadcasts and reduces keep the simulated ranks' own (direct)
    wc.algo = is_dp(o) ? SIM_ALGO_AUTO : o->algo;
    wc.trace = 1;
    wc.trace_max_per_rank = PLAN_TRACE_CAP;
    wc.watchdog_s = 600;
    const SimBackendOps *ops = cli_backend_find(is_dp(o) ? "cpu" : "sym");
    if (ops == NULL)
        return fail(res, CLI_EXIT_INTERNAL, "%s", "the planning backend is not built in");
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, ops);
    if (st == SIM_OK)
        st = sim_world_run(&w, rank_main, c);
    int code = 0;
    if (st != SIM_OK) {
        const char *why = c->t->error[0] ? c->t->error : sim_world_error(&w);
        code = c->t->bad_input ? CLI_EXIT_USAGE : CLI_EXIT_INTERNAL;
        snprintf(res->error, sizeof res->error, "%s", why);
    } else if (c->nsteps < PLAN_STEPS) {
        code = fail(res, CLI_EXIT_INTERNAL, "%s", "the planned steps did not complete");
    } else {
        summarise(o, c, &w, res);
        if (o->trace && sim_trace_write_chrome(w.trace, o->trace, 0) != SIM_OK)
            code = fail(res, CLI_EXIT_INTERNAL, "--trace: cannot write %s", o->trace);
    }
    sim_world_free(&w);
    return code;
}

int plan_run(const PlanOptions *o, PlanResult *res) {
    memset(res, 0, sizeof *res);
    res->nranks = o->nranks;
    res->nodes = o->nodes;
    double w0 = sim_wall_now();
    // one micro-batch of random tokens, of the planned shape (the sampler
    // goes round it again for every micro-step)
    char spec[160], err[512];
    int n = o->micro_batch * (is_dp(o) ? o->nranks : 1);
    int vocab = o->model.kind == SIM_MODEL_GPT ? o->model.vocab : 2;
    snprintf(spec, sizeof spec, "tokens:n=%d,seq=%d,vocab=%d", n, o->seq, vocab);
    SimSynthSpec sp;
    SimDataset ds;
    memset(&ds, 0, sizeof ds);
    if (sim_dataset_synth_parse(spec, &sp, err, sizeof err) != SIM_OK ||
        sim_dataset_synth(&ds, &sp, err, sizeof err) != SIM_OK)
        return fail(res, CLI_EXIT_INTERNAL, "planning data: %s", err);
    SimTrainConfig tc;
    sim_train_config_default(&tc);
    tc.model = o->model;
    if (sim_model_ckpt_parse(o->ckpt, &tc.model.ckpt) != 0) {
        sim_dataset_free(&ds);
        return fail(res, CLI_EXIT_USAGE, "--ckpt: '%s' is not none, selective or full", o->ckpt);
    }
    tc.data.set = &ds;
    tc.data.batch = o->micro_batch;
    tc.loop.accum = o->accum;
    tc.loop.accum_sync_every = o->accum_sync_every;
    tc.loop.steps = PLAN_STEPS;
    tc.data.shuffle = 0;
    tc.data.sampler_replicas = 1;
    tc.hooks.on_step = on_step;
    SimFsdpOptions fsdp;
    SimDdpOptions ddp;
    SimDpOptions dp;
    sim_dp_options_default(&dp);
    int code = configure(o, &tc, &fsdp, &ddp, &dp, res);
    int ntrainers = is_dp(o) ? o->nranks : 1;
    SimTrainer *trainers = calloc((size_t)ntrainers, sizeof *trainers);
    if (trainers == NULL) {
        sim_dataset_free(&ds);
        return fail(res, CLI_EXIT_INTERNAL, "%s", "out of memory");
    }
    PlanCtx c;
    memset(&c, 0, sizeof c);
    c.t = trainers;
    for (int i = 0; i < ntrainers; i++)
        trainers[i].cfg = &tc;
    tc.hooks.on_step_arg = &c;
    if (code == 0)
        code = run_world(o, &c, res);
    free(trainers);
    sim_dataset_free(&ds);
    res->wall_s = sim_wall_now() - w0;
    res->ok = code == 0;
    return code;
}
