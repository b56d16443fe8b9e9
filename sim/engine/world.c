// sim/engine/world.c: creating a world of ranks on a backend and running code on
// every rank.
#include "engine/world.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm_price.h" // defines: sim_price_free

#define SIM_MAX_RANKS 65536

// The ranks of a large world (SimRank is about 2.7 KB: 45 MB at 16384
// ranks) that was freed, kept for the next one. A plan's search for a
// configuration that fits builds a dozen such worlds in a row, and each
// fresh calloc'd array has the kernel fault in and clear every page again,
// which cost more than the planning itself; reused, the array is cleared
// with one memset. One array is kept, swapped in and out atomically, so
// worlds made and freed on several threads stay safe.
#define SPARE_MIN_RANKS 4096

typedef struct {
    SimRank *ranks;
    size_t cap; // SimRanks it holds
} SpareRanks;

static _Atomic(SpareRanks *) spare_ranks;

static void spare_drop(SpareRanks *s) {
    if (s) {
        free(s->ranks);
        free(s);
    }
}

// n zeroed SimRanks: the spare array when it is large enough, else calloc.
static SimRank *ranks_alloc(size_t n) {
    SpareRanks *s = n >= SPARE_MIN_RANKS ? atomic_exchange(&spare_ranks, NULL) : NULL;
    if (s && s->cap >= n) {
        SimRank *r = s->ranks;
        free(s);
        memset(r, 0, n * sizeof *r);
        return r;
    }
    spare_drop(s);
    return calloc(n, sizeof(SimRank));
}

// Keeps a large world's array as the spare (dropping the one kept before).
static void ranks_release(SimRank *ranks, size_t n) {
    SpareRanks *s = n >= SPARE_MIN_RANKS ? malloc(sizeof *s) : NULL;
    if (s == NULL) {
        free(ranks);
        return;
    }
    s->ranks = ranks;
    s->cap = n;
    spare_drop(atomic_exchange(&spare_ranks, s));
}

void sim_world_config_default(SimWorldConfig *c) {
    memset(c, 0, sizeof *c);
    c->nranks = 4;
    c->nodes = 1;
    c->watchdog_s = 5.0;
    const SimSysProfile *p = sim_sys_find("dgx-h100");
    if (p == NULL && sim_sys_count() > 0)
        p = sim_sys_at(0);
    if (p != NULL)
        c->profile = *p;
    c->trace = 1;
    c->trace_max_per_rank = 1000000;
    c->algo = SIM_ALGO_AUTO;
}

static SimStatus world_fail(SimWorld *w, SimStatus st, const char *msg) {
    snprintf(w->error, sizeof w->error, "%s", msg);
    return st;
}

static SimStatus world_check_config(SimWorld *w, const SimWorldConfig *cfg) {
    char msg[256];
    if (cfg->nranks < 1 || cfg->nranks > SIM_MAX_RANKS) {
        snprintf(msg, sizeof msg, "ranks: %d is out of range; allowed: 1..%d", cfg->nranks,
                 SIM_MAX_RANKS);
        return world_fail(w, SIM_EINVAL, msg);
    }
    if (cfg->nodes < 1 || cfg->nranks % cfg->nodes != 0) {
        snprintf(msg, sizeof msg, "nodes: %d does not divide %d ranks into equal nodes",
                 cfg->nodes, cfg->nranks);
        return world_fail(w, SIM_EINVAL, msg);
    }
    if (!(cfg->watchdog_s > 0) || !isfinite(cfg->watchdog_s)) {
        snprintf(msg, sizeof msg, "watchdog: %g seconds; allowed: a positive number",
                 cfg->watchdog_s);
        return world_fail(w, SIM_EINVAL, msg);
    }
    if (cfg->represent && !cfg->phantom)
        return world_fail(w, SIM_EINVAL, "represent: rank 0 can stand for the other ranks only "
                          "in a phantom world (phantom = 1), where no rank's data is needed");
    if ((unsigned)cfg->algo >= SIM_ALGO_COUNT)
        return world_fail(w, SIM_EINVAL, "algo: not a collective algorithm (SimAlgo)");
    return SIM_OK;
}

SimStatus sim_world_init(SimWorld *w, const SimWorldConfig *cfg, const SimBackendOps *ops) {
    memset(w, 0, sizeof *w);
    SIM_CHECK(world_check_config(w, cfg));
    if (ops == NULL || ops->version != SIM_BACKEND_VERSION)
        return world_fail(w, SIM_EINVAL, "backend table missing or of another version");
    w->cfg = *cfg;
    w->ops = ops;
    w->ranks_per_node = cfg->nranks / cfg->nodes;
    w->wall_epoch = sim_wall_now();
    sim_cost_init(&w->cost, &cfg->profile, cfg->nranks, w->ranks_per_node);
    w->cost.device = cfg->device; // all zero: the default device

    w->ranks = ranks_alloc((size_t)cfg->nranks);
    if (w->ranks == NULL)
        return world_fail(w, SIM_ENOMEM, "out of memory for the ranks");
    for (int r = 0; r < cfg->nranks; r++) {
        w->ranks[r].world = w;
        w->ranks[r].rank = r;
        sim_mem_ledger_init(&w->ranks[r].mem, cfg->device_memory);
    }
    if (cfg->trace) {
        w->trace = sim_trace_new(cfg->nranks, cfg->trace_max_per_rank);
        if (w->trace == NULL)
            return world_fail(w, SIM_ENOMEM, "out of memory for the trace");
    }
    SimBackendConfig bc = {cfg->nranks, cfg->nodes, w->ranks_per_node, cfg->watchdog_s,
                           cfg->phantom, cfg->represent, cfg->backend_opt, cfg->algo};
    char err[1024] = "";
    SimStatus st = ops->init(&bc, &w->ctx, err, sizeof err);
    if (st != SIM_OK) {
        w->ctx = NULL;
        snprintf(w->error, sizeof w->error, "backend %s: %s", ops->name,
                 err[0] ? err : sim_strerror(st));
    }
    return st;
}

typedef struct {
    SimWorld *w;
    SimRankMain fn;
    void *arg;
    SimStatus *status; // [nranks] what each rank returned (NULL: not kept)
} WorldRun;

static SimStatus world_rank_entry(int rank, void *arg) {
    WorldRun *run = arg;
    SimRank *r = &run->w->ranks[rank];
    r->error[0] = '\0';
    SimStatus st = run->fn(r, run->arg);
    if (run->status)
        run->status[rank] = st;
    return st;
}

// A run that failed with the backend's diagnosis leaves it in the trace, on
// the rank that made it (sim_world_trace_diagnosis).
static void world_trace_diagnosis(SimWorld *w, SimStatus st, const SimStatus *status) {
    if (st != SIM_ETIMEDOUT && st != SIM_EPROTO && st != SIM_ECRASHED)
        return;
    static const SimStatus order[] = {SIM_ETIMEDOUT, SIM_EPROTO, SIM_ECRASHED};
    int rank = -1;
    for (size_t k = 0; k < sizeof order / sizeof order[0] && rank < 0 && status; k++)
        for (int r = 0; r < w->cfg.nranks && rank < 0; r++)
            if (status[r] == order[k])
                rank = r;
    sim_world_trace_diagnosis(w, rank < 0 ? 0 : rank, sim_world_diagnosis(w));
}

// The most useful explanation of a failed run: the backend's diagnosis
// (watchdog, protocol) first, else the first rank that recorded a reason.
static void world_collect_error(SimWorld *w, SimStatus st) {
    const char *diag = w->ops->last_error ? w->ops->last_error(w->ctx) : NULL;
    if (diag && diag[0]) {
        snprintf(w->error, sizeof w->error, "%s", diag);
        return;
    }
    for (int r = 0; r < w->cfg.nranks; r++) {
        if (w->ranks[r].error[0]) {
            snprintf(w->error, sizeof w->error, "rank %d: %s", r, w->ranks[r].error);
            return;
        }
    }
    snprintf(w->error, sizeof w->error, "%s", sim_strerror(st));
}

SimStatus sim_world_run(SimWorld *w, SimRankMain fn, void *arg) {
    if (w->ctx == NULL)
        return world_fail(w, SIM_EINVAL, "world is not initialised");
    WorldRun run = {w, fn, arg, calloc((size_t)w->cfg.nranks, sizeof(SimStatus))};
    w->error[0] = '\0';
    SimStatus st = w->ops->run_ranks(w->ctx, world_rank_entry, &run);
    if (st != SIM_OK) {
        world_collect_error(w, st);
        world_trace_diagnosis(w, st, run.status);
    }
    free(run.status);
    return st;
}

void sim_world_free(SimWorld *w) {
    if (w == NULL)
        return;
    if (w->ops && w->ctx)
        w->ops->finalize(w->ctx);
    w->ctx = NULL;
    if (w->ranks) {
        for (int r = 0; r < w->cfg.nranks; r++) {
            free(w->ranks[r].p2p_seq);
            sim_price_free(&w->ranks[r]);
        }
        ranks_release(w->ranks, (size_t)w->cfg.nranks);
    }
    w->ranks = NULL;
    sim_trace_free(w->trace);
    w->trace = NULL;
}

const char *sim_world_error(const SimWorld *w) {
    return w->error;
}

double sim_rank_wall(const SimRank *r) {
    return sim_wall_now() - r->world->wall_epoch;
}

void sim_rank_event(SimEvent *ev, const SimRank *r, SimEventKind kind, SimStream stream,
                    const char *name, const char *label, double at) {
    memset(ev, 0, sizeof *ev);
    ev->rank = r->rank;
    ev->kind = (int16_t)kind;
    ev->stream = (int16_t)stream;
    ev->name = name;
    ev->label = label;
    ev->step = ev->nsteps = ev->chunk = ev->src = ev->dst = -1;
    ev->sim_start = ev->sim_end = at;
    ev->wall_start = ev->wall_end = sim_rank_wall(r);
}

void sim_world_cancel(SimWorld *w, const char *why) {
    if (w->ops && w->ops->cancel && w->ctx)
        w->ops->cancel(w->ctx, why);
}

void sim_rank_begin_step(SimRank *r, int64_t step) {
    r->step = step;
    r->coll_in_step = 0;
    r->fault_held = NULL; // --fault reorder holds a launch within one step only
}

double sim_rank_now(const SimRank *r) {
    double c = r->clock[SIM_STREAM_COMPUTE], m = r->clock[SIM_STREAM_COMM];
    return m > c ? m : c;
}

void sim_rank_trace(SimRank *r, const SimEvent *ev) {
    if (r->world && r->world->trace)
        (void)sim_trace_append(r->world->trace, ev);
}
