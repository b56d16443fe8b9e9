// cli/run/run_metrics.h: the --metrics file as a log. Each finished step's
// JSON line (and each evaluation's) is appended to the file itself and
// flushed at once, so that however the run ends (bad input found late, a
// hang, Ctrl-C, kill -9, a crash) the file holds a whole line for every step
// that finished, and no temporary is ever left beside it.
//
// The file is opened when the first line is written, never before: a run
// refused as bad input, or one that fails before its first step ends,
// leaves an existing file as it was. At that first line the file keeps its
// lines of the steps before the run's first step and loses the rest:
//   - a fresh run (first step 1) starts the file afresh, as a replace did;
//   - a run resumed from step k (--resume, an elastic round) keeps the
//     lines of steps 1 to k, drops those of steps after k that an
//     interrupted run wrote after its checkpoint, and appends from k + 1:
//     run, killed and resumed into one file, it reads as one run that was
//     never interrupted.
// A line that is not a whole metrics line (torn by a power cut, or from
// another program) ends what is kept. A destination that is not a regular
// file (/dev/stdout, a pipe) is written in place and never cut.
#ifndef DDPLAB_CLI_RUN_METRICS_H
#define DDPLAB_CLI_RUN_METRICS_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    const char *path;  // NULL: no --metrics
    FILE *f;           // open from the first line on
    int64_t first;     // the first step the file holds (kept or written); 0: none
    int64_t last;      // the last step written; 0: none
    int failed;        // opening or writing failed (reported by run_metrics_close)
} RunMetrics;

// No file is touched here. Returns 0, or -1 when path can be neither
// written nor created (its directory is not writable): bad output, before
// anything runs.
int run_metrics_init(RunMetrics *m, const char *path);
// The file for the line of `step`, opened at the first call (see above), or
// NULL without --metrics or when it cannot be opened.
FILE *run_metrics_file(RunMetrics *m, int64_t step);
// After a line of `step` (0: an evaluation's) was written: flushed to the
// file at once.
void run_metrics_flush(RunMetrics *m, int64_t step);
// Flushes, fsyncs and closes. Returns 0, or -1 when a write failed (disk
// full); safe when nothing was opened.
int run_metrics_close(RunMetrics *m);

#endif
