// cli/bench/bench_opts.h: the option table of `ddplab bench`, shared by the parser
// (bench_parse.c) and the help text (bench_opts.c). Private to the bench.
#ifndef DDPLAB_CLI_BENCH_OPTS_H
#define DDPLAB_CLI_BENCH_OPTS_H

#include <stddef.h>

typedef enum {
    OPT_COLL, OPT_ALGO, OPT_RANKS, OPT_NODES, OPT_DTYPE, OPT_OP, OPT_ROOT,
    OPT_MINBYTES, OPT_MAXBYTES, OPT_STEP, OPT_WARMUP, OPT_ITERS, OPT_INPLACE,
    OPT_CHECK, OPT_BACKEND, OPT_TF32, OPT_COLL_IMPL, OPT_PROFILE, OPT_GPU, OPT_CALIBRATE,
    OPT_TRACE, OPT_PLOT, OPT_CSV,
    OPT_WATCHDOG, OPT_HELP, OPT_COUNT
} OptId;

typedef struct {
    OptId id;
    char shortname;       // 0: long form only
    const char *longname;
    const char *arg;      // metavariable; NULL for a flag without a value
    const char *deflt;    // default shown in --help (NULL: none)
    const char *help;     // lines separated by '\n'
} OptSpec;

// The table entry of an option (id < OPT_COUNT).
const OptSpec *bench_opt_spec(OptId id);
// The option called --name (first len characters of name), or NULL.
const OptSpec *bench_opt_find_long(const char *name, size_t len);
// The option called -c, or NULL.
const OptSpec *bench_opt_find_short(char c);

#endif
