// sim/ddp.h: `--strategy ddp`, torch.nn.parallel.DistributedDataParallel
// (PyTorch 1.13) as a strategy of the training loop (sim/strategy.h).
//
// What one rank does, as DDP does it:
//   construction   parameters and buffers broadcast from rank 0 (unless
//                  init_broadcast is 0); the initial bucket plan
//                  (sim_ddp_initial_plan) and its flat bucket buffers
//   each forward   the check that the previous reduction finished (else
//                  PyTorch's "Expected to have finished reduction ..."
//                  error, naming the parameters that got no gradient); the
//                  one-time bucket rebuild from the gradient-ready order of
//                  the first reducing backward (rank 0's order, broadcast);
//                  the buffer broadcast from rank 0 (broadcast_buffers)
//   after forward  with find_unused_parameters, unused parameters are
//                  marked ready
//   backward       each ready gradient is copied into its bucket slot
//                  multiplied by 1/world_size; a bucket whose last gradient
//                  arrived launches its all_reduce (SUM) when every lower
//                  bucket has launched, then every following ready bucket
//   end of backward (finalize) wait for every bucket, copy results back
//                  into the gradients (nothing to copy with
//                  gradient_as_bucket_view: the gradients are the buckets)
// Micro-steps under no_sync (sync = 0) skip all of it but the forward
// checks; buffers are then broadcast only before the first micro-step's
// forward, as require_forward_param_sync makes PyTorch do.
#ifndef DDPLAB_SIM_DDP_H
#define DDPLAB_SIM_DDP_H

#include <stdio.h>

#include "coll.h"        // defines: SimAlgo
#include "ddp_buckets.h" // defines: SimDdpBucketOptions
#include "strategy.h"    // defines: SimStrategyOps

typedef struct {
    SimDdpBucketOptions buckets;  // bucket_cap_mb, find_unused, static_graph, last cap
    int gradient_as_bucket_view;  // default 0
    int broadcast_buffers;        // default 1
    int init_broadcast;           // default 1 (0: --no-init-broadcast)
    SimAlgo algo;                 // all_reduce algorithm (default auto)
    FILE *print_buckets;          // non-NULL: rank 0 prints every new plan here
} SimDdpOptions;

void sim_ddp_options_default(SimDdpOptions *o);

// The strategy; cfg->strategy_cfg points to a SimDdpOptions.
extern const SimStrategyOps sim_ddp_strategy;

#endif
