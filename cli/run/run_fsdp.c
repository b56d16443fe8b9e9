// cli/run/run_fsdp.c: the options of `ddplab run --strategy fsdp|zero1|zero2|
// zero3` (sim/strategy/fsdp.h): parsing each one, and the checks of the strategy
// against the rest of the command line.
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"    // defines: cli_opt_shown
#include "run/run_opts.h" // defines: RunOptSpec

static RunParse bad(const RunOptSpec *s, const char *v, const char *what, const char *allowed) {
    char vbuf[72];
    run_error("--%s: '%s' %s; allowed: %s", s->longname, cli_opt_shown(v, vbuf, sizeof vbuf),
              what, allowed);
    return RUN_PARSE_ERROR;
}

static RunParse dtype(const RunOptSpec *s, const char *v, SimDtype *out) {
    if (strcmp(v, "fp32") == 0)
        *out = SIM_FP32;
    else if (strcmp(v, "bf16") == 0)
        *out = SIM_BF16;
    else if (strcmp(v, "fp16") == 0)
        *out = SIM_FP16;
    else
        return bad(s, v, "is not a dtype", "fp32, bf16, fp16");
    return RUN_PARSE_OK;
}

int run_fsdp_is_strategy(const char *name) {
    SimFsdpSharding z;
    return strcmp(name, "fsdp") == 0 || sim_fsdp_zero_stage(name, &z) == 0;
}

RunParse run_fsdp_apply(const RunOptSpec *s, const char *v, RunOptions *o) {
    SimFsdpOptions *f = &o->fsdp;
    if (o->fsdp_flag == NULL)
        o->fsdp_flag = s->longname;
    switch (s->id) {
    case RO_SHARDING:
        if (sim_fsdp_sharding_parse(v, &f->sharding) != 0)
            return bad(s, v, "is not a sharding strategy", "full_shard, shard_grad_op, "
                       "no_shard, hybrid_shard, hybrid_zero2, zero1");
        o->sharding_set = 1;
        return RUN_PARSE_OK;
    case RO_FSDP_WRAP:
        if (sim_fsdp_wrap_parse(v, &f->wrap) != 0)
            return bad(s, v, "is not a wrap policy", "auto, block, layer, size, none");
        return RUN_PARSE_OK;
    case RO_MIN_PARAMS: {
        char *end = NULL;
        long long x = strtoll(v, &end, 10);
        if (end == v || *end || x < 1)
            return bad(s, v, "is not a positive whole number", "1 or more parameters");
        f->min_params = x;
        return RUN_PARSE_OK;
    }
    case RO_BACKWARD_PREFETCH:
        if (sim_fsdp_prefetch_parse(v, &f->prefetch) != 0)
            return bad(s, v, "is not a backward prefetch", "backward_pre, backward_post, none");
        return RUN_PARSE_OK;
    case RO_FORWARD_PREFETCH: f->forward_prefetch = 1; return RUN_PARSE_OK;
    case RO_NO_LIMIT_AG: f->limit_all_gathers = 0; return RUN_PARSE_OK;
    case RO_PARAM_DTYPE: return dtype(s, v, &f->param_dtype);
    case RO_REDUCE_DTYPE: f->reduce_dtype_set = 1; return dtype(s, v, &f->reduce_dtype);
    case RO_BUFFER_DTYPE: return dtype(s, v, &f->buffer_dtype);
    case RO_CPU_OFFLOAD: f->cpu_offload = 1; return RUN_PARSE_OK;
    case RO_ZERO1_RS: f->zero1_reduce_scatter = 1; return RUN_PARSE_OK;
    case RO_STATE_DICT:
        if (sim_fsdp_state_dict_parse(v, &f->state_dict) != 0)
            return bad(s, v, "is not a state dict type", "full, sharded, local");
        return RUN_PARSE_OK;
    case RO_SD_RANK0_CALL: f->state_dict_rank0_call = 1; return RUN_PARSE_OK;
    case RO_PRINT_UNITS: o->print_units = 1; return RUN_PARSE_OK;
    default: return RUN_PARSE_OK;
    }
}

RunParse run_fsdp_check(RunOptions *o) {
    int fsdp = run_fsdp_is_strategy(o->strategy);
    if (!fsdp) {
        if (o->fsdp_flag) {
            run_error("--%s: needs --strategy fsdp (or zero1, zero2, zero3); allowed: "
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
