// cli/plan/plan_parse.c: parsing the command line of `ddplab plan`: each value
// alone by the option table (plan_opts.c), then the values against each other
// here (topology, strategy, sizes). Every rejection is one line:
//   ddplab plan: --option: 'value' is ...; allowed: ...
#include "plan/plan.h"

#include <stdarg.h>
#include <string.h>

#include "chart.h"           // defines: viz_chart_format_ok, viz_chart_available
#include "core/optable.h"   // defines: cli_optab_parse, cli_optab_verror
#include "core/opts.h"      // defines: cli_opt_output_problem
#include "plan/plan_opts.h" // defines: PlanOptId

void plan_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_optab_verror("ddplab plan", fmt, ap);
    va_end(ap);
}

static void defaults(PlanOptions *o) {
    memset(o, 0, sizeof *o);
    o->model_text = "llama2-7b";
    o->nranks = 8;
    o->gpu = "h100";
    o->system = "dgx-h100";
    o->strategy = "fsdp";
    // NCCL's own choice, call by call (`auto` would stand for the cpu
    // backend's one-shot direct algorithm, a star at scale)
    o->algo = SIM_ALGO_NCCL;
    sim_fsdp_options_default(&o->fsdp);
    sim_ddp_options_default(&o->ddp);
    o->micro_batch = 1;
    o->accum = 1;
    o->amp = "bf16";
    o->optimizer = "adamw";
    o->ckpt = "none";
    o->attention = "flash";
}

// The topology: --ranks alone (nodes of up to 8), --nodes x --gpus-per-node, or all three.
static PlanParse topology(PlanOptions *o, const char *const *set) {
    if (set[PO_NODES] && set[PO_GPN]) {
        long r = (long)o->nodes * o->gpus_per_node;
        if (set[PO_RANKS] && r != o->nranks) {
            plan_error("--ranks: '%d' is not --nodes %d x --gpus-per-node %d = %ld; allowed: "
                       "either --ranks or --nodes with --gpus-per-node", o->nranks, o->nodes,
                       o->gpus_per_node, r);
            return PLAN_PARSE_ERROR;
        }
        if (r > 65536) {
            plan_error("--nodes: %d x %d GPUs is %ld ranks; allowed: at most 65536", o->nodes,
                       o->gpus_per_node, r);
            return PLAN_PARSE_ERROR;
        }
        o->nranks = (int)r;
    } else if (set[PO_NODES]) {
        if (o->nranks % o->nodes) {
            plan_error("--nodes: '%d' does not divide the %d ranks; allowed: a divisor of "
                       "--ranks", o->nodes, o->nranks);
            return PLAN_PARSE_ERROR;
        }
        o->gpus_per_node = o->nranks / o->nodes;
    } else {
        if (!set[PO_GPN])
            o->gpus_per_node = o->nranks < 8 ? o->nranks : 8;
        if (o->nranks % o->gpus_per_node) {
            plan_error("--ranks: '%d' is not a multiple of --gpus-per-node %d; allowed: whole "
                       "nodes (e.g. --ranks %d)", o->nranks, o->gpus_per_node,
                       (o->nranks / o->gpus_per_node + 1) * o->gpus_per_node);
            return PLAN_PARSE_ERROR;
        }
        o->nodes = o->nranks / o->gpus_per_node;
    }
    return PLAN_PARSE_OK;
}

// Everything resolved and checked together.

// fully_shard as the run models it (cli/run/run_fsdp.c): reshard after
// forward or not, no CPU offload.
static PlanParse fsdp2_check(const PlanOptions *o) {
    SimFsdpSharding sh = o->fsdp.sharding;
    if (sh != SIM_FSDP_FULL_SHARD && sh != SIM_FSDP_SHARD_GRAD_OP) {
        plan_error("--sharding: '%s' is not modelled for --strategy fsdp2; allowed: full_shard, "
                   "shard_grad_op, or --strategy fsdp --sharding %s",
                   sim_fsdp_sharding_name(sh), sim_fsdp_sharding_name(sh));
        return PLAN_PARSE_ERROR;
    }
    if (o->fsdp.cpu_offload) {
        plan_error("--offload: not modelled for --strategy fsdp2; allowed: --strategy fsdp "
                   "--offload");
        return PLAN_PARSE_ERROR;
    }
    return PLAN_PARSE_OK;
}
static PlanParse check(PlanOptions *o, const char *const *set) {
    char err[600];
    if (sim_model_parse(o->model_text, &o->model, err, sizeof err) != SIM_OK) {
        plan_error("--model: %s", err);
        return PLAN_PARSE_ERROR;
    }
    // A plain gpt spec is MiniGPT's numeric layout (fp32 arenas held for the
    // model's life); a plan prices the same shapes as PyTorch runs them, as
    // an architecture whose activations live from forward to backward, with
    // the attention kernel --attention names (or the spec's attn=).
    if (o->model.kind == SIM_MODEL_GPT && (set[PO_ATTN] || o->model.attn == SIM_ATTN_PLAIN))
        (void)sim_model_attn_parse(o->attention, &o->model.attn); // one of the row's words
    if (!set[PO_SEQ])
        o->seq = o->model.kind == SIM_MODEL_GPT ? o->model.ctx : 1;
    if ((double)o->micro_batch * o->seq > (double)(1 << 28)) {
        plan_error("--micro-batch: %d sequences of %d tokens are %.3g tokens per rank and "
                   "micro-step; allowed: at most 268435456 (2^28)", o->micro_batch, o->seq,
                   (double)o->micro_batch * o->seq);
        return PLAN_PARSE_ERROR;
    }
    if (o->model.kind == SIM_MODEL_GPT && o->seq > o->model.ctx) {
        plan_error("--seq: '%d' is longer than the model's context of %d tokens; allowed: 1 to "
                   "%d", o->seq, o->model.ctx, o->model.ctx);
        return PLAN_PARSE_ERROR;
    }
    if (sim_device_resolve(o->gpu, &o->device, err, sizeof err) != SIM_OK) {
        char names[400];
        sim_device_names(names, sizeof names);
        plan_error("--gpu: %s; allowed: %s, or a profile file from 'ddplab bench --calibrate'",
                   err, names);
        return PLAN_PARSE_ERROR;
    }
    if (sim_sys_resolve(o->system, &o->sys, err, sizeof err) != SIM_OK) {
        plan_error("--system: %s; allowed: a built-in system profile (see 'ddplab') or a file "
                   "written by 'ddplab bench --calibrate'", err);
        return PLAN_PARSE_ERROR;
    }
    if (!o->nsweep && topology(o, set) != PLAN_PARSE_OK)
        return PLAN_PARSE_ERROR;
    if (o->nsweep && !set[PO_GPN])
        o->gpus_per_node = 8;
    SimFsdpSharding z;
    if (sim_fsdp_zero_stage(o->strategy, &z) == 0)
        o->fsdp.sharding = z;
    if (strcmp(o->strategy, "fsdp2") == 0 && fsdp2_check(o) != PLAN_PARSE_OK)
        return PLAN_PARSE_ERROR;
    if (strcmp(o->strategy, "single") == 0 && o->nranks != 1 && !o->compare) {
        plan_error("--strategy: 'single' runs on one rank, not %d; allowed: --ranks 1, or "
                   "ddp / fsdp / zero1-3", o->nranks);
        return PLAN_PARSE_ERROR;
    }
    if (strcmp(o->strategy, "dp") == 0 && o->nranks < 2 && !o->compare) {
        plan_error("--strategy: 'dp' (DataParallel) splits each batch over 2 or more GPUs; "
                   "allowed: --ranks 2 or more, or --strategy single for one GPU");
        return PLAN_PARSE_ERROR;
    }
    if (strcmp(o->strategy, "dp") == 0 && (o->nodes > 1 || o->nranks > 64 || o->nsweep)) {
        plan_error("--strategy: 'dp' (DataParallel) drives the GPUs of one machine from one "
                   "process; allowed: one node of up to 64 GPUs, no --sweep (here %d x %d)",
                   o->nodes, o->gpus_per_node);
        return PLAN_PARSE_ERROR;
    }
    int hybrid = o->fsdp.sharding == SIM_FSDP_HYBRID_SHARD ||
                 o->fsdp.sharding == SIM_FSDP_HYBRID_ZERO2;
    if (hybrid && !o->nsweep && (o->nodes < 2 || o->gpus_per_node < 2)) {
        plan_error("--sharding: '%s' shards inside a node and replicates across nodes; it "
                   "needs 2 or more nodes of 2 or more GPUs (here %d x %d)",
                   sim_fsdp_sharding_name(o->fsdp.sharding), o->nodes, o->gpus_per_node);
        return PLAN_PARSE_ERROR;
    }
    if (o->plot && !o->nsweep) {
        plan_error("--plot: needs --sweep; allowed: --sweep ranks=8,16,... --plot FILE.png");
        return PLAN_PARSE_ERROR;
    }
    char why[256];
    if (o->plot && !viz_chart_format_ok(o->plot)) {
        plan_error("--plot %s: unknown chart format: the file name must end in "
                   VIZ_CHART_FORMATS, o->plot);
        return PLAN_PARSE_ERROR;
    }
    if (o->plot && !viz_chart_available(why, sizeof why)) {
        plan_error("--plot: %s", why);
        return PLAN_PARSE_ERROR;
    }
    if (o->compare && o->nsweep) {
        plan_error("--compare: cannot be combined with --sweep; allowed: one of them");
        return PLAN_PARSE_ERROR;
    }
    const char *outs[2] = {o->plot, o->trace};
    for (int i = 0; i < 2; i++) {
        const char *what, *allowed;
        CliOptCtx cx = {.prog = "ddplab plan"};
        if (outs[i] && cli_opt_output_problem(outs[i], &what, &allowed)) {
            cli_optab_fail(&cx, i ? "trace" : "plot", outs[i], what, allowed);
            return PLAN_PARSE_ERROR;
        }
    }
    return PLAN_PARSE_OK;
}

PlanParse plan_opts_parse(int argc, char **argv, PlanOptions *o) {
    defaults(o);
    const char *given[PO_COUNT] = {0};
    CliOptCtx cx = {.prog = "ddplab plan", .dest = o, .given = given};
    int rc = cli_optab_parse(plan_optab(), argc, argv, &cx);
    if (rc != CLI_OPTAB_OK)
        return rc == CLI_OPTAB_HELP ? PLAN_PARSE_HELP : PLAN_PARSE_ERROR;
    return check(o, given);
}
