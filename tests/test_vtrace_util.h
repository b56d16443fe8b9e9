// tests/test_vtrace_util.h: comparing traces event by event, field by field,
// for the tests of the trace files and viz/vtrace.h.
#ifndef DDPLAB_TESTS_VTRACE_UTIL_H
#define DDPLAB_TESTS_VTRACE_UTIL_H

#include <stddef.h>

#include "trace/trace.h"

// 1 if a and b agree in every field: doubles bit for bit (NaN equals NaN),
// strings by content (NULL only equals NULL). Otherwise prints the first
// difference, naming event i, and returns 0. With skip_wall the wall times
// are not compared (two runs of the same configuration).
int tvt_same_event(const SimEvent *a, const SimEvent *b, size_t i, int skip_wall);
// The same for n events of two arrays.
int tvt_same_events(const SimEvent *a, const SimEvent *b, size_t n, int skip_wall);
// 1 if every field of the infos agrees, else prints the first difference.
int tvt_same_info(const SimTraceInfo *a, const SimTraceInfo *b);

#endif
