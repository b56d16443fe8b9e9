// backend_cpu/cpu_wait.c: how a rank waits for a counter to reach a value.
//
// Spinning is the fastest way to wait when every rank has a core of its own
// (a few hundred nanoseconds from the write to the reader seeing it), and the
// worst when ranks outnumber cores: the spinner burns the time slice of the
// very rank it waits for. So a rank spins only for a short, bounded time and
// only when the ranks fit on the cores; when they do not, it yields a few
// times instead (the rank it waits for may be next in line for the core).
// Then it sleeps on the counter itself with a Linux futex, woken by the
// writer. Sleeps are cut into slices so the watchdog deadline and the abort
// flag are checked even if a wake-up is lost.
//
// How long to spin is learned, as the progress loops of NCCL and OpenMPI
// learn it. A fixed short spin lets two ranks settle into a slow mode: one
// wait a call outlasts the spin, its rank sleeps, and waking a sleeping
// thread (on a virtual machine, a halted virtual CPU) takes so long that the
// next call's wait outlasts the spin again; a run stays in that mode or out
// of it, and two runs differ by 2-4x. So each rank keeps its own spin
// budget: a wait that had to sleep but ended within CPU_SPIN_MAX_S stretches
// the budget to twice the wait's length (the pair then spins through such waits),
// one that took longer halves it (the peer computes, or has lost its core:
// sleeping is right). Past the first CPU_SPIN_S the spin yields between
// checks, so a thread waiting for this core gets it.

#define _GNU_SOURCE // syscall(), sched_getaffinity() and CPU_COUNT()

#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_internal.h"

#define CPU_SPIN_S 50e-6        // spin before sleeping (ranks <= cores), at least
#define CPU_SPIN_MAX_S 1e-3     // and at most: the budget's bound
#define CPU_YIELD_S 20e-6       // longest run of yields before sleeping (ranks > cores)
#define CPU_YIELDS_MAX 64       // and at most this many yields
#define CPU_SLEEP_SLICE_S 0.05  // longest single futex sleep

static void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

int cpu_reached(uint32_t v, uint32_t target) {
    return (int32_t)(v - target) >= 0;
}

// The futex calls. The word is the counter's value; the kernel compares it
// with `expect` atomically with going to sleep, so a store made between our
// last check and the sleep is never missed.
static void futex_sleep(CpuWord *w, uint32_t expect, double seconds) {
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    syscall(SYS_futex, (uint32_t *)&w->value, FUTEX_WAIT_PRIVATE, expect, &ts, NULL, 0);
}

static void futex_wake(CpuWord *w) {
    syscall(SYS_futex, (uint32_t *)&w->value, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void cpu_word_wake_all(CpuWord *w) {
    futex_wake(w);
}

// The writer stores, then looks for sleepers; a sleeper registers, then looks
// at the value. Both sides are sequentially consistent, so at least one of
// them sees the other: no wake-up is lost.
void cpu_word_store(CpuWord *w, uint32_t v) {
    atomic_store_explicit(&w->value, v, memory_order_seq_cst);
    if (atomic_load_explicit(&w->sleepers, memory_order_seq_cst) != 0)
        futex_wake(w);
}

uint32_t cpu_word_bump(CpuWord *w) {
    uint32_t v = atomic_fetch_add_explicit(&w->value, 1, memory_order_seq_cst) + 1;
    if (atomic_load_explicit(&w->sleepers, memory_order_seq_cst) != 0)
        futex_wake(w);
    return v;
}

static int word_reached(CpuWord *w, uint32_t target) {
    return cpu_reached(atomic_load_explicit(&w->value, memory_order_acquire), target);
}

// Spins (or yields) for a short while from t0; returns 1 as soon as w
// reaches target.
static int wait_briefly(const CpuCtx *c, const CpuRank *r, CpuWord *w, uint32_t target,
                        double t0) {
    if (!c->spin) {
        for (int i = 0; i < CPU_YIELDS_MAX && sim_wall_now() - t0 < CPU_YIELD_S; i++) {
            cpu_yield();
            if (word_reached(w, target))
                return 1;
        }
        return 0;
    }
    double budget = r->spin_s > CPU_SPIN_S ? r->spin_s : CPU_SPIN_S;
    for (unsigned i = 1;; i++) {
        cpu_pause();
        if (word_reached(w, target))
            return 1;
        if ((i & 127) != 0)
            continue;
        double waited = sim_wall_now() - t0;
        if (waited > budget || atomic_load_explicit(&c->aborted, memory_order_relaxed))
            return 0;
        if (waited > CPU_SPIN_S)
            cpu_yield();
    }
}

// After a wait that slept for `seconds` in all: the budget to spin through
// such a wait next time, or half of it for a long one.
static void spin_learn(CpuRank *r, double seconds) {
    double b = r->spin_s > CPU_SPIN_S ? r->spin_s : CPU_SPIN_S;
    if (seconds <= CPU_SPIN_MAX_S)
        b = 2 * seconds > b ? 2 * seconds : b;
    else
        b /= 2;
    r->spin_s = b < CPU_SPIN_S ? CPU_SPIN_S : b > CPU_SPIN_MAX_S ? CPU_SPIN_MAX_S : b;
}

SimStatus cpu_wait_reach(CpuCtx *c, int me, CpuWord *w, uint32_t target) {
    if (word_reached(w, target))
        return SIM_OK;
    CpuRank *r = &c->ranks[me];
    double t0 = sim_wall_now();
    if (wait_briefly(c, r, w, target, t0))
        return SIM_OK;
    SimStatus st = SIM_OK;
    atomic_store_explicit(&r->sleeping_on, w, memory_order_seq_cst);
    for (;;) {
        atomic_fetch_add_explicit(&w->sleepers, 1, memory_order_seq_cst);
        uint32_t v = atomic_load_explicit(&w->value, memory_order_seq_cst);
        double now = sim_wall_now();
        if (cpu_reached(v, target)) {
            st = SIM_OK;
        } else if (atomic_load_explicit(&c->aborted, memory_order_seq_cst)) {
            st = SIM_EABORTED;
        } else if (now - t0 >= c->watchdog_s) {
            st = SIM_ETIMEDOUT;
        } else {
            double left = c->watchdog_s - (now - t0);
            futex_sleep(w, v, left < CPU_SLEEP_SLICE_S ? left : CPU_SLEEP_SLICE_S);
            atomic_fetch_sub_explicit(&w->sleepers, 1, memory_order_relaxed);
            continue;
        }
        atomic_fetch_sub_explicit(&w->sleepers, 1, memory_order_relaxed);
        break;
    }
    atomic_store_explicit(&r->sleeping_on, NULL, memory_order_relaxed);
    if (st == SIM_OK && c->spin)
        spin_learn(r, sim_wall_now() - t0);
    if (st == SIM_ETIMEDOUT)
        st = cpu_watchdog_fire(c, me, sim_wall_now() - t0);
    return st;
}

void cpu_wait_reach_plain(CpuWord *w, uint32_t target) {
    while (!word_reached(w, target)) {
        atomic_fetch_add_explicit(&w->sleepers, 1, memory_order_seq_cst);
        uint32_t v = atomic_load_explicit(&w->value, memory_order_seq_cst);
        if (!cpu_reached(v, target))
            futex_sleep(w, v, CPU_SLEEP_SLICE_S);
        atomic_fetch_sub_explicit(&w->sleepers, 1, memory_order_relaxed);
    }
}

void cpu_yield(void) {
    sched_yield();
}

void cpu_pin_self(int i) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 1)
        return;
    int k = i % CPU_COUNT(&allowed);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed) && k-- == 0) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            (void)sched_setaffinity(0, sizeof one, &one); // best effort: unpinned still runs
            return;
        }
}

int cpu_online_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
