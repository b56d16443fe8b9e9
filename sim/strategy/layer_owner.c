// sim/strategy/layer_owner.c: the "each layer owned by one rank" picture of FSDP
// (see layer_owner.h for why it is the wrong picture and what one rank
// does). The strategy lives in the model's module hooks: a borrowed layer
// arrives by broadcast before its forward and its backward and is dropped
// after; its gradient is reduced into its owner after its backward.
#include "strategy/layer_owner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"   // defines: sim_broadcast, sim_reduce, sim_all_reduce
#include "engine/memory.h" // defines: sim_mem_charge, sim_rank_mem_reset_peak
#include "engine/ops.h"    // defines: sim_op_fill, sim_op_scale, sim_tensor_alloc
#include "train/train.h"   // defines: SimTrainer, SimStepStats

#define LO_DROP_MARKER "layer-owner drop"
#define LO_NFLAT (2 + SIM_OPTIM_MAX_STATE) // flat tensors: params, grads, optimizer state

typedef struct {
    SimModel *m;
    SimTrainer *t;
    SimRank *r;
    int world, rank;
    int *owner;          // [nmodules] owning rank, -1: root or no parameters
    size_t *off, *numel; // [nmodules] the module's range of the flat buffers
    uint8_t *held;       // [nmodules] 1: its parameters are held here (owned: always)
    uint8_t *grad_held;  // [nmodules] 1: a borrowed module's gradient is held here
    uint8_t *mine;       // [nparams] 1: parameter i is in a module this rank owns
    uint8_t *mask;       // [nparams] the update's mask: has_grad and mine
    int sync;            // this micro-step synchronises (reduces) gradients
    // The memory ledger, by flat tensor (0 params, 1 grads, 2 + k optimizer
    // state k): the tensors are booked as backing store, and what this rank
    // holds of each is charged to the tensor's own category and space.
    int16_t cat[LO_NFLAT], space[LO_NFLAT];
    uint8_t booked[LO_NFLAT];   // 1: the tensor was re-booked as backing store
    int64_t charged[LO_NFLAT];  // bytes charged now (released at teardown)
    SimLayerOwnerStats st;
} LoState;

int sim_layer_owner_of(const SimModel *m, int module, int nranks) {
    if (module < 1 || module >= m->nmodules || m->modules[module].nparams <= 0 || nranks < 1)
        return -1;
    int j = 0; // the module's number among those with parameters
    for (int k = 1; k < module; k++)
        j += m->modules[k].nparams > 0;
    return j % nranks;
}

// ----------------------------------------------------------------------------
// what a rank holds: its own figures and the memory ledger

static uint64_t module_bytes(const LoState *s, int k) {
    return (uint64_t)s->numel[k] * sizeof(float);
}

static void note_peaks(LoState *s) {
    SimLayerOwnerStats *st = &s->st;
    if (st->param_bytes > st->peak_param_bytes)
        st->peak_param_bytes = st->param_bytes;
    uint64_t all = st->param_bytes + st->grad_bytes + st->optim_bytes;
    if (all > st->peak_bytes)
        st->peak_bytes = all;
}

static SimTensor *flat(LoState *s, int which) {
    return which == 0 ? &s->m->param : which == 1 ? &s->m->grad
                                                  : &s->t->optim.state[which - 2];
}

// Charges (delta > 0) or releases what this rank holds of flat tensor
// `which`, in the ledger category the tensor had.
static SimStatus charge(LoState *s, int which, int64_t delta, const char *what) {
    if (!s->booked[which] || delta == 0)
        return SIM_OK;
    SIM_CHECK(sim_mem_charge(s->r, (SimMemSpace)s->space[which], (SimMemCat)s->cat[which],
                             delta, what));
    s->charged[which] += delta;
    return SIM_OK;
}

// The flat tensor's whole storage becomes backing store (numeric mode needs
// it; the run this models would not hold it): from here on only what the
// rank holds is charged to the tensor's own category.
static SimStatus book_as_backing(LoState *s, int which) {
    SimTensor *t = flat(s, which);
    if (t->charged <= 0 || t->mem_cat == SIM_MEM_BACKING)
        return SIM_OK;
    SimMemSpace sp = (SimMemSpace)t->mem_space;
    const char *what = t->name ? t->name : "tensor";
    SIM_CHECK(sim_mem_charge(s->r, sp, SIM_MEM_BACKING, t->charged, what));
    SIM_CHECK(sim_mem_charge(s->r, sp, (SimMemCat)t->mem_cat, -t->charged, what));
    s->cat[which] = t->mem_cat;
    s->space[which] = t->mem_space;
    s->booked[which] = 1;
    t->mem_cat = SIM_MEM_BACKING; // its free releases the backing store
    return SIM_OK;
}

// The parameters of borrowed module k arrive (held = 1) or go (0).
static SimStatus hold_params(LoState *s, int k, int hold) {
    if (s->held[k] == hold)
        return SIM_OK;
    s->held[k] = (uint8_t)hold;
    uint64_t b = module_bytes(s, k);
    s->st.param_bytes = hold ? s->st.param_bytes + b : s->st.param_bytes - b;
    note_peaks(s);
    return charge(s, 0, hold ? (int64_t)b : -(int64_t)b,
                  hold ? "layer-owner: borrowed layer" : "layer-owner: dropped layer");
}

static SimStatus hold_grad(LoState *s, int k, int hold) {
    if (s->grad_held[k] == hold)
        return SIM_OK;
    s->grad_held[k] = (uint8_t)hold;
    uint64_t b = module_bytes(s, k);
    s->st.grad_bytes = hold ? s->st.grad_bytes + b : s->st.grad_bytes - b;
    note_peaks(s);
    return charge(s, 1, hold ? (int64_t)b : -(int64_t)b,
                  hold ? "layer-owner: borrowed layer's gradient"
                       : "layer-owner: gradient sent to the owner");
}

// ----------------------------------------------------------------------------
// the module hooks

static void *range_ptr(const SimTensor *t, size_t off) {
    return t->data ? (char *)t->data + off * sizeof(float) : NULL;
}

// The drop marker, at the rank's latest stream time: module index in
// `chunk`, its owner in `src`, elements and bytes dropped.
static void mark_drop(LoState *s, int k, const char *when) {
    SimRank *r = s->r;
    s->st.drops++;
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, LO_DROP_MARKER, when,
                   sim_rank_now(r));
    ev.seq = r->coll_seq;
    ev.count = s->numel[k];
    ev.bytes = module_bytes(s, k);
    ev.chunk = k;
    ev.src = s->owner[k];
    sim_rank_trace(r, &ev);
}

// A borrowed module's parameters go: NaN in numeric mode, so that any use
// without a broadcast before it shows in the loss.
static SimStatus drop_params(LoState *s, int k, const char *when) {
    if (s->owner[k] == s->rank || !s->held[k])
        return SIM_OK;
    SIM_CHECK(sim_op_fill(s->r, &s->m->param, s->off[k], s->numel[k], NAN));
    mark_drop(s, k, when);
    return hold_params(s, k, 0);
}

// Before module k's forward or backward: its owner broadcasts it. The
// others make room first (a layer that does not fit fails here, in the
// ledger's out-of-memory report); in backward also for its gradient.
static SimStatus borrow(LoState *s, int k, int backward) {
    if (s->owner[k] != s->rank) {
        SIM_CHECK(hold_params(s, k, 1));
        if (backward)
            SIM_CHECK(hold_grad(s, k, 1));
    }
    void *p = range_ptr(&s->m->param, s->off[k]);
    SIM_CHECK(sim_broadcast(s->r, p, p, s->numel[k], SIM_FP32, s->owner[k],
                            s->r->world->cfg.algo));
    s->st.broadcasts++;
    return SIM_OK;
}

// After module k's backward: on a synchronising micro-step its gradient is
// reduced (SUM) into the owner, which divides it by R in sync; the others
// drop it (zeros, for the next backward to accumulate into). Under no_sync
// they keep it until then. The borrowed parameters go either way.
static SimStatus after_backward(LoState *s, int k) {
    if (s->sync) {
        void *g = range_ptr(&s->m->grad, s->off[k]);
        SIM_CHECK(sim_reduce(s->r, g, g, s->numel[k], SIM_FP32, SIM_SUM, s->owner[k],
                             s->r->world->cfg.algo));
        s->st.reduces++;
        if (s->owner[k] != s->rank) {
            SIM_CHECK(sim_op_fill(s->r, &s->m->grad, s->off[k], s->numel[k], 0.0f));
            SIM_CHECK(hold_grad(s, k, 0));
        }
    }
    return drop_params(s, k, "after backward");
}

static SimStatus lo_hook(void *arg, SimModuleEvent ev, int k) {
    LoState *s = arg;
    if (k < 1 || k >= s->m->nmodules || s->owner[k] < 0)
        return SIM_OK; // the root: its children carry every parameter
    switch (ev) {
    case SIM_MODULE_PRE_FORWARD: return borrow(s, k, 0);
    case SIM_MODULE_POST_FORWARD: return drop_params(s, k, "after forward");
    case SIM_MODULE_PRE_BACKWARD: return borrow(s, k, 1);
    case SIM_MODULE_POST_BACKWARD: return after_backward(s, k);
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// set-up and tear-down

static SimStatus fail(SimRank *r, SimStatus st, const char *msg) {
    snprintf(r->error, sizeof r->error, "%s", msg);
    return st;
}

// Owners and ranges; every parameter must lie in one top-level module, and
// each module's parameters back to back in the flat buffer.
static SimStatus plan(LoState *s, SimRank *r) {
    const SimModel *m = s->m;
    for (int k = 0; k < m->nmodules; k++) {
        s->owner[k] = sim_layer_owner_of(m, k, s->world);
        if (s->owner[k] < 0)
            continue;
        const SimModuleInfo *mod = &m->modules[k];
        const SimParamInfo *first = &m->params[mod->first_param];
        s->off[k] = first->offset;
        for (int i = mod->first_param; i < mod->first_param + mod->nparams; i++) {
            if (m->params[i].offset != s->off[k] + s->numel[k]) {
                snprintf(r->error, sizeof r->error, "module '%s': its parameters are not "
                         "contiguous in the flat buffer", mod->name);
                return SIM_EINVAL;
            }
            s->numel[k] += m->params[i].numel;
            if (s->mine[i] != 0xff) {
                snprintf(r->error, sizeof r->error, "parameter '%s' lies in two modules",
                         m->params[i].name);
                return SIM_EINVAL;
            }
            s->mine[i] = s->owner[k] == s->rank;
        }
        s->held[k] = s->owner[k] == s->rank;
    }
    for (int i = 0; i < m->nparams; i++)
        if (s->mine[i] == 0xff) {
            snprintf(r->error, sizeof r->error, "parameter '%s' belongs to no top-level module, "
                     "so no rank would own it", m->params[i].name);
            return SIM_EINVAL;
        }
    return SIM_OK;
}

// What this rank holds from the start: its own modules' parameters,
// gradients and optimizer state. The rest is dropped (NaN in numeric mode);
// in the ledger the flat tensors become backing store and the owned part
// is charged.
static SimStatus drop_unowned(LoState *s) {
    SimOptim *opt = &s->t->optim;
    for (int k = 1; k < s->m->nmodules; k++) {
        if (s->owner[k] < 0)
            continue;
        uint64_t b = module_bytes(s, k);
        if (s->owner[k] == s->rank) {
            s->st.modules_owned++;
            s->st.owned_param_bytes += b;
            continue;
        }
        SIM_CHECK(sim_op_fill(s->r, &s->m->param, s->off[k], s->numel[k], NAN));
        mark_drop(s, k, "not owned");
    }
    uint64_t own = s->st.owned_param_bytes;
    s->st.param_bytes = s->st.grad_bytes = own;
    s->st.optim_bytes = own * (uint64_t)opt->nstate;
    note_peaks(s);
    for (int w = 0; w < 2 + opt->nstate; w++)
        SIM_CHECK(book_as_backing(s, w));
    // the loop built the full-size tensors without the device capacity
    // (backing_model); what this rank holds is checked against it
    s->r->mem.capacity = s->t->capacity;
    for (int w = 0; w < 2 + opt->nstate; w++)
        SIM_CHECK(charge(s, w, (int64_t)own, w == 0 ? "layer-owner: owned layers" :
                         w == 1 ? "layer-owner: owned layers' gradients"
                                : "layer-owner: owned layers' optimizer state"));
    return SIM_OK;
}

static SimStatus lo_setup(SimRank *r, SimTrainer *t, const void *cfg, void **state) {
    LoState *s = calloc(1, sizeof *s);
    *state = s;
    if (s == NULL)
        return fail(r, SIM_ENOMEM, "out of memory");
    (void)cfg; // no options: the collectives run the world's algorithm
    s->m = t->model;
    s->t = t;
    s->r = r;
    s->world = r->world->cfg.nranks;
    s->rank = r->rank;
    if (t->cfg->eval.every > 0)
        return fail(r, SIM_EINVAL, "evaluation during training is not supported (each "
                    "rank's forward would need its owners' broadcasts, and ranks may evaluate "
                    "different numbers of batches); allowed: no --eval-every");
    if (t->cfg->data.uneven > 0)
        return fail(r, SIM_EINVAL, "uneven inputs are not supported; allowed: no --uneven");
    if (r->world->cfg.represent)
        return fail(r, SIM_EINVAL, "the layer-owner strategy cannot run with one rank standing "
                    "for all (represent mode): each rank owns different layers, so the ranks do "
                    "different things; run every rank (the cpu backend)");
    int nm = s->m->nmodules, np = s->m->nparams;
    s->owner = malloc((size_t)(nm + 1) * sizeof *s->owner);
    s->off = calloc((size_t)nm + 1, sizeof *s->off);
    s->numel = calloc((size_t)nm + 1, sizeof *s->numel);
    s->held = calloc((size_t)nm + 1, 1);
    s->grad_held = calloc((size_t)nm + 1, 1);
    s->mine = malloc((size_t)np + 1);
    s->mask = calloc((size_t)np + 1, 1);
    if (!s->owner || !s->off || !s->numel || !s->held || !s->grad_held || !s->mine || !s->mask)
        return fail(r, SIM_ENOMEM, "out of memory");
    memset(s->mine, 0xff, (size_t)np + 1); // 0xff: in no module yet
    if (nm < 2)
        return fail(r, SIM_EINVAL, "the model has no top-level modules to own");
    SIM_CHECK(plan(s, r));
    SIM_CHECK(drop_unowned(s));
    // the peak so far is numeric mode's full-size set-up, which the run
    // this models never holds
    sim_rank_mem_reset_peak(r);
    sim_model_set_module_hook(s->m, lo_hook, s);
    return SIM_OK;
}

static void lo_teardown(void *state, SimRank *r) {
    LoState *s = state;
    if (s == NULL)
        return;
    if (s->m && s->m->module_hook == lo_hook)
        sim_model_set_module_hook(s->m, NULL, NULL);
    // what the rank held goes; the tensors' frees release the backing store
    for (int w = 0; w < LO_NFLAT; w++)
        if (s->charged[w] > 0)
            (void)sim_mem_charge(r, (SimMemSpace)s->space[w], (SimMemCat)s->cat[w],
                                 -s->charged[w], "layer-owner: teardown");
    free(s->owner);
    free(s->off);
    free(s->numel);
    free(s->held);
    free(s->grad_held);
    free(s->mine);
    free(s->mask);
    free(s);
}

// ----------------------------------------------------------------------------
// each step

static SimStatus lo_before_forward(void *state, SimRank *r, SimTrainer *t, int sync) {
    (void)r, (void)t;
    LoState *s = state;
    s->sync = sync;
    return SIM_OK;
}

// The owner's reduced gradients hold the SUM over ranks: / R for the mean.
static SimStatus lo_sync(void *state, SimRank *r, SimTrainer *t) {
    (void)t;
    LoState *s = state;
    if (s->world < 2)
        return SIM_OK;
    float inv = 1.0f / (float)s->world;
    for (int k = 1; k < s->m->nmodules; k++)
        if (s->owner[k] == s->rank)
            SIM_CHECK(sim_op_scale(r, &s->m->grad, s->off[k], s->numel[k], inv));
    return SIM_OK;
}

// One fp32 value all_reduced with op, through a one-element device tensor.
static SimStatus all_reduce_scalar(SimRank *r, float *x, SimRedOp op, const char *name) {
    SimTensor v;
    int64_t shape[1] = {1};
    sim_tensor_init(&v, name, SIM_FP32, 1, shape);
    SimStatus st = sim_tensor_alloc(r, &v, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &v, x);
    if (st == SIM_OK)
        st = sim_all_reduce(r, v.data, v.data, 1, SIM_FP32, op, SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &v, x);
    sim_tensor_free(r, &v);
    return st;
}

// The loop's unscale / clip / step, over the parameters this rank owns.
static SimStatus lo_update(void *state, SimRank *r, SimTrainer *t, SimStepStats *out) {
    LoState *s = state;
    const SimTrainConfig *c = t->cfg;
    SimModel *m = s->m;
    for (int i = 0; i < m->nparams; i++)
        s->mask[i] = t->has_grad[i] && s->mine[i];
    SIM_CHECK(sim_scaler_unscale(&t->scaler, r, &m->grad, m->params, m->nparams, s->mask));
    if (t->scaler.enabled) { // ShardedGradScaler: one rank's inf skips every rank's step
        float found = (float)t->scaler.found_inf;
        SIM_CHECK(all_reduce_scalar(r, &found, SIM_MAX, "layer_owner.found_inf"));
        t->scaler.found_inf = found != 0.0f;
    }
    if (c->opt.clip_grad_norm > 0 || c->want_grad_norm) {
        double mine = 0;
        SIM_CHECK(sim_clip_sumsq(r, &m->grad, m->params, m->nparams, s->mask, &mine));
        float sumsq = (float)mine;
        SIM_CHECK(all_reduce_scalar(r, &sumsq, SIM_SUM, "layer_owner.grad_sumsq"));
        out->grad_norm = (float)sqrt((double)sumsq);
        if (c->opt.clip_grad_norm > 0)
            SIM_CHECK(sim_clip_scale(r, &m->grad, m->params, m->nparams, s->mask,
                                     sim_clip_coef(out->grad_norm, c->opt.clip_grad_norm)));
    }
    out->lr = sim_lr_at(&t->sched, t->step);
    int stepped = 0;
    SIM_CHECK(sim_scaler_step(&t->scaler, r, &t->optim, out->lr, s->mask, &stepped));
    SIM_CHECK(sim_scaler_update(&t->scaler, r));
    out->skipped = !stepped;
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// checkpoints

// One range from module k's owner to rank 0: the owner sends, rank 0
// receives.
static SimStatus pass(LoState *s, SimRank *r, int k, void *buf, size_t n, SimDtype dt) {
    if (s->rank == s->owner[k])
        return sim_send(r, buf, n, dt, 0);
    return sim_recv(r, buf, n, dt, s->owner[k]);
}

// Module k's parameters, optimizer state and step counters, from its owner
// to rank 0 (the counters through `steps`, an int64 staging tensor of the
// module's parameter count).
static SimStatus send_module(LoState *s, SimRank *r, int k, SimTensor *steps) {
    SimOptim *opt = &s->t->optim;
    const SimModuleInfo *mod = &s->m->modules[k];
    size_t n = s->numel[k];
    SIM_CHECK(pass(s, r, k, range_ptr(&s->m->param, s->off[k]), n, SIM_FP32));
    for (int j = 0; j < opt->nstate; j++)
        SIM_CHECK(pass(s, r, k, range_ptr(&opt->state[j], s->off[k]), n, SIM_FP32));
    int64_t *ps = opt->param_steps + mod->first_param;
    if (s->rank == s->owner[k])
        SIM_CHECK(sim_tensor_upload(r, steps, ps));
    SIM_CHECK(pass(s, r, k, steps->data, (size_t)mod->nparams, SIM_INT64));
    if (s->rank == 0)
        SIM_CHECK(sim_tensor_download(r, steps, ps));
    return SIM_OK;
}

// The checkpoint: the owners' modules gathered to rank 0, which writes the
// same file DDP's rank 0 would, then drops the borrowed modules again.
static SimStatus lo_save(void *state, SimRank *r, SimTrainer *t, const char *path) {
    LoState *s = state;
    int most = 1;
    for (int k = 1; k < s->m->nmodules; k++)
        if (s->owner[k] >= 0 && s->m->modules[k].nparams > most)
            most = s->m->modules[k].nparams;
    SimTensor steps;
    int64_t shape[1] = {most};
    sim_tensor_init(&steps, "layer_owner.param_steps", SIM_INT64, 1, shape);
    SIM_CHECK(sim_tensor_alloc(r, &steps, 0));
    SimStatus st = SIM_OK;
    for (int k = 1; st == SIM_OK && k < s->m->nmodules; k++) {
        if (s->owner[k] <= 0 || (s->rank != 0 && s->rank != s->owner[k]))
            continue; // rank 0's own modules are already there
        // the staging tensor's first nparams elements carry this module's
        SimTensor part = steps;
        part.shape[0] = s->m->modules[k].nparams;
        st = send_module(s, r, k, &part);
    }
    sim_tensor_free(r, &steps);
    SIM_CHECK(st);
    if (s->rank != 0)
        return SIM_OK;
    st = path ? sim_train_save(t, r, path) : SIM_OK;
    for (int k = 1; k < s->m->nmodules; k++)
        if (s->owner[k] > 0) {
            // held only for the write: back to NaN (the received copy was
            // never charged as held)
            SimStatus d = sim_op_fill(r, &s->m->param, s->off[k], s->numel[k], NAN);
            if (st == SIM_OK)
                st = d;
        }
    return st;
}

const SimStrategyOps sim_layer_owner_strategy = {
    .name = "layer-owner",
    .setup = lo_setup,
    .before_forward = lo_before_forward,
    .after_forward = NULL,
    .on_grad = NULL,
    .after_backward = NULL,
    .sync = lo_sync,
    .teardown = lo_teardown,
    .micro_step = NULL,
    .root_only_update = 0,
    .join_shadow = NULL,
    .join_exit = NULL,
    .update = lo_update,
    .save = lo_save,
    .restore = NULL, // every rank reads the whole checkpoint; setup drops the rest
    .backing_model = 1, // the full-size tensors are numeric mode's backing store
};

int sim_layer_owner_stats(const SimTrainer *t, SimLayerOwnerStats *out) {
    if (t == NULL || t->cfg == NULL || t->cfg->strategy != &sim_layer_owner_strategy ||
        t->strategy == NULL)
        return -1;
    *out = ((const LoState *)t->strategy)->st;
    return 0;
}
