// cli/run_memory_need.c: what another configuration of this run would hold,
// measured rather than estimated: the run's own model, data and optimizer
// under one of the closed forms' plans (sim/memory_formula.h), on some
// number of ranks, with some micro-batch, for two optimizer steps in phantom
// mode (shapes only, no storage) on the sym backend, where rank 0 stands for
// every rank. Rank 0's ledger peak is then what each rank needs, to the byte,
// as `ddplab run --device-memory` would find it. The out-of-memory advice
// (run_memory.c) names only configurations these measurements say fit.
//
// Two steps, as `ddplab plan` takes: the first carries one-time work (DDP's
// bucket rebuild), and the second holds what every later step holds.
#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h" // defines: cli_backend_find
#include "ddp.h"      // defines: sim_ddp_strategy
#include "fsdp.h"     // defines: sim_fsdp_strategy

#define NEED_STEPS 2

typedef struct {
    SimTrainer t; // rank 0's: the only rank that runs
    double device, host;
} NeedRun;

static SimStatus need_rank(SimRank *r, void *arg) {
    NeedRun *n = arg;
    SimStatus st = sim_train_run(r, &n->t);
    if (r->rank == 0) {
        n->device = (double)r->mem.peak[SIM_MEM_DEVICE];
        n->host = (double)r->mem.peak[SIM_MEM_HOST];
    }
    sim_train_free(&n->t, r);
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

int run_memory_need(const RunOptions *o, const SimTrainConfig *c, SimMemfPlan plan, int nranks,
                    int batch, int accum, double *device, double *host) {
    SimTrainConfig tc;
    sim_train_config_default(&tc);
    tc.model = c->model;
    tc.data = c->data;
    tc.batch = batch;
    tc.accum = accum;
    tc.opt = c->opt;
    tc.seed = c->seed;
    tc.steps = NEED_STEPS;
    tc.shuffle = 0;
    tc.sampler_replicas = 1; // rank 0 reads the set alone: it is long enough
    SimDdpOptions ddp;
    SimFsdpOptions fsdp;
    set_plan(o, plan, &tc, &ddp, &fsdp);

    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = nranks;
    // the run's node size, kept for more ranks
    int per_node = o->nodes > 0 ? o->nranks / o->nodes : nranks;
    wc.nodes = per_node > 0 && nranks % per_node == 0 ? nranks / per_node : 1;
    wc.profile = o->sys;
    wc.phantom = 1;
    wc.represent = 1;
    wc.trace = 0;
    wc.watchdog_s = 600;
    const SimBackendOps *ops = cli_backend_find("sym");
    if (ops == NULL)
        return 0;
    NeedRun *n = calloc(1, sizeof *n); // a trainer is large for a stack
    if (n == NULL)
        return 0;
    n->t.cfg = &tc;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, ops);
    if (st == SIM_OK)
        st = sim_world_run(&w, need_rank, n);
    sim_world_free(&w);
    *device = n->device;
    *host = n->host;
    free(n);
    return st == SIM_OK && *device > 0;
}
