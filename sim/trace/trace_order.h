// sim/trace/trace_order.h: the time order of a trace, shared by sim_trace_merge
// and the exporters (which stream events in that order without copying them).
#ifndef DDPLAB_SIM_TRACE_ORDER_H
#define DDPLAB_SIM_TRACE_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h" // defines: SimTrace

// Where one event lives: buffer of `rank`, index `pos`.
typedef struct {
    double t;     // its sim_start (the primary sort key)
    int32_t rank;
    size_t pos;
} SimTraceKey;

// Returns every event's key, sorted by (sim_start, rank, pos), in a malloc'ed
// array of *n entries (NaN times sort last). NULL with *n = 0 when the trace
// is empty; NULL with *n = the event total when memory runs out.
SimTraceKey *sim_trace_order(const SimTrace *t, size_t *n);

#endif
