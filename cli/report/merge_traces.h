// cli/report/merge_traces.h: `ddplab merge-traces OUT IN...`: the traces of a
// world's processes (`ddplab run --rendezvous` writes one per process,
// TRACE.rankR, holding that rank's events) made into the one trace that
// `ddplab replay` opens. `ddplab run` calls merge_traces_files itself on
// rank 0 when every process's file is reachable from there; the command is
// for files gathered by hand from several machines.
#ifndef DDPLAB_CLI_MERGE_TRACES_H
#define DDPLAB_CLI_MERGE_TRACES_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus

typedef struct {
    size_t events;  // events written
    size_t dropped; // events the inputs say their runs dropped beyond their limits
    int nranks;     // ranks of the merged trace
    int missing;    // ranks of those with no events in any input
    char missing_list[128]; // "2, 5": the first of them
    int listed;     // ranks in missing_list
    int write_failed; // 1: the inputs were good, writing out failed
    int aligned;      // 1: the inputs' wall clocks were aligned (see below)
    uint64_t align_seq; // the collective they were aligned on (its sequence number)
    double align_max_s; // the largest shift applied to an input's wall times
    char align_note[160]; // why the clocks were left as they were ("" when aligned
                          // or not asked)
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

// The same, and with align_wall set the measured (wall) times of the inputs,
// each from its own process's clock, are put on one clock first. Every
// process leaves a symmetric collective (all_reduce, all_gather,
// reduce_scatter, barrier) at nearly the same instant, so the inputs are
// shifted to make the end of the first such collective (the same sequence
// number in every input, on each input's lowest rank) coincide; the shifts
// are made non-negative. Simulated times are never touched. When an input
// has no such collective the clocks are left alone and res->align_note
// says why.
SimStatus merge_traces_files_ex(const char *out, const char *const *in, int n, int align_wall,
                                MergeTracesResult *res, char *err, size_t errlen);

// One line on what the merge did to the wall clocks ("" when not asked).
void merge_traces_say_alignment(FILE *out, const MergeTracesResult *res);

// `ddplab merge-traces OUT IN...`: argv[0] is "merge-traces" (merge_traces.c).
int merge_traces_main(int argc, char **argv);
void merge_traces_help(FILE *out);

#endif
