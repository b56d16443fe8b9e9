// backend_cpu/cpu_sym.c: the "sym" backend. Rank 0 of a phantom world runs
// on the calling thread and stands for every rank (SimWorldConfig.represent).
//
// Why that is enough: under a symmetric strategy (single, DDP, FSDP in every
// sharding including hybrid, ZeRO-1..3) every rank runs the same ops on the
// same shapes, so every rank reaches each collective at the simulated time
// rank 0 does, holds what rank 0 holds, and leaves when rank 0 leaves. A
// collective therefore completes at once: it starts at rank 0's arrival
// (start_sim = arrive_sim, the latest arrival when all arrive together) and
// ends when the cost model says (sim/engine/comm.c adds sim_cost_coll, as for any
// backend); a send or a receive likewise. The work per collective is the
// cost model's, nothing per rank, so 16384 ranks cost about what 8 do.
//
// What it cannot do, by construction: compute (phantom worlds only: it has
// no memory and no math), check that ranks agree (there is one caller: the
// CPU backend's protocol check and watchdog have nobody to compare or wait
// for), or run a strategy whose ranks differ (DataParallel's controller and
// replicas, layer-owner's owners, uneven inputs: those refuse represent
// mode in their set-up).
//
// Trace: every collective's own event (SIM_EV_COLL, written by sim/engine/comm.c)
// is always there. Its steps and transfers (SIM_EV_COLL_STEP, SIM_EV_XFER)
// are reported only up to CPU_SYM_STEP_RANKS ranks: a ring over R ranks has
// 2(R-1) steps per all_reduce, millions of events per training step at
// R = 16384, which no view needs.
#include <stdio.h>
#include <stdlib.h>

#include "cpu_sym.h"

typedef struct {
    int nranks;
} SymCtx;

static SimStatus sym_init(const SimBackendConfig *cfg, void **ctx, char *err, size_t errlen) {
    *ctx = NULL;
    if (!cfg->phantom || !cfg->represent) {
        snprintf(err, errlen, "it runs rank 0 alone for every rank of a phantom world, so it "
                 "needs phantom = 1 and represent = 1 (got phantom = %d, represent = %d); "
                 "for numeric runs use the cpu backend", cfg->phantom, cfg->represent);
        return SIM_EINVAL;
    }
    if (cfg->nranks < 1 || cfg->nodes < 1 || cfg->ranks_per_node < 1 ||
        (long long)cfg->nodes * cfg->ranks_per_node != cfg->nranks) {
        snprintf(err, errlen, "topology: %d nodes x %d ranks per node != %d ranks", cfg->nodes,
                 cfg->ranks_per_node, cfg->nranks);
        return SIM_EINVAL;
    }
    SymCtx *c = malloc(sizeof *c);
    if (c == NULL) {
        snprintf(err, errlen, "out of memory for the backend state");
        return SIM_ENOMEM;
    }
    c->nranks = cfg->nranks;
    *ctx = c;
    return SIM_OK;
}

static void sym_finalize(void *ctx) {
    free(ctx);
}

static const char *sym_last_error(void *ctx) {
    (void)ctx;
    return ""; // nothing is ever diagnosed: no rank waits for another
}

static SimStatus sym_run_ranks(void *ctx, SimRankEntry entry, void *arg) {
    (void)ctx;
    return entry(0, arg);
}

// A phantom world holds no storage: sim_tensor_alloc never asks for any.
static void *sym_alloc(void *ctx, int rank, size_t bytes) {
    (void)ctx, (void)rank, (void)bytes;
    return NULL;
}

static void sym_free(void *ctx, int rank, void *p) {
    (void)ctx, (void)rank, (void)p;
}

static SimStatus sym_copy(void *ctx, int rank, void *dst, const void *src, size_t bytes) {
    (void)ctx, (void)rank, (void)dst, (void)src, (void)bytes;
    return SIM_OK; // nothing to copy: the host side keeps what it had
}

static SimStatus sym_coll_launch(void *ctx, int rank, SimCollHandle *h) {
    const SymCtx *c = ctx;
    (void)rank;
    SimCollCall *call = &h->call;
    call->start_sim = call->arrive_sim; // every rank arrives when rank 0 does
    if (c->nranks <= CPU_SYM_STEP_RANKS) {
        double w = sim_wall_now();
        for (int t = 0; t < call->sched.nsteps; t++)
            sim_coll_report_step(call, t, w, w);
    }
    h->impl = NULL;
    h->done = 1;
    return SIM_OK;
}

static SimStatus sym_coll_wait(void *ctx, int rank, SimCollHandle *h) {
    (void)ctx, (void)rank, (void)h;
    return SIM_OK; // launched complete
}

const SimBackendOps cpu_sym_backend_ops = {
    .name = "sym",
    .version = SIM_BACKEND_VERSION,
    .description = "phantom worlds only: rank 0 alone stands for every rank of a symmetric "
                   "strategy; collectives complete at once at the cost model's time, "
                   "without the cpu backend's protocol check or watchdog",
    .init = sym_init,
    .finalize = sym_finalize,
    .last_error = sym_last_error,
    .run_ranks = sym_run_ranks,
    .alloc = sym_alloc,
    .free = sym_free,
    .copy_to_device = sym_copy,
    .copy_to_host = sym_copy,
    .coll_launch = sym_coll_launch,
    .coll_wait = sym_coll_wait,
    .synchronize = NULL,
    .math = NULL,
};
