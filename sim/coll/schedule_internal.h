// sim/coll/schedule_internal.h: what the schedule's files share (not public).
#ifndef DDPLAB_SIM_SCHEDULE_INTERNAL_H
#define DDPLAB_SIM_SCHEDULE_INTERNAL_H

#include <stddef.h>

#include "coll/schedule.h" // defines: SimSched, SimXfer, SimXferOp

// Appends a transfer to out (when there is room) and counts it in *n.
void sim_sched_put(SimXfer *out, int max, int *n, int src, int dst, int chunk,
                   size_t src_off, size_t dst_off, size_t count, SimXferOp op);

// The double binary tree's transfers of rank q at step t: incoming (in = 1,
// q is dst) or outgoing (q is src).
void sim_sched_dbtree(const SimSched *s, int q, int t, int in, SimXfer *out, int max, int *n);

#endif
