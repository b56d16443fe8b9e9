// cli/plan/plan_opts.c: the options of `ddplab plan`: one table drives the parser
// and the help, every value is checked on its own and then against the
// others (topology, strategy, sizes), and every rejection is one line:
//   ddplab plan: --option: 'value' is ...; allowed: ...
#include "plan/plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"  // defines: cli_print_exit_codes
#include "core/opts.h" // defines: cli_opt_shown, cli_opt_vline, cli_opt_output_problem

typedef enum {
    PO_MODEL, PO_RANKS, PO_NODES, PO_GPN, PO_GPU, PO_SYSTEM, PO_STRATEGY, PO_SHARDING,
    PO_MICRO, PO_SEQ, PO_ACCUM, PO_AMP, PO_OPTIM, PO_OFFLOAD, PO_BUCKET, PO_ALGO, PO_BWD_PREFETCH,
    PO_FWD_PREFETCH, PO_NO_LIMIT, PO_CKPT, PO_DEVMEM, PO_COMPARE, PO_SWEEP, PO_PLOT,
    PO_TRACE, PO_QUIET, PO_HELP, PO_COUNT
} PlanOptId;

typedef struct {
    PlanOptId id;
    char shortname;
    const char *longname, *arg, *deflt, *help;
} PlanOptSpec;

static const PlanOptSpec specs[PO_COUNT] = {
    {PO_MODEL, 'm', "model", "NAME|SPEC", "llama2-7b",
     "a preset (gpt2, gpt2-medium, gpt2-large, gpt2-xl, bert-large, llama2-7b, "
     "llama2-13b, llama2-70b, llama3-8b, llama3-70b, gpt3-175b, minigpt, resnet50) "
     "or a spec as `ddplab run --model` takes"},
    {PO_RANKS, 'n', "ranks", "R", "8", "data-parallel ranks (GPUs), 1 to 65536"},
    {PO_NODES, 0, "nodes", "N", "R / gpus-per-node", "machines"},
    {PO_GPN, 0, "gpus-per-node", "G", "8 (or R when smaller)", "GPUs per machine"},
    {PO_GPU, 0, "gpu", "NAME", "h100", "the device (see `ddplab`): a100-40, a100-80, h100, "
     "h200, l40s, rtx4090, or a profile file from `ddplab bench --calibrate`"},
    {PO_SYSTEM, 0, "system", "NAME|FILE", "dgx-h100", "the links inside and between nodes "
     "(a built-in system profile or a calibrated file)"},
    {PO_STRATEGY, 0, "strategy", "NAME", "fsdp", "single, dp (DataParallel: one node, up to "
     "64 GPUs), ddp, fsdp (--sharding), zero1, zero2, zero3"},
    {PO_SHARDING, 0, "sharding", "NAME", "full_shard", "fsdp: full_shard, shard_grad_op, "
     "no_shard, hybrid_shard, hybrid_zero2, zero1"},
    {PO_MICRO, 'b', "micro-batch", "B", "1", "sequences per rank per micro-step"},
    {PO_SEQ, 0, "seq", "T", "the model's context", "tokens per sequence"},
    {PO_ACCUM, 0, "accum", "K", "1", "micro-steps per optimizer step (no_sync between)"},
    {PO_AMP, 0, "amp", "bf16|fp16|fp32", "bf16", "mixed precision: matrix products (and "
     "FSDP's gathered units) in this type, fp32 master weights"},
    {PO_OPTIM, 0, "optimizer", "adamw|adam|sgd", "adamw", "the optimizer (its state is "
     "part of the memory)"},
    {PO_OFFLOAD, 0, "offload", NULL, NULL, "fsdp: sharded parameters, gradients and "
     "optimizer state in host memory"},
    {PO_BUCKET, 0, "bucket-cap-mb", "MB", "25", "ddp: bucket size"},
    {PO_ALGO, 0, "algo", "nccl|ring|dbtree", "nccl", "the all_reduce algorithm: nccl "
     "picks per call as NCCL's tuner does (the ring, or its double binary tree where the "
     "cost model prices that lower); ring and dbtree force one (NCCL_ALGO=Ring, Tree). "
     "reduce_scatter and all_gather always run the ring"},
    {PO_BWD_PREFETCH, 0, "backward-prefetch", "backward_pre|backward_post|none",
     "backward_pre", "fsdp: when the next unit is gathered in backward"},
    {PO_FWD_PREFETCH, 0, "forward-prefetch", NULL, NULL, "fsdp: gather the next unit "
     "before this one's forward"},
    {PO_NO_LIMIT, 0, "no-limit-all-gathers", NULL, NULL, "fsdp: limit_all_gathers=False"},
    {PO_CKPT, 0, "ckpt", "none|selective|full", "none", "activation checkpointing"},
    {PO_DEVMEM, 0, "device-memory", "SIZE|DEVICE", "the device's", "memory per GPU to fit "
     "in (80GB, 80GiB, ...)"},
    {PO_COMPARE, 0, "compare", NULL, NULL, "every strategy side by side in one table"},
    {PO_SWEEP, 0, "sweep", "ranks=R1,R2,...", NULL, "a scaling table over world sizes "
     "(nodes of --gpus-per-node)"},
    {PO_PLOT, 0, "plot", "FILE.png", NULL, "with --sweep: tokens/s and memory against ranks"},
    {PO_TRACE, 0, "trace", "FILE", NULL, "the simulated steps as Chrome trace JSON "
     "(Perfetto, `ddplab trace`)"},
    {PO_QUIET, 'q', "quiet", NULL, NULL, "print only the verdict line"},
    {PO_HELP, 'h', "help", NULL, NULL, "print this help"},
};

void plan_error(const char *fmt, ...) {
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    cli_opt_vline(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ddplab plan: %s\n", msg);
}

static PlanParse bad(const PlanOptSpec *s, const char *v, const char *what, const char *allowed) {
    char vbuf[72];
    plan_error("--%s: '%s' %s; allowed: %s", s->longname, cli_opt_shown(v, vbuf, sizeof vbuf),
               what, allowed);
    return PLAN_PARSE_ERROR;
}

static PlanParse whole(const PlanOptSpec *s, const char *v, long lo, long hi, int *out) {
    char allowed[80];
    snprintf(allowed, sizeof allowed, "a whole number from %ld to %ld", lo, hi);
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || !isdigit((unsigned char)v[0]))
        return bad(s, v, "is not a whole number", allowed);
    if (errno == ERANGE || x < lo || x > hi)
        return bad(s, v, "is out of range", allowed);
    *out = (int)x;
    return PLAN_PARSE_OK;
}

static PlanParse one_of(const PlanOptSpec *s, const char *v, const char *const *names,
                        const char *allowed, const char **out) {
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = names[i];
            return PLAN_PARSE_OK;
        }
    return bad(s, v, "is not one of them", allowed);
}

// --sweep ranks=8,16,32
static PlanParse parse_sweep(const PlanOptSpec *s, const char *v, PlanOptions *o) {
    if (strncmp(v, "ranks=", 6) != 0)
        return bad(s, v, "does not start with ranks=", "ranks=8,16,32,...");
    const char *p = v + 6;
    o->nsweep = 0;
    while (*p) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 65536 || errno == ERANGE)
            return bad(s, v, "holds a value that is not a world size", "ranks=R1,R2,... with "
                       "each R from 1 to 65536");
        if (o->nsweep == PLAN_MAX_SWEEP)
            return bad(s, v, "lists too many sizes", "at most 64");
        o->sweep[o->nsweep++] = (int)x;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return bad(s, v, "is not a comma-separated list", "ranks=8,16,32");
    }
    if (o->nsweep == 0)
        return bad(s, v, "lists no size", "ranks=8,16,32");
    return PLAN_PARSE_OK;
}

static PlanParse apply(const PlanOptSpec *s, const char *v, PlanOptions *o, int *set) {
    static const char *const strategies[] = {"single", "dp", "ddp", "fsdp", "zero1", "zero2",
                                             "zero3", NULL};
    static const char *const amps[] = {"bf16", "fp16", "fp32", NULL};
    static const char *const optims[] = {"adamw", "adam", "sgd", NULL};
    static const char *const ckpts[] = {"none", "selective", "full", NULL};
    set[s->id] = 1;
    switch (s->id) {
    case PO_MODEL: o->model_text = v; return PLAN_PARSE_OK;
    case PO_RANKS: return whole(s, v, 1, 65536, &o->nranks);
    case PO_NODES: return whole(s, v, 1, 65536, &o->nodes);
    case PO_GPN: return whole(s, v, 1, 1024, &o->gpus_per_node);
    case PO_GPU: o->gpu = v; return PLAN_PARSE_OK;
    case PO_SYSTEM: o->system = v; return PLAN_PARSE_OK;
    case PO_STRATEGY:
        return one_of(s, v, strategies, "single, dp, ddp, fsdp, zero1, zero2, zero3",
                      &o->strategy);
    case PO_SHARDING:
        if (sim_fsdp_sharding_parse(v, &o->fsdp.sharding) != 0)
            return bad(s, v, "is not a sharding strategy", "full_shard, shard_grad_op, "
                       "no_shard, hybrid_shard, hybrid_zero2, zero1");
        return PLAN_PARSE_OK;
    case PO_MICRO: return whole(s, v, 1, 1 << 20, &o->micro_batch);
    case PO_SEQ: return whole(s, v, 1, 1 << 22, &o->seq);
    case PO_ACCUM: return whole(s, v, 1, 1 << 16, &o->accum);
    case PO_AMP: return one_of(s, v, amps, "bf16, fp16, fp32", &o->amp);
    case PO_OPTIM: return one_of(s, v, optims, "adamw, adam, sgd", &o->optimizer);
    case PO_OFFLOAD: o->fsdp.cpu_offload = 1; return PLAN_PARSE_OK;
    case PO_BUCKET: {
        char *end;
        double x = strtod(v, &end);
        if (end == v || *end || !(x > 0) || x > 1048576)
            return bad(s, v, "is not a size in MiB", "a number above 0, e.g. 25");
        o->ddp.buckets.bucket_cap_mb = x;
        return PLAN_PARSE_OK;
    }
    case PO_ALGO: {
        SimAlgo a;
        if (sim_algo_parse(v, &a) != 0 ||
            (a != SIM_ALGO_NCCL && a != SIM_ALGO_RING && a != SIM_ALGO_DBTREE))
            return bad(s, v, "is not an algorithm the planner prices", "nccl, ring, dbtree");
        o->ddp.algo = o->fsdp.algo = a;
        return PLAN_PARSE_OK;
    }
    case PO_BWD_PREFETCH:
        if (sim_fsdp_prefetch_parse(v, &o->fsdp.prefetch) != 0)
            return bad(s, v, "is not a backward prefetch", "backward_pre, backward_post, none");
        return PLAN_PARSE_OK;
    case PO_FWD_PREFETCH: o->fsdp.forward_prefetch = 1; return PLAN_PARSE_OK;
    case PO_NO_LIMIT: o->fsdp.limit_all_gathers = 0; return PLAN_PARSE_OK;
    case PO_CKPT: return one_of(s, v, ckpts, "none, selective, full", &o->ckpt);
    case PO_DEVMEM:
        if (sim_mem_parse_size(v, &o->capacity) != 0 || o->capacity == 0) {
            const SimDeviceProfile *d = sim_device_find(v);
            if (!d)
                return bad(s, v, "is not a size or a device", "80GB, 80GiB, 512MiB, or a "
                           "device name");
            o->capacity = (uint64_t)d->mem_bytes;
        }
        return PLAN_PARSE_OK;
    case PO_COMPARE: o->compare = 1; return PLAN_PARSE_OK;
    case PO_SWEEP: return parse_sweep(s, v, o);
    case PO_PLOT: o->plot = v; return PLAN_PARSE_OK;
    case PO_TRACE: o->trace = v; return PLAN_PARSE_OK;
    case PO_QUIET: o->quiet = 1; return PLAN_PARSE_OK;
    default: return PLAN_PARSE_OK;
    }
}

static const PlanOptSpec *find(const char *a, const char **val) {
    *val = NULL;
    if (a[0] == '-' && a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        for (int i = 0; i < PO_COUNT; i++)
            if (strlen(specs[i].longname) == len && strncmp(specs[i].longname, a + 2, len) == 0) {
                *val = eq ? eq + 1 : NULL;
                return &specs[i];
            }
    } else if (a[0] == '-' && a[1] && a[2] == '\0') {
        for (int i = 0; i < PO_COUNT; i++)
            if (specs[i].shortname == a[1])
                return &specs[i];
    }
    return NULL;
}

static void defaults(PlanOptions *o) {
    memset(o, 0, sizeof *o);
    o->model_text = "llama2-7b";
    o->nranks = 8;
    o->gpu = "h100";
    o->system = "dgx-h100";
    o->strategy = "fsdp";
    sim_fsdp_options_default(&o->fsdp);
    sim_ddp_options_default(&o->ddp);
    o->micro_batch = 1;
    o->accum = 1;
    o->amp = "bf16";
    o->optimizer = "adamw";
    o->ckpt = "none";
}

// The topology: --ranks alone (nodes of up to 8), --nodes x --gpus-per-node, or all three.
static PlanParse topology(PlanOptions *o, const int *set) {
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
static PlanParse check(PlanOptions *o, const int *set) {
    char err[600];
    if (sim_model_parse(o->model_text, &o->model, err, sizeof err) != SIM_OK) {
        plan_error("--model: %s", err);
        return PLAN_PARSE_ERROR;
    }
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
    if (o->compare && o->nsweep) {
        plan_error("--compare: cannot be combined with --sweep; allowed: one of them");
        return PLAN_PARSE_ERROR;
    }
    const char *outs[2] = {o->plot, o->trace};
    for (int i = 0; i < 2; i++) {
        const char *what, *allowed;
        if (outs[i] && cli_opt_output_problem(outs[i], &what, &allowed)) {
            plan_error("--%s: '%s' %s; allowed: %s", i ? "trace" : "plot", outs[i], what,
                       allowed);
            return PLAN_PARSE_ERROR;
        }
    }
    return PLAN_PARSE_OK;
}

PlanParse plan_opts_parse(int argc, char **argv, PlanOptions *o) {
    defaults(o);
    int set[PO_COUNT] = {0};
    for (int i = 1; i < argc; i++) {
        const char *val;
        char vbuf[72];
        const PlanOptSpec *s = find(argv[i], &val);
        if (s == NULL) {
            plan_error("'%s' is not an option; allowed: see 'ddplab plan --help'",
                       cli_opt_shown(argv[i], vbuf, sizeof vbuf));
            return PLAN_PARSE_ERROR;
        }
        if (s->id == PO_HELP)
            return PLAN_PARSE_HELP;
        if (s->arg == NULL && val) {
            plan_error("--%s: takes no value (got '%s')", s->longname,
                       cli_opt_shown(val, vbuf, sizeof vbuf));
            return PLAN_PARSE_ERROR;
        }
        if (s->arg && !val) {
            if (i + 1 >= argc) {
                plan_error("--%s: missing value; allowed: %s", s->longname, s->arg);
                return PLAN_PARSE_ERROR;
            }
            val = argv[++i];
        }
        if (apply(s, val ? val : "", o, set) != PLAN_PARSE_OK)
            return PLAN_PARSE_ERROR;
    }
    return check(o, set);
}

// The help's text, wrapped at 79 columns after a 30-column option column.
static void wrap(FILE *out, const char *text, int indent) {
    int col = indent, first = 1;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *sp = strchr(p, ' ');
        int len = sp ? (int)(sp - p) : (int)strlen(p);
        if (!first && col + 1 + len > 79) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", len, p);
        col += len;
        p += len;
        first = 0;
    }
    fputc('\n', out);
}

void plan_help(FILE *out) {
    fprintf(out,
            "usage: ddplab plan [options]\n\n"
            "Plans data-parallel training at any scale before you rent the cluster: the\n"
            "model, the strategy and the micro-batch run in phantom mode (the real\n"
            "strategy code on tensors that have shapes but no storage, one rank standing\n"
            "for all of them), so the memory per GPU and the step time are what the\n"
            "same configuration gives when it runs: bucket plans, gathered units,\n"
            "transient buffers and peaks included. It prints the memory per rank by\n"
            "category and at the peak, whether it fits, the papers' formulas beside it,\n"
            "and the step time split into compute and exposed communication.\n\n"
            "options:\n");
    for (int i = 0; i < PO_COUNT; i++) {
        const PlanOptSpec *s = &specs[i];
        char head[80];
        int n = snprintf(head, sizeof head, "  %s%c%s--%s%s%s", s->shortname ? "-" : " ",
                         s->shortname ? s->shortname : ' ', s->shortname ? ", " : "  ",
                         s->longname, s->arg ? " " : "", s->arg ? s->arg : "");
        fprintf(out, "%s", head);
        if (n >= 30)
            fprintf(out, "\n%30s", "");
        else
            fprintf(out, "%*s", 30 - n, "");
        char text[600];
        snprintf(text, sizeof text, "%s%s%s%s", s->help, s->deflt ? " (default " : "",
                 s->deflt ? s->deflt : "", s->deflt ? ")" : "");
        wrap(out, text, 30);
    }
    fprintf(out, "\nexamples:\n"
            "  ddplab plan --model llama2-7b --ranks 8 --strategy ddp\n"
            "  ddplab plan --model llama2-70b --nodes 128 --gpus-per-node 8 --strategy fsdp\n"
            "  ddplab plan --model llama2-13b --ranks 64 --compare\n"
            "  ddplab plan --model llama2-70b --sweep ranks=8,64,512,4096 --plot scaling.png\n"
            "\nexit codes:\n");
    cli_print_exit_codes(out);
}
