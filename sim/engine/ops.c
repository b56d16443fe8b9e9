// sim/engine/ops.c: tensor storage through the backend, and the machinery every
// op wrapper shares (sim/engine/ops_internal.h): argument checks, phantom mode,
// error messages, the simulated compute clock and the trace. The wrappers
// themselves are in ops_nn.c (layers and losses) and ops_vec.c (flat
// vectors and optimizers).
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/comm_fault.h" // defines: sim_comm_fault_compute
#include "engine/ops_internal.h"

// ----------------------------------------------------------------------------
// storage

static SimWorld *world_of(SimRank *r) {
    return r->world;
}

// Storage is counted twice, for two questions. r->mem_bytes / mem_peak:
// the bytes this process really holds through the backend (phantom tensors
// hold none). The ledger (sim/engine/memory.h): what the modelled run would hold,
// by the tensor's category and space; phantom tensors are charged by their
// shape, so phantom mode accounts memory exactly as numeric mode does. The
// ledger's charge comes first: a tensor over the device capacity is refused
// before anything is allocated. The trace's memory events come from the
// ledger (one per alloc and per free). In a phantom world
// (SimWorldConfig.phantom) every tensor is phantom, whatever the caller
// asks: the same code then runs on shapes alone.

SimStatus sim_tensor_alloc(SimRank *r, SimTensor *t, int phantom) {
    if (r->world && r->world->cfg.phantom)
        phantom = 1;
    t->data = NULL;
    t->charged = 0;
    if (sim_dtype_size(t->dtype) == 0) {
        snprintf(r->error, sizeof r->error, "tensor_alloc: %s has an invalid dtype",
                 t->name ? t->name : "tensor");
        return SIM_EINVAL;
    }
    size_t bytes = sim_tensor_bytes(t);
    SimStatus st = sim_mem_charge_item(r, (SimMemSpace)t->mem_space, (SimMemCat)t->mem_cat,
                                       (int64_t)bytes, t->name);
    if (st != SIM_OK)
        return st;
    if (phantom) {
        t->charged = (int64_t)bytes;
        return SIM_OK;
    }
    SimWorld *w = world_of(r);
    void *p = w->ops->alloc(w->ctx, r->rank, bytes);
    if (p == NULL) {
        (void)sim_mem_charge_item(r, (SimMemSpace)t->mem_space, (SimMemCat)t->mem_cat,
                                  -(int64_t)bytes, t->name);
        char shape[96];
        snprintf(r->error, sizeof r->error, "tensor_alloc: out of memory for %s %s (%zu bytes)",
                 t->name ? t->name : "tensor", sim_tensor_shape_str(t, shape, sizeof shape),
                 bytes);
        return SIM_ENOMEM;
    }
    t->data = p;
    t->charged = (int64_t)bytes;
    r->mem_bytes += bytes;
    if (r->mem_bytes > r->mem_peak)
        r->mem_peak = r->mem_bytes;
    return SIM_OK;
}

void sim_tensor_free(SimRank *r, SimTensor *t) {
    if (t == NULL)
        return;
    if (t->charged > 0) {
        // A release cannot fail unless the ledger was charged elsewhere for
        // this tensor; the storage goes either way.
        (void)sim_mem_charge_item(r, (SimMemSpace)t->mem_space, (SimMemCat)t->mem_cat,
                                  -t->charged, t->name);
        t->charged = 0;
    }
    if (t->data == NULL)
        return;
    SimWorld *w = world_of(r);
    w->ops->free(w->ctx, r->rank, t->data);
    t->data = NULL;
    size_t bytes = sim_tensor_bytes(t);
    r->mem_bytes -= bytes < r->mem_bytes ? bytes : r->mem_bytes;
}

SimStatus sim_tensor_upload(SimRank *r, SimTensor *t, const void *host) {
    if (t->data == NULL)
        return SIM_OK;
    SimWorld *w = world_of(r);
    SimStatus st = w->ops->copy_to_device(w->ctx, r->rank, t->data, host, sim_tensor_bytes(t));
    if (st != SIM_OK)
        snprintf(r->error, sizeof r->error, "tensor_upload: copying %s failed: %s",
                 t->name ? t->name : "tensor", sim_strerror(st));
    return st;
}

SimStatus sim_tensor_download(SimRank *r, const SimTensor *t, void *host) {
    if (t->data == NULL)
        return SIM_OK;
    SimWorld *w = world_of(r);
    SimStatus st = w->ops->copy_to_host(w->ctx, r->rank, host, t->data, sim_tensor_bytes(t));
    if (st != SIM_OK)
        snprintf(r->error, sizeof r->error, "tensor_download: copying %s failed: %s",
                 t->name ? t->name : "tensor", sim_strerror(st));
    return st;
}

// ----------------------------------------------------------------------------
// messages

SimStatus sim_ops_fail(const SimOpsCall *c, SimStatus st, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->r->error, sizeof c->r->error, "%s: %s", c->op, msg);
    return st;
}

SimStatus sim_ops_disagree(const SimOpsCall *c, const char *an, const SimTensor *a,
                           const char *bn, const SimTensor *b, const char *what) {
    char sa[96], sb[96];
    return sim_ops_fail(c, SIM_EINVAL, "%s %s and %s %s disagree on %s", an,
                        sim_tensor_shape_str(a, sa, sizeof sa), bn,
                        sim_tensor_shape_str(b, sb, sizeof sb), what);
}

SimStatus sim_ops_ndim(const SimOpsCall *c, const char *name, const SimTensor *t, int ndim) {
    if (t->ndim == ndim)
        return SIM_OK;
    char s[96];
    return sim_ops_fail(c, SIM_EINVAL, "%s %s should have %d dimensions", name,
                        sim_tensor_shape_str(t, s, sizeof s), ndim);
}

SimStatus sim_ops_numel(const SimOpsCall *c, const char *name, const SimTensor *t, int64_t n) {
    if ((int64_t)sim_tensor_numel(t) == n)
        return SIM_OK;
    char s[96];
    return sim_ops_fail(c, SIM_EINVAL, "%s %s should have %lld elements", name,
                        sim_tensor_shape_str(t, s, sizeof s), (long long)n);
}

SimStatus sim_ops_norm_shapes(const SimOpsCall *c, const char *xn, const SimTensor *x,
                              const char *yn, const SimTensor *y, const char *an,
                              const SimTensor *a, const char *bn, const SimTensor *b, int64_t *N,
                              int64_t *C) {
    int64_t yN, yC;
    sim_ops_rows(x, N, C);
    if (y) {
        sim_ops_rows(y, &yN, &yC);
        if (yN != *N || yC != *C)
            return sim_ops_disagree(c, yn, y, xn, x, "shape");
    }
    if (a && (int64_t)sim_tensor_numel(a) != *C)
        return sim_ops_disagree(c, an, a, xn, x, "C");
    if (b && (int64_t)sim_tensor_numel(b) != *C)
        return sim_ops_disagree(c, bn, b, xn, x, "C");
    int64_t sizes[2] = {*N, *C};
    return sim_ops_int_sizes(c, sizes, 2);
}

SimStatus sim_ops_numel_opt(const SimOpsCall *c, const char *name, const SimTensor *t,
                            int64_t n) {
    return t ? sim_ops_numel(c, name, t, n) : SIM_OK;
}

SimStatus sim_ops_int_sizes(const SimOpsCall *c, const int64_t *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] < 0 || v[i] > INT_MAX)
            return sim_ops_fail(c, SIM_EINVAL, "size %lld is out of range; allowed: 0..%d",
                                (long long)v[i], INT_MAX);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// shapes

void sim_ops_rows(const SimTensor *t, int64_t *rows, int64_t *last) {
    if (t->ndim == 0) {
        *rows = *last = 1;
        return;
    }
    int64_t n = 1;
    for (int i = 0; i + 1 < t->ndim; i++)
        n *= t->shape[i];
    *rows = n;
    *last = t->shape[t->ndim - 1];
}

SimStatus sim_ops_range(const SimOpsCall *c, const char *name, const SimTensor *t, size_t off,
                        size_t n, size_t *count) {
    size_t numel = sim_tensor_numel(t);
    if (off > numel)
        return sim_ops_fail(c, SIM_EINVAL, "offset %zu is beyond the end of %s (%zu elements)",
                            off, name, numel);
    if (n > numel - off)
        return sim_ops_fail(c, SIM_EINVAL, "range [%zu, %zu) is outside %s (%zu elements)", off,
                            off + n, name, numel);
    *count = n ? n : numel - off;
    return SIM_OK;
}

SimStatus sim_ops_check_ids(const SimOpsCall *c, const char *name, const SimTensor *ids,
                            size_t n, int64_t limit) {
    if (c->phantom)
        return SIM_OK;
    // Read through the backend in small blocks, so this also works where
    // the ids live in device memory.
    SimWorld *w = world_of(c->r);
    int32_t block[1024];
    for (size_t i0 = 0; i0 < n; i0 += 1024) {
        size_t m = n - i0 < 1024 ? n - i0 : 1024;
        SimStatus st = w->ops->copy_to_host(w->ctx, c->r->rank, block,
                                            (const int32_t *)ids->data + i0, m * sizeof *block);
        if (st != SIM_OK)
            return sim_ops_fail(c, st, "reading %s failed: %s", name, sim_strerror(st));
        for (size_t i = 0; i < m; i++)
            if (block[i] < 0 || block[i] >= limit)
                return sim_ops_fail(c, SIM_EINVAL, "%s[%zu] = %d is out of range [0, %lld)",
                                    name, i0 + i, (int)block[i], (long long)limit);
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// begin and end

SimStatus sim_ops_begin(SimOpsCall *c, SimRank *r, const char *op, const char *event,
                        const SimOpsArg *args, int nargs) {
    c->r = r;
    c->op = op;
    c->event = event;
    c->phantom = 0;
    c->timed = 0;
    c->wall0 = sim_wall_now();
    int outs = 0, phantom_outs = 0;
    const char *real_out = NULL, *phantom_out = NULL;
    for (int i = 0; i < nargs; i++) {
        const SimOpsArg *a = &args[i];
        if (a->t == NULL) {
            if (!(a->flags & SIM_OPS_OPTIONAL))
                return sim_ops_fail(c, SIM_EINVAL, "%s is missing", a->name);
            continue;
        }
        if (a->t->dtype != a->dtype)
            return sim_ops_fail(c, SIM_EINVAL, "%s is %s; expected %s", a->name,
                                sim_dtype_name(a->t->dtype), sim_dtype_name(a->dtype));
        if (a->flags & SIM_OPS_OUT) {
            outs++;
            if (a->t->data == NULL)
                phantom_outs++, phantom_out = a->name;
            else
                real_out = a->name;
        }
    }
    if (phantom_outs > 0 && phantom_outs < outs)
        return sim_ops_fail(c, SIM_EINVAL, "%s has storage but %s has none (phantom)", real_out,
                            phantom_out);
    c->phantom = outs > 0 && phantom_outs == outs;
    if (c->phantom)
        return SIM_OK;
    for (int i = 0; i < nargs; i++)
        if (args[i].t && !(args[i].flags & SIM_OPS_OUT) && args[i].t->data == NULL)
            return sim_ops_fail(c, SIM_EINVAL, "%s has no storage (phantom) but the outputs do",
                                args[i].name);
    return SIM_OK;
}

void sim_ops_timing_begin(SimOpsCall *c) {
    const SimWorld *w = world_of(c->r);
    if (c->timed || w->ops->op_begin == NULL || w->ops->op_times == NULL)
        return;
    w->ops->op_begin(w->ctx, c->r->rank);
    c->timed = 1;
}

const SimMathOps *sim_ops_math(const SimOpsCall *c) {
    return world_of(c->r)->ops->math;
}

void *sim_ops_ctx(const SimOpsCall *c) {
    return world_of(c->r)->ctx;
}

SimStatus sim_ops_notsup(const SimOpsCall *c) {
    return sim_ops_fail(c, SIM_ENOTSUP, "not supported by backend %s", world_of(c->r)->ops->name);
}

// The device an op of c runs on: the host's CPUs for an op on the host
// stream (CPU offload), else the world's device.
static const SimDeviceProfile *ops_device(const SimOpsCall *c) {
    const SimWorld *w = world_of(c->r);
    return c->r->ops_on_host ? sim_sys_host(&w->cost.sys) : sim_cost_device(&w->cost);
}

double sim_ops_price(const SimOpsCall *c, double flops, double bytes, int lowp) {
    return sim_cost_compute_on(ops_device(c), flops, bytes, lowp);
}

double sim_ops_price_gemm(const SimOpsCall *c, double M, double N, double K, double bytes,
                          int lowp) {
    const SimCostGemm g = {M, N, K, bytes};
    return sim_cost_gemm_on(ops_device(c), &g, lowp);
}

SimStatus sim_ops_end(const SimOpsCall *c, SimStatus st, double flops, double bytes, int lowp,
                      SimDtype dtype) {
    return sim_ops_end_priced(c, st, flops, bytes, dtype, sim_ops_price(c, flops, bytes, lowp));
}

SimStatus sim_ops_end_priced(const SimOpsCall *c, SimStatus st, double flops, double bytes,
                             SimDtype dtype, double cost) {
    SimRank *r = c->r;
    SimWorld *w = world_of(r);
    if (st != SIM_OK)
        return sim_ops_fail(c, st, "the %s backend's kernel failed: %s", w->ops->name,
                            sim_strerror(st));
    // The op's measured time: the host's around the kernel call, or the
    // device's own when the backend timed the kernels (cuda: CUDA events).
    double wall0 = c->wall0, wall1 = sim_wall_now(), d0, d1;
    if (c->timed && w->ops->op_times && w->ops->op_times(w->ctx, r->rank, &d0, &d1) &&
        d1 >= d0)
        wall0 = d0, wall1 = d1;
    // An op on the host follows both the host stream (the copies that
    // brought its data) and the device's (what it waits on).
    int stream = r->ops_on_host ? SIM_STREAM_HOST : SIM_STREAM_COMPUTE;
    double t0 = r->clock[stream];
    if (r->ops_on_host && r->clock[SIM_STREAM_COMPUTE] > t0)
        t0 = r->clock[SIM_STREAM_COMPUTE];
    // --fault slow-rank: this rank's ops take longer
    double t1 = t0 + sim_comm_fault_compute(r, cost);
    r->clock[stream] = t1;
    if (w->trace) {
        SimEvent ev;
        memset(&ev, 0, sizeof ev);
        ev.sim_start = t0;
        ev.sim_end = t1;
        ev.wall_start = wall0 - w->wall_epoch;
        ev.wall_end = wall1 - w->wall_epoch;
        ev.bytes = bytes > 0 ? (uint64_t)bytes : 0;
        ev.count = flops > 0 ? (uint64_t)flops : 0; // compute events: FLOPs
        ev.name = c->event;
        // "phantom": this op's math was skipped in a world that computes.
        // In a phantom world every op is, and the label stays NULL, so its
        // trace is a numeric run's event for event.
        ev.label = c->phantom && !w->cfg.phantom ? "phantom" : NULL;
        ev.rank = r->rank;
        ev.stream = (int16_t)stream;
        ev.kind = SIM_EV_COMPUTE;
        ev.coll = ev.algo = ev.redop = -1;
        ev.dtype = (int16_t)dtype;
        ev.step = ev.nsteps = ev.chunk = ev.src = ev.dst = -1;
        (void)sim_trace_append(w->trace, &ev); // a full trace counts drops
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// cost-only ops

SimStatus sim_op_cost(SimRank *r, const char *event, double flops, double bytes, int lowp,
                      SimDtype dtype, const SimTensor *const *t, int nt) {
    SimOpsCall c = {.r = r, .op = "cost", .event = event ? event : "cost", .phantom = 1,
                    .wall0 = sim_wall_now()};
    for (int i = 0; i < nt; i++)
        if (t && t[i] && t[i]->data != NULL)
            return sim_ops_fail(&c, SIM_ENOTSUP, "%s has storage; %s is accounted in phantom "
                                "mode only", t[i]->name ? t[i]->name : "a tensor", c.event);
    if (!(flops >= 0 && bytes >= 0 && flops < 1e30 && bytes < 1e30))
        return sim_ops_fail(&c, SIM_EINVAL, "%s: invalid cost (%g FLOPs, %g bytes)", c.event,
                            flops, bytes);
    return sim_ops_end(&c, SIM_OK, flops, bytes, lowp >= SIM_COST_ATTN ? lowp : lowp ? 1 : 0,
                       dtype);
}
