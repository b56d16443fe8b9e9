// backend_cpu/cpu_ranks.c: running the rank function on R threads.
//
// All threads are created first and wait at a start gate; only when every
// one exists are they let go. If a thread cannot be created, the gate is
// cancelled instead and nobody runs, so no rank is left waiting in a
// collective for a peer that will never exist.
//
// When the ranks fit on the cores, each thread is bound to a core of its
// own, as mpirun binds ranks to cores by default. Left to the scheduler's
// placement, two ranks on two cores had slow runs and fast ones: a 256 KiB
// all_reduce took 15 us in one run and 70 us in the next, never in between;
// bound, every run took 14-20 us. Ranks that outnumber the cores stay
// unbound. Bound round-robin (rank i to core i mod cores), four ranks on two
// cores ran a 1 MiB ring all_reduce 1.4x faster, but 8 and 16 ranks running
// many small collectives took 5x longer: the ranks ready to run were often
// all bound to one core while the other core, whose ranks were waiting,
// sat idle, where the scheduler would have moved one across.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

// Thread stacks: ranks run plain loops, so a modest stack lets hundreds of
// them share the memory; sanitizers need more room per frame.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CPU_STACK_BYTES (4u << 20)
#else
#define CPU_STACK_BYTES (1u << 20)
#endif

enum { GATE_WAIT = 0, GATE_GO = 1, GATE_CANCEL = 2 };

typedef struct {
    CpuCtx *c;
    int rank;
    SimRankEntry entry;
    void *arg;
    CpuWord *gate;
} RankThread;

static void *rank_thread(void *p) {
    RankThread *t = p;
    CpuRank *r = &t->c->ranks[t->rank];
    if (t->c->pin)
        cpu_pin_self(t->rank);
    cpu_wait_reach_plain(t->gate, GATE_GO);
    if (atomic_load_explicit(&t->gate->value, memory_order_acquire) == GATE_GO)
        r->run_status = t->entry(t->rank, t->arg);
    // a crashed rank keeps its mark (cpu_crash.c)
    int running = CPU_EXITED_NO;
    atomic_compare_exchange_strong_explicit(&r->fr.exited, &running, CPU_EXITED_RETURNED,
                                            memory_order_release, memory_order_relaxed);
    return NULL;
}

// The run's status: the first failure in rank order that is a cause (not
// SIM_EABORTED, which only says that another rank failed), else SIM_EABORTED.
static SimStatus run_status(const CpuCtx *c) {
    SimStatus aborted = SIM_OK;
    for (int r = 0; r < c->nranks; r++) {
        SimStatus st = c->ranks[r].run_status;
        if (st == SIM_EABORTED)
            aborted = st;
        else if (st != SIM_OK)
            return st;
    }
    return aborted;
}

SimStatus cpu_run_ranks(void *ctx, SimRankEntry entry, void *arg) {
    CpuCtx *c = ctx;
    int R = c->nranks;
    pthread_t *tid = malloc((size_t)R * sizeof *tid);
    RankThread *ta = malloc((size_t)R * sizeof *ta);
    if (tid == NULL || ta == NULL) {
        free(tid);
        free(ta);
        return SIM_ENOMEM;
    }
    CpuWord gate;
    atomic_init(&gate.value, GATE_WAIT);
    atomic_init(&gate.sleepers, 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, CPU_STACK_BYTES);
    int created = 0, rc = 0;
    for (int r = 0; r < R; r++) {
        c->ranks[r].run_status = SIM_OK;
        atomic_store_explicit(&c->ranks[r].fr.exited, 0, memory_order_relaxed);
        ta[r] = (RankThread){c, r, entry, arg, &gate};
        rc = pthread_create(&tid[r], &attr, rank_thread, &ta[r]);
        if (rc != 0)
            break;
        created++;
    }
    pthread_attr_destroy(&attr);
    cpu_word_store(&gate, created == R ? GATE_GO : GATE_CANCEL);
    for (int r = 0; r < created; r++)
        pthread_join(tid[r], NULL);
    free(tid);
    free(ta);
    if (created < R) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not start the thread of rank %d of %d: %s", created,
                 R, strerror(rc));
        cpu_error_record(c, msg);
        return SIM_ENOMEM;
    }
    return run_status(c);
}
