// tests/test_cost_ref.h: the collective cost model of sim/cost/cost.h evaluated
// plainly, rank by rank, from the schedule's transfer lists: the reference
// the cost model's fast paths and closed forms must match to the last bit.
#ifndef DDPLAB_TESTS_COST_REF_H
#define DDPLAB_TESTS_COST_REF_H

#include <stddef.h>

#include "cost/cost.h"

// Most transfers one rank may execute, or feed, in one step (the tests'
// schedules stay far below it).
#define TCOST_REF_MAX_XFERS 4096

// The time of step `step` of s with elements of es bytes: the slowest rank's
// alpha (the larger of the links it uses) plus the larger of its incoming
// and outgoing bytes over each link's bandwidth; 0 when no rank moves
// anything. -1 if a rank has more than TCOST_REF_MAX_XFERS transfers.
// Single-threaded callers only (one static transfer buffer).
double tcost_ref_step(const SimCost *c, const SimSched *s, int step, size_t es);

// Compares sim_cost_step on every step of s (elements of es bytes) with
// tcost_ref_step, and sim_cost_coll with the sum of those steps: all must be
// equal to the last bit. Returns the number of steps compared, or -1 after
// printing the first difference on stderr (the caller then names the case).
long tcost_ref_compare(const SimCost *c, const SimSched *s, size_t es);

#endif
