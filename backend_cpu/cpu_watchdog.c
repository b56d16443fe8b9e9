// backend_cpu/cpu_watchdog.c: aborting the world, the flight recorder and the
// watchdog's diagnosis.
//
// Every rank records what it is doing (which collective, which step, whom it
// waits for) in a few atomics. When a wait outlasts the watchdog, the waiting
// rank reads every rank's record and writes a diagnosis in the manner of
// NCCL's watchdog and PyTorch's flight recorder: one line per rank (ranks in
// the same state folded into one line), then a summary naming who waits where
// and who never arrived, e.g.
//   ranks 0,1,2 wait in AllReduce #5 (1024 x fp32); rank 3 never arrived (last completed #4)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

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

void cpu_fr_enter(CpuRank *r, const SimCollCall *call) {
    const SimCollArgs *a = &call->args;
    CpuRecorder *f = &r->fr;
    atomic_store_explicit(&f->kind, (int)a->kind, memory_order_relaxed);
    atomic_store_explicit(&f->algo, (int)a->algo, memory_order_relaxed);
    atomic_store_explicit(&f->dtype, (int)a->dtype, memory_order_relaxed);
    atomic_store_explicit(&f->seq, call->seq, memory_order_relaxed);
    atomic_store_explicit(&f->count, (uint64_t)a->count, memory_order_relaxed);
    atomic_store_explicit(&f->nsteps, call->sched.nsteps, memory_order_relaxed);
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
    if (k != SIM_COLL_SEND && k != SIM_COLL_RECV)
        atomic_store_explicit(&r->fr.last_done, (int64_t)call->seq, memory_order_relaxed);
    atomic_store_explicit(&r->fr.state, (int)CPU_FR_DONE, memory_order_release);
}

// ----------------------------------------------------------------------------
// reading the records

typedef struct {
    CpuFrState state;
    SimCollKind kind;
    SimAlgo algo;
    SimDtype dtype;
    int step, nsteps, peer, exited;
    uint64_t seq, count;
    int64_t last_done;
} FrView;

static FrView fr_read(CpuRank *r) {
    CpuRecorder *f = &r->fr;
    FrView v;
    v.state = (CpuFrState)atomic_load_explicit(&f->state, memory_order_acquire);
    v.kind = (SimCollKind)atomic_load_explicit(&f->kind, memory_order_relaxed);
    v.algo = (SimAlgo)atomic_load_explicit(&f->algo, memory_order_relaxed);
    v.dtype = (SimDtype)atomic_load_explicit(&f->dtype, memory_order_relaxed);
    v.step = atomic_load_explicit(&f->step, memory_order_relaxed);
    v.nsteps = atomic_load_explicit(&f->nsteps, memory_order_relaxed);
    v.peer = atomic_load_explicit(&f->peer, memory_order_relaxed);
    v.exited = atomic_load_explicit(&f->exited, memory_order_relaxed);
    v.seq = atomic_load_explicit(&f->seq, memory_order_relaxed);
    v.count = atomic_load_explicit(&f->count, memory_order_relaxed);
    v.last_done = atomic_load_explicit(&f->last_done, memory_order_relaxed);
    return v;
}

static int is_p2p(SimCollKind k) {
    return k == SIM_COLL_SEND || k == SIM_COLL_RECV;
}

// "AllReduce #5 (1024 x fp32)", "Recv #3 from rank 0 (10 x fp32)", "Barrier #2".
static void fr_name(const FrView *v, char *out, size_t n) {
    const char *title = sim_coll_title(v->kind);
    unsigned long long seq = (unsigned long long)v->seq;
    unsigned long long cnt = (unsigned long long)v->count;
    const char *dt = sim_dtype_name(v->dtype);
    if (v->kind == SIM_COLL_BARRIER)
        snprintf(out, n, "%s #%llu", title, seq);
    else if (is_p2p(v->kind))
        snprintf(out, n, "%s #%llu %s rank %d (%llu x %s)", title, seq,
                 v->kind == SIM_COLL_SEND ? "to" : "from", v->peer, cnt, dt);
    else
        snprintf(out, n, "%s #%llu (%llu x %s)", title, seq, cnt, dt);
}

// What the rank is doing in its collective: "waiting in rendezvous", ...
static void fr_state_text(const FrView *v, char *out, size_t n) {
    switch (v->state) {
    case CPU_FR_RENDEZVOUS: snprintf(out, n, "waiting in rendezvous"); break;
    case CPU_FR_RUNNING:
        if (v->step >= 0)
            snprintf(out, n, "running step %d of %d", v->step, v->nsteps);
        else
            snprintf(out, n, "running");
        break;
    case CPU_FR_STEP_WAIT:
        snprintf(out, n, "in step %d of %d waiting for rank %d", v->step, v->nsteps, v->peer);
        break;
    case CPU_FR_DRAIN:
        snprintf(out, n, "after its last step, waiting for rank %d to finish reading", v->peer);
        break;
    case CPU_FR_BARRIER: snprintf(out, n, "fused pass done, waiting in the final barrier"); break;
    case CPU_FR_P2P_WAIT: snprintf(out, n, "waiting for rank %d", v->peer); break;
    default: snprintf(out, n, "done"); break;
    }
}

// The per-rank line: last entered collective and what the rank is doing.
static void fr_line(const FrView *v, char *out, size_t n) {
    const char *gone = v->exited ? "; rank function returned" : "";
    if (v->state == CPU_FR_IDLE) {
        snprintf(out, n, "no collective entered yet%s", gone);
        return;
    }
    char name[128], what[128];
    fr_name(v, name, sizeof name);
    fr_state_text(v, what, sizeof what);
    int no_algo = is_p2p(v->kind) || v->kind == SIM_COLL_BARRIER;
    snprintf(out, n, "%s%s%s: %s%s", name, no_algo ? "" : " algo ",
             no_algo ? "" : sim_algo_name(v->algo), what, gone);
}

// ----------------------------------------------------------------------------
// writing the diagnosis

typedef struct {
    char *buf;
    size_t len, cap;
} Text;

static void text_add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(Text *t, const char *fmt, ...) {
    if (t->len + 1 >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len = t->len + (size_t)k < t->cap ? t->len + (size_t)k : t->cap - 1;
}

// Appends "rank 3" or "ranks 0,1,2" or "ranks 0-200,202" (runs of four or
// more as a range).
static void text_ranks(Text *t, const int *rk, int n) {
    text_add(t, "%s ", n == 1 ? "rank" : "ranks");
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && rk[j + 1] == rk[j] + 1)
            j++;
        const char *sep = i > 0 ? "," : "";
        if (j - i >= 3) {
            text_add(t, "%s%d-%d", sep, rk[i], rk[j]);
            i = j + 1;
        } else {
            text_add(t, "%s%d", sep, rk[i]);
            i++;
        }
    }
}

// Appends "  ranks a,b: line\n" if it fits whole in t; returns 0 if not.
static int add_group(Text *t, const int *rk, int n, const char *line) {
    char buf[2048];
    Text g = {buf, 0, sizeof buf};
    buf[0] = '\0';
    text_add(&g, "  ");
    text_ranks(&g, rk, n);
    text_add(&g, ": %s\n", line);
    if (g.len + 1 >= g.cap || t->len + g.len + 1 >= t->cap)
        return 0;
    text_add(t, "%s", buf);
    return 1;
}

// One line per rank, consecutive ranks with the same line folded together,
// as many as fit in t; then "  ... (N more ranks)".
static void write_rank_lines(Text *t, const FrView *v, int nranks, int *tmp) {
    char cur[320], next[320];
    int n = 0, left = 0;
    for (int r = 0; r < nranks; r++) {
        fr_line(&v[r], next, sizeof next);
        if (n > 0 && strcmp(cur, next) != 0) {
            if (left > 0 || !add_group(t, tmp, n, cur))
                left += n;
            n = 0;
        }
        memcpy(cur, next, sizeof cur);
        tmp[n++] = r;
    }
    if (n > 0 && (left > 0 || !add_group(t, tmp, n, cur)))
        left += n;
    if (left > 0)
        text_add(t, "  ... (%d more ranks)\n", left);
}

// What a rank that is not waiting in the stuck collective is doing instead.
static void fr_elsewhere(const FrView *v, char *out, size_t n) {
    char name[128];
    if (v->state == CPU_FR_IDLE || v->state == CPU_FR_DONE || v->exited) {
        if (v->last_done >= 0)
            snprintf(out, n, "never arrived (last completed #%lld)", (long long)v->last_done);
        else
            snprintf(out, n, "never arrived (no collective completed)");
        return;
    }
    fr_name(v, name, sizeof name);
    snprintf(out, n, "is in %s", name);
}

static int same_call(const FrView *a, const FrView *b) {
    return a->state != CPU_FR_IDLE && a->state != CPU_FR_DONE && a->kind == b->kind &&
           a->seq == b->seq && (!is_p2p(a->kind) || a->peer == b->peer);
}

// Summary: "ranks 0,1,2 wait in AllReduce #5 (1024 x fp32); rank 3 never
// arrived (last completed #4)". For send/recv only the pair is named.
static void write_summary(Text *t, const FrView *v, int nranks, int me, int *tmp) {
    const FrView *d = &v[me];
    char name[128], what[160], other[160];
    fr_name(d, name, sizeof name);
    int n = 0;
    for (int r = 0; r < nranks; r++)
        if (same_call(&v[r], d))
            tmp[n++] = r;
    text_ranks(t, tmp, n);
    text_add(t, " wait%s in %s", n == 1 ? "s" : "", name);
    int *done = tmp + nranks; // ranks already named
    memset(done, 0, (size_t)nranks * sizeof *done);
    for (int i = 0; i < n; i++)
        done[tmp[i]] = 1;
    for (int r = 0; r < nranks; r++) {
        if (done[r] || (is_p2p(d->kind) && r != d->peer))
            continue;
        fr_elsewhere(&v[r], what, sizeof what);
        int m = 0;
        for (int q = r; q < nranks; q++) {
            if (done[q] || (is_p2p(d->kind) && q != d->peer))
                continue;
            fr_elsewhere(&v[q], other, sizeof other);
            if (strcmp(what, other) == 0) {
                tmp[m++] = q;
                done[q] = 1;
            }
        }
        text_add(t, "; ");
        text_ranks(t, tmp, m);
        text_add(t, " %s", what);
    }
    text_add(t, "\n");
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
    FrView *v = calloc((size_t)R, sizeof *v);
    int *tmp = calloc(2 * (size_t)R, sizeof *tmp);
    char *buf = malloc(CPU_ERROR_MAX);
    int kept = 0;
    if (v && tmp && buf) {
        for (int r = 0; r < R; r++)
            v[r] = fr_read(&c->ranks[r]);
        char name[128];
        fr_name(&v[me], name, sizeof name);
        Text t = {buf, 0, CPU_ERROR_MAX};
        buf[0] = '\0';
        text_add(&t, "watchdog: rank %d waited %.3g s (limit %.3g s) in %s; "
                     "what every rank is doing:\n",
                 me, waited_s, c->watchdog_s, name);
        t.cap = CPU_ERROR_MAX - 1536; // keep room for the summary
        write_rank_lines(&t, v, R, tmp);
        t.cap = CPU_ERROR_MAX;
        write_summary(&t, v, R, me, tmp);
        kept = cpu_error_record(c, buf);
    } else {
        kept = cpu_error_record(c, "watchdog: a rank waited too long "
                                   "(out of memory for the diagnosis)");
    }
    free(v);
    free(tmp);
    free(buf);
    cpu_abort_raise(c);
    return kept ? SIM_ETIMEDOUT : SIM_EABORTED;
}
