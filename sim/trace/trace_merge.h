// sim/trace/trace_merge.h: filling a trace from events recorded elsewhere, so that
// the traces of a world's processes (one rank each, `ddplab run
// --rendezvous`) become one trace again (cli/report/merge_traces.c reads the files,
// this puts their events back, the writers of trace.h write the result).
#ifndef DDPLAB_SIM_TRACE_MERGE_H
#define DDPLAB_SIM_TRACE_MERGE_H

#include <stddef.h>

#include "trace/trace.h" // defines: SimTrace, SimEvent

// Appends ev[0 .. n) to t, each to its own rank's buffer in the order given,
// with its name and label interned in t (the copies do not point into ev).
// Events given in a file's time order (sim_start, then recording order) come
// back out of the writers in the same order. SIM_EINVAL for a rank outside
// t's ranks (nothing of ev is appended then), SIM_ENOMEM.
SimStatus sim_trace_absorb(SimTrace *t, const SimEvent *ev, size_t n);
// Adds n to the events rank's buffer dropped beyond its limit (the count the
// writers report).
void sim_trace_add_dropped(SimTrace *t, int rank, size_t n);

#endif
