// cli/plan/plan_opts.c: the options of `ddplab plan` as an option table
// (core/optable.h): each option's row, what its value means, and the help;
// the parser and the checks of the values together are in plan_parse.c.
#include "plan/plan.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"      // defines: cli_opt_device_memory, cli_opt_bucket_mib
#include "plan/plan_opts.h" // defines: PlanOptId

#define AT(field) .offset = offsetof(PlanOptions, field)

static const char *const strategies[] = {"single", "dp", "ddp", "fsdp", "fsdp2", "zero1",
                                         "zero2", "zero3", NULL};
static const char *const shardings[] = {"full_shard", "shard_grad_op", "no_shard",
                                        "hybrid_shard", "hybrid_zero2", "zero1", NULL};
static const char *const amps[] = {"bf16", "fp16", "fp32", NULL};
static const char *const optims[] = {"adamw", "adam", "sgd", NULL};
static const char *const algos[] = {"nccl", "ring", "dbtree", NULL};
static const char *const prefetches[] = {"backward_pre", "backward_post", "none", NULL};
static const char *const ckpts[] = {"none", "selective", "full", NULL};
static const char *const attns[] = {"flash", "triton", "eager", NULL};
static const char *const accum_syncs[] = {"last", "every", NULL};

// The names below take PyTorch's spellings too (sim/strategy/fsdp.h).
static int set_sharding(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    if (sim_fsdp_sharding_parse(v->text, &((PlanOptions *)dest)->fsdp.sharding) != 0)
        return cli_optab_reject(cx, row, v->text);
    return 0;
}

static int set_prefetch(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    if (sim_fsdp_prefetch_parse(v->text, &((PlanOptions *)dest)->fsdp.prefetch) != 0)
        return cli_optab_reject(cx, row, v->text);
    return 0;
}

static int check_bucket_cap(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                            void *dest) {
    (void)dest;
    return cli_opt_bucket_mib(cx, row, v);
}

static int set_algo(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)cx, (void)row;
    (void)sim_algo_parse(v->text, &((PlanOptions *)dest)->algo); // one of the row's words
    return 0;
}

static int set_device_memory(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                             void *dest) {
    return cli_opt_device_memory(cx, row, v->text, &((PlanOptions *)dest)->capacity);
}

// --sweep ranks=8,16,32
static int set_sweep(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    PlanOptions *o = dest;
    const char *t = v->text;
    if (strncmp(t, "ranks=", 6) != 0)
        return cli_optab_fail(cx, row->name, t, "does not start with ranks=", "ranks=8,16,32,...");
    const char *p = t + 6;
    o->nsweep = 0;
    while (*p) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 65536 || errno == ERANGE)
            return cli_optab_fail(cx, row->name, t, "holds a value that is not a world size",
                                  "ranks=R1,R2,... with each R from 1 to 65536");
        if (o->nsweep == PLAN_MAX_SWEEP)
            return cli_optab_fail(cx, row->name, t, "lists too many sizes", "at most 64");
        o->sweep[o->nsweep++] = (int)x;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return cli_optab_fail(cx, row->name, t, "is not a comma-separated list",
                                  "ranks=8,16,32");
    }
    if (o->nsweep == 0)
        return cli_optab_fail(cx, row->name, t, "lists no size", "ranks=8,16,32");
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "model", .shortname = 'm', .kind = CLI_OPT_STRING, .metavar = "NAME|SPEC",
     .deflt = "llama2-7b", .id = PO_MODEL, .store = CLI_STORE_TEXT, AT(model_text),
     .help = "a preset (gpt2, gpt2-medium, gpt2-large, gpt2-xl, bert-large, "
             "llama2-7b, llama2-13b, llama2-70b, llama3-8b, llama3-70b, gpt3-175b, "
             "minigpt, resnet50) or a spec as `ddplab run --model` takes"},
    {.name = "ranks", .shortname = 'n', .kind = CLI_OPT_INT, .metavar = "R", .lo = 1,
     .hi = 65536, .deflt = "8", .id = PO_RANKS, .store = CLI_STORE_INT, AT(nranks),
     .help = "data-parallel ranks (GPUs), 1 to 65536"},
    {.name = "nodes", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = 65536,
     .deflt = "R / gpus-per-node", .id = PO_NODES, .store = CLI_STORE_INT, AT(nodes),
     .help = "machines"},
    {.name = "gpus-per-node", .kind = CLI_OPT_INT, .metavar = "G", .lo = 1, .hi = 1024,
     .deflt = "8 (or R when smaller)", .id = PO_GPN, .store = CLI_STORE_INT, AT(gpus_per_node),
     .help = "GPUs per machine"},
    {.name = "gpu", .kind = CLI_OPT_STRING, .metavar = "NAME", .deflt = "h100", .id = PO_GPU,
     .store = CLI_STORE_TEXT, AT(gpu), .file = CLI_FILE_VALUE,
     .help = "the device (see `ddplab`): a100-40, a100-80, h100, h200, l40s, "
             "rtx4090, or a profile file from `ddplab bench --calibrate`"},
    {.name = "system", .kind = CLI_OPT_STRING, .metavar = "NAME|FILE", .deflt = "dgx-h100",
     .id = PO_SYSTEM, .store = CLI_STORE_TEXT, AT(system), .file = CLI_FILE_VALUE,
     .help = "the links inside and between nodes (a built-in system profile or a "
             "calibrated file)"},
    {.name = "strategy", .kind = CLI_OPT_ENUM, .metavar = "NAME", .words = strategies,
     .what = "a strategy", .deflt = "fsdp", .id = PO_STRATEGY,
     .store = CLI_STORE_TEXT, AT(strategy),
     .help = "single, dp (DataParallel: one node, up to 64 GPUs), ddp, fsdp "
             "(--sharding), fsdp2 (fully_shard: each parameter sharded on dim 0), "
             "zero1, zero2, zero3"},
    {.name = "sharding", .kind = CLI_OPT_NAME, .metavar = "NAME", .words = shardings,
     .what = "a sharding strategy", .deflt = "full_shard", .id = PO_SHARDING,
     .apply = set_sharding,
     .help = "fsdp: full_shard, shard_grad_op, no_shard, hybrid_shard, "
             "hybrid_zero2, zero1"},
    {.name = "micro-batch", .shortname = 'b', .kind = CLI_OPT_INT, .metavar = "B", .lo = 1,
     .hi = 1 << 20, .deflt = "1", .id = PO_MICRO, .store = CLI_STORE_INT, AT(micro_batch),
     .help = "sequences per rank per micro-step"},
    {.name = "seq", .kind = CLI_OPT_INT, .metavar = "T", .lo = 1, .hi = 1 << 22,
     .deflt = "the model's context", .id = PO_SEQ, .store = CLI_STORE_INT, AT(seq),
     .help = "tokens per sequence"},
    {.name = "accum", .kind = CLI_OPT_INT, .metavar = "K", .lo = 1, .hi = 1 << 16,
     .deflt = "1", .id = PO_ACCUM, .store = CLI_STORE_INT, AT(accum),
     .help = "micro-steps per optimizer step (no_sync between)"},
    {.name = "accum-sync", .kind = CLI_OPT_ENUM, .words = accum_syncs,
     .what = "an accumulation sync mode", .deflt = "last", .id = PO_ACCUM_SYNC,
     .store = CLI_STORE_INT, AT(accum_sync_every),
     .help = "with --accum: last = no_sync until the last micro-step, every = reduce each"},
    {.name = "amp", .kind = CLI_OPT_ENUM, .words = amps, .what = "a dtype", .deflt = "bf16",
     .id = PO_AMP, .store = CLI_STORE_TEXT, AT(amp),
     .help = "mixed precision: matrix products (and FSDP's gathered units) in this "
             "type, fp32 master weights"},
    {.name = "optimizer", .kind = CLI_OPT_ENUM, .words = optims, .what = "an optimizer",
     .deflt = "adamw", .id = PO_OPTIM, .store = CLI_STORE_TEXT, AT(optimizer),
     .help = "the optimizer (its state is part of the memory)"},
    {.name = "offload", .kind = CLI_OPT_FLAG, .id = PO_OFFLOAD,
     .store = CLI_STORE_INT, AT(fsdp.cpu_offload),
     .help = "fsdp: sharded parameters, gradients and optimizer state in host memory"},
    {.name = "bucket-cap-mb", .kind = CLI_OPT_REAL, .metavar = "MB",
     .allowed = CLI_OPT_BUCKET_MIB_ALLOWED, .deflt = "25", .id = PO_BUCKET,
     .apply = check_bucket_cap, .store = CLI_STORE_REAL, AT(ddp.buckets.bucket_cap_mb),
     .help = "ddp: bucket size"},
    {.name = "algo", .kind = CLI_OPT_ENUM, .words = algos,
     .what = "an algorithm the planner prices", .deflt = "nccl", .id = PO_ALGO,
     .apply = set_algo,
     .help = "the all_reduce algorithm: nccl picks per call as NCCL's tuner does "
             "(the ring, or its double binary tree where the cost model prices that "
             "lower); ring and dbtree force one (NCCL_ALGO=Ring, Tree). "
             "reduce_scatter and all_gather always run the ring"},
    {.name = "backward-prefetch", .kind = CLI_OPT_NAME, .words = prefetches,
     .what = "a backward prefetch", .deflt = "backward_pre", .id = PO_BWD_PREFETCH,
     .apply = set_prefetch,
     .help = "fsdp: when the next unit is gathered in backward"},
    {.name = "forward-prefetch", .kind = CLI_OPT_FLAG, .id = PO_FWD_PREFETCH,
     .store = CLI_STORE_INT, AT(fsdp.forward_prefetch),
     .help = "fsdp: gather the next unit before this one's forward"},
    {.name = "no-limit-all-gathers", .kind = CLI_OPT_FLAG, .id = PO_NO_LIMIT,
     .store = CLI_STORE_FALSE, AT(fsdp.limit_all_gathers),
     .help = "fsdp: limit_all_gathers=False"},
    {.name = "ckpt", .kind = CLI_OPT_ENUM, .words = ckpts,
     .what = "an activation checkpointing mode", .deflt = "none", .id = PO_CKPT,
     .store = CLI_STORE_TEXT, AT(ckpt),
     .help = "activation checkpointing"},
    {.name = "attention", .kind = CLI_OPT_ENUM, .words = attns,
     .what = "an attention kernel", .deflt = "flash", .id = PO_ATTN,
     .store = CLI_STORE_TEXT, AT(attention),
     .help = "gpt family: fused flash (FlashAttention-2, no seq x seq scores kept), "
             "triton (the same memory at about half its speed: the FlashAttention-1-era "
             "Triton kernel MPT trains with) or eager (unfused)"},
    {.name = "device-memory", .kind = CLI_OPT_STRING, .metavar = "SIZE|DEVICE",
     .deflt = "the device's", .id = PO_DEVMEM, .apply = set_device_memory,
     .help = "memory per GPU to fit in (80GB, 80GiB, ...)"},
    {.name = "compare", .kind = CLI_OPT_FLAG, .id = PO_COMPARE,
     .store = CLI_STORE_INT, AT(compare),
     .help = "every strategy side by side in one table"},
    {.name = "sweep", .kind = CLI_OPT_STRING, .metavar = "ranks=R1,R2,...", .id = PO_SWEEP,
     .apply = set_sweep,
     .help = "a scaling table over world sizes (nodes of --gpus-per-node)"},
    {.name = "plot", .kind = CLI_OPT_PATH, .metavar = "FILE.png", .id = PO_PLOT,
     .store = CLI_STORE_TEXT, AT(plot),
     .help = "with --sweep: tokens/s and peak memory against ranks, the capacity marked "
             "(.png, .svg or .pdf)"},
    {.name = "trace", .kind = CLI_OPT_PATH, .metavar = "FILE", .id = PO_TRACE,
     .store = CLI_STORE_TEXT, AT(trace),
     .help = "the simulated steps as Chrome trace JSON (Perfetto, `ddplab trace`)"},
    {.name = "quiet", .shortname = 'q', .kind = CLI_OPT_FLAG, .id = PO_QUIET,
     .store = CLI_STORE_INT, AT(quiet),
     .help = "print only the verdict line"},
    {.name = "help", .shortname = 'h', .kind = CLI_OPT_FLAG, .id = PO_HELP,
     .help = "print this help"},
};

static const CliOptSection sections[] = {
    {.title = "options" CLI_OPTAB_IN_BRACKETS ":", .rows = rows,
     .nrows = (int)(sizeof rows / sizeof rows[0])},
};

static const CliOptTable table = {
    .name = "plan",
    .synopsis = "ddplab plan [options]",
    .about = "Plans data-parallel training at any scale before you rent the cluster: the\n"
             "model, the strategy and the micro-batch run in phantom mode (the real\n"
             "strategy code on tensors that have shapes but no storage, one rank standing\n"
             "for all of them), so the memory per GPU and the step time are what the\n"
             "same configuration gives when it runs: bucket plans, gathered units,\n"
             "transient buffers and peaks included. It prints the memory per rank by\n"
             "category and at the peak, whether it fits, the papers' formulas beside it,\n"
             "and the step time split into compute and exposed communication.\n",
    .sections = sections,
    .nsections = 1,
    .after = "examples:\n"
             "  ddplab plan --model llama2-7b --ranks 8 --strategy ddp\n"
             "  ddplab plan --model llama2-70b --nodes 128 --gpus-per-node 8 --strategy fsdp\n"
             "  ddplab plan --model llama2-13b --ranks 64 --compare\n"
             "  ddplab plan --model llama2-70b --sweep ranks=8,64,512,4096 --plot scaling.png\n",
};

const CliOptTable *plan_optab(void) {
    return &table;
}

void plan_help(FILE *out) {
    cli_optab_help(out, &table);
}
