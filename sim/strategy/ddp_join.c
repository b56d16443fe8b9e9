// sim/strategy/ddp_join.c: DDP under Join, for uneven inputs, as
// torch.distributed.algorithms.Join with DistributedDataParallel's join hook
// do it in PyTorch 1.13. Every iteration each rank first all_reduces (SUM)
// whether it is still running: 1 from a rank with data (notify_join_context
// in DDP's forward), 0 from a rank that has run out (the join context's
// loop). A rank out of data then shadows what the forward and backward of
// the others do: the one-time bucket rebuild, the buffer broadcast from a
// rank that all agree on (an all_reduce MAX of candidate ranks; -1 = not a
// candidate), the "sync backward" all_reduce, and one all_reduce of zeros
// per bucket in bucket order. Its zeros count in the average: gradients are
// still divided by the initial world size (divide_by_initial_world_size,
// True by default). When every rank has run out (the epoch's end) each rank
// all_reduces a last 0, and the parameters and buffers of the last rank to
// join (ties: the highest rank) are broadcast to all (post_hook).
#include <string.h>

#include "engine/comm.h" // defines: sim_all_reduce
#include "engine/ops.h"  // defines: sim_tensor_alloc, sim_tensor_upload
#include "strategy/ddp_internal.h"

// One fp32 value all_reduced with op; *x in, the result out.
static SimStatus allreduce_value(SimRank *r, const char *name, SimRedOp op, float *x) {
    SimTensor v;
    int64_t shape[1] = {1};
    sim_tensor_init(&v, name, SIM_FP32, 1, shape);
    v.mem_cat = SIM_MEM_COMM;
    SimStatus st = sim_tensor_alloc(r, &v, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &v, x);
    if (st == SIM_OK)
        st = sim_all_reduce(r, v.data, v.data, 1, SIM_FP32, op, r->world->cfg.algo);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &v, x);
    sim_tensor_free(r, &v);
    return st;
}

// _find_common_rank: the highest candidate rank (a rank that is not a
// candidate offers -1).
static SimStatus common_rank(SimRank *r, int candidate, int *root) {
    float x = candidate ? (float)r->rank : -1.0f;
    SIM_CHECK(allreduce_value(r, "join.common_rank", SIM_MAX, &x));
    if (x < 0) {
        snprintf(r->error, sizeof r->error, "join: no rank is a candidate for the common rank");
        return SIM_EPROTO;
    }
    *root = (int)x;
    return SIM_OK;
}

// Buffers before a forward, when the previous forward reduced
// (_check_sync_bufs_pre_fwd); the source is a rank still running.
static SimStatus sync_buffers(DdpState *s, SimRank *r, int running) {
    if (!(s->fwd_param_sync && s->o->broadcast_buffers && s->m->nbuffers > 0))
        return SIM_OK;
    int root = 0;
    SIM_CHECK(common_rank(r, running, &root));
    return ddp_broadcast_state(s, r, 0, root);
}

SimStatus ddp_join_forward(DdpState *s, SimRank *r, int sync) {
    float running = 1.0f;
    SIM_CHECK(allreduce_value(r, "join.not_joined", SIM_SUM, &running));
    SIM_CHECK(ddp_rebuild(s, r));
    SIM_CHECK(sync_buffers(s, r, 1));
    float want = sync ? 1.0f : 0.0f; // _check_global_requires_backward_grad_sync
    return allreduce_value(r, "join.requires_sync", SIM_SUM, &want);
}

SimStatus ddp_join_shadow(void *state, SimRank *r, SimTrainer *t) {
    (void)t;
    DdpState *s = state;
    s->shadowed = 1;
    float running = 0.0f;
    SIM_CHECK(allreduce_value(r, "join.not_joined", SIM_SUM, &running));
    if (running < 0.5f) {
        snprintf(r->error, sizeof r->error, "join: every rank has run out of data in the "
                 "middle of an epoch");
        return SIM_EPROTO;
    }
    if (s->forwards++ > 0) // keeps the iteration count of the running ranks
        s->iteration++;
    SIM_CHECK(ddp_rebuild(s, r));
    SIM_CHECK(sync_buffers(s, r, 0));
    float want = 0.0f;
    SIM_CHECK(allreduce_value(r, "join.requires_sync", SIM_SUM, &want));
    s->fwd_param_sync = want > 0.5f;
    if (!s->fwd_param_sync)
        return SIM_OK;
    return ddp_reducer_shadow(s, r);
}

SimStatus ddp_join_exit(void *state, SimRank *r, SimTrainer *t) {
    (void)t;
    DdpState *s = state;
    float running = 0.0f;
    SIM_CHECK(allreduce_value(r, "join.not_joined", SIM_SUM, &running));
    if (running > 0.5f) {
        snprintf(r->error, sizeof r->error, "join: the context closed while %d rank%s still "
                 "had data", (int)running, running > 1.5f ? "s" : "");
        return SIM_EPROTO;
    }
    int root = 0;
    SIM_CHECK(common_rank(r, !s->shadowed, &root));
    s->shadowed = 0;
    return ddp_broadcast_state(s, r, 1, root);
}
