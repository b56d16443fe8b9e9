// tests/test_fsdp_parity.c: --strategy fsdp and zero1 compute what DDP
// computes (numeric mode, tests/test_ddp_util.h; DDP is the reference,
// itself checked against single-process training by test_ddp_parity).
//
// Each case runs DDP and FSDP on the same configuration and compares the
// final parameters (FSDP's gathered with summon_full_params on every rank),
// for the MLP (plain, with BatchNorm, with a head unused on odd steps) and a
// 2-block MiniGPT, on R = 1, 2, 3, 4, 8 ranks and on 2 nodes x 2 and x 4
// (hybrid), with SGD + momentum and Adam, accumulation (no_sync and a
// reduction every micro-step), clipping with fp16 autocast and GradScaler,
// CPU offload, every wrap policy and every prefetch setting. Besides the
// parameters, every case checks, on every rank after every step:
//   - the padding of each of the rank's shards (master elements past the
//     unit's numel) is exactly zero;
//   - the sharded strategies (full_shard, shard_grad_op, hybrid_*) hold NaN
//     in the model's parameter buffer for every unit between steps (all are
//     freed after backward), so a forward that used a unit it had not
//     gathered would give NaN; replicated ones (no_shard, zero1) hold finite
//     parameters there;
//   - every rank's gathered parameters are bitwise identical.
//
// Tolerance (|a-b| / (1+|b|), the largest over the parameters):
//   TOL_FP32 1e-6. The two add the same fp32 numbers in different orders
//   and scale them differently, so they agree to a few ulps, not bit for
//   bit: DDP multiplies each gradient by 1/R and all_reduces its buckets;
//   FSDP pre-divides by `pre`, reduce-scatters each unit and post-divides
//   by `post` (pre * post = R, sim_fsdp_divide_factors; for R = 3, 1/1.5
//   is inexact). The direct algorithm's rank that owns a chunk adds the
//   others' pieces onto its own, and bucket chunks and unit shards have
//   different owners, so an element's R terms are summed in another order.
//   The sharded clipping norm adds squares per shard and then across
//   ranks; hybrid adds within the node, then across nodes. Measured: 0 for
//   the all_reduce paths (no_shard, zero1) on 1, 2, 4 and 8 ranks and for
//   everything on 1 and 2; otherwise 1e-8 to 6e-8, up to 3.8e-7 with Adam
//   on 2 x 4 hybrid ranks (Adam's m / sqrt(v) magnifies differences in the
//   smallest gradients). The worst of each group is printed. A real error
//   (a missing divide, a lost micro-step, a stale or never-gathered unit)
//   is a factor or NaN, far above 1e-6.
//   TOL_BF16 2e-2 for MixedPrecision(param_dtype = reduce_dtype = bf16):
//   the forward and backward compute from parameters rounded to 8 bits of
//   mantissa (relative error 2^-9 = 2e-3 each) and the gradients are
//   reduced in bf16; a few SGD steps at lr 0.1 move the parameters by
//   ~0.1 per step, so their differences from fp32 DDP stay below ~1e-2.
//   The same case must also differ from fp32 FSDP by more than TOL_FP32
//   (the policy really changes the arithmetic).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "strategy/fsdp.h"
#include "strategy/fsdp_internal.h" // white box: the master shards and their padding
#include "test_ddp_util.h"
#include "test_env.h"

#define TOL_FP32 1e-6
#define TOL_BF16 2e-2

// One FSDP configuration and the run it belongs to.
typedef struct {
    SimFsdpOptions o;
    int R, nodes, B, accum, every;
    const char *optim;   // "sgd" (momentum 0.9, lr 0.1) or "adam" (lr 0.01)
    int clip_amp;        // clip_grad_norm 0.5 with fp16 autocast and GradScaler
    int64_t steps;
} Case;

// What the ranks saw during an FSDP run (each rank writes its own slots).
typedef struct {
    SimTrainer *tr[TDDP_MAX_RANKS];
    int checks[TDDP_MAX_RANKS];     // step checks made
    int pad_bad[TDDP_MAX_RANKS];    // padding elements that were not 0
    int pad_seen[TDDP_MAX_RANKS];   // padding elements checked
    int freed_bad[TDDP_MAX_RANKS];  // parameters not NaN (sharded) / not finite (replicated)
    long nan_seen[TDDP_MAX_RANKS];  // parameters checked to be NaN between steps
    long fin_seen[TDDP_MAX_RANKS];  // parameters checked to be finite between steps
    SimStatus err[TDDP_MAX_RANKS];
} Watch;

// The worst difference of a group of cases and what their runs checked,
// for the summary lines.
typedef struct {
    double worst;
    int cases;
    long pad, nan, fin; // padding elements seen zero; parameters seen NaN / finite
} Group;

static void group_print(const char *what, const Group *g, double tol) {
    printf("%s: worst diff %.2g (%d cases, tol %g); %ld padding elements zero, %ld freed "
           "parameters NaN, %ld replicated ones finite\n", what, g->worst, g->cases, tol, g->pad,
           g->nan, g->fin);
}

// ----------------------------------------------------------------------------
// checks on the running ranks

static void on_ready(void *arg, int rank, const SimTrainer *t) {
    Watch *w = arg;
    w->tr[rank] = (SimTrainer *)t; // this rank's own trainer, read only on its thread
}

// Padding of every shard this rank holds is zero; the freed units are NaN.
static SimStatus check_rank(Watch *w, SimRank *r, SimTrainer *t, int between_steps) {
    FsdpState *s = t->strategy;
    SimModel *m = t->model;
    int k = r->rank;
    float *master = malloc(s->plan.shard_total * sizeof *master + 1);
    float *param = malloc(m->param_count * sizeof *param + 1);
    if (!master || !param) {
        free(master), free(param);
        return SIM_ENOMEM;
    }
    SimStatus st = s->plan.shard_total ? sim_tensor_download(r, &s->master, master) : SIM_OK;
    if (st == SIM_OK)
        st = sim_tensor_download(r, &m->param, param);
    for (int u = 0; st == SIM_OK && u < s->plan.nunits; u++) {
        const SimFsdpUnit *un = &s->plan.units[u];
        size_t lo = (size_t)s->gidx * un->shard;
        for (size_t e = 0; !un->chunk_off && e < un->shard; e++) {
            if (lo + e < un->numel)
                continue;
            w->pad_seen[k]++;
            w->pad_bad[k] += master[s->u[u].master_off + e] != 0.0f;
        }
        // FSDP2: the padding follows each parameter's chunk
        for (int j = 0; un->chunk_off && j < un->nparams; j++) {
            size_t flat, plo, phi;
            sim_fsdp_piece(&s->plan, u, j, s->gidx, &flat, &plo, &phi);
            for (size_t e = un->chunk_off[j] + (phi - plo); e < un->chunk_off[j] + un->chunk[j];
                 e++) {
                w->pad_seen[k]++;
                w->pad_bad[k] += master[s->u[u].master_off + e] != 0.0f;
            }
        }
        if (!between_steps)
            continue;
        int replicated = fsdp_params_replicated(s);
        for (int j = 0; j < un->nparams; j++) {
            const SimParamInfo *p = &m->params[un->params[j]];
            for (size_t e = 0; e < p->numel; e++) {
                float v = param[p->offset + e];
                w->freed_bad[k] += replicated ? !isfinite(v) : !isnan(v);
            }
            *(replicated ? &w->fin_seen[k] : &w->nan_seen[k]) += (long)p->numel;
        }
    }
    w->checks[k] += between_steps;
    free(master), free(param);
    return st;
}

static void on_step(void *arg, int rank, const SimStepStats *s) {
    Watch *w = arg;
    (void)s;
    SimTrainer *t = w->tr[rank];
    if (t && w->err[rank] == SIM_OK)
        w->err[rank] = check_rank(w, t->rank, t, 1);
}

// tddp's `after`: the last padding check, then the full parameters into the
// model's buffer (a collective: every rank calls it).
static SimStatus gather_full(void *arg, SimRank *r, SimTrainer *t) {
    Watch *w = arg;
    SIM_CHECK(check_rank(w, r, t, 0));
    return sim_fsdp_summon_full_params(r, t);
}

// ----------------------------------------------------------------------------
// the comparison

static void configure(TddpRun *t, const SimDataset *ds, const SimModelSpec *spec,
                      const Case *c) {
    tddp_config(t, ds, spec, c->R, c->B, c->steps);
    t->nodes = c->nodes;
    t->cfg.loop.accum = c->accum;
    t->cfg.loop.accum_sync_every = c->every;
}

static const char *case_name(const Case *c, const SimModelSpec *spec, char *buf, size_t len) {
    const SimFsdpOptions *o = &c->o;
    snprintf(buf, len, "%s %s%s R=%d%s accum=%d%s %s%s wrap=%s prefetch=%s%s%s%s%s%s",
             spec->kind == SIM_MODEL_GPT ? "gpt" : spec->batchnorm ? "mlp,bn"
             : spec->unused_branch ? "mlp,unused" : "mlp",
             sim_fsdp_sharding_name(o->sharding), o->zero1_reduce_scatter ? "+rs" : "", c->R,
             c->nodes > 1 ? (c->R / c->nodes == 2 ? " (2x2)" : " (2x4)") : "", c->accum,
             c->accum > 1 ? (c->every ? " every" : " no_sync") : "", c->optim,
             c->clip_amp ? " clip+fp16" : "", sim_fsdp_wrap_name(o->wrap),
             sim_fsdp_prefetch_name(o->prefetch), o->forward_prefetch ? " fwd-prefetch" : "",
             o->limit_all_gathers ? "" : " no-limit", o->cpu_offload ? " offload" : "",
             o->param_dtype == SIM_BF16 ? " param=bf16" : "",
             o->buffer_dtype == SIM_BF16 ? " buffer=bf16" : "");
    return buf;
}

// Runs FSDP on case c; its parameters (rank 0's gathered ones) go to *out
// (malloc'ed, n floats). Fails on any broken invariant.
static int run_fsdp(const SimDataset *ds, const SimModelSpec *spec, const Case *c,
                    float **out, size_t *n, float **buf0, const char *name, Group *g) {
    TddpRun f;
    Watch *w = calloc(1, sizeof *w);
    CHECK(w != NULL);
    configure(&f, ds, spec, c);
    f.cfg.strategy = &sim_fsdp_strategy;
    f.cfg.strategy_cfg = &c->o;
    f.cfg.hooks.on_ready = on_ready;
    f.cfg.hooks.on_ready_arg = w;
    f.cfg.hooks.on_step = on_step;
    f.cfg.hooks.on_step_arg = w;
    f.after = gather_full;
    f.after_arg = w;
    int fails = tddp_set_optim(&f, c->optim, c->clip_amp);
    if (!fails && tddp_run(&f) != SIM_OK) {
        fprintf(stderr, "  %s: fsdp failed: %s\n", name, f.error);
        fails = 1;
    }
    int pad_bad = 0, pad_seen = 0, freed_bad = 0, checks = 0, same = 1;
    for (int r = 0; !fails && r < c->R; r++) {
        pad_bad += w->pad_bad[r], pad_seen += w->pad_seen[r];
        freed_bad += w->freed_bad[r], checks += w->checks[r];
        fails |= w->err[r] != SIM_OK;
        same &= tddp_maxdiff(f.params[r], f.params[0], f.nparam) == 0;
        if (g)
            g->pad += w->pad_seen[r], g->nan += w->nan_seen[r], g->fin += w->fin_seen[r];
    }
    if (!fails && (pad_bad || freed_bad || checks != c->R * (int)c->steps || !same)) {
        fprintf(stderr, "  %s: %d of %d padding elements not zero, %d parameters of freed "
                "(or replicated) units wrong between steps, %d step checks (want %d), "
                "replicas identical %d\n", name, pad_bad, pad_seen, freed_bad, checks,
                c->R * (int)c->steps, same);
        fails = 1;
    }
    if (!fails) {
        *n = f.nparam;
        *out = malloc(f.nparam * sizeof **out + 1);
        *buf0 = malloc(f.nbuffer * sizeof **buf0 + 1);
        if (*out && *buf0) {
            memcpy(*out, f.params[0], f.nparam * sizeof **out);
            memcpy(*buf0, f.buffers[0], f.nbuffer * sizeof **buf0);
        } else {
            fails = 1;
        }
    }
    tddp_free(&f);
    free(w);
    return fails;
}

// DDP and FSDP on case c: FSDP's parameters within tol of DDP's (and rank
// 0's buffers, which neither broadcasts away from rank 0's own batches).
// *diff gets the parameters' difference.
static int parity_tol(const SimDataset *ds, const SimModelSpec *spec, const Case *c, double tol,
                      Group *g, float **keep, size_t *nkeep) {
    char name[256];
    case_name(c, spec, name, sizeof name);
    TddpRun d;
    configure(&d, ds, spec, c);
    d.use_ddp = 1;
    d.ddp.buckets.find_unused = spec->unused_branch; // DDP's condition for such a model
    d.ddp.buckets.bucket_cap_mb = 0.01;              // several buckets
    int fails = tddp_set_optim(&d, c->optim, c->clip_amp);
    if (!fails && tddp_run(&d) != SIM_OK) {
        fprintf(stderr, "  %s: ddp failed: %s\n", name, d.error);
        fails = 1;
    }
    float *p = NULL, *b = NULL;
    size_t n = 0;
    if (!fails)
        fails = run_fsdp(ds, spec, c, &p, &n, &b, name, g);
    double worst = INFINITY, bufdiff = 0;
    if (!fails && n == d.nparam) {
        worst = tddp_maxdiff(p, d.params[0], n);
        if (d.nbuffer && c->o.buffer_dtype == SIM_FP32)
            bufdiff = tddp_maxdiff(b, d.buffers[0], d.nbuffer);
    }
    printf("  %-100s diff %.2g%s\n", name, worst, d.nbuffer ? " (buffers checked)" : "");
    if (!fails && (!(worst <= tol) || !(bufdiff <= tol))) {
        fprintf(stderr, "  %s: parameters differ from ddp by %.3g, buffers by %.3g (tol %g)\n",
                name, worst, bufdiff, tol);
        fails = 1;
    }
    if (g && !fails) {
        g->worst = worst > g->worst ? worst : g->worst;
        g->cases++;
    }
    if (keep && !fails) {
        *keep = p;
        *nkeep = n;
        p = NULL;
    }
    free(p), free(b);
    tddp_free(&d);
    return fails;
}

static int parity(const SimDataset *ds, const SimModelSpec *spec, const Case *c, Group *g) {
    return parity_tol(ds, spec, c, TOL_FP32, g, NULL, NULL);
}

static Case base_case(SimFsdpSharding sh, int R, const char *optim, int64_t steps) {
    Case c;
    memset(&c, 0, sizeof c);
    sim_fsdp_options_default(&c.o);
    c.o.sharding = sh;
    c.R = R;
    c.nodes = 1;
    c.B = 4;
    c.accum = 1;
    c.optim = optim;
    c.steps = steps;
    return c;
}

// The flat shardings on one node: name, and whether zero1 reduce-scatters.
typedef struct {
    SimFsdpSharding sh;
    int zero1_rs;
} Flat;

static const Flat flats[] = {{SIM_FSDP_FULL_SHARD, 0}, {SIM_FSDP_SHARD_GRAD_OP, 0},
                             {SIM_FSDP_NO_SHARD, 0},   {SIM_FSDP_ZERO1, 0},
                             {SIM_FSDP_ZERO1, 1}};
#define NFLAT ((int)(sizeof flats / sizeof flats[0]))

static Case flat_case(int i, int R, const char *optim, int64_t steps) {
    Case c = base_case(flats[i].sh, R, optim, steps);
    c.o.zero1_reduce_scatter = flats[i].zero1_rs;
    return c;
}

// The tiny GPT of tddp_data_gpt's data with two blocks (units) of 1,836
// parameters (embd 12: flat parameters that need padding on 8 ranks).
static SimStatus gpt_data(SimDataset *ds, SimModelSpec *spec) {
    SimModelSpec one;
    SIM_CHECK(tddp_data_gpt(ds, &one));
    char text[128], err[256];
    snprintf(text, sizeof text, "gpt:layers=2,embd=12,heads=2,ctx=8,vocab=%d", ds->vocab);
    return sim_model_parse(text, spec, err, sizeof err);
}

// ----------------------------------------------------------------------------
// the cases

// Every flat sharding on R = 1, 2, 3, 4, 8 with SGD + momentum and Adam;
// and on an MLP of odd widths, whose units (527, 928 and 120 elements) need
// padding on 3, 4 and 8 ranks.
static int test_mlp_shardings(void) {
    SimDataset ds;
    SimModelSpec spec, odd;
    char err[256];
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    CHECK(sim_model_parse("mlp:16,31,29,4", &odd, err, sizeof err) == SIM_OK);
    const int Rs[] = {1, 2, 3, 4, 8};
    int64_t steps = tenv_quick() ? 2 : 4;
    Group sgd = {0}, adam = {0}, padded = {0};
    int fails = 0;
    for (int i = 0; i < NFLAT; i++)
        for (int k = 0; k < 5; k++) {
            Case c = flat_case(i, Rs[k], "sgd", steps);
            fails += parity(&ds, &spec, &c, &sgd);
            fails += parity(&ds, &odd, &c, &padded);
            if (tenv_quick() && Rs[k] != 3 && Rs[k] != 4)
                continue;
            c = flat_case(i, Rs[k], "adam", steps);
            fails += parity(&ds, &spec, &c, &adam);
        }
    group_print("mlp, every flat sharding, R in 1 2 3 4 8, sgd", &sgd, TOL_FP32);
    group_print("mlp, every flat sharding, R in 1 2 3 4 8, adam", &adam, TOL_FP32);
    group_print("mlp:16,31,29,4, every flat sharding, R in 1 2 3 4 8, sgd", &padded, TOL_FP32);
    sim_dataset_free(&ds);
    return fails;
}

static int test_gpt_shardings(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(gpt_data(&ds, &spec) == SIM_OK);
    const int Rs[] = {1, 2, 3, 4, 8};
    int64_t steps = tenv_quick() ? 2 : 3;
    Group g = {0};
    int fails = 0;
    for (int i = 0; i < NFLAT; i++)
        for (int k = 0; k < 5; k++) {
            if (tenv_quick() && Rs[k] == 8 && i > 0)
                continue;
            Case c = flat_case(i, Rs[k], k % 2 ? "adam" : "sgd", steps);
            c.B = 2;
            fails += parity(&ds, &spec, &c, &g);
        }
    group_print("gpt (2 blocks), every flat sharding, R in 1 2 3 4 8", &g, TOL_FP32);
    sim_dataset_free(&ds);
    return fails;
}

// hybrid_shard and hybrid_zero2 on 2 nodes x 2 ranks and 2 x 4.
static int test_hybrid(void) {
    SimDataset ds, gds;
    SimModelSpec spec, gspec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    CHECK(gpt_data(&gds, &gspec) == SIM_OK);
    int64_t steps = tenv_quick() ? 2 : 3;
    const SimFsdpSharding hy[2] = {SIM_FSDP_HYBRID_SHARD, SIM_FSDP_HYBRID_ZERO2};
    Group g = {0};
    int fails = 0;
    for (int h = 0; h < 2; h++)
        for (int R = 4; R <= 8; R += 4) {
            Case c = base_case(hy[h], R, "sgd", steps);
            c.nodes = 2;
            fails += parity(&ds, &spec, &c, &g);
            c.optim = "adam";
            c.accum = 3; // no_sync
            fails += parity(&ds, &spec, &c, &g);
            c.accum = 2, c.every = 1;
            fails += parity(&ds, &spec, &c, &g);
            c = base_case(hy[h], R, R == 4 ? "sgd" : "adam", steps);
            c.nodes = 2;
            c.B = 2;
            fails += parity(&gds, &gspec, &c, &g);
            if (!tenv_quick() || R == 4) {
                c.o.cpu_offload = 1;
                c.clip_amp = 1;
                fails += parity(&gds, &gspec, &c, &g);
            }
        }
    group_print("hybrid_shard and hybrid_zero2 on 2x2 and 2x4", &g, TOL_FP32);
    sim_dataset_free(&ds);
    sim_dataset_free(&gds);
    return fails;
}

// Accumulation: --accum 3 with no_sync (the default) and with a reduction
// every micro-step, for every flat sharding; clipping with fp16 autocast
// and a GradScaler; CPU offload.
static int test_accum_clip_offload(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    int64_t steps = 3;
    Group acc = {0}, clip = {0}, off = {0};
    int fails = 0;
    for (int i = 0; i < NFLAT; i++) {
        int R = i % 2 ? 3 : 2;
        Case c = flat_case(i, R, i % 2 ? "adam" : "sgd", steps);
        c.accum = 3;
        fails += parity(&ds, &spec, &c, &acc);
        c.every = 1;
        fails += parity(&ds, &spec, &c, &acc);
        c = flat_case(i, 4, "sgd", steps);
        c.clip_amp = 1;
        fails += parity(&ds, &spec, &c, &clip);
        c = flat_case(i, 3, "adam", steps);
        c.clip_amp = 1;
        c.accum = 2;
        fails += parity(&ds, &spec, &c, &clip);
    }
    for (int i = 0; i < 2; i++) { // offload needs sharded parameters
        Case c = flat_case(i, 4, "adam", steps);
        c.o.cpu_offload = 1;
        fails += parity(&ds, &spec, &c, &off);
        c.accum = 3;
        c.clip_amp = 1;
        fails += parity(&ds, &spec, &c, &off);
        c = flat_case(i, 3, "sgd", steps);
        c.o.cpu_offload = 1;
        c.accum = 2, c.every = 1;
        fails += parity(&ds, &spec, &c, &off);
    }
    group_print("accumulation, no_sync and every micro-step", &acc, TOL_FP32);
    group_print("clipping + fp16 autocast + GradScaler", &clip, TOL_FP32);
    group_print("cpu offload", &off, TOL_FP32);
    sim_dataset_free(&ds);
    return fails;
}

// BatchNorm (its own units; rank 0's running statistics equal DDP's rank
// 0's) and the head unused on odd steps (its unit skipped by the hooks).
static int test_bn_and_unused(void) {
    SimDataset ds;
    SimModelSpec spec;
    int64_t steps = 4;
    Group g = {0};
    int fails = 0;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4,bn", &spec) == SIM_OK);
    for (int i = 0; i < NFLAT; i++) {
        Case c = flat_case(i, i % 2 ? 3 : 4, "sgd", steps);
        c.accum = i == 0 ? 2 : 1;
        fails += parity(&ds, &spec, &c, &g);
    }
    sim_dataset_free(&ds);
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4,unused", &spec) == SIM_OK);
    for (int i = 0; i < NFLAT; i++) {
        Case c = flat_case(i, i % 2 ? 2 : 4, i % 2 ? "adam" : "sgd", steps);
        fails += parity(&ds, &spec, &c, &g);
        c.accum = 2;
        fails += parity(&ds, &spec, &c, &g);
    }
    Case c = base_case(SIM_FSDP_HYBRID_SHARD, 4, "sgd", steps);
    c.nodes = 2;
    fails += parity(&ds, &spec, &c, &g);
    sim_dataset_free(&ds);
    group_print("batchnorm and an unused head", &g, TOL_FP32);
    return fails;
}

// Every wrap policy on both models, with full_shard and shard_grad_op (and
// zero1, whose default is one flat buffer, with the per-layer units).
static int test_wrap_policies(void) {
    SimDataset ds, gds;
    SimModelSpec spec, gspec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    CHECK(gpt_data(&gds, &gspec) == SIM_OK);
    // size: in the MLP "0" (544 elements) and "2" (1056) become units, "4"
    // (132) stays in the root; in the GPT only the blocks (1,836 each) do
    const SimFsdpWrap mlp_w[] = {SIM_FSDP_WRAP_AUTO, SIM_FSDP_WRAP_LAYER, SIM_FSDP_WRAP_SIZE,
                                 SIM_FSDP_WRAP_NONE};
    const SimFsdpWrap gpt_w[] = {SIM_FSDP_WRAP_AUTO, SIM_FSDP_WRAP_BLOCK, SIM_FSDP_WRAP_LAYER,
                                 SIM_FSDP_WRAP_SIZE, SIM_FSDP_WRAP_NONE};
    const SimFsdpSharding shs[] = {SIM_FSDP_FULL_SHARD, SIM_FSDP_SHARD_GRAD_OP, SIM_FSDP_ZERO1};
    Group g = {0};
    int fails = 0;
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < 4; i++) {
            Case c = base_case(shs[s], 3, "sgd", 3);
            c.o.wrap = mlp_w[i];
            c.o.min_params = 500;
            fails += parity(&ds, &spec, &c, &g);
        }
        for (int i = 0; i < 5; i++) {
            Case c = base_case(shs[s], 4, "adam", 2);
            c.B = 2;
            c.o.wrap = gpt_w[i];
            c.o.min_params = 1500;
            fails += parity(&gds, &gspec, &c, &g);
        }
    }
    group_print("wrap policies auto, block, layer, size, none", &g, TOL_FP32);
    sim_dataset_free(&ds);
    sim_dataset_free(&gds);
    return fails;
}

// FSDP2 (fully_shard): every parameter chunked on dim 0, padded per
// parameter. mlp:16,129,4 pads 129 rows to 132 on 4 ranks; on 8 ranks its
// 4-row layer leaves ranks 4..7 without a row of it; the GPT's embeddings
// and blocks have rows that do not divide by 3. Both reshard settings, SGD
// and Adam, accumulation, clipping with fp16 and bf16 MixedPrecision.
static int test_fsdp2(void) {
    SimDataset ds, gds;
    SimModelSpec spec, odd, gspec;
    char err[256];
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,129,4", &spec) == SIM_OK);
    CHECK(sim_model_parse("mlp:16,31,29,4", &odd, err, sizeof err) == SIM_OK);
    CHECK(gpt_data(&gds, &gspec) == SIM_OK);
    const int Rs[] = {1, 2, 3, 4, 8};
    const SimFsdpSharding shs[] = {SIM_FSDP_FULL_SHARD, SIM_FSDP_SHARD_GRAD_OP};
    Group g = {0}, lowp = {0};
    int fails = 0;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 5; k++) {
            Case c = base_case(shs[s], Rs[k], "sgd", 3);
            c.o.per_param = 1;
            fails += parity(&ds, &spec, &c, &g);
            fails += parity(&ds, &odd, &c, &g);
            c.optim = "adam";
            c.steps = 2;
            c.B = 2;
            fails += parity(&gds, &gspec, &c, &g);
        }
    Case c = base_case(SIM_FSDP_FULL_SHARD, 4, "sgd", 3);
    c.o.per_param = 1;
    c.accum = 2;
    c.clip_amp = 1;
    fails += parity(&ds, &spec, &c, &g);
    c = base_case(SIM_FSDP_FULL_SHARD, 3, "sgd", 3);
    c.o.per_param = 1;
    c.o.param_dtype = c.o.reduce_dtype = SIM_BF16;
    fails += parity_tol(&ds, &odd, &c, TOL_BF16, &lowp, NULL, NULL);
    group_print("fsdp2: mlp:16,129,4, mlp:16,31,29,4, gpt, R in 1 2 3 4 8", &g, TOL_FP32);
    group_print("fsdp2: bf16 MixedPrecision, R = 3", &lowp, TOL_BF16);
    sim_dataset_free(&ds);
    sim_dataset_free(&gds);
    return fails;
}

// Prefetching changes when units are gathered, never what they hold.
static int test_prefetch(void) {
    SimDataset ds, gds;
    SimModelSpec spec, gspec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    CHECK(gpt_data(&gds, &gspec) == SIM_OK);
    Group g = {0};
    int fails = 0;
    for (int sh = 0; sh < 2; sh++) // full_shard, shard_grad_op
        for (int p = 0; p < SIM_FSDP_PREFETCH_COUNT; p++)
            for (int fwd = 0; fwd < 3; fwd++) { // off, on, on without the limit
                Case c = base_case(flats[sh].sh, 4, "sgd", 3);
                c.o.prefetch = (SimFsdpPrefetch)p;
                c.o.forward_prefetch = fwd > 0;
                c.o.limit_all_gathers = fwd < 2;
                fails += parity(&ds, &spec, &c, &g);
                if (tenv_quick() && fwd != 1)
                    continue;
                c.B = 2;
                c.accum = 2;
                fails += parity(&gds, &gspec, &c, &g);
            }
    group_print("prefetch: backward_pre, backward_post, none; forward; no limit", &g, TOL_FP32);
    sim_dataset_free(&ds);
    sim_dataset_free(&gds);
    return fails;
}

// MixedPrecision(param_dtype = bf16): near DDP's fp32 result, but not the
// fp32 FSDP result. buffer_dtype bf16 rounds the BatchNorm statistics (not
// compared with DDP's, which stay fp32).
static int test_mixed_precision(void) {
    SimDataset ds, gds;
    SimModelSpec spec, gspec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4,bn", &spec) == SIM_OK);
    CHECK(gpt_data(&gds, &gspec) == SIM_OK);
    const SimFsdpSharding shs[] = {SIM_FSDP_FULL_SHARD, SIM_FSDP_SHARD_GRAD_OP,
                                   SIM_FSDP_HYBRID_SHARD};
    int fails = 0;
    double worst = 0, least_change = INFINITY;
    for (int s = 0; s < 3; s++)
        for (int gpt = 0; gpt < 2; gpt++) {
            Case c = base_case(shs[s], 4, "sgd", 3);
            c.nodes = shs[s] == SIM_FSDP_HYBRID_SHARD ? 2 : 1;
            c.B = gpt ? 2 : 4;
            const SimDataset *d = gpt ? &gds : &ds;
            const SimModelSpec *sp = gpt ? &gspec : &spec;
            float *fp32 = NULL, *bf16 = NULL;
            size_t n32 = 0, n16 = 0;
            Group g32 = {0}, g16 = {0};
            fails += parity_tol(d, sp, &c, TOL_FP32, &g32, &fp32, &n32);
            c.o.param_dtype = SIM_BF16;
            c.o.buffer_dtype = gpt ? SIM_FP32 : SIM_BF16;
            fails += parity_tol(d, sp, &c, TOL_BF16, &g16, &bf16, &n16);
            double d16 = g16.worst;
            if (fp32 && bf16 && n32 == n16) {
                double change = tddp_maxdiff(bf16, fp32, n32);
                printf("    bf16 against fp32 fsdp: diff %.2g\n", change);
                least_change = change < least_change ? change : least_change;
                if (!(change > TOL_FP32)) {
                    fprintf(stderr, "  param_dtype bf16 gave the fp32 result (diff %.3g)\n",
                            change);
                    fails++;
                }
            }
            free(fp32), free(bf16);
            worst = d16 > worst ? d16 : worst;
        }
    printf("param_dtype bf16: worst diff from fp32 ddp %.2g (tol %g); least change from fp32 "
           "fsdp %.2g (must exceed %g)\n", worst, TOL_BF16, least_change, TOL_FP32);
    sim_dataset_free(&ds);
    sim_dataset_free(&gds);
    return fails;
}

int main(void) {
    int failures = 0;
    RUN(test_mlp_shardings);
    RUN(test_gpt_shardings);
    RUN(test_hybrid);
    RUN(test_accum_clip_offload);
    RUN(test_bn_and_unused);
    RUN(test_wrap_policies);
    RUN(test_prefetch);
    RUN(test_mixed_precision);
    RUN(test_fsdp2);
    return failures ? 1 : 0;
}
