// sim/strategy/fsdp_internal.h: what the FSDP files share (sim/strategy/fsdp.h says what the
// strategy does):
//   fsdp_plan.c   options, names, the plan of units and shards
//   fsdp.c        set-up, the module hooks (gather, free, prefetch), teardown
//   fsdp_grad.c   gradient reduction and the sharded optimizer step
//   fsdp_state.c  state dicts: the full one, and the choice of type
//   fsdp_shards.c, fsdp_shards_load.c (with fsdp_shards.h)
//                 sharded and local state dicts: the format, saving, restoring
//   fsdp_mem.c    the memory ledger's view of a unit and of the model state
#ifndef DDPLAB_SIM_FSDP_INTERNAL_H
#define DDPLAB_SIM_FSDP_INTERNAL_H

#include "engine/backend.h" // defines: SimCollHandle
#include "engine/group.h"   // defines: SimGroup
#include "model/optim.h"    // defines: SimOptim
#include "strategy/fsdp.h"
#include "train/train.h"    // defines: SimTrainer

typedef enum { FSDP_SHARDED = 0, FSDP_PENDING, FSDP_GATHERED } FsdpUnitPhase;

// One unit on one rank.
typedef struct {
    FsdpUnitPhase phase;
    SimTensor lowp;        // [shard] param_dtype: the low-precision shard sent (mixed precision)
    SimTensor gathered;    // [padded] param_dtype: the all-gather output
    int gathered_view;     // 1: gathered is the unit's range of the model's parameter
                           // buffer (fp32, unpadded: gathered in place, no unpacking)
    SimCollHandle gh;      // the all-gather in flight (phase PENDING, world group)
    int grad_held;         // 1: its unsharded gradient is charged (between its backward
                           // and its reduction; across micro-steps under no_sync)
    SimTensor rs_in;       // [padded] reduce_dtype: pre-divided gradient, reduce-scatter input
    SimTensor rs_out;      // [shard] reduce_dtype (a view of rs_in's slice when S = 1)
    SimCollHandle rh;      // reduce-scatter (or S = 1: all_reduce) in flight
    int reducing;          // 1: rh is launched and not yet waited for
    int rs_out_view;       // 1: rs_out is a slice of rs_in (all_reduce paths)
    int rs_in_view;        // 1: rs_in is the unit's range of the model's gradient buffer
                           // (fp32, unpadded: reduced in place, cleared once reduced)
    size_t master_off;     // where its shard starts in master / grad_shard
} FsdpUnitState;

typedef struct {
    SimFsdpOptions o;
    SimFsdpPlan plan;
    SimModel *m;
    SimTrainer *t;
    int nranks, S, gidx;   // ranks; shard group size; this rank's index in it
    SimGroup shard_group;  // the ranks one flat parameter is sharded over
    SimGroup rep_group;    // the ranks holding the same shard
    int *unit_of_module;   // [nmodules]: unit index, or -1
    FsdpUnitState *u;      // [nunits]
    SimTensor master;      // [shard_total] fp32: this rank's shards (all units)
    SimTensor grad_shard;  // [shard_total] fp32: their gradients
    SimTensor staging;     // [largest padded] fp32 scratch for building rs_in
    SimTensor lowp_buffers; // [buffer_count] buffer_dtype (MixedPrecision buffer_dtype)
    SimParamInfo *shard_params; // [nparams]: each parameter's slice in master
    size_t *shard_src;     // [nparams]: where that slice starts within the parameter
    SimOptim optim;        // over master / grad_shard
    int sync;              // the current micro-step reduces gradients
    double pre, post;      // gradient divide factors
    int charged_state;     // model-state charges made at set-up
} FsdpState;

// 1 when the strategy keeps every unit gathered for good (no sharded
// parameters: NO_SHARD and ZeRO-1).
int fsdp_params_replicated(const FsdpState *s);
// Parameters are freed after forward (FULL_SHARD, HYBRID_SHARD), except the root's.
int fsdp_reshard_after_forward(const FsdpState *s, int unit);

// A 1-D view of n elements of flat tensor t (any dtype) from element off.
SimTensor fsdp_view(const SimTensor *t, size_t off, size_t n);
// Untimed numeric-mode bookkeeping on backing storage (the layers' full-size
// buffers): copies with casts, and fills. Not part of the modelled run, so
// not on the simulated clock.
SimStatus fsdp_backing_cast(SimRank *r, SimTensor *dst, const SimTensor *src);
SimStatus fsdp_backing_fill(SimRank *r, SimTensor *t, float v);
// Allocates numeric-mode storage that the ledger must not count (none in a
// phantom world, where sim_tensor_alloc gives no storage).
SimStatus fsdp_alloc(SimRank *r, SimTensor *t, const char *name, SimDtype dt, size_t n);

// Gathering (fsdp.c).
SimStatus fsdp_gather_issue(FsdpState *s, SimRank *r, int u);
SimStatus fsdp_gather_finish(FsdpState *s, SimRank *r, int u);
SimStatus fsdp_reshard(FsdpState *s, SimRank *r, int u);
// Releases a unit's all-gather output (nothing to free when it is a view).
void fsdp_free_gathered(SimRank *r, FsdpUnitState *us);
// 1 when unit u's flat parameter is exactly a range of the model's flat
// buffers (no padding, its parameters consecutive there): numeric mode then
// gathers into the parameter buffer and reduces from the gradient buffer in
// place (fp32), without copies the modelled run does not make.
int fsdp_unit_in_model(const FsdpState *s, int u);
// Unit u's parameters from a buffer in the all-gather's layout (flat
// [padded]: FSDP1's flat parameter, FSDP2's S packed shards) into one in
// the model's layout (full, each parameter at its offset): the copy-out;
// fsdp_pack is the copy-in the other way (padding left as it was).
SimStatus fsdp_unpack(FsdpState *s, SimRank *r, int u, const SimTensor *flat, SimTensor *full);
SimStatus fsdp_pack(FsdpState *s, SimRank *r, int u, const SimTensor *full, SimTensor *flat);
// Copies unit u's slice of the model's parameters into master (set-up, restore).
SimStatus fsdp_shard_from_model(FsdpState *s, SimRank *r, int u);
// Every unit's full parameters into the model's buffer (state dicts), one
// unit at a time; fsdp_poison_sharded marks them freed again afterwards.
SimStatus fsdp_gather_all(FsdpState *s, SimRank *r);
SimStatus fsdp_poison_sharded(FsdpState *s, SimRank *r);

// Gradients (fsdp_grad.c).
SimStatus fsdp_grad_begin(FsdpState *s, SimRank *r, int u);   // PRE_BACKWARD
SimStatus fsdp_grad_reduce(FsdpState *s, SimRank *r, int u);  // POST_BACKWARD, sync
SimStatus fsdp_grad_finish(FsdpState *s, SimRank *r);         // end of a sync backward
SimStatus fsdp_update(void *state, SimRank *r, SimTrainer *t, SimStepStats *st);
// Replicated strategies (NO_SHARD, ZeRO-1): master into the layers' buffer
// (after the step, and after a restore); nothing to do for the others.
SimStatus fsdp_publish(FsdpState *s, SimRank *r);

// Ledger (fsdp_mem.c).
SimStatus fsdp_mem_state(FsdpState *s, SimRank *r, int sign);
SimStatus fsdp_mem_unit(FsdpState *s, SimRank *r, int u, SimMemCat cat, int sign,
                        const char *what);
int fsdp_param_bytes(const FsdpState *s);
int fsdp_reduce_bytes(const FsdpState *s);
SimMemSpace fsdp_shard_space(const FsdpState *s);
// A shard event (sim/trace/trace.h SIM_EV_SHARD) for unit u with this label.
void fsdp_trace_unit(FsdpState *s, SimRank *r, int u, const char *label);
// A host <-> device copy of `bytes` on the rank's copy stream (CPU
// offload), traced; the communication stream waits for it.
// Announces every unit to the trace ("plan" events: name, size, the shard
// group's size and this rank's place in it).
void fsdp_trace_plan(FsdpState *s, SimRank *r);
void fsdp_host_copy(SimRank *r, const char *name, double bytes);
// Moves a tensor's charge to another space/category (and its tags with it).
SimStatus fsdp_retag(SimRank *r, SimTensor *t, SimMemSpace sp, SimMemCat cat);

// State dicts (fsdp_state.c).
SimStatus fsdp_save(void *state, SimRank *r, SimTrainer *t, const char *path);
SimStatus fsdp_restore(void *state, SimRank *r, SimTrainer *t, const char *path);
// Every parameter's step count as torch counts it (the largest over the
// ranks: a rank holding nothing of a parameter never stepped it) into the
// loop's optimizer, t->optim (a collective).
SimStatus fsdp_gather_steps(FsdpState *s, SimRank *r);
// Every rank's outcome of its own part of a save or restore (a file written
// or read), agreed on with collectives, so that the ranks fail together
// rather than leave the others waiting in their next collective: SIM_OK on
// every rank when all succeeded; otherwise every rank returns the status of
// the lowest failing rank and takes over its reason (t->error) and its
// bad-input flag (fsdp_shards.c).
SimStatus fsdp_agree(FsdpState *s, SimRank *r, SimTrainer *t, SimStatus mine);

// Sharded and local state dicts (fsdp_shards.c): a file per shard (per
// rank for local) plus an index at path; is_index says whether path is such
// an index. Both are collectives.
SimStatus fsdp_save_shards(FsdpState *s, SimRank *r, SimTrainer *t, const char *path);
SimStatus fsdp_restore_shards(FsdpState *s, SimRank *r, SimTrainer *t, const char *path);
int fsdp_shards_is_index(const char *path);

// A world-or-group collective on the rank's groups: world collectives are
// launched asynchronously into *h (wait with fsdp_coll_wait), group ones run
// at once (*h left idle).
SimStatus fsdp_all_gather(FsdpState *s, SimRank *r, const SimTensor *send, SimTensor *recv,
                          SimCollHandle *h);
SimStatus fsdp_reduce_scatter(FsdpState *s, SimRank *r, const SimTensor *send, SimTensor *recv,
                              SimCollHandle *h);
SimStatus fsdp_coll_wait(SimRank *r, SimCollHandle *h);

#endif
