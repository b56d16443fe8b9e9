// tests/test_layer_owner.c: --strategy layer-owner, the wrong picture of
// FSDP (sim/strategy/layer_owner.h), runs and computes what DDP computes.
//
//   parity     MLP and a tiny GPT on R = 1..4 ranks, SGD with momentum and
//              Adam, with accumulation (no_sync and --accum-sync every),
//              with clipping and fp16 loss scaling: the parameters, read
//              from each layer's owner, equal DDP's within TOL; every rank
//              holds NaN for the layers it does not own (a use without a
//              broadcast would show)
//   traffic    per step 2 x U broadcasts per micro-step and U reduces (U
//              modules with parameters), no all_reduce; bytes moved over
//              the wire against DDP's all_reduce, and per rank
//   memory     each rank's model state: its own layers plus one borrowed
//              layer at a time (unbalanced; a rank may own nothing)
//   checkpoint --save gathers the owners' layers to rank 0: a run resumed
//              from it repeats the uninterrupted run bit for bit, and DDP
//              resumes from it too
//
// Tolerance: DDP multiplies each gradient by 1/R before its all_reduce; the
// owner here divides the reduced SUM by R, and the reduce adds the ranks in
// its own order. The two differ by a few fp32 ulps per gradient element,
// which a few steps carry into the parameters at < 1e-7 relative (at most
// 7.5e-8 in these cases; often exactly 0 on 1 and 2 ranks);
// 1e-6 (as |a-b| / (1+|b|)) leaves room and still catches any real error (a
// missing 1/R, a stale broadcast, a lost micro-step are all factors).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "strategy/layer_owner.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_files.h"
#include "test_world.h"

#define TOL 1e-6
#define WHOLE_CAP (1 << 18) // floats: room for the assembled parameters

// What the ranks hold at the end of a layer-owner run.
typedef struct {
    float *whole;                          // [WHOLE_CAP] each layer from its owner
    size_t n;                              // the model's param_count
    int stray[TDDP_MAX_RANKS];             // values of layers not owned that are not NaN
    int no_stats[TDDP_MAX_RANKS];
    SimLayerOwnerStats st[TDDP_MAX_RANKS];
    int64_t ledger[TDDP_MAX_RANKS][3];     // the memory ledger's params, grads, optimizer
    size_t module_bytes[64];               // bytes of each module (rank 0 writes)
    int owner[64];                         // owner of each module (rank 0 writes)
    int nmodules;
} Held;

// tddp's `after` hook: each rank copies the layers it owns into the whole
// (disjoint ranges) and checks that the others are NaN.
static SimStatus collect(void *arg, SimRank *r, SimTrainer *t) {
    Held *h = arg;
    SimModel *m = t->model;
    int R = r->world->cfg.nranks;
    if (m->param_count > WHOLE_CAP || m->nmodules > 64)
        return SIM_EINVAL;
    float *host = malloc(m->param_count * sizeof *host + 1);
    if (host == NULL)
        return SIM_ENOMEM;
    SimStatus st = sim_tensor_download(r, &m->param, host);
    for (int k = 1; st == SIM_OK && k < m->nmodules; k++) {
        int o = sim_layer_owner_of(m, k, R);
        if (o < 0)
            continue;
        const SimModuleInfo *mod = &m->modules[k];
        size_t off = m->params[mod->first_param].offset, n = 0;
        for (int i = mod->first_param; i < mod->first_param + mod->nparams; i++)
            n += m->params[i].numel;
        if (o == r->rank)
            memcpy(h->whole + off, host + off, n * sizeof *host);
        else
            for (size_t i = 0; i < n; i++)
                h->stray[r->rank] += !isnan(host[off + i]);
        if (r->rank == 0) {
            h->module_bytes[k] = n * sizeof(float);
            h->owner[k] = o;
        }
    }
    if (r->rank == 0) {
        h->n = m->param_count;
        h->nmodules = m->nmodules;
    }
    h->no_stats[r->rank] = sim_layer_owner_stats(t, &h->st[r->rank]) != 0;
    const int64_t *cur = r->mem.cur[SIM_MEM_DEVICE];
    h->ledger[r->rank][0] = cur[SIM_MEM_PARAM];
    h->ledger[r->rank][1] = cur[SIM_MEM_GRAD];
    h->ledger[r->rank][2] = cur[SIM_MEM_OPTIM];
    free(host);
    return st;
}

static void use_layer_owner(TddpRun *t, Held *h) {
    t->use_ddp = 0;
    t->cfg.strategy = &sim_layer_owner_strategy;
    t->cfg.strategy_cfg = NULL; // the strategy has no options
    t->after = collect;
    t->after_arg = h;
}

// DDP and layer-owner on the same configuration.
static int parity(const SimDataset *ds, const SimModelSpec *spec, int R, int B, int accum,
                  int every, const char *optim, int clip_amp, int64_t steps) {
    TddpRun ddp, lo;
    Held *h = calloc(1, sizeof *h);
    float *whole = calloc(WHOLE_CAP, sizeof *whole);
    CHECK(h != NULL && whole != NULL);
    h->whole = whole;
    tddp_config(&ddp, ds, spec, R, B, steps);
    tddp_config(&lo, ds, spec, R, B, steps);
    ddp.use_ddp = 1;
    ddp.ddp.buckets.find_unused = spec->unused_branch; // DDP's condition for such a model
    use_layer_owner(&lo, h);
    TddpRun *both[2] = {&ddp, &lo};
    int fails = 0;
    for (int i = 0; i < 2; i++) {
        both[i]->cfg.loop.accum = accum;
        both[i]->cfg.loop.accum_sync_every = every;
        fails += tddp_set_optim(both[i], optim, clip_amp);
    }
    if (tddp_run(&ddp) != SIM_OK || tddp_run(&lo) != SIM_OK) {
        fprintf(stderr, "R=%d: %s%s\n", R, ddp.error, lo.error);
        fails = 1;
    }
    double worst = fails ? INFINITY : tddp_maxdiff(h->whole, ddp.params[0], ddp.nparam);
    int stray = 0, nostats = 0;
    for (int r = 0; r < R; r++)
        stray += h->stray[r], nostats += h->no_stats[r];
    // buffers (BatchNorm running statistics): rank 0's track DDP's rank 0's (the
    // statistics of the same batches through parameters equal within TOL)
    double bufdiff = fails || ddp.nbuffer == 0 ? 0
                     : tddp_maxdiff(lo.buffers[0], ddp.buffers[0], ddp.nbuffer);
    printf("  %s R=%d B=%d accum=%d every=%d %s%s: max relative diff from ddp %.2g "
           "(buffers %.2g)\n", spec->kind == SIM_MODEL_GPT ? "gpt" : "mlp", R, B, accum, every,
           optim, clip_amp ? " clip+fp16" : "", worst, bufdiff);
    if (!fails && (!(worst <= TOL) || !(bufdiff <= TOL) || stray != 0 || nostats != 0 ||
                   h->n != ddp.nparam)) {
        fprintf(stderr, "  differs: diff %.3g (tol %g), buffers %.3g, %d values of unowned "
                "layers not NaN, stats missing on %d ranks\n", worst, TOL, bufdiff, stray,
                nostats);
        fails = 1;
    }
    tddp_free(&ddp), tddp_free(&lo);
    free(whole), free(h);
    return fails;
}

static int test_mlp_parity(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    int64_t steps = tenv_quick() ? 3 : 5;
    int fails = 0;
    for (int R = 1; R <= 4; R++) {
        fails += parity(&ds, &spec, R, 4, 1, 0, "sgd", 0, steps);
        fails += parity(&ds, &spec, R, 4, 1, 0, "adam", 0, steps);
        fails += parity(&ds, &spec, R, 4, 3, 0, "sgd", 0, steps); // no_sync accumulation
        fails += parity(&ds, &spec, R, 4, 2, 1, "adam", 0, steps); // reduce every micro-step
    }
    fails += parity(&ds, &spec, 3, 4, 2, 0, "adam", 1, steps); // clipping, fp16 scaler
    fails += parity(&ds, &spec, 4, 4, 1, 0, "sgd", 1, steps);
    sim_dataset_free(&ds);
    // BatchNorm layers are modules of their own; an unused head is skipped
    // by the hooks on the steps it does not run
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4,bn", &spec) == SIM_OK);
    fails += parity(&ds, &spec, 3, 4, 2, 0, "sgd", 0, steps);
    sim_dataset_free(&ds);
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4,unused", &spec) == SIM_OK);
    for (int R = 2; R <= 4; R++)
        fails += parity(&ds, &spec, R, 4, 2, 0, "sgd", 0, 4);
    sim_dataset_free(&ds);
    return fails;
}

static int test_gpt_parity(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_gpt(&ds, &spec) == SIM_OK);
    int64_t steps = tenv_quick() ? 2 : 3;
    int fails = 0;
    for (int R = 1; R <= 4; R++) {
        fails += parity(&ds, &spec, R, 2, 1, 0, "sgd", 0, steps);
        fails += parity(&ds, &spec, R, 2, 1, 0, "adam", 0, steps);
        fails += parity(&ds, &spec, R, 2, 2, 0, "adam", 0, steps);
    }
    fails += parity(&ds, &spec, 3, 2, 2, 1, "sgd", 1, steps);
    sim_dataset_free(&ds);
    return fails;
}

// ----------------------------------------------------------------------------
// traffic and memory: a run that keeps every rank's trace

typedef struct {
    SimTrainer tr[TDDP_MAX_RANKS];
    SimLayerOwnerStats st[TDDP_MAX_RANKS];
} RunCtx;

typedef struct {
    uint64_t coll[SIM_COLL_COUNT];        // collectives of each kind on rank 0
    uint64_t bytes[SIM_COLL_COUNT];       // bytes received, all ranks, by kind
    uint64_t rank_in[SIM_COLL_COUNT][TDDP_MAX_RANKS]; // bytes each rank received, by kind
    uint64_t drops0;                      // "layer-owner drop" markers on rank 0
    SimLayerOwnerStats st[TDDP_MAX_RANKS];
} Traffic;

static SimStatus traced_main(SimRank *r, void *arg) {
    RunCtx *c = arg;
    SimStatus st = sim_train_run(r, c->tr);
    (void)sim_layer_owner_stats(&c->tr[r->rank], &c->st[r->rank]);
    sim_train_free(&c->tr[r->rank], r);
    return st;
}

static int traced_run(const SimTrainConfig *cfg, int R, Traffic *out) {
    memset(out, 0, sizeof *out);
    RunCtx *c = calloc(1, sizeof *c);
    CHECK(c != NULL);
    for (int i = 0; i < R; i++)
        c->tr[i].cfg = cfg;
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, R, 1, 10.0);
    if (st == SIM_OK)
        st = sim_world_run(&w, traced_main, c);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(&w));
    for (int r = 0; st == SIM_OK && r < R; r++) {
        const SimEvent *ev = sim_trace_rank_events(w.trace, r);
        size_t n = sim_trace_rank_count(w.trace, r);
        for (size_t i = 0; i < n; i++) {
            if (ev[i].kind == SIM_EV_XFER) {
                out->bytes[ev[i].coll] += ev[i].bytes;
                out->rank_in[ev[i].coll][r] += ev[i].bytes;
            } else if (r == 0 && ev[i].kind == SIM_EV_COLL) {
                out->coll[ev[i].coll]++;
            } else if (r == 0 && ev[i].kind == SIM_EV_MARKER && ev[i].name &&
                       strcmp(ev[i].name, "layer-owner drop") == 0) {
                out->drops0++;
            }
        }
    }
    memcpy(out->st, c->st, sizeof out->st);
    sim_world_free(&w);
    free(c);
    CHECK(st == SIM_OK);
    return 0;
}

static void config(SimTrainConfig *c, const SimDataset *ds, const SimModelSpec *spec,
                   int accum, int every, int clip_amp, int64_t steps) {
    char err[256];
    sim_train_config_default(c);
    c->model = *spec;
    c->data.set = ds;
    c->data.batch = 4;
    c->loop.accum = accum;
    c->loop.accum_sync_every = every;
    c->loop.steps = steps;
    c->data.shuffle = 0;
    (void)sim_optim_flags_set(&c->opt, "optimizer", "adam", err, sizeof err);
    if (clip_amp) {
        (void)sim_optim_flags_set(&c->opt, "clip-grad-norm", "0.5", err, sizeof err);
        (void)sim_optim_flags_set(&c->opt, "amp", "fp16", err, sizeof err);
    }
    (void)sim_optim_flags_validate(&c->opt, err, sizeof err);
}

// Modules with parameters, their total bytes and rank 0's; own[r]: the
// bytes of the modules rank r owns (may be NULL).
static void count_modules(const SimModelSpec *spec, int R, int *U, uint64_t *P, int *U0,
                          uint64_t *own) {
    SimWorld w;
    *U = *U0 = 0;
    *P = 0;
    for (int r = 0; own && r < R; r++)
        own[r] = 0;
    if (tworld_init_cpu(&w, 1, 0, 5.0) == SIM_OK) {
        SimModel *m = NULL;
        if (sim_model_create(&w.ranks[0], spec, 1, 1, &m) == SIM_OK) {
            for (int k = 1; k < m->nmodules; k++) {
                int o = sim_layer_owner_of(m, k, R);
                *U += o >= 0;
                *U0 += o == 0;
                const SimModuleInfo *mod = &m->modules[k];
                for (int i = mod->first_param; own && o >= 0 && i < mod->first_param +
                     mod->nparams; i++)
                    own[o] += m->params[i].numel * sizeof(float);
            }
            *P = m->param_count * sizeof(float);
        }
        sim_model_destroy(&w.ranks[0], m);
    }
    sim_world_free(&w);
}

// One case: collective counts on rank 0, bytes on the wire, against DDP.
// clip_amp: clipping and fp16's scaler add two all_reduces per step (the
// norm's sum of squares and the inf check), which DDP does not need.
static int traffic_case(const SimDataset *ds, const SimModelSpec *spec, const char *name, int R,
                        int accum, int every, int clip_amp, int64_t S) {
    int U, U0;
    uint64_t P, own[TDDP_MAX_RANKS];
    count_modules(spec, R, &U, &P, &U0, own);
    CHECK(U > 0 && P > 0);
    SimTrainConfig lc, dc;
    config(&lc, ds, spec, accum, every, clip_amp, S);
    config(&dc, ds, spec, accum, every, clip_amp, S);
    lc.strategy = &sim_layer_owner_strategy;
    SimDdpOptions dopt;
    sim_ddp_options_default(&dopt);
    dc.strategy = &sim_ddp_strategy;
    dc.strategy_cfg = &dopt;
    Traffic *lo = calloc(2, sizeof *lo), *dd = lo + 1;
    CHECK(lo != NULL);
    int fails = traced_run(&lc, R, lo) || traced_run(&dc, R, dd);
    if (fails) {
        free(lo);
        return 1;
    }
    uint64_t micro = (uint64_t)accum * (uint64_t)S, syncs = every ? micro : (uint64_t)S;
    uint64_t lo_bytes = lo->bytes[SIM_COLL_BROADCAST] + lo->bytes[SIM_COLL_REDUCE];
    uint64_t dd_bytes = dd->bytes[SIM_COLL_ALL_REDUCE];
    uint64_t lo_max = 0, dd_max = 0;
    for (int r = 0; r < R; r++) {
        uint64_t l = lo->rank_in[SIM_COLL_BROADCAST][r] + lo->rank_in[SIM_COLL_REDUCE][r];
        uint64_t d = dd->rank_in[SIM_COLL_ALL_REDUCE][r];
        lo_max = l > lo_max ? l : lo_max;
        dd_max = d > dd_max ? d : dd_max;
    }
    printf("  %s R=%d accum=%d every=%d, %lld steps, %d modules, %llu param bytes: per step "
           "layer-owner %.1f broadcasts %.1f reduces %.1f all_reduces, %.0f bytes moved "
           "(most on one rank %.0f); ddp %.0f bytes moved (most on one rank %.0f); ratio %.3f\n",
           name, R, accum, every, (long long)S, U, (unsigned long long)P,
           (double)lo->coll[SIM_COLL_BROADCAST] / (double)S,
           (double)lo->coll[SIM_COLL_REDUCE] / (double)S,
           (double)lo->coll[SIM_COLL_ALL_REDUCE] / (double)S, (double)lo_bytes / (double)S,
           (double)lo_max / (double)S, (double)dd_bytes / (double)S,
           (double)dd_max / (double)S, dd_bytes ? (double)lo_bytes / (double)dd_bytes : 0.0);
    // counts: 2 x U broadcasts per micro-step, U reduces per synchronising one
    CHECK_EQ_INT(lo->coll[SIM_COLL_BROADCAST], 2 * (uint64_t)U * micro);
    CHECK_EQ_INT(lo->coll[SIM_COLL_REDUCE], (uint64_t)U * syncs);
    CHECK_EQ_INT(lo->coll[SIM_COLL_ALL_REDUCE], clip_amp ? 2 * S : 0);
    CHECK_EQ_INT(lo->coll[SIM_COLL_ALL_GATHER] + lo->coll[SIM_COLL_REDUCE_SCATTER], 0);
    // drops on rank 0: the layers it does not own at setup, then after each
    // forward and each backward
    CHECK_EQ_INT(lo->drops0, (uint64_t)(U - U0) * (1 + 2 * micro));
    // bytes: each broadcast and each reduce moves the layer to or from R-1
    // ranks; DDP's all_reduce moves 2(R-1)/R of the model per rank
    uint64_t Rm1 = (uint64_t)(R - 1);
    CHECK_EQ_INT(lo->bytes[SIM_COLL_BROADCAST], 2 * micro * Rm1 * P);
    CHECK_EQ_INT(lo->bytes[SIM_COLL_REDUCE], syncs * Rm1 * P);
    if (!clip_amp)
        CHECK_EQ_INT(dd_bytes, syncs * 2 * Rm1 * P);
    // per rank (the default direct algorithm): every layer it does not own
    // twice per micro-step, and R-1 copies of each layer it owns per reduce
    for (int r = 0; r < R; r++)
        CHECK_EQ_INT(lo->rank_in[SIM_COLL_BROADCAST][r] + lo->rank_in[SIM_COLL_REDUCE][r],
                     2 * micro * (P - own[r]) + syncs * Rm1 * own[r]);
    free(lo);
    return 0;
}

static int test_traffic(void) {
    SimDataset ds;
    SimModelSpec spec;
    int fails = 0;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    for (int R = 2; R <= 4; R++)
        fails += traffic_case(&ds, &spec, "mlp:16,32,32,4", R, 1, 0, 0, 2);
    fails += traffic_case(&ds, &spec, "mlp:16,32,32,4", 4, 2, 0, 0, 2);
    fails += traffic_case(&ds, &spec, "mlp:16,32,32,4", 3, 2, 1, 0, 2);
    fails += traffic_case(&ds, &spec, "mlp:16,32,32,4", 3, 1, 0, 1, 2);
    sim_dataset_free(&ds);
    CHECK(tddp_data_gpt(&ds, &spec) == SIM_OK);
    fails += traffic_case(&ds, &spec, "gpt:layers=1,embd=16", 4, 1, 0, 0, 2);
    sim_dataset_free(&ds);
    return fails;
}

// Each rank holds its own layers whole (params, grads, optimizer state)
// and at most one borrowed Linear at a time: unbalanced, and a rank with
// no layer of its own holds nothing between uses.
static int test_memory(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    const int R = 4;
    int U, U0;
    uint64_t P;
    count_modules(&spec, R, &U, &P, &U0, NULL);
    Held *h = calloc(1, sizeof *h);
    float *whole = calloc(WHOLE_CAP, sizeof *whole);
    CHECK(h != NULL && whole != NULL);
    h->whole = whole;
    TddpRun lo;
    tddp_config(&lo, &ds, &spec, R, 4, 2);
    use_layer_owner(&lo, h);
    CHECK(tddp_set_optim(&lo, "adam", 0) == 0);
    CHECK(tddp_run(&lo) == SIM_OK);
    uint64_t owned_total = 0;
    printf("  mlp:16,32,32,4 on %d ranks, Adam (model state per rank under DDP: %llu bytes "
           "= 16 x %llu parameters)\n", R, (unsigned long long)(4 * P),
           (unsigned long long)(P / 4));
    for (int r = 0; r < R; r++) {
        const SimLayerOwnerStats *s = &h->st[r];
        uint64_t borrowed = 0; // the largest layer this rank does not own
        for (int k = 1; k < h->nmodules; k++)
            if (h->owner[k] != r && h->module_bytes[k] > borrowed)
                borrowed = h->module_bytes[k];
        printf("    rank %d: owns %d layer%s, %llu param bytes; model state %llu bytes "
               "(params + grads + Adam's 2), peak %llu with a borrowed layer (%llu params "
               "at peak)\n", r, s->modules_owned, s->modules_owned == 1 ? "" : "s",
               (unsigned long long)s->owned_param_bytes,
               (unsigned long long)(4 * s->owned_param_bytes), (unsigned long long)s->peak_bytes,
               (unsigned long long)s->peak_param_bytes);
        owned_total += s->owned_param_bytes;
        CHECK_EQ_INT(s->optim_bytes, 2 * s->owned_param_bytes);
        CHECK_EQ_INT(s->peak_param_bytes, s->owned_param_bytes + borrowed);
        // at the end only the owned layers are held
        CHECK_EQ_INT(s->param_bytes, s->owned_param_bytes);
        CHECK_EQ_INT(s->grad_bytes, s->owned_param_bytes);
        // and the memory ledger says the same
        CHECK_EQ_INT(h->ledger[r][0], s->param_bytes);
        CHECK_EQ_INT(h->ledger[r][1], s->grad_bytes);
        CHECK_EQ_INT(h->ledger[r][2], s->optim_bytes);
    }
    CHECK_EQ_INT(owned_total, P);
    CHECK_EQ_INT(h->st[3].modules_owned, 0); // 3 layers on 4 ranks
    CHECK(h->st[1].owned_param_bytes > 4 * h->st[2].owned_param_bytes); // unbalanced
    tddp_free(&lo);
    free(whole), free(h);
    sim_dataset_free(&ds);
    return 0;
}

// --save under layer-owner: rank 0 writes the whole model gathered from the
// owners; resuming repeats the uninterrupted run exactly; DDP resumes too.
static int test_checkpoint(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,32,4", &spec) == SIM_OK);
    char dir[512], path[600];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "layer-owner") == 0);
    snprintf(path, sizeof path, "%s/ck.safetensors", dir);
    const int R = 3;
    Held *h = calloc(3, sizeof *h);
    float *whole = calloc(3 * (size_t)WHOLE_CAP, sizeof *whole);
    CHECK(h != NULL && whole != NULL);
    TddpRun run[4];
    for (int i = 0; i < 4; i++) {
        tddp_config(&run[i], &ds, &spec, R, 4, 4);
        if (i < 3) {
            h[i].whole = whole + (size_t)i * WHOLE_CAP;
            use_layer_owner(&run[i], &h[i]);
        } else {
            run[i].use_ddp = 1;
        }
        CHECK(tddp_set_optim(&run[i], "adam", 0) == 0);
        run[i].cfg.loop.accum = 2;
    }
    run[1].cfg.loop.stop_after = 2; // interrupted after step 2, saved there
    run[1].cfg.ckpt.save_path = path;
    run[2].cfg.ckpt.resume_path = path;
    run[3].cfg.ckpt.resume_path = path;
    int fails = 0;
    for (int i = 0; i < 4 && !fails; i++)
        if (tddp_run(&run[i]) != SIM_OK) {
            fprintf(stderr, "run %d: %s\n", i, run[i].error);
            fails = 1;
        }
    if (!fails) {
        double resumed = tddp_maxdiff(h[2].whole, h[0].whole, h[0].n);
        double by_ddp = tddp_maxdiff(run[3].params[0], h[0].whole, h[0].n);
        printf("  resumed layer-owner vs uninterrupted: max diff %.3g; ddp resumed from the "
               "layer-owner checkpoint: %.3g\n", resumed, by_ddp);
        fails = !(resumed == 0) || !(by_ddp <= TOL);
    }
    for (int i = 0; i < 4; i++)
        tddp_free(&run[i]);
    free(whole), free(h);
    tfile_rmtree(dir);
    sim_dataset_free(&ds);
    return fails;
}

// What the picture cannot do is refused at setup with a reason.
static int test_setup_errors(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 1024, "mlp:16,32,4", &spec) == SIM_OK);
    Held *h = calloc(1, sizeof *h);
    CHECK(h != NULL);
    h->whole = calloc(WHOLE_CAP, sizeof(float));
    CHECK(h->whole != NULL);
    TddpRun lo;
    tddp_config(&lo, &ds, &spec, 2, 4, 2);
    use_layer_owner(&lo, h);
    lo.cfg.eval.every = 1;
    CHECK(tddp_run(&lo) != SIM_OK);
    CHECK_STR_CONTAINS(lo.error, "evaluation during training is not supported");
    tddp_free(&lo);
    free(h->whole), free(h);
    sim_dataset_free(&ds);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_mlp_parity);
    RUN(test_gpt_parity);
    RUN(test_traffic);
    RUN(test_memory);
    RUN(test_checkpoint);
    RUN(test_setup_errors);
    return failures ? 1 : 0;
}
