// sim/train/train_step.c: one optimizer step of the training loop (see train.h),
// in the order of a PyTorch AMP training script:
//
//   optimizer.zero_grad()
//   for each micro-batch: loss = model(x); scaler.scale(loss / accum).backward()
//   (strategy: synchronise gradients)
//   scaler.unscale_(optimizer); clip_grad_norm_(model.parameters(), max_norm)
//   scaler.step(optimizer); scaler.update(); scheduler.step()
//   (zero_grad here instead with zero_grad_after_step; the logged loss
//   all_reduced across ranks with loss_log)
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_all_reduce
#include "engine/ops.h"  // defines: sim_tensor_alloc

#include "train/train_internal.h"

int64_t sim_train_rank_batches(const SimTrainConfig *c, int64_t nb, int rank, int nranks) {
    if (c->uneven <= 0 || nranks < 2)
        return nb;
    return nb - (int64_t)c->uneven * rank / (nranks - 1);
}

// Batches in this rank's epoch as its loop sees them: its own share with
// uneven inputs and no join (it moves on to its next epoch), else the
// longest rank's (a joined rank shadows until the epoch's end).
static int64_t epoch_length(const SimTrainer *t, const SimRank *r) {
    int64_t nb = t->sampler.num_batches;
    if (t->cfg->join)
        return nb;
    return sim_train_rank_batches(t->cfg, nb, r->rank, r->world->cfg.nranks);
}

// A training-loop marker for the views (sim/trace/trace.h): "iteration" begin /
// end (value = the loss) and "phase" forward / backward / optimizer, at the
// rank's compute clock (the end marker: after everything the step issued).
void train_mark(SimTrainer *t, SimRank *r, const char *name, const char *label,
                double value) {
    if (r->world->trace == NULL)
        return;
    SimEvent ev;
    int end = label[0] == 'e' && name[0] == 'i';
    sim_rank_event(&ev, r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, name, label,
                   end ? sim_rank_now(r) : r->clock[SIM_STREAM_COMPUTE]);
    ev.step = (int32_t)t->step;
    ev.value = value;
    sim_rank_trace(r, &ev);
}

// The next batch of this rank's sampler, moving to the next epoch (and its
// shuffle order) when the current one is used up.
static SimStatus next_batch(SimTrainer *t, SimRank *r, SimBatch *b) {
    if (t->batch >= epoch_length(t, r)) {
        t->epoch++;
        t->batch = 0;
        sim_train_set_epoch(t, r);
    }
    const int64_t *idx = NULL;
    int n = sim_sampler_batch(&t->sampler, t->batch, &idx);
    t->batch++;
    if (n < 1 || sim_loader_fill(&t->loader, idx, n, b) != SIM_OK)
        return sim_train_fail(t, 0, SIM_EINVAL, "data loader: cannot fill batch %lld of epoch "
                              "%lld", (long long)(t->batch - 1), (long long)t->epoch);
    // the loader's time: workers, prefetch, the copy, the wait (nothing when off)
    if (sim_data_stage_batch(&t->data_stage, r, &t->cfg->data_stage, t->epoch, t->batch - 1,
                             b) != SIM_OK)
        return sim_train_fail(t, 0, SIM_ENOMEM, "%s", r->error);
    return SIM_OK;
}

// The gradient-ready hook during backward: the strategy's, then the
// caller's (cfg->on_grad), each with its own argument.
static void grad_ready(void *arg, int param) {
    SimTrainer *t = arg;
    const SimTrainConfig *c = t->cfg;
    // the local gradient, before a bucket copies (or, as a view, divides) it
    if (c->on_stage && !t->stage_failed &&
        c->on_stage(c->on_stage_arg, t, SIM_STAGE_GRAD_LOCAL, param) != SIM_OK)
        t->stage_failed = 1;
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

// Micro-batches in the next accumulation block: accum, or with an
// accum_tail mode (blocks restart at each epoch) what is left of the epoch.
static int block_length(const SimTrainer *t) {
    const SimTrainConfig *c = t->cfg;
    if (c->accum_tail == SIM_ACCUM_TAIL_SPAN)
        return c->accum;
    int64_t nb = t->sampler.num_batches;
    int64_t left = t->batch >= nb ? nb : nb - t->batch;
    return left < c->accum ? (int)left : c->accum;
}

// optimizer.zero_grad(set_to_none): set_to_none makes every `p.grad` None
// (has_grad 0); the flat buffer is zeroed either way, for the next backward
// to accumulate into.
static SimStatus zero_grad(SimTrainer *t, SimRank *r) {
    SimStatus st = sim_model_zero_grad(r, t->model);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "zero_grad: %s", r->error);
    if (t->cfg->set_to_none)
        memset(t->has_grad, 0, (size_t)t->model->nparams);
    return SIM_OK;
}

// The logged loss across ranks: all_reduce(AVG), or SUM then / world_size.
static SimStatus reduce_loss(SimTrainer *t, SimRank *r, SimStepStats *s) {
    const SimTrainConfig *c = t->cfg;
    int world = r->world->cfg.nranks;
    if (c->loss_log == SIM_LOSS_LOCAL || world < 2)
        return SIM_OK;
    SimTensor v;
    int64_t shape[1] = {1};
    sim_tensor_init(&v, "loss_for_logging", SIM_FP32, 1, shape);
    float x = s->loss_local;
    SimRedOp op = c->loss_log == SIM_LOSS_AVG ? SIM_AVG : SIM_SUM;
    SimStatus st = sim_tensor_alloc(r, &v, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &v, &x);
    if (st == SIM_OK)
        st = sim_all_reduce(r, v.data, v.data, 1, SIM_FP32, op, SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &v, &x);
    sim_tensor_free(r, &v);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "loss all_reduce: %s", r->error);
    s->loss = c->loss_log == SIM_LOSS_AVG ? x : x / (float)world;
    return SIM_OK;
}

// Forward and backward of every micro-batch; the mean loss in *loss.
static SimStatus accumulate(SimTrainer *t, SimRank *r, float dloss, SimStepStats *s) {
    const SimTrainConfig *c = t->cfg;
    const SimStrategyOps *so = c->strategy;
    SimModel *m = t->model;
    double sum = 0;
    int n = block_length(t);
    s->micro = n;
    for (int k = 0; k < n; k++) {
        // no_sync on the first accum-1 micro-steps unless --accum-sync every;
        // a tail block that will be dropped never leaves no_sync
        int sync = c->accum_sync_every || (k == n - 1 && n == c->accum) ||
                   (k == n - 1 && c->accum_tail == SIM_ACCUM_TAIL_STEP);
        SimBatch b;
        SIM_CHECK(next_batch(t, r, &b));
        if (k == 0)
            s->epoch = t->epoch;
        if (so)
            SIM_CHECK(strategy_point(t, r, so->before_forward, sync, "before forward"));
        float loss = 0;
        train_mark(t, r, "phase", "forward", 0);
        if (so && so->micro_step) { // the strategy runs forward and backward itself
            SimStatus st = so->micro_step(t->strategy, r, t, &b, dloss, sync, &loss);
            if (st != SIM_OK)
                return sim_train_fail(t, st == SIM_EINVAL, st, "%s: %s", so->name, r->error);
            sum += loss;
            s->samples += b.n;
            continue;
        }
        SimStatus st = sim_model_forward(r, m, &b, (int)t->step, c->opt.amp.amp, &loss);
        if (st != SIM_OK)
            return sim_train_fail(t, st == SIM_EINVAL, st, "forward: %s", r->error);
        sim_train_fault_after_forward(t, r); // --fault unused
        for (int i = 0; i < m->nparams; i++)
            t->has_grad[i] |= (uint8_t)sim_model_param_used(m, i);
        if (so)
            SIM_CHECK(strategy_point(t, r, so->after_forward, sync, "after forward"));
        train_mark(t, r, "phase", "backward", 0);
        if ((so && so->on_grad) || c->on_stage)
            st = sim_model_backward(r, m, dloss, grad_ready, t);
        else
            st = sim_model_backward(r, m, dloss, c->on_grad, c->on_grad_arg);
        if (st != SIM_OK)
            return sim_train_fail(t, 0, st, "backward: %s", r->error);
        if (t->stage_failed)
            return sim_train_fail(t, 0, SIM_EIO, "local gradients: %s", r->error);
        if (so)
            SIM_CHECK(strategy_point(t, r, so->after_backward, sync, "backward"));
        sum += loss;
        s->samples += b.n;
    }
    s->loss = (float)(sum / n);
    s->loss_local = s->loss;
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

// Uneven inputs: 1 when this rank has no batch left for this iteration.
// Without join that ends its loop after the run's last epoch (*leave); with
// join it shadows the others until the epoch's end.
static int out_of_data(const SimTrainer *t, const SimRank *r, int *leave) {
    const SimTrainConfig *c = t->cfg;
    int64_t nb = t->sampler.num_batches;
    int64_t mine = sim_train_rank_batches(c, nb, r->rank, r->world->cfg.nranks);
    *leave = 0;
    if (c->uneven <= 0)
        return 0;
    if (c->join) {
        int64_t pos = t->batch >= nb ? 0 : t->batch; // a new epoch starts at 0
        return pos >= mine;
    }
    int64_t epochs = (c->steps + nb - 1) / nb; // the run's epochs, in the longest rank's
    *leave = t->batch >= mine && t->epoch + 1 >= epochs;
    return *leave;
}

// One iteration of a rank that has run out of data, under join: the
// strategy shadows the others' collectives; no forward, no update.
static SimStatus shadow_step(SimTrainer *t, SimRank *r, SimStepStats *s) {
    const SimStrategyOps *so = t->cfg->strategy;
    if (t->batch >= t->sampler.num_batches) {
        t->epoch++;
        t->batch = 0;
        sim_train_set_epoch(t, r);
    }
    s->epoch = t->epoch;
    s->shadow = 1;
    s->loss = s->loss_local = NAN;
    s->lr = sim_lr_at(&t->sched, t->step);
    t->batch++;
    SimStatus st = so && so->join_shadow ? so->join_shadow(t->strategy, r, t) : SIM_OK;
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "%s (join): %s", so->name, r->error);
    return SIM_OK;
}

// The join context closes when every rank has run out of data: at the end
// of each epoch and of the run (post_hook: the final model sync).
static SimStatus join_exit(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    const SimStrategyOps *so = c->strategy;
    if (!c->join || c->uneven <= 0 || !so || !so->join_exit)
        return SIM_OK;
    if (t->batch < t->sampler.num_batches && t->step != c->steps)
        return SIM_OK;
    SimStatus st = so->join_exit(t->strategy, r, t);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "%s (join): %s", so->name, r->error);
    return SIM_OK;
}

static void finish_stats(SimTrainer *t, SimRank *r, SimStepStats *s, double w0,
                         SimStepStats *out) {
    t->step++;
    s->step = t->step;
    s->wall_s = sim_wall_now() - w0;
    // the step ends with its optimizer step, which CPU offload runs on the host
    double compute = r->clock[SIM_STREAM_COMPUTE];
    s->sim_s = r->host_step_end > compute ? r->host_step_end : compute;
    t->samples += s->samples;
    t->wall_s += s->wall_s;
    if (out)
        *out = *s;
}

SimStatus sim_train_step(SimTrainer *t, SimRank *r, SimStepStats *out) {
    const SimTrainConfig *c = t->cfg;
    if (c->should_stop && c->should_stop(c->should_stop_arg))
        return sim_train_fail(t, 0, SIM_EINTR, "stopped before step %lld: %s",
                              (long long)t->step + 1, sim_strerror(SIM_EINTR));
    SimStepStats s = {0};
    s.grad_norm = NAN;
    double w0 = sim_wall_now();
    SimStatus st = SIM_OK;
    s.loss_scale = sim_scaler_get_scale(&t->scaler);
    int leave = 0;
    if (out_of_data(t, r, &leave)) {
        if (leave) { // the loop ends here on this rank: no step
            t->out_of_data = 1;
            return SIM_OK;
        }
        SIM_CHECK(shadow_step(t, r, &s));
        finish_stats(t, r, &s, w0, out);
        return join_exit(t, r);
    }
    sim_rank_begin_step(r, t->step + 1);
    train_mark(t, r, "iteration", "begin", 0);
    // A block cut short by the epoch's end is dropped with accum_tail drop:
    // forward and backward, no step, and the next block follows.
    for (int64_t dropped = 0;; dropped++) {
        // zero_grad at the start of each block, or after each step (and once
        // before this process's first block)
        if (!c->zero_grad_after_step || (t->step == t->start_step && dropped == 0))
            SIM_CHECK(zero_grad(t, r));
        // torch: scaler.scale(loss / accum).backward() seeds backward with scale / accum
        // (--fault loss-not-divided: scale alone).
        SIM_CHECK(accumulate(t, r, s.loss_scale / sim_train_fault_accum_divisor(t, r), &s));
        if (s.micro == c->accum || c->accum_tail != SIM_ACCUM_TAIL_DROP)
            break;
        if (t->sampler.num_batches < c->accum)
            return sim_train_fail(t, 1, SIM_EINVAL, "--accum-tail drop: an epoch has %lld "
                                  "batches per rank, fewer than --accum %d, so every block is "
                                  "cut short and dropped: the optimizer never steps (step the "
                                  "tail with --accum-tail step, or lower --accum)",
                                  (long long)t->sampler.num_batches, c->accum);
        s.samples = 0;
    }
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
    sim_train_fault_after_sync(t, r); // --fault unused with find_unused_parameters
    if (c->on_stage && c->on_stage(c->on_stage_arg, t, SIM_STAGE_GRAD_SYNCED, -1) != SIM_OK)
        return sim_train_fail(t, 0, SIM_EIO, "synchronised gradients: %s", r->error);
    // DataParallel: the replicas on ranks > 0 hold no optimizer; a sharded
    // strategy updates its shards itself
    train_mark(t, r, "phase", "optimizer", 0);
    if (c->strategy && c->strategy->update) {
        st = c->strategy->update(t->strategy, r, t, &s);
        if (st != SIM_OK)
            return t->error[0] ? st : sim_train_fail(t, 0, st, "%s: optimizer step: %s",
                                                     c->strategy->name, r->error);
    } else if (!(c->strategy && c->strategy->root_only_update && r->rank != 0)) {
        SIM_CHECK(update(t, r, &s));
    }
    if (c->on_stage && c->on_stage(c->on_stage_arg, t, SIM_STAGE_UPDATED, -1) != SIM_OK)
        return sim_train_fail(t, 0, SIM_EIO, "updated parameters: %s", r->error);
    if (c->zero_grad_after_step)
        SIM_CHECK(zero_grad(t, r));
    SIM_CHECK(reduce_loss(t, r, &s));
    train_mark(t, r, "iteration", "end", s.loss);
    finish_stats(t, r, &s, w0, out);
    return join_exit(t, r);
}
