// sim/strategy/ddp.h: `--strategy ddp`, torch.nn.parallel.DistributedDataParallel
// (PyTorch 1.13) as a strategy of the training loop (sim/train/strategy.h).
//
// What one rank does, as DDP does it:
//   construction   parameters and buffers broadcast from rank 0 (unless
//                  init_broadcast is 0); the initial bucket plan
//                  (sim_ddp_initial_plan) and its flat bucket buffers
//   each forward   the check that the previous reduction finished (else
//                  PyTorch's "Expected to have finished reduction ..."
//                  error word for word, then ddplab's diagnosis naming the
//                  parameters that got no gradient: ddp_errors.c); the
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
// Communication hooks (comm_hook) replace the divide-and-SUM of each
// bucket, as register_comm_hook does (with a hook PyTorch's reducer copies
// gradients into the bucket without dividing; the hook divides):
//   allreduce  no hook: x 1/world_size on the copy in, all_reduce SUM (fp32)
//   fp16, bf16 default_hooks.fp16_compress_hook / bf16_compress_hook: the
//              bucket is cast to the low type, divided by world_size there
//              (rounded again), all_reduced SUM in the low type (half the
//              bytes on the wire), and cast back into the fp32 bucket
//   sum        all_reduce SUM without any division: a hook that forgets to
//              divide, gradients world_size times too large (a lesson)
//   powersgd   powerSGD_hook.powerSGD_hook: plain all_reduces for the first
//              start_iter iterations, then each bucket's matrices sent as
//              low-rank factors P and Q with error feedback
//              (ddp_powersgd.h); not with Join
// Uneven inputs under Join (the trainer's cfg->data.join, sim/strategy/ddp_join.c): each
// forward adds the "not joined" and "sync backward" all_reduces, and the
// buffer broadcast comes from a rank the ranks agree on; a rank out of data
// shadows the others (zeros into every bucket's all_reduce); at the epoch's
// end the last joiner's parameters and buffers are broadcast to all.
// Micro-steps under no_sync (sync = 0) skip all of it but the forward
// checks; buffers are then broadcast only before the first micro-step's
// forward, as require_forward_param_sync makes PyTorch do.
#ifndef DDPLAB_SIM_DDP_H
#define DDPLAB_SIM_DDP_H

#include <stdio.h>

#include "strategy/ddp_buckets.h"  // defines: SimDdpBucketOptions
#include "strategy/ddp_powersgd.h" // defines: SimDdpPowersgdOptions
#include "train/strategy.h"       // defines: SimStrategyOps

typedef enum {
    SIM_DDP_HOOK_ALLREDUCE = 0, // no hook (the default)
    SIM_DDP_HOOK_FP16,
    SIM_DDP_HOOK_BF16,
    SIM_DDP_HOOK_SUM,
    SIM_DDP_HOOK_POWERSGD,
} SimDdpCommHook;

// "allreduce", "fp16", "bf16", "sum", "powersgd"
const char *sim_ddp_comm_hook_name(SimDdpCommHook h);

// TORCH_DISTRIBUTED_DEBUG, as c10d reads it: at INFO and DETAIL PyTorch's
// DDP errors name the parameters they concern (OFF: their indices only).
typedef enum {
    SIM_DDP_DEBUG_OFF = 0,
    SIM_DDP_DEBUG_INFO,
    SIM_DDP_DEBUG_DETAIL,
} SimDdpDebugLevel;

// "OFF", "INFO", "DETAIL" in any case, as c10d takes them; 0, or -1 for any
// other value (PyTorch then refuses to start: "The value of
// TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.").
int sim_ddp_debug_parse(const char *s, SimDdpDebugLevel *out);
const char *sim_ddp_debug_name(SimDdpDebugLevel d); // "OFF", "INFO", "DETAIL"

typedef struct {
    SimDdpBucketOptions buckets;  // bucket_cap_mb, find_unused, static_graph, last cap
    int gradient_as_bucket_view;  // default 0
    int broadcast_buffers;        // default 1
    int init_broadcast;           // default 1 (0: --no-init-broadcast)
    FILE *print_buckets;          // non-NULL: rank 0 prints every new plan here
    SimDdpCommHook comm_hook;     // default SIM_DDP_HOOK_ALLREDUCE
    SimDdpPowersgdOptions powersgd; // the powersgd hook's (sim_ddp_powersgd_options_default)
    SimDdpDebugLevel debug_level; // TORCH_DISTRIBUTED_DEBUG (the command line reads
                                  // the environment); default OFF
} SimDdpOptions;

void sim_ddp_options_default(SimDdpOptions *o);

// The strategy; cfg->strategy_cfg points to a SimDdpOptions.
extern const SimStrategyOps sim_ddp_strategy;

// The powersgd hook's traffic on t's rank so far: 1, or 0 when t's
// strategy is not ddp with that hook.
int sim_ddp_powersgd_traffic_of(const SimTrainer *t, SimDdpPowersgdTraffic *out);

#endif
