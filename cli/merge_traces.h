// cli/merge_traces.h: `ddplab merge-traces OUT IN...`: the traces of a
// world's processes (`ddplab run --rendezvous` writes one per process,
// TRACE.rankR, holding that rank's events) made into the one trace that
// `ddplab replay` opens. `ddplab run` calls merge_traces_files itself on
// rank 0 when every process's file is reachable from there; the command is
// for files gathered by hand from several machines.
#ifndef DDPLAB_CLI_MERGE_TRACES_H
#define DDPLAB_CLI_MERGE_TRACES_H

#include <stddef.h>

#include "status.h" // defines: SimStatus

typedef struct {
    size_t events;  // events written
    size_t dropped; // events the inputs say their runs dropped beyond their limits
    int nranks;     // ranks of the merged trace
    int missing;    // ranks of those with no events in any input
    char missing_list[128]; // "2, 5": the first of them
    int listed;     // ranks in missing_list
    int write_failed; // 1: the inputs were good, writing out failed
} MergeTracesResult;

// Reads in[0 .. n) (.ddptrace or JSON lines files, each holding the events
// of some ranks of one run), merges their events into time order as one
// trace of the largest rank count among them, with the first input's info
// (title, hardware), and writes it to out in the format its name says
// (.ddptrace binary, .jsonl JSON lines, else Chrome trace JSON), atomically.
// Refused (SIM_EINVAL or SIM_EIO from the loader, err naming the files):
// an input that cannot be read or is not a trace, one rank's events in two
// inputs, inputs of runs with different titles, out being an input. A
// write that fails: SIM_EIO with err. res may be NULL.
SimStatus merge_traces_files(const char *out, const char *const *in, int n,
                             MergeTracesResult *res, char *err, size_t errlen);

#endif
