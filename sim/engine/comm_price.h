// sim/engine/comm_price.h: a rank's memo of what the cost model says about
// its collectives, so that the thousands of equal calls of a large model
// (DDP's buckets, FSDP's per-layer gathers) are priced once per shape.
//
// Why per rank: ranks launch concurrently on the pthread backend; a table of
// their own needs no lock. Why it is exact: the algorithm NCCL's tuner picks
// and a schedule's time are pure functions of the world's cost model (fixed
// for the run) and of the key (kind, algorithm, ranks, root, count, element
// size), so a remembered answer is the answer, to the bit.
#ifndef SIM_ENGINE_COMM_PRICE_H
#define SIM_ENGINE_COMM_PRICE_H

#include <stddef.h>

#include "engine/world.h"

// sim_cost_resolve_algo(&r->world->cost, k, a, nranks, count, es), remembered.
SimAlgo sim_price_algo(SimRank *r, SimCollKind k, SimAlgo a, int nranks, size_t count,
                       size_t es);
// sim_cost_coll(&r->world->cost, s, es), remembered.
double sim_price_coll(SimRank *r, const SimSched *s, size_t es);
// Frees the rank's memo (allocated on first use; NULL-safe).
void sim_price_free(SimRank *r);

#endif
