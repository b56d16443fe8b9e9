// backend_cpu/cpu_diagnosis.c: the watchdog's whole diagnosis (headline,
// one line per rank with its last collectives and its state, divergence,
// who waits and who is missing, probable cause) and the lines the protocol
// check adds to its message. The divergence and the cause are
// cpu_diag_rules.c's; the words are cpu_diag_text.c's.
//
// The text is bounded however many ranks there are: the last three parts
// are written first, into at most TAIL_MAX bytes, and the rank lines get
// what is left (ranks with the same line folded, then "... (N more
// ranks)").
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_diag_internal.h"

#define LINE_MAX_BYTES 1536 // one rank line: 8 entries and the state
#define PART_MAX 1024       // the divergence, the summary, the cause: each
#define TAIL_MAX (3 * PART_MAX)
#define LINE_GROUPS 16      // distinct rank lines remembered for folding

// ----------------------------------------------------------------------------
// the rank lines

// "#3 AllReduce 1024 x fp32 done, ..., #5 AllReduce 512 x fp32 waiting in
// step 2 of 6 for rank 3; waiting (algo ring)"; equal finished calls in a
// row as one: "#24-#30 AllReduce 1000 x fp32 done".
static void rank_line(const CpuFrView *v, char *out, size_t n) {
    CpuText t = cpu_text_on(out, n);
    int in = cpu_diag_in_coll(v);
    char d[128], what[160];
    for (int k = 0; k < v->nhist; k++) {
        const CpuHistEntry *e = &v->hist[k];
        cpu_diag_entry_desc(e, 0, d, sizeof d);
        cpu_text_add(&t, "%s#%llu", k ? ", " : "", (unsigned long long)e->seq);
        // a run of equal finished calls as one: "#24-#30 AllReduce 1000 x fp32 done"
        int j = k;
        while (e->done && j + 1 < v->nhist && v->hist[j + 1].done &&
               v->hist[j + 1].seq == v->hist[j].seq + 1 &&
               (cpu_diag_entry_diff(e, &v->hist[j + 1]) & ~CPU_DIFF_SEQ) == 0)
            j++;
        if (j > k)
            cpu_text_add(&t, "-#%llu", (unsigned long long)v->hist[j].seq);
        k = j;
        cpu_text_add(&t, " %s ", d);
        if (e->done) {
            cpu_text_add(&t, "done");
        } else if (k == v->nhist - 1 && in && !cpu_diag_is_p2p(v->kind) && e->seq == v->seq) {
            cpu_diag_state_text(v, what, sizeof what);
            cpu_text_add(&t, "%s", what);
        } else {
            cpu_text_add(&t, "entered, not finished");
        }
    }
    if (v->nhist == 0)
        cpu_text_add(&t, "no collective entered yet");
    if (v->exited == CPU_EXITED_CRASHED) {
        cpu_text_add(&t, "; crashed");
    } else if (v->exited != CPU_EXITED_NO) {
        cpu_text_add(&t, "; rank function returned");
    } else if (in && cpu_diag_is_p2p(v->kind)) {
        cpu_diag_call_name(v, d, sizeof d);
        cpu_diag_state_text(v, what, sizeof what);
        cpu_text_add(&t, "; in %s: %s", d, what);
    } else if (in) {
        int waits = v->state != CPU_FR_RUNNING;
        cpu_text_add(&t, "; %s", waits ? "waiting" : "running");
        if (v->kind != SIM_COLL_BARRIER)
            cpu_text_add(&t, " (algo %s)", sim_algo_name(v->algo));
    } else {
        cpu_text_add(&t, "; not in a collective");
    }
}

// Appends "  ranks a,b: line\n" if it fits whole in t; returns 0 if not.
static int add_group(CpuText *t, const int *rk, int n, const char *line) {
    char buf[LINE_MAX_BYTES + 512];
    CpuText g = cpu_text_on(buf, sizeof buf);
    cpu_text_add(&g, "  ");
    cpu_text_ranks(&g, rk, n);
    cpu_text_add(&g, ": %s\n", line);
    if (g.len + 1 >= g.cap || t->len + g.len + 1 >= t->cap)
        return 0;
    cpu_text_add(t, "%s", buf);
    return 1;
}

// One line per rank, the ranks with the same line folded into the line of
// the first of them (the first LINE_GROUPS distinct lines are remembered;
// ranks with other lines get a line each), in rank order, as many as fit
// in t; then "  ... (N more ranks)" (room for it is kept).
static void write_rank_lines(CpuText *t, const CpuFrView *v, int R, int *tmp) {
    int *rk = tmp, *grp = tmp + R, first[LINE_GROUPS], ng = 0;
    char *lines = malloc((size_t)(LINE_GROUPS + 1) * LINE_MAX_BYTES);
    if (lines == NULL)
        return;
    char *own = lines + (size_t)LINE_GROUPS * LINE_MAX_BYTES;
    for (int r = 0; r < R; r++) {
        rank_line(&v[r], own, LINE_MAX_BYTES);
        grp[r] = -1;
        for (int g = 0; g < ng && grp[r] < 0; g++)
            if (strcmp(own, lines + (size_t)g * LINE_MAX_BYTES) == 0)
                grp[r] = g;
        if (grp[r] < 0 && ng < LINE_GROUPS) {
            memcpy(lines + (size_t)ng * LINE_MAX_BYTES, own, LINE_MAX_BYTES);
            first[ng] = r;
            grp[r] = ng++;
        }
    }
    size_t cap = t->cap;
    t->cap = cap > 48 && t->len + 48 < cap ? cap - 48 : t->len; // "... (N more ranks)"
    int left = 0;
    for (int r = 0; r < R; r++) {
        int g = grp[r], n = 0;
        const char *line = own;
        if (g >= 0 && first[g] != r)
            continue; // named on its group's line
        if (g >= 0) {
            for (int q = r; q < R; q++)
                if (grp[q] == g)
                    rk[n++] = q;
            line = lines + (size_t)g * LINE_MAX_BYTES;
        } else {
            rk[n++] = r;
            if (left == 0)
                rank_line(&v[r], own, LINE_MAX_BYTES);
        }
        if (left > 0 || !add_group(t, rk, n, line))
            left += n;
    }
    t->cap = cap;
    if (left > 0)
        cpu_text_add(t, "  ... (%d more ranks)\n", left);
    free(lines);
}

// ----------------------------------------------------------------------------
// the summary: who waits where, who is missing

// What a rank that is not waiting in the stuck call is doing instead.
static void elsewhere(const CpuFrView *v, char *out, size_t n) {
    char name[128];
    if (!cpu_diag_in_coll(v)) {
        const char *how = v->exited == CPU_EXITED_CRASHED ? "crashed and never arrived"
                                                          : "never arrived";
        if (v->last_done >= 0)
            snprintf(out, n, "%s (last completed #%lld)", how, (long long)v->last_done);
        else
            snprintf(out, n, "%s (no collective completed)", how);
        return;
    }
    cpu_diag_call_name(v, name, sizeof name);
    snprintf(out, n, "in %s", name);
}

static int same_call(const CpuFrView *a, const CpuFrView *d) {
    if (!cpu_diag_in_coll(a) || a->kind != d->kind || a->seq != d->seq)
        return 0;
    if (cpu_diag_is_p2p(d->kind))
        return a->peer == d->peer;
    return d->kind == SIM_COLL_BARRIER || (a->count == d->count && a->dtype == d->dtype);
}

// "ranks 0,1,2 wait in AllReduce #5 (1024 x fp32); rank 3 never arrived
// (last completed #4)". For send/recv only the pair is named.
static void write_summary(CpuText *t, const CpuFrView *v, int R, int me, int *tmp) {
    const CpuFrView *d = &v[me];
    char name[128], what[160], other[160];
    cpu_diag_call_name(d, name, sizeof name);
    int n = 0;
    for (int r = 0; r < R; r++)
        if (r == me || same_call(&v[r], d))
            tmp[n++] = r;
    cpu_text_ranks(t, tmp, n);
    cpu_text_add(t, " wait%s in %s", n == 1 ? "s" : "", name);
    int *named = tmp + R;
    memset(named, 0, (size_t)R * sizeof *named);
    for (int i = 0; i < n; i++)
        named[tmp[i]] = 1;
    int groups = 0, rest = 0;
    for (int r = 0; r < R; r++) {
        if (named[r] || (cpu_diag_is_p2p(d->kind) && r != d->peer))
            continue;
        if (groups == CPU_DIAG_GROUPS_MAX) {
            rest++;
            continue;
        }
        elsewhere(&v[r], what, sizeof what);
        int m = 0;
        for (int q = r; q < R; q++) {
            if (named[q] || (cpu_diag_is_p2p(d->kind) && q != d->peer))
                continue;
            elsewhere(&v[q], other, sizeof other);
            if (strcmp(what, other) == 0) {
                tmp[m++] = q;
                named[q] = 1;
            }
        }
        cpu_text_add(t, "; ");
        cpu_text_ranks(t, tmp, m);
        cpu_text_add(t, " %s%s", strncmp(what, "in ", 3) ? "" : m == 1 ? "is " : "are ", what);
        groups++;
    }
    if (rest > 0)
        cpu_text_add(t, "; %d more rank%s elsewhere", rest, rest == 1 ? "" : "s");
}

// ----------------------------------------------------------------------------
// the whole text

// Appends one part (a line without its newline) made by fn, cut to PART_MAX.
static void add_part(CpuText *t, const char *part) {
    if (part[0])
        cpu_text_add(t, "%s\n", part);
}

void cpu_diag_watchdog(const CpuFrView *v, int R, int me, double waited_s, double limit_s,
                       char *out, size_t cap) {
    CpuText t = cpu_text_on(out, cap);
    char name[128];
    cpu_diag_call_name(&v[me], name, sizeof name);
    cpu_text_add(&t, "watchdog: rank %d waited %.3g s (limit %.3g s) in %s; each rank's last "
                     "collectives (newest last) and its state:\n",
                 me, waited_s, limit_s, name);
    int *tmp = malloc(2 * (size_t)R * sizeof *tmp);
    char *tail = malloc(TAIL_MAX), *part = malloc(PART_MAX);
    if (tmp == NULL || tail == NULL || part == NULL) {
        cpu_text_add(&t, "(out of memory for the rest of the diagnosis)\n");
        free(tmp), free(tail), free(part);
        return;
    }
    CpuText tt = cpu_text_on(tail, TAIL_MAX);
    cpu_diag_diverge(v, R, part, PART_MAX);
    add_part(&tt, part);
    CpuText s = cpu_text_on(part, PART_MAX);
    write_summary(&s, v, R, me, tmp);
    add_part(&tt, part);
    cpu_diag_cause(v, R, me, part, PART_MAX);
    add_part(&tt, part);
    // the rank lines get what the tail leaves
    size_t full = t.cap;
    t.cap = tt.len + 1 < full ? full - tt.len : 1;
    if (t.cap > t.len + 1)
        write_rank_lines(&t, v, R, tmp);
    t.cap = full;
    cpu_text_add(&t, "%s", tail);
    free(tmp), free(tail), free(part);
}

void cpu_diag_protocol(const CpuFrView *v, int R, char *out, size_t cap) {
    size_t len = strnlen(out, cap);
    if (len + 1 >= cap)
        return;
    CpuText t = {out, len, cap};
    char *part = malloc(PART_MAX);
    if (part == NULL)
        return;
    if (cpu_diag_diverge(v, R, part, PART_MAX))
        cpu_text_add(&t, "\n%s", part);
    cpu_diag_cause(v, R, -1, part, PART_MAX);
    cpu_text_add(&t, "\n%s", part);
    free(part);
}
