// cli/bench/bench_opts.c: the options of `ddplab bench` as one table (name, short
// form, value, default, help), which drives both the parser (bench_parse.c)
// and the help text below, so the two cannot disagree.
#include "bench/bench_opts.h"

#include <string.h>

#include "bench/bench.h" // defines: bench_help
#include "core/cli.h"    // defines: cli_print_exit_codes

static const OptSpec opt_specs[OPT_COUNT] = {
    {OPT_COLL, 'c', "collective", "NAME", "all_reduce",
     "all_reduce, reduce_scatter, all_gather,\n"
     "broadcast, reduce, gather, scatter,\n"
     "sendrecv (ring exchange: rank r sends to r+1\n"
     "and receives from r-1), barrier (no data)"},
    {OPT_ALGO, 'a', "algo", "NAME", "auto",
     "auto, ring, tree, dbtree, naive or direct:\n"
     "all_reduce: all (dbtree: NCCL's Tree, two\n"
     "binary trees pipelined; elsewhere the ring);\n"
     "broadcast, reduce: ring/tree/naive/direct;\n"
     "reduce_scatter, all_gather: ring/naive/direct;\n"
     "gather, scatter: naive/direct;\n"
     "sendrecv, barrier: auto only"},
    {OPT_RANKS, 'n', "ranks", "R", "4",
     "simulated ranks, 1..4096; their buffers at\n"
     "--maxbytes must fit in memory"},
    {OPT_NODES, 0, "nodes", "N", "1",
     "nodes the ranks are spread over (divides R);\n"
     "the simulated time uses the profile's intra-\n"
     "node link within a node, inter-node between"},
    {OPT_DTYPE, 'd', "dtype", "TYPE", "fp32", "fp32, fp16, bf16, int32 or int64"},
    {OPT_OP, 'o', "op", "OP", "sum", "sum, avg, max, min or prod (reductions)"},
    {OPT_ROOT, 'r', "root", "RANK", "0", "root of broadcast, reduce, gather, scatter\n(ignored by the others)"},
    {OPT_MINBYTES, 'b', "minbytes", "SIZE", "8",
     "smallest size in bytes; K, M, G = KiB, MiB,\n"
     "GiB (as in nccl-tests). The whole array, as\n"
     "for algbw: all_gather, gather, reduce_scatter\n"
     "and scatter give each rank SIZE/R of it.\n"
     "At least one element (0 only for barrier),\n"
     "at most 64G"},
    {OPT_MAXBYTES, 'e', "maxbytes", "SIZE", "32M", "largest size, same units and limits"},
    {OPT_STEP, 'f', "stepfactor", "F", "2", "size multiplier between rows, > 1"},
    {OPT_WARMUP, 'w', "warmup", "N", "5", "untimed calls per size, 0..100000"},
    {OPT_ITERS, 'i', "iters", "N", "20",
     "timed calls per size, 1..100000;\n"
     "time = elapsed / N"},
    {OPT_INPLACE, 0, "inplace", "0|1|both", "both",
     "0: out-of-place only, 1: in-place only"},
    {OPT_CHECK, 0, "check", "0|1", "1",
     "1: check every element of every result"},
    {OPT_BACKEND, 'B', "backend", "NAME", "cpu",
     "cpu (threads on this machine), or cuda\n"
     "(GPUs; only in builds with CUDA and NCCL)"},
    {OPT_TF32, 0, "tf32", NULL, NULL,
     "--backend cuda: fp32 matrix products on TF32\n"
     "tensor cores (what --calibrate then measures\n"
     "as the device's fp32 rate). Off by default"},
    {OPT_COLL_IMPL, 0, "coll-impl", "IMPL", "auto",
     "--backend cuda: nccl, or device: ddplab's\n"
     "device-memory collectives (the only choice\n"
     "when ranks share a GPU); auto: NCCL when\n"
     "every rank has a GPU of its own"},
    {OPT_PROFILE, 'p', "profile", "NAME|FILE", "dgx-h100",
     "hardware of the simulated columns: a built-in\n"
     "profile (run 'ddplab' for the list) or a\n"
     "file written by --calibrate"},
    {OPT_GPU, 0, "gpu", "NAME|FILE", NULL,
     "device of the ranks: h100, h200, a100-40,\n"
     "a100-80, l40s, rtx4090, or a --calibrate file;\n"
     "shown in the header (collectives do not use\n"
     "it); with --calibrate, saved as the profile's\n"
     "device instead of the measured one"},
    {OPT_CALIBRATE, 0, "calibrate", "FILE", NULL,
     "after the sweep, fit latency (alpha) and\n"
     "bandwidth to the ring all_reduce times (in-\n"
     "place ones when measured: no local copies)\n"
     "and measure one rank's device (this CPU, or\n"
     "the GPU on -B cuda): matmul FLOP/s, memory\n"
     "bandwidth and per-op cost with -n ranks at\n"
     "once; save them as a profile (links and\n"
     "device) in FILE for -p and\n"
     "'ddplab run -p'; needs -c all_reduce, -a ring\n"
     "or auto (ring is then used), 2+ ranks and\n"
     "2+ sizes"},
    {OPT_TRACE, 0, "trace", "FILE", NULL,
     "write a Chrome trace of the run (simulated\n"
     "time) to FILE, for Perfetto/chrome://tracing;\n"
     "a FILE ending in .jsonl gets JSON lines: one\n"
     "object per event, simulated and wall times;\n"
     "one ending in .ddptrace the binary trace,\n"
     "for ddplab replay"},
    {OPT_PLOT, 0, "plot", "FILE.png", NULL,
     "a chart of bus bandwidth against size:\n"
     "measured out-of-place and in-place, and the\n"
     "simulated hardware (log-log)"},
    {OPT_CSV, 0, "csv", NULL, NULL,
     "CSV instead of the table, one row per size\n"
     "and mode: collective,algo,ranks,bytes,count,\n"
     "dtype,redop,root,inplace,time_us,algbw_GBps,\n"
     "busbw_GBps,wrong,sim_time_us,sim_busbw_GBps\n"
     "(wrong is -1 with --check 0)"},
    {OPT_WATCHDOG, 0, "watchdog", "SECONDS", "5",
     "a rank waiting longer than this in one\n"
     "collective stops the run with a diagnosis"},
    {OPT_HELP, 'h', "help", NULL, NULL, "print this help"},
};

const OptSpec *bench_opt_spec(OptId id) {
    return &opt_specs[id];
}

const OptSpec *bench_opt_find_long(const char *name, size_t len) {
    for (int i = 0; i < OPT_COUNT; i++)
        if (strlen(opt_specs[i].longname) == len && strncmp(opt_specs[i].longname, name, len) == 0)
            return &opt_specs[i];
    return NULL;
}

const OptSpec *bench_opt_find_short(char c) {
    for (int i = 0; i < OPT_COUNT; i++)
        if (opt_specs[i].shortname && opt_specs[i].shortname == c)
            return &opt_specs[i];
    return NULL;
}

// ----------------------------------------------------------------------------
// help

void bench_help(FILE *out) {
    fprintf(out,
            "usage: ddplab bench [options]\n"
            "\n"
            "Measures one collective on simulated ranks over a sweep of sizes, like\n"
            "nccl-tests: per size the time of one call, the algorithm and bus\n"
            "bandwidths, and #wrong, the elements that differ from an independently\n"
            "computed result. Beside them: the time the same collective and algorithm\n"
            "would take on the simulated hardware profile (the cost model).\n"
            "\n"
            "options (default in brackets):\n");
    for (int i = 0; i < OPT_COUNT; i++) {
        const OptSpec *s = &opt_specs[i];
        char head[64];
        int n = snprintf(head, sizeof head, "  %c%c%s--%s%s%s", s->shortname ? '-' : ' ',
                         s->shortname ? s->shortname : ' ', s->shortname ? ", " : "  ",
                         s->longname, s->arg ? " " : "", s->arg ? s->arg : "");
        fprintf(out, "%s%*s", head, n < 28 ? 28 - n : 1, "");
        for (const char *p = s->help; *p; p++) {
            fputc(*p, out);
            if (*p == '\n')
                fprintf(out, "%28s", "");
        }
        if (s->deflt) {
            const char *last = strrchr(s->help, '\n');
            size_t lastlen = strlen(last ? last + 1 : s->help);
            if (28 + lastlen + 3 + strlen(s->deflt) > 79)
                fprintf(out, "\n%28s", ""); // the default on a line of its own
            else
                fputc(' ', out);
            fprintf(out, "[%s]", s->deflt);
        }
        fputc('\n', out);
    }
    fprintf(out,
            "\n"
            "columns:\n"
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
            "  ddplab bench -n 4 -p mine.json\n"
            "\n"
            "exit codes:\n");
    cli_print_exit_codes(out);
}
