// backend_cpu/cpu_diag_text.c: the words the diagnoses are made of: a
// bounded text buffer, rank lists, and the names of collectives, history
// entries and recorder states (shared by cpu_diagnosis.c and
// cpu_diag_rules.c through cpu_diag_internal.h).
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cpu_diag_internal.h"

CpuText cpu_text_on(char *buf, size_t cap) {
    if (cap > 0)
        buf[0] = '\0';
    return (CpuText){buf, 0, cap};
}

void cpu_text_add(CpuText *t, const char *fmt, ...) {
    if (t->cap == 0 || t->len + 1 >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len = t->len + (size_t)k < t->cap ? t->len + (size_t)k : t->cap - 1;
}

void cpu_text_ranks(CpuText *t, const int *rk, int n) {
    cpu_text_add(t, "%s ", n == 1 ? "rank" : "ranks");
    int runs = 0;
    for (int i = 0; i < n;) {
        if (runs++ == CPU_DIAG_RUNS_MAX) {
            cpu_text_add(t, ",... (%d ranks)", n);
            return;
        }
        int j = i;
        while (j + 1 < n && rk[j + 1] == rk[j] + 1)
            j++;
        const char *sep = i > 0 ? "," : "";
        if (j - i >= 3) {
            cpu_text_add(t, "%s%d-%d", sep, rk[i], rk[j]);
            i = j + 1;
        } else {
            cpu_text_add(t, "%s%d", sep, rk[i]);
            i++;
        }
    }
}

int cpu_diag_is_p2p(SimCollKind k) {
    return k == SIM_COLL_SEND || k == SIM_COLL_RECV;
}

int cpu_diag_in_coll(const CpuFrView *v) {
    return v->exited == CPU_EXITED_NO && v->state != CPU_FR_IDLE && v->state != CPU_FR_DONE;
}

int64_t cpu_diag_newest(const CpuFrView *v) {
    return v->nhist > 0 ? (int64_t)v->hist[v->nhist - 1].seq : v->last_done;
}

void cpu_diag_call_name(const CpuFrView *v, char *out, size_t n) {
    const char *title = sim_coll_title(v->kind);
    unsigned long long seq = (unsigned long long)v->seq;
    unsigned long long cnt = (unsigned long long)v->count;
    const char *dt = sim_dtype_name(v->dtype);
    if (v->kind == SIM_COLL_BARRIER)
        snprintf(out, n, "%s #%llu", title, seq);
    else if (cpu_diag_is_p2p(v->kind))
        snprintf(out, n, "%s #%llu %s rank %d (%llu x %s)", title, seq,
                 v->kind == SIM_COLL_SEND ? "to" : "from", v->peer, cnt, dt);
    else
        snprintf(out, n, "%s #%llu (%llu x %s)", title, seq, cnt, dt);
}

void cpu_diag_call_short(const CpuFrView *v, char *out, size_t n) {
    if (cpu_diag_is_p2p(v->kind))
        snprintf(out, n, "%s #%llu %s rank %d", sim_coll_title(v->kind),
                 (unsigned long long)v->seq, v->kind == SIM_COLL_SEND ? "to" : "from", v->peer);
    else
        snprintf(out, n, "%s #%llu", sim_coll_title(v->kind), (unsigned long long)v->seq);
}

int cpu_diag_entry_diff(const CpuHistEntry *a, const CpuHistEntry *b) {
    int d = a->seq != b->seq ? CPU_DIFF_SEQ : 0;
    if (a->kind != b->kind)
        return d | CPU_DIFF_KIND;
    if (a->kind != SIM_COLL_BARRIER && (a->count != b->count || a->dtype != b->dtype))
        d |= CPU_DIFF_SHAPE;
    if (sim_coll_is_reduction(a->kind) && a->op != b->op)
        d |= CPU_DIFF_OP;
    if (sim_coll_has_root(a->kind) && a->root != b->root)
        d |= CPU_DIFF_ROOT;
    if (a->algo != b->algo)
        d |= CPU_DIFF_ALGO;
    return d;
}

void cpu_diag_entry_desc(const CpuHistEntry *e, int extra, char *out, size_t n) {
    CpuText t = cpu_text_on(out, n);
    cpu_text_add(&t, "%s", sim_coll_title(e->kind));
    if (e->kind != SIM_COLL_BARRIER)
        cpu_text_add(&t, " %llu x %s", (unsigned long long)e->count, sim_dtype_name(e->dtype));
    if ((extra & CPU_DIFF_OP) && sim_coll_is_reduction(e->kind))
        cpu_text_add(&t, " op %s", sim_redop_name(e->op));
    if ((extra & CPU_DIFF_ROOT) && sim_coll_has_root(e->kind))
        cpu_text_add(&t, " root %d", e->root);
    if (extra & CPU_DIFF_ALGO)
        cpu_text_add(&t, " algo %s", sim_algo_name(e->algo));
}

void cpu_diag_state_text(const CpuFrView *v, char *out, size_t n) {
    switch (v->state) {
    case CPU_FR_RENDEZVOUS: snprintf(out, n, "waiting in rendezvous"); break;
    case CPU_FR_RUNNING:
        if (v->step >= 0)
            snprintf(out, n, "running step %d of %d", v->step + 1, v->nsteps);
        else
            snprintf(out, n, "running");
        break;
    case CPU_FR_STEP_WAIT:
        snprintf(out, n, "waiting in step %d of %d for rank %d", v->step + 1, v->nsteps, v->peer);
        break;
    case CPU_FR_DRAIN:
        snprintf(out, n, "after its last step, waiting for rank %d to finish reading", v->peer);
        break;
    case CPU_FR_BARRIER: snprintf(out, n, "fused pass done, waiting in the final barrier"); break;
    case CPU_FR_P2P_WAIT: snprintf(out, n, "waiting for rank %d", v->peer); break;
    default: snprintf(out, n, "done"); break;
    }
}
