// sim/train/train_step.c: one optimizer step of the training loop (see
// train.h), in the order of a PyTorch AMP training script:
//
//   optimizer.zero_grad()
//   for each micro-batch: loss = model(x); scaler.scale(loss / accum).backward()
//   (strategy: synchronise gradients)
//   scaler.unscale_(optimizer); clip_grad_norm_(model.parameters(), max_norm)
//   scaler.step(optimizer); scaler.update(); scheduler.step()
//
// sim_train_step reads as that script does; what it does besides (Join for
// uneven inputs, the stop check, the accumulation tail, injected faults, the
// stages an observer sees, the trace's markers) is one named call each, in
// train_extras.c and train_fault.c.
#include <math.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_all_reduce
#include "engine/ops.h"  // defines: sim_tensor_alloc
#include "train/train_internal.h"

// The next batch of this rank's sampler, moving to the next epoch (and its
// shuffle order) when the current one is used up.
static SimStatus next_batch(SimTrainer *t, SimRank *r, SimBatch *b) {
    if (t->batch >= train_epoch_length(t, r)) {
        t->epoch++;
        t->batch = 0;
        sim_train_set_epoch(t, r);
    }
    const int64_t *idx = NULL;
    int n = sim_sampler_batch(&t->sampler, t->batch, &idx);
    if (n > 0 && t->cfg->data.stream != SIM_STREAM_OFF)
        idx = sim_data_stream_next(&t->stream); // the sampler still counts the epoch's batches
    n = n > 0 && t->cfg->data.stream != SIM_STREAM_OFF ? t->cfg->data.batch : n;
    t->batch++;
    if (n < 1 || sim_loader_fill(&t->loader, idx, n, b) != SIM_OK)
        return sim_train_fail(t, 0, SIM_EINVAL, "data loader: cannot fill batch %lld of epoch "
                              "%lld", (long long)(t->batch - 1), (long long)t->epoch);
    // the loader's time: workers, prefetch, the copy, the wait (nothing when off)
    if (sim_data_stage_batch(&t->data_stage, r, &t->cfg->data.stage, t->epoch, t->batch - 1,
                             b) != SIM_OK)
        return sim_train_fail(t, 0, SIM_ENOMEM, "%s", r->error);
    return SIM_OK;
}

// optimizer.zero_grad(set_to_none): set_to_none makes every `p.grad` None
// (has_grad 0) and, where the gradients own their memory, frees it in the
// ledger until backward produces them again; the flat buffer is zeroed
// either way, for the next backward to accumulate into.
static SimStatus zero_grad(SimTrainer *t, SimRank *r) {
    SimStatus st = sim_model_zero_grad(r, t->model);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "zero_grad: %s", r->error);
    if (t->cfg->loop.set_to_none) {
        memset(t->has_grad, 0, (size_t)t->model->nparams);
        return train_grads_to_none(t, r);
    }
    return SIM_OK;
}

// Forward, loss and backward of one micro-batch, with the strategy's points
// around them; a strategy with its own micro_step (DataParallel) runs all
// three itself.
static SimStatus micro_step(SimTrainer *t, SimRank *r, const SimBatch *b, float dloss,
                            int sync, float *loss) {
    const SimTrainConfig *c = t->cfg;
    const SimStrategyOps *so = c->strategy;
    SimModel *m = t->model;
    SIM_CHECK(train_strategy_point(t, r, TRAIN_BEFORE_FORWARD, sync));
    train_mark(t, r, "phase", "forward", 0);
    if (so && so->micro_step) {
        SimStatus st = so->micro_step(t->strategy, r, t, b, dloss, sync, loss);
        if (st != SIM_OK)
            return sim_train_fail(t, st == SIM_EINVAL, st, "%s: %s", so->name, r->error);
        return SIM_OK;
    }
    SimStatus st = sim_model_forward(r, m, b, (int)t->step, c->opt.amp.amp, loss);
    if (st != SIM_OK)
        return sim_train_fail(t, st == SIM_EINVAL, st, "forward: %s", r->error);
    sim_train_fault_after_forward(t, r); // --fault unused
    for (int i = 0; i < m->nparams; i++)
        t->has_grad[i] |= (uint8_t)sim_model_param_used(m, i);
    SIM_CHECK(train_strategy_point(t, r, TRAIN_AFTER_FORWARD, sync));
    train_mark(t, r, "phase", "backward", 0);
    SIM_CHECK(train_backward(t, r, dloss));
    return train_strategy_point(t, r, TRAIN_AFTER_BACKWARD, sync);
}

// One accumulation block: every micro-batch's forward and backward, with
// no_sync on all but the last; the block's mean loss in s.
static SimStatus accumulate(SimTrainer *t, SimRank *r, float dloss, SimStepStats *s) {
    double sum = 0;
    int n = train_block_length(t);
    s->micro = n;
    s->samples = 0;
    for (int k = 0; k < n; k++) {
        SimBatch b;
        SIM_CHECK(next_batch(t, r, &b));
        if (k == 0)
            s->epoch = t->epoch;
        float loss = 0;
        SIM_CHECK(micro_step(t, r, &b, dloss, train_micro_sync(t, k, n), &loss));
        sum += loss;
        s->samples += b.n;
    }
    s->loss = (float)(sum / n);
    s->loss_local = s->loss;
    return SIM_OK;
}

// zero_grad, then the accumulation block; a block cut short by the epoch's
// end and dropped (--accum-tail drop) is followed by the next one.
static SimStatus forward_backward(SimTrainer *t, SimRank *r, SimStepStats *s) {
    const SimTrainLoop *l = &t->cfg->loop;
    // torch: scaler.scale(loss / accum).backward() seeds backward with
    // scale / accum (--fault loss-not-divided: scale alone)
    float dloss = s->loss_scale / sim_train_fault_accum_divisor(t, r);
    for (int again = 1, first = 1; again; first = 0) {
        // zero_grad at the start of each block, or after each step (and once
        // before this process's first block)
        if (!l->zero_grad_after_step || (t->step == t->start_step && first))
            SIM_CHECK(zero_grad(t, r));
        SIM_CHECK(accumulate(t, r, dloss, s));
        SIM_CHECK(train_tail_dropped(t, s, &again));
    }
    return SIM_OK;
}

// The strategy's gradient synchronisation, then the caller's.
static SimStatus sync_gradients(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    if (c->strategy && c->strategy->sync) {
        SimStatus st = c->strategy->sync(t->strategy, r, t);
        if (st != SIM_OK)
            return sim_train_fail(t, 0, st, "%s: gradient sync: %s", c->strategy->name,
                                  r->error);
    }
    if (c->hooks.sync) {
        SimStatus st = c->hooks.sync(c->hooks.sync_arg, r, t->model, t->has_grad);
        if (st != SIM_OK)
            return sim_train_fail(t, 0, st, "gradient sync: %s", r->error);
    }
    sim_train_fault_after_sync(t, r); // --fault unused with find_unused_parameters
    return train_stage(t, SIM_STAGE_GRAD_SYNCED, "synchronised gradients");
}

// The loop's own update: unscaling, clipping (or only the norm, for the
// metrics), the optimizer step and the scaler's update.
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

// The optimizer step: a sharded strategy updates its shards itself; under
// DataParallel the replicas on ranks > 0 hold no optimizer.
static SimStatus optimizer_step(SimTrainer *t, SimRank *r, SimStepStats *s) {
    const SimStrategyOps *so = t->cfg->strategy;
    train_mark(t, r, "phase", "optimizer", 0);
    if (so && so->update) {
        SimStatus st = so->update(t->strategy, r, t, s);
        if (st != SIM_OK)
            return t->error[0] ? st : sim_train_fail(t, 0, st, "%s: optimizer step: %s",
                                                     so->name, r->error);
    } else if (!(so && so->root_only_update && r->rank != 0)) {
        SIM_CHECK(update(t, r, s));
    }
    SIM_CHECK(train_stage(t, SIM_STAGE_UPDATED, "updated parameters"));
    if (t->cfg->loop.zero_grad_after_step)
        SIM_CHECK(zero_grad(t, r));
    return SIM_OK;
}

// The logged loss across ranks: all_reduce(AVG), or SUM then / world_size.
static SimStatus reduce_loss(SimTrainer *t, SimRank *r, SimStepStats *s) {
    SimLossLog log = t->cfg->loop.loss_log;
    int world = r->world->cfg.nranks;
    if (log == SIM_LOSS_LOCAL || world < 2)
        return SIM_OK;
    SimTensor v;
    int64_t shape[1] = {1};
    sim_tensor_init(&v, "loss_for_logging", SIM_FP32, 1, shape);
    float x = s->loss_local;
    SimStatus st = sim_tensor_alloc(r, &v, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &v, &x);
    if (st == SIM_OK)
        st = sim_all_reduce(r, v.data, v.data, 1, SIM_FP32, log == SIM_LOSS_AVG ? SIM_AVG : SIM_SUM,
                            SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &v, &x);
    sim_tensor_free(r, &v);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "loss all_reduce: %s", r->error);
    s->loss = log == SIM_LOSS_AVG ? x : x / (float)world;
    return SIM_OK;
}

static SimStepStats step_begin(const SimTrainer *t) {
    SimStepStats s = {0};
    s.grad_norm = NAN;
    s.loss_scale = sim_scaler_get_scale(&t->scaler);
    s.wall_s = sim_wall_now(); // the start, until step_end
    return s;
}

// Counts the step and fills its times; *out gets the stats when not NULL.
static SimStatus step_end(SimTrainer *t, SimRank *r, SimStepStats *s, SimStepStats *out) {
    t->step++;
    s->step = t->step;
    s->wall_s = sim_wall_now() - s->wall_s;
    // the step ends with its optimizer step, which CPU offload runs on the host
    double compute = r->clock[SIM_STREAM_COMPUTE];
    s->sim_s = r->host_step_end > compute ? r->host_step_end : compute;
    t->samples += s->samples;
    t->wall_s += s->wall_s;
    if (out)
        *out = *s;
    return train_join_exit(t, r);
}

SimStatus sim_train_step(SimTrainer *t, SimRank *r, SimStepStats *out) {
    SIM_CHECK(train_stop_check(t));
    // the step before is over, with its evaluation and saves: a collective
    // fault it never reached is known now
    SIM_CHECK(sim_train_fault_unfired(t, r, t->step));
    SimStepStats s = step_begin(t);
    int leave = 0;
    if (train_join_out_of_data(t, r, &leave)) {
        if (leave) { // the loop ends here on this rank: no step
            t->out_of_data = 1;
            return SIM_OK;
        }
        SIM_CHECK(train_join_shadow(t, r, &s));
        return step_end(t, r, &s, out);
    }
    sim_rank_begin_step(r, t->step + 1);
    train_mark(t, r, "iteration", "begin", 0);
    SIM_CHECK(forward_backward(t, r, &s));
    SIM_CHECK(sync_gradients(t, r));
    SIM_CHECK(optimizer_step(t, r, &s));
    SIM_CHECK(reduce_loss(t, r, &s));
    train_mark(t, r, "iteration", "end", s.loss);
    return step_end(t, r, &s, out);
}
