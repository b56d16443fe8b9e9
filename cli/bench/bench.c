// cli/bench/bench.c: `ddplab bench`: options -> backend -> world -> sweep ->
// report -> trace and calibration files. Each step is in its own file (see
// bench.h); this one only decides the order and the exit code.
#include "bench/bench.h"

#include <string.h>

#include "core/backends.h" // defines: cli_backend_find, cli_backend_names
#include "core/cli.h"      // defines: CLI_EXIT_*

// Which backend runs the bench; NULL (after printing why) when the named one
// is not in this build, or its plugin cannot be loaded.
static const SimBackendOps *pick_backend(const BenchOptions *o) {
    const SimBackendOps *ops = cli_backend_find(o->backend);
    if (ops == NULL && cli_backend_load_error(o->backend)) {
        fprintf(stderr, "ddplab bench: --backend %s: %s\n", o->backend,
                cli_backend_load_error(o->backend));
    } else if (ops == NULL) {
        char names[256];
        cli_backend_names(names, sizeof names);
        fprintf(stderr, "ddplab bench: --backend: '%s' is not available: %s; available backends: %s\n",
                o->backend, cli_backend_missing_hint(o->backend) ? cli_backend_missing_hint(o->backend)
                                                                 : "not in this build",
                names);
    }
    return ops;
}

static void world_config(SimWorldConfig *cfg, const BenchOptions *o) {
    sim_world_config_default(cfg);
    cfg->nranks = o->nranks;
    cfg->nodes = o->nodes;
    cfg->watchdog_s = o->watchdog_s;
    cfg->profile = o->sys;
    cfg->trace = o->trace != NULL; // tracing costs memory and time: only when asked
    cfg->trace_max_per_rank = BENCH_TRACE_CAP;
    cfg->backend_opt.allow_tf32 = o->tf32;
    cfg->backend_opt.coll_impl = o->coll_impl;
    cfg->algo = o->algo; // NCCL_ALGO on GPUs (each call names its algorithm too)
}

static int exit_for_failure(SimStatus st) {
    switch (st) {
    case SIM_EPROTO:
    case SIM_ETIMEDOUT:
    case SIM_EABORTED:
        return CLI_EXIT_DIST;
    default:
        return CLI_EXIT_INTERNAL;
    }
}

// 1 if path ends in ".jsonl".
static int is_jsonl(const char *path) {
    size_t n = strlen(path);
    return n >= 6 && strcmp(path + n - 6, ".jsonl") == 0;
}

// 1 if path ends in ".ddptrace" (the binary trace).
static int is_ddptrace(const char *path) {
    size_t n = strlen(path);
    return n >= 9 && strcmp(path + n - 9, ".ddptrace") == 0;
}

// Writes the trace file (atomically, as Chrome trace JSON, JSON lines or the
// binary .ddptrace by the file name) and says so.
static int write_trace(FILE *notes, const BenchOptions *o, const SimWorld *w) {
    int jsonl = is_jsonl(o->trace), bin = is_ddptrace(o->trace);
    SimStatus st = sim_trace_write_auto(w->trace, o->trace); // format by the name
    if (st != SIM_OK) {
        fprintf(stderr, "ddplab bench: --trace: cannot write '%s': %s\n", o->trace, sim_strerror(st));
        return CLI_EXIT_INTERNAL;
    }
    size_t events = 0;
    for (int r = 0; r < sim_trace_nranks(w->trace); r++)
        events += sim_trace_rank_count(w->trace, r);
    fprintf(notes, "# trace: %s (%zu events%s", o->trace, events,
            jsonl || bin ? "" : " in simulated time");
    if (sim_trace_dropped(w->trace) > 0)
        fprintf(notes, "; %zu more dropped beyond %d per rank", sim_trace_dropped(w->trace),
                BENCH_TRACE_CAP);
    if (bin)
        fprintf(notes, "; binary, for ddplab replay)\n");
    else if (jsonl)
        fprintf(notes, "; JSON lines, one event per line)\n");
    else
        fprintf(notes, "); open it in https://ui.perfetto.dev or chrome://tracing\n");
    return CLI_EXIT_OK;
}

// What `ddplab replay` shows in its header for this benchmark's trace.
static void trace_info(const BenchOptions *o, SimWorld *w) {
    if (w->trace == NULL)
        return;
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    snprintf(info.title, sizeof info.title, "bench %s (%s)  R=%d (%d node%s x %d)",
             bench_coll_name(o->coll), sim_algo_name(bench_algo_resolved(o)), o->nranks,
             o->nodes, o->nodes == 1 ? "" : "s", o->nranks / o->nodes);
    snprintf(info.strategy, sizeof info.strategy, "bench");
    snprintf(info.profile, sizeof info.profile, "%s", o->sys.name);
    info.nodes = o->nodes;
    sim_trace_set_info(w->trace, &info);
}

// Runs the sweep on an initialised world and reports it. Returns an exit code.
static int run_and_report(const BenchOptions *o, BenchRun *run, SimWorld *w) {
    FILE *notes = o->csv ? stderr : stdout; // keep stdout pure CSV with --csv
    SimStatus st = bench_run(run, w);
    int rc = CLI_EXIT_OK;
    if (st != SIM_OK) {
        fprintf(stderr, "ddplab bench: %s failed: %s\n", bench_coll_name(o->coll),
                sim_world_error(w));
        rc = exit_for_failure(st);
    } else if (bench_report_rows(stdout, run) > 0) {
        rc = CLI_EXIT_CHECK;
        if (o->calibrate)
            fprintf(stderr, "ddplab bench: --calibrate: not calibrating: the results were wrong\n");
    } else if (o->calibrate) {
        rc = bench_calibrate(notes, run, w);
    }
    if (rc == CLI_EXIT_OK && o->plot) {
        char err[512];
        if (bench_plot(run, o->plot, err, sizeof err) != 0) {
            fprintf(stderr, "ddplab bench: --plot: %s\n", err);
            rc = CLI_EXIT_INTERNAL;
        } else {
            fprintf(notes, "# plot: %s (bus bandwidth against size)\n", o->plot);
        }
    }
    if (o->trace) {
        int trc = write_trace(notes, o, w); // a failed run's trace shows where it stopped
        if (rc == CLI_EXIT_OK)
            rc = trc;
    }
    return rc;
}

int bench_main(int argc, char **argv) {
    BenchOptions o;
    switch (bench_opts_parse(argc, argv, &o)) {
    case BENCH_PARSE_HELP:
        bench_help(stdout);
        return CLI_EXIT_OK;
    case BENCH_PARSE_ERROR:
        return CLI_EXIT_USAGE;
    default:
        break;
    }
    const SimBackendOps *ops = pick_backend(&o);
    if (ops == NULL)
        return CLI_EXIT_INTERNAL;

    BenchRun run;
    if (bench_run_init(&run, &o) != SIM_OK) {
        fprintf(stderr, "ddplab bench: out of memory for the results table\n");
        return CLI_EXIT_INTERNAL;
    }
    SimWorldConfig cfg;
    world_config(&cfg, &o);
    SimWorld w;
    int rc;
    if (sim_world_init(&w, &cfg, ops) != SIM_OK) {
        char names[256];
        cli_backend_names(names, sizeof names);
        fprintf(stderr, "ddplab bench: --backend: '%s' cannot start: %s; available backends: %s\n",
                o.backend, sim_world_error(&w), names);
        rc = CLI_EXIT_INTERNAL;
    } else {
        trace_info(&o, &w);
        if (!o.csv)
            bench_report_header(stdout, &o, ops->description);
        fflush(stdout); // the header shows while the sweep runs
        rc = run_and_report(&o, &run, &w);
    }
    sim_world_free(&w);
    bench_run_free(&run);
    return rc;
}
