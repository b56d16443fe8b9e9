// backend_cpu/cpu_watchdog.c: aborting the world, the flight recorder's
// updates and the watchdog.
//
// Every rank records what it is doing (which collective, which step, whom it
// waits for) in a few atomics, and the last CPU_FR_HISTORY collectives it
// entered in a ring (cpu_history.c). When a wait outlasts the watchdog, the
// waiting rank copies every rank's record and writes a diagnosis in the
// manner of NCCL's watchdog and PyTorch's flight recorder (cpu_diagnosis.h):
// each rank's last collectives and state, where the histories diverge, who
// waits and who never arrived, e.g.
//   ranks 0,1,2 wait in AllReduce #5 (1024 x fp32); rank 3 never arrived (last completed #4)
// and the probable cause.
#include <stdio.h>
#include <stdlib.h>

#include "cpu_diagnosis.h"
#include "engine/world.h" // defines: SimRank (untimed)

// ----------------------------------------------------------------------------
// aborting

int cpu_is_aborted(CpuCtx *c) {
    return atomic_load_explicit(&c->aborted, memory_order_acquire);
}

int cpu_error_record(CpuCtx *c, const char *msg) {
    int kept = 0;
    pthread_mutex_lock(&c->err_lock);
    if (!atomic_load_explicit(&c->err_set, memory_order_relaxed)) {
        snprintf(c->error, sizeof c->error, "%s", msg);
        atomic_store_explicit(&c->err_set, 1, memory_order_release);
        kept = 1;
    }
    pthread_mutex_unlock(&c->err_lock);
    return kept;
}

void cpu_abort_raise(CpuCtx *c) {
    atomic_store_explicit(&c->aborted, 1, memory_order_seq_cst);
    for (int r = 0; r < c->nranks; r++) {
        CpuWord *w = atomic_load_explicit(&c->ranks[r].sleeping_on, memory_order_seq_cst);
        if (w != NULL)
            cpu_word_wake_all(w);
    }
}

int cpu_touch_begin(CpuCtx *c, int me) {
    // seq_cst on both sides: either this rank sees the abort, or the aborting
    // side's drain sees this rank touching.
    atomic_store_explicit(&c->ranks[me].touching, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&c->aborted, memory_order_seq_cst)) {
        atomic_store_explicit(&c->ranks[me].touching, 0, memory_order_release);
        return 0;
    }
    return 1;
}

void cpu_touch_end(CpuCtx *c, int me) {
    atomic_store_explicit(&c->ranks[me].touching, 0, memory_order_release);
}

void cpu_abort_drain(CpuCtx *c) {
    // A rank inside an access is copying or reducing one block and never
    // waits there, so this loop ends after at most one block per rank.
    for (int r = 0; r < c->nranks; r++)
        while (atomic_load_explicit(&c->ranks[r].touching, memory_order_seq_cst))
            cpu_yield();
}

// ----------------------------------------------------------------------------
// the recorder, written by the rank itself

// The simulator's own exchange between ranks (SimRank.untimed): not one of
// the modelled program's collectives.
static int untimed(const SimCollCall *call) {
    return call->rank != NULL && call->rank->untimed;
}

void cpu_fr_enter(CpuRank *r, const SimCollCall *call) {
    const SimCollArgs *a = &call->args;
    CpuRecorder *f = &r->fr;
    if (untimed(call)) {
        CpuFrSaved *b = &r->fr_before_untimed;
        b->state = atomic_load_explicit(&f->state, memory_order_relaxed);
        b->kind = atomic_load_explicit(&f->kind, memory_order_relaxed);
        b->algo = atomic_load_explicit(&f->algo, memory_order_relaxed);
        b->dtype = atomic_load_explicit(&f->dtype, memory_order_relaxed);
        b->step = atomic_load_explicit(&f->step, memory_order_relaxed);
        b->nsteps = atomic_load_explicit(&f->nsteps, memory_order_relaxed);
        b->peer = atomic_load_explicit(&f->peer, memory_order_relaxed);
        b->seq = atomic_load_explicit(&f->seq, memory_order_relaxed);
        b->count = atomic_load_explicit(&f->count, memory_order_relaxed);
    }
    atomic_store_explicit(&f->kind, (int)a->kind, memory_order_relaxed);
    atomic_store_explicit(&f->algo, (int)a->algo, memory_order_relaxed);
    atomic_store_explicit(&f->dtype, (int)a->dtype, memory_order_relaxed);
    atomic_store_explicit(&f->seq, call->seq, memory_order_relaxed);
    atomic_store_explicit(&f->count, (uint64_t)a->count, memory_order_relaxed);
    atomic_store_explicit(&f->nsteps, call->sched.nsteps, memory_order_relaxed);
    if (!untimed(call))
        cpu_hist_push(f, call);
    cpu_fr_set(r, CPU_FR_RUNNING, -1, a->kind == SIM_COLL_SEND || a->kind == SIM_COLL_RECV
                                          ? a->peer : -1);
}

void cpu_fr_set(CpuRank *r, CpuFrState st, int step, int peer) {
    atomic_store_explicit(&r->fr.step, step, memory_order_relaxed);
    atomic_store_explicit(&r->fr.peer, peer, memory_order_relaxed);
    atomic_store_explicit(&r->fr.state, (int)st, memory_order_release);
}

void cpu_fr_done(CpuRank *r, const SimCollCall *call) {
    SimCollKind k = call->args.kind;
    if (untimed(call)) {
        const CpuFrSaved *b = &r->fr_before_untimed;
        CpuRecorder *f = &r->fr;
        atomic_store_explicit(&f->kind, b->kind, memory_order_relaxed);
        atomic_store_explicit(&f->algo, b->algo, memory_order_relaxed);
        atomic_store_explicit(&f->dtype, b->dtype, memory_order_relaxed);
        atomic_store_explicit(&f->nsteps, b->nsteps, memory_order_relaxed);
        atomic_store_explicit(&f->seq, b->seq, memory_order_relaxed);
        atomic_store_explicit(&f->count, b->count, memory_order_relaxed);
        cpu_fr_set(r, (CpuFrState)b->state, b->step, b->peer);
        return;
    }
    if (k != SIM_COLL_SEND && k != SIM_COLL_RECV) {
        atomic_store_explicit(&r->fr.last_done, (int64_t)call->seq, memory_order_relaxed);
        cpu_hist_done(&r->fr);
    }
    atomic_store_explicit(&r->fr.state, (int)CPU_FR_DONE, memory_order_release);
}

SimStatus cpu_watchdog_fire(CpuCtx *c, int me, double waited_s) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&c->diagnosing, &expected, 1)) {
        // Another rank is writing its diagnosis. Fail only once the world is
        // marked dead, so that our next collective fails at once too instead
        // of counting itself into a rendezvous.
        while (!cpu_is_aborted(c))
            cpu_yield();
        return SIM_EABORTED;
    }
    if (cpu_is_aborted(c)) // something else failed first
        return SIM_EABORTED;
    int R = c->nranks;
    CpuFrView *v = malloc((size_t)R * sizeof *v);
    char *buf = malloc(CPU_ERROR_MAX);
    int kept = 0;
    if (v && buf) {
        for (int r = 0; r < R; r++)
            cpu_fr_read(&c->ranks[r], &v[r]);
        cpu_diag_watchdog(v, R, me, waited_s, c->watchdog_s, buf, CPU_ERROR_MAX);
        kept = cpu_error_record(c, buf);
    } else {
        kept = cpu_error_record(c, "watchdog: a rank waited too long "
                                   "(out of memory for the diagnosis)");
    }
    free(v);
    free(buf);
    cpu_abort_raise(c);
    return kept ? SIM_ETIMEDOUT : SIM_EABORTED;
}
