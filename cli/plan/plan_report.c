// cli/plan/plan_report.c: what `ddplab plan` prints: the memory per GPU by
// category (at the peak and between steps), the verdict against the device,
// the papers' formula beside the executed accounting with the difference
// itemised, and the step time split into compute and exposed communication;
// and the one-line-per-configuration tables of --compare and --sweep.
#include "plan/plan.h"

#include <string.h>

#include "cost/memory_formula.h" // defines: sim_memf_zero

// "12.34 GB" (decimal, as GPU memory is sold and the ZeRO paper prints).
static const char *gb(double bytes, char *buf, size_t len) {
    if (bytes < 1e6)
        snprintf(buf, len, "%.1f kB", bytes / 1e3);
    else if (bytes < 1e9)
        snprintf(buf, len, "%.1f MB", bytes / 1e6);
    else
        snprintf(buf, len, "%.2f GB", bytes / 1e9);
    return buf;
}

static const char *ms(double s, char *buf, size_t len) {
    if (s < 1e-3)
        snprintf(buf, len, "%.1f us", s * 1e6);
    else
        snprintf(buf, len, "%.2f ms", s * 1e3);
    return buf;
}

// The ZeRO stage the strategy is, and the ranks it shards over.
static SimMemfStage stage_of(const PlanOptions *o, int *n) {
    *n = o->nranks;
    if (strcmp(o->strategy, "ddp") == 0 || strcmp(o->strategy, "single") == 0)
        return SIM_MEMF_STAGE0;
    switch (o->fsdp.sharding) {
    case SIM_FSDP_ZERO1: return SIM_MEMF_ZERO1;
    case SIM_FSDP_SHARD_GRAD_OP: return SIM_MEMF_ZERO2;
    case SIM_FSDP_NO_SHARD: return SIM_MEMF_STAGE0;
    case SIM_FSDP_HYBRID_SHARD: *n = o->gpus_per_node; return SIM_MEMF_ZERO3;
    case SIM_FSDP_HYBRID_ZERO2: *n = o->gpus_per_node; return SIM_MEMF_ZERO2;
    default: return SIM_MEMF_ZERO3;
    }
}

// The papers' bytes per parameter for this precision and optimizer: the
// ZeRO paper's 2 + 2 + 12 in mixed precision with Adam, the plain fp32
// arithmetic (4 + 4 + 8 with Adam) otherwise.
static SimMemfBytes paper_bytes(const PlanOptions *o) {
    SimMemfOptim opt = strcmp(o->optimizer, "sgd") == 0 ? SIM_MEMF_SGD : SIM_MEMF_ADAM;
    if (strcmp(o->amp, "fp32") != 0 && opt == SIM_MEMF_ADAM)
        return sim_memf_mixed_adam();
    return sim_memf_fp32(opt);
}

// 68976648192 -> "68,976,648,192".
static const char *grouped(int64_t v, char *buf, size_t len) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)v), k = 0;
    for (int i = 0; i < n && (size_t)k + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0 && digits[0] != '-')
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

static void header(FILE *out, const PlanOptions *o, const PlanResult *r) {
    char pc[40];
    fprintf(out, "ddplab plan: %s (%s parameters) on %d x %s (%d node%s x %d, %s links)\n",
            o->model_text, grouped(r->params, pc, sizeof pc), o->nranks, o->device.name, o->nodes,
            o->nodes == 1 ? "" : "s", o->nranks / (o->nodes ? o->nodes : 1), o->sys.name);
    char mb[64];
    if (o->model.kind == SIM_MODEL_GPT)
        snprintf(mb, sizeof mb, "%d x %d tokens", o->micro_batch, o->seq);
    else
        snprintf(mb, sizeof mb, "%d samples", o->micro_batch);
    fprintf(out, "  strategy %s, micro-batch %s, accum %d, %s, %s, activation "
            "checkpointing %s", r->strategy_label, mb, o->accum, o->amp, o->optimizer,
            o->ckpt);
    if (o->model.kind == SIM_MODEL_GPT)
        fprintf(out, ", %s attention", sim_model_attn_name(o->model.attn));
    fprintf(out, "\n");
    fprintf(out, "  planned in %.1f ms of wall time (phantom mode: rank 0 stands for all %d)\n\n",
            r->wall_s * 1e3, o->nranks);
}

static void memory_table(FILE *out, const PlanResult *r) {
    char a[32], b[32];
    fprintf(out, "memory per GPU (the ledger: what this configuration holds)\n");
    fprintf(out, "  %-24s %14s %18s\n", "category", "at the peak", "between steps");
    for (int c = 0; c < SIM_MEM_CAT_COUNT; c++) {
        if (c == SIM_MEM_BACKING)
            continue;
        int64_t p = r->mem.at_peak[SIM_MEM_DEVICE][c], n = r->mem.cur[SIM_MEM_DEVICE][c];
        if (p == 0 && n == 0)
            continue;
        fprintf(out, "  %-24s %14s %18s\n", sim_mem_cat_name((SimMemCat)c), gb((double)p, a,
                sizeof a), gb((double)n, b, sizeof b));
    }
    fprintf(out, "  %-24s %14s %18s\n", "total", gb((double)r->mem.peak[SIM_MEM_DEVICE], a,
            sizeof a), gb((double)r->mem.total[SIM_MEM_DEVICE], b, sizeof b));
    if (r->mem.peak[SIM_MEM_HOST] > 0)
        fprintf(out, "  host memory (offload): %s per GPU\n",
                gb((double)r->mem.peak[SIM_MEM_HOST], a, sizeof a));
    double cap = (double)r->capacity, peak = (double)r->mem.peak[SIM_MEM_DEVICE];
    char d[32];
    if (r->fits)
        fprintf(out, "  -> fits: peak %s of %s (%s to spare)\n", gb(peak, a, sizeof a),
                gb(cap, b, sizeof b), gb(cap - peak, d, sizeof d));
    else
        fprintf(out, "  -> DOES NOT FIT: peak %s of %s (%s over)\n", gb(peak, a, sizeof a),
                gb(cap, b, sizeof b), gb(peak - cap, d, sizeof d));
}

static void accounting(FILE *out, const PlanOptions *o, const PlanResult *r) {
    int n;
    SimMemfStage st = stage_of(o, &n);
    SimMemfBytes pb = paper_bytes(o);
    double formula = sim_memf_zero(st, (double)r->params, n, pb);
    const int64_t *peak = r->mem.at_peak[SIM_MEM_DEVICE];
    double states = (double)sim_mem_model_states(&r->mem, SIM_MEM_DEVICE, 0);
    static const char *const stage_names[] = {"no sharding", "ZeRO-1 (P_os)", "ZeRO-2 (P_os+g)",
                                              "ZeRO-3 (P_os+g+p)"};
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(out, "\nthe papers' formula beside it\n");
    fprintf(out, "  weights alone: %s in fp32 (4 bytes each), %s in bf16; training with Adam "
            "in fp32, 16 bytes each: %s on one GPU\n", gb(4.0 * (double)r->params, c, sizeof c),
            gb(2.0 * (double)r->params, d, sizeof d), gb(16.0 * (double)r->params, e, sizeof e));
    fprintf(out, "  formula: %s, %g + %g + %g bytes per parameter over %d rank%s: %s\n",
            stage_names[st], pb.param, pb.grad, pb.optim, n, n == 1 ? "" : "s",
            gb(formula, a, sizeof a));
    fprintf(out, "  executed model states between steps: %s (%+.1f%%: fp32 master and "
            "gradient shards, padding, optimizer as run)\n", gb(states, b, sizeof b),
            formula > 0 ? 100.0 * (states - formula) / formula : 0.0);
    double gathered = (double)peak[SIM_MEM_PARAM] + (double)peak[SIM_MEM_PARAM_LOWP];
    if (st == SIM_MEMF_STAGE0 || st == SIM_MEMF_ZERO1)
        gathered = 0; // replicated parameters are model states there
    fprintf(out, "  not in the formula, at the peak: activations %s, communication buffers %s, "
            "gathered units %s, other %s\n", gb((double)peak[SIM_MEM_ACT], c, sizeof c),
            gb((double)peak[SIM_MEM_COMM], d, sizeof d), gb(gathered, e, sizeof e),
            gb((double)peak[SIM_MEM_OTHER], a, sizeof a));
    fprintf(out, "  the peak is %.2fx the formula\n",
            formula > 0 ? (double)r->mem.peak[SIM_MEM_DEVICE] / formula : 0.0);
}

// "all_reduce: dbtree for 19 of 20 calls, ring for 1 (...)", when the
// step has any.
static void all_reduce_algos(FILE *out, const PlanOptions *o, const PlanResult *r) {
    int total = 0, shown = 0;
    for (int a = 0; a < SIM_ALGO_COUNT; a++)
        total += r->allreduce_by[a];
    if (total == 0)
        return;
    fprintf(out, "  all_reduce:");
    for (int a = 0; a < SIM_ALGO_COUNT; a++) {
        if (r->allreduce_by[a] == 0)
            continue;
        fprintf(out, "%s %s for %d", shown ? "," : "", sim_algo_name((SimAlgo)a), r->allreduce_by[a]);
        if (!shown++)
            fprintf(out, " of %d call%s", total, total == 1 ? "" : "s");
    }
    SimAlgo asked = o->algo;
    int nccl = asked == SIM_ALGO_NCCL || asked == SIM_ALGO_AUTO;
    if (!nccl && r->allreduce_by[asked] != total) // hybrid sharding's replica groups
        fprintf(out, " (--algo %s; collectives over process groups run as rings)\n",
                sim_algo_name(asked));
    else
        fprintf(out, "%s\n", nccl ? " (NCCL's choice per call: the one the cost model prices "
                                    "lower)"
                                  : " (--algo)");
}

// What the hardware FLOPs add to the model FLOPs (plan_run.c, step_flops).
static const char *recomputed(const PlanOptions *o) {
    int flash = sim_model_attn_fused(o->model.attn);
    if (strcmp(o->ckpt, "full") == 0)
        return flash ? "one more forward, and flash attention's Q K^T in backward"
                     : "one more forward";
    if (strcmp(o->ckpt, "selective") == 0 && !flash)
        return "the attention core's forward";
    return flash ? "flash attention's Q K^T in backward" : "nothing";
}

static void step_time(FILE *out, const PlanOptions *o, const PlanResult *r) {
    char a[32], b[32], c[32], d[32], e[32];
    double overlapped = r->comm_s - r->exposed_s;
    if (overlapped < 0)
        overlapped = 0;
    fprintf(out, "\nstep time (simulated: %s, %s links)\n", o->device.name, o->sys.name);
    fprintf(out, "  step %s = compute %s + ", ms(r->step_s, a, sizeof a),
            ms(r->compute_s, b, sizeof b));
    if (r->host_s > 0)
        fprintf(out, "waiting for the host %s + ", ms(r->host_s, a, sizeof a));
    fprintf(out, "exposed communication %s; communication %s in all, %s of it hidden behind "
            "compute\n", ms(r->exposed_s, c, sizeof c), ms(r->comm_s, d, sizeof d),
            ms(overlapped, e, sizeof e));
    all_reduce_algos(out, o, r);
    if (r->host_s > 0)
        fprintf(out, "  the host: CPU offload's copies and its optimizer step on the CPU "
                "(%s, %.1f GB/s per GPU)\n", sim_sys_host(&o->sys)->description,
                sim_sys_host(&o->sys)->mem_bw_Bps * sim_sys_host(&o->sys)->efficiency / 1e9);
    if (r->step_s <= 0)
        return;
    fprintf(out, "  %.0f %s/s in all, %.0f per GPU; model FLOPs utilisation %.1f%% (%s)\n",
            r->tokens_per_step / r->step_s, o->model.kind == SIM_MODEL_GPT ? "tokens" : "samples",
            r->tokens_per_step / r->step_s / o->nranks, 100.0 * r->mfu,
            o->model.kind == SIM_MODEL_GPT ? "6 x parameters + 12 x layers x width x sequence, "
                                             "per token"
                                           : "3 x forward FLOPs, per sample");
    if (o->model.kind == SIM_MODEL_GPT)
        fprintf(out, "  hardware FLOPs utilisation %.1f%% (the model FLOPs and what the step "
                "recomputes: %s)\n", 100.0 * r->hfu, recomputed(o));
}

void plan_report(FILE *out, const PlanOptions *o, const PlanResult *r) {
    if (o->quiet) {
        char a[32], b[32], c[32];
        fprintf(out, "%s: peak %s per GPU of %s, step %s\n", r->fits ? "fits" : "does not fit",
                gb((double)r->mem.peak[SIM_MEM_DEVICE], a, sizeof a),
                gb((double)r->capacity, b, sizeof b), ms(r->step_s, c, sizeof c));
        return;
    }
    header(out, o, r);
    memory_table(out, r);
    accounting(out, o, r);
    step_time(out, o, r);
}

// One row of --compare / --sweep.
static void row(FILE *out, const char *first, const PlanOptions *o, const PlanResult *r) {
    char a[32], b[32], c[32], d[32];
    if (!r->ok) {
        fprintf(out, "| %s | failed: %s |\n", first, r->error);
        return;
    }
    double tps = r->step_s > 0 ? r->tokens_per_step / r->step_s : 0;
    fprintf(out, "| %s | %s | %s | %s | %s | %s | %.0f | %.1f%% |\n", first,
            gb((double)sim_mem_model_states(&r->mem, SIM_MEM_DEVICE, 0), a, sizeof a),
            gb((double)r->mem.peak[SIM_MEM_DEVICE], b, sizeof b), r->fits ? "yes" : "NO",
            ms(r->step_s, c, sizeof c), ms(r->exposed_s, d, sizeof d),
            r->nranks ? tps / r->nranks : 0, 100.0 * r->mfu);
    (void)o;
}

void plan_report_compare(FILE *out, const PlanOptions *o, const PlanResult *r, int n) {
    fprintf(out, "ddplab plan --compare: %s on %d x %s (%d node%s), micro-batch %d x %d, "
            "accum %d, %s\n\n", o->model_text, o->nranks, o->device.name, o->nodes,
            o->nodes == 1 ? "" : "s", o->micro_batch, o->seq, o->accum, o->amp);
    fprintf(out, "| strategy | model states/GPU | peak/GPU | fits | step | exposed comm | "
            "tokens/s/GPU | MFU |\n|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++)
        row(out, r[i].strategy_label ? r[i].strategy_label : "?", o, &r[i]);
}

void plan_report_sweep(FILE *out, const PlanOptions *o, const PlanResult *r, int n) {
    fprintf(out, "ddplab plan --sweep: %s, %s, micro-batch %d x %d, accum %d, %s, nodes of %d "
            "x %s\n\n", o->model_text, o->strategy, o->micro_batch, o->seq, o->accum, o->amp,
            o->gpus_per_node, o->device.name);
    fprintf(out, "| ranks | model states/GPU | peak/GPU | fits | step | exposed comm | "
            "tokens/s/GPU | MFU |\n|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        char first[32];
        snprintf(first, sizeof first, "%d", r[i].nranks);
        row(out, first, o, &r[i]);
    }
}
