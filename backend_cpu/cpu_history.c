// backend_cpu/cpu_history.c: the flight recorder's history ring (the last
// CPU_FR_HISTORY collectives each rank entered, cpu_internal.h) and the
// copy of a rank's whole recorder that a diagnosis is written from.
//
// Only the rank itself writes its ring; any rank may read it while it
// runs on, so every field is an atomic and a slot is rewritten in the
// manner of a seqlock: readers keep an entry only if its stamp was the same
// before and after they read the fields. The fields are stored with release
// and loaded with acquire instead of the usual fences, which
// ThreadSanitizer cannot follow.
#include "cpu_diagnosis.h"

static int is_p2p(SimCollKind k) {
    return k == SIM_COLL_SEND || k == SIM_COLL_RECV;
}

void cpu_hist_push(CpuRecorder *f, const SimCollCall *call) {
    const SimCollArgs *a = &call->args;
    if (is_p2p(a->kind))
        return;
    uint64_t n = atomic_load_explicit(&f->hist_n, memory_order_relaxed); // ours alone
    CpuHistRec *h = &f->hist[n % CPU_FR_HISTORY];
    // Each field is stored with release after the stamp's 0, so a reader
    // that sees any new field value (loaded with acquire) sees the 0 too.
    // (No fences: ThreadSanitizer does not model them.)
    atomic_store_explicit(&h->stamp, 0, memory_order_relaxed);
    atomic_store_explicit(&h->seq, call->seq, memory_order_release);
    atomic_store_explicit(&h->count, (uint64_t)a->count, memory_order_release);
    atomic_store_explicit(&h->kind, (int)a->kind, memory_order_release);
    atomic_store_explicit(&h->dtype, (int)a->dtype, memory_order_release);
    atomic_store_explicit(&h->algo, (int)a->algo, memory_order_release);
    atomic_store_explicit(&h->op, (int)a->op, memory_order_release);
    atomic_store_explicit(&h->root, a->root, memory_order_release);
    atomic_store_explicit(&h->done, 0, memory_order_release);
    atomic_store_explicit(&h->stamp, n + 1, memory_order_release);
    atomic_store_explicit(&f->hist_n, n + 1, memory_order_release);
}

void cpu_hist_done(CpuRecorder *f) {
    uint64_t n = atomic_load_explicit(&f->hist_n, memory_order_relaxed);
    if (n > 0)
        atomic_store_explicit(&f->hist[(n - 1) % CPU_FR_HISTORY].done, 1, memory_order_release);
}

// Entry k of the ring into *e; 0 if the slot holds another entry by now.
static int hist_read(const CpuRecorder *f, uint64_t k, CpuHistEntry *e) {
    const CpuHistRec *h = &f->hist[k % CPU_FR_HISTORY];
    if (atomic_load_explicit(&h->stamp, memory_order_acquire) != k + 1)
        return 0;
    e->seq = atomic_load_explicit(&h->seq, memory_order_acquire);
    e->count = atomic_load_explicit(&h->count, memory_order_acquire);
    e->kind = (SimCollKind)atomic_load_explicit(&h->kind, memory_order_acquire);
    e->dtype = (SimDtype)atomic_load_explicit(&h->dtype, memory_order_acquire);
    e->algo = (SimAlgo)atomic_load_explicit(&h->algo, memory_order_acquire);
    e->op = (SimRedOp)atomic_load_explicit(&h->op, memory_order_acquire);
    e->root = atomic_load_explicit(&h->root, memory_order_acquire);
    e->done = atomic_load_explicit(&h->done, memory_order_acquire);
    // after the acquire loads: a rewrite that any of them saw shows here
    return atomic_load_explicit(&h->stamp, memory_order_relaxed) == k + 1;
}

void cpu_fr_read(const CpuRank *r, CpuFrView *v) {
    const CpuRecorder *f = &r->fr;
    v->state = (CpuFrState)atomic_load_explicit(&f->state, memory_order_acquire);
    v->kind = (SimCollKind)atomic_load_explicit(&f->kind, memory_order_relaxed);
    v->algo = (SimAlgo)atomic_load_explicit(&f->algo, memory_order_relaxed);
    v->dtype = (SimDtype)atomic_load_explicit(&f->dtype, memory_order_relaxed);
    v->step = atomic_load_explicit(&f->step, memory_order_relaxed);
    v->nsteps = atomic_load_explicit(&f->nsteps, memory_order_relaxed);
    v->peer = atomic_load_explicit(&f->peer, memory_order_relaxed);
    v->exited = atomic_load_explicit(&f->exited, memory_order_acquire);
    v->seq = atomic_load_explicit(&f->seq, memory_order_relaxed);
    v->count = atomic_load_explicit(&f->count, memory_order_relaxed);
    v->last_done = atomic_load_explicit(&f->last_done, memory_order_relaxed);
    uint64_t n = atomic_load_explicit(&f->hist_n, memory_order_acquire);
    uint64_t first = n > CPU_FR_HISTORY ? n - CPU_FR_HISTORY : 0;
    v->nhist = 0;
    for (uint64_t k = first; k < n; k++)
        if (hist_read(f, k, &v->hist[v->nhist]))
            v->nhist++;
}
