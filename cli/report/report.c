// cli/report/report.c: `ddplab report TRACE`: options, loading, and the dispatch
// to the tables, the JSON document and the chart.
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h" // defines: CLI_EXIT_*
#include "chart.h"    // defines: viz_chart_format_ok, viz_chart_available

void report_help(FILE *out) {
    fputs("usage: ddplab report TRACE [--clock sim|wall|both] [--from-step K] [--json]\n"
          "                     [--steps] [--png FILE.png]\n"
          "\n"
          "A per-rank summary of a recorded run, like a profiler's: where each\n"
          "rank's step time went (compute, data wait, exposed communication,\n"
          "idle), how much communication hid under compute (overlap %), the\n"
          "slowest rank and why, bytes moved per collective kind, and peak\n"
          "device memory per category.\n"
          "\n"
          "TRACE is a file written by `ddplab run --trace FILE`: FILE.ddptrace\n"
          "(binary), FILE.jsonl (JSON lines) or FILE.json (Chrome trace).\n"
          "\n"
          "How the time is counted, per rank: a step runs from one \"iteration\"\n"
          "begin marker of the training loop to the next on that rank, the last\n"
          "to the end of the rank's last event; set-up before the first step is\n"
          "left out. compute = the compute stream's ops (but \"data.wait\" and\n"
          "\"ps.wait\"); data wait = \"data.wait\" not under compute; comm busy =\n"
          "the time a collective runs, on any stream; overlapped = comm busy\n"
          "under compute; exposed comm = comm busy under neither compute nor a\n"
          "data wait; idle = the rest (\"ps.wait\", async-ps's staleness bound,\n"
          "counts as idle). So compute + data wait + exposed comm + idle = the\n"
          "step time on every rank; the report checks it. Bytes and memory are\n"
          "over the whole trace, set-up included.\n"
          "\n"
          "The clock. Every event carries two times: the simulated one (the cost\n"
          "model's, on the run's --profile hardware) and the measured one (the\n"
          "host's clock around each op on the cpu backend; on the cuda backend\n"
          "the GPU's own, from CUDA events around each op's kernels and each NCCL\n"
          "call). --clock picks which the figures are counted on; \"both\" adds a\n"
          "table that sets them side by side, so you see whether the overlap the\n"
          "model predicts happened on the hardware, and one of each kind of op's\n"
          "time on both clocks (where the two part, the hardware profile is off).\n"
          "\n"
          "options:\n"
          "      --clock CLOCK   sim: the simulated times; wall: the measured\n"
          "                      times; both: the simulated report, then per rank\n"
          "                      step time, compute, communication and overlap on\n"
          "                      both clocks [sim]\n"
          "      --from-step K   count each rank's steps from its K-th on: the steps\n"
          "                      before are left out as the set-up is (warm-up\n"
          "                      steps, whose measured times hold one-time costs\n"
          "                      such as cuBLAS and NCCL set-up) [1]\n"
          "      --json          print the summary as one JSON document instead\n"
          "                      of the tables [off]\n"
          "      --steps         every step of every rank: its time and its four\n"
          "                      parts (the tables always give the spread: the\n"
          "                      fastest, median and slowest step) [off]\n"
          "      --png FILE.png  also draw a stacked bar per rank (compute,\n"
          "                      exposed comm, data wait, idle); .png, .svg or\n"
          "                      .pdf by the name [none]\n"
          "  -h, --help          print this help\n"
          "\n"
          "examples:\n"
          "  ddplab run --strategy ddp -n 4 --data blobs --steps 5 --trace t.ddptrace\n"
          "  ddplab report t.ddptrace\n"
          "  ddplab report t.ddptrace --json --png time.png\n"
          "  ddplab report t.ddptrace --clock both --from-step 3\n"
          "\n"
          "exit codes:\n",
          out);
    cli_print_exit_codes(out);
}

int report_opts_parse(int argc, char **argv, ReportOptions *o) {
    const char *prog = "ddplab report";
    memset(o, 0, sizeof *o);
    o->from_step = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return -1;
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "--steps") == 0) {
            o->steps = 1;
            continue;
        }
        if (strcmp(a, "--clock") == 0 || strncmp(a, "--clock=", 8) == 0) {
            const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
            static const char *const names[] = {"sim", "wall", "both"};
            o->clock = -1;
            for (int k = 0; k < 3 && v != NULL; k++)
                if (strcmp(v, names[k]) == 0)
                    o->clock = k;
            if (o->clock < 0) {
                fprintf(stderr, "%s: --clock: '%s' is not a clock (allowed: sim, wall, "
                        "both)\n", prog, v ? v : "");
                return CLI_EXIT_USAGE;
            }
            continue;
        }
        if (strcmp(a, "--from-step") == 0 || strncmp(a, "--from-step=", 12) == 0) {
            const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            long k = v ? strtol(v, &end, 10) : 0;
            if (v == NULL || end == v || *end != '\0' || k < 1 || k > 1000000000) {
                fprintf(stderr, "%s: --from-step: '%s' is not a step number (allowed: 1, 2, "
                        "...)\n", prog, v ? v : "");
                return CLI_EXIT_USAGE;
            }
            o->from_step = (int)k;
            continue;
        }
        if (strcmp(a, "--png") == 0 || strncmp(a, "--png=", 6) == 0) {
            const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (v == NULL || v[0] == '\0') {
                fprintf(stderr, "%s: --png needs a file name (--png FILE.png)\n", prog);
                return CLI_EXIT_USAGE;
            }
            o->png = v;
            continue;
        }
        if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s: unknown option '%s' (allowed: --clock CLOCK, --from-step K, "
                    "--json, --steps, --png FILE, --help)\n",
                    prog, a);
            return CLI_EXIT_USAGE;
        }
        if (o->path != NULL) {
            fprintf(stderr, "%s: one trace at a time ('%s' and '%s')\n", prog, o->path, a);
            return CLI_EXIT_USAGE;
        }
        o->path = a;
    }
    if (o->path == NULL) {
        fprintf(stderr, "%s: which trace? (ddplab report TRACE; record one with "
                "ddplab run --trace FILE.ddptrace)\n", prog);
        return CLI_EXIT_USAGE;
    }
    char why[256];
    if (o->png != NULL && !viz_chart_format_ok(o->png)) {
        fprintf(stderr, "%s: --png %s: unknown chart format: the file name must end in "
                VIZ_CHART_FORMATS "\n", prog, o->png);
        return CLI_EXIT_USAGE;
    }
    if (o->png != NULL && !viz_chart_available(why, sizeof why)) {
        fprintf(stderr, "%s: --png: %s (or leave out --png)\n", prog, why);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

int report_opts_files(int argc, char **argv,
                      int (*fn)(void *arg, const char *opt, const char *file), void *arg) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (strcmp(a, "--clock") == 0 || strcmp(a, "--from-step") == 0)
            i++; // their values name no file
        else if (strcmp(a, "--png") == 0 && i + 1 < argc)
            rc = fn(arg, "png", argv[++i]);
        else if (strncmp(a, "--png=", 6) == 0)
            rc = fn(arg, "png", a + 6);
        else if (a[0] != '-' || a[1] == '\0')
            rc = fn(arg, NULL, a);
        if (rc != 0)
            return rc;
    }
    return 0;
}

// A Chrome trace JSON starts with '{' and its first key is "traceEvents".
static int looks_chrome(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    char buf[64];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = buf + strspn(buf, " \t\r\n");
    if (*p != '{')
        return 0;
    p++;
    p += strspn(p, " \t\r\n");
    return strncmp(p, "\"traceEvents\"", 13) == 0;
}

SimStatus report_load(const char *path, VizTrace *t, char *err, size_t errlen) {
    if (looks_chrome(path))
        return report_load_chrome(path, t, err, errlen);
    return viz_trace_load(path, t, err, errlen);
}

int report_main(int argc, char **argv) {
    const char *prog = "ddplab report";
    ReportOptions o;
    int prc = report_opts_parse(argc, argv, &o);
    if (prc < 0) {
        report_help(stdout);
        return CLI_EXIT_OK;
    }
    if (prc != 0)
        return prc;
    VizTrace t;
    char err[512];
    SimStatus st = report_load(o.path, &t, err, sizeof err);
    if (st != SIM_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        viz_trace_free(&t);
        return st == SIM_ENOMEM ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
    }
    SimTraceReport r, m;
    memset(&m, 0, sizeof m);
    st = sim_trace_report_from(t.ev, t.n, t.nranks,
                               o.clock == REPORT_CLOCK_WALL ? SIM_REPORT_CLOCK_WALL
                                                            : SIM_REPORT_CLOCK_SIM,
                               o.from_step, &r, err, sizeof err);
    if (st == SIM_OK && o.clock == REPORT_CLOCK_BOTH) {
        st = sim_trace_report_from(t.ev, t.n, t.nranks, SIM_REPORT_CLOCK_WALL, o.from_step, &m,
                                   err, sizeof err);
        if (st != SIM_OK)
            sim_trace_report_free(&r);
    }
    if (st != SIM_OK) {
        if (st == SIM_ENOMEM)
            fprintf(stderr, "%s: out of memory summarising %s\n", prog, o.path);
        else
            fprintf(stderr, "%s: %s: %s\n", prog, o.path, err);
        viz_trace_free(&t);
        return st == SIM_ENOMEM ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
    }
    const SimTraceReport *measured = o.clock == REPORT_CLOCK_BOTH ? &m : NULL;
    SimReportOps ops;
    memset(&ops, 0, sizeof ops);
    int rc = CLI_EXIT_OK;
    if (measured != NULL && sim_trace_report_ops(t.ev, t.n, &ops) != SIM_OK) {
        fprintf(stderr, "%s: out of memory summarising %s\n", prog, o.path);
        rc = CLI_EXIT_INTERNAL;
    }
    if (rc == CLI_EXIT_OK && o.png != NULL) {
        st = report_png(o.png, &t, &r, err, sizeof err);
        if (st != SIM_OK) {
            fprintf(stderr, "%s: %s\n", prog, err);
            rc = st == SIM_ENOMEM ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
        }
    }
    if (rc == CLI_EXIT_OK) {
        if (o.json)
            report_print_json(stdout, &t, &r, measured, measured ? &ops : NULL);
        else {
            report_print_text(stdout, &t, &r);
            report_print_steps(stdout, &r, o.steps);
            if (measured != NULL) {
                report_print_clocks(stdout, &r, measured);
                report_print_ops(stdout, &ops, 12);
            }
        }
        if (o.png != NULL && !o.json)
            printf("chart: %s\n", o.png);
    }
    sim_trace_report_free(&r);
    sim_trace_report_free(&m);
    sim_trace_report_ops_free(&ops);
    viz_trace_free(&t);
    return rc;
}
