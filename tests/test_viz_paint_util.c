// tests/test_viz_paint_util.c: see test_viz_paint_util.h.
#include "test_viz_paint_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "strategy/ddp.h"
#include "strategy/dp.h"
#include "strategy/fsdp.h"
#include "test_ddp_util.h"
#include "train/train.h"

typedef struct {
    SimTrainer *tr; // [R]
} Ranks;

static SimStatus rank_main(SimRank *r, void *arg) {
    Ranks *x = arg;
    SimStatus st = sim_train_run(r, x->tr);
    if (st != SIM_OK && x->tr[r->rank].error[0])
        fprintf(stderr, "rank %d: %s\n", r->rank, x->tr[r->rank].error);
    sim_train_free(&x->tr[r->rank], r);
    return st;
}

// The strategy options every run may need, one of them used.
typedef struct {
    SimDdpOptions ddp;
    SimDpOptions dp;
    SimFsdpOptions fsdp;
} Opts;

static int choose(SimTrainConfig *cfg, Opts *o, const char *strategy) {
    sim_ddp_options_default(&o->ddp);
    o->ddp.buckets.bucket_cap_mb = 0.001; // ~1 KiB: several buckets
    o->ddp.buckets.first_bucket_is_cap = 1;
    sim_dp_options_default(&o->dp);
    sim_fsdp_options_default(&o->fsdp);
    if (strcmp(strategy, "ddp") == 0) {
        cfg->strategy = &sim_ddp_strategy;
        cfg->strategy_cfg = &o->ddp;
    } else if (strcmp(strategy, "dp") == 0) {
        cfg->strategy = &sim_dp_strategy;
        cfg->strategy_cfg = &o->dp;
    } else if (strcmp(strategy, "fsdp") == 0 || strcmp(strategy, "fsdp-offload") == 0 ||
               sim_fsdp_zero_stage(strategy, &o->fsdp.sharding) == 0) {
        o->fsdp.cpu_offload = strcmp(strategy, "fsdp-offload") == 0;
        cfg->strategy = &sim_fsdp_strategy;
        cfg->strategy_cfg = &o->fsdp;
    } else {
        fprintf(stderr, "no strategy %s\n", strategy);
        return -1;
    }
    return 0;
}

static void set_info(SimWorld *w, const char *strategy, const char *model, int R,
                     uint64_t capacity) {
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    snprintf(info.title, sizeof info.title, "%s  %s  R=%d (1 node x %d)", strategy, model, R, R);
    snprintf(info.strategy, sizeof info.strategy, "%s", strategy);
    info.device_capacity = capacity;
    info.nodes = 1;
    sim_trace_set_info(w->trace, &info);
}

static SimStatus run_world(VizTrace *t, const char *strategy, int R, const char *model,
                           SimTrainConfig *cfg, uint64_t capacity) {
    Ranks x = {calloc((size_t)R, sizeof(SimTrainer))};
    if (x.tr == NULL)
        return SIM_ENOMEM;
    for (int r = 0; r < R; r++)
        x.tr[r].cfg = cfg;
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = R;
    wc.trace = 1;
    wc.watchdog_s = 60;
    wc.algo = strcmp(strategy, "ddp") == 0 ? SIM_ALGO_RING : SIM_ALGO_AUTO;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, &cpu_backend_ops);
    if (st == SIM_OK) {
        set_info(&w, strategy, model, R, capacity);
        st = sim_world_run(&w, rank_main, &x);
    }
    if (st == SIM_OK)
        st = viz_trace_from_sim(w.trace, t, strategy);
    else
        fprintf(stderr, "%s on %d ranks: %s\n", strategy, R, sim_world_error(&w));
    sim_world_free(&w);
    free(x.tr);
    return st;
}

SimStatus tpaint_run(VizTrace *t, const char *strategy, int R, const char *model, int steps,
                     uint64_t capacity) {
    memset(t, 0, sizeof *t);
    if (R < 1 || R > TPAINT_MAX_RANKS)
        return SIM_EINVAL;
    SimDataset ds;
    SimModelSpec spec;
    memset(&ds, 0, sizeof ds);
    SimStatus st = tddp_data_mlp(&ds, 16 * R, model, &spec);
    if (st != SIM_OK) {
        fprintf(stderr, "%s data: %s\n", model, sim_strerror(st));
        return st;
    }
    TddpRun *cfg = calloc(1, sizeof *cfg);
    Opts *o = calloc(1, sizeof *o);
    if (cfg == NULL || o == NULL) {
        st = SIM_ENOMEM;
    } else {
        tddp_config(cfg, &ds, &spec, R, 4, steps);
        st = choose(&cfg->cfg, o, strategy) == 0 ? SIM_OK : SIM_EINVAL;
    }
    if (st == SIM_OK)
        st = run_world(t, strategy, R, model, &cfg->cfg, capacity);
    free(o);
    free(cfg);
    sim_dataset_free(&ds);
    return st;
}

// One SHARD event of unit u on rank r at time t.
static SimStatus shard_ev(VizTrace *t, int r, int R, int U, int u, const char *label,
                          double at, const char *name) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.kind = SIM_EV_SHARD;
    e.rank = r;
    e.stream = SIM_STREAM_COMPUTE;
    e.name = name ? name : "fsdp unit";
    e.label = label;
    e.sim_start = e.sim_end = at;
    e.wall_start = e.wall_end = at;
    e.bytes = 4096u * (uint64_t)R;
    e.count = 1024u * (uint64_t)R;
    e.step = u;
    e.nsteps = U;
    e.chunk = r;
    e.src = R;
    e.dst = r;
    e.seq = 0;
    return viz_trace_add(t, &e, NULL);
}

// Rank r's events: the plan, a forward over every unit, a backward from
// the last unit down to `stop`.
static SimStatus shard_rank(VizTrace *t, int r, int R, int U, int stop) {
    double at = 0, dt = 1e-3;
    SimStatus st = SIM_OK;
    for (int u = 0; u < U && st == SIM_OK; u++) {
        char nm[32];
        snprintf(nm, sizeof nm, "blocks.%d", u);
        st = shard_ev(t, r, R, U, u, "plan", at, nm);
    }
    for (int u = 0; u < U && st == SIM_OK; u++) {
        at += dt;
        st = shard_ev(t, r, R, U, u, "gather", at, NULL);
        if (st == SIM_OK)
            st = shard_ev(t, r, R, U, u, "gathered", at + dt / 3, NULL);
        if (st == SIM_OK)
            st = shard_ev(t, r, R, U, u, "free", at + 2 * dt / 3, NULL);
    }
    for (int u = U - 1; u >= stop && st == SIM_OK; u--) {
        at += dt;
        st = shard_ev(t, r, R, U, u, "gather", at, NULL);
        if (st == SIM_OK && u == stop && u > 0) // the prefetch of the next unit
            st = shard_ev(t, r, R, U, u - 1, "gather", at + dt / 6, NULL);
        if (st == SIM_OK)
            st = shard_ev(t, r, R, U, u, "gathered", at + dt / 3 + r * 1e-6, NULL);
        if (st == SIM_OK && u > stop) {
            st = shard_ev(t, r, R, U, u, "free", at + dt / 2, NULL);
            if (st == SIM_OK)
                st = shard_ev(t, r, R, U, u, "reduce", at + 0.6 * dt, NULL);
            if (st == SIM_OK && u > stop + 1)
                st = shard_ev(t, r, R, U, u, "reduced", at + 0.9 * dt, NULL);
        }
    }
    return st;
}

SimStatus tpaint_shard_trace(VizTrace *t, int R, int U, int stop) {
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    snprintf(info.title, sizeof info.title, "fsdp  by hand: %d units  R=%d", U, R);
    snprintf(info.strategy, sizeof info.strategy, "fsdp");
    info.nodes = 1;
    SimStatus st = viz_trace_init(t, R, &info, "hand");
    for (int r = 0; r < R && st == SIM_OK; r++)
        st = shard_rank(t, r, R, U, stop);
    return st;
}

static int matches(const SimEvent *e, int kind, const char *name, const char *label, int rank) {
    if (e->kind != kind || (rank >= 0 && e->rank != rank))
        return 0;
    if (name && (e->name == NULL || strcmp(e->name, name) != 0))
        return 0;
    return label == NULL || (e->label != NULL && strcmp(e->label, label) == 0);
}

size_t tpaint_find_last(const VizTrace *t, int kind, const char *name, const char *label,
                        int rank) {
    for (size_t i = t->n; i-- > 0;)
        if (matches(&t->ev[i], kind, name, label, rank))
            return i;
    return SIZE_MAX;
}

size_t tpaint_find_from(const VizTrace *t, size_t from, int kind, const char *name,
                        const char *label, int rank) {
    for (size_t i = from; i < t->n; i++)
        if (matches(&t->ev[i], kind, name, label, rank))
            return i;
    return SIZE_MAX;
}
