// viz/vtrace.h: a trace as the views hold it: one array of events in time
// order that owns its strings, loaded from a file (replay), copied from an
// engine trace (after a run), or grown event by event (a live run).
//
//   VizTrace t;
//   if (viz_trace_load("run.ddptrace", &t, err, sizeof err) != SIM_OK)
//       fprintf(stderr, "%s\n", err);   // "run.ddptrace: byte 4096: ..."
//   ... viz_model_new(&t, ...) ...
//   viz_trace_free(&t);
//
// Readable formats: the binary .ddptrace that sim_trace_write_bin writes
// (fast: a million events in well under a second) and the JSON lines of
// sim_trace_write_jsonl. Chrome trace JSON is an export only: loading one
// is refused with a message that says to record with --trace FILE.ddptrace.
#ifndef DDPLAB_VIZ_VTRACE_H
#define DDPLAB_VIZ_VTRACE_H

#include <stddef.h>

#include "base/status.h"  // defines: SimStatus
#include "base/strpool.h" // defines: SimStrPool
#include "trace/trace.h"  // defines: SimEvent, SimTraceInfo

typedef struct {
    SimEvent *ev;        // [n] in order of (sim_start, rank, recording order);
                         // name and label point into this trace's pool
    size_t n, cap;
    int nranks;          // 1 + the largest rank seen (or the file's count)
    SimTraceInfo info;   // from the file; zeroed (nodes = 1) for JSON lines
    char source[256];    // the file's path, or "live", "run"
    SimStrPool *pool;    // interned strings (sim/base/strpool.h)
} VizTrace;

// An empty trace for nranks ranks (live runs). SIM_ENOMEM.
SimStatus viz_trace_init(VizTrace *t, int nranks, const SimTraceInfo *info,
                         const char *source);
// Reads a .ddptrace or .jsonl file (chosen by its first bytes, not its
// name). On failure *t is left empty (safe to free) and err says the file,
// the byte offset (binary) or line (JSON lines) and the problem: "not a
// ddplab trace", "truncated: N of M events", "bad kind 97 in event 12", ...
// SIM_EIO (cannot read), SIM_EINVAL (malformed or foreign), SIM_ENOMEM.
SimStatus viz_trace_load(const char *path, VizTrace *t, char *err, size_t errlen);
// Copies an engine trace, merged into time order, with its info and its
// strings (the copy does not point into src). SIM_ENOMEM.
SimStatus viz_trace_from_sim(const SimTrace *src, VizTrace *t, const char *source);
// Appends a copy of ev, interning its name and label, at its place in time
// order (searching back from the end: a live trace arrives nearly sorted).
// Returns the index it landed at through *at (may be NULL). SIM_ENOMEM;
// SIM_EINVAL for a NULL event or a rank outside 0 .. 65535.
SimStatus viz_trace_add(VizTrace *t, const SimEvent *ev, size_t *at);
// A pooled copy of s (NULL for NULL).
const char *viz_trace_intern(VizTrace *t, const char *s);
void viz_trace_free(VizTrace *t);

#endif
