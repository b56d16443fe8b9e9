// sim/train/train_ckpt.c: the trainer's whole state in a checkpoint, and back.
//
// Beside the model (sim/formats/checkpoint.h) a checkpoint holds:
//   optimizer/state.<i>.<kind>   the optimizer's per-parameter state, named as
//                                torch's optimizer.state_dict() names it
//                                ("exp_avg", "exp_avg_sq", "momentum_buffer")
//   optimizer/state.<i>.step     I64 scalar: that parameter's step count
//                                (only parameters that have taken a step)
//   train/has_grad               I64 [nparams]: 1 where `p.grad is not None`
//   metadata                     step, epoch, batch (the sampler's next batch
//                                in the epoch), the scaler, the RNG, the
//                                settings a resumed run must share, and every
//                                rank's timeline (train_timeline.c)
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/train_internal.h"

// Settings a resumed run must keep so that it takes the same batches.
enum { K_BATCH, K_ACCUM, K_SEED, K_SHUFFLE, K_DROP_LAST, K_DATASET_SIZE, K_SAMPLER_DROP_LAST,
       K_KEEP };
static const char *const keep_keys[K_KEEP] = {"batch",        "accum",     "seed",
                                              "shuffle",      "drop_last", "dataset_size",
                                              "sampler_drop_last"};
static const char *const keep_what[K_KEEP] = {"--batch",   "--accum",     "--seed",
                                              "--shuffle", "--drop-last", "the dataset size",
                                              "--sampler-drop-last"};

static void keep_values(const SimTrainer *t, int64_t v[K_KEEP]) {
    const SimTrainConfig *c = t->cfg;
    v[K_BATCH] = c->data.batch;
    v[K_ACCUM] = c->loop.accum;
    v[K_SEED] = (int64_t)c->seed;
    v[K_SHUFFLE] = c->data.shuffle;
    v[K_DROP_LAST] = c->data.drop_last;
    v[K_DATASET_SIZE] = c->data.set->n;
    v[K_SAMPLER_DROP_LAST] = c->data.sampler_drop_last;
}

// ----------------------------------------------------------------------------
// saving

static void add_meta(SimTrainPart *l, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_meta(SimTrainPart *l, const char *key, const char *fmt, ...) {
    if (l->nmeta == SIM_TRAIN_META_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->values[l->nmeta], SIM_TRAIN_META_LEN, fmt, ap);
    va_end(ap);
    l->meta[l->nmeta] = (SimStMeta){key, l->values[l->nmeta]};
    l->nmeta++;
}

static void fill_meta(const SimTrainer *t, const SimRank *r, SimTrainPart *l) {
    const SimTrainConfig *c = t->cfg;
    int64_t keep[K_KEEP];
    keep_values(t, keep);
    add_meta(l, "step", "%" PRId64, t->step);
    add_meta(l, "epoch", "%" PRId64, t->epoch);
    add_meta(l, "batch_in_epoch", "%" PRId64, t->batch);
    for (int k = 0; k < K_KEEP; k++)
        add_meta(l, keep_keys[k], "%" PRId64, keep[k]);
    add_meta(l, "dataset", "%.70s", c->data.set->name);
    add_meta(l, "total_steps", "%" PRId64, c->loop.steps);
    add_meta(l, "optimizer", "%s", sim_optim_kind_name(c->opt.optim.kind));
    add_meta(l, "optimizer.steps", "%" PRId64, t->optim.steps);
    add_meta(l, "lr", "%.17g", c->opt.optim.lr);
    add_meta(l, "lr_schedule", "%s", sim_lr_kind_name(c->opt.lr.kind));
    add_meta(l, "amp", "%s", sim_amp_name(c->opt.amp.amp));
    add_meta(l, "scaler.enabled", "%d", t->scaler.enabled);
    add_meta(l, "scaler.scale", "%.17g", (double)t->scaler.scale);
    add_meta(l, "scaler.growth_tracker", "%d", t->scaler.growth_tracker);
    add_meta(l, "scaler.skipped", "%" PRId64, t->scaler.skipped);
    // The only randomness during training is the shuffle, drawn from
    // splitmix64 (or PyTorch's mt19937) seeded with seed + epoch at the
    // start of each epoch.
    add_meta(l, "rng", "%s, seeded with seed + epoch for each epoch's shuffle",
             c->rng == SIM_RNG_TORCH ? "torch mt19937 (randperm)" : "splitmix64");
    add_meta(l, "rng.kind", "%s", sim_rng_name(c->rng));
    add_meta(l, "rng.state", "%" PRIu64, (uint64_t)(c->seed + (uint64_t)t->epoch));
    add_meta(l, "sim_time_s", "%.17g", train_timeline_sim_time(t, r));
}

SimStatus sim_train_part_make(SimTrainPart *p, const SimTrainer *t, const SimRank *r) {
    const SimModel *m = t->model;
    memset(p, 0, sizeof *p);
    int ntl = train_timeline_meta_count(t);
    p->host = calloc((size_t)m->nparams + 2, sizeof *p->host);
    p->step_names = calloc((size_t)m->nparams + 1, sizeof *p->step_names);
    p->has_grad = calloc((size_t)m->nparams + 1, sizeof *p->has_grad);
    p->meta = calloc(SIM_TRAIN_META_MAX + (size_t)ntl, sizeof *p->meta);
    p->timeline_keys = calloc((size_t)ntl + 1, sizeof *p->timeline_keys);
    if (!p->host || !p->step_names || !p->has_grad || !p->meta || !p->timeline_keys) {
        sim_train_part_free(p);
        return SIM_ENOMEM;
    }
    for (int i = 0; i < m->nparams; i++) {
        p->has_grad[i] = t->has_grad[i];
        if (t->optim.param_steps[i] == 0)
            continue;
        snprintf(p->step_names[i], sizeof p->step_names[i], "optimizer/state.%d.step", i);
        p->host[p->nhost++] =
            (SimStTensor){p->step_names[i], SIM_INT64, 0, {0}, &t->optim.param_steps[i]};
    }
    p->host[p->nhost++] = (SimStTensor){"train/has_grad", SIM_INT64, 1, {m->nparams}, p->has_grad};
    fill_meta(t, r, p);
    if (ntl > 0) {
        train_timeline_meta(t, p->meta + p->nmeta, p->timeline_keys, p->timeline_header,
                            sizeof p->timeline_header);
        p->nmeta += ntl;
    }
    return SIM_OK;
}

void sim_train_part_free(SimTrainPart *p) {
    free(p->host);
    free(p->step_names);
    free(p->has_grad);
    free(p->meta);
    free(p->timeline_keys);
    memset(p, 0, sizeof *p);
}

SimStatus sim_train_save(SimTrainer *t, SimRank *r, const char *path) {
    const SimModel *m = t->model;
    int nviews = sim_optim_state_views(&t->optim, NULL, 0);
    SimOptimStateView *ov = calloc((size_t)nviews + 1, sizeof *ov);
    SimCkptView *views = calloc((size_t)nviews + 1, sizeof *views);
    SimTrainPart *part = calloc(1, sizeof *part);
    SimStatus st = SIM_ENOMEM;
    if (!ov || !views || !part || sim_train_part_make(part, t, r) != SIM_OK)
        goto done;
    sim_optim_state_views(&t->optim, ov, nviews);
    for (int i = 0; i < nviews; i++) {
        snprintf(views[i].name, sizeof views[i].name, "optimizer/%s", ov[i].name);
        views[i].flat = ov[i].flat;
        views[i].offset = ov[i].offset;
        views[i].numel = ov[i].numel;
        views[i].ndim = ov[i].ndim;
        memcpy(views[i].shape, ov[i].shape, sizeof views[i].shape);
    }
    SimCkptExtra x = {nviews, views, part->nhost, part->host, part->nmeta, part->meta};
    char err[900];
    st = (sim_train_fault_save_crash(t, path) ? sim_ckpt_save_killed
                                              : sim_ckpt_save)(r, m, &x, path, err, sizeof err);
    if (st != SIM_OK)
        sim_train_fail(t, 0, st, "--save: %s", err);
done:
    if (st == SIM_ENOMEM && t->error[0] == '\0')
        sim_train_fail(t, 0, st, "--save: out of memory");
    free(ov);
    free(views);
    if (part)
        sim_train_part_free(part);
    free(part);
    return st;
}

// ----------------------------------------------------------------------------
// restoring

typedef struct {
    SimTrainScalars sc;
    SimCkptView *views;    // optimizer state to copy
    int nviews;
} Restored;
static SimStatus bad(SimTrainer *t, const SimCkpt *c, const char *what) {
    return sim_train_fail(t, 1, SIM_EFORMAT, "--resume: %s: %s", c->path, what);
}

static SimStatus read_scalars(SimTrainer *t, const SimCkpt *c, SimTrainScalars *s) {
    const SimTrainConfig *cfg = t->cfg;
    int64_t keep[K_KEEP];
    keep_values(t, keep);
    for (int k = 0; k < K_KEEP; k++) {
        int64_t v;
        // checkpoints written before --sampler-drop-last existed were saved without it
        if (k == K_SAMPLER_DROP_LAST && sim_ckpt_meta(c, keep_keys[k]) == NULL)
            v = 0;
        else if (sim_ckpt_meta_i64(c, keep_keys[k], &v) != 0)
            return bad(t, c, "corrupt metadata: a run setting is missing or malformed");
        if (v != keep[k])
            return sim_train_fail(t, 1, SIM_EINVAL, "--resume: %s was saved with %s %" PRId64
                                  ", this run has %" PRId64 "; a resumed run keeps the saved "
                                  "batch, accumulation, seed, shuffle, drop-last and data",
                                  c->path, keep_what[k], v, keep[k]);
    }
    const char *opt = sim_ckpt_meta(c, "optimizer");
    const char *want = sim_optim_kind_name(cfg->opt.optim.kind);
    if (opt == NULL || strcmp(opt, want) != 0)
        return sim_train_fail(t, 1, SIM_EINVAL, "--resume: %s was saved with --optimizer %.20s, "
                              "this run has %s", c->path, opt ? opt : "(none)", want);
    // The generator decides every later epoch's order. A checkpoint written
    // before --rng existed has no rng.kind: it was ddplab's generator.
    const char *gen = sim_ckpt_meta(c, "rng.kind");
    const char *gen_want = sim_rng_name(cfg->rng);
    if (strcmp(gen ? gen : "ddplab", gen_want) != 0)
        return sim_train_fail(t, 1, SIM_EINVAL, "--resume: %s was saved with --rng %.20s, this "
                              "run has --rng %s; a resumed run keeps the saved generator, or "
                              "its epochs would visit the samples in another order",
                              c->path, gen, gen_want);
    if (sim_ckpt_meta_i64(c, "step", &s->step) || sim_ckpt_meta_i64(c, "epoch", &s->epoch) ||
        sim_ckpt_meta_i64(c, "batch_in_epoch", &s->batch) ||
        sim_ckpt_meta_i64(c, "optimizer.steps", &s->opt_steps) ||
        sim_ckpt_meta_i64(c, "scaler.enabled", &s->enabled) ||
        sim_ckpt_meta_i64(c, "scaler.growth_tracker", &s->tracker) ||
        sim_ckpt_meta_i64(c, "scaler.skipped", &s->skipped) ||
        sim_ckpt_meta_f64(c, "scaler.scale", &s->scale) ||
        sim_ckpt_meta_f64(c, "sim_time_s", &s->sim_time) || s->step < 0 || s->epoch < 0 ||
        s->batch < 0 || !(s->scale > 0))
        return bad(t, c, "corrupt metadata: step, epoch, batch or scaler state is missing or "
                         "malformed");
    // The position is a batch index of each rank's share of the epoch: at
    // another world size the shares have other lengths.
    if (s->batch > t->sampler.num_batches)
        return sim_train_fail(t, 1, SIM_EINVAL, "--resume: %s stopped at batch %" PRId64 " of "
                              "its epoch; this run's epoch has %" PRId64 " batches per rank "
                              "(another world size); resume at the saved world size, or from "
                              "a checkpoint taken earlier in the epoch", c->path, s->batch,
                              (int64_t)t->sampler.num_batches);
    if (s->enabled != t->scaler.enabled)
        return sim_train_fail(t, 1, SIM_EINVAL, "--resume: %s was saved %s a loss scaler (--amp "
                              "%s); this run has --amp %s", c->path,
                              s->enabled ? "with" : "without", s->enabled ? "fp16" : "off/bf16",
                              sim_amp_name(cfg->opt.amp.amp));
    if (s->step >= cfg->loop.steps)
        return sim_train_fail(t, 1, SIM_EINVAL, "--steps: %" PRId64 " steps are already done in "
                              "%s; allowed: more than %" PRId64 " to continue", s->step, c->path,
                              s->step);
    return SIM_OK;
}

// Reads an I64 tensor of n elements (n = 0: a scalar) into out.
static SimStatus read_ints(SimTrainer *t, const SimCkpt *c, const char *name, int n,
                           int64_t *out) {
    int64_t shape[1] = {n};
    char err[700];
    if (sim_ckpt_expect(c, name, SIM_INT64, n ? 1 : 0, shape, err, sizeof err) != SIM_OK)
        return sim_train_fail(t, 1, SIM_EINVAL, "--resume: %s", err);
    const SimStTensor *x = sim_ckpt_tensor(c, name);
    memcpy(out, x->data, (size_t)(n ? n : 1) * sizeof(int64_t));
    return SIM_OK;
}

// Which parameters have a gradient, and their step counts.
static SimStatus read_counters(SimTrainer *t, const SimCkpt *c, SimTrainScalars *s) {
    const SimModel *m = t->model;
    SIM_CHECK(read_ints(t, c, "train/has_grad", m->nparams, s->has_grad));
    for (int i = 0; i < m->nparams; i++) {
        char name[48];
        snprintf(name, sizeof name, "optimizer/state.%d.step", i);
        s->param_steps[i] = 0;
        if (sim_ckpt_tensor(c, name) != NULL)
            SIM_CHECK(read_ints(t, c, name, 0, &s->param_steps[i]));
        if (s->param_steps[i] < 0)
            return bad(t, c, "corrupt optimizer state: a negative step count");
    }
    return SIM_OK;
}

SimStatus sim_train_part_read(SimTrainer *t, const SimCkpt *c, SimTrainScalars *s) {
    int np = t->model->nparams;
    memset(s, 0, sizeof *s);
    s->param_steps = calloc((size_t)np + 1, sizeof *s->param_steps);
    s->has_grad = calloc((size_t)np + 1, sizeof *s->has_grad);
    if (!s->param_steps || !s->has_grad)
        return sim_train_fail(t, 0, SIM_ENOMEM, "--resume: out of memory");
    SIM_CHECK(read_scalars(t, c, s));
    SIM_CHECK(read_counters(t, c, s));
    train_timeline_read(t, c, s);
    return SIM_OK;
}

void sim_train_scalars_free(SimTrainScalars *s) {
    free(s->param_steps);
    free(s->has_grad);
    free(s->timeline);
    memset(s, 0, sizeof *s);
}

// The optimizer state the step counts imply.
static SimStatus read_optim(SimTrainer *t, const SimCkpt *c, Restored *s) {
    const SimModel *m = t->model;
    for (int i = 0; i < m->nparams; i++) {
        for (int k = 0; s->sc.param_steps[i] > 0 && k < t->optim.nstate; k++) {
            SimOptimStateView v;
            sim_optim_state_view(&t->optim, i, k, &v);
            SimCkptView *cv = &s->views[s->nviews++];
            snprintf(cv->name, sizeof cv->name, "optimizer/%s", v.name);
            cv->flat = v.flat;
            cv->offset = v.offset;
            cv->numel = v.numel;
            cv->ndim = v.ndim;
            memcpy(cv->shape, v.shape, sizeof cv->shape);
            char err[700];
            if (sim_ckpt_expect(c, cv->name, SIM_FP32, cv->ndim, cv->shape, err, sizeof err))
                return sim_train_fail(t, 1, SIM_EINVAL, "--resume: %s", err);
        }
    }
    return SIM_OK;
}

void sim_train_part_apply(SimTrainer *t, SimRank *r, SimTrainScalars *s) {
    (void)r; // its timeline is put on at the end of set-up (train_timeline_resume)
    for (int i = 0; i < t->model->nparams; i++) {
        t->optim.param_steps[i] = s->param_steps[i];
        t->has_grad[i] = s->has_grad[i] != 0;
    }
    t->optim.steps = s->opt_steps;
    t->scaler.scale = (float)s->scale;
    t->scaler.growth_tracker = (int)s->tracker;
    t->scaler.skipped = s->skipped;
    t->step = s->step;
    t->epoch = s->epoch;
    t->batch = s->batch;
    free(t->resume_timeline);
    t->resume_timeline = s->timeline;
    s->timeline = NULL;
    t->resume_timeline_missing = s->timeline_missing;
    t->resume_sim = s->sim_time;
    snprintf(t->note, sizeof t->note, "%s", s->timeline_note);
    t->resumed = 1;
}

// Everything is read and checked; now it is copied in.
static SimStatus apply(SimTrainer *t, SimRank *r, const SimCkpt *c, Restored *s) {
    SimStatus st = sim_ckpt_apply_model(r, c, t->model);
    if (st == SIM_OK)
        st = sim_ckpt_apply_views(r, c, s->views, s->nviews);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "--resume: cannot load the state: %s", r->error);
    sim_train_part_apply(t, r, &s->sc);
    return SIM_OK;
}

SimStatus sim_train_restore(SimTrainer *t, SimRank *r) {
    SimCkpt c;
    char err[900];
    SimStatus st = sim_ckpt_open(&c, t->cfg->ckpt.resume_path, t->model, 1, err, sizeof err);
    if (st != SIM_OK)
        return sim_train_fail(t, st != SIM_ENOMEM, st, "--resume: %s", err);
    int np = t->model->nparams;
    Restored s = {0};
    s.views = calloc((size_t)np * SIM_OPTIM_MAX_STATE + 1, sizeof *s.views);
    if (!s.views)
        st = sim_train_fail(t, 0, SIM_ENOMEM, "--resume: out of memory");
    if (st == SIM_OK)
        st = sim_train_part_read(t, &c, &s.sc);
    if (st == SIM_OK)
        st = read_optim(t, &c, &s);
    if (st == SIM_OK)
        st = apply(t, r, &c, &s);
    sim_train_scalars_free(&s.sc);
    free(s.views);
    sim_ckpt_close(&c);
    return st;
}
