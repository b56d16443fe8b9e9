// cli/run/run_memory_need.c: what another configuration of this run would hold,
// measured rather than estimated: the run's own model, data and optimizer
// under one of the closed forms' plans (sim/cost/memory_formula.h), on some
// number of ranks, with some micro-batch, for two optimizer steps in phantom
// mode (shapes only, no storage) on the sym backend, where rank 0 stands for
// every rank. Rank 0's ledger peak is then what each rank needs, to the byte,
// as `ddplab run --device-memory` would find it. The out-of-memory advice
// (run_memory.c) names only configurations these measurements say fit.
//
// Two steps, as `ddplab plan` takes: the first carries one-time work (DDP's
// bucket rebuild), and the second holds what every later step holds.
// DataParallel is not symmetric (device 0 gathers, reduces and steps): its
// ranks all run, on the cpu backend in phantom mode, as `plan` runs it, and
// device 0's peak is the need.
#include "run/run.h"

#include <stdlib.h>
#include <string.h>

#include "core/backends.h" // defines: cli_backend_find
#include "strategy/ddp.h"  // defines: sim_ddp_strategy
#include "strategy/dp.h"   // defines: sim_dp_strategy
#include "strategy/fsdp.h" // defines: sim_fsdp_strategy

#define NEED_STEPS 2

typedef struct {
    SimTrainer *t; // [ntrainers]: rank 0's alone (it stands for all), or every rank's
    int ntrainers;
    double device, host;
} NeedRun;

static SimStatus need_rank(SimRank *r, void *arg) {
    NeedRun *n = arg;
    SimTrainer *t = &n->t[n->ntrainers > 1 ? r->rank : 0];
    SimStatus st = sim_train_run(r, n->t); // it takes rank r's trainer from the array
    if (r->rank == 0) {
        n->device = (double)r->mem.peak[SIM_MEM_DEVICE];
        n->host = (double)r->mem.peak[SIM_MEM_HOST];
    }
    sim_train_free(t, r);
    return st;
}

// The plan's strategy into tc, its options in *ddp or *fsdp (from the run's
// own, so that its buckets, wrapping and dtypes stay as given).
static void set_plan(const RunOptions *o, SimMemfPlan plan, SimTrainConfig *tc,
                     SimDdpOptions *ddp, SimFsdpOptions *fsdp) {
    *ddp = o->ddp;
    *fsdp = o->fsdp;
    if (plan == SIM_MEMF_PLAN_DDP || plan == SIM_MEMF_PLAN_DDP_VIEW) {
        ddp->gradient_as_bucket_view = plan == SIM_MEMF_PLAN_DDP_VIEW;
        tc->strategy = &sim_ddp_strategy;
        tc->strategy_cfg = ddp;
        return;
    }
    fsdp->sharding = plan == SIM_MEMF_PLAN_ZERO1   ? SIM_FSDP_ZERO1
                     : plan == SIM_MEMF_PLAN_ZERO2 ? SIM_FSDP_SHARD_GRAD_OP
                                                   : SIM_FSDP_FULL_SHARD;
    fsdp->cpu_offload = plan == SIM_MEMF_PLAN_OFFLOAD;
    tc->strategy = &sim_fsdp_strategy;
    tc->strategy_cfg = fsdp;
}

// The run's model, data and optimizer at this batch and accumulation.
static void base_config(const SimTrainConfig *c, int batch, int accum, SimTrainConfig *tc) {
    sim_train_config_default(tc);
    tc->model = c->model;
    tc->data = c->data;
    tc->data.batch = batch;
    tc->loop.accum = accum;
    tc->opt = c->opt;
    tc->seed = c->seed;
    tc->loop.steps = NEED_STEPS;
    tc->data.shuffle = 0;
    tc->data.sampler_replicas = 1; // rank 0 reads the set alone: it is long enough
}

// Two phantom steps of tc on nranks ranks: every rank on the cpu backend
// (all = 1), or rank 0 alone on the sym backend. Rank 0's peaks; returns 1,
// or 0 when they could not be measured.
static int measure(const RunOptions *o, SimTrainConfig *tc, int nranks, int all,
                   double *device, double *host) {
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = nranks;
    // the run's node size, kept for more ranks
    int per_node = o->nodes > 0 ? o->nranks / o->nodes : nranks;
    wc.nodes = per_node > 0 && nranks % per_node == 0 ? nranks / per_node : 1;
    wc.profile = o->sys;
    wc.phantom = 1;
    wc.represent = !all;
    wc.algo = o->algo; // the run's collectives: their buffers are part of the need
    wc.trace = 0;
    wc.watchdog_s = 600;
    const SimBackendOps *ops = cli_backend_find(all ? "cpu" : "sym");
    NeedRun *n = calloc(1, sizeof *n);
    SimTrainer *t = calloc(all ? (size_t)nranks : 1, sizeof *t); // trainers are large
    if (ops == NULL || n == NULL || t == NULL) {
        free(n);
        free(t);
        return 0;
    }
    n->t = t;
    n->ntrainers = all ? nranks : 1;
    for (int i = 0; i < n->ntrainers; i++)
        t[i].cfg = tc;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, ops);
    if (st == SIM_OK)
        st = sim_world_run(&w, need_rank, n);
    sim_world_free(&w);
    *device = n->device;
    *host = n->host;
    free(t);
    free(n);
    return st == SIM_OK && *device > 0;
}

int run_memory_need(const RunOptions *o, const SimTrainConfig *c, SimMemfPlan plan, int nranks,
                    int batch, int accum, double *device, double *host) {
    SimTrainConfig tc;
    base_config(c, batch, accum, &tc);
    SimDdpOptions ddp;
    SimFsdpOptions fsdp;
    set_plan(o, plan, &tc, &ddp, &fsdp);
    return measure(o, &tc, nranks, 0, device, host);
}

int run_memory_need_dp(const RunOptions *o, const SimTrainConfig *c, int batch, int accum,
                       double *device) {
    SimTrainConfig tc;
    base_config(c, batch, accum, &tc);
    SimDpOptions dp = o->dp;
    tc.strategy = &sim_dp_strategy;
    tc.strategy_cfg = &dp;
    double host = 0;
    return measure(o, &tc, o->nranks, 1, device, &host);
}
