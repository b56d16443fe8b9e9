// cli/run/run_proc.h: `ddplab run --rendezvous SPEC`: this process runs one rank
// of a world of processes that a launcher started (torchrun, mpirun, srun),
// on the cuda backend (backend_cuda/cuda_proc.c). What the command line
// adds to the run:
//   - the spec checked and the launcher's identity read up front (bad input
//     exits 2 before anything starts); -n must be the launcher's world size;
//   - only rank 0 writes --metrics and --diagnosis; every rank prints its
//     errors; the memory table is left out (each process knows its own
//     rank's ledger only: the trace has them all);
//   - with --trace TRACE, each process writes its rank's events to
//     TRACE.rankR (binary .ddptrace, whatever TRACE's own format), and after
//     a barrier of the ranks (a run that succeeded), rank 0 merges the files
//     into TRACE when it can read all of them (a filesystem they share);
//     otherwise it says how to merge them by hand (ddplab merge-traces).
//     Rank 0 removes stale TRACE.rankR files before the world starts.
#ifndef DDPLAB_CLI_RUN_PROC_H
#define DDPLAB_CLI_RUN_PROC_H

#include "core/optable.h" // defines: CliOptApply
#include "engine/world.h" // defines: SimWorld
#include "run/run.h"      // defines: RunOptions, RunParse

// --rendezvous SPEC alone (its grammar): the row's apply (CliOptApply).
int run_proc_parse(const CliOptCtx *cx, const CliOptRow *row, const CliOptValue *v, void *dest);
// The file a SPEC names (file:PATH: PATH, which every process reads and
// writes), or NULL: the row's file_in (CliOptFile).
const char *run_proc_file(const char *spec);
// With the other options: the backend, the launcher's variables, -n, the
// views; sets o->proc_rank and quiets the outputs of ranks other than 0.
// RUN_PARSE_OK at once without --rendezvous.
RunParse run_proc_check(RunOptions *o);
// Before the world starts: rank 0 removes TRACE.rank0 .. TRACE.rank{R-1}
// left by an earlier run.
void run_proc_prepare(const RunOptions *o);
// After the run (exit code rc so far): this rank's trace file, the barrier
// and rank 0's merge. Returns an exit code (CLI_EXIT_OK when all went well).
int run_proc_trace(const RunOptions *o, SimWorld *w, int rc);

#endif
