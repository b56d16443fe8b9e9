// sim/strategy/dp.h: `--strategy dp`, torch.nn.DataParallel (PyTorch 1.13) as a
// strategy of the training loop (sim/train/strategy.h).
//
// One controller, device 0 (rank 0), holds the only real copy of the
// parameters and the only optimizer. Each micro-batch (the whole batch the
// loader drew: DataParallel splits one batch, it does not shard the data
// set) goes through five communication phases, each opened by a trace
// marker on every rank:
//   dp.replicate       broadcast of rank 0's parameters and buffers
//   dp.scatter         rank 0 sends device k its chunk of the batch
//                      (torch.chunk sizes: ceil(N/D) per chunk, so the last
//                      devices may get fewer samples, or none)
//   dp.gather          each device sends its outputs (and its chunk's loss
//                      sum) to rank 0, which holds the gathered [N, ...]
//   dp.scatter_grad    rank 0 sends each device the gradient of the loss
//                      with respect to its outputs
//   dp.reduce          reduce (SUM) of the replicas' gradients onto rank 0
// then rank 0 alone unscales, clips and steps. See docs/data-parallelism.md
// ("DataParallel") for the one place this differs in form (not in value)
// from DataParallel: where the loss gradient is computed.
#ifndef DDPLAB_SIM_DP_H
#define DDPLAB_SIM_DP_H

#include "train/strategy.h" // defines: SimStrategyOps

typedef struct {
    // Simulated host seconds the controller spends issuing one kernel
    // launch (default 5e-6: a CUDA launch plus DataParallel's Python
    // threads contending for the GIL).
    double launch_s;
} SimDpOptions;

void sim_dp_options_default(SimDpOptions *o);

// torch.chunk(batch of n, devices): fills sizes[0..devices-1] (0 for the
// devices that get no chunk) and returns the number of chunks.
int sim_dp_chunks(int n, int devices, int *sizes);

// The strategy; cfg->strategy_cfg points to a SimDpOptions.
extern const SimStrategyOps sim_dp_strategy;

#endif
