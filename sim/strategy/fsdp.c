// sim/strategy/fsdp.c: the FSDP strategy's set-up, its module hooks (gather before a
// unit runs, free after, prefetch the next) and teardown. See sim/strategy/fsdp.h.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"   // defines: sim_coll_launch
#include "engine/memory.h" // defines: sim_mem_charge
#include "engine/ops.h"    // defines: sim_tensor_alloc, sim_op_cast

#include "strategy/fsdp_internal.h"

int fsdp_params_replicated(const FsdpState *s) {
    return s->o.sharding == SIM_FSDP_NO_SHARD || s->o.sharding == SIM_FSDP_ZERO1 || s->S == 1;
}

// PyTorch's _should_free_in_backward: a sharded unit is freed after its
// backward when gradients are synchronised in this backward, or whatever
// the sync when its strategy reshards after forward (FULL_SHARD,
// HYBRID_SHARD). SHARD_GRAD_OP under no_sync keeps every unit gathered
// across the micro-steps, so the next forward gathers nothing.
static int free_in_backward(const FsdpState *s) {
    if (fsdp_params_replicated(s))
        return 0;
    return s->sync || s->o.sharding == SIM_FSDP_FULL_SHARD ||
           s->o.sharding == SIM_FSDP_HYBRID_SHARD;
}

int fsdp_reshard_after_forward(const FsdpState *s, int unit) {
    if (fsdp_params_replicated(s) || s->plan.units[unit].is_root)
        return 0;
    return s->o.sharding == SIM_FSDP_FULL_SHARD || s->o.sharding == SIM_FSDP_HYBRID_SHARD;
}

SimTensor fsdp_view(const SimTensor *t, size_t off, size_t n) {
    SimTensor v;
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(&v, t->name, t->dtype, 1, shape);
    v.data = t->data ? (char *)t->data + off * sim_dtype_size(t->dtype) : NULL;
    return v;
}

SimStatus fsdp_backing_cast(SimRank *r, SimTensor *dst, const SimTensor *src) {
    const SimMathOps *k = r->world->ops->math;
    size_t n = sim_tensor_numel(dst);
    if (dst->data == NULL || src->data == NULL || n == 0)
        return SIM_OK;
    return k->cast(r->world->ctx, r->rank, dst->data, dst->dtype, src->data, src->dtype, n);
}

SimStatus fsdp_backing_fill(SimRank *r, SimTensor *t, float v) {
    const SimMathOps *k = r->world->ops->math;
    size_t n = sim_tensor_numel(t);
    if (t->data == NULL || n == 0)
        return SIM_OK;
    return k->fill(r->world->ctx, r->rank, t->data, v, n);
}

SimStatus fsdp_alloc(SimRank *r, SimTensor *t, const char *name, SimDtype dt, size_t n) {
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(t, name, dt, 1, shape);
    t->mem_cat = SIM_MEM_BACKING;
    if (n == 0)
        return SIM_OK;
    return sim_tensor_alloc(r, t, 0);
}

// ----------------------------------------------------------------------------
// collectives on the shard group

SimStatus fsdp_coll_wait(SimRank *r, SimCollHandle *h) {
    if (!h->launched)
        return SIM_OK;
    return sim_coll_wait(r, h);
}

SimStatus fsdp_all_gather(FsdpState *s, SimRank *r, const SimTensor *send, SimTensor *recv,
                          SimCollHandle *h) {
    size_t n = sim_tensor_numel(send);
    memset(h, 0, sizeof *h);
    if (s->S == 1)
        return fsdp_backing_cast(r, recv, send);
    if (s->S == s->nranks && s->S > 1) {
        SimCollArgs a = {.kind = SIM_COLL_ALL_GATHER, .algo = r->world->cfg.algo,
                         .dtype = send->dtype, .sendbuf = send->data, .recvbuf = recv->data,
                         .count = n};
        return sim_coll_launch(r, &a, h);
    }
    return sim_group_all_gather(r, &s->shard_group, send->data, recv->data, n, send->dtype);
}

SimStatus fsdp_reduce_scatter(FsdpState *s, SimRank *r, const SimTensor *send, SimTensor *recv,
                              SimCollHandle *h) {
    size_t n = sim_tensor_numel(recv);
    memset(h, 0, sizeof *h);
    if (s->S == 1)
        return fsdp_backing_cast(r, recv, send);
    if (s->S == s->nranks) {
        SimCollArgs a = {.kind = SIM_COLL_REDUCE_SCATTER, .algo = r->world->cfg.algo,
                         .dtype = send->dtype, .op = SIM_SUM, .sendbuf = send->data,
                         .recvbuf = recv->data, .count = n};
        return sim_coll_launch(r, &a, h);
    }
    return sim_group_reduce_scatter(r, &s->shard_group, send->data, recv->data, n, send->dtype,
                                    SIM_SUM);
}

// ----------------------------------------------------------------------------
// gathering and freeing

// Writes NaN over unit u's parameters in the backing buffer: a freed unit
// must never be computed with.
static SimStatus poison(FsdpState *s, SimRank *r, int u) {
    const SimFsdpUnit *un = &s->plan.units[u];
    for (int k = 0; k < un->nparams; k++) {
        const SimParamInfo *p = &s->m->params[un->params[k]];
        SimTensor v = fsdp_view(&s->m->param, p->offset, p->numel);
        SIM_CHECK(fsdp_backing_fill(r, &v, NAN));
    }
    return SIM_OK;
}

int fsdp_unit_in_model(const FsdpState *s, int u) {
    const SimFsdpUnit *un = &s->plan.units[u];
    if (un->padded != un->numel || un->nparams == 0)
        return 0;
    if (un->chunk_off && s->S > 1 && un->nparams > 1)
        return 0; // FSDP2's output is rank-major: chunks interleave the parameters
    size_t base = s->m->params[un->params[0]].offset;
    for (int k = 0; k < un->nparams; k++)
        if (s->m->params[un->params[k]].offset != base + un->flat_offset[k])
            return 0;
    return 1;
}

// An fp32 unit laid out as in the model is all-gathered straight into the
// layers' buffer: no unpacking copy per gather. A phantom world decides as
// numeric mode would (its model has no storage), so both hold the same.
static int gather_in_place(const FsdpState *s, const SimRank *r, int u) {
    return s->o.param_dtype == SIM_FP32 && (s->m->param.data != NULL || r->world->cfg.phantom) &&
           fsdp_unit_in_model(s, u);
}

void fsdp_free_gathered(SimRank *r, FsdpUnitState *us) {
    if (!us->gathered_view)
        sim_tensor_free(r, &us->gathered);
    us->gathered.data = NULL;
    us->gathered_view = 0;
}

SimStatus fsdp_gather_issue(FsdpState *s, SimRank *r, int u) {
    FsdpUnitState *us = &s->u[u];
    const SimFsdpUnit *un = &s->plan.units[u];
    if (us->phase != FSDP_SHARDED)
        return SIM_OK;
    us->phase = FSDP_PENDING;
    if (un->numel == 0)
        return SIM_OK;
    fsdp_trace_unit(s, r, u, "gather");
    SimDtype pd = s->o.param_dtype;
    // replicated strategies gather into parameters they hold anyway
    int charge = !fsdp_params_replicated(s);
    if (charge)
        SIM_CHECK(fsdp_mem_unit(s, r, u, SIM_MEM_PARAM, +1, "fsdp all-gather output"));
    us->gathered_view = gather_in_place(s, r, u);
    if (us->gathered_view)
        us->gathered = fsdp_view(&s->m->param, s->m->params[un->params[0]].offset, un->padded);
    else
        SIM_CHECK(fsdp_alloc(r, &us->gathered, "fsdp gathered unit", pd, un->padded));
    SimTensor mine = fsdp_view(&s->master, us->master_off, un->shard);
    const SimTensor *send = &mine;
    if (pd != SIM_FP32) { // the shard is cast to param_dtype before the gather
        if (charge)
            SIM_CHECK(fsdp_mem_unit(s, r, u, SIM_MEM_PARAM_LOWP, +1,
                                    "fsdp low-precision shard"));
        SIM_CHECK(fsdp_alloc(r, &us->lowp, "fsdp low-precision shard", pd, un->shard));
        if (s->o.cpu_offload) // host to device, on the copy stream
            fsdp_host_copy(r, "fsdp shard H2D", (double)un->shard * 4);
        SIM_CHECK(sim_op_cast(r, &us->lowp, &mine));
        send = &us->lowp;
    } else if (s->o.cpu_offload) {
        fsdp_host_copy(r, "fsdp shard H2D", (double)un->shard * 4);
    }
    return fsdp_all_gather(s, r, send, &us->gathered, &us->gh);
}

SimStatus fsdp_gather_finish(FsdpState *s, SimRank *r, int u) {
    FsdpUnitState *us = &s->u[u];
    const SimFsdpUnit *un = &s->plan.units[u];
    if (us->phase == FSDP_GATHERED)
        return SIM_OK;
    if (us->phase == FSDP_SHARDED)
        SIM_CHECK(fsdp_gather_issue(s, r, u));
    us->phase = FSDP_GATHERED;
    if (un->numel == 0)
        return SIM_OK;
    SIM_CHECK(fsdp_coll_wait(r, &us->gh));
    if (s->o.param_dtype != SIM_FP32) {
        sim_tensor_free(r, &us->lowp);
        if (!fsdp_params_replicated(s))
            SIM_CHECK(fsdp_mem_unit(s, r, u, SIM_MEM_PARAM_LOWP, -1,
                                    "fsdp low-precision shard"));
    }
    // The layers compute from the model's buffer: unpack the flat parameter
    // into it, parameter by parameter (values stay in param_dtype's precision);
    // FSDP2's copy-out takes each parameter's S chunks out of the S shards.
    if (!us->gathered_view)
        SIM_CHECK(fsdp_unpack(s, r, u, &us->gathered, &s->m->param));
    fsdp_trace_unit(s, r, u, "gathered");
    return SIM_OK;
}

SimStatus fsdp_reshard(FsdpState *s, SimRank *r, int u) {
    FsdpUnitState *us = &s->u[u];
    if (us->phase == FSDP_SHARDED || fsdp_params_replicated(s))
        return SIM_OK;
    if (us->phase == FSDP_PENDING)
        SIM_CHECK(fsdp_gather_finish(s, r, u));
    us->phase = FSDP_SHARDED;
    if (s->plan.units[u].numel == 0)
        return SIM_OK;
    fsdp_free_gathered(r, us);
    SIM_CHECK(fsdp_mem_unit(s, r, u, SIM_MEM_PARAM, -1, "fsdp all-gather output"));
    fsdp_trace_unit(s, r, u, "free");
    return poison(s, r, u);
}

SimStatus fsdp_shard_from_model(FsdpState *s, SimRank *r, int u) {
    const SimFsdpUnit *un = &s->plan.units[u];
    size_t slo = (size_t)s->gidx * un->shard;
    SimTensor dst = fsdp_view(&s->master, s->u[u].master_off, un->shard);
    SIM_CHECK(fsdp_backing_fill(r, &dst, 0.0f)); // the padding stays zero
    for (int k = 0; k < un->nparams; k++) {
        const SimParamInfo *p = &s->m->params[un->params[k]];
        size_t flat, lo, hi;
        sim_fsdp_piece(&s->plan, u, k, s->gidx, &flat, &lo, &hi);
        if (lo >= hi)
            continue;
        SimTensor src = fsdp_view(&s->m->param, p->offset + lo, hi - lo);
        SimTensor d = fsdp_view(&s->master, s->u[u].master_off + (flat - slo), hi - lo);
        SIM_CHECK(fsdp_backing_cast(r, &d, &src));
    }
    return SIM_OK;
}

// Every piece of unit u's parameters between a buffer in the all-gather's
// layout (flat [padded]) and one in the model's (full, at each parameter's
// offset); to_full picks the direction.
static SimStatus move_pieces(FsdpState *s, SimRank *r, int u, SimTensor *flat, SimTensor *full,
                             int to_full) {
    const SimFsdpUnit *un = &s->plan.units[u];
    // Phantom: every copy below would be a no-op, and FSDP2's loop makes S
    // of them per parameter (16384 ranks: millions a step).
    if (flat->data == NULL || full->data == NULL)
        return SIM_OK;
    for (int k = 0; k < un->nparams; k++) {
        const SimParamInfo *p = &s->m->params[un->params[k]];
        if (!un->chunk_off) { // FSDP1: the parameter is one range of the flat parameter
            SimTensor a = fsdp_view(full, p->offset, p->numel);
            SimTensor b = fsdp_view(flat, un->flat_offset[k], p->numel);
            SIM_CHECK(to_full ? fsdp_backing_cast(r, &a, &b) : fsdp_backing_cast(r, &b, &a));
            continue;
        }
        for (int g = 0; g < s->S; g++) {
            size_t at, lo, hi;
            sim_fsdp_piece(&s->plan, u, k, g, &at, &lo, &hi);
            if (lo >= hi)
                continue;
            SimTensor a = fsdp_view(full, p->offset + lo, hi - lo);
            SimTensor b = fsdp_view(flat, at, hi - lo);
            SIM_CHECK(to_full ? fsdp_backing_cast(r, &a, &b) : fsdp_backing_cast(r, &b, &a));
        }
    }
    return SIM_OK;
}

SimStatus fsdp_unpack(FsdpState *s, SimRank *r, int u, const SimTensor *flat, SimTensor *full) {
    SimTensor f = *flat;
    return move_pieces(s, r, u, &f, full, 1);
}

SimStatus fsdp_pack(FsdpState *s, SimRank *r, int u, const SimTensor *full, SimTensor *flat) {
    SimTensor f = *full;
    return move_pieces(s, r, u, flat, &f, 0);
}

SimStatus fsdp_gather_all(FsdpState *s, SimRank *r) {
    if (fsdp_params_replicated(s))
        return SIM_OK; // the layers' buffer holds every parameter already
    for (int u = 0; u < s->plan.nunits; u++) {
        FsdpUnitState *us = &s->u[u];
        if (us->phase != FSDP_SHARDED)
            continue;
        // one unit at a time, as a full state dict is built: gathered, its
        // values kept (in the backing buffer, standing for the CPU copy), freed
        SIM_CHECK(fsdp_gather_finish(s, r, u));
        us->phase = FSDP_SHARDED;
        if (s->plan.units[u].numel == 0)
            continue;
        fsdp_free_gathered(r, us);
        SIM_CHECK(fsdp_mem_unit(s, r, u, SIM_MEM_PARAM, -1, "fsdp all-gather output"));
    }
    return SIM_OK;
}

SimStatus fsdp_poison_sharded(FsdpState *s, SimRank *r) {
    for (int u = 0; u < s->plan.nunits && !fsdp_params_replicated(s); u++)
        if (s->u[u].phase == FSDP_SHARDED)
            SIM_CHECK(poison(s, r, u));
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// the hooks

// The unit after u in forward order (-1: none).
static int next_forward(const FsdpState *s, int u) {
    return u + 1 < s->plan.nunits ? u + 1 : -1;
}

// The unit after u in backward order: the children in reverse, after the
// root (which backward starts with).
static int next_backward(const FsdpState *s, int u) {
    if (u == 0)
        return s->plan.nunits > 1 ? s->plan.nunits - 1 : -1;
    return u > 1 ? u - 1 : -1;
}

// Forward prefetch: the next unit's all-gather goes out before this unit
// computes; without limit_all_gathers every later unit's does (the host
// running ahead of the device, which the rate limiter exists to stop).
static SimStatus prefetch_forward(FsdpState *s, SimRank *r, int u) {
    for (int v = next_forward(s, u); v >= 0; v = next_forward(s, v)) {
        SIM_CHECK(fsdp_gather_issue(s, r, v));
        if (s->o.limit_all_gathers)
            break;
    }
    return SIM_OK;
}

// MixedPrecision(buffer_dtype): buffers (BatchNorm's running statistics)
// live in buffer_dtype, so each update is rounded to it.
static SimStatus round_buffers(FsdpState *s, SimRank *r) {
    if (s->o.buffer_dtype == SIM_FP32 || s->m->buffer_count == 0)
        return SIM_OK;
    SIM_CHECK(fsdp_backing_cast(r, &s->lowp_buffers, &s->m->buffer));
    return fsdp_backing_cast(r, &s->m->buffer, &s->lowp_buffers);
}

static SimStatus on_module(void *arg, SimModuleEvent ev, int module) {
    FsdpState *s = arg;
    SimRank *r = s->t->rank;
    int u = s->unit_of_module[module];
    if (u < 0)
        return SIM_OK;
    switch (ev) {
    case SIM_MODULE_PRE_FORWARD:
        SIM_CHECK(fsdp_gather_finish(s, r, u));
        return s->o.forward_prefetch ? prefetch_forward(s, r, u) : SIM_OK;
    case SIM_MODULE_POST_FORWARD:
        if (u == 0)
            SIM_CHECK(round_buffers(s, r));
        return fsdp_reshard_after_forward(s, u) ? fsdp_reshard(s, r, u) : SIM_OK;
    case SIM_MODULE_PRE_BACKWARD:
        SIM_CHECK(fsdp_gather_finish(s, r, u));
        SIM_CHECK(fsdp_grad_begin(s, r, u));
        if (s->o.prefetch == SIM_FSDP_PREFETCH_PRE && next_backward(s, u) >= 0)
            SIM_CHECK(fsdp_gather_issue(s, r, next_backward(s, u)));
        return SIM_OK;
    case SIM_MODULE_POST_BACKWARD:
        // PyTorch's post-backward hook frees the unit first, then prefetches
        // (BACKWARD_POST), then reduces its gradient: the reduce-scatter's
        // buffers never sit beside the unit's gathered parameters.
        if (free_in_backward(s))
            SIM_CHECK(fsdp_reshard(s, r, u));
        if (s->o.prefetch == SIM_FSDP_PREFETCH_POST && next_backward(s, u) >= 0)
            SIM_CHECK(fsdp_gather_issue(s, r, next_backward(s, u)));
        return s->sync ? fsdp_grad_reduce(s, r, u) : SIM_OK;
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// the strategy

static SimStatus before_forward(void *state, SimRank *r, SimTrainer *t, int sync) {
    FsdpState *s = state;
    (void)r, (void)t;
    s->sync = sync;
    return SIM_OK;
}

static SimStatus after_backward(void *state, SimRank *r, SimTrainer *t, int sync) {
    FsdpState *s = state;
    (void)t;
    if (sync)
        SIM_CHECK(fsdp_grad_finish(s, r));
    // a unit prefetched but never run (the MLP's extra head on odd steps)
    for (int u = 0; u < s->plan.nunits && free_in_backward(s); u++)
        SIM_CHECK(fsdp_reshard(s, r, u));
    return SIM_OK;
}

static SimStatus groups(FsdpState *s, SimRank *r) {
    const SimWorld *w = r->world;
    if (s->S == s->nranks) {
        sim_group_world(&s->shard_group, r);
        s->rep_group.n = 1;
    } else if (s->S == 1) {
        sim_group_world(&s->rep_group, r);
        s->shard_group.n = 1;
    } else {
        if (s->S != w->ranks_per_node) {
            snprintf(r->error, sizeof r->error, "fsdp: hybrid sharding needs a group per node");
            return SIM_EINVAL;
        }
        sim_group_node(&s->shard_group, r);
        sim_group_cross(&s->rep_group, r);
    }
    s->gidx = s->S == 1 ? 0 : s->shard_group.me;
    return SIM_OK;
}

// The optimizer's view of this rank's shards: parameter i's slice of master.
static SimStatus shard_table(FsdpState *s) {
    const SimFsdpPlan *p = &s->plan;
    s->shard_params = calloc((size_t)s->m->nparams + 1, sizeof *s->shard_params);
    s->shard_src = calloc((size_t)s->m->nparams + 1, sizeof *s->shard_src);
    if (!s->shard_params || !s->shard_src)
        return SIM_ENOMEM;
    for (int u = 0; u < p->nunits; u++) {
        const SimFsdpUnit *un = &p->units[u];
        size_t slo = (size_t)s->gidx * un->shard;
        for (int k = 0; k < un->nparams; k++) {
            int i = un->params[k];
            SimParamInfo *sp = &s->shard_params[i];
            size_t flat, lo, hi;
            sim_fsdp_piece(p, u, k, s->gidx, &flat, &lo, &hi);
            snprintf(sp->name, sizeof sp->name, "%s", s->m->params[i].name);
            sp->ndim = 1;
            sp->numel = hi - lo;
            sp->shape[0] = (int64_t)sp->numel;
            sp->offset = s->u[u].master_off + (hi > lo ? flat - slo : 0);
            s->shard_src[i] = hi > lo ? lo : 0;
        }
    }
    return SIM_OK;
}

static SimStatus check_config(FsdpState *s, SimRank *r, const SimTrainer *t) {
    const SimTrainConfig *c = t->cfg;
    if (c->loop.accum_tail == SIM_ACCUM_TAIL_DROP) {
        snprintf(r->error, sizeof r->error, "--accum-tail drop is not supported with %s",
                 sim_fsdp_sharding_name(s->o.sharding));
        return SIM_EINVAL;
    }
    if (c->data.uneven > 0) {
        snprintf(r->error, sizeof r->error, "--uneven needs --strategy ddp");
        return SIM_EINVAL;
    }
    return SIM_OK;
}

static SimStatus setup(SimRank *r, SimTrainer *t, const void *cfg, void **state) {
    FsdpState *s = calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return SIM_ENOMEM;
    s->o = *(const SimFsdpOptions *)cfg;
    if (!s->o.reduce_dtype_set)
        s->o.reduce_dtype = s->o.param_dtype;
    s->m = t->model;
    s->t = t;
    s->nranks = r->world->cfg.nranks;
    SIM_CHECK(check_config(s, r, t));
    char err[400];
    SimStatus st = sim_fsdp_plan_build(&s->plan, s->m, &s->o, s->nranks, r->world->cfg.nodes,
                                       err, sizeof err);
    if (st != SIM_OK) {
        snprintf(r->error, sizeof r->error, "%s", err);
        return st;
    }
    s->S = s->plan.shard_ranks;
    SIM_CHECK(groups(s, r));
    sim_fsdp_divide_factors(s->nranks, &s->pre, &s->post);
    if (s->o.print_units && r->rank == 0)
        sim_fsdp_plan_print(&s->plan, s->m, s->o.print_units);
    s->unit_of_module = calloc((size_t)s->m->nmodules + 1, sizeof *s->unit_of_module);
    s->u = calloc((size_t)s->plan.nunits + 1, sizeof *s->u);
    if (!s->unit_of_module || !s->u)
        return SIM_ENOMEM;
    for (int k = 0; k < s->m->nmodules; k++)
        s->unit_of_module[k] = -1;
    size_t off = 0, largest = 0;
    for (int u = 0; u < s->plan.nunits; u++) {
        s->unit_of_module[s->plan.units[u].module] = u;
        s->u[u].master_off = off;
        off += s->plan.units[u].shard;
        if (s->plan.units[u].padded > largest)
            largest = s->plan.units[u].padded;
    }
    SIM_CHECK(fsdp_alloc(r, &s->master, "fsdp master shards", SIM_FP32, s->plan.shard_total));
    SIM_CHECK(fsdp_alloc(r, &s->grad_shard, "fsdp gradient shards", SIM_FP32,
                         s->plan.shard_total));
    SIM_CHECK(fsdp_alloc(r, &s->staging, "fsdp staging", SIM_FP32, largest));
    if (s->o.buffer_dtype != SIM_FP32) {
        SIM_CHECK(fsdp_alloc(r, &s->lowp_buffers, "fsdp buffers", s->o.buffer_dtype,
                             s->m->buffer_count));
        SIM_CHECK(round_buffers(s, r));
    }
    SIM_CHECK(fsdp_backing_fill(r, &s->grad_shard, 0.0f));
    for (int u = 0; u < s->plan.nunits; u++)
        SIM_CHECK(fsdp_shard_from_model(s, r, u));
    SIM_CHECK(shard_table(s));
    st = sim_optim_init(&s->optim, r, &t->cfg->opt.optim, &s->master, &s->grad_shard,
                        s->shard_params, s->m->nparams);
    if (st != SIM_OK)
        return st;
    SIM_CHECK(fsdp_mem_state(s, r, +1));
    fsdp_trace_plan(s, r);
    // Replicated strategies hold every parameter from the start; the sharded
    // ones begin with every unit freed.
    for (int u = 0; u < s->plan.nunits; u++) {
        if (fsdp_params_replicated(s))
            s->u[u].phase = FSDP_GATHERED;
        else
            SIM_CHECK(poison(s, r, u));
    }
    sim_model_set_module_hook(s->m, on_module, s);
    return SIM_OK;
}

static void teardown(void *state, SimRank *r) {
    FsdpState *s = state;
    if (!s)
        return;
    if (s->m)
        sim_model_set_module_hook(s->m, NULL, NULL);
    for (int u = 0; s->u && u < s->plan.nunits; u++) {
        FsdpUnitState *us = &s->u[u];
        sim_tensor_free(r, &us->lowp);
        fsdp_free_gathered(r, us);
        if (!us->rs_in_view)
            sim_tensor_free(r, &us->rs_in);
        if (!us->rs_out_view)
            sim_tensor_free(r, &us->rs_out);
    }
    if (s->charged_state)
        (void)fsdp_mem_state(s, r, -1);
    sim_optim_free(&s->optim, r);
    sim_tensor_free(r, &s->master);
    sim_tensor_free(r, &s->grad_shard);
    sim_tensor_free(r, &s->staging);
    sim_tensor_free(r, &s->lowp_buffers);
    free(s->shard_params);
    free(s->shard_src);
    free(s->unit_of_module);
    free(s->u);
    sim_fsdp_plan_free(&s->plan);
    free(s);
}

static FsdpState *state_of(const SimTrainer *t) {
    if (!t || !t->cfg || t->cfg->strategy != &sim_fsdp_strategy)
        return NULL;
    return t->strategy;
}

SimStatus sim_fsdp_summon_full_params(SimRank *r, SimTrainer *t) {
    FsdpState *s = state_of(t);
    if (!s) {
        snprintf(r->error, sizeof r->error, "summon_full_params: not an fsdp run");
        return SIM_EINVAL;
    }
    return fsdp_gather_all(s, r);
}

SimStatus sim_fsdp_summon_end(SimRank *r, SimTrainer *t) {
    FsdpState *s = state_of(t);
    return s ? fsdp_poison_sharded(s, r) : SIM_EINVAL;
}

const SimFsdpPlan *sim_fsdp_plan_of(const SimTrainer *t) {
    FsdpState *s = state_of(t);
    return s ? &s->plan : NULL;
}

SimStatus sim_fsdp_shards(const SimTrainer *t, SimFsdpShards *out) {
    FsdpState *s = state_of(t);
    if (s == NULL || s->shard_params == NULL)
        return SIM_EINVAL;
    out->master = &s->master;
    out->grad = &s->grad_shard;
    out->slice = s->shard_params;
    out->src = s->shard_src;
    return SIM_OK;
}

const SimStrategyOps sim_fsdp_strategy = {
    .name = "fsdp",
    .backing_model = 1,
    .setup = setup,
    .before_forward = before_forward,
    .after_backward = after_backward,
    .teardown = teardown,
    .update = fsdp_update,
    .save = fsdp_save,
    .restore = fsdp_restore,
};
