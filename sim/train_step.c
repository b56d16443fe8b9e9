// sim/train_step.c: one optimizer step of the training loop (see train.h),
// in the order of a PyTorch AMP training script:
//
//   optimizer.zero_grad()
//   for each micro-batch: loss = model(x); scaler.scale(loss / accum).backward()
//   (strategy: synchronise gradients)
//   scaler.unscale_(optimizer); clip_grad_norm_(model.parameters(), max_norm)
//   scaler.step(optimizer); scaler.update(); scheduler.step()
#include <math.h>
#include <stdio.h>

#include "train_internal.h"

// The next batch of this rank's sampler, moving to the next epoch (and its
// shuffle order) when the current one is used up.
static SimStatus next_batch(SimTrainer *t, SimRank *r, SimBatch *b) {
    (void)r;
    if (t->batch >= t->sampler.num_batches) {
        t->epoch++;
        t->batch = 0;
        sim_sampler_set_epoch(&t->sampler, t->epoch);
    }
    const int64_t *idx = NULL;
    int n = sim_sampler_batch(&t->sampler, t->batch, &idx);
    t->batch++;
    if (n < 1 || sim_loader_fill(&t->loader, idx, n, b) != SIM_OK)
        return sim_train_fail(t, 0, SIM_EINVAL, "data loader: cannot fill batch %lld of epoch "
                              "%lld", (long long)(t->batch - 1), (long long)t->epoch);
    return SIM_OK;
}

// The gradient-ready hook during backward: the strategy's, then the
// caller's (cfg->on_grad), each with its own argument.
static void grad_ready(void *arg, int param) {
    SimTrainer *t = arg;
    const SimTrainConfig *c = t->cfg;
    if (c->strategy && c->strategy->on_grad)
        c->strategy->on_grad(t->strategy, t->rank, param);
    if (c->on_grad)
        c->on_grad(c->on_grad_arg, param);
}

typedef SimStatus (*StrategyPoint)(void *, SimRank *, SimTrainer *, int);

// One of the strategy's per-micro-step callbacks, if it has one.
static SimStatus strategy_point(SimTrainer *t, SimRank *r, StrategyPoint fn, int sync,
                                const char *where) {
    if (fn == NULL)
        return SIM_OK;
    SimStatus st = fn(t->strategy, r, t, sync);
    if (st != SIM_OK)
        return sim_train_fail(t, st == SIM_EINVAL, st, "%s (%s): %s", t->cfg->strategy->name,
                              where, r->error);
    return SIM_OK;
}

// Forward and backward of every micro-batch; the mean loss in *loss.
static SimStatus accumulate(SimTrainer *t, SimRank *r, float dloss, SimStepStats *s) {
    const SimTrainConfig *c = t->cfg;
    const SimStrategyOps *so = c->strategy;
    SimModel *m = t->model;
    double sum = 0;
    for (int k = 0; k < c->accum; k++) {
        // no_sync on the first accum-1 micro-steps unless --accum-sync every
        int sync = c->accum_sync_every || k == c->accum - 1;
        SimBatch b;
        SIM_CHECK(next_batch(t, r, &b));
        if (k == 0)
            s->epoch = t->epoch;
        if (so)
            SIM_CHECK(strategy_point(t, r, so->before_forward, sync, "before forward"));
        float loss = 0;
        SimStatus st = sim_model_forward(r, m, &b, (int)t->step, c->opt.amp.amp, &loss);
        if (st != SIM_OK)
            return sim_train_fail(t, st == SIM_EINVAL, st, "forward: %s", r->error);
        for (int i = 0; i < m->nparams; i++)
            t->has_grad[i] |= (uint8_t)sim_model_param_used(m, i);
        if (so)
            SIM_CHECK(strategy_point(t, r, so->after_forward, sync, "after forward"));
        if (so && so->on_grad)
            st = sim_model_backward(r, m, dloss, grad_ready, t);
        else
            st = sim_model_backward(r, m, dloss, c->on_grad, c->on_grad_arg);
        if (st != SIM_OK)
            return sim_train_fail(t, 0, st, "backward: %s", r->error);
        if (so)
            SIM_CHECK(strategy_point(t, r, so->after_backward, sync, "backward"));
        sum += loss;
        s->samples += b.n;
    }
    s->loss = (float)(sum / c->accum);
    return SIM_OK;
}

// Unscaling, clipping (or only the norm, for the metrics), the update.
static SimStatus update(SimTrainer *t, SimRank *r, SimStepStats *s) {
    const SimTrainConfig *c = t->cfg;
    SimModel *m = t->model;
    SimStatus st = sim_scaler_unscale(&t->scaler, r, &m->grad, m->params, m->nparams,
                                      t->has_grad);
    if (st == SIM_OK && c->opt.clip_grad_norm > 0) {
        st = sim_clip_grad_norm(r, &m->grad, m->params, m->nparams, t->has_grad,
                                c->opt.clip_grad_norm, &s->grad_norm);
    } else if (st == SIM_OK && c->want_grad_norm) {
        double sumsq = 0;
        st = sim_clip_sumsq(r, &m->grad, m->params, m->nparams, t->has_grad, &sumsq);
        s->grad_norm = (float)sqrt(sumsq);
    }
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "gradients: %s", r->error);
    s->lr = sim_lr_at(&t->sched, t->step);
    int stepped = 0;
    st = sim_scaler_step(&t->scaler, r, &t->optim, s->lr, t->has_grad, &stepped);
    if (st == SIM_OK)
        st = sim_scaler_update(&t->scaler, r);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "optimizer step: %s", r->error);
    s->skipped = !stepped;
    return SIM_OK;
}

SimStatus sim_train_step(SimTrainer *t, SimRank *r, SimStepStats *out) {
    const SimTrainConfig *c = t->cfg;
    SimStepStats s = {0};
    s.grad_norm = NAN;
    double w0 = sim_wall_now();
    SimStatus st = sim_model_zero_grad(r, t->model);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "zero_grad: %s", r->error);
    s.loss_scale = sim_scaler_get_scale(&t->scaler);
    // torch: scaler.scale(loss / accum).backward() seeds backward with scale / accum.
    SIM_CHECK(accumulate(t, r, s.loss_scale / (float)c->accum, &s));
    if (c->strategy && c->strategy->sync) {
        st = c->strategy->sync(t->strategy, r, t);
        if (st != SIM_OK)
            return sim_train_fail(t, 0, st, "%s: gradient sync: %s", c->strategy->name,
                                  r->error);
    }
    if (c->sync) {
        st = c->sync(c->sync_arg, r, t->model, t->has_grad);
        if (st != SIM_OK)
            return sim_train_fail(t, 0, st, "gradient sync: %s", r->error);
    }
    SIM_CHECK(update(t, r, &s));
    t->step++;
    s.step = t->step;
    s.wall_s = sim_wall_now() - w0;
    s.sim_s = r->clock[SIM_STREAM_COMPUTE];
    t->samples += s.samples;
    t->wall_s += s.wall_s;
    if (out)
        *out = s;
    return SIM_OK;
}
