// backend_cpu/cpu_diag_internal.h: what the diagnosis files share
// (cpu_diag_text.c: words; cpu_diag_rules.c: divergence and probable cause;
// cpu_diagnosis.c: the whole text). Private to them.
#ifndef DDPLAB_CPU_DIAG_INTERNAL_H
#define DDPLAB_CPU_DIAG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_diagnosis.h"

// Rank lists name at most this many runs ("0-7" or "9" is a run), then
// ",... (N ranks)", so that no line grows with the world.
#define CPU_DIAG_RUNS_MAX 32
// Groups of ranks that one line tells apart, then "N more ranks ...".
#define CPU_DIAG_GROUPS_MAX 4

// A bounded text: appends never pass cap - 1 bytes, and buf stays a string.
typedef struct {
    char *buf;
    size_t len, cap;
} CpuText;

CpuText cpu_text_on(char *buf, size_t cap); // empties buf (cap > 0)
void cpu_text_add(CpuText *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Appends "rank 3", "ranks 0,1,2" or "ranks 0-200,202" (runs of four or
// more as a range; ranks in increasing order).
void cpu_text_ranks(CpuText *t, const int *rk, int n);

int cpu_diag_is_p2p(SimCollKind k);
// 1 when the rank is inside a collective (or send/recv) and has not exited.
int cpu_diag_in_coll(const CpuFrView *v);
// The sequence number of the newest collective it entered; -1: none.
int64_t cpu_diag_newest(const CpuFrView *v);
// "AllReduce #5 (1024 x fp32)", "Recv #3 from rank 0 (10 x fp32)", "Barrier #2"
// from the live fields; the short form without the size: "AllReduce #5".
void cpu_diag_call_name(const CpuFrView *v, char *out, size_t n);
void cpu_diag_call_short(const CpuFrView *v, char *out, size_t n);
// What the rank does in its collective: "waiting in rendezvous",
// "waiting in step 2 of 6 for rank 3", ...
void cpu_diag_state_text(const CpuFrView *v, char *out, size_t n);

// How two history entries differ (bits; 0: the same call).
enum {
    CPU_DIFF_SEQ = 1,
    CPU_DIFF_KIND = 2,
    CPU_DIFF_SHAPE = 4, // count or dtype
    CPU_DIFF_OP = 8,
    CPU_DIFF_ROOT = 16,
    CPU_DIFF_ALGO = 32,
};
int cpu_diag_entry_diff(const CpuHistEntry *a, const CpuHistEntry *b);
// "AllReduce 512 x fp32", "Barrier"; with " op max", " root 2", " algo ring"
// for the bits of extra that apply to its kind.
void cpu_diag_entry_desc(const CpuHistEntry *e, int extra, char *out, size_t n);

#endif
