// sim/trace/trace_internal.h: the trace's representation, shared by trace.c (the
// event buffers) and trace_meta.c (interned strings, the run's info, the
// tap). Private to sim/.
#ifndef DDPLAB_SIM_TRACE_INTERNAL_H
#define DDPLAB_SIM_TRACE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>

#include "base/strpool.h" // defines: SimStrPool
#include "trace/trace.h"

// One rank's events. Padded to a cache line so that ranks appending at the
// same time on different cores do not share lines (false sharing).
typedef struct {
    SimEvent *ev;    // [cap] events, the first n valid
    size_t n;
    size_t cap;
    size_t dropped;  // events refused because the buffer was at its limit
    char pad[64 - sizeof(SimEvent *) - 3 * sizeof(size_t)];
} TraceRank;

struct SimTrace {
    int nranks;
    size_t max_per_rank; // 0 = unlimited
    TraceRank *ranks;    // [nranks]
    // Interned names (sim/base/strpool.h), guarded by lock: ranks intern from
    // their own threads.
    pthread_mutex_t lock;
    SimStrPool *names;
    SimTraceInfo info;
    SimTraceTap tap;
    void *tap_ctx;
};

// Set up and release the metadata half of t. init returns 0 or -1 (memory).
int trace_meta_init(SimTrace *t);
void trace_meta_free(SimTrace *t);

#endif
