// sim/train/train_extras.c: what the training step (train_step.c) does
// besides forward, loss, backward, gradient sync and the optimizer step,
// each behind one named call (declared together in train_internal.h):
//
//   stop     a Ctrl-C asked between steps (cfg->hooks.should_stop)
//   join     uneven inputs: a rank out of data leaves the loop, or shadows
//            the others' collectives under Join (cfg->data.uneven, .join)
//   tail     the accumulation block cut short by the end of an epoch
//            (cfg->loop.accum_tail)
//   stages   the tensors of a step shown to an observer (cfg->hooks.on_stage:
//            the backend comparison)
//   markers  the loop's phases in the trace, for the views
// and the strategy's per-micro-step points, with their failures worded alike.
#include <math.h>

#include "engine/memory.h" // defines: sim_mem_charge
#include "train/train_internal.h"

// ---------------------------------------------------------------------------
// stop

SimStatus train_stop_check(SimTrainer *t) {
    const SimTrainHooks *h = &t->cfg->hooks;
    if (h->should_stop && h->should_stop(h->should_stop_arg))
        return sim_train_fail(t, 0, SIM_EINTR, "stopped before step %lld: %s",
                              (long long)t->step + 1, sim_strerror(SIM_EINTR));
    return SIM_OK;
}

// ---------------------------------------------------------------------------
// markers

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

// ---------------------------------------------------------------------------
// join

int64_t sim_train_rank_batches(const SimTrainConfig *c, int64_t nb, int rank, int nranks) {
    if (c->data.uneven <= 0 || nranks < 2)
        return nb;
    return nb - (int64_t)c->data.uneven * rank / (nranks - 1);
}

int64_t train_epoch_length(const SimTrainer *t, const SimRank *r) {
    int64_t nb = t->sampler.num_batches;
    if (t->cfg->data.join)
        return nb;
    return sim_train_rank_batches(t->cfg, nb, r->rank, r->world->cfg.nranks);
}

int train_join_out_of_data(const SimTrainer *t, const SimRank *r, int *leave) {
    const SimTrainConfig *c = t->cfg;
    int64_t nb = t->sampler.num_batches;
    int64_t mine = sim_train_rank_batches(c, nb, r->rank, r->world->cfg.nranks);
    *leave = 0;
    if (c->data.uneven <= 0)
        return 0;
    if (c->data.join) {
        int64_t pos = t->batch >= nb ? 0 : t->batch; // a new epoch starts at 0
        return pos >= mine;
    }
    int64_t epochs = (c->loop.steps + nb - 1) / nb; // the run's epochs, in the longest rank's
    *leave = t->batch >= mine && t->epoch + 1 >= epochs;
    return *leave;
}

SimStatus train_join_shadow(SimTrainer *t, SimRank *r, SimStepStats *s) {
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

SimStatus train_join_exit(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    const SimStrategyOps *so = c->strategy;
    if (!c->data.join || c->data.uneven <= 0 || !so || !so->join_exit)
        return SIM_OK;
    if (t->batch < t->sampler.num_batches && t->step != c->loop.steps)
        return SIM_OK;
    SimStatus st = so->join_exit(t->strategy, r, t);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "%s (join): %s", so->name, r->error);
    return SIM_OK;
}

// ---------------------------------------------------------------------------
// tail

int train_block_length(const SimTrainer *t) {
    const SimTrainLoop *l = &t->cfg->loop;
    if (l->accum_tail == SIM_ACCUM_TAIL_SPAN)
        return l->accum;
    int64_t nb = t->sampler.num_batches;
    int64_t left = t->batch >= nb ? nb : nb - t->batch;
    return left < l->accum ? (int)left : l->accum;
}

int train_micro_sync(const SimTrainer *t, int k, int n) {
    const SimTrainLoop *l = &t->cfg->loop;
    return l->accum_sync_every || (k == n - 1 && n == l->accum) ||
           (k == n - 1 && l->accum_tail == SIM_ACCUM_TAIL_STEP);
}

SimStatus train_tail_dropped(SimTrainer *t, const SimStepStats *s, int *again) {
    const SimTrainLoop *l = &t->cfg->loop;
    *again = s->micro != l->accum && l->accum_tail == SIM_ACCUM_TAIL_DROP;
    if (*again && t->sampler.num_batches < l->accum)
        return sim_train_fail(t, 1, SIM_EINVAL, "--accum-tail drop: an epoch has %lld "
                              "batches per rank, fewer than --accum %d, so every block is "
                              "cut short and dropped: the optimizer never steps (step the "
                              "tail with --accum-tail step, or lower --accum)",
                              (long long)t->sampler.num_batches, l->accum);
    return SIM_OK;
}

// ---------------------------------------------------------------------------
// stages

SimStatus train_stage(SimTrainer *t, SimTrainStage stage, const char *what) {
    const SimTrainHooks *h = &t->cfg->hooks;
    if (h->on_stage && h->on_stage(h->on_stage_arg, t, stage, -1) != SIM_OK)
        return sim_train_fail(t, 0, SIM_EIO, "%s: %s", what, t->rank->error);
    return SIM_OK;
}

// The gradient-ready hook during backward: the local gradient to the stage
// observer (before a bucket copies or, as a view, divides it), then the
// strategy's hook, then the caller's, each with its own argument.
static void grad_ready(void *arg, int param) {
    SimTrainer *t = arg;
    const SimTrainConfig *c = t->cfg;
    const SimTrainHooks *h = &c->hooks;
    if (c->loop.set_to_none_frees && !t->grad_held[param] && !t->stage_failed) {
        // autograd allocates the .grad that zero_grad set to None
        SimTensor *g = &t->model->grad;
        int64_t b = (int64_t)(t->model->params[param].numel * sim_dtype_size(g->dtype));
        if (sim_mem_charge(t->rank, (SimMemSpace)g->mem_space, (SimMemCat)g->mem_cat, b,
                           "gradient (allocated in backward)") != SIM_OK) {
            t->stage_failed = 1;
            return;
        }
        g->charged += b;
        t->grad_held[param] = 1;
    }
    if (h->on_stage && !t->stage_failed &&
        h->on_stage(h->on_stage_arg, t, SIM_STAGE_GRAD_LOCAL, param) != SIM_OK)
        t->stage_failed = 1;
    if (c->strategy && c->strategy->on_grad)
        c->strategy->on_grad(t->strategy, t->rank, param);
    if (h->on_grad)
        h->on_grad(h->on_grad_arg, param);
}

SimStatus train_backward(SimTrainer *t, SimRank *r, float dloss) {
    const SimTrainConfig *c = t->cfg;
    SimStatus st;
    if ((c->strategy && c->strategy->on_grad) || c->hooks.on_stage || c->loop.set_to_none_frees)
        st = sim_model_backward(r, t->model, dloss, grad_ready, t);
    else
        st = sim_model_backward(r, t->model, dloss, c->hooks.on_grad, c->hooks.on_grad_arg);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "backward: %s", r->error);
    if (t->stage_failed)
        return sim_train_fail(t, 0, SIM_EIO, "local gradients: %s", r->error);
    return SIM_OK;
}

SimStatus train_grads_to_none(SimTrainer *t, SimRank *r) {
    if (!t->cfg->loop.set_to_none_frees)
        return SIM_OK;
    SimTensor *g = &t->model->grad;
    int64_t b = 0;
    for (int i = 0; i < t->model->nparams; i++) {
        if (t->grad_held[i])
            b += (int64_t)(t->model->params[i].numel * sim_dtype_size(g->dtype));
        t->grad_held[i] = 0;
    }
    if (b == 0)
        return SIM_OK;
    SimStatus st = sim_mem_charge(r, (SimMemSpace)g->mem_space, (SimMemCat)g->mem_cat, -b,
                                  "zero_grad(set_to_none=True)");
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "zero_grad: %s", r->error);
    g->charged -= b;
    return SIM_OK;
}

// ---------------------------------------------------------------------------
// the strategy's points

SimStatus train_strategy_point(SimTrainer *t, SimRank *r, TrainStrategyPoint point, int sync) {
    const SimStrategyOps *so = t->cfg->strategy;
    if (so == NULL)
        return SIM_OK;
    SimStatus (*fn)(void *, SimRank *, SimTrainer *, int) =
        point == TRAIN_BEFORE_FORWARD  ? so->before_forward
        : point == TRAIN_AFTER_FORWARD ? so->after_forward
                                       : so->after_backward;
    const char *where = point == TRAIN_BEFORE_FORWARD  ? "before forward"
                        : point == TRAIN_AFTER_FORWARD ? "after forward"
                                                       : "backward";
    if (fn == NULL)
        return SIM_OK;
    SimStatus st = fn(t->strategy, r, t, sync);
    if (st != SIM_OK)
        return sim_train_fail(t, st == SIM_EINVAL, st, "%s (%s): %s", so->name, where, r->error);
    return SIM_OK;
}
