// cli/report/report_text.c: the tables of `ddplab report`: time per rank, the
// communication per rank, the collectives per kind, peak memory per rank,
// the check that the figures add up, and the slowest rank.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"     // defines: sim_coll_name
#include "engine/memory.h" // defines: sim_mem_cat_key
#include "report/report.h"

// The unit of the time tables, from the longest span: s, ms or us.
typedef struct {
    const char *name;
    double scale; // seconds -> unit
} Unit;

static Unit pick_unit(const SimTraceReport *r) {
    double most = 0;
    for (int i = 0; i < r->nranks; i++)
        if (r->rank[i].span > most)
            most = r->rank[i].span;
    if (most >= 1)
        return (Unit){"s", 1};
    if (most >= 1e-3)
        return (Unit){"ms", 1e3};
    return (Unit){"us", 1e6};
}

// 1536 -> "1.5 KiB"
static const char *fmt_bytes(int64_t b, char *buf, size_t len) {
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (fabs(v) >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%lld B", (long long)b);
    else
        snprintf(buf, len, "%.1f %s", v, units[u]);
    return buf;
}

// "12.345 (45%)": a time in the unit and its share of the span.
static const char *fmt_part(double v, double span, Unit u, char *buf, size_t len) {
    snprintf(buf, len, "%.3f (%3.0f%%)", v * u.scale, span > 0 ? 100 * v / span : 0.0);
    return buf;
}

static void rule(FILE *out, const int *w, int n) {
    for (int i = 0; i < n; i++) {
        fputs("+-", out);
        for (int k = 0; k < w[i]; k++)
            fputc('-', out);
        fputc('-', out);
    }
    fputs("+\n", out);
}

// The idle column is split when the device waited for the host (CPU
// offload): "host" is the part of idle the host was busy, as PyTorch's
// offloaded optimizer step on the CPU makes the GPU wait.
static void times_table(FILE *out, const SimTraceReport *r, Unit u) {
    static const int w[] = {4, 5, 10, 9, 15, 15, 15, 15, 15};
    int host = 0;
    for (int i = 0; i < r->nranks; i++)
        host |= r->rank[i].host_wait > 0;
    int ncol = host ? 9 : 8;
    char h[16], hs[16];
    snprintf(h, sizeof h, "total %s", u.name);
    snprintf(hs, sizeof hs, "step %s", u.name);
    fprintf(out, "time per rank, over its steps (%s; share of its total; step: the mean%s)\n",
            u.name, host ? "; host: the idle time while the host worked" : "");
    rule(out, w, ncol);
    fprintf(out, "| %4s | %5s | %10s | %9s | %15s | %15s | %15s | %15s |", "rank", "steps", h,
            hs, "compute", "data wait", "exposed comm", "idle");
    if (host)
        fprintf(out, " %15s |", "of it host");
    fputc('\n', out);
    rule(out, w, ncol);
    for (int i = 0; i < r->nranks; i++) {
        const SimReportRank *k = &r->rank[i];
        char a[32], b[32], c[32], d[32], e[32], st[32] = "-";
        if (k->steps > 0)
            snprintf(st, sizeof st, "%.3f", k->span / k->steps * u.scale);
        fprintf(out, "| %4d | %5d | %10.3f | %9s | %15s | %15s | %15s | %15s |", i, k->steps,
                k->span * u.scale, st, fmt_part(k->compute, k->span, u, a, sizeof a),
                fmt_part(k->data_wait, k->span, u, b, sizeof b),
                fmt_part(k->exposed, k->span, u, c, sizeof c),
                fmt_part(k->idle, k->span, u, d, sizeof d));
        if (host)
            fprintf(out, " %15s |", fmt_part(k->host_wait, k->span, u, e, sizeof e));
        fputc('\n', out);
    }
    rule(out, w, ncol);
}

static void comm_table(FILE *out, const SimTraceReport *r, Unit u) {
    static const int w[] = {4, 12, 12, 12, 9, 12};
    char h1[24], h2[24], h3[24], h4[24];
    snprintf(h1, sizeof h1, "comm %s", u.name);
    snprintf(h2, sizeof h2, "overlap %s", u.name);
    snprintf(h3, sizeof h3, "exposed %s", u.name);
    snprintf(h4, sizeof h4, "ps.wait %s", u.name);
    fprintf(out, "\ncommunication per rank (comm = time a collective runs; overlapped = "
                 "under compute)\n");
    rule(out, w, 6);
    fprintf(out, "| %4s | %12s | %12s | %12s | %9s | %12s |\n", "rank", h1, h2, h3,
            "overlap %", h4);
    rule(out, w, 6);
    for (int i = 0; i < r->nranks; i++) {
        const SimReportRank *k = &r->rank[i];
        char pct[16] = "-";
        if (k->comm > 0)
            snprintf(pct, sizeof pct, "%.1f%%", 100 * k->overlap / k->comm);
        fprintf(out, "| %4d | %12.3f | %12.3f | %12.3f | %9s | %12.3f |\n", i,
                k->comm * u.scale, k->overlap * u.scale, k->exposed * u.scale, pct,
                k->ps_wait * u.scale);
    }
    rule(out, w, 6);
}

static void coll_table(FILE *out, const SimTraceReport *r) {
    static const int w[] = {14, 7, 14, 14};
    fprintf(out, "\ncollectives, all ranks (buffer = the tensor each rank passed; sent = "
                 "the chunks that travelled)\n");
    rule(out, w, 4);
    fprintf(out, "| %-14s | %7s | %14s | %14s |\n", "kind", "calls", "buffer bytes",
            "bytes sent");
    rule(out, w, 4);
    int any = 0;
    for (int c = 0; c < SIM_COLL_COUNT; c++) {
        const SimReportColl *k = &r->coll[c];
        if (k->calls == 0 && k->sent_bytes == 0)
            continue;
        char a[32], b[32];
        fprintf(out, "| %-14s | %7llu | %14s | %14s |\n", sim_coll_name((SimCollKind)c),
                (unsigned long long)k->calls, fmt_bytes((int64_t)k->bytes, a, sizeof a),
                fmt_bytes((int64_t)k->sent_bytes, b, sizeof b));
        any = 1;
    }
    if (!any)
        fprintf(out, "| %-14s | %7s | %14s | %14s |\n", "(none)", "0", "0 B", "0 B");
    rule(out, w, 4);
}

static void memory_table(FILE *out, const SimTraceReport *r) {
    int cats[SIM_MEM_CAT_COUNT], nc = 0;
    for (int c = 0; c < SIM_MEM_CAT_COUNT; c++) {
        if (c == SIM_MEM_BACKING)
            continue;
        for (int i = 0; i < r->nranks; i++)
            if (r->rank[i].mem_peak[c] > 0) {
                cats[nc++] = c;
                break;
            }
    }
    int w[2 + SIM_MEM_CAT_COUNT];
    w[0] = 4;
    w[1] = 10;
    for (int j = 0; j < nc; j++)
        w[2 + j] = 11;
    fprintf(out, "\npeak device memory per rank (total: the ledger's peak; each category: "
                 "its own peak)\n");
    rule(out, w, 2 + nc);
    fprintf(out, "| %4s | %10s |", "rank", "total");
    for (int j = 0; j < nc; j++)
        fprintf(out, " %11s |", sim_mem_cat_key((SimMemCat)cats[j]));
    fputc('\n', out);
    rule(out, w, 2 + nc);
    for (int i = 0; i < r->nranks; i++) {
        char b[32];
        fprintf(out, "| %4d | %10s |", i,
                fmt_bytes(r->rank[i].mem_peak_total, b, sizeof b));
        for (int j = 0; j < nc; j++)
            fprintf(out, " %11s |", fmt_bytes(r->rank[i].mem_peak[cats[j]], b, sizeof b));
        fputc('\n', out);
    }
    rule(out, w, 2 + nc);
}

void report_print_text(FILE *out, const VizTrace *t, const SimTraceReport *r) {
    Unit u = pick_unit(r);
    fprintf(out, "trace:    %s\n", t->source);
    if (t->info.title[0])
        fprintf(out, "run:      %s\n", t->info.title);
    fprintf(out, "clock:    %s\n",
            r->clock == SIM_REPORT_CLOCK_WALL
                ? "measured (the wall times: the host's around each op on the cpu backend, "
                  "the GPU's CUDA events on the cuda backend)"
                : "simulated (the cost model's times on the run's hardware profile)");
    fprintf(out, "ranks:    %d, %d step%s (a step: from one \"iteration\" begin marker to "
                 "the next)\n",
            r->nranks, r->steps, r->steps == 1 ? "" : "s");
    if (r->first_step > 1)
        fprintf(out, "          from each rank's step %d on (--from-step): the %d before it "
                "left out, as the set-up is\n", r->first_step, r->first_step - 1);
    for (int i = 0; i < r->nranks; i++)
        if (r->rank[i].steps == 0 && r->rank[i].events > 0) {
            fprintf(out, "          ranks with 0 steps (a parameter server): measured from "
                         "their first event to their last\n");
            break;
        }
    fputc('\n', out);
    times_table(out, r, u);
    int ok = 1;
    for (int i = 0; i < r->nranks; i++)
        if (fabs(r->rank[i].sum_error) > 1e-9 * (r->rank[i].span > 0 ? r->rank[i].span : 1))
            ok = 0;
    fprintf(out, "check:    compute + data wait + exposed comm + idle = total on every rank: "
                 "%s (largest difference %.3g s)\n",
            ok ? "yes" : "NO", r->max_sum_error);
    report_print_shares(out, r);
    double host = 0, idle = 0;
    for (int i = 0; i < r->nranks; i++)
        host += r->rank[i].host_wait, idle += r->rank[i].idle;
    if (host > 0)
        fprintf(out, "host:     %.1f%% of the idle time the device waited for the host (CPU "
                "offload: the copies and the optimizer step on the CPU), all ranks\n",
                idle > 0 ? 100 * host / idle : 0.0);
    comm_table(out, r, u);
    coll_table(out, r);
    memory_table(out, r);
    char why[256];
    sim_trace_report_why(r, why, sizeof why);
    if (why[0]) {
        const SimReportRank *s = &r->rank[r->slowest];
        fprintf(out, "\nslowest:  %s\n", why);
        fprintf(out, "          total %.3f %s; compute + exposed comm %.3f %s\n",
                s->span * u.scale, u.name, (s->compute + s->exposed) * u.scale, u.name);
    }
}

// ----------------------------------------------------------------------------
// step times

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// One rank's fastest, median and slowest step (the rank's own step numbers:
// its step[0] is step `first`).
static void step_spread(FILE *out, int rank, const SimReportRank *k, int first, Unit u,
                        double *sorted) {
    int fast = 0, slow = 0;
    for (int j = 0; j < k->steps; j++) {
        sorted[j] = k->step[j].span;
        fast = k->step[j].span < k->step[fast].span ? j : fast;
        slow = k->step[j].span > k->step[slow].span ? j : slow;
    }
    qsort(sorted, (size_t)k->steps, sizeof *sorted, cmp_double);
    int m = k->steps / 2;
    double median = k->steps % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    const SimReportStep *s = &k->step[slow];
    char why[64] = "";
    double parts[] = {s->compute, s->data_wait, s->exposed, s->idle};
    const char *names[] = {"compute", "data wait", "exposed comm", "idle"};
    int big = 0;
    for (int c = 1; c < 4; c++)
        big = parts[c] > parts[big] ? c : big;
    if (s->span > 0)
        snprintf(why, sizeof why, "%s %.0f%%", names[big], 100 * parts[big] / s->span);
    fprintf(out, "| %4d | %5d | %9.3f (%4d) | %10.3f | %9.3f (%4d) | %6.2fx | %-18s |\n", rank,
            k->steps, k->step[fast].span * u.scale, fast + first, median * u.scale,
            s->span * u.scale, slow + first, k->step[fast].span > 0 ? s->span / k->step[fast].span
                                                                : 0.0, why);
}

// Every step of one rank, with its parts and their shares.
static void step_rows(FILE *out, int rank, const SimReportRank *k, int first, Unit u) {
    char c[40], d[40], e[40], i[40];
    for (int j = 0; j < k->steps; j++) {
        const SimReportStep *s = &k->step[j];
        fprintf(out, "| %4d | %5d | %10.3f | %10.3f | %15s | %15s | %15s | %15s |\n", rank,
                j + first, s->start * u.scale, s->span * u.scale,
                fmt_part(s->compute, s->span, u, c, sizeof c),
                fmt_part(s->data_wait, s->span, u, d, sizeof d),
                fmt_part(s->exposed, s->span, u, e, sizeof e),
                fmt_part(s->idle, s->span, u, i, sizeof i));
    }
}

void report_print_steps(FILE *out, const SimTraceReport *r, int all) {
    Unit u = pick_unit(r);
    int most = 0;
    for (int i = 0; i < r->nranks; i++)
        most = r->rank[i].steps > most ? r->rank[i].steps : most;
    double *sorted = most > 0 ? malloc((size_t)most * sizeof *sorted) : NULL;
    if (sorted == NULL)
        return; // no steps (or no memory): nothing to spread
    fprintf(out, "\nstep times per rank (%s; the step number in brackets; slowest/fastest; "
            "the slowest step's largest part)\n", u.name);
    static const int w[] = {4, 5, 16, 10, 16, 7, 18};
    rule(out, w, 7);
    fprintf(out, "| %4s | %5s | %16s | %10s | %16s | %7s | %-18s |\n", "rank", "steps",
            "fastest", "median", "slowest", "spread", "slowest step");
    rule(out, w, 7);
    for (int i = 0; i < r->nranks; i++)
        if (r->rank[i].steps > 0)
            step_spread(out, i, &r->rank[i], r->first_step, u, sorted);
    rule(out, w, 7);
    free(sorted);
    if (!all)
        return;
    fprintf(out, "\nevery step (%s; start from the trace's clock; share of the step)\n", u.name);
    static const int ws[] = {4, 5, 10, 10, 15, 15, 15, 15};
    rule(out, ws, 8);
    fprintf(out, "| %4s | %5s | %10s | %10s | %15s | %15s | %15s | %15s |\n", "rank", "step",
            "start", "time", "compute", "data wait", "exposed comm", "idle");
    rule(out, ws, 8);
    for (int i = 0; i < r->nranks; i++)
        step_rows(out, i, &r->rank[i], r->first_step, u);
    rule(out, ws, 8);
}
