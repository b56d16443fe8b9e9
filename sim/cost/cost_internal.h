// sim/cost/cost_internal.h: what the cost model's files share among themselves:
// the first half of resolving a name-or-path argument (--profile in
// cost_file.c, --gpu in cost_devices.c).
#ifndef DDPLAB_SIM_COST_INTERNAL_H
#define DDPLAB_SIM_COST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus
#include "cost/cost.h"   // defines: SimCost, SimSched

// The least-squares line y = icpt + slope * x through n points (cost.c): the
// fits of a ring's latency and bandwidth and of a device's products share
// it. SIM_EINVAL for fewer than 2 points, a value that is not finite, or
// every x alike (nothing to fit).
SimStatus sim_cost_fit_line(const double *x, const double *y, int n, double *slope,
                            double *icpt);

// What a name-or-path argument turned out to be.
typedef enum {
    SIM_NAMED_BUILTIN, // a built-in entry, copied into the caller's out
    SIM_NAMED_FILE,    // an existing file: the caller loads it
    SIM_NAMED_NOTHING, // neither: the caller writes its own "unknown ..." message
} SimNamed;

// Clears err (when there is room) and sorts out what name_or_path names:
// an empty name is refused with "empty <what> name" (SIM_EINVAL); builtin,
// the entry the caller's lookup found for the name (or NULL), is copied into
// out (size bytes); else a file at that path, or nothing, unless stat cannot
// tell ("cannot read PATH: reason", SIM_EIO). Returns SIM_OK with *named
// set, or the error written into err[errlen] (err may be NULL).
SimStatus sim_cost_name_or_path(const char *name_or_path, const char *what,
                                const void *builtin, void *out, size_t size, SimNamed *named,
                                char *err, size_t errlen);

// Bytes one rank moves in one step, per link class ([0] intra-node, [1]
// inter-node).
typedef struct {
    uint64_t in[2], out[2];
} SimRankLoad;

// The link class between two ranks, and alpha(r) + max(in_time, out_time)
// for one rank's load (0 if it moves nothing), alpha(r) as the step's
// latency mode says (sim_cost_step_alpha): every evaluation path ends
// there, so they agree to the last bit. sim_cost_rank_time is the FULL
// mode.
int sim_cost_link_class(const SimCost *c, int src, int dst);
double sim_cost_rank_time_mode(const SimCost *c, const SimRankLoad *l, SimAlphaMode m);
double sim_cost_rank_time(const SimCost *c, const SimRankLoad *l);
// sim_cost_rank_time_mode with the inter-node bandwidth multiplied by rails
// (a ring's crossing spread over a node's NICs; rails 1 is the plain time,
// to the bit).
// The rails schedule s's inter-node transfers spread over: the ring's
// (sim_cost_ring_rails); half of them for the double binary tree, whose two
// trees cross each node at once (NCCL runs its trees on every channel's NIC
// too); 1 for every other schedule.
int sim_cost_sched_rails(const SimCost *c, const SimSched *s);
double sim_cost_rank_time_rails(const SimCost *c, const SimRankLoad *l, SimAlphaMode m,
                                int rails);

// The double binary tree's steps [first, last) (sim_cost_dbtree.c): the
// sum of each step's slowest rank, as the general path adds them.
double sim_cost_dbtree(const SimCost *c, const SimSched *s, size_t elem_size, int first,
                       int last);

#endif
