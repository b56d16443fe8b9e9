// tests/test_chart_trace.h: small traces made by hand for the charts' tests:
// every rank's memory (params, optimizer, activations and gradients of three
// iterations) and rank 0's loss, with exact sizes and times.
#ifndef DDPLAB_TESTS_TEST_CHART_TRACE_H
#define DDPLAB_TESTS_TEST_CHART_TRACE_H

#include <stdint.h>

#include "vtrace.h" // defines: VizTrace

#define TCT_MIB (1024.0 * 1024.0)

// nranks ranks; with differ, rank r's activations are (1 + r) MiB instead of
// 1 MiB. capacity (bytes, 0 for none) goes into the trace's info. Returns 0,
// or -1 out of memory. Release with viz_trace_free.
int tct_memory_trace(VizTrace *t, int nranks, int differ, uint64_t capacity);

// One rank: params 1 MiB, then n pairs of 1 MiB activations allocated and
// freed 1 us apart, the pair at n / 2 of 10 MiB (the peak, 11 MiB). Returns
// 0, or -1 out of memory.
int tct_long_trace(VizTrace *t, int n);

#endif
