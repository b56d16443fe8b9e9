// sim/strategy/fsdp_mem.c: what FSDP and ZeRO hold, as the memory ledger sees it.
//
// Numeric mode computes in the model's full-size buffers and keeps FSDP's
// own storage in tensors tagged SIM_MEM_BACKING, so nothing FSDP allocates
// counts by itself: the ledger is charged here, item by item, with what
// PyTorch (or DeepSpeed, for ZeRO-1) would hold:
//
//   model state (set-up to teardown), per rank, Ψ = parameters, N = ranks:
//     FSDP sharded   params fp32 shard  Ψ/S·4   grads fp32 shard  Ψ/S·4
//     NO_SHARD       params fp32        Ψ·4     grads fp32        Ψ·4
//     ZeRO-1         params (param dtype) Ψ·p   grads (reduce dtype) Ψ·g
//                    + the fp32 master shard Ψ/N·4 when p is not fp32
//   and the optimizer state of the shards (its own tensors, SIM_MEM_OPTIM).
//   With CPU offload the shards and their optimizer state are host memory.
//   transients: a gathered unit (padded · p) from its all-gather to its
//     free; the low-precision shard copy during the gather; a unit's
//     unsharded gradient (padded · p) from its backward until its reduction
//     (until the synchronising micro-step under no_sync); the reduce-scatter
//     input and output (comm buffers) until the reduction is waited for.
#include "engine/memory.h" // defines: sim_mem_charge
#include "trace/trace.h"   // defines: SimEvent


#include "strategy/fsdp_internal.h"

// The host link of the default system (PCIe 5.0 x16, about 50 GB/s
// effective, see sim/cost/cost_profiles.c): the copy stream's bandwidth.
#define FSDP_HOST_BW 50e9
#define FSDP_HOST_ALPHA 2e-6

int fsdp_param_bytes(const FsdpState *s) {
    return (int)sim_dtype_size(s->o.param_dtype);
}

int fsdp_reduce_bytes(const FsdpState *s) {
    return (int)sim_dtype_size(s->o.reduce_dtype);
}

SimMemSpace fsdp_shard_space(const FsdpState *s) {
    return s->o.cpu_offload ? SIM_MEM_HOST : SIM_MEM_DEVICE;
}

static size_t total_numel(const FsdpState *s) {
    size_t n = 0;
    for (int u = 0; u < s->plan.nunits; u++)
        n += s->plan.units[u].numel;
    return n;
}

SimStatus fsdp_retag(SimRank *r, SimTensor *t, SimMemSpace sp, SimMemCat cat) {
    int64_t b = t->charged;
    if (b == 0 || (t->mem_space == (int16_t)sp && t->mem_cat == (int16_t)cat))
        return SIM_OK;
    SIM_CHECK(sim_mem_charge(r, sp, cat, b, t->name ? t->name : "tensor"));
    (void)sim_mem_charge(r, (SimMemSpace)t->mem_space, (SimMemCat)t->mem_cat, -b,
                         t->name ? t->name : "tensor");
    t->mem_space = (int16_t)sp;
    t->mem_cat = (int16_t)cat;
    return SIM_OK;
}

typedef struct {
    SimMemSpace sp;
    SimMemCat cat;
    int64_t bytes;
    const char *what;
} MemItem;

// Charges (sign +1) or releases (-1) the model state held from set-up to
// teardown, and moves the layers' full-size buffers to backing store.
SimStatus fsdp_mem_state(FsdpState *s, SimRank *r, int sign) {
    SimMemSpace sp = fsdp_shard_space(s);
    int64_t psi = (int64_t)total_numel(s);
    int64_t shard = (int64_t)s->plan.shard_total;
    int64_t p = fsdp_param_bytes(s), g = fsdp_reduce_bytes(s);
    MemItem items[4];
    int n = 0;
    if (s->o.sharding == SIM_FSDP_ZERO1) {
        items[n++] = (MemItem){SIM_MEM_DEVICE, SIM_MEM_PARAM, psi * p, "zero1 params"};
        items[n++] = (MemItem){SIM_MEM_DEVICE, SIM_MEM_GRAD, psi * g, "zero1 grads"};
        if (p != 4)
            items[n++] = (MemItem){sp, SIM_MEM_PARAM_SHARD, shard * 4,
                                            "zero1 fp32 master shard"};
    } else if (s->S == 1) {
        items[n++] = (MemItem){sp, SIM_MEM_PARAM, shard * 4, "fsdp params"};
        items[n++] = (MemItem){sp, SIM_MEM_GRAD, shard * 4, "fsdp grads"};
    } else {
        items[n++] = (MemItem){sp, SIM_MEM_PARAM_SHARD, shard * 4,
                                        "fsdp sharded params"};
        items[n++] = (MemItem){sp, SIM_MEM_GRAD_SHARD, shard * 4,
                                        "fsdp sharded grads"};
    }
    if (sign > 0) {
        // the layers' buffers and the loop's own optimizer are backing store
        SIM_CHECK(fsdp_retag(r, &s->m->param, SIM_MEM_DEVICE, SIM_MEM_BACKING));
        SIM_CHECK(fsdp_retag(r, &s->m->grad, SIM_MEM_DEVICE, SIM_MEM_BACKING));
        for (int k = 0; k < s->t->optim.nstate; k++)
            SIM_CHECK(fsdp_retag(r, &s->t->optim.state[k], SIM_MEM_DEVICE, SIM_MEM_BACKING));
        for (int k = 0; k < s->optim.nstate; k++)
            SIM_CHECK(fsdp_retag(r, &s->optim.state[k], sp, SIM_MEM_OPTIM));
        r->mem.capacity = s->t->capacity; // from here on the device's limit holds
        if (r->mem.total[SIM_MEM_DEVICE] > (int64_t)r->mem.capacity && r->mem.capacity > 0)
            return sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_OTHER, 1,
                                  "the state set-up built (nothing more fits)");
    }
    for (int i = 0; i < n; i++) {
        SimStatus st = sim_mem_charge(r, items[i].sp, items[i].cat, sign * items[i].bytes,
                                      items[i].what);
        if (st != SIM_OK) {
            for (int j = 0; j < i; j++) // undo, so teardown finds nothing charged
                (void)sim_mem_charge(r, items[j].sp, items[j].cat, -items[j].bytes,
                                     items[j].what);
            return st;
        }
    }
    s->charged_state = sign > 0;
    if (sign > 0) {
        // The run starts here: the full-size model and optimizer that numeric
        // mode built first are backing store now, not part of any peak.
        sim_rank_mem_reset_peak(r);
    }
    return SIM_OK;
}

SimStatus fsdp_mem_unit(FsdpState *s, SimRank *r, int u, SimMemCat cat, int sign,
                        const char *what) {
    const SimFsdpUnit *un = &s->plan.units[u];
    int64_t bytes;
    switch (cat) {
    case SIM_MEM_PARAM_LOWP:
        bytes = (int64_t)un->shard * fsdp_param_bytes(s);
        break;
    case SIM_MEM_COMM:
        bytes = (int64_t)(un->padded + un->shard) * fsdp_reduce_bytes(s);
        break;
    default: // a gathered unit, or its unsharded gradient
        bytes = (int64_t)un->padded * fsdp_param_bytes(s);
        break;
    }
    return sim_mem_charge(r, SIM_MEM_DEVICE, cat, sign * bytes, what);
}

void fsdp_trace_unit(FsdpState *s, SimRank *r, int u, const char *label) {
    if (r->world->trace == NULL)
        return;
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_SHARD, SIM_STREAM_COMPUTE, "fsdp unit", label,
                   r->clock[SIM_STREAM_COMPUTE]);
    ev.bytes = (uint64_t)s->plan.units[u].padded * (uint64_t)fsdp_param_bytes(s);
    ev.count = s->plan.units[u].numel;
    ev.step = u;
    ev.nsteps = s->plan.nunits;
    ev.chunk = s->gidx;
    sim_rank_trace(r, &ev);
}

// FSDP2: unit u's parameters, each with its rows and the rows per rank, so
// that the views can draw ownership per parameter.
static void trace_plan_params(FsdpState *s, SimRank *r, int u) {
    const SimFsdpUnit *un = &s->plan.units[u];
    SimTrace *tr = r->world->trace;
    for (int k = 0; k < un->nparams; k++) {
        const SimParamInfo *p = &s->m->params[un->params[k]];
        size_t d0 = p->ndim > 0 ? (size_t)p->shape[0] : 1;
        size_t row = d0 ? p->numel / d0 : 0;
        const char *name = sim_trace_intern(tr, p->name);
        SimEvent ev;
        sim_rank_event(&ev, r, SIM_EV_SHARD, SIM_STREAM_COMPUTE, name ? name : "parameter",
                       "plan-param", r->clock[SIM_STREAM_COMPUTE]);
        ev.bytes = (uint64_t)un->chunk[k] * (uint64_t)s->S * (uint64_t)fsdp_param_bytes(s);
        ev.count = d0;
        ev.step = u;
        ev.nsteps = s->plan.nunits;
        ev.chunk = s->gidx;
        ev.src = row ? (int32_t)(un->chunk[k] / row) : 0;
        ev.dst = s->gidx;
        sim_rank_trace(r, &ev);
    }
}

void fsdp_trace_plan(FsdpState *s, SimRank *r) {
    SimTrace *tr = r->world->trace;
    if (tr == NULL)
        return;
    for (int u = 0; u < s->plan.nunits; u++) {
        const SimFsdpUnit *un = &s->plan.units[u];
        const char *name = sim_trace_intern(tr, un->is_root ? "root" : s->m->modules[un->module].name);
        SimEvent ev;
        sim_rank_event(&ev, r, SIM_EV_SHARD, SIM_STREAM_COMPUTE, name ? name : "fsdp unit",
                       "plan", r->clock[SIM_STREAM_COMPUTE]);
        ev.bytes = (uint64_t)un->padded * (uint64_t)fsdp_param_bytes(s);
        ev.count = un->numel;
        ev.step = u;
        ev.nsteps = s->plan.nunits;
        ev.chunk = s->gidx;
        ev.src = s->S;
        ev.dst = s->gidx;
        sim_rank_trace(r, &ev);
        if (un->chunk)
            trace_plan_params(s, r, u);
    }
}

void fsdp_host_copy(SimRank *r, const char *name, double bytes) {
    double *host = &r->clock[SIM_STREAM_HOST];
    double t0 = *host > r->clock[SIM_STREAM_COMPUTE] ? *host : r->clock[SIM_STREAM_COMPUTE];
    double t1 = t0 + FSDP_HOST_ALPHA + bytes / FSDP_HOST_BW;
    *host = t1;
    if (r->clock[SIM_STREAM_COMM] < t1)
        r->clock[SIM_STREAM_COMM] = t1;
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_COMPUTE, SIM_STREAM_HOST, name, NULL, t0);
    ev.sim_end = t1;
    ev.bytes = (uint64_t)bytes;
    sim_rank_trace(r, &ev);
}
