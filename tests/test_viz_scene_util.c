// tests/test_viz_scene_util.c: see test_viz_scene_util.h.
#include "test_viz_scene_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "cpu_backend.h"
#include "engine/comm.h"
#include "strategy/ddp.h"
#include "strategy/fsdp.h"
#include "test_ddp_util.h"
#include "test_world.h"
#include "train/train.h"

int tvs_trace_by_hand(VizTrace *t, const SimEvent *ev, size_t n, int nranks) {
    memset(t, 0, sizeof *t);
    t->info.nodes = 1;
    t->nranks = nranks;
    snprintf(t->source, sizeof t->source, "test");
    t->ev = malloc((n + 1) * sizeof *t->ev);
    if (t->ev == NULL)
        return 1;
    memcpy(t->ev, ev, n * sizeof *ev);
    t->n = t->cap = n;
    return 0;
}

void tvs_trace_by_hand_free(VizTrace *t) {
    free(t->ev);
    memset(t, 0, sizeof *t);
}

// ----------------------------------------------------------------------------
// ring all_reduce

typedef struct {
    int colls;
    size_t count;
    SimAlgo algo;
} RingArg;

static SimStatus ring_rank(SimRank *r, void *arg) {
    const RingArg *a = arg;
    float *buf = malloc(a->count * sizeof *buf);
    if (buf == NULL)
        return SIM_ENOMEM;
    SimStatus st = SIM_OK;
    for (int k = 0; k < a->colls && st == SIM_OK; k++) {
        for (size_t i = 0; i < a->count; i++)
            buf[i] = (float)(r->rank + 1);
        st = sim_all_reduce(r, buf, buf, a->count, SIM_FP32, SIM_SUM, a->algo);
    }
    free(buf);
    return st;
}

static int take_trace(TvsRun *run) {
    if (sim_trace_dropped(run->w.trace) != 0) {
        fprintf(stderr, "the trace dropped %zu events\n", sim_trace_dropped(run->w.trace));
        return 1;
    }
    if (viz_trace_from_sim(run->w.trace, &run->t, "test") != SIM_OK) {
        fprintf(stderr, "viz_trace_from_sim failed\n");
        return 1;
    }
    return 0;
}

int tvs_ring(TvsRun *run, int R, int colls, size_t count) {
    return tvs_all_reduce(run, R, colls, count, SIM_ALGO_RING);
}

int tvs_all_reduce(TvsRun *run, int R, int colls, size_t count, SimAlgo algo) {
    memset(run, 0, sizeof *run);
    run->R = R;
    RingArg a = {colls, count, algo};
    SimStatus st = tworld_init_cpu(&run->w, R, 1, 30);
    if (st == SIM_OK)
        st = sim_world_run(&run->w, ring_rank, &a);
    if (st != SIM_OK) {
        fprintf(stderr, "ring on %d ranks: %s\n", R, sim_world_error(&run->w));
        return 1;
    }
    return take_trace(run);
}

// ----------------------------------------------------------------------------
// training

typedef struct {
    TvsRun *run;
    SimTrainer tr[TVS_MAX_RANKS];
} TrainCtx;

static SimStatus train_rank(SimRank *r, void *arg) {
    TrainCtx *c = arg;
    SimTrainer *tr = &c->tr[r->rank];
    SimStatus st = sim_train_run(r, c->tr);
    // what the ledger and the trace hold before anything is freed
    c->run->at_end[r->rank] = r->mem;
    c->run->nprefix[r->rank] = sim_trace_rank_count(r->world->trace, r->rank);
    sim_train_free(tr, r);
    return st;
}

typedef struct {
    const SimEvent *e;
    size_t pos;
} Keyed;

static int keyed_cmp(const void *a, const void *b) {
    const Keyed *x = a, *y = b;
    if (x->e->sim_start != y->e->sim_start)
        return x->e->sim_start < y->e->sim_start ? -1 : 1;
    if (x->e->rank != y->e->rank)
        return x->e->rank < y->e->rank ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

// Each rank's first nprefix[r] events, merged into time order by hand.
static int build_prefix(TvsRun *run) {
    size_t total = 0;
    for (int r = 0; r < run->R; r++)
        total += run->nprefix[r];
    Keyed *k = malloc((total + 1) * sizeof *k);
    SimEvent *ev = malloc((total + 1) * sizeof *ev);
    if (k == NULL || ev == NULL) {
        free(k), free(ev);
        return 1;
    }
    size_t n = 0;
    for (int r = 0; r < run->R; r++) {
        const SimEvent *re = sim_trace_rank_events(run->w.trace, r);
        for (size_t i = 0; i < run->nprefix[r]; i++)
            k[n++] = (Keyed){&re[i], i};
    }
    qsort(k, n, sizeof *k, keyed_cmp);
    for (size_t i = 0; i < n; i++)
        ev[i] = *k[i].e;
    int rc = tvs_trace_by_hand(&run->prefix, ev, n, run->R);
    free(k);
    free(ev);
    return rc;
}

int tvs_train(TvsRun *run, int R, int fsdp, int steps) {
    return tvs_train_on(run, R, fsdp, steps, NULL);
}

int tvs_train_on(TvsRun *run, int R, int fsdp, int steps, const char *device) {
    memset(run, 0, sizeof *run);
    run->R = R;
    SimDataset ds;
    SimModelSpec spec;
    if (tddp_data_mlp(&ds, 256, "mlp:16,32,32,4", &spec) != SIM_OK) {
        fprintf(stderr, "dataset\n");
        return 1;
    }
    TddpRun *cfg = calloc(1, sizeof *cfg);
    TrainCtx *c = calloc(1, sizeof *c);
    SimDdpOptions ddp;
    SimFsdpOptions fo;
    int rc = 1;
    if (cfg == NULL || c == NULL)
        goto out;
    tddp_config(cfg, &ds, &spec, R, 4, steps);
    sim_ddp_options_default(&ddp);
    ddp.buckets.bucket_cap_mb = 0.001; // ~1 KiB: several buckets
    ddp.buckets.first_bucket_is_cap = 1;
    sim_fsdp_options_default(&fo);
    fo.sharding = SIM_FSDP_FULL_SHARD;
    if (fsdp) {
        cfg->cfg.strategy = &sim_fsdp_strategy;
        cfg->cfg.strategy_cfg = &fo;
    } else {
        cfg->cfg.strategy = &sim_ddp_strategy;
        cfg->cfg.strategy_cfg = &ddp;
    }
    c->run = run;
    for (int r = 0; r < R; r++)
        c->tr[r].cfg = &cfg->cfg;
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = R;
    wc.trace = 1;
    wc.watchdog_s = 30;
    wc.algo = fsdp ? SIM_ALGO_AUTO : SIM_ALGO_RING; // ddp's buckets: the ring's chunks
    if (device) {
        const SimDeviceProfile *d = sim_device_find(device);
        if (d == NULL) {
            fprintf(stderr, "no device %s\n", device);
            goto out;
        }
        wc.device = *d;
    }
    SimStatus st = sim_world_init(&run->w, &wc, &cpu_backend_ops);
    if (st == SIM_OK)
        st = sim_world_run(&run->w, train_rank, c);
    if (st != SIM_OK) {
        fprintf(stderr, "%s on %d ranks: %s\n", fsdp ? "fsdp" : "ddp", R,
                sim_world_error(&run->w));
        goto out;
    }
    for (int r = 0; r < R; r++)
        run->final_mem[r] = run->w.ranks[r].mem;
    rc = take_trace(run) || build_prefix(run);
out:
    free(cfg);
    free(c);
    sim_dataset_free(&ds);
    return rc;
}

void tvs_free(TvsRun *run) {
    viz_trace_free(&run->t);
    tvs_trace_by_hand_free(&run->prefix);
    sim_world_free(&run->w);
}

// ----------------------------------------------------------------------------
// digests

typedef struct {
    uint64_t h;
} Fnv;

static void fnv(Fnv *f, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        f->h ^= b[i];
        f->h *= 1099511628211ull;
    }
}

static void fnv_str(Fnv *f, const char *s) {
    if (s == NULL)
        fnv(f, "\xff", 1);
    else
        fnv(f, s, strlen(s) + 1);
}

#define H(f, x) fnv((f), &(x), sizeof(x))

static uint64_t part_header(const VizScene *s) {
    Fnv f = {1469598103934665603ull};
    H(&f, s->index), H(&f, s->count), H(&f, s->iteration), H(&f, s->iterations);
    H(&f, s->now), H(&f, s->nranks), H(&f, s->loss);
    fnv_str(&f, s->caption);
    return f.h;
}

static uint64_t part_ranks(const VizScene *s) {
    Fnv f = {1469598103934665603ull};
    for (int r = 0; r < s->nranks; r++) {
        const VizRankBox *b = &s->ranks[r];
        H(&f, b->phase), H(&f, b->mem), H(&f, b->mem_total), H(&f, b->mem_peak);
        H(&f, b->host_total), H(&f, b->clock);
        fnv_str(&f, b->op), fnv_str(&f, b->coll);
    }
    return f.h;
}

static uint64_t part_buckets(const VizScene *s) {
    Fnv f = {1469598103934665603ull};
    H(&f, s->nparams), H(&f, s->nbuckets), H(&f, s->bucket_rank);
    H(&f, s->plan_kind), H(&f, s->plan_order), H(&f, s->plan_iteration);
    for (int k = 0; k < s->nparams; k++) {
        fnv_str(&f, s->params[k].name);
        H(&f, s->params[k].bucket), H(&f, s->params[k].bytes), H(&f, s->params[k].ready);
    }
    for (int k = 0; k < s->nbuckets; k++) {
        const VizBucket *b = &s->buckets[k];
        H(&f, b->state), H(&f, b->first), H(&f, b->nparams), H(&f, b->bytes);
        H(&f, b->nready), H(&f, b->progress), H(&f, b->ndiffer), H(&f, b->other_lo);
        H(&f, b->other_hi), H(&f, b->other_n), H(&f, b->other_state), H(&f, b->other_ready);
        H(&f, b->behind);
    }
    return f.h;
}

static uint64_t part_coll(const VizScene *s) {
    Fnv f = {1469598103934665603ull};
    const VizColl *c = &s->coll;
    H(&f, c->active), H(&f, c->running), H(&f, c->coll), H(&f, c->algo), H(&f, c->topo);
    H(&f, c->root), H(&f, c->bytes), H(&f, c->seq), H(&f, c->step), H(&f, c->nsteps);
    H(&f, c->step_t0), H(&f, c->step_t1), H(&f, c->nxfer), H(&f, c->nchunks);
    H(&f, c->bucket), H(&f, c->unit), H(&f, c->progress), H(&f, c->t0), H(&f, c->t1);
    fnv_str(&f, c->name), fnv_str(&f, c->step_label);
    for (int k = 0; k < c->nxfer; k++)
        H(&f, c->xfer[k]);
    size_t cells = (size_t)s->nranks * (size_t)c->nchunks;
    if (cells) {
        fnv(&f, c->held, cells * sizeof *c->held);
        fnv(&f, c->nheld, cells * sizeof *c->nheld);
    }
    return f.h;
}

static uint64_t part_shards(const VizScene *s) {
    Fnv f = {1469598103934665603ull};
    const VizShards *sh = &s->shards;
    H(&f, sh->nunits), H(&f, sh->group), H(&f, sh->current);
    for (int u = 0; u < sh->nunits; u++) {
        fnv_str(&f, sh->units[u].name);
        H(&f, sh->units[u].bytes), H(&f, sh->units[u].numel);
    }
    if (sh->nunits)
        fnv(&f, sh->state, (size_t)sh->nunits * (size_t)s->nranks);
    H(&f, s->hub.active);
    fnv_str(&f, s->hub.step);
    return f.h;
}

static uint64_t part_timeline(const VizScene *s) {
    Fnv f = {1469598103934665603ull};
    const VizTimeline *t = &s->timeline;
    H(&f, t->nranks), H(&f, t->ncols), H(&f, t->t0), H(&f, t->t1), H(&f, t->cursor_col);
    H(&f, t->exposed_s);
    fnv(&f, t->ranks, (size_t)t->nranks * sizeof t->ranks[0]);
    size_t cells = (size_t)t->nranks * (size_t)t->ncols;
    if (cells) {
        fnv(&f, t->compute, cells);
        fnv(&f, t->comm, cells);
    }
    return f.h;
}

typedef uint64_t (*PartFn)(const VizScene *);
static const PartFn parts[] = {part_header, part_ranks, part_buckets,
                               part_coll,   part_shards, part_timeline};
static const char *const part_names[] = {"header", "ranks", "buckets",
                                         "coll",   "shards", "timeline"};

uint64_t tvs_scene_hash(const VizScene *s) {
    uint64_t h = 0;
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        h = h * 31 + parts[k](s);
    return h;
}

int tvs_scene_diff(const VizScene *a, const VizScene *b) {
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        if (parts[k](a) != parts[k](b)) {
            fprintf(stderr, "scenes at %zu / %zu differ in their %s\n  %s\n  %s\n", a->index,
                    b->index, part_names[k], a->caption, b->caption);
            return 1;
        }
    return 0;
}
