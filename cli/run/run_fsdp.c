// cli/run/run_fsdp.c: the options of `ddplab run --strategy fsdp|zero1|zero2|
// zero3` (sim/strategy/fsdp.h): their rows of the option table (run_opts.c),
// and the checks of the strategy against the rest of the command line.
#include "run/run.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "run/run_opts.h" // defines: run_fsdp_rows

#define AT(field) .offset = offsetof(RunOptions, field)

static const char *const shardings[] = {"full_shard", "shard_grad_op", "no_shard",
                                        "hybrid_shard", "hybrid_zero2", "zero1", NULL};
static const char *const wraps[] = {"auto", "block", "layer", "size", "none", NULL};
static const char *const prefetches[] = {"backward_pre", "backward_post", "none", NULL};
static const char *const dtypes[] = {"fp32", "bf16", "fp16", NULL};
static const char *const state_dicts[] = {"full", "sharded", "local", NULL};

int run_fsdp_is_strategy(const char *name) {
    SimFsdpSharding z;
    return strcmp(name, "fsdp") == 0 || strcmp(name, "fsdp2") == 0 ||
           sim_fsdp_zero_stage(name, &z) == 0;
}

// The first fsdp-only option given, for the check that the strategy is one
// of them (run_fsdp_check).
static int note_fsdp(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    (void)cx, (void)v;
    RunOptions *o = dest;
    if (o->fsdp_flag == NULL)
        o->fsdp_flag = row->name;
    return 0;
}

// The names below take PyTorch's spellings too (sim/strategy/fsdp.h).
static int set_sharding(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    RunOptions *o = dest;
    if (sim_fsdp_sharding_parse(v->text, &o->fsdp.sharding) != 0)
        return cli_optab_reject(cx, row, v->text);
    o->sharding_set = 1;
    return note_fsdp(cx, row, v, dest);
}

static int set_wrap(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    if (sim_fsdp_wrap_parse(v->text, &((RunOptions *)dest)->fsdp.wrap) != 0)
        return cli_optab_reject(cx, row, v->text);
    return note_fsdp(cx, row, v, dest);
}

static int set_prefetch(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    if (sim_fsdp_prefetch_parse(v->text, &((RunOptions *)dest)->fsdp.prefetch) != 0)
        return cli_optab_reject(cx, row, v->text);
    return note_fsdp(cx, row, v, dest);
}

static int set_state_dict(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                          void *dest) {
    if (sim_fsdp_state_dict_parse(v->text, &((RunOptions *)dest)->fsdp.state_dict) != 0)
        return cli_optab_reject(cx, row, v->text);
    ((RunOptions *)dest)->state_dict_set = 1;
    return note_fsdp(cx, row, v, dest);
}

// --param-dtype, --reduce-dtype, --buffer-dtype: MixedPrecision's types.
static int set_dtype(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    static const SimDtype types[] = {SIM_FP32, SIM_BF16, SIM_FP16};
    SimFsdpOptions *f = &((RunOptions *)dest)->fsdp;
    if (strcmp(row->name, "param-dtype") == 0)
        f->param_dtype = types[v->i];
    else if (strcmp(row->name, "reduce-dtype") == 0)
        f->reduce_dtype = types[v->i], f->reduce_dtype_set = 1;
    else
        f->buffer_dtype = types[v->i];
    return note_fsdp(cx, row, v, dest);
}

static const CliOptRow rows[] = {
    {.name = "sharding", .kind = CLI_OPT_NAME, .metavar = "NAME", .words = shardings,
     .what = "a sharding strategy", .deflt = "full_shard", .apply = set_sharding,
     .help = "fsdp: full_shard (ZeRO-3), shard_grad_op\n"
             "(ZeRO-2), no_shard (DDP), hybrid_shard (shard\n"
             "in a node, replicate across --nodes),\n"
             "hybrid_zero2, zero1; PyTorch's spellings too"},
    {.name = "fsdp-wrap", .kind = CLI_OPT_NAME, .words = wraps, .what = "a wrap policy",
     .deflt = "auto", .apply = set_wrap,
     .help = "fsdp units: block = each transformer block,\n"
             "layer = each module (Linear, BatchNorm,\n"
             "embedding, block), size = modules with at\n"
             "least --min-params parameters, none = one\n"
             "unit; auto = block (gpt) or layer (mlp); the\n"
             "root unit takes what no unit took"},
    {.name = "min-params", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = LLONG_MAX,
     .what = "a positive whole number", .allowed = "1 or more parameters",
     .deflt = "100000000", .apply = note_fsdp, .store = CLI_STORE_I64, AT(fsdp.min_params),
     .help = "--fsdp-wrap size: size_based_auto_wrap_policy's\n"
             "min_num_params"},
    {.name = "backward-prefetch", .kind = CLI_OPT_NAME, .words = prefetches,
     .what = "a backward prefetch", .deflt = "backward_pre", .apply = set_prefetch,
     .help = "fsdp: when the next unit's all-gather is\n"
             "issued in backward (before or after this\n"
             "unit's gradient computation, or on demand)"},
    {.name = "forward-prefetch", .kind = CLI_OPT_FLAG, .apply = note_fsdp,
     .store = CLI_STORE_INT, AT(fsdp.forward_prefetch),
     .help = "fsdp: issue the next unit's all-gather\n"
             "before this unit's forward compute"},
    {.name = "no-limit-all-gathers", .kind = CLI_OPT_FLAG, .apply = note_fsdp,
     .store = CLI_STORE_FALSE, AT(fsdp.limit_all_gathers),
     .help = "fsdp: limit_all_gathers=False: with\n"
             "--forward-prefetch every later unit is\n"
             "gathered at once (the host running ahead),\n"
             "the memory spike the rate limiter prevents"},
    {.name = "param-dtype", .kind = CLI_OPT_ENUM, .words = dtypes, .what = "a dtype",
     .deflt = "fp32", .apply = set_dtype,
     .help = "fsdp MixedPrecision: units gathered and\n"
             "computed in this type; fp32 master shards"},
    {.name = "reduce-dtype", .kind = CLI_OPT_ENUM, .words = dtypes, .what = "a dtype",
     .deflt = "param dtype", .apply = set_dtype,
     .help = "fsdp MixedPrecision: gradients reduced in\n"
             "this type"},
    {.name = "buffer-dtype", .kind = CLI_OPT_ENUM, .words = dtypes, .what = "a dtype",
     .deflt = "fp32", .apply = set_dtype,
     .help = "fsdp MixedPrecision: buffers (BatchNorm\n"
             "statistics) rounded to this type"},
    {.name = "cpu-offload", .kind = CLI_OPT_FLAG, .apply = note_fsdp,
     .store = CLI_STORE_INT, AT(fsdp.cpu_offload),
     .help = "fsdp: sharded parameters, gradients and\n"
             "optimizer state in host memory; copies on\n"
             "the host stream"},
    {.name = "zero1-reduce-scatter", .kind = CLI_OPT_FLAG, .apply = note_fsdp,
     .store = CLI_STORE_INT, AT(fsdp.zero1_reduce_scatter),
     .help = "zero1: reduce-scatter the gradients instead\n"
             "of DeepSpeed's all_reduce"},
    {.name = "state-dict", .kind = CLI_OPT_NAME, .words = state_dicts,
     .what = "a state dict type", .deflt = "full", .apply = set_state_dict,
     .help = "fsdp --save: full = gathered, rank 0 writes\n"
             "a checkpoint any strategy resumes; sharded =\n"
             "a file per shard plus an index (resumes at\n"
             "another world size or sharding); local =\n"
             "each rank's flat shards (same world only)"},
    {.name = "state-dict-rank0-call", .kind = CLI_OPT_FLAG, .apply = note_fsdp,
     .store = CLI_STORE_INT, AT(fsdp.state_dict_rank0_call),
     .help = "fsdp: a bug on purpose: only rank 0 calls\n"
             "state_dict(); its gathers meet the others'\n"
             "next collectives (a diagnosed mismatch)"},
    {.name = "print-units", .kind = CLI_OPT_FLAG, .apply = note_fsdp,
     .store = CLI_STORE_INT, AT(print_units),
     .help = "fsdp: print the units, their sizes, padding\n"
             "and each rank's slice"},
};

const CliOptRow *run_fsdp_rows(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}

// fully_shard: the dim-0 layout of every parameter, sharded state dicts by
// default (its state_dict() returns DTensors); what it does not model here
// is refused, naming what to use instead.
static RunParse fsdp2_check(RunOptions *o) {
    SimFsdpSharding sh = o->fsdp.sharding;
    o->fsdp.per_param = 1;
    if (sh != SIM_FSDP_FULL_SHARD && sh != SIM_FSDP_SHARD_GRAD_OP) {
        run_error("--sharding: '%s' is not modelled for --strategy fsdp2; allowed: full_shard "
                  "(reshard_after_forward=True), shard_grad_op (reshard_after_forward=False), "
                  "or --strategy fsdp --sharding %s", sim_fsdp_sharding_name(sh),
                  sim_fsdp_sharding_name(sh));
        return RUN_PARSE_ERROR;
    }
    if (o->fsdp.cpu_offload) {
        run_error("--cpu-offload: not modelled for --strategy fsdp2; allowed: --strategy fsdp "
                  "--cpu-offload");
        return RUN_PARSE_ERROR;
    }
    if (o->fsdp.state_dict == SIM_FSDP_SD_LOCAL) {
        run_error("--state-dict: 'local' saves flat parameters, which fsdp2 has none of; "
                  "allowed: sharded (the default), full");
        return RUN_PARSE_ERROR;
    }
    if (o->fsdp.wrap == SIM_FSDP_WRAP_SIZE) {
        run_error("--fsdp-wrap: 'size' is FSDP1's auto-wrap policy; fully_shard is applied "
                  "per module; allowed: auto, block, layer, none");
        return RUN_PARSE_ERROR;
    }
    if (!o->state_dict_set)
        o->fsdp.state_dict = SIM_FSDP_SD_SHARDED;
    return RUN_PARSE_OK;
}

RunParse run_fsdp_check(RunOptions *o) {
    int fsdp = run_fsdp_is_strategy(o->strategy);
    if (!fsdp) {
        if (o->fsdp_flag) {
            run_error("--%s: needs --strategy fsdp (or fsdp2, zero1, zero2, zero3); allowed: "
                      "--strategy fsdp -n R --%s", o->fsdp_flag, o->fsdp_flag);
            return RUN_PARSE_ERROR;
        }
        return RUN_PARSE_OK;
    }
    SimFsdpSharding z;
    if (sim_fsdp_zero_stage(o->strategy, &z) == 0) {
        if (o->sharding_set && o->fsdp.sharding != z) {
            run_error("--sharding: '%s' contradicts --strategy %s (which is %s); allowed: "
                      "--strategy fsdp --sharding NAME, or --strategy %s alone",
                      sim_fsdp_sharding_name(o->fsdp.sharding), o->strategy,
                      sim_fsdp_sharding_name(z), o->strategy);
            return RUN_PARSE_ERROR;
        }
        o->fsdp.sharding = z;
    }
    if (strcmp(o->strategy, "fsdp2") == 0 && fsdp2_check(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    SimFsdpSharding sh = o->fsdp.sharding;
    int hybrid = sh == SIM_FSDP_HYBRID_SHARD || sh == SIM_FSDP_HYBRID_ZERO2;
    if (hybrid && (o->nodes < 2 || o->nranks / o->nodes < 2)) {
        run_error("--sharding: '%s' shards inside a node and replicates across nodes; it needs "
                  "--nodes 2 or more with 2 or more ranks each; allowed: e.g. -n 4 --nodes 2",
                  sim_fsdp_sharding_name(sh));
        return RUN_PARSE_ERROR;
    }
    if (o->fsdp.cpu_offload && (sh == SIM_FSDP_ZERO1 || sh == SIM_FSDP_NO_SHARD)) {
        run_error("--cpu-offload: needs sharded parameters (full_shard, shard_grad_op, "
                  "hybrid_*); allowed: --sharding full_shard --cpu-offload");
        return RUN_PARSE_ERROR;
    }
    if (o->fsdp.zero1_reduce_scatter && sh != SIM_FSDP_ZERO1) {
        run_error("--zero1-reduce-scatter: needs --strategy zero1");
        return RUN_PARSE_ERROR;
    }
    if (o->accum_tail == SIM_ACCUM_TAIL_DROP) {
        run_error("--accum-tail: 'drop' is not supported with --strategy %s; allowed: span, "
                  "step", o->strategy);
        return RUN_PARSE_ERROR;
    }
    if (o->eval_every > 0) {
        run_error("--eval-every: not supported with --strategy %s yet; allowed: --strategy ddp",
                  o->strategy);
        return RUN_PARSE_ERROR;
    }
    return RUN_PARSE_OK;
}
