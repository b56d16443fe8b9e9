// cli/bench/bench_opts.c: the options of `ddplab bench` as an option table
// (core/optable.h): each option's row, what its value means, and the help;
// the parser and the checks of the values together are in bench_parse.c.
#include "bench/bench_opts.h"

#include <stddef.h>
#include <string.h>

#include "bench/bench.h" // defines: BenchOptions, bench_help, bench_optab
#include "core/opts.h"   // defines: cli_opt_backend, cli_opt_watchdog

#define AT(field) .offset = offsetof(BenchOptions, field)
#define SIZE_ALLOWED "a byte count with an optional K, M or G suffix, 0..64G"

static const char *const colls[] = {"all_reduce", "reduce_scatter", "all_gather", "broadcast",
                                    "reduce", "gather", "scatter", "sendrecv", "barrier", NULL};
static const char *const algos[] = {"auto", "ring", "tree", "dbtree", "naive", "direct", "nccl",
                                    NULL};
static const char *const dtypes[] = {"fp32", "fp16", "bf16", "int32", "int64", NULL};
static const char *const ops[] = {"sum", "avg", "max", "min", "prod", NULL};
static const char *const inplace[] = {"0", "1", "both", NULL};
static const char *const bits[] = {"0", "1", NULL};
static const char *const impls[] = {"auto", "nccl", "device", NULL};

// sendrecv is the bench's own; the engine's names (and titles such as
// AllReduce) for the rest, but for send and recv alone.
static int set_coll(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    BenchOptions *o = dest;
    if (strcmp(v->text, "sendrecv") == 0) {
        o->coll = BENCH_SENDRECV;
        return 0;
    }
    if (sim_coll_parse(v->text, &o->coll) != 0 || o->coll == SIM_COLL_SEND ||
        o->coll == SIM_COLL_RECV)
        return cli_optab_reject(cx, row, v->text);
    return 0;
}

// nccl is taken here and refused with its reason by the checks
// (bench_parse.c), which know the collective.
static int set_algo(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                    void *dest) {
    (void)cx, (void)row;
    (void)sim_algo_parse(v->text, &((BenchOptions *)dest)->algo); // one of the row's words
    return 0;
}

// The engine's names and aliases (float, half, ...).
static int set_dtype(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                     void *dest) {
    if (sim_dtype_parse(v->text, &((BenchOptions *)dest)->dtype) != 0)
        return cli_optab_reject(cx, row, v->text);
    return 0;
}

static int set_op(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                  void *dest) {
    (void)cx, (void)row;
    (void)sim_redop_parse(v->text, &((BenchOptions *)dest)->op); // one of the row's words
    return 0;
}

static int check_step(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                      void *dest) {
    (void)dest;
    return v->x > 1.0 ? 0 : cli_optab_fail(cx, row->name, v->text, "is not greater than 1",
                                           row->allowed);
}

static int set_inplace(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v,
                       void *dest) {
    (void)cx, (void)row;
    static const int modes[] = {BENCH_OUT_OF_PLACE, BENCH_IN_PLACE,
                                BENCH_OUT_OF_PLACE | BENCH_IN_PLACE}; // 0, 1, both
    ((BenchOptions *)dest)->modes = modes[v->i];
    return 0;
}

static const CliOptRow rows[] = {
    {.name = "collective", .shortname = 'c', .kind = CLI_OPT_NAME, .metavar = "NAME",
     .words = colls, .what = "a collective", .deflt = "all_reduce", .id = BO_COLL,
     .apply = set_coll,
     .help = "all_reduce, reduce_scatter, all_gather,\n"
             "broadcast, reduce, gather, scatter,\n"
             "sendrecv (ring exchange: rank r sends to r+1\n"
             "and receives from r-1), barrier (no data)"},
    {.name = "algo", .shortname = 'a', .kind = CLI_OPT_ENUM, .metavar = "NAME", .words = algos,
     .what = "a collective algorithm", .allowed = "auto, ring, tree, dbtree, naive, direct",
     .deflt = "auto", .id = BO_ALGO, .apply = set_algo,
     .help = "auto, ring, tree, dbtree, naive or direct:\n"
             "all_reduce: all (dbtree: NCCL's Tree, two\n"
             "binary trees pipelined; elsewhere the ring);\n"
             "broadcast, reduce: ring/tree/naive/direct;\n"
             "reduce_scatter, all_gather: ring/naive/direct;\n"
             "gather, scatter: naive/direct;\n"
             "sendrecv, barrier: auto only"},
    {.name = "ranks", .shortname = 'n', .kind = CLI_OPT_INT, .metavar = "R", .lo = 1,
     .hi = BENCH_MAX_RANKS, .deflt = "4", .id = BO_RANKS, .store = CLI_STORE_INT, AT(nranks),
     .help = "simulated ranks, 1..4096; their buffers at\n"
             "--maxbytes must fit in memory"},
    {.name = "nodes", .kind = CLI_OPT_INT, .metavar = "N", .lo = 1, .hi = BENCH_MAX_RANKS,
     .deflt = "1", .id = BO_NODES, .store = CLI_STORE_INT, AT(nodes),
     .help = "nodes the ranks are spread over (divides R);\n"
             "the simulated time uses the profile's intra-\n"
             "node link within a node, inter-node between"},
    {.name = "dtype", .shortname = 'd', .kind = CLI_OPT_NAME, .metavar = "TYPE",
     .words = dtypes, .what = "an element type", .deflt = "fp32", .id = BO_DTYPE,
     .apply = set_dtype,
     .help = "fp32, fp16, bf16, int32 or int64"},
    {.name = "op", .shortname = 'o', .kind = CLI_OPT_ENUM, .metavar = "OP", .words = ops,
     .what = "a reduction", .deflt = "sum", .id = BO_OP, .apply = set_op,
     .help = "sum, avg, max, min or prod (reductions)"},
    {.name = "root", .shortname = 'r', .kind = CLI_OPT_INT, .metavar = "RANK", .lo = 0,
     .hi = BENCH_MAX_RANKS - 1, .deflt = "0", .id = BO_ROOT, .store = CLI_STORE_INT, AT(root),
     .help = "root of broadcast, reduce, gather, scatter\n"
             "(ignored by the others)"},
    {.name = "minbytes", .shortname = 'b', .kind = CLI_OPT_SIZE, .metavar = "SIZE",
     .hi = BENCH_MAX_BYTES, .allowed = SIZE_ALLOWED, .deflt = "8", .id = BO_MINBYTES,
     .store = CLI_STORE_SIZE, AT(minbytes),
     .help = "smallest size in bytes; K, M, G = KiB, MiB,\n"
             "GiB (as in nccl-tests). The whole array, as\n"
             "for algbw: all_gather, gather, reduce_scatter\n"
             "and scatter give each rank SIZE/R of it.\n"
             "At least one element (0 only for barrier),\n"
             "at most 64G"},
    {.name = "maxbytes", .shortname = 'e', .kind = CLI_OPT_SIZE, .metavar = "SIZE",
     .hi = BENCH_MAX_BYTES, .allowed = SIZE_ALLOWED, .deflt = "32M", .id = BO_MAXBYTES,
     .store = CLI_STORE_SIZE, AT(maxbytes),
     .help = "largest size, same units and limits"},
    {.name = "stepfactor", .shortname = 'f', .kind = CLI_OPT_REAL, .metavar = "F",
     .allowed = "a number > 1, e.g. 2", .deflt = "2", .id = BO_STEP, .apply = check_step,
     .store = CLI_STORE_REAL, AT(stepfactor),
     .help = "size multiplier between rows, > 1"},
    {.name = "warmup", .shortname = 'w', .kind = CLI_OPT_INT, .metavar = "N", .lo = 0,
     .hi = 100000, .deflt = "5", .id = BO_WARMUP, .store = CLI_STORE_INT, AT(warmup),
     .help = "untimed calls per size, 0..100000"},
    {.name = "iters", .shortname = 'i', .kind = CLI_OPT_INT, .metavar = "N", .lo = 1,
     .hi = 100000, .deflt = "20", .id = BO_ITERS, .store = CLI_STORE_INT, AT(iters),
     .help = "timed calls per size, 1..100000;\n"
             "time = elapsed / N"},
    {.name = "inplace", .kind = CLI_OPT_ENUM, .words = inplace, .what = "an in-place mode",
     .deflt = "both", .id = BO_INPLACE, .apply = set_inplace,
     .help = "0: out-of-place only, 1: in-place only"},
    {.name = "check", .kind = CLI_OPT_ENUM, .words = bits, .what = "0 or 1", .deflt = "1",
     .id = BO_CHECK, .store = CLI_STORE_INT, AT(check),
     .help = "1: check every element of every result"},
    {.name = "backend", .shortname = 'B', .kind = CLI_OPT_NAME, .metavar = "NAME",
     .deflt = "cpu", .id = BO_BACKEND, .apply = cli_opt_backend,
     .store = CLI_STORE_TEXT, AT(backend),
     .help = "cpu (threads on this machine), or cuda\n"
             "(GPUs; only in builds with CUDA and NCCL)"},
    {.name = "tf32", .kind = CLI_OPT_FLAG, .id = BO_TF32, .store = CLI_STORE_INT, AT(tf32),
     .help = "--backend cuda: fp32 matrix products on TF32\n"
             "tensor cores (what --calibrate then measures\n"
             "as the device's fp32 rate). Off by default"},
    {.name = "coll-impl", .kind = CLI_OPT_ENUM, .metavar = "IMPL", .words = impls,
     .what = "a collective implementation", .deflt = "auto", .id = BO_COLL_IMPL,
     .store = CLI_STORE_TEXT, AT(coll_impl),
     .help = "--backend cuda: nccl, or device: ddplab's\n"
             "device-memory collectives (the only choice\n"
             "when ranks share a GPU); auto: NCCL when\n"
             "every rank has a GPU of its own"},
    {.name = "profile", .shortname = 'p', .kind = CLI_OPT_STRING, .metavar = "NAME|FILE",
     .deflt = "dgx-h100", .id = BO_PROFILE, .store = CLI_STORE_TEXT, AT(profile),
     .file = CLI_FILE_VALUE,
     .help = "hardware of the simulated columns: a built-in\n"
             "profile (run 'ddplab' for the list) or a\n"
             "file written by --calibrate"},
    {.name = "gpu", .kind = CLI_OPT_STRING, .metavar = "NAME|FILE", .id = BO_GPU,
     .store = CLI_STORE_TEXT, AT(gpu), .file = CLI_FILE_VALUE,
     .help = "device of the ranks: h100, h200, a100-40,\n"
             "a100-80, l40s, rtx4090, or a --calibrate file;\n"
             "shown in the header (collectives do not use\n"
             "it); with --calibrate, saved as the profile's\n"
             "device instead of the measured one"},
    {.name = "calibrate", .kind = CLI_OPT_PATH, .metavar = "FILE", .id = BO_CALIBRATE,
     .store = CLI_STORE_TEXT, AT(calibrate),
     .help = "after the sweep, fit latency (alpha) and\n"
             "bandwidth to the ring all_reduce times (in-\n"
             "place ones when measured: no local copies)\n"
             "and measure one rank's device (this CPU, or\n"
             "the GPU on -B cuda): matmul FLOP/s, memory\n"
             "bandwidth and per-op cost with -n ranks at\n"
             "once, the matmul rate and per-op cost then\n"
             "fitted to products of several shapes; save\n"
             "them as a profile (links and\n"
             "device) in FILE for -p and\n"
             "'ddplab run -p'; needs -c all_reduce, -a ring\n"
             "or auto (ring is then used), 2+ ranks and\n"
             "2+ sizes"},
    {.name = "trace", .kind = CLI_OPT_PATH, .metavar = "FILE", .id = BO_TRACE,
     .store = CLI_STORE_TEXT, AT(trace),
     .help = "write a Chrome trace of the run (simulated\n"
             "time) to FILE, for Perfetto/chrome://tracing;\n"
             "a FILE ending in .jsonl gets JSON lines: one\n"
             "object per event, simulated and wall times;\n"
             "one ending in .ddptrace the binary trace,\n"
             "for ddplab replay"},
    {.name = "plot", .kind = CLI_OPT_PATH, .metavar = "FILE.png", .id = BO_PLOT,
     .store = CLI_STORE_TEXT, AT(plot),
     .help = "a chart of bus bandwidth against size:\n"
             "measured out-of-place and in-place, and the\n"
             "simulated hardware (log-log); .png, .svg\n"
             "or .pdf by the file name"},
    {.name = "csv", .kind = CLI_OPT_FLAG, .id = BO_CSV, .store = CLI_STORE_INT, AT(csv),
     .help = "CSV instead of the table, one row per size\n"
             "and mode: collective,algo,ranks,bytes,count,\n"
             "dtype,redop,root,inplace,time_us,algbw_GBps,\n"
             "busbw_GBps,wrong,sim_time_us,sim_busbw_GBps\n"
             "(wrong is -1 with --check 0)"},
    {.name = "watchdog", .kind = CLI_OPT_REAL, .metavar = "SECONDS",
     .what = CLI_OPT_WATCHDOG_WHAT, .allowed = CLI_OPT_WATCHDOG_ALLOWED, .deflt = "5",
     .id = BO_WATCHDOG, .apply = cli_opt_watchdog, .store = CLI_STORE_REAL, AT(watchdog_s),
     .help = "a rank waiting longer than this in one\n"
             "collective stops the run with a diagnosis"},
    {.name = "help", .shortname = 'h', .kind = CLI_OPT_FLAG, .id = BO_HELP,
     .help = "print this help"},
};

static const CliOptSection sections[] = {
    {.title = "options" CLI_OPTAB_IN_BRACKETS ":", .rows = rows,
     .nrows = (int)(sizeof rows / sizeof rows[0])},
};

static const CliOptTable table = {
    .name = "bench",
    .synopsis = "ddplab bench [options]",
    .about = "Measures one collective on simulated ranks over a sweep of sizes, like\n"
             "nccl-tests: per size the time of one call, the algorithm and bus\n"
             "bandwidths, and #wrong, the elements that differ from an independently\n"
             "computed result. Beside them: the time the same collective and algorithm\n"
             "would take on the simulated hardware profile (the cost model).\n",
    .sections = sections,
    .nsections = 1,
    .after = "columns:\n"
             "  size      bytes of the whole array: count x element size, times R for\n"
             "            all_gather, gather, reduce_scatter and scatter\n"
             "  time      microseconds per call on this machine: the slowest rank's\n"
             "            elapsed time over --iters calls, divided by --iters\n"
             "  algbw     size / time, in GB/s (1 GB = 1e9 bytes)\n"
             "  busbw     algbw x factor, comparable across collectives and rank\n"
             "            counts: all_reduce 2(R-1)/R; reduce_scatter, all_gather,\n"
             "            gather, scatter (R-1)/R; broadcast, reduce, sendrecv 1\n"
             "  #wrong    elements that differ from the expected result (must be 0)\n"
             "  simulated the cost model's time and busbw on --profile hardware\n"
             "\n"
             "examples:\n"
             "  ddplab bench -c all_reduce -n 8 -b 1K -e 64M\n"
             "  ddplab bench -c all_gather -a ring -n 16 --nodes 2 -p dgx-h100 --csv\n"
             "  ddplab bench -n 4 -a ring -b 64K -e 16M --calibrate mine.json\n"
             "  ddplab bench -n 4 -p mine.json\n",
};

const CliOptTable *bench_optab(void) {
    return &table;
}

void bench_help(FILE *out) {
    cli_optab_help(out, &table);
}
