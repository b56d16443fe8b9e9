// cli/bench/bench_parse.c: parsing the command line of `ddplab bench`: each value
// alone by the option table (bench_opts.c: numbers, sizes, names), then the
// values together here (algorithm and collective, ranks and nodes, sizes and
// element type, output files, memory, the hardware profile).
//
// Every rejected value produces exactly one line on stderr of the form
//   ddplab bench: --option: 'value' is not ...; allowed: ...
// and nothing else happens: no world is created and no file is written.
#include "bench/bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_opts.h" // defines: BenchOptId
#include "core/backends.h"    // defines: cli_backend_default
#include "core/optable.h"     // defines: cli_optab_parse, cli_optab_fail
#include "core/opts.h"        // defines: cli_opt_vline, cli_opt_output_problem
#include "chart.h"            // defines: viz_chart_format_ok, viz_chart_available

// ----------------------------------------------------------------------------
// messages

// Prints "ddplab bench: --opt: 'val' <what>; allowed: <allowed>" (the option
// tables' wording, core/optable.h) and fails.
static BenchParse opt_fail(const char *opt, const char *val, const char *allowed,
                           const char *what, ...) __attribute__((format(printf, 4, 5)));
static BenchParse opt_fail(const char *opt, const char *val, const char *allowed,
                           const char *what, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, what);
    cli_opt_vline(msg, sizeof msg, what, ap);
    va_end(ap);
    CliOptCtx cx = {.prog = "ddplab bench"};
    cli_optab_fail(&cx, opt, val, msg, allowed);
    return BENCH_PARSE_ERROR;
}

// ----------------------------------------------------------------------------
// the values given

// The text each option was given with (NULL when not given), by BenchOptId.
typedef struct {
    const char *raw[BO_COUNT];
} OptSeen;

// The value to quote in a message: as given, else the default help shows.
static const char *quoted(const OptSeen *seen, BenchOptId id) {
    if (seen->raw[id])
        return seen->raw[id];
    const CliOptTable *t = bench_optab();
    int n;
    const CliOptRow *rows = cli_optab_rows(&t->sections[0], &n);
    for (int i = 0; i < n; i++)
        if (rows[i].id == (int)id)
            return rows[i].deflt ? rows[i].deflt : "";
    return "";
}

// ----------------------------------------------------------------------------
// the command line

static void set_defaults(BenchOptions *o) {
    memset(o, 0, sizeof *o);
    o->coll = SIM_COLL_ALL_REDUCE;
    o->algo = SIM_ALGO_AUTO;
    o->nranks = 4;
    o->nodes = 1;
    o->dtype = SIM_FP32;
    o->op = SIM_SUM;
    o->root = 0;
    o->minbytes = 8;
    o->maxbytes = (size_t)32 << 20;
    o->stepfactor = 2.0;
    o->warmup = 5;
    o->iters = 20;
    o->modes = BENCH_OUT_OF_PLACE | BENCH_IN_PLACE;
    o->check = 1;
    o->backend = cli_backend_default()->name;
    o->profile = "dgx-h100";
    o->watchdog_s = 5.0;
}

static BenchParse check_output(const char *s, const char *path) {
    const char *what, *allowed;
    if (cli_opt_output_problem(path, &what, &allowed))
        return opt_fail(s, path, allowed, "%s", what);
    return BENCH_PARSE_OK;
}

static BenchParse check_sizes(const BenchOptions *o, const OptSeen *seen) {
    const char *minb = "minbytes", *step = "stepfactor";
    size_t esize = sim_dtype_size(o->dtype);
    char allowed[160];
    if (o->minbytes > o->maxbytes)
        return opt_fail(minb, quoted(seen, BO_MINBYTES), "--minbytes <= --maxbytes",
                        "is larger than --maxbytes (%zu B)", o->maxbytes);
    if (o->coll != SIM_COLL_BARRIER && o->minbytes < esize) {
        snprintf(allowed, sizeof allowed, "%zu..64G bytes (0 only with -c barrier)", esize);
        return opt_fail(minb, quoted(seen, BO_MINBYTES), allowed,
                        "rounds to zero %s elements", sim_dtype_name(o->dtype));
    }
    if (bench_sweep(o, NULL, 0) > BENCH_MAX_SIZES) {
        snprintf(allowed, sizeof allowed, "a factor giving at most %d sizes", BENCH_MAX_SIZES);
        return opt_fail(step, quoted(seen, BO_STEP), allowed, "gives too many sizes");
    }
    return BENCH_PARSE_OK;
}

static BenchParse check_calibrate(BenchOptions *o) {
    const char *s = "calibrate";
    const char *need = "-c all_reduce with -a ring or auto, 2+ ranks, 2+ sizes";
    if (o->coll != SIM_COLL_ALL_REDUCE)
        return opt_fail(s, o->calibrate, need, "cannot be fitted from %s", bench_coll_name(o->coll));
    if (o->algo != SIM_ALGO_AUTO && o->algo != SIM_ALGO_RING)
        return opt_fail(s, o->calibrate, need, "cannot be fitted from the %s algorithm",
                        sim_algo_name(o->algo));
    if (o->nranks < 2)
        return opt_fail(s, o->calibrate, need, "cannot be fitted on 1 rank (nothing moves)");
    if (bench_sweep(o, NULL, 0) < 2)
        return opt_fail(s, o->calibrate, need, "needs at least 2 sizes (--minbytes == --maxbytes)");
    o->algo = SIM_ALGO_RING; // the model being fitted is the ring's
    return check_output(s, o->calibrate);
}

static BenchParse check_memory(const BenchOptions *o, const OptSeen *seen) {
    double need = bench_bytes_needed(o), have = bench_physical_bytes();
    if (have > 0 && need > 0.75 * have)
        return opt_fail("ranks", quoted(seen, BO_RANKS),
                        "fewer ranks or a smaller --maxbytes",
                        "is too many for memory: the buffers at --maxbytes need %.1f GiB, more "
                        "than 3/4 of the %.1f GiB this machine has",
                        need / (1 << 30), have / (1 << 30));
    return BENCH_PARSE_OK;
}

static BenchParse check_together(BenchOptions *o, const OptSeen *seen) {
    char allowed[256];
    if (o->algo == SIM_ALGO_NCCL) // a choice per call: each row would time another schedule
        return opt_fail("algo", quoted(seen, BO_ALGO), "-a ring or -a dbtree",
                        "picks an algorithm per size (`ddplab run` and `plan` take it); bench "
                        "times one");
    if (!sim_coll_supports(o->coll, o->algo)) {
        int n = 0;
        for (int a = 0; a < SIM_ALGO_COUNT; a++)
            if (a != SIM_ALGO_NCCL && sim_coll_supports(o->coll, (SimAlgo)a))
                n += snprintf(allowed + n, sizeof allowed - (size_t)n, "%s%s", n ? ", " : "",
                              sim_algo_name((SimAlgo)a));
        return opt_fail("algo", quoted(seen, BO_ALGO), allowed, "is not supported by %s",
                        bench_coll_name(o->coll));
    }
    if (o->coll == BENCH_SENDRECV && o->nranks < 2)
        return opt_fail("ranks", quoted(seen, BO_RANKS), "2..4096",
                        "is too few for sendrecv (a rank cannot send to itself)");
    if (o->nodes > o->nranks || o->nranks % o->nodes != 0) {
        snprintf(allowed, sizeof allowed, "a divisor of --ranks (%d)", o->nranks);
        return opt_fail("nodes", quoted(seen, BO_NODES), allowed,
                        "does not divide %d ranks into equal nodes", o->nranks);
    }
    if (sim_coll_has_root(o->coll) && o->root >= o->nranks) {
        snprintf(allowed, sizeof allowed, "0..%d", o->nranks - 1);
        return opt_fail("root", quoted(seen, BO_ROOT), allowed, "is not a rank of %d",
                        o->nranks);
    }
    if (!bench_has_inplace(o->coll)) {
        if (o->modes == BENCH_IN_PLACE)
            return opt_fail("inplace", quoted(seen, BO_INPLACE), "0, both",
                            "is not possible: %s has no in-place form", bench_coll_name(o->coll));
        o->modes = BENCH_OUT_OF_PLACE;
    }
    if (check_sizes(o, seen) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if (o->calibrate && check_calibrate(o) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if (o->trace && check_output("trace", o->trace) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if (o->plot && check_output("plot", o->plot) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    char why[256];
    if (o->plot && !viz_chart_format_ok(o->plot))
        return opt_fail("plot", o->plot, "a file name ending in " VIZ_CHART_FORMATS,
                        "is of an unknown chart format");
    if (o->plot && !viz_chart_available(why, sizeof why)) {
        fprintf(stderr, "ddplab bench: --plot: %s\n", why);
        return BENCH_PARSE_ERROR;
    }
    if (o->trace && o->calibrate && strcmp(o->trace, o->calibrate) == 0)
        return opt_fail("trace", o->trace, "a file other than --calibrate's",
                        "is also the --calibrate file");
    if (check_memory(o, seen) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if ((o->tf32 || o->coll_impl) && strcmp(o->backend, "cuda") != 0) {
        fprintf(stderr, "ddplab bench: --%s: applies to --backend cuda only (the %s backend "
                "computes in full fp32 and runs its own collectives); allowed: --backend cuda, "
                "or leave it out\n", o->tf32 ? "tf32" : "coll-impl", o->backend);
        return BENCH_PARSE_ERROR;
    }

    char err[512];
    if (sim_sys_resolve(o->profile, &o->sys, err, sizeof err) != SIM_OK)
        return opt_fail("profile", o->profile,
                        "a built-in profile (see 'ddplab') or a file written by --calibrate",
                        "is not usable: %s", err);
    if (o->gpu && sim_device_resolve(o->gpu, &o->device, err, sizeof err) != SIM_OK)
        return opt_fail("gpu", o->gpu,
                        "a built-in device (see 'ddplab') or a file written by --calibrate",
                        "is not usable: %s", err);
    return BENCH_PARSE_OK;
}

BenchParse bench_opts_parse(int argc, char **argv, BenchOptions *o) {
    OptSeen seen = {{0}};
    set_defaults(o);
    CliOptCtx cx = {.prog = "ddplab bench", .dest = o, .given = seen.raw};
    int rc = cli_optab_parse(bench_optab(), argc, argv, &cx);
    if (rc != CLI_OPTAB_OK)
        return rc == CLI_OPTAB_HELP ? BENCH_PARSE_HELP : BENCH_PARSE_ERROR;
    return check_together(o, &seen);
}
