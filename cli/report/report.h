// cli/report/report.h: `ddplab report TRACE [--png FILE] [--json]`: the per-rank
// summary of a recorded run (sim/trace/trace_report.h) as tables, JSON or a
// stacked bar chart.
#ifndef DDPLAB_CLI_REPORT_H
#define DDPLAB_CLI_REPORT_H

#include <stdio.h>

#include "base/status.h"        // defines: SimStatus
#include "trace/trace_report.h" // defines: SimTraceReport
#include "vtrace.h"             // defines: VizTrace

typedef struct {
    const char *path; // the trace
    const char *png;  // --png FILE, or NULL
    int json;         // --json: JSON on stdout instead of the tables
    int steps;        // --steps: every step of every rank, not only the spread
    int clock;        // --clock: REPORT_CLOCK_*
    int from_step;    // --from-step K: each rank's steps from K on (1: all)
} ReportOptions;

enum {
    REPORT_CLOCK_SIM = 0, // the simulated times (default)
    REPORT_CLOCK_WALL,    // the measured times
    REPORT_CLOCK_BOTH,    // the simulated report, then both side by side
};

// `ddplab report ...`: argv[0] is "report". Returns an exit code.
int report_main(int argc, char **argv);
void report_help(FILE *out);

// Parses argv into *o: 0, -1 for --help, or an exit code after a message.
int report_opts_parse(int argc, char **argv, ReportOptions *o);

// Calls fn(arg, opt, file) for each file the command line argv names, as
// report_opts_parse reads it, without checking anything else: opt is "png"
// for --png's file and NULL for the trace. Stops at the first fn that
// returns non-zero and returns that; 0 when every call returned 0. This is
// how the lesson player keeps a lesson's files in its scratch directory.
int report_opts_files(int argc, char **argv,
                      int (*fn)(void *arg, const char *opt, const char *file), void *arg);

// Loads a .ddptrace, JSON lines, or a Chrome trace JSON written by
// `ddplab run --trace FILE.json` (report_chrome.c). Same contract as
// viz_trace_load: on failure *t is empty and err says why.
SimStatus report_load(const char *path, VizTrace *t, char *err, size_t errlen);
// Chrome trace JSON only (its "X" events; counters and metadata skipped).
SimStatus report_load_chrome(const char *path, VizTrace *t, char *err, size_t errlen);

// The tables (report_text.c) and the JSON document (report_json.c).
void report_print_text(FILE *out, const VizTrace *t, const SimTraceReport *r);
// The "shares:" lines (report_shares.c): each rank's compute, data wait,
// exposed comm and idle (and host) in whole percent of its total, a line
// per group of ranks alike, in 80 columns.
void report_print_shares(FILE *out, const SimTraceReport *r);
// The spread of each rank's step times (fastest, median, slowest step), and
// with all set every step's parts (report_steps.c).
void report_print_steps(FILE *out, const SimTraceReport *r, int all);
// measured: the same trace on the measured clock, ops: each kind of op's
// times (--clock both), or NULL.
void report_print_json(FILE *out, const VizTrace *t, const SimTraceReport *r,
                       const SimTraceReport *measured, const SimReportOps *ops);
// --clock both: per rank, the simulated and measured step time, compute,
// communication and overlap side by side (report_clocks.c).
void report_print_clocks(FILE *out, const SimTraceReport *sim, const SimTraceReport *wall);
// --clock both: each kind of op's time on both clocks, the `top` with the
// most measured time (0: all).
void report_print_ops(FILE *out, const SimReportOps *ops, int top);
// A stacked horizontal bar per rank: compute, exposed comm, data wait,
// idle (report_png.c), as .png, .svg or .pdf. SIM_ENOTSUP without the chart
// plugin, SIM_EINVAL, SIM_EIO, SIM_ENOMEM.
SimStatus report_png(const char *path, const VizTrace *t, const SimTraceReport *r, char *err,
                     size_t errlen);

#endif
