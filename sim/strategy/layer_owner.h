// sim/strategy/layer_owner.h: `--strategy layer-owner`, the WRONG picture of FSDP,
// built so that it runs and can be put next to the real thing.
//
// The picture (reference/seeds/003, the long "FSDP timeline" answers): each
// layer lives whole on one rank, its owner; before a layer runs, its owner
// broadcasts it to everybody; the others drop their copy after use;
// gradients are sent to the owner, which alone keeps them, keeps the
// optimizer state of its layers and updates them. That is not FSDP. FSDP
// splits EVERY unit across ALL ranks (each rank keeps 1/R of every layer),
// all-gathers a unit before use (every rank sends its shard) and
// reduce-scatters its gradients (every rank ends with the reduced gradient
// of its own shard). Here memory is unbalanced (a rank holds whole layers,
// and with more ranks than layers some hold nothing) and the traffic is a
// broadcast from one rank and a reduce into one rank per layer.
//
// What one rank does:
//   owners         the model's top-level modules that hold parameters
//                  (sim/model/model.h: MLP Linear and BatchNorm layers; GPT tok_emb,
//                  pos_emb, blocks.i, ln_f, head), in forward order, go
//                  round-robin: the j-th to rank j mod R, as the seed's
//                  "GPU 0 owns Layer 1, Layer 3; GPU 1 owns Layer 2, Layer 4"
//   setup          every rank draws the same initial weights (same seed,
//                  --init or --resume), so each owner's own copy of its
//                  layers is rank 0's, as DDP's initial broadcast would
//                  make it; the others drop what they do not own
//   before forward of a module   its owner broadcasts its parameters (one
//                  contiguous range of the flat buffer) to every rank
//   after forward  the others drop them (a trace marker "layer-owner drop")
//   before backward of a module  the owner broadcasts them again
//   after backward of a module   on a synchronising micro-step its gradient
//                  range is reduced (SUM) into the owner; the others drop
//                  both the parameters and the gradient. Under no_sync
//                  (accumulation) the others keep their local gradient
//                  until the synchronising micro-step, as FSDP's no_sync
//                  keeps unsharded gradients
//   sync           the owner divides its reduced gradients by R (DDP's mean)
//   update         each rank unscales, clips and steps only the parameters
//                  it owns, with the trainer's optimizer restricted to them;
//                  the scaler's inf check (MAX) and the clipping norm's sum
//                  of squares (SUM, fp32, as FSDP's clip_grad_norm_ does) are
//                  all_reduced
//   save           each owner sends its layers' parameters, optimizer state
//                  and step counters to rank 0 (send/recv), which writes the
//                  normal checkpoint (any strategy can resume from it)
// Per micro-step: 2 x U broadcasts (U modules with parameters); per
// synchronising micro-step: U reduces. Buffers (BatchNorm running
// statistics) are not in the picture: each rank keeps its own, updated from
// its own batches, so rank 0's (the checkpoint's) are exactly DDP's rank 0's.
//
// Numeric mode: a dropped parameter range is overwritten with NaN, so a use
// without a broadcast shows in the loss; a dropped gradient range is zeroed.
// Every rank therefore holds valid values only for the layers it owns (read
// a trained model from its owners, or from a --save checkpoint).
//
// Not supported (setup fails with a message): evaluation during training
// (each rank's forward would broadcast; ranks may run different numbers of
// evaluation batches) and uneven inputs.
#ifndef DDPLAB_SIM_LAYER_OWNER_H
#define DDPLAB_SIM_LAYER_OWNER_H

#include <stdint.h>

#include "model/model.h"    // defines: SimModel
#include "train/strategy.h" // defines: SimStrategyOps

// The owner of module k on nranks ranks: the modules with parameters
// (k >= 1, nparams > 0) numbered j = 0, 1, ... in table (= forward) order,
// module j to rank j mod nranks. -1 for the root and for modules without
// parameters.
int sim_layer_owner_of(const SimModel *m, int module, int nranks);

// What one rank holds of the model's state, in bytes, as the picture says
// a real run would (numeric mode still allocates everything): its own
// layers' parameters, gradients and optimizer state all the time, and a
// borrowed layer's parameters (and gradient, until it is reduced) while it
// is in use. Mirrored in the memory ledger (sim/engine/memory.h).
typedef struct {
    int modules_owned;
    uint64_t owned_param_bytes;   // parameters of the layers it owns
    uint64_t param_bytes;         // parameters held now (owned + borrowed)
    uint64_t grad_bytes;          // gradients held now
    uint64_t optim_bytes;         // optimizer state (owned layers only)
    uint64_t peak_param_bytes;    // the most param_bytes has been
    uint64_t peak_bytes;          // the most params + grads + optimizer has been
    uint64_t broadcasts, reduces; // collectives this rank took part in
    uint64_t drops;               // layers it dropped (params) after use
} SimLayerOwnerStats;

typedef struct SimTrainer SimTrainer;

// This rank's figures; -1 when t does not run the layer-owner strategy.
int sim_layer_owner_stats(const SimTrainer *t, SimLayerOwnerStats *out);

// The strategy; it has no options of its own (cfg->strategy_cfg is not
// read): its collectives run the world's algorithm (SimWorldConfig.algo).
extern const SimStrategyOps sim_layer_owner_strategy;

#endif
