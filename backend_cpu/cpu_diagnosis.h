// backend_cpu/cpu_diagnosis.h: the watchdog's and the protocol check's
// diagnosis, written from plain copies of the ranks' flight recorders
// (cpu_internal.h), so that every rule can be tested on hand-made states
// without threads.
//
// A watchdog diagnosis reads, in this order (each part one line; lines
// broken here):
//   watchdog: rank 0 waited 0.5 s (limit 0.5 s) in AllReduce #30 (5508 x fp32); ...
//     ranks 0,1,2: #23 AllReduce 5508 x fp32 done, ..., #30 AllReduce 5508 x fp32
//                  waiting in rendezvous; waiting (algo direct)
//     rank 3: #22 AllReduce 5508 x fp32 done, ..., #29 AllReduce 1 x fp32 done;
//             rank function returned
//   diverge at #30: ranks 0,1,2 called AllReduce 5508 x fp32, rank 3 never
//                   called #30 (last entered #29)
//   ranks 0,1,2 wait in AllReduce #30 (5508 x fp32); rank 3 never arrived
//                   (last completed #29)
//   probable cause: rank 3 left the training loop early (...) while the
//                   others waited for it in AllReduce #30
// (ranks with the same line are folded). A protocol mismatch keeps its one
// line of NCCL's argcheck phrasing and gains the "diverge at" and
// "probable cause" lines.
#ifndef DDPLAB_CPU_DIAGNOSIS_H
#define DDPLAB_CPU_DIAGNOSIS_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h" // defines: CpuFrState, CPU_FR_HISTORY, CpuRank

// One entry of a rank's history, as read.
typedef struct {
    uint64_t seq, count;
    SimCollKind kind;
    SimDtype dtype;
    SimAlgo algo;
    SimRedOp op;
    int root;
    int done;               // 1: completed on this rank; 0: entered only
} CpuHistEntry;

// One rank's recorder, as read: the live fields, then its history.
typedef struct {
    CpuFrState state;
    SimCollKind kind;       // the collective it is in or last was in
    SimAlgo algo;
    SimDtype dtype;
    int step, nsteps, peer;
    int exited;             // CPU_EXITED_*
    uint64_t seq, count;
    int64_t last_done;      // -1: none completed
    int nhist;              // entries in hist, oldest first
    CpuHistEntry hist[CPU_FR_HISTORY];
} CpuFrView;

// A copy of rank r's recorder (cpu_history.c); entries rewritten while
// being read are left out.
void cpu_fr_read(const CpuRank *r, CpuFrView *v);

// The whole watchdog diagnosis of rank me, which waited waited_s seconds
// (limit limit_s), into out[cap] (always NUL-terminated; at most cap - 1
// bytes, however many ranks: long parts are folded and cut).
void cpu_diag_watchdog(const CpuFrView *v, int nranks, int me, double waited_s, double limit_s,
                       char *out, size_t cap);
// Appends "\ndiverge at ...\nprobable cause: ..." to the protocol check's
// message in out (a NUL-terminated string in out[cap]); every rank is in
// the same rendezvous, and its newest history entry is what it called.
void cpu_diag_protocol(const CpuFrView *v, int nranks, char *out, size_t cap);

// The parts, for the tests.
// "diverge at #N: ..." (no newline) for the first sequence number where the
// histories disagree or one rank is missing; 0 and "" if they agree.
int cpu_diag_diverge(const CpuFrView *v, int nranks, char *out, size_t cap);
// "probable cause: ..." (no newline). me >= 0: the watchdog of rank me
// (the others compared with the call it waits in); me < 0: the protocol
// check (the ranks that differ from the largest group of equal calls).
void cpu_diag_cause(const CpuFrView *v, int nranks, int me, char *out, size_t cap);

#endif
