// sim/strategy/fsdp.h: `--strategy fsdp` (PyTorch's FullyShardedDataParallel, FSDP1
// with use_orig_params=False) and `--strategy zero1|zero2|zero3`, the ZeRO
// paper's stages, as strategies of the training loop (sim/train/strategy.h).
//
// Units. A wrap policy picks modules of the model (sim/model/model.h's module
// tree) to become FSDP units, bottom-up; the root unit takes every
// parameter no child unit took. Each unit's parameters are concatenated in
// parameter order into one flat parameter, right-padded to a multiple of
// the sharding group's size S; rank g of the group keeps the contiguous
// shard [g * numel_padded / S, (g + 1) * numel_padded / S) as fp32 master
// weights (sim_fsdp_plan_*: the plan, pure and shared by the views).
//
// One micro-step under FULL_SHARD, as FSDP runs it:
//   forward   each unit: all-gather its flat parameter (in param_dtype),
//             run it, free it again (not the root unit: FSDP keeps it
//             gathered for backward)
//   backward  each unit in reverse: all-gather again, run its backward,
//             free it; its unsharded gradient is pre-divided, reduce-
//             scattered (in reduce_dtype) to the shards' owners, post-
//             divided and added to the sharded gradient; the unsharded
//             gradient is freed
//   step      unscale / clip / update on the shards only: clipping's norm
//             and the scaler's inf check are all_reduced first
// SHARD_GRAD_OP keeps every unit gathered from its forward to the end of its
// backward. NO_SHARD all_reduces gradients instead (S = 1: every rank holds
// everything). HYBRID_SHARD shards inside a node and replicates across
// nodes: gathers and reduce-scatters run in the node's group, then the
// gradient shard is all_reduced across nodes; HYBRID_ZERO2 is its
// SHARD_GRAD_OP variant. ZeRO-1 keeps parameters and gradients whole,
// all_reduces gradients (as DeepSpeed does; reduce-scatter with
// zero1_reduce_scatter), updates only the rank's shard of the optimizer state,
// and all-gathers the updated parameters after the step.
//
// Numeric mode keeps the model's full-size parameter and gradient buffers
// as the place the layers compute from (the memory ledger books them as
// backing store, SIM_MEM_BACKING, not as the run's memory); parameters of a
// freed unit are overwritten with NaN there, so any use of a freed unit
// shows in the loss at once.
#ifndef DDPLAB_SIM_FSDP_H
#define DDPLAB_SIM_FSDP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/dtype.h"     // defines: SimDtype
#include "model/model.h"    // defines: SimModel
#include "train/strategy.h" // defines: SimStrategyOps

typedef enum {
    SIM_FSDP_FULL_SHARD = 0, // ZeRO-3
    SIM_FSDP_SHARD_GRAD_OP,  // ZeRO-2
    SIM_FSDP_NO_SHARD,       // DDP
    SIM_FSDP_HYBRID_SHARD,   // FULL_SHARD in a node, replicated across nodes
    SIM_FSDP_HYBRID_ZERO2,   // SHARD_GRAD_OP in a node, replicated across nodes
    SIM_FSDP_ZERO1,          // ZeRO-1: optimizer state sharded only
    SIM_FSDP_SHARDING_COUNT
} SimFsdpSharding;

typedef enum {
    SIM_FSDP_WRAP_AUTO = 0,  // per block for a GPT, per layer for an MLP
    SIM_FSDP_WRAP_BLOCK,     // ModuleWrapPolicy({Block}): each transformer block
    SIM_FSDP_WRAP_LAYER,     // each module of the model (every Linear, BatchNorm,
                             // embedding, block)
    SIM_FSDP_WRAP_SIZE,      // size_based_auto_wrap_policy(min_num_params)
    SIM_FSDP_WRAP_NONE,      // the whole model is one (root) unit
    SIM_FSDP_WRAP_COUNT
} SimFsdpWrap;

typedef enum {
    SIM_FSDP_PREFETCH_PRE = 0, // BackwardPrefetch.BACKWARD_PRE (the default)
    SIM_FSDP_PREFETCH_POST,    // BackwardPrefetch.BACKWARD_POST
    SIM_FSDP_PREFETCH_NONE,    // backward_prefetch=None
    SIM_FSDP_PREFETCH_COUNT
} SimFsdpPrefetch;

typedef enum {
    SIM_FSDP_SD_FULL = 0,  // StateDictType.FULL_STATE_DICT: gathered, rank 0 writes
    SIM_FSDP_SD_SHARDED,   // SHARDED_STATE_DICT: a file per rank plus an index
    SIM_FSDP_SD_LOCAL,     // LOCAL_STATE_DICT: the flat shards, same world size only
    SIM_FSDP_SD_COUNT
} SimFsdpStateDict;

typedef struct {
    SimFsdpSharding sharding;   // default FULL_SHARD
    SimFsdpWrap wrap;           // default AUTO
    int64_t min_params;         // WRAP_SIZE threshold (default 100,000,000, PyTorch's)
    SimFsdpPrefetch prefetch;   // default BACKWARD_PRE
    int forward_prefetch;       // default 0
    int limit_all_gathers;      // default 1: at most 2 gathered units in flight
    SimDtype param_dtype;       // MixedPrecision: SIM_FP32 = off (default)
    SimDtype reduce_dtype;      // SIM_FP32 = off; defaults to param_dtype when that is set
    SimDtype buffer_dtype;      // SIM_FP32 = off
    int reduce_dtype_set;       // 1: reduce_dtype was given
    int cpu_offload;            // CPUOffload(offload_params=True)
    int zero1_reduce_scatter;   // ZeRO-1: reduce-scatter gradients instead of all_reduce
    SimFsdpStateDict state_dict;// --state-dict (default FULL)
    int rank0_only;             // FULL state dict: only rank 0 holds the result (default 1)
    int state_dict_rank0_call;  // a bug on purpose: only rank 0 calls state_dict()
    int per_param;              // 1: FSDP2 (fully_shard): each parameter chunked on dim 0
    FILE *print_units;          // non-NULL: rank 0 prints the plan here
} SimFsdpOptions;

void sim_fsdp_options_default(SimFsdpOptions *o);
// Names as on the command line: "full_shard", "shard_grad_op", "no_shard",
// "hybrid_shard", "hybrid_zero2", "zero1"; "auto", "block", "layer", "size",
// "none"; "backward_pre", "backward_post", "none"; "full", "sharded", "local".
const char *sim_fsdp_sharding_name(SimFsdpSharding s);
const char *sim_fsdp_wrap_name(SimFsdpWrap w);
const char *sim_fsdp_prefetch_name(SimFsdpPrefetch p);
const char *sim_fsdp_state_dict_name(SimFsdpStateDict s);
// Parse a name (case-insensitive; PyTorch's upper-case spellings too).
// 0 on success, -1 unknown.
int sim_fsdp_sharding_parse(const char *s, SimFsdpSharding *out);
int sim_fsdp_wrap_parse(const char *s, SimFsdpWrap *out);
int sim_fsdp_prefetch_parse(const char *s, SimFsdpPrefetch *out);
int sim_fsdp_state_dict_parse(const char *s, SimFsdpStateDict *out);
// The strategy ZeRO's name stands for: zero1 -> ZERO1, zero2 ->
// SHARD_GRAD_OP, zero3 -> FULL_SHARD. -1 for other names.
int sim_fsdp_zero_stage(const char *strategy, SimFsdpSharding *out);

// ---- The plan: units, flat parameters and shards (pure) --------------------

typedef struct {
    int module;            // the model module that is the unit (0: the root)
    int is_root;
    int nparams;
    int *params;           // [nparams] model parameter indices, in order
    size_t *flat_offset;   // [nparams] where each starts in the flat parameter
    size_t numel;          // elements of its parameters
    size_t padded;         // numel rounded up to a multiple of shard_ranks
    size_t shard;          // padded / shard_ranks
    int order;             // position in forward order (0 = the root)
    // FSDP2 only (NULL for FSDP1): parameter k is chunked on dim 0, each
    // rank holding ceil(d0 / S) rows of it (the last ranks fewer, or none),
    // padded to chunk[k] elements; a rank's shard packs its chunks in
    // parameter order, chunk k at chunk_off[k]. The all-gather output is
    // then S such shards back to back, not the parameters concatenated.
    size_t *chunk_off;     // [nparams]
    size_t *chunk;         // [nparams] ceil(d0 / S) * (numel / d0)
} SimFsdpUnit;

typedef struct {
    int nunits;
    SimFsdpUnit *units;    // [nunits] in forward order, the root first
    int *param_unit;       // [nparams]: the unit holding each parameter
    int nparams;
    int shard_ranks;       // S: ranks one flat parameter is sharded over
    int replicas;          // nranks / S
    size_t shard_total;    // sum of units' shard sizes (this rank's master elements)
    size_t padded_total;   // sum of padded sizes
    size_t largest_unit;   // the largest numel (elements) of a unit
    int per_param;         // 1: FSDP2's layout (SimFsdpUnit.chunk_off)
} SimFsdpPlan;

// Builds the plan for a model on nranks ranks in `nodes` nodes. On failure
// writes one line into err and returns SIM_EINVAL (or SIM_ENOMEM).
SimStatus sim_fsdp_plan_build(SimFsdpPlan *p, const SimModel *m, const SimFsdpOptions *o,
                              int nranks, int nodes, char *err, size_t errlen);
void sim_fsdp_plan_free(SimFsdpPlan *p);

// The ownership of one element of parameter `param` (0-based element index
// within it): the unit, and the shard-group index that owns it (a rank
// index within the sharding group). Returns -1 on bad arguments.
int sim_fsdp_owner(const SimFsdpPlan *p, int param, size_t elem, int *unit, int *owner);
// Where parameter k of unit u (its k-th, not the model's index) meets
// shard g: its elements [*lo, *hi) (flattened row-major; lo == hi: none)
// lie at element *flat of the unit's all-gather output [padded], that is at
// *flat - g * shard within shard g. FSDP1: the parameter's range of the
// flat parameter cut by the shard's; FSDP2: the rows of its dim-0 chunk g.
void sim_fsdp_piece(const SimFsdpPlan *p, int u, int k, int g, size_t *flat, size_t *lo,
                    size_t *hi);
// Prints the plan as a table (units, their modules, sizes, padding, each
// rank's range), as --print-units shows it.
void sim_fsdp_plan_print(const SimFsdpPlan *p, const SimModel *m, FILE *out);

// The gradient divide factors of FSDP's default hooks for a world of n
// ranks: pre-divide by *pre, post-divide by *post (pre * post = n).
void sim_fsdp_divide_factors(int n, double *pre, double *post);

// summon_full_params: every unit all-gathered in turn into the model's
// parameter buffer (a collective: every rank must call it), so the full
// parameters can be read there; sim_fsdp_summon_end marks the sharded units
// freed again (NaN). t must be running the fsdp strategy.
SimStatus sim_fsdp_summon_full_params(SimRank *r, SimTrainer *t);
SimStatus sim_fsdp_summon_end(SimRank *r, SimTrainer *t);
// The plan this rank runs (NULL if t does not run fsdp).
const SimFsdpPlan *sim_fsdp_plan_of(const SimTrainer *t);

// This rank's shards, for a reader outside the strategy (the exactness
// report, cli/run/run_compare_capture.c): parameter i's elements
// [src[i], src[i] + slice[i].numel) within the parameter (flattened
// row-major) sit at slice[i].offset in master and in grad. A parameter with
// no elements on this rank has slice[i].numel = 0.
typedef struct {
    const SimTensor *master;   // [shard_total] fp32: the parameter shards
    const SimTensor *grad;     // [shard_total] fp32: their gradients (the mean
                               // over the world after a synchronising backward)
    const SimParamInfo *slice; // [nparams]
    const size_t *src;         // [nparams]
} SimFsdpShards;

// SIM_EINVAL when t is not an fsdp (or ZeRO) run.
SimStatus sim_fsdp_shards(const SimTrainer *t, SimFsdpShards *out);

// The strategy; cfg->strategy_cfg points to a SimFsdpOptions.
extern const SimStrategyOps sim_fsdp_strategy;

#endif
