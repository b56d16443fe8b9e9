// cli/bench/bench_parse.c: parsing the command line of `ddplab bench`: each value
// alone (numbers, sizes, names), then the values together (algorithm and
// collective, ranks and nodes, sizes and element type, output files,
// memory, the hardware profile).
//
// Every rejected value produces exactly one line on stderr of the form
//   ddplab bench: --option: 'value' is not ...; allowed: ...
// and nothing else happens: no world is created and no file is written.
#include "bench/bench.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench_opts.h" // defines: OptSpec, bench_opt_spec
#include "core/backends.h"    // defines: cli_backend_exists, cli_backend_names
#include "core/opts.h"        // defines: cli_opt_shown, cli_opt_vline, cli_opt_output_problem
#include "plot.h"             // defines: viz_png_available

// ----------------------------------------------------------------------------
// messages

// Prints "ddplab bench: --opt: 'val' <what>; allowed: <allowed>" and fails.
static BenchParse opt_fail(const OptSpec *s, const char *val, const char *allowed,
                           const char *what, ...) {
    char msg[512], vbuf[72];
    va_list ap;
    va_start(ap, what);
    cli_opt_vline(msg, sizeof msg, what, ap);
    va_end(ap);
    fprintf(stderr, "ddplab bench: --%s: '%s' %s; allowed: %s\n", s->longname,
            cli_opt_shown(val, vbuf, sizeof vbuf), msg, allowed);
    return BENCH_PARSE_ERROR;
}

// ----------------------------------------------------------------------------
// value parsers: 0 on success, -1 not a number, -2 out of range

static int parse_int(const char *s, long lo, long hi, int *out) {
    if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+'))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0')
        return -1;
    if (errno == ERANGE || v < lo || v > hi)
        return -2;
    *out = (int)v;
    return 0;
}

static int parse_real(const char *s, double *out) {
    if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.' || s[0] == '-' || s[0] == '+'))
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

// Sizes: digits with an optional K, M or G (KiB, MiB, GiB). 0 ok, -1 not a
// size, -2 negative, -3 larger than BENCH_MAX_BYTES.
static int parse_size(const char *s, size_t *out) {
    if (s && s[0] == '-')
        return -2;
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    uint64_t v = 0;
    int big = 0;
    const char *p = s;
    for (; isdigit((unsigned char)*p); p++) {
        if (v > BENCH_MAX_BYTES)
            big = 1; // keep scanning so garbage is still reported as garbage
        else
            v = v * 10 + (uint64_t)(*p - '0');
    }
    uint64_t mult = 1;
    switch (*p) {
    case 'k': case 'K': mult = (uint64_t)1 << 10; p++; break;
    case 'm': case 'M': mult = (uint64_t)1 << 20; p++; break;
    case 'g': case 'G': mult = (uint64_t)1 << 30; p++; break;
    default: break;
    }
    if (*p != '\0')
        return -1;
    if (big || v > BENCH_MAX_BYTES / mult)
        return -3;
    *out = (size_t)(v * mult);
    return 0;
}

// ----------------------------------------------------------------------------
// one option

typedef struct {
    const char *raw[OPT_COUNT]; // the value as given, NULL when defaulted
    const char *defaults[OPT_COUNT];
} OptSeen;

// The value to quote in a message: as given, else the default.
static const char *quoted(const OptSeen *seen, OptId id) {
    return seen->raw[id] ? seen->raw[id] : seen->defaults[id];
}

static BenchParse parse_int_opt(const OptSpec *s, const char *v, long lo, long hi,
                                const char *allowed, int *out) {
    int rc = parse_int(v, lo, hi, out);
    if (rc == -1)
        return opt_fail(s, v, allowed, "is not a whole number");
    if (rc == -2)
        return opt_fail(s, v, allowed, "is out of range");
    return BENCH_PARSE_OK;
}

static BenchParse parse_size_opt(const OptSpec *s, const char *v, size_t *out) {
    const char *allowed = "a byte count with an optional K, M or G suffix, 0..64G";
    int rc = parse_size(v, out);
    if (rc == -1)
        return opt_fail(s, v, allowed, "is not a size");
    if (rc == -2)
        return opt_fail(s, v, allowed, "is negative");
    if (rc == -3)
        return opt_fail(s, v, allowed, "is absurdly large");
    return BENCH_PARSE_OK;
}

static BenchParse apply_option(const OptSpec *s, const char *v, BenchOptions *o) {
    char names[256];
    switch (s->id) {
    case OPT_COLL:
        if (strcmp(v, "sendrecv") == 0) {
            o->coll = BENCH_SENDRECV;
        } else if (sim_coll_parse(v, &o->coll) != 0 || o->coll == SIM_COLL_SEND ||
                   o->coll == SIM_COLL_RECV) {
            return opt_fail(s, v,
                            "all_reduce, reduce_scatter, all_gather, broadcast, reduce, "
                            "gather, scatter, sendrecv, barrier",
                            "is not a collective");
        }
        return BENCH_PARSE_OK;
    case OPT_ALGO:
        if (sim_algo_parse(v, &o->algo) != 0)
            return opt_fail(s, v, "auto, ring, tree, dbtree, naive, direct", "is not an algorithm");
        return BENCH_PARSE_OK;
    case OPT_RANKS:
        return parse_int_opt(s, v, 1, BENCH_MAX_RANKS, "1..4096", &o->nranks);
    case OPT_NODES:
        return parse_int_opt(s, v, 1, BENCH_MAX_RANKS, "a divisor of --ranks", &o->nodes);
    case OPT_DTYPE:
        if (sim_dtype_parse(v, &o->dtype) != 0)
            return opt_fail(s, v, "fp32, fp16, bf16, int32, int64", "is not an element type");
        return BENCH_PARSE_OK;
    case OPT_OP:
        if (sim_redop_parse(v, &o->op) != 0)
            return opt_fail(s, v, "sum, avg, max, min, prod", "is not a reduction");
        return BENCH_PARSE_OK;
    case OPT_ROOT:
        return parse_int_opt(s, v, 0, BENCH_MAX_RANKS - 1, "0..R-1", &o->root);
    case OPT_MINBYTES:
        return parse_size_opt(s, v, &o->minbytes);
    case OPT_MAXBYTES:
        return parse_size_opt(s, v, &o->maxbytes);
    case OPT_STEP:
        if (parse_real(v, &o->stepfactor) != 0)
            return opt_fail(s, v, "a number > 1, e.g. 2", "is not a number");
        if (!(o->stepfactor > 1.0))
            return opt_fail(s, v, "a number > 1, e.g. 2", "is not greater than 1");
        return BENCH_PARSE_OK;
    case OPT_WARMUP:
        return parse_int_opt(s, v, 0, 100000, "0..100000", &o->warmup);
    case OPT_ITERS:
        return parse_int_opt(s, v, 1, 100000, "1..100000", &o->iters);
    case OPT_INPLACE:
        if (strcmp(v, "0") == 0)
            o->modes = BENCH_OUT_OF_PLACE;
        else if (strcmp(v, "1") == 0)
            o->modes = BENCH_IN_PLACE;
        else if (strcmp(v, "both") == 0)
            o->modes = BENCH_OUT_OF_PLACE | BENCH_IN_PLACE;
        else
            return opt_fail(s, v, "0, 1, both", "is not an in-place mode");
        return BENCH_PARSE_OK;
    case OPT_CHECK:
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
            return opt_fail(s, v, "0, 1", "is not 0 or 1");
        o->check = v[0] == '1';
        return BENCH_PARSE_OK;
    case OPT_BACKEND:
        if (!cli_backend_exists(v) && !cli_backend_missing_hint(v)) {
            cli_backend_names(names, sizeof names);
            return opt_fail(s, v, names, "is not a backend");
        }
        o->backend = v;
        return BENCH_PARSE_OK;
    case OPT_TF32:
        o->tf32 = 1;
        return BENCH_PARSE_OK;
    case OPT_COLL_IMPL:
        if (strcmp(v, "auto") != 0 && strcmp(v, "nccl") != 0 && strcmp(v, "device") != 0)
            return opt_fail(s, v, "auto, nccl, device", "is not a collective implementation");
        o->coll_impl = v;
        return BENCH_PARSE_OK;
    case OPT_PROFILE:
        o->profile = v;
        return BENCH_PARSE_OK;
    case OPT_GPU:
        o->gpu = v;
        return BENCH_PARSE_OK;
    case OPT_CALIBRATE:
        o->calibrate = v;
        return BENCH_PARSE_OK;
    case OPT_TRACE:
        o->trace = v;
        return BENCH_PARSE_OK;
    case OPT_PLOT:
        o->plot = v;
        return BENCH_PARSE_OK;
    case OPT_CSV:
        o->csv = 1;
        return BENCH_PARSE_OK;
    case OPT_WATCHDOG:
        if (parse_real(v, &o->watchdog_s) != 0)
            return opt_fail(s, v, "a number of seconds > 0", "is not a number");
        if (!(o->watchdog_s > 0) || o->watchdog_s > 86400)
            return opt_fail(s, v, "a number of seconds > 0, at most 86400", "is out of range");
        return BENCH_PARSE_OK;
    default:
        return BENCH_PARSE_OK;
    }
}

// ----------------------------------------------------------------------------
// the command line

static void set_defaults(BenchOptions *o, OptSeen *seen) {
    memset(o, 0, sizeof *o);
    memset(seen, 0, sizeof *seen);
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
    for (int i = 0; i < OPT_COUNT; i++)
        seen->defaults[i] = bench_opt_spec((OptId)i)->deflt ? bench_opt_spec((OptId)i)->deflt : "";
}

static int is_help(const char *a) {
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

// Splits argv[*i] into an option and its value (attached, after '=' or the
// next argument) and applies it.
static BenchParse parse_one(int argc, char **argv, int *i, BenchOptions *o, OptSeen *seen) {
    const char *a = argv[*i], *val = NULL;
    char vbuf[72];
    const OptSpec *s = NULL;
    if (a[0] == '-' && a[1] == '-' && a[2]) {
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        s = bench_opt_find_long(a + 2, len);
        if (s && eq)
            val = eq + 1;
    } else if (a[0] == '-' && a[1] && a[1] != '-') {
        s = bench_opt_find_short(a[1]);
        if (s && a[2])
            val = a + 2;
    }
    if (s == NULL) {
        fprintf(stderr, "ddplab bench: '%s' is not an option; allowed: see 'ddplab bench --help'\n",
                cli_opt_shown(a, vbuf, sizeof vbuf));
        return BENCH_PARSE_ERROR;
    }
    if (s->arg == NULL && val != NULL) {
        fprintf(stderr, "ddplab bench: --%s: takes no value (got '%s'); allowed: --%s alone\n",
                s->longname, cli_opt_shown(val, vbuf, sizeof vbuf), s->longname);
        return BENCH_PARSE_ERROR;
    }
    if (s->arg != NULL && val == NULL) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "ddplab bench: --%s: missing value; allowed: %s (see 'ddplab bench --help')\n",
                    s->longname, s->arg);
            return BENCH_PARSE_ERROR;
        }
        val = argv[++*i];
    }
    seen->raw[s->id] = val;
    return apply_option(s, val ? val : "", o);
}

static BenchParse check_output(const OptSpec *s, const char *path) {
    const char *what, *allowed;
    if (cli_opt_output_problem(path, &what, &allowed))
        return opt_fail(s, path, allowed, "%s", what);
    return BENCH_PARSE_OK;
}

static BenchParse check_sizes(const BenchOptions *o, const OptSeen *seen) {
    const OptSpec *minb = bench_opt_spec(OPT_MINBYTES), *step = bench_opt_spec(OPT_STEP);
    size_t esize = sim_dtype_size(o->dtype);
    char allowed[160];
    if (o->minbytes > o->maxbytes)
        return opt_fail(minb, quoted(seen, OPT_MINBYTES), "--minbytes <= --maxbytes",
                        "is larger than --maxbytes (%zu B)", o->maxbytes);
    if (o->coll != SIM_COLL_BARRIER && o->minbytes < esize) {
        snprintf(allowed, sizeof allowed, "%zu..64G bytes (0 only with -c barrier)", esize);
        return opt_fail(minb, quoted(seen, OPT_MINBYTES), allowed,
                        "rounds to zero %s elements", sim_dtype_name(o->dtype));
    }
    if (bench_sweep(o, NULL, 0) > BENCH_MAX_SIZES) {
        snprintf(allowed, sizeof allowed, "a factor giving at most %d sizes", BENCH_MAX_SIZES);
        return opt_fail(step, quoted(seen, OPT_STEP), allowed, "gives too many sizes");
    }
    return BENCH_PARSE_OK;
}

static BenchParse check_calibrate(BenchOptions *o) {
    const OptSpec *s = bench_opt_spec(OPT_CALIBRATE);
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
        return opt_fail(bench_opt_spec(OPT_RANKS), quoted(seen, OPT_RANKS),
                        "fewer ranks or a smaller --maxbytes",
                        "is too many for memory: the buffers at --maxbytes need %.1f GiB, more "
                        "than 3/4 of the %.1f GiB this machine has",
                        need / (1 << 30), have / (1 << 30));
    return BENCH_PARSE_OK;
}

static BenchParse check_together(BenchOptions *o, const OptSeen *seen) {
    char allowed[256];
    if (o->algo == SIM_ALGO_NCCL) // a choice per call: each row would time another schedule
        return opt_fail(bench_opt_spec(OPT_ALGO), quoted(seen, OPT_ALGO), "-a ring or -a dbtree",
                        "picks an algorithm per size (`ddplab run` and `plan` take it); bench "
                        "times one");
    if (!sim_coll_supports(o->coll, o->algo)) {
        int n = 0;
        for (int a = 0; a < SIM_ALGO_COUNT; a++)
            if (a != SIM_ALGO_NCCL && sim_coll_supports(o->coll, (SimAlgo)a))
                n += snprintf(allowed + n, sizeof allowed - (size_t)n, "%s%s", n ? ", " : "",
                              sim_algo_name((SimAlgo)a));
        return opt_fail(bench_opt_spec(OPT_ALGO), quoted(seen, OPT_ALGO), allowed, "is not supported by %s",
                        bench_coll_name(o->coll));
    }
    if (o->coll == BENCH_SENDRECV && o->nranks < 2)
        return opt_fail(bench_opt_spec(OPT_RANKS), quoted(seen, OPT_RANKS), "2..4096",
                        "is too few for sendrecv (a rank cannot send to itself)");
    if (o->nodes > o->nranks || o->nranks % o->nodes != 0) {
        snprintf(allowed, sizeof allowed, "a divisor of --ranks (%d)", o->nranks);
        return opt_fail(bench_opt_spec(OPT_NODES), quoted(seen, OPT_NODES), allowed,
                        "does not divide %d ranks into equal nodes", o->nranks);
    }
    if (sim_coll_has_root(o->coll) && o->root >= o->nranks) {
        snprintf(allowed, sizeof allowed, "0..%d", o->nranks - 1);
        return opt_fail(bench_opt_spec(OPT_ROOT), quoted(seen, OPT_ROOT), allowed, "is not a rank of %d",
                        o->nranks);
    }
    if (!bench_has_inplace(o->coll)) {
        if (o->modes == BENCH_IN_PLACE)
            return opt_fail(bench_opt_spec(OPT_INPLACE), quoted(seen, OPT_INPLACE), "0, both",
                            "is not possible: %s has no in-place form", bench_coll_name(o->coll));
        o->modes = BENCH_OUT_OF_PLACE;
    }
    if (check_sizes(o, seen) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if (o->calibrate && check_calibrate(o) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if (o->trace && check_output(bench_opt_spec(OPT_TRACE), o->trace) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if (o->plot && check_output(bench_opt_spec(OPT_PLOT), o->plot) != BENCH_PARSE_OK)
        return BENCH_PARSE_ERROR;
    if (o->plot && !viz_png_available())
        return opt_fail(bench_opt_spec(OPT_PLOT), o->plot, "a build with libpng (apt-get "
                        "install libpng-dev, then rebuild)", "cannot be written by this build");
    if (o->trace && o->calibrate && strcmp(o->trace, o->calibrate) == 0)
        return opt_fail(bench_opt_spec(OPT_TRACE), o->trace, "a file other than --calibrate's",
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
        return opt_fail(bench_opt_spec(OPT_PROFILE), o->profile,
                        "a built-in profile (see 'ddplab') or a file written by --calibrate",
                        "is not usable: %s", err);
    if (o->gpu && sim_device_resolve(o->gpu, &o->device, err, sizeof err) != SIM_OK)
        return opt_fail(bench_opt_spec(OPT_GPU), o->gpu,
                        "a built-in device (see 'ddplab') or a file written by --calibrate",
                        "is not usable: %s", err);
    return BENCH_PARSE_OK;
}

BenchParse bench_opts_parse(int argc, char **argv, BenchOptions *o) {
    OptSeen seen;
    set_defaults(o, &seen);
    for (int i = 1; i < argc; i++)
        if (is_help(argv[i]))
            return BENCH_PARSE_HELP;
    for (int i = 1; i < argc; i++)
        if (parse_one(argc, argv, &i, o, &seen) != BENCH_PARSE_OK)
            return BENCH_PARSE_ERROR;
    return check_together(o, &seen);
}
