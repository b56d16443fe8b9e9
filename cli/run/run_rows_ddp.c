// cli/run/run_rows_ddp.c: the rows of `ddplab run`'s option table (run_opts.c)
// for the synchronisation of the ranks: the nodes, DDP's own options (which
// need --strategy ddp: the first one given is remembered for that check,
// run_parse.c), how the loop accumulates, zeroes, logs and evaluates, and the
// watchdog.
#include <stddef.h>

#include "core/opts.h"    // defines: cli_opt_bucket_mib, cli_opt_watchdog
#include "run/run.h"      // defines: RunOptions
#include "run/run_opts.h" // defines: run_rows_sync

#define AT(field) .offset = offsetof(RunOptions, field)

static const char *const accum_sync[] = {"last", "every", NULL};
static const char *const on_off[] = {"on", "off", NULL};
static const char *const hooks[] = {"allreduce", "fp16", "bf16", "sum", "powersgd",
                                    NULL}; // as SimDdpCommHook
static const char *const loss_logs[] = {"rank0", "avg", "sum", NULL};
static const char *const zero_grads[] = {"start", "after-step", NULL};
static const char *const tails[] = {"span", "step", "drop", NULL};
// in the order of SimEvalVariant
static const char *const variants[] = {"right", "mean-of-means", "rank0-only", NULL};

// The first ddp-only option given, for the check that the strategy is ddp.
static int note_ddp(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)cx, (void)v;
    RunOptions *o = dest;
    if (o->ddp_flag == NULL)
        o->ddp_flag = row->name;
    return 0;
}

static int set_bucket_cap(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                          void *dest) {
    if (cli_opt_bucket_mib(cx, row, v) != 0)
        return -1;
    return note_ddp(cx, row, v, dest);
}

static int set_broadcast_buffers(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                                 void *dest) {
    ((RunOptions *)dest)->ddp.broadcast_buffers = v->i == 0; // on
    return note_ddp(cx, row, v, dest);
}

static int set_comm_hook(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                         void *dest) {
    ((RunOptions *)dest)->ddp.comm_hook = (SimDdpCommHook)v->i;
    return note_ddp(cx, row, v, dest);
}

// The first powersgd option given, for the check that the hook is powersgd.
static int note_powersgd(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                         void *dest) {
    RunOptions *o = dest;
    if (o->powersgd_flag == NULL)
        o->powersgd_flag = row->name;
    return note_ddp(cx, row, v, dest);
}

// Not remembered as ddp's: fsdp logs its loss the same ways (run_parse.c).
static int set_loss_log(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                        void *dest) {
    (void)cx, (void)row;
    static const SimLossLog logs[] = {SIM_LOSS_LOCAL, SIM_LOSS_AVG, SIM_LOSS_SUM};
    RunOptions *o = dest;
    o->loss_log = logs[v->i];
    o->loss_log_set = 1;
    return 0;
}

static int set_accum_tail(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                          void *dest) {
    (void)cx, (void)row;
    static const SimAccumTail tail[] = {SIM_ACCUM_TAIL_SPAN, SIM_ACCUM_TAIL_STEP,
                                        SIM_ACCUM_TAIL_DROP};
    ((RunOptions *)dest)->accum_tail = tail[v->i];
    return 0;
}

static int set_eval_variant(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                            void *dest) {
    ((RunOptions *)dest)->eval_variant = (SimEvalVariant)v->i;
    return note_ddp(cx, row, v, dest);
}

static const CliOptRow rows[] = {
    {.name = "nodes", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = 4096, .deflt = "1",
     .store = CLI_STORE_INT, AT(nodes),
     .help = "nodes the ranks are spread over (R/N per\n"
             "node; links priced by --profile)"},
    {.name = "accum-sync", .kind = CLI_OPT_ENUM, .words = accum_sync,
     .what = "an accumulation sync mode", .deflt = "last",
     .store = CLI_STORE_INT, AT(accum_sync_every),
     .help = "with --accum: last = no_sync on the first\n"
             "N-1 micro-steps, one all_reduce per step;\n"
             "every = all_reduce every micro-step (N times\n"
             "the traffic, same result)"},
    {.name = "bucket-cap-mb", .kind = CLI_OPT_REAL, .metavar = "MB",
     .allowed = CLI_OPT_BUCKET_MIB_ALLOWED, .deflt = "25",
     .apply = set_bucket_cap, .store = CLI_STORE_REAL, AT(ddp.buckets.bucket_cap_mb),
     .help = "ddp: bucket_cap_mb, the size of gradient\n"
             "buckets (the first is 1 MiB)"},
    {.name = "find-unused-parameters", .kind = CLI_OPT_FLAG, .apply = note_ddp,
     .store = CLI_STORE_INT, AT(ddp.buckets.find_unused),
     .help = "ddp: find_unused_parameters=True (parameters\n"
             "a forward did not use are marked ready)"},
    {.name = "static-graph", .kind = CLI_OPT_FLAG, .apply = note_ddp,
     .store = CLI_STORE_INT, AT(ddp.buckets.static_graph),
     .help = "ddp: static_graph=True (the graph must not\n"
             "change between iterations)"},
    {.name = "gradient-as-bucket-view", .kind = CLI_OPT_FLAG, .apply = note_ddp,
     .store = CLI_STORE_INT, AT(ddp.gradient_as_bucket_view),
     .help = "ddp: gradients are views into the buckets\n"
             "(no copy, one gradient copy less memory)"},
    {.name = "broadcast-buffers", .kind = CLI_OPT_ENUM, .words = on_off, .what = "on or off",
     .deflt = "on", .apply = set_broadcast_buffers,
     .help = "ddp: broadcast rank 0's buffers (BatchNorm\n"
             "running stats) before each forward"},
    {.name = "sync-bn", .kind = CLI_OPT_FLAG, .apply = note_ddp,
     .store = CLI_STORE_INT, AT(sync_bn),
     .help = "ddp: SyncBatchNorm (convert_sync_batchnorm):\n"
             "BatchNorm's batch statistics over every\n"
             "rank's rows (an all_gather in the forward, an\n"
             "all_reduce in the backward); needs ',bn'"},
    {.name = "no-init-broadcast", .kind = CLI_OPT_FLAG, .apply = note_ddp,
     .store = CLI_STORE_FALSE, AT(ddp.init_broadcast),
     .help = "ddp: skip the broadcast of rank 0's weights\n"
             "at construction (ranks keep their own seeds:\n"
             "rank r initialises with --seed + r)"},
    {.name = "last-bucket-cap", .kind = CLI_OPT_FLAG, .apply = note_ddp,
     .store = CLI_STORE_INT, AT(ddp.buckets.last_bucket_cap),
     .help = "ddp: DDP_SET_LAST_BUCKET_CAP=1, the small\n"
             "first bucket becomes the last"},
    {.name = "print-buckets", .kind = CLI_OPT_FLAG, .apply = note_ddp,
     .store = CLI_STORE_INT, AT(print_buckets),
     .help = "ddp: print each bucket plan (iteration 0 and\n"
             "after the rebuild): bucket, bytes, names"},
    {.name = "comm-hook", .kind = CLI_OPT_ENUM, .words = hooks, .what = "a communication hook",
     .deflt = "allreduce", .apply = set_comm_hook,
     .help = "ddp: the communication hook: allreduce (none),\n"
             "fp16/bf16 = fp16_compress_hook/bf16_compress_hook\n"
             "(half the bytes), sum = a hook that forgets to\n"
             "divide (gradients R times too large),\n"
             "powersgd = powerSGD_hook (low-rank factors\n"
             "with error feedback; --powersgd-rank,\n"
             "--powersgd-start)"},
    {.name = "powersgd-rank", .kind = CLI_OPT_INT, .metavar = "R", .lo = 1, .hi = 1 << 20,
     .deflt = "1", .apply = note_powersgd, .store = CLI_STORE_INT, AT(ddp.powersgd.rank),
     .help = "ddp --comm-hook powersgd: the rank r of each\n"
             "matrix's factors, matrix_approximation_rank\n"
             "((n + m) r values sent instead of n m)"},
    {.name = "powersgd-start", .kind = CLI_OPT_INT, .metavar = "N", .lo = 2,
     .hi = 1000000000, .deflt = "10", .apply = note_powersgd, .store = CLI_STORE_INT,
     AT(ddp.powersgd.start_iter),
     .help = "ddp --comm-hook powersgd: start_powerSGD_iter,\n"
             "the plain all_reduces before compression\n"
             "starts at iteration N (torch's default: 1000)"},
    {.name = "loss-log", .kind = CLI_OPT_ENUM, .words = loss_logs,
     .what = "a loss logging mode", .deflt = "avg", .apply = set_loss_log,
     .help = "ddp: the loss shown and in --metrics: avg =\n"
             "all_reduce(AVG), sum = all_reduce(SUM) / R,\n"
             "rank0 = rank 0's own (1/R of the data)"},
    {.name = "zero-grad", .kind = CLI_OPT_ENUM, .words = zero_grads,
     .what = "a zero_grad place", .deflt = "start",
     .store = CLI_STORE_INT, AT(zero_grad_after_step),
     .help = "where zero_grad sits: at the start of each\n"
             "accumulation block, or right after the step"},
    {.name = "set-to-none", .kind = CLI_OPT_FLAG, .store = CLI_STORE_INT, AT(set_to_none),
     .help = "zero_grad(set_to_none=True): parameters that\n"
             "get no gradient before the step are not\n"
             "stepped (no momentum, no weight decay), and\n"
             "the gradients' memory is freed until the next\n"
             "backward (not with --gradient-as-bucket-view)"},
    {.name = "accum-tail", .kind = CLI_OPT_ENUM, .words = tails,
     .what = "an accumulation tail mode", .deflt = "span", .apply = set_accum_tail,
     .help = "with --accum: span = blocks run on into the\n"
             "next epoch; step = blocks restart each epoch\n"
             "and the short last one steps; drop = it does\n"
             "forward/backward but never steps"},
    {.name = "uneven", .kind = CLI_OPT_INT, .metavar = "K", .lo = 1, .hi = 1 << 20,
     .apply = note_ddp, .store = CLI_STORE_INT, AT(uneven),
     .help = "ddp: uneven inputs: rank r has K*r/(R-1)\n"
             "fewer batches each epoch (rank R-1: K fewer);\n"
             "without --join the others end up waiting\n"
             "(the watchdog's diagnosis, exit code 3)"},
    {.name = "join", .kind = CLI_OPT_FLAG, .apply = note_ddp, .store = CLI_STORE_INT, AT(join),
     .help = "ddp: with --uneven, wrap each epoch in\n"
             "Join: ranks out of data shadow the others'\n"
             "collectives with zero gradients"},
    {.name = "watchdog", .kind = CLI_OPT_REAL, .metavar = "SECONDS",
     .what = CLI_OPT_WATCHDOG_WHAT, .allowed = CLI_OPT_WATCHDOG_ALLOWED, .deflt = "5",
     .apply = cli_opt_watchdog, .store = CLI_STORE_REAL, AT(watchdog_s),
     .help = "wall time a rank may wait in a collective\n"
             "before the run is diagnosed as stuck"},
    {.name = "probe", .kind = CLI_OPT_FLAG, .apply = note_ddp, .store = CLI_STORE_INT,
     AT(probe),
     .help = "ddp: after the last step, rank 0 broadcasts\n"
             "its first batch and every rank runs it\n"
             "forward (eval, no_grad): each rank's own\n"
             "training loss beside its probe loss, equal\n"
             "on every rank when the weights are"},
    {.name = "eval-every", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = 1000000000000LL,
     .store = CLI_STORE_I64, AT(eval_every),
     .help = "evaluate after every N steps (single, ddp):\n"
             "each rank its strided share of the training\n"
             "set, in eval mode; loss and accuracy shown\n"
             "and in --metrics"},
    {.name = "eval-variant", .kind = CLI_OPT_ENUM, .words = variants,
     .what = "an evaluation variant", .deflt = "right", .apply = set_eval_variant,
     .help = "ddp: right = all_reduce sums of loss x count,\n"
             "correct, total; mean-of-means = average of\n"
             "the ranks' own means (unweighted: wrong when\n"
             "shards differ); rank0-only = only rank 0\n"
             "evaluates and all_reduces (a deadlock)"},
};

const CliOptRow *run_rows_sync(int *n) {
    *n = (int)(sizeof rows / sizeof rows[0]);
    return rows;
}
