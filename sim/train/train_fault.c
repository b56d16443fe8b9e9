// sim/train/train_fault.c: the faults of the training loop itself (sim/engine/fault.h):
// a parameter one rank leaves out of its graph (unused), the missing
// sampler.set_epoch (no-set-epoch), the missing DistributedSampler
// (no-sampler), the loss not divided by the accumulation steps
// (loss-not-divided), ranks seeded differently (seeds) and a kill -9 in the
// middle of a checkpoint write (save-crash). The collective-level kinds
// live with the collectives (sim/engine/comm.c).
//
// The plan is read-only and shared by the ranks; what a rank remembers is
// which faults have left their trace event (SimTrainer.faults_shown).
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/fault.h" // defines: SimFaultPlan, sim_fault_find
#include "train/train_internal.h"

// The fault's first application on this rank: one SIM_EV_FAULT event,
// label "injected", name = the description (interned).
static void injected(SimTrainer *t, SimRank *r, const SimFault *f, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void injected(SimTrainer *t, SimRank *r, const SimFault *f, const char *fmt, ...) {
    uint32_t bit = 1u << (unsigned)(f - t->cfg->faults->f);
    if (t->faults_shown & bit)
        return;
    t->faults_shown |= bit;
    SimTrace *tr = r ? r->world->trace : NULL;
    if (tr == NULL)
        return;
    char text[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *name = sim_trace_intern(tr, text);
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_FAULT, SIM_STREAM_COMPUTE, name ? name : f->text, "injected",
                   r->clock[SIM_STREAM_COMPUTE]);
    ev.step = (int32_t)r->step;
    sim_rank_trace(r, &ev);
}

static SimStatus bad_fault(SimTrainer *t, const SimFault *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static SimStatus bad_fault(SimTrainer *t, const SimFault *f, const char *fmt, ...) {
    char why[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return sim_train_fail(t, 1, SIM_EINVAL, "--fault '%s': %s", f->text, why);
}

// The parameter an unused fault removes: its param= name (checked at set-up),
// else the model's last.
static int unused_param(const SimModel *m, const SimFault *f) {
    return f->param[0] ? sim_model_find_param(m, f->param) : m->nparams - 1;
}

// 1 when unused fault f removes its parameter on rank `rank` at `step`.
static int unused_at(const SimFault *f, int rank, int64_t step) {
    return f->kind == SIM_FAULT_UNUSED && f->rank == rank && step >= (f->step > 0 ? f->step : 1);
}

// ----------------------------------------------------------------------------
// set-up checks

static SimStatus check_unused(SimTrainer *t, SimRank *r, const SimFault *f) {
    const SimTrainConfig *c = t->cfg;
    const SimModel *m = t->model;
    if (c->strategy && c->strategy->micro_step)
        return bad_fault(t, f, "--strategy %s runs every replica's forward from one "
                         "controller, so no rank has a graph of its own; allowed: --strategy "
                         "ddp, fsdp, single", c->strategy->name);
    if (r->world->cfg.represent)
        return bad_fault(t, f, "a fault of one rank cannot be represented by rank 0 alone");
    if (m->nparams < 1)
        return bad_fault(t, f, "the model has no parameters");
    if (unused_param(m, f) >= 0)
        return SIM_OK;
    char names[400];
    size_t at = 0;
    int shown = m->nparams < 8 ? m->nparams : 8;
    names[0] = '\0';
    for (int i = 0; i < shown && at < sizeof names; i++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "",
                               m->params[i].name);
    return bad_fault(t, f, "the model has no parameter '%s'; allowed: %s%s (%d parameters; "
                     "the default is the last, %s)", f->param, names,
                     shown < m->nparams ? ", ..." : "", m->nparams,
                     m->params[m->nparams - 1].name);
}

// The step of the run's last save (its end) and whether `step` writes a
// checkpoint: every save_every steps before the end, and at the end.
static int64_t run_end(const SimTrainConfig *c) {
    return c->loop.stop_after > 0 && c->loop.stop_after < c->loop.steps ? c->loop.stop_after : c->loop.steps;
}

static SimStatus check_save_crash(SimTrainer *t, const SimFault *f) {
    const SimTrainConfig *c = t->cfg;
    if (c->ckpt.save_path == NULL)
        return bad_fault(t, f, "nothing is saved: it needs --save FILE (the process is killed "
                         "while the checkpoint is written)");
    int64_t s = f->step, end = run_end(c);
    if (s == 0 || s == end ||
        (s > t->step && s < end && c->ckpt.save_every > 0 && s % c->ckpt.save_every == 0))
        return SIM_OK;
    char every[64] = "";
    if (c->ckpt.save_every > 0)
        snprintf(every, sizeof every, "every %" PRId64 " steps and ", c->ckpt.save_every);
    return bad_fault(t, f, "step %" PRId64 " writes no checkpoint; this run (steps %" PRId64
                     " to %" PRId64 ") saves %sat step %" PRId64 " (its end)", s, t->step + 1,
                     end, every, end);
}

// The run's span as the refusals below word it: "this run (steps 1 to 3)",
// with where it was resumed from, and why it ends where it ends.
static void run_span(const SimTrainer *t, char *buf, size_t n) {
    const SimTrainConfig *c = t->cfg;
    if (t->step >= run_end(c)) {
        snprintf(buf, n, "this run (resumed from step %" PRId64 ", its end)", t->step);
        return;
    }
    char from[48] = "";
    if (t->resumed)
        snprintf(from, sizeof from, ", resumed from step %" PRId64, t->step);
    snprintf(buf, n, "this run (steps %" PRId64 " to %" PRId64 "%s)", t->step + 1, run_end(c),
             from);
}

static SimStatus never_run(SimTrainer *t, const SimFault *f, int64_t s) {
    const SimTrainConfig *c = t->cfg;
    char span[160], stop[48] = "";
    run_span(t, span, sizeof span);
    int64_t end = run_end(c);
    if (t->step >= end && s == 0) // a fault from the first step on, in a run of none
        return bad_fault(t, f, "%s has no step left", span);
    if (t->step >= end)
        return bad_fault(t, f, "step %" PRId64 " is never run; %s has no step left", s, span);
    if (s <= t->step)
        return bad_fault(t, f, "step %" PRId64 " is never run; %s starts at step %" PRId64, s,
                         span, t->step + 1);
    if (end < c->loop.steps)
        snprintf(stop, sizeof stop, " (--stop-after %" PRId64 ")", end);
    return bad_fault(t, f, "step %" PRId64 " is never run; %s ends at step %" PRId64 "%s", s,
                     span, end, stop);
}

// A fault aimed at a step this run never takes. Those aimed at one
// collective need their very step; unused and slow-rank apply from their
// step on (at once when it lies before a resumed run's first step).
static SimStatus check_step(SimTrainer *t, const SimFault *f) {
    int64_t first = t->step + 1, end = run_end(t->cfg);
    if (sim_fault_at_one_coll(f))
        return f->step >= first && f->step <= end ? SIM_OK : never_run(t, f, f->step);
    if (f->kind != SIM_FAULT_UNUSED && f->kind != SIM_FAULT_SLOW_RANK)
        return SIM_OK;
    int64_t s = f->step > first ? f->step : first;
    return s <= end ? SIM_OK : never_run(t, f, f->step);
}

// no-set-epoch acts when an epoch after the first begins (the sampler keeps
// epoch 0's order): a run that ends inside epoch 0 never notices it.
static SimStatus check_no_set_epoch(SimTrainer *t, SimRank *r, const SimFault *f) {
    const SimTrainConfig *c = t->cfg;
    int64_t nb = sim_train_rank_batches(c, t->sampler.num_batches, 0, r->world->cfg.nranks);
    int64_t per_epoch = train_steps_of_batches(c, nb, 1), end = run_end(c);
    if (t->epoch > 0 || end > per_epoch)
        return SIM_OK;
    char span[160];
    run_span(t, span, sizeof span);
    return bad_fault(t, f, "epoch 1 is never reached, so no set_epoch call is missed; %s ends "
                     "at step %" PRId64 " in epoch 0, whose %" PRId64 " batches make %" PRId64
                     " steps; allowed: more steps than %" PRId64 ", or --epochs 2 or more", span,
                     end, nb, per_epoch, per_epoch);
}

static SimStatus check_loss_not_divided(SimTrainer *t, const SimFault *f) {
    if (t->cfg->loop.accum > 1)
        return SIM_OK;
    return bad_fault(t, f, "with --accum 1 the loss divided by 1 is the loss itself, so the "
                     "fault changes nothing; allowed: --accum 2 or more");
}

// Every fault against this run's steps, epochs and accumulation: one that
// can never fire is bad input, found before the first step. Whether a
// step launches a fault's collective is known only once the step has run
// (sim_train_fault_unfired).
static SimStatus check_reach(SimTrainer *t, SimRank *r, const SimFault *f) {
    if (f->kind == SIM_FAULT_NO_SET_EPOCH)
        return check_no_set_epoch(t, r, f);
    if (f->kind == SIM_FAULT_LOSS_NOT_DIVIDED)
        return check_loss_not_divided(t, f);
    return check_step(t, f);
}

SimStatus sim_train_fault_setup(SimTrainer *t, SimRank *r) {
    const SimFaultPlan *p = t->cfg->faults;
    for (int i = 0; p && i < p->n; i++) {
        const SimFault *f = &p->f[i];
        if (f->kind == SIM_FAULT_UNUSED)
            SIM_CHECK(check_unused(t, r, f));
        else if (f->kind == SIM_FAULT_SAVE_CRASH)
            SIM_CHECK(check_save_crash(t, f));
        SIM_CHECK(check_reach(t, r, f));
    }
    const SimFault *f = sim_fault_find(p, SIM_FAULT_SEEDS, -1);
    if (f && r->rank == 0)
        injected(t, r, f, "seeds: each rank initialised its weights with --seed + rank, and "
                 "no initial broadcast made them equal: the replicas differ");
    f = sim_fault_find(p, SIM_FAULT_NO_SAMPLER, -1);
    if (f && r->rank == 0)
        injected(t, r, f, "no-sampler: no DistributedSampler: every rank reads the whole "
                 "dataset in the same order, so all %d ranks train on the same batches",
                 r->world->cfg.nranks);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// during the run

int sim_train_fault_seed_per_rank(const SimTrainConfig *c) {
    return sim_fault_find(c->faults, SIM_FAULT_SEEDS, -1) != NULL;
}

int sim_train_fault_replicas(const SimTrainConfig *c, int nranks) {
    if (sim_fault_find(c->faults, SIM_FAULT_NO_SAMPLER, -1))
        return 1;
    return c->data.sampler_replicas > 0 ? c->data.sampler_replicas : nranks;
}

void sim_train_set_epoch(SimTrainer *t, SimRank *r) {
    const SimFault *f = sim_fault_find(t->cfg->faults, SIM_FAULT_NO_SET_EPOCH, -1);
    // without set_epoch the sampler keeps the epoch it was built with: 0
    int64_t e = f ? 0 : t->epoch;
    sim_sampler_set_epoch(&t->sampler, e);
    if (f && t->epoch > 0 && r->rank == 0)
        injected(t, r, f, "no-set-epoch: sampler.set_epoch(%" PRId64 ") was never called: "
                 "epoch %" PRId64 " repeats epoch 0's order", t->epoch, t->epoch);
    // the marker only where it tells something: existing traces stay as they were
    if (f == NULL || t->batch != 0 || r->world->trace == NULL)
        return;
    const int64_t *idx = NULL;
    int n = sim_sampler_batch(&t->sampler, 0, &idx);
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_MARKER, SIM_STREAM_COMPUTE, "epoch",
                   t->epoch > 0 ? "epoch-not-set" : "set_epoch",
                   r->clock[SIM_STREAM_COMPUTE]);
    ev.step = (int32_t)t->step;
    ev.chunk = (int32_t)t->epoch;
    ev.count = (uint64_t)e;
    ev.value = n > 0 && idx ? (double)idx[0] : -1;
    sim_rank_trace(r, &ev);
}

void sim_train_fault_after_forward(SimTrainer *t, SimRank *r) {
    const SimFaultPlan *p = t->cfg->faults;
    int64_t step = t->step + 1;
    for (int k = 0; p && k < p->n; k++) {
        const SimFault *f = &p->f[k];
        if (!unused_at(f, r->rank, step))
            continue;
        int i = unused_param(t->model, f);
        sim_model_mark_unused(t->model, i);
        injected(t, r, f, "unused: parameter %s takes no part in rank %d's forward from step "
                 "%" PRId64 " on: no gradient, no hook for DDP", t->model->params[i].name,
                 r->rank, step);
    }
}

void sim_train_fault_after_sync(SimTrainer *t, SimRank *r) {
    const SimTrainConfig *c = t->cfg;
    const SimFaultPlan *p = c->faults;
    int R = r->world->cfg.nranks;
    if (p == NULL || R < 2 || c->strategy == NULL || c->strategy->reduces_unused == NULL ||
        !c->strategy->reduces_unused(c->strategy_cfg))
        return;
    int64_t step = t->step + 1;
    for (int k = 0; k < p->n; k++) {
        const SimFault *f = &p->f[k];
        if (!unused_at(f, r->rank, step))
            continue;
        int i = unused_param(t->model, f);
        // globally used: the forward used it (it was dropped, not a branch
        // not taken) and some other rank has no fault removing it
        int dropped_on = 0;
        for (int q = 0; q < R; q++)
            for (int j = 0; j < p->n; j++)
                if (unused_at(&p->f[j], q, step) && unused_param(t->model, &p->f[j]) == i) {
                    dropped_on++;
                    break;
                }
        if (sim_model_param_dropped(t->model, i) && dropped_on < R)
            t->has_grad[i] = 1;
    }
}

float sim_train_fault_accum_divisor(SimTrainer *t, SimRank *r) {
    const SimFault *f = sim_fault_find(t->cfg->faults, SIM_FAULT_LOSS_NOT_DIVIDED, -1);
    if (f == NULL)
        return (float)t->cfg->loop.accum;
    if (r->rank == 0)
        injected(t, r, f, "loss-not-divided: backward of loss x scale, not loss x scale / %d "
                 "(--accum %d): gradients %d times too large", t->cfg->loop.accum, t->cfg->loop.accum,
                 t->cfg->loop.accum);
    return 1.0f;
}

int sim_train_fault_save_crash(SimTrainer *t, const char *path) {
    const SimFault *f = sim_fault_find(t->cfg->faults, SIM_FAULT_SAVE_CRASH, -1);
    if (f == NULL || (f->step > 0 && f->step != t->step))
        return 0;
    injected(t, t->rank, f, "save-crash: the process is killed (SIGKILL) halfway through "
             "writing %.200s, the checkpoint of step %" PRId64, path, t->step);
    return 1;
}

// ----------------------------------------------------------------------------
// collectives that were never launched

// The refusal of collective fault f, which this rank found unreachable; the
// world is stopped at once, so that a rank still waiting for this one in a
// collective does not wait until the watchdog.
static SimStatus unreached(SimTrainer *t, SimRank *r, const SimFault *f) {
    char why[400];
    int n = r->coll_in_step;
    if (f->step != r->step)
        snprintf(why, sizeof why, "step %" PRId64 " is never run on rank %d: it ran out of "
                 "data (--uneven) after step %" PRId64 " and took no step of its own after it",
                 f->step, r->rank, r->step);
    else if (n > 0)
        snprintf(why, sizeof why, "collective %d of step %" PRId64 " is never launched; step %"
                 PRId64 " launched %d collective%s (coll=0 to %d)", f->coll, f->step, f->step, n,
                 n == 1 ? "" : "s", n - 1);
    else
        snprintf(why, sizeof why, "collective %d of step %" PRId64 " is never launched; step %"
                 PRId64 " launched no collective", f->coll, f->step, f->step);
    SimStatus st = bad_fault(t, f, "%s", why);
    sim_world_cancel(r->world, t->error);
    return st;
}

// Every rank judges every rank's faults of the step it has just finished by
// its own count of collectives: the ranks launch the same collectives (any
// that differ stop the run at once), so they all refuse together, before
// rank 0 writes a checkpoint. The fault's own rank also catches a step it
// never took (out of data under --uneven).
SimStatus sim_train_fault_unfired(SimTrainer *t, SimRank *r, int64_t upto) {
    const SimFaultPlan *p = r->world->cfg.faults;
    for (int i = 0; p && i < p->n; i++) {
        const SimFault *f = &p->f[i];
        if (!sim_fault_at_one_coll(f) || f->step > upto)
            continue;
        int fired = (r->fault_shown >> i) & 1u;
        if (f->step == r->step && f->coll >= r->coll_in_step)
            return unreached(t, r, f);
        if (f->step != r->step && f->rank == r->rank && !fired)
            return unreached(t, r, f);
    }
    return SIM_OK;
}
