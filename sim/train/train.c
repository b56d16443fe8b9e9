// sim/train/train.c: the trainer's set-up and tear-down, the checks of data
// against the model, and the whole run on one rank (see train.h). One
// optimizer step is in train_step.c, checkpoints of the state in
// train_ckpt.c.
#include "train/train.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/fault.h"         // defines: sim_fault_find
#include "train/train_internal.h" // defines: sim_train_fail, sim_train_restore

SimStatus sim_train_fail(SimTrainer *t, int bad_input, SimStatus st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->error, sizeof t->error, fmt, ap);
    va_end(ap);
    t->bad_input = bad_input;
    return st;
}

void sim_train_config_default(SimTrainConfig *c) {
    memset(c, 0, sizeof *c);
    c->model.kind = SIM_MODEL_MLP;
    c->data.batch = 32;
    c->loop.accum = 1;
    c->loop.steps = 100;
    c->data.shuffle = 1;
    sim_optim_flags_default(&c->opt);
}

// ----------------------------------------------------------------------------
// data against model

static SimStatus check_mlp(const SimModelSpec *s, const SimDataset *ds, char *err, size_t len) {
    int in = s->widths[0], out = s->widths[s->nwidths - 1];
    if (ds->kind == SIM_DATA_TOKENS) {
        snprintf(err, len, "%s is token data (text) but an mlp takes features; train a gpt "
                 "model on it", ds->name);
        return SIM_EINVAL;
    }
    if (ds->features != in) {
        snprintf(err, len, "%s has %d features per sample but the model's first width is %d "
                 "(they must be equal)", ds->name, ds->features, in);
        return SIM_EINVAL;
    }
    if (s->mse && ds->kind != SIM_DATA_TARGETS) {
        snprintf(err, len, "%s has class labels but the model's loss is mse (drop ',mse' for "
                 "cross-entropy)", ds->name);
        return SIM_EINVAL;
    }
    if (!s->mse && ds->kind != SIM_DATA_CLASSES) {
        snprintf(err, len, "%s has float targets (regression) but the model's loss is "
                 "cross-entropy (add ',mse' to the model)", ds->name);
        return SIM_EINVAL;
    }
    if (s->mse && ds->target_dim != out) {
        snprintf(err, len, "%s has %d targets per sample but the model's last width is %d "
                 "(they must be equal)", ds->name, ds->target_dim, out);
        return SIM_EINVAL;
    }
    if (!s->mse && ds->classes > out) {
        snprintf(err, len, "%s has %d classes (labels 0..%d) but the model's last width is "
                 "only %d", ds->name, ds->classes, ds->classes - 1, out);
        return SIM_EINVAL;
    }
    return SIM_OK;
}

SimStatus sim_train_check_data(const SimModelSpec *s, const SimDataset *ds, char *err,
                               size_t len) {
    if (ds->n < 1) {
        snprintf(err, len, "%s is empty: no samples", ds->name);
        return SIM_EINVAL;
    }
    if (s->kind == SIM_MODEL_MLP)
        return check_mlp(s, ds, err, len);
    if (s->kind == SIM_MODEL_COUNT)
        return SIM_OK; // a parameter count reads no data: any batch will do
    if (ds->kind != SIM_DATA_TOKENS) {
        snprintf(err, len, "%s holds features, but a gpt model trains on tokens (--text FILE "
                 "or --data arith)", ds->name);
        return SIM_EINVAL;
    }
    if (ds->vocab > s->vocab) {
        snprintf(err, len, "%s has %d distinct tokens but the model's vocab is %d (it must be "
                 "at least %d)", ds->name, ds->vocab, s->vocab, ds->vocab);
        return SIM_EINVAL;
    }
    if (ds->ctx > s->ctx) {
        snprintf(err, len, "%s has windows of %d tokens but the model's ctx is %d", ds->name,
                 ds->ctx, s->ctx);
        return SIM_EINVAL;
    }
    return SIM_OK;
}

int64_t sim_train_batches_per_epoch(const SimTrainConfig *c, int nranks) {
    if (sim_fault_find(c->faults, SIM_FAULT_NO_SAMPLER, -1))
        nranks = 1; // no DistributedSampler: each rank's epoch is the whole dataset
    int64_t per_rank = sim_sampler_num_samples(c->data.set ? c->data.set->n : 0, nranks,
                                               c->data.sampler_drop_last);
    return sim_sampler_batches_of(per_rank, c->data.batch, c->data.drop_last);
}

int64_t sim_train_steps_for_epochs(const SimTrainConfig *c, int nranks, int64_t epochs) {
    return train_steps_of_batches(c, sim_train_batches_per_epoch(c, nranks), epochs);
}

int64_t train_steps_of_batches(const SimTrainConfig *c, int64_t nb, int64_t epochs) {
    int64_t k = c->loop.accum > 0 ? c->loop.accum : 1;
    // with an accum_tail mode blocks restart at each epoch: the short last
    // block steps (step) or does not (drop)
    if (c->loop.accum_tail == SIM_ACCUM_TAIL_STEP)
        return epochs * ((nb + k - 1) / k);
    if (c->loop.accum_tail == SIM_ACCUM_TAIL_DROP)
        return epochs * (nb / k);
    return epochs * nb / k;
}

// ----------------------------------------------------------------------------
// set-up

static SimStatus setup_data(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    SimSamplerConfig sc;
    char err[512];
    sim_sampler_defaults(&sc, c->data.set->n);
    sc.num_replicas = sim_train_fault_replicas(c, r->world->cfg.nranks);
    sc.rank = r->rank % sc.num_replicas;
    sc.shuffle = c->data.shuffle;
    sc.seed = (int64_t)c->seed;
    sc.rng = c->rng;
    sc.batch_size = c->data.batch;
    sc.drop_last = c->data.sampler_drop_last;
    sc.drop_last_batch = c->data.drop_last;
    if (sim_sampler_init(&t->sampler, &sc, err, sizeof err) != SIM_OK)
        return sim_train_fail(t, 1, SIM_EINVAL, "sampler: %s", err);
    if (t->sampler.num_batches < 1)
        return sim_train_fail(t, 1, SIM_EINVAL, "--batch: %d leaves no batch in an epoch of %lld "
                              "samples with --drop-last", c->data.batch,
                              (long long)t->sampler.num_samples);
    if (c->data.stream != SIM_STREAM_OFF &&
        sim_data_stream_init(&t->stream, c->data.stream, c->seed, sc.rank, c->data.set->n,
                        c->data.batch) != SIM_OK)
        return sim_train_fail(t, 0, SIM_ENOMEM, "out of memory for the stream's batch");
    if (sim_loader_init(&t->loader, c->data.set, c->data.batch) != SIM_OK)
        return sim_train_fail(t, 0, SIM_ENOMEM, "out of memory for the batch buffers");
    return SIM_OK;
}

// Weights: the seeded initialisation, then --init's file if given.
static SimStatus setup_weights(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    int per_rank = c->init_seed_per_rank || sim_train_fault_seed_per_rank(c);
    uint64_t seed = c->seed + (per_rank ? (uint64_t)r->rank : 0);
    SimStatus st = c->rng == SIM_RNG_TORCH ? sim_model_init_torch(r, t->model, seed)
                                           : sim_model_init(r, t->model, seed);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "model init: %s", r->error);
    if (c->ckpt.init_path == NULL)
        return SIM_OK;
    SimCkpt ck;
    char err[900];
    st = sim_ckpt_open(&ck, c->ckpt.init_path, t->model, 0, err, sizeof err);
    if (st != SIM_OK)
        return sim_train_fail(t, st != SIM_ENOMEM, st, "--init: %s", err);
    st = sim_ckpt_apply_model(r, &ck, t->model);
    sim_ckpt_close(&ck);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "--init: cannot load the weights: %s", r->error);
    return SIM_OK;
}

// Uneven inputs need DDP, 2 ranks or more, no accumulation, a per-rank
// logging loss under join (a script's own all_reduce inside the loop is not
// shadowed by Join: it would hang), and at least 3 batches on every rank
// (so that the one-time bucket rebuild never falls on a joined rank).
static SimStatus check_uneven(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    int R = r->world->cfg.nranks;
    if (c->data.join && c->data.uneven <= 0)
        return sim_train_fail(t, 1, SIM_EINVAL, "--join: needs uneven inputs (--uneven K)");
    if (c->data.uneven <= 0)
        return SIM_OK;
    if (c->strategy == NULL || strcmp(c->strategy->name, "ddp") != 0 || R < 2)
        return sim_train_fail(t, 1, SIM_EINVAL, "--uneven: needs --strategy ddp on 2 ranks or "
                              "more");
    if (c->loop.accum != 1)
        return sim_train_fail(t, 1, SIM_EINVAL, "--uneven: cannot be combined with --accum %d; "
                              "allowed: --accum 1", c->loop.accum);
    if (c->data.join && c->loop.loss_log != SIM_LOSS_LOCAL)
        return sim_train_fail(t, 1, SIM_EINVAL, "--join: the loss all_reduce for logging runs "
                              "inside the loop, where Join does not shadow it (a rank out of "
                              "data never enters it: a hang); allowed: --loss-log rank0");
    int64_t nb = t->sampler.num_batches;
    if (nb - c->data.uneven < 3)
        return sim_train_fail(t, 1, SIM_EINVAL, "--uneven: %d leaves rank %d fewer than 3 of "
                              "the epoch's %lld batches; allowed: 1 to %lld", c->data.uneven, R - 1,
                              (long long)nb, (long long)(nb - 3));
    return SIM_OK;
}

// Represent mode (SimWorldConfig.represent: rank 0 runs for every rank)
// holds only where every rank does the same: not with uneven inputs (ranks
// run out of data at different batches), nor with an evaluation only rank 0
// takes part in. (dp and layer-owner refuse it in their own set-up.)
static SimStatus check_represent(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    if (!r->world->cfg.represent)
        return SIM_OK;
    if (c->data.uneven > 0)
        return sim_train_fail(t, 1, SIM_EINVAL, "--uneven: ranks with different numbers of "
                              "batches cannot be represented by rank 0 alone; allowed: no "
                              "--uneven (or run every rank)");
    if (c->eval.every > 0 && c->eval.variant == SIM_EVAL_RANK0_ONLY)
        return sim_train_fail(t, 1, SIM_EINVAL, "--eval-variant rank0-only: only rank 0 "
                              "evaluates, so it cannot stand for the others; allowed: right, "
                              "mean-of-means");
    return SIM_OK;
}

SimStatus sim_train_setup(SimTrainer *t, SimRank *r, const SimTrainConfig *c) {
    memset(t, 0, sizeof *t);
    t->cfg = c;
    t->rank = r;
    char err[512];
    t->capacity = r->mem.capacity;
    if (c->strategy && c->strategy->backing_model)
        r->mem.capacity = 0; // the strategy's setup puts it back
    int max_batch = c->strategy && c->strategy->model_batch
                        ? c->strategy->model_batch(c, r->rank, r->world->cfg.nranks)
                        : c->data.batch;
    SimStatus st = sim_model_create(r, &c->model, max_batch, r->world->cfg.phantom, &t->model);
    if (st != SIM_OK)
        return sim_train_fail(t, st == SIM_EINVAL, st, "--model: %s", r->error);
    sim_model_set_training(t->model, 1);
    t->has_grad = calloc((size_t)t->model->nparams + 1, 1);
    t->grad_held = malloc((size_t)t->model->nparams + 1);
    if (t->has_grad == NULL || t->grad_held == NULL)
        return sim_train_fail(t, 0, SIM_ENOMEM, "out of memory");
    memset(t->grad_held, 1, (size_t)t->model->nparams + 1); // the flat buffer is charged
    SIM_CHECK(setup_weights(t, r));
    st = sim_optim_init(&t->optim, r, &c->opt.optim, &t->model->param, &t->model->grad,
                        t->model->params, t->model->nparams);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "optimizer: %s", r->error);
    sim_scaler_init(&t->scaler, &c->opt.amp, sim_amp_needs_scaler(&c->opt.amp));
    st = sim_lr_schedule_make(&t->sched, &c->opt.lr, c->opt.optim.lr, r->world->cfg.nranks,
                              c->loop.accum, c->loop.steps, err, sizeof err);
    if (st != SIM_OK)
        return sim_train_fail(t, 1, st, "%s", err);
    SIM_CHECK(setup_data(t, r));
    SIM_CHECK(check_uneven(t, r));
    SIM_CHECK(check_represent(t, r));
    int own_restore = c->strategy && c->strategy->restore;
    if (c->ckpt.resume_path && !own_restore)
        SIM_CHECK(sim_train_restore(t, r));
    if (c->strategy) {
        st = c->strategy->setup(r, t, c->strategy_cfg, &t->strategy);
        r->mem.capacity = t->capacity;
        if (st != SIM_OK)
            return sim_train_fail(t, st == SIM_EINVAL, st, "%s: %s", c->strategy->name,
                                  r->error);
    }
    if (c->ckpt.resume_path && own_restore) {
        st = c->strategy->restore(t->strategy, r, t, c->ckpt.resume_path);
        if (st != SIM_OK)
            return t->error[0] ? st : sim_train_fail(t, st == SIM_EINVAL || st == SIM_EFORMAT,
                                                     st, "--resume: %s", r->error);
    }
    t->start_step = t->step;
    SIM_CHECK(sim_train_fault_setup(t, r));
    sim_train_set_epoch(t, r);
    // last: what set-up itself did (DDP's broadcast, the allocations) is the
    // new process's own, before the saved timeline goes on
    return train_timeline_resume(t, r);
}

void sim_train_free(SimTrainer *t, SimRank *r) {
    if (t->cfg && t->cfg->strategy && t->strategy)
        t->cfg->strategy->teardown(t->strategy, r);
    t->strategy = NULL;
    sim_loader_free(&t->loader);
    sim_data_stage_free(&t->data_stage);
    sim_sampler_free(&t->sampler);
    sim_data_stream_free(&t->stream);
    sim_optim_free(&t->optim, r);
    sim_model_destroy(r, t->model);
    free(t->has_grad);
    free(t->grad_held);
    t->model = NULL;
    t->has_grad = NULL;
    t->grad_held = NULL;
    train_timeline_free(t);
}

// ----------------------------------------------------------------------------
// the run

int64_t train_end_step(const SimTrainConfig *c) {
    const SimTrainLoop *l = &c->loop;
    return l->stop_after > 0 && l->stop_after < l->steps ? l->stop_after : l->steps;
}

// A checkpoint: replicated strategies hold the same state on every rank and
// rank 0 writes it; a strategy with its own save needs every rank. Every
// rank first hands rank 0 its timeline, as the step left it.
static SimStatus save(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    SIM_CHECK(train_timeline_collect(t, r));
    SimStatus st = SIM_OK;
    if (c->strategy && c->strategy->save) {
        st = c->strategy->save(t->strategy, r, t, c->ckpt.save_path);
        if (st != SIM_OK && !t->error[0])
            st = sim_train_fail(t, 0, st, "--save: %s", r->error);
    } else if (r->rank == 0) {
        st = sim_train_save(t, r, c->ckpt.save_path);
    }
    train_timeline_free(t); // this save's records: no later save may take them
    return st;
}

// 1 when a checkpoint launches no collective: a replicated strategy's rank
// 0 writes the state it holds. A strategy's own save (FSDP) gathers.
static int save_is_local(const SimTrainConfig *c) {
    return c->strategy == NULL || c->strategy->save == NULL;
}

SimStatus sim_train_run(SimRank *r, void *arg) {
    SimTrainer *t = (SimTrainer *)arg + r->rank;
    const SimTrainConfig *c = t->cfg;
    SIM_CHECK(sim_train_setup(t, r, c));
    if (c->hooks.on_stage && c->hooks.on_stage(c->hooks.on_stage_arg, t, SIM_STAGE_INIT, -1) != SIM_OK)
        return sim_train_fail(t, 0, SIM_EIO, "initial weights: %s", r->error);
    if (c->hooks.on_ready)
        c->hooks.on_ready(c->hooks.on_ready_arg, r->rank, t);
    int64_t end = train_end_step(c);
    float last_loss = NAN;
    while (t->step < end) {
        SimStepStats s;
        SIM_CHECK(sim_train_step(t, r, &s));
        if (t->out_of_data) // uneven inputs without join: this rank's loop is over
            return sim_train_fault_unfired(t, r, INT64_MAX);
        if (c->hooks.on_step)
            c->hooks.on_step(c->hooks.on_step_arg, r->rank, &s);
        last_loss = s.loss_local;
        if (c->eval.every > 0 && t->step % c->eval.every == 0) {
            SimEvalStats e;
            SIM_CHECK(sim_train_evaluate(t, r, &e));
            if (c->hooks.on_eval)
                c->hooks.on_eval(c->hooks.on_eval_arg, r->rank, &e);
        }
        // a save without collectives ends the step's collectives: a fault
        // the step did not reach is refused before the checkpoint is written
        if (save_is_local(c))
            SIM_CHECK(sim_train_fault_unfired(t, r, t->step));
        int last = t->step == end;
        if (c->ckpt.save_path && !last && c->ckpt.save_every > 0 && t->step % c->ckpt.save_every == 0)
            SIM_CHECK(save(t, r));
    }
    if (c->eval.probe && t->step > 0) {
        SimProbeStats p;
        SIM_CHECK(sim_train_probe(t, r, last_loss, &p));
        if (c->hooks.on_probe)
            c->hooks.on_probe(c->hooks.on_probe_arg, r->rank, &p);
        sim_train_probe_free(&p);
    }
    if (c->ckpt.save_path)
        SIM_CHECK(save(t, r));
    return sim_train_fault_unfired(t, r, t->step);
}
