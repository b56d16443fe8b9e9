// sim/cost/memory_formula.c: the closed forms of sim/cost/memory_formula.h.
#include "cost/memory_formula.h"

#include <math.h>
#include <stddef.h>

SimMemfBytes sim_memf_fp32(SimMemfOptim opt) {
    SimMemfBytes b = {4, 4, 0};
    b.optim = opt == SIM_MEMF_ADAM ? 8 : opt == SIM_MEMF_SGD_MOMENTUM ? 4 : 0;
    return b;
}

SimMemfBytes sim_memf_mixed_adam(void) {
    SimMemfBytes b = {2, 2, 12};
    return b;
}

double sim_memf_total(SimMemfBytes b) {
    return b.param + b.grad + b.optim;
}

double sim_memf_zero(SimMemfStage st, double psi, int n, SimMemfBytes b) {
    double N = n > 0 ? n : 1;
    switch (st) {
    case SIM_MEMF_ZERO1: return (b.param + b.grad) * psi + b.optim * psi / N;
    case SIM_MEMF_ZERO2: return b.param * psi + (b.grad + b.optim) * psi / N;
    case SIM_MEMF_ZERO3: return sim_memf_total(b) * psi / N;
    default: return sim_memf_total(b) * psi;
    }
}

uint64_t sim_memf_shard_numel(uint64_t numel, int n) {
    uint64_t N = n > 0 ? (uint64_t)n : 1;
    return numel / N + (numel % N != 0);
}

double sim_memf_fsdp_full_shard(const uint64_t *unit_numel, int nunits, int n, SimMemfBytes b) {
    double elems = 0;
    for (int u = 0; u < nunits; u++)
        elems += (double)sim_memf_shard_numel(unit_numel[u], n);
    return sim_memf_total(b) * elems;
}

double sim_memf_grads(double psi, double bytes_per_grad, int n, int sharded) {
    return psi * bytes_per_grad / (sharded && n > 0 ? n : 1);
}

double sim_memf_megatron(SimMemfMegatron kind, int d) {
    double D = d > 0 ? d : 1;
    switch (kind) {
    case SIM_MEMF_MEGATRON_FP16: return 4 + 16 / D;
    case SIM_MEMF_MEGATRON_BF16: return 6 + 12 / D;
    default: return 8 + 8 / D;
    }
}

// ----------------------------------------------------------------------------
// DeepSpeed's estimators

SimMemfEstimate sim_memf_ds_zero2(double psi, int gpus_per_node, int nodes, int cpu_offload,
                                  double factor) {
    double gpus = (double)gpus_per_node * nodes;
    SimMemfEstimate e;
    if (cpu_offload) {
        e.gpu = 2 * psi;
        e.cpu = psi * fmax(4 * gpus, 16) * factor;
    } else {
        // After DeepSpeed PR #5099; before it the GPU term was 4Ψ + 16Ψ/N.
        e.gpu = 2 * psi + floor(18 * psi / gpus);
        e.cpu = psi * 4 * gpus_per_node * factor;
    }
    e.cpu = floor(e.cpu);
    return e;
}

SimMemfEstimate sim_memf_ds_zero3(double psi, double largest, int gpus_per_node, int nodes,
                                  int offload_optimizer, int offload_params, int zero_init,
                                  double factor) {
    double gpus = (double)gpus_per_node * nodes, per_node = 1.0 / nodes;
    double layer = 4 * largest;
    SimMemfEstimate e;
    if (offload_optimizer && offload_params) {
        e.gpu = layer;
        e.cpu = zero_init ? psi * 18 * per_node * factor
                          : psi * fmax(4.0 * gpus_per_node, 18 * per_node) * factor;
    } else if (offload_optimizer) {
        e.gpu = layer + floor(2 * psi / gpus);
        e.cpu = zero_init ? psi * 16 * per_node * factor
                          : psi * fmax(4.0 * gpus_per_node, 16 * per_node) * factor;
    } else {
        e.gpu = layer + floor(18 * psi / gpus);
        e.cpu = (zero_init ? largest : psi) * 4 * gpus_per_node * factor;
    }
    e.cpu = floor(e.cpu);
    return e;
}

// ----------------------------------------------------------------------------
// what would fit

const char *sim_memf_plan_name(SimMemfPlan p) {
    switch (p) {
    case SIM_MEMF_PLAN_DDP: return "DDP";
    case SIM_MEMF_PLAN_DDP_VIEW: return "DDP (gradient_as_bucket_view)";
    case SIM_MEMF_PLAN_ZERO1: return "ZeRO-1";
    case SIM_MEMF_PLAN_ZERO2: return "ZeRO-2 (SHARD_GRAD_OP)";
    case SIM_MEMF_PLAN_FULL_SHARD: return "FULL_SHARD (ZeRO-3)";
    case SIM_MEMF_PLAN_OFFLOAD: return "FULL_SHARD + CPU offload";
    default: return "?";
    }
}

SimMemfFit sim_memf_fit_plan(const SimMemfQuery *q, SimMemfPlan p, int n) {
    const SimMemfBytes *b = &q->bytes;
    double psi = q->psi, unit = q->largest_unit;
    SimMemfFit f = {p, n, 0, 0, 0, 0, 0};
    // Sharded elements per rank, with FSDP's padding to a multiple of N.
    double shard = (double)sim_memf_shard_numel((uint64_t)psi, n);
    switch (p) {
    case SIM_MEMF_PLAN_DDP:
        f.states = sim_memf_zero(SIM_MEMF_STAGE0, psi, n, *b);
        f.transient = q->bucket_bytes;
        break;
    case SIM_MEMF_PLAN_DDP_VIEW:
        f.states = sim_memf_zero(SIM_MEMF_STAGE0, psi, n, *b);
        break;
    case SIM_MEMF_PLAN_ZERO1:
        f.states = sim_memf_zero(SIM_MEMF_ZERO1, psi, n, *b);
        f.transient = q->bucket_bytes;
        break;
    case SIM_MEMF_PLAN_ZERO2:
        // A unit's gradient is whole until its reduce-scatter.
        f.states = b->param * psi + (b->grad + b->optim) * shard;
        f.transient = b->grad * unit;
        break;
    case SIM_MEMF_PLAN_FULL_SHARD:
        // The unit being computed is gathered whole, with its gradient.
        f.states = sim_memf_total(*b) * shard;
        f.transient = (b->param + b->grad) * unit;
        break;
    case SIM_MEMF_PLAN_OFFLOAD:
        f.host = sim_memf_total(*b) * shard;
        f.transient = (b->param + b->grad) * unit;
        break;
    default: break;
    }
    f.device = f.states + f.transient + q->act_bytes + q->other_bytes;
    f.fits = q->capacity <= 0 || f.device <= q->capacity;
    return f;
}

int sim_memf_fit(const SimMemfQuery *q, SimMemfFit out[SIM_MEMF_PLAN_COUNT]) {
    int fits = 0;
    for (int p = 0; p < SIM_MEMF_PLAN_COUNT; p++) {
        out[p] = sim_memf_fit_plan(q, (SimMemfPlan)p, q->nranks);
        fits += out[p].fits;
    }
    return fits;
}

int sim_memf_min_ranks(const SimMemfQuery *q, SimMemfPlan p, int max_ranks) {
    for (long n = q->nranks > 0 ? q->nranks : 1; n <= max_ranks; n *= 2)
        if (sim_memf_fit_plan(q, p, (int)n).fits)
            return (int)n;
    return 0;
}

int sim_memf_max_batch(const SimMemfQuery *q, SimMemfPlan p) {
    if (q->batch <= 1 || q->act_bytes <= 0)
        return 0;
    SimMemfQuery s = *q;
    SimMemfFit f = sim_memf_fit_plan(q, p, q->nranks);
    double fixed = f.device - q->act_bytes, per = q->act_bytes / q->batch;
    if (q->capacity <= 0 || fixed + per > q->capacity)
        return 0;
    double most = floor((q->capacity - fixed) / per) + 1;
    int b = most < q->batch ? (int)most : q->batch - 1;
    // The division may be a byte off either way; check each batch from one
    // above it down, as the plan would.
    for (; b >= 1; b--) {
        s.act_bytes = per * b;
        if (sim_memf_fit_plan(&s, p, q->nranks).fits)
            return b;
    }
    return 0;
}
