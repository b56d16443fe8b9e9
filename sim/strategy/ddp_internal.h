// sim/strategy/ddp_internal.h: the state one rank's DDP keeps (sim/strategy/ddp.c, the
// strategy's callbacks) and its reducer (sim/strategy/ddp_reducer.c: buckets,
// gradient-ready marking, launches in bucket order, finalisation).
#ifndef DDPLAB_SIM_DDP_INTERNAL_H
#define DDPLAB_SIM_DDP_INTERNAL_H

#include <stdint.h>

#include "engine/world.h" // defines: SimRank, SimCollHandle
#include "model/model.h"  // defines: SimModel
#include "strategy/ddp.h"

typedef struct {
    SimTensor buf;      // [numel] fp32: the bucket's flat buffer
    int view;           // 1: buf.data points into the model's gradients (not owned)
    size_t base;        // view: first element of the bucket in the gradient buffer
    size_t numel;
    size_t bytes;
    int pending;        // gradients not yet ready in this backward
    int launched;
    SimCollHandle h;    // its all_reduce while launched
    SimTensor low;      // [numel] fp16/bf16: the compressed copy the fp16 and
                        // bf16 hooks all_reduce (unallocated otherwise)
    int compressed;     // powersgd: this launch's all_reduce is Q's (finish follows)
} DdpBucket;

typedef struct {
    const SimDdpOptions *o;
    SimModel *m;
    int world;               // world size: the divide factor
    SimBucketPlan plan;
    DdpBucket *b;            // [plan.nbuckets]
    int *bucket_of;          // [nparams] bucket of each parameter
    size_t *slot;            // [nparams] first element of its slot in the bucket
    uint8_t *ready;          // [nparams] marked ready in this backward
    int next_launch;         // lowest bucket not yet launched
    int active;              // 1: this backward reduces (prepare_for_backward ran)
    int require_finalize;    // a reduction began and has not been finalised
    int *ready_order;        // [nparams] the order gradients became ready, for
    int nready;              //   the one-time rebuild
    int recording;           // 1: ready_order is being recorded
    int rebuilt;             // 1: the buckets were rebuilt
    int forwards;            // reducing forwards started
    int iteration;           // the current one's index (PyTorch's num_iterations - 1)
    int fwd_param_sync;      // PyTorch's require_forward_param_sync
    SimStatus hook_status;   // first failure inside a gradient hook
    char hook_error[2048];   // as long as SimRank.error, which it keeps
    int join;                // 1: uneven inputs under Join (the trainer's cfg->data.join)
    int shadowed;            // 1: shadowed at least once in this join context
    SimDdpPowersgd *psgd;    // the powersgd hook's state (NULL with other hooks)
} DdpState;

// The plan's buckets and per-parameter slots. Any previous buckets must
// have been freed (ddp_reducer_free) while their plan was still s->plan.
SimStatus ddp_reducer_build(DdpState *s, SimRank *r);
void ddp_reducer_free(DdpState *s, SimRank *r);
// prepare_for_backward: resets the counts for a reducing backward.
void ddp_reducer_prepare(DdpState *s);
// mark_variable_ready: copies the gradient into its bucket (x 1/world) and
// launches every bucket that is ready and next in order.
SimStatus ddp_reducer_mark_ready(DdpState *s, SimRank *r, int param);
// finalize_backward: waits for the launched buckets and, when all of them
// were launched, copies the results into the gradients.
SimStatus ddp_reducer_finalize(DdpState *s, SimRank *r);

// PyTorch's "Expected to have finished reduction in the prior iteration ..."
// for the parameters not ready in s->ready, word for word as
// s->o->debug_level shapes it, then ddplab's diagnosis on a line of its own,
// into r->error (ddp_errors.c). `step`: the step whose backward left the
// reduction unfinished. Returns SIM_EPROTO.
SimStatus ddp_error_unfinished(const DdpState *s, SimRank *r, long long step);

// The one-time bucket rebuild, if this forward is its iteration (ddp.c).
SimStatus ddp_rebuild(DdpState *s, SimRank *r);
// Parameters (when params) and buffers broadcast from rank root (ddp.c).
SimStatus ddp_broadcast_state(DdpState *s, SimRank *r, int params, int root);
// A rank that has run out of data: one all_reduce of zeros per bucket, in
// bucket order, matching the others' backward (ddp_reducer.c).
SimStatus ddp_reducer_shadow(DdpState *s, SimRank *r);

// Join (ddp_join.c). In the forward of a rank with data: the "not joined"
// all_reduce (1), the rebuild, the buffer broadcast from the rank all agree
// on, the "sync backward" all_reduce (1).
SimStatus ddp_join_forward(DdpState *s, SimRank *r, int sync);
// The strategy's join_shadow and join_exit (sim/train/strategy.h).
SimStatus ddp_join_shadow(void *state, SimRank *r, SimTrainer *t);
SimStatus ddp_join_exit(void *state, SimRank *r, SimTrainer *t);

#endif
