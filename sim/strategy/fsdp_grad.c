// sim/strategy/fsdp_grad.c: FSDP's gradient path and its sharded optimizer step.
//
// After a unit's backward (when the micro-step synchronises) its unsharded
// gradient [padded] is pre-divided by `pre`, cast to reduce_dtype and
// reduce-scattered over the shard group (S = 1: nothing to scatter; ZeRO-1:
// all_reduced as DeepSpeed does, each rank keeping its slice); HYBRID then
// all_reduces the shard across nodes. At the end of backward every
// reduction is waited for, post-divided by `post` and added to the fp32
// sharded gradient. pre * post = the world size, so the shards hold the mean
// gradient, as DDP's buckets do.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/comm.h"   // defines: sim_coll_launch, sim_all_reduce
#include "engine/memory.h" // defines: SIM_MEM_GRAD
#include "engine/ops.h"    // defines: sim_op_scale

#include "strategy/fsdp_internal.h"
#include "train/trainer.h"

SimStatus fsdp_grad_begin(FsdpState *s, SimRank *r, int u) {
    FsdpUnitState *us = &s->u[u];
    if (fsdp_params_replicated(s) || us->grad_held || s->plan.units[u].numel == 0)
        return SIM_OK;
    us->grad_held = 1;
    return fsdp_mem_unit(s, r, u, SIM_MEM_GRAD, +1, "fsdp unsharded grad");
}

// ZeRO-1's default: one all_reduce of the whole gradient, each rank then
// keeping its own slice (DeepSpeed's stage 1 does not reduce-scatter).
static int zero1_all_reduce(const FsdpState *s) {
    return s->o.sharding == SIM_FSDP_ZERO1 && !s->o.zero1_reduce_scatter;
}

// Copies unit u's gradients out of the layers' buffer into buf (fp32, at
// least [padded]; zero padding) and clears them there: the unsharded
// gradient is released. *flat is buf's first padded elements.
static SimStatus take_grads(FsdpState *s, SimRank *r, int u, const SimTensor *buf,
                            SimTensor *flat) {
    const SimFsdpUnit *un = &s->plan.units[u];
    *flat = fsdp_view(buf, 0, un->padded);
    if (un->chunk_off && un->padded > un->numel) {
        SIM_CHECK(fsdp_backing_fill(r, flat, 0.0f)); // FSDP2: padding after every chunk
    } else if (un->padded > un->numel) {
        SimTensor pad = fsdp_view(buf, un->numel, un->padded - un->numel);
        SIM_CHECK(fsdp_backing_fill(r, &pad, 0.0f));
    }
    // the copy-in: FSDP2 packs each parameter's chunks into the S shards
    SIM_CHECK(fsdp_pack(s, r, u, &s->m->grad, flat));
    for (int k = 0; k < un->nparams; k++) {
        const SimParamInfo *p = &s->m->params[un->params[k]];
        SimTensor g = fsdp_view(&s->m->grad, p->offset, p->numel);
        SIM_CHECK(fsdp_backing_fill(r, &g, 0.0f));
    }
    return SIM_OK;
}

static SimStatus launch_reduce(FsdpState *s, SimRank *r, int u) {
    FsdpUnitState *us = &s->u[u];
    const SimFsdpUnit *un = &s->plan.units[u];
    if (un->numel == 0 || us->reducing)
        return SIM_OK;
    SimDtype rd = s->o.reduce_dtype;
    // In fp32 a unit laid out as in the model is reduced straight from the
    // layers' gradient buffer (cleared by finish_unit once reduced); other
    // fp32 units are packed into the reduce-scatter input; another
    // reduce_dtype packs into fp32 staging, pre-divides there and casts.
    SimTensor flat;
    us->rs_in_view = rd == SIM_FP32 && (s->m->grad.data != NULL || r->world->cfg.phantom) &&
                     fsdp_unit_in_model(s, u); // a phantom world decides as numeric mode
    if (us->rs_in_view) {
        us->rs_in = fsdp_view(&s->m->grad, s->m->params[un->params[0]].offset, un->padded);
        flat = us->rs_in;
    } else {
        SIM_CHECK(fsdp_alloc(r, &us->rs_in, "fsdp reduce-scatter input", rd, un->padded));
        SIM_CHECK(take_grads(s, r, u, rd == SIM_FP32 ? &us->rs_in : &s->staging, &flat));
    }
    if (s->pre != 1.0)
        SIM_CHECK(sim_op_scale(r, &flat, 0, 0, (float)(1.0 / s->pre)));
    // The unsharded gradient becomes the reduce-scatter's input (PyTorch's
    // FSDP hands the flat gradient itself to the collective): its charge
    // moves to the collective's buffers, which add the output shard.
    if (us->grad_held) {
        us->grad_held = 0;
        SIM_CHECK(fsdp_mem_unit(s, r, u, SIM_MEM_GRAD, -1, "fsdp unsharded grad"));
    }
    SIM_CHECK(fsdp_mem_unit(s, r, u, SIM_MEM_COMM, +1, "fsdp reduce-scatter buffers"));
    if (rd != SIM_FP32)
        SIM_CHECK(sim_op_cast(r, &us->rs_in, &flat));
    us->reducing = 1;
    memset(&us->rh, 0, sizeof us->rh);
    fsdp_trace_unit(s, r, u, "reduce");
    if (zero1_all_reduce(s) || s->S == 1) {
        // all_reduce in place; this rank's slice is its shard
        us->rs_out = fsdp_view(&us->rs_in, (size_t)s->gidx * un->shard, un->shard);
        us->rs_out_view = 1;
        int group = s->S == 1 ? s->rep_group.n : s->nranks;
        if (group < 2)
            return SIM_OK;
        SimCollArgs a = {.kind = SIM_COLL_ALL_REDUCE, .algo = r->world->cfg.algo, .dtype = rd,
                         .op = SIM_SUM, .sendbuf = us->rs_in.data, .recvbuf = us->rs_in.data,
                         .count = un->padded};
        return sim_coll_launch(r, &a, &us->rh);
    }
    us->rs_out_view = 0;
    SIM_CHECK(fsdp_alloc(r, &us->rs_out, "fsdp reduce-scatter output", rd, un->shard));
    return fsdp_reduce_scatter(s, r, &us->rs_in, &us->rs_out, &us->rh);
}

static SimStatus finish_unit(FsdpState *s, SimRank *r, int u);

// Launches unit u's reduction, then completes the one launched before it:
// PyTorch frees a reduce-scatter's buffers as soon as it has run, so at most
// two are in flight while backward goes on (not one per unit).
SimStatus fsdp_grad_reduce(FsdpState *s, SimRank *r, int u) {
    SIM_CHECK(launch_reduce(s, r, u));
    for (int v = s->plan.nunits - 1; v >= 0; v--)
        if (v != u && s->u[v].reducing)
            SIM_CHECK(finish_unit(s, r, v));
    return SIM_OK;
}

// Waits for unit u's reduction and adds its post-divided shard into grad_shard.
static SimStatus finish_unit(FsdpState *s, SimRank *r, int u) {
    FsdpUnitState *us = &s->u[u];
    const SimFsdpUnit *un = &s->plan.units[u];
    SIM_CHECK(fsdp_coll_wait(r, &us->rh));
    if (s->S > 1 && !zero1_all_reduce(s) && s->rep_group.n > 1)
        SIM_CHECK(sim_group_all_reduce(r, &s->rep_group, us->rs_out.data, us->rs_out.data,
                                       un->shard, us->rs_out.dtype, SIM_SUM));
    // fp32: post-divided where it is (rs_out is this unit's own); other
    // dtypes are cast into fp32 staging first
    SimTensor part = us->rs_out;
    if (us->rs_out.dtype != SIM_FP32) {
        part = fsdp_view(&s->staging, 0, un->shard);
        SIM_CHECK(sim_op_cast(r, &part, &us->rs_out));
    }
    if (s->post != 1.0)
        SIM_CHECK(sim_op_scale(r, &part, 0, 0, (float)(1.0 / s->post)));
    SimTensor dst = fsdp_view(&s->grad_shard, us->master_off, un->shard);
    SIM_CHECK(sim_op_axpy(r, &dst, 1.0f, &part));
    if (s->o.cpu_offload)
        fsdp_host_copy(r, "fsdp grad shard D2H", (double)un->shard * 4);
    if (!us->rs_out_view)
        sim_tensor_free(r, &us->rs_out);
    us->rs_out.data = NULL;
    if (us->rs_in_view) // the layers' gradient, reduced: released (zero for the next backward)
        SIM_CHECK(fsdp_backing_fill(r, &us->rs_in, 0.0f));
    else
        sim_tensor_free(r, &us->rs_in);
    us->rs_in.data = NULL;
    us->rs_in_view = 0;
    us->reducing = 0;
    fsdp_trace_unit(s, r, u, "reduced");
    return fsdp_mem_unit(s, r, u, SIM_MEM_COMM, -1, "fsdp reduce-scatter buffers");
}

SimStatus fsdp_grad_finish(FsdpState *s, SimRank *r) {
    // the same order on every rank: hybrid's cross-node all_reduces are
    // collectives of their own
    for (int u = s->plan.nunits - 1; u >= 0; u--)
        if (s->u[u].reducing)
            SIM_CHECK(finish_unit(s, r, u));
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// the step

// A float summed (or maxed) over a group of ranks.
static SimStatus group_sum(FsdpState *s, SimRank *r, const SimGroup *g, float *x, SimRedOp op) {
    if (g->n < 2)
        return SIM_OK;
    // Under CPU offload x was computed on the host: the collective (on the
    // device) starts once the host has it.
    if (r->ops_on_host && r->clock[SIM_STREAM_HOST] > r->clock[SIM_STREAM_COMPUTE])
        r->clock[SIM_STREAM_COMPUTE] = r->clock[SIM_STREAM_HOST];
    SimTensor v;
    int64_t shape[1] = {1};
    sim_tensor_init(&v, "fsdp scalar", SIM_FP32, 1, shape);
    v.mem_cat = SIM_MEM_BACKING;
    SimStatus st = sim_tensor_alloc(r, &v, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &v, x);
    if (st == SIM_OK)
        st = g->n == s->nranks
                 ? sim_all_reduce(r, v.data, v.data, 1, SIM_FP32, op, r->world->cfg.algo)
                 : sim_group_all_reduce(r, g, v.data, v.data, 1, SIM_FP32, op);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &v, x);
    sim_tensor_free(r, &v);
    return st;
}

// The total norm over the shards: each shard group holds every element once.
static SimStatus sharded_norm(FsdpState *s, SimRank *r, float *norm) {
    SimTrainer *t = s->t;
    double sumsq = 0;
    SIM_CHECK(sim_clip_sumsq(r, &s->grad_shard, s->shard_params, s->m->nparams, t->has_grad,
                             &sumsq));
    float x = (float)sumsq;
    if (s->S > 1)
        SIM_CHECK(group_sum(s, r, &s->shard_group, &x, SIM_SUM));
    *norm = (float)sqrt((double)x);
    return SIM_OK;
}

// Parameters back into the layers after the step: NO_SHARD copies its
// (whole) shard; ZeRO-1 all-gathers the updated shards.
SimStatus fsdp_publish(FsdpState *s, SimRank *r) {
    if (!fsdp_params_replicated(s))
        return SIM_OK;
    for (int u = 0; u < s->plan.nunits; u++) {
        FsdpUnitState *us = &s->u[u];
        const SimFsdpUnit *un = &s->plan.units[u];
        if (un->numel == 0)
            continue;
        us->phase = FSDP_SHARDED;
        SIM_CHECK(fsdp_gather_finish(s, r, u)); // uncharged: replicated parameters
        fsdp_free_gathered(r, us);
    }
    return SIM_OK;
}

static SimStatus update_shards(FsdpState *s, SimRank *r, SimTrainer *t, SimStepStats *st);

// Under CPU offload the shards live in host memory, and PyTorch steps the
// optimizer there, on the CPU: unscaling, clipping, the step and zeroing the
// gradient shard are priced on the host (sim_sys_host) and placed on the
// host stream, after the gradient shards' copies to it; the next gathers'
// copies back wait for them.
SimStatus fsdp_update(void *state, SimRank *r, SimTrainer *t, SimStepStats *st) {
    FsdpState *s = state;
    r->ops_on_host = s->o.cpu_offload;
    SimStatus res = update_shards(s, r, t, st);
    r->ops_on_host = 0;
    if (s->o.cpu_offload && r->clock[SIM_STREAM_HOST] > r->host_step_end)
        r->host_step_end = r->clock[SIM_STREAM_HOST];
    return res == SIM_OK ? fsdp_publish(s, r) : res;
}

static SimStatus update_shards(FsdpState *s, SimRank *r, SimTrainer *t, SimStepStats *st) {
    const SimTrainConfig *c = t->cfg;
    SimGradScaler *sc = &t->scaler;
    SIM_CHECK(sim_scaler_unscale(sc, r, &s->grad_shard, s->shard_params, s->m->nparams,
                                 t->has_grad));
    if (sc->enabled) { // every rank must agree to skip: the inf check is all_reduced
        float inf = (float)sc->found_inf;
        SimGroup world;
        sim_group_world(&world, r);
        SIM_CHECK(group_sum(s, r, &world, &inf, SIM_MAX));
        sc->found_inf = inf > 0;
    }
    if (c->opt.clip_grad_norm > 0 || c->want_grad_norm) {
        SIM_CHECK(sharded_norm(s, r, &st->grad_norm));
        if (c->opt.clip_grad_norm > 0)
            SIM_CHECK(sim_clip_scale(r, &s->grad_shard, s->shard_params, s->m->nparams,
                                     t->has_grad, sim_clip_coef(st->grad_norm,
                                                                c->opt.clip_grad_norm)));
    }
    st->lr = sim_lr_at(&t->sched, t->step);
    int stepped = 0;
    SIM_CHECK(sim_scaler_step(sc, r, &s->optim, st->lr, t->has_grad, &stepped));
    SIM_CHECK(sim_scaler_update(sc, r));
    st->skipped = !stepped;
    return fsdp_backing_fill(r, &s->grad_shard, 0.0f);
}
