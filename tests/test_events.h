// tests/test_events.h: trace events built by hand for the tests of the trace
// and its exporters.
#ifndef DDPLAB_TESTS_EVENTS_H
#define DDPLAB_TESTS_EVENTS_H

#include "trace/trace.h"

// A compute event named "op" on rank from sim time t0 to t1 (seconds), wall
// times 1000x the sim times, every optional index (step, nsteps, chunk,
// src, dst) -1 and every other field zero.
SimEvent tevent_blank(int rank, double t0, double t1);

#endif
