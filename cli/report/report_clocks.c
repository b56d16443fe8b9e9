// cli/report/report_clocks.c: `ddplab report --clock both`: the simulated and the
// measured figures of each rank side by side, per step (a rank's totals
// divided by its steps), with the ratio measured / simulated where a ratio
// means something, and the overlap of communication with compute on both
// clocks: did the overlap the cost model predicts happen on the hardware?
#include <stdio.h>

#include "report/report.h"

// Per-step mean of a rank's total v (the total itself without steps).
static double per_step(const SimReportRank *k, double v) {
    return k->steps > 0 ? v / k->steps : v;
}

// "12.3%", or "-" without communication.
static const char *pct(double part, double whole, char *buf, size_t len) {
    if (whole > 0)
        snprintf(buf, len, "%.1f%%", 100 * part / whole);
    else
        snprintf(buf, len, "-");
    return buf;
}

// "1.93x", or "-" when the simulated figure is 0.
static const char *ratio(double meas, double sim, char *buf, size_t len) {
    if (sim > 0)
        snprintf(buf, len, "%.2fx", meas / sim);
    else
        snprintf(buf, len, "-");
    return buf;
}

static void rule(FILE *out) {
    fputs("+------+----------------------------+----------------------------+"
          "-----------------------+-----------------+-----------------------+\n",
          out);
}

// The time unit of a table whose largest figure is most (seconds).
static const char *unit_for(double most, double *scale) {
    *scale = most >= 1 ? 1 : most >= 1e-3 ? 1e3 : 1e6;
    return most >= 1 ? "s" : most >= 1e-3 ? "ms" : "us";
}

// "12.3 / 0.45" GB/s: a collective's buffer bytes over its time on each
// clock (nccl-tests' algbw, averaged over calls and ranks); "" for compute.
static const char *algbw(const SimReportOp *k, char *buf, size_t len) {
    buf[0] = '\0';
    if (k->coll >= 0 && k->sim_s > 0 && k->wall_s > 0)
        snprintf(buf, len, "%.3g / %.3g", (double)k->bytes / k->sim_s / 1e9,
                 (double)k->bytes / k->wall_s / 1e9);
    return buf;
}

static void ops_rule(FILE *out) {
    fputs("+----------------------+---------+------------+------------+----------+"
          "---------------------+\n", out);
}

// "12.3 ms": a duration in the unit that suits it.
static const char *fmt_time(double s, char *buf, size_t len) {
    double sc;
    const char *u = unit_for(s, &sc);
    snprintf(buf, len, "%.3f %s", s * sc, u);
    return buf;
}

void report_print_ops(FILE *out, const SimReportOps *ops, int top) {
    if (ops->n == 0)
        return;
    int shown = top > 0 && top < ops->n ? top : ops->n;
    fprintf(out, "\nops, simulated vs measured (all ranks, the whole run; the %d of %d with the "
            "most measured time;\nx = measured / simulated: far from 1, the hardware profile "
            "is off for that op)\n", shown, ops->n);
    ops_rule(out);
    fprintf(out, "| %-20s | %7s | %10s | %10s | %8s | %-19s |\n", "op", "calls", "sim", "meas",
            "x", "algbw GB/s sim/meas");
    ops_rule(out);
    for (int i = 0; i < shown; i++) {
        const SimReportOp *k = &ops->op[i];
        char x[16], bw[48], ts[24], tw[24];
        fprintf(out, "| %-20.20s | %7llu | %10s | %10s | %8s | %-19s |\n", k->name,
                (unsigned long long)k->calls, fmt_time(k->sim_s, ts, sizeof ts),
                fmt_time(k->wall_s, tw, sizeof tw), ratio(k->wall_s, k->sim_s, x, sizeof x),
                algbw(k, bw, sizeof bw));
    }
    ops_rule(out);
}

void report_print_clocks(FILE *out, const SimTraceReport *sim, const SimTraceReport *wall) {
    double most = 0;
    for (int i = 0; i < sim->nranks; i++) {
        double a = per_step(&sim->rank[i], sim->rank[i].span);
        double b = per_step(&wall->rank[i], wall->rank[i].span);
        most = a > most ? a : most;
        most = b > most ? b : most;
    }
    double sc;
    const char *unit = unit_for(most, &sc);
    fprintf(out, "\nsimulated vs measured, per rank (%s per step; x = measured / simulated; "
            "overlap = the share of\ncommunication that ran under compute)\n", unit);
    rule(out);
    fprintf(out, "| %4s | %-26s | %-26s | %-21s | %-15s | %-21s |\n", "rank", "step time",
            "compute", "comm busy", "overlap", "exposed comm");
    fprintf(out, "| %4s | %8s %8s %8s | %8s %8s %8s | %10s %10s | %7s %7s | %10s %10s |\n", "",
            "sim", "meas", "x", "sim", "meas", "x", "sim", "meas", "sim", "meas", "sim", "meas");
    rule(out);
    double comm[2] = {0}, over[2] = {0};
    for (int i = 0; i < sim->nranks; i++) {
        const SimReportRank *s = &sim->rank[i], *w = &wall->rank[i];
        if (s->events == 0)
            continue;
        char r1[16], r2[16], p1[16], p2[16];
        fprintf(out,
                "| %4d | %8.3f %8.3f %8s | %8.3f %8.3f %8s | %10.3f %10.3f | %7s %7s | "
                "%10.3f %10.3f |\n",
                i, per_step(s, s->span) * sc, per_step(w, w->span) * sc,
                ratio(w->span, s->span, r1, sizeof r1), per_step(s, s->compute) * sc,
                per_step(w, w->compute) * sc, ratio(w->compute, s->compute, r2, sizeof r2),
                per_step(s, s->comm) * sc, per_step(w, w->comm) * sc,
                pct(s->overlap, s->comm, p1, sizeof p1), pct(w->overlap, w->comm, p2, sizeof p2),
                per_step(s, s->exposed) * sc, per_step(w, w->exposed) * sc);
        comm[0] += s->comm, comm[1] += w->comm;
        over[0] += s->overlap, over[1] += w->overlap;
    }
    rule(out);
    char p1[16], p2[16];
    fprintf(out, "overlap:  %s of the communication ran under compute on the measured clock, "
            "%s in the simulation (all ranks)\n",
            pct(over[1], comm[1], p2, sizeof p2), pct(over[0], comm[0], p1, sizeof p1));
}
