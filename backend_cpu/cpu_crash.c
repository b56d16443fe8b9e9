// backend_cpu/cpu_crash.c: a rank that an injected fault crashes
// (SimBackendOps.rank_crash, `--fault crash:...`).
//
// A dead process takes part in nothing: the rank marks itself crashed in its
// flight recorder (fr.exited = CPU_EXITED_CRASHED, which the watchdog's
// diagnosis reads), enters no collective, and its peers wait for it in
// their next collective until the watchdog fires and aborts the world.
// Only its thread must not return before then: its buffers stay valid while
// a peer might still look at them, as sim/engine/backend.h asks. It waits
// politely, in short sleeps, without burning a core.
#include <time.h>

#include "cpu_internal.h"

#define CPU_CRASH_POLL_NS 2000000L // 2 ms between looks at the world

// 1 once every rank but `me` has returned or crashed.
static int others_exited(CpuCtx *c, int me) {
    for (int r = 0; r < c->nranks; r++)
        if (r != me && atomic_load_explicit(&c->ranks[r].fr.exited, memory_order_acquire) ==
                           CPU_EXITED_NO)
            return 0;
    return 1;
}

SimStatus cpu_rank_crash(void *ctx, int rank) {
    CpuCtx *c = ctx;
    atomic_store_explicit(&c->ranks[rank].fr.exited, CPU_EXITED_CRASHED, memory_order_release);
    struct timespec ts = {0, CPU_CRASH_POLL_NS};
    while (!cpu_is_aborted(c) && !others_exited(c, rank))
        nanosleep(&ts, NULL);
    return SIM_OK;
}
