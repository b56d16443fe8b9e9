// backend_cpu/cpu_rendezvous.c: the meeting of all ranks at the start of a
// collective, and the protocol check made there.
//
// Each rank writes what it called into its slot and counts itself in. The last
// to arrive compares every rank's slot with rank 0's (collective, sequence
// number, count, dtype, op, root, algorithm), computes the simulated start
// (the latest arrival), and opens the gate for everyone. A disagreement fails
// every rank's call with SIM_EPROTO and a message in NCCL's argcheck phrasing,
// e.g. "AllReduce #5: rank 3 count 1024 != rank 0 count 2048", followed by
// where the ranks' histories diverge and the probable cause (cpu_diagnosis.h),
// and aborts the world so that later collectives fail at once instead of
// hanging.
#include <stdio.h>
#include <stdlib.h>

#include "cpu_diagnosis.h"

const CpuSlot *cpu_slot(const CpuCtx *c, int rank, int parity) {
    return &c->ranks[rank].slot[parity];
}

// Counts this rank in; returns 1 if it was the last (it must open the gate).
// The acq_rel increments chain every arriver's earlier writes (its slot) to
// the last arriver.
static int gate_arrive(CpuGate *g, int nranks) {
    uint32_t n = atomic_fetch_add_explicit(&g->arrived, 1, memory_order_acq_rel) + 1;
    return n == (uint32_t)nranks;
}

// Resets the count for the next round and releases generation gen. The reset
// needs no ordering of its own: nobody arrives again before seeing gen.
static void gate_open(CpuGate *g, uint32_t gen) {
    atomic_store_explicit(&g->arrived, 0, memory_order_relaxed);
    cpu_word_store(&g->gen, gen);
}

// Writes why rank r's slot disagrees with rank 0's into msg; 0 if it agrees.
static int slot_differs(const CpuSlot *s0, const CpuSlot *s, int r, char *msg, size_t n) {
    const char *t0 = sim_coll_title(s0->kind);
    unsigned long long seq = (unsigned long long)s0->seq;
    if (s->kind != s0->kind) {
        snprintf(msg, n, "collective #%llu: rank %d called %s, rank 0 called %s", seq, r,
                 sim_coll_title(s->kind), t0);
    } else if (s->seq != s0->seq) {
        snprintf(msg, n, "%s: rank %d is at #%llu, rank 0 at #%llu", t0, r,
                 (unsigned long long)s->seq, seq);
    } else if (s0->kind == SIM_COLL_BARRIER) {
        return 0;
    } else if (s->count != s0->count) {
        snprintf(msg, n, "%s #%llu: rank %d count %zu != rank 0 count %zu", t0, seq, r,
                 s->count, s0->count);
    } else if (s->dtype != s0->dtype) {
        snprintf(msg, n, "%s #%llu: rank %d dtype %s != rank 0 dtype %s", t0, seq, r,
                 sim_dtype_name(s->dtype), sim_dtype_name(s0->dtype));
    } else if (sim_coll_is_reduction(s0->kind) && s->op != s0->op) {
        snprintf(msg, n, "%s #%llu: rank %d op %s != rank 0 op %s", t0, seq, r,
                 sim_redop_name(s->op), sim_redop_name(s0->op));
    } else if (sim_coll_has_root(s0->kind) && s->root != s0->root) {
        snprintf(msg, n, "%s #%llu: rank %d root %d != rank 0 root %d", t0, seq, r, s->root,
                 s0->root);
    } else if (s->algo != s0->algo) {
        snprintf(msg, n, "%s #%llu: rank %d algo %s != rank 0 algo %s", t0, seq, r,
                 sim_algo_name(s->algo), sim_algo_name(s0->algo));
    } else {
        return 0;
    }
    return 1;
}

// The last arriver's check. Local failures (a rank that could not prepare)
// come first, then protocol disagreements; the first offender is named and
// the others counted.
static SimStatus check_protocol(const CpuCtx *c, int parity, char *msg, size_t n) {
    const CpuSlot *s0 = cpu_slot(c, 0, parity);
    for (int r = 0; r < c->nranks; r++) {
        const CpuSlot *s = cpu_slot(c, r, parity);
        if (s->local_status != SIM_OK) {
            snprintf(msg, n, "%s #%llu: rank %d: %s", sim_coll_title(s->kind),
                     (unsigned long long)s->seq, r, s->local_err);
            return s->local_status;
        }
    }
    int bad = 0;
    char first[400], scratch[400];
    for (int r = 1; r < c->nranks; r++)
        if (slot_differs(s0, cpu_slot(c, r, parity), r, bad ? scratch : first, sizeof first))
            bad++;
    if (bad == 0)
        return SIM_OK;
    if (bad > 1)
        snprintf(msg, n, "%s (and %d more ranks differ from rank 0)", first, bad - 1);
    else
        snprintf(msg, n, "%s", first);
    // Every rank is here, so no record changes while it is read.
    CpuFrView *v = malloc((size_t)c->nranks * sizeof *v);
    if (v != NULL) {
        for (int r = 0; r < c->nranks; r++)
            cpu_fr_read(&c->ranks[r], &v[r]);
        cpu_diag_protocol(v, c->nranks, msg, n);
        free(v);
    }
    return SIM_EPROTO;
}

SimStatus cpu_rendezvous(CpuCtx *c, int me, SimCollCall *call, const CpuSlot *mine,
                         int *parity) {
    CpuRank *r = &c->ranks[me];
    uint32_t gen = r->rdv_gen + 1;
    int p = (int)(gen & 1u);
    r->slot[p] = *mine;
    r->rdv_gen = gen;
    cpu_fr_set(r, CPU_FR_RENDEZVOUS, -1, -1);
    if (gate_arrive(&c->rdv, c->nranks)) {
        char msg[CPU_ERROR_MAX];
        SimStatus res = check_protocol(c, p, msg, sizeof msg);
        double start = cpu_slot(c, 0, p)->arrive_sim;
        for (int q = 1; q < c->nranks; q++) {
            double a = cpu_slot(c, q, p)->arrive_sim;
            start = a > start ? a : start;
        }
        c->rdv_result[p].status = res;
        c->rdv_result[p].start_sim = start;
        if (res != SIM_OK)
            cpu_error_record(c, msg);
        gate_open(&c->rdv, gen);
        // Raised after the gate opened, so that every rank of this rendezvous
        // reports the protocol error itself rather than a bare abort.
        if (res != SIM_OK)
            cpu_abort_raise(c);
    } else {
        SIM_CHECK(cpu_wait_reach(c, me, &c->rdv.gen, gen));
    }
    cpu_fr_set(r, CPU_FR_RUNNING, -1, -1);
    *parity = p;
    call->start_sim = c->rdv_result[p].start_sim;
    return c->rdv_result[p].status;
}

SimStatus cpu_barrier(CpuCtx *c, int me) {
    CpuRank *r = &c->ranks[me];
    uint32_t gen = ++r->bar_gen;
    cpu_fr_set(r, CPU_FR_BARRIER, -1, -1);
    if (gate_arrive(&c->bar, c->nranks)) {
        gate_open(&c->bar, gen);
        return SIM_OK;
    }
    return cpu_wait_reach(c, me, &c->bar.gen, gen);
}
