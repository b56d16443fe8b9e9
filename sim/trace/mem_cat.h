// sim/trace/mem_cat.h: the categories and spaces of memory. The memory
// ledger (sim/engine/memory.h) charges by them and the trace's memory events
// carry them, so the trace's readers (exports, reports, views) can name them
// without the engine.
#ifndef DDPLAB_SIM_MEM_CAT_H
#define DDPLAB_SIM_MEM_CAT_H

typedef enum {
    SIM_MEM_OTHER = 0,   // batches, loss scratch, scaler, anything else
    SIM_MEM_PARAM,       // unsharded parameters (replicas; gathered FSDP units)
    SIM_MEM_PARAM_SHARD, // sharded fp32 parameters (FSDP / ZeRO-3 master shards)
    SIM_MEM_PARAM_LOWP,  // low-precision parameter copies (mixed precision)
    SIM_MEM_GRAD,        // unsharded gradients
    SIM_MEM_GRAD_SHARD,  // sharded gradients
    SIM_MEM_OPTIM,       // optimizer state (momentum, exp_avg, exp_avg_sq)
    SIM_MEM_ACT,         // activations and activation gradients
    SIM_MEM_COMM,        // communication buffers: DDP buckets, reduce-scatter
                         // inputs, all-gather outputs in flight
    SIM_MEM_BACKING,     // numeric-mode backing store (not counted: sim/engine/memory.h)
    SIM_MEM_CAT_COUNT
} SimMemCat;

typedef enum { SIM_MEM_DEVICE = 0, SIM_MEM_HOST, SIM_MEM_SPACE_COUNT } SimMemSpace;

// "other", "params", "params (sharded)", "params (low precision)", "grads",
// "grads (sharded)", "optimizer", "activations", "comm buffers", "backing".
const char *sim_mem_cat_name(SimMemCat c);
// Short keys for files and tables: "other", "param", "param_shard",
// "param_lowp", "grad", "grad_shard", "optim", "act", "comm", "backing".
const char *sim_mem_cat_key(SimMemCat c);
const char *sim_mem_space_name(SimMemSpace s); // "device", "host"

#endif
