// cli/bench/bench_opts.h: the numbers of `ddplab bench`'s options (the rows'
// ids, bench_opts.c), by which the checks of bench_parse.c quote the value an
// option was given with. Private to the bench.
#ifndef DDPLAB_CLI_BENCH_OPTS_H
#define DDPLAB_CLI_BENCH_OPTS_H

typedef enum {
    BO_NONE, // rows without a number
    BO_COLL, BO_ALGO, BO_RANKS, BO_NODES, BO_DTYPE, BO_OP, BO_ROOT,
    BO_MINBYTES, BO_MAXBYTES, BO_STEP, BO_WARMUP, BO_ITERS, BO_INPLACE,
    BO_CHECK, BO_BACKEND, BO_TF32, BO_COLL_IMPL, BO_PROFILE, BO_GPU, BO_CALIBRATE,
    BO_TRACE, BO_PLOT, BO_CSV,
    BO_WATCHDOG, BO_HELP, BO_COUNT
} BenchOptId;

#endif
