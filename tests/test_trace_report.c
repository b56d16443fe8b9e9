// tests/test_trace_report.c: sim_trace_report on hand-built event arrays
// with answers worked out by hand:
//   overlap     a collective half under compute: overlapped, exposed,
//               overlap % and idle exactly
//   data wait   "data.wait" counted as data wait, not compute; a
//               collective running during a wait counts as data wait there,
//               as overlapped under compute, exposed after both
//   ps.wait     counted as idle (and as ps wait)
//   steps       the window from the first "iteration" begin to the last
//               event's end; set-up before it left out; several steps
//   adds up     compute + data wait + exposed + idle = span on every rank,
//               also for a random pile of overlapping intervals
//   slowest     a rank with 3x the compute is named, with the ratio; a
//               rank that mostly waits for data is said to
//   memory      each category's own peak and the total's peak
//   bytes       calls, buffer bytes and sent bytes per collective kind
//   errors      no iteration markers; a rank out of range
//   clocks      the same events on the measured clock (wall times that
//               differ from the simulated ones): each clock's own figures
//   ops         each kind of op's time on both clocks, the waits, other
//               streams and markers left out, the most measured first
//   from step   the steps before a given one left out as the set-up is
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_env.h"
#include "trace/trace_report.h"

#define TOL 1e-12

static SimEvent ev_base(int rank, int kind, int stream, const char *name, double a, double b) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.rank = rank;
    e.kind = (int16_t)kind;
    e.stream = (int16_t)stream;
    e.name = name;
    e.sim_start = a;
    e.sim_end = b;
    e.step = e.nsteps = e.chunk = e.src = e.dst = -1;
    return e;
}

static SimEvent begin(int rank, double t, int step) {
    SimEvent e = ev_base(rank, SIM_EV_MARKER, SIM_STREAM_COMPUTE, "iteration", t, t);
    e.label = "begin";
    e.step = step;
    return e;
}

static SimEvent compute(int rank, double a, double b) {
    return ev_base(rank, SIM_EV_COMPUTE, SIM_STREAM_COMPUTE, "linear_fwd", a, b);
}

static SimEvent named(int rank, const char *name, double a, double b) {
    return ev_base(rank, SIM_EV_COMPUTE, SIM_STREAM_COMPUTE, name, a, b);
}

static SimEvent coll(int rank, SimCollKind k, double a, double b, uint64_t bytes) {
    SimEvent e = ev_base(rank, SIM_EV_COLL, SIM_STREAM_COMM, "AllReduce", a, b);
    e.coll = (int16_t)k;
    e.bytes = bytes;
    return e;
}

static SimEvent mem(int rank, const char *label, SimMemCat c, uint64_t bytes, uint64_t total) {
    SimEvent e = ev_base(rank, SIM_EV_MEMORY, SIM_STREAM_COMPUTE, label, 0, 0);
    e.label = label;
    e.mem_cat = (int16_t)c;
    e.mem_space = SIM_MEM_DEVICE;
    e.bytes = bytes;
    e.count = total;
    return e;
}

// Each step's four parts add up to its time, the steps' times to the
// rank's, and each part over the steps to the rank's part.
static int steps_add_up(const SimReportRank *k) {
    double tol = 1e-12 * (1 + k->span), span = 0, part[4] = {0};
    for (int j = 0; j < k->steps; j++) {
        const SimReportStep *st = &k->step[j];
        CHECK_NEAR(st->compute + st->data_wait + st->exposed + st->idle, st->span, tol);
        CHECK(j == 0 || st->start >= k->step[j - 1].start);
        span += st->span;
        part[0] += st->compute, part[1] += st->data_wait;
        part[2] += st->exposed, part[3] += st->idle;
    }
    if (k->steps == 0)
        return 0;
    CHECK_NEAR(k->step[0].start, k->start, tol);
    CHECK_NEAR(span, k->span, tol);
    CHECK_NEAR(part[0], k->compute, tol);
    CHECK_NEAR(part[1], k->data_wait, tol);
    CHECK_NEAR(part[2], k->exposed, tol);
    CHECK_NEAR(part[3], k->idle, tol);
    return 0;
}

static int adds_up(const SimTraceReport *r) {
    for (int i = 0; i < r->nranks; i++) {
        const SimReportRank *k = &r->rank[i];
        CHECK_NEAR(k->compute + k->data_wait + k->exposed + k->idle, k->span,
                   1e-12 * (1 + k->span));
        CHECK_NEAR(k->sum_error, 0, 1e-12 * (1 + k->span));
        CHECK(steps_add_up(k) == 0);
    }
    return 0;
}

// Two steps with known parts. Step 1 [0, 10): compute [0, 4) and [6, 8), a
// collective [3, 7): compute 6, exposed [4, 6) = 2, idle [8, 10) = 2.
// Step 2 [10, 18): compute [10, 12) and [17, 18) = 3, data wait [12, 15) =
// 3, a collective [14, 16) of which [15, 16) is exposed = 1, idle [16, 17) = 1.
static int test_per_step(void) {
    SimEvent ev[] = {begin(0, 0, 0),      compute(0, 0, 4),
                     coll(0, SIM_COLL_ALL_REDUCE, 3, 7, 8), compute(0, 6, 8),
                     begin(0, 10, 1),     compute(0, 10, 12),
                     named(0, "data.wait", 12, 15), coll(0, SIM_COLL_ALL_REDUCE, 14, 16, 8),
                     compute(0, 17, 18)};
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report(ev, sizeof ev / sizeof ev[0], 0, &r, err, sizeof err) == SIM_OK);
    const SimReportRank *k = &r.rank[0];
    CHECK_EQ_INT(k->steps, 2);
    const double want[2][6] = {{0, 10, 6, 0, 2, 2}, {10, 8, 3, 3, 1, 1}};
    for (int j = 0; j < 2; j++) {
        const SimReportStep *st = &k->step[j];
        CHECK_NEAR(st->start, want[j][0], TOL);
        CHECK_NEAR(st->span, want[j][1], TOL);
        CHECK_NEAR(st->compute, want[j][2], TOL);
        CHECK_NEAR(st->data_wait, want[j][3], TOL);
        CHECK_NEAR(st->exposed, want[j][4], TOL);
        CHECK_NEAR(st->idle, want[j][5], TOL);
    }
    CHECK(adds_up(&r) == 0);
    sim_trace_report_free(&r);
    return 0;
}

// Step [0, 10): compute [0, 4) and [6, 8); a collective [3, 7) on the comm
// stream: under compute [3, 4) and [6, 7) = 2, exposed [4, 6) = 2; idle
// [8, 10) = 2 (the last event, a compute [9, 10), makes it [8, 9) = 1).
static int test_overlap(void) {
    SimEvent ev[] = {begin(0, 0, 0), compute(0, 0, 4), coll(0, SIM_COLL_ALL_REDUCE, 3, 7, 100),
                     compute(0, 6, 8), compute(0, 9, 10)};
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report(ev, 5, 0, &r, err, sizeof err) == SIM_OK);
    CHECK_EQ_INT(r.nranks, 1);
    const SimReportRank *k = &r.rank[0];
    CHECK_EQ_INT(k->steps, 1);
    CHECK_NEAR(k->span, 10, TOL);
    CHECK_NEAR(k->compute, 7, TOL);
    CHECK_NEAR(k->comm, 4, TOL);
    CHECK_NEAR(k->overlap, 2, TOL);
    CHECK_NEAR(k->exposed, 2, TOL);
    CHECK_NEAR(k->idle, 1, TOL);
    CHECK_NEAR(k->data_wait, 0, TOL);
    CHECK(adds_up(&r) == 0);
    CHECK_EQ_INT(r.slowest, 0);
    CHECK_EQ_INT(r.why, SIM_REPORT_WHY_COMPUTE);
    CHECK_NEAR(r.why_value, 0.7, TOL);
    sim_trace_report_free(&r);
    return 0;
}

// Set-up [0, 2) (a broadcast) before the first begin at 2; steps at 2 and 6;
// a data wait [2, 5), compute [5, 6); a collective [4, 7) half under the
// wait: [4, 5) data wait, [5, 6) overlap, [6, 7) exposed; "ps.wait" [7, 9)
// idle; compute [9, 10). Span [2, 10) = 8.
static int test_data_wait(void) {
    SimEvent ev[] = {coll(0, SIM_COLL_BROADCAST, 0, 2, 64), begin(0, 2, 0),
                     named(0, "data.wait", 2, 5), coll(0, SIM_COLL_ALL_REDUCE, 4, 7, 100),
                     compute(0, 5, 6), begin(0, 6, 1), named(0, "ps.wait", 7, 9),
                     compute(0, 9, 10)};
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report(ev, 8, 1, &r, err, sizeof err) == SIM_OK);
    const SimReportRank *k = &r.rank[0];
    CHECK_EQ_INT(k->steps, 2);
    CHECK_EQ_INT(r.steps, 2);
    CHECK_NEAR(k->start, 2, TOL);
    CHECK_NEAR(k->span, 8, TOL);
    CHECK_NEAR(k->data_wait, 3, TOL);
    CHECK_NEAR(k->compute, 2, TOL);
    CHECK_NEAR(k->comm, 3, TOL);
    CHECK_NEAR(k->overlap, 1, TOL);
    CHECK_NEAR(k->exposed, 1, TOL);
    CHECK_NEAR(k->idle, 2, TOL);
    CHECK_NEAR(k->ps_wait, 2, TOL);
    CHECK(adds_up(&r) == 0);
    CHECK_EQ_INT(r.why, SIM_REPORT_WHY_DATA);
    CHECK_NEAR(r.why_value, 3.0 / 8, TOL);
    // Bytes over the whole trace, set-up included.
    CHECK_EQ_INT(r.coll[SIM_COLL_BROADCAST].calls, 1);
    CHECK_EQ_INT(r.coll[SIM_COLL_BROADCAST].bytes, 64);
    CHECK_EQ_INT(r.coll[SIM_COLL_ALL_REDUCE].calls, 1);
    char why[256];
    sim_trace_report_why(&r, why, sizeof why);
    CHECK_STR_CONTAINS(why, "waits for data");
    sim_trace_report_free(&r);
    return 0;
}

// CPU offload: one step [0, 6): compute [0, 1) and [5, 6); on the host
// stream the optimizer [1, 3) and a gradient copy [2.5, 3.5) (host work),
// then the input pipeline's copy "data.h2d" [3.5, 4.5) (not host work: the
// data wait counts it). Idle [1, 5) = 4, of which the host worked [1, 3.5).
static int test_host_wait(void) {
    SimEvent ev[] = {begin(0, 0, 0), compute(0, 0, 1),
                     ev_base(0, SIM_EV_COMPUTE, SIM_STREAM_HOST, "adam_step", 1, 3),
                     ev_base(0, SIM_EV_COMPUTE, SIM_STREAM_HOST, "fsdp grad shard D2H", 2.5,
                             3.5),
                     ev_base(0, SIM_EV_COMPUTE, SIM_STREAM_HOST, "data.h2d", 3.5, 4.5),
                     compute(0, 5, 6)};
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report(ev, 6, 1, &r, err, sizeof err) == SIM_OK);
    const SimReportRank *k = &r.rank[0];
    CHECK_NEAR(k->span, 6, TOL);
    CHECK_NEAR(k->compute, 2, TOL);
    CHECK_NEAR(k->idle, 4, TOL);
    CHECK_NEAR(k->host_wait, 2.5, TOL);
    CHECK(adds_up(&r) == 0);
    sim_trace_report_free(&r);
    return 0;
}

// Three ranks in lockstep over [0, 9): ranks 0 and 1 compute 2 per step and
// wait, rank 2 computes 6: a slow rank, 3x the others' mean. Bytes per kind
// and sent bytes from transfers; memory peaks.
static int test_slowest(void) {
    SimEvent ev[64];
    int n = 0;
    for (int r = 0; r < 3; r++) {
        double c = r == 2 ? 6 : 2;
        ev[n++] = begin(r, 0, 0);
        ev[n++] = compute(r, 0, c);
        ev[n++] = coll(r, SIM_COLL_ALL_REDUCE, 6, 7, 1000);
        ev[n++] = begin(r, 7, 1);
        ev[n++] = compute(r, 7, 7 + c / 3);
        ev[n++] = coll(r, SIM_COLL_ALL_GATHER, 9 - 0.5, 9, 10);
        SimEvent x = ev_base(r, SIM_EV_XFER, SIM_STREAM_COMM, "AllReduce", 6, 6.5);
        x.coll = SIM_COLL_ALL_REDUCE;
        x.bytes = 300;
        ev[n++] = x;
        ev[n++] = mem(r, "alloc", SIM_MEM_PARAM, 100, 100);
        ev[n++] = mem(r, "alloc", SIM_MEM_ACT, 50 * (r + 1), 100 + 50 * (r + 1));
        ev[n++] = mem(r, "free", SIM_MEM_ACT, 50 * (r + 1), 100);
        ev[n++] = mem(r, "alloc", SIM_MEM_GRAD, 30, 130);
    }
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report(ev, (size_t)n, 3, &r, err, sizeof err) == SIM_OK);
    CHECK(adds_up(&r) == 0);
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(r.rank[i].span, 9, TOL);
    CHECK_NEAR(r.rank[0].compute, 2 + 2.0 / 3, TOL);
    CHECK_NEAR(r.rank[2].compute, 8, TOL);
    CHECK_NEAR(r.rank[0].exposed, 1.5, TOL);
    CHECK_NEAR(r.rank[0].idle, 9 - 1.5 - (2 + 2.0 / 3), TOL);
    CHECK_EQ_INT(r.slowest, 2);
    CHECK_EQ_INT(r.why, SIM_REPORT_WHY_SLOW_COMPUTE);
    CHECK_NEAR(r.why_value, 3.0, 1e-9);
    char why[256];
    sim_trace_report_why(&r, why, sizeof why);
    CHECK_STR_CONTAINS(why, "rank 2: compute 3.0x the others' mean");
    CHECK_EQ_INT(r.coll[SIM_COLL_ALL_REDUCE].calls, 3);
    CHECK_EQ_INT(r.coll[SIM_COLL_ALL_REDUCE].bytes, 3000);
    CHECK_EQ_INT(r.coll[SIM_COLL_ALL_REDUCE].sent_bytes, 900);
    CHECK_EQ_INT(r.coll[SIM_COLL_ALL_GATHER].calls, 3);
    CHECK_EQ_INT(r.coll[SIM_COLL_ALL_GATHER].bytes, 30);
    CHECK_EQ_INT(r.coll[SIM_COLL_BROADCAST].calls, 0);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(r.rank[i].mem_peak[SIM_MEM_PARAM], 100);
        CHECK_EQ_INT(r.rank[i].mem_peak[SIM_MEM_ACT], 50 * (i + 1));
        CHECK_EQ_INT(r.rank[i].mem_peak[SIM_MEM_GRAD], 30);
        CHECK_EQ_INT(r.rank[i].mem_peak_total, 100 + 50 * (i + 1));
    }
    sim_trace_report_free(&r);
    return 0;
}

// A pile of random overlapping intervals on 4 ranks and 3 kinds: the
// figures still add up, overlap <= both comm and compute, and every figure
// is between 0 and the span.
static int test_random_adds_up(void) {
    int per = tenv_quick() ? 200 : 3000;
    size_t cap = (size_t)4 * (size_t)(per + 8);
    SimEvent *ev = malloc(cap * sizeof *ev);
    CHECK(ev != NULL);
    size_t n = 0;
    unsigned s = 12345;
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < 5; k++)
            ev[n++] = begin(r, 1.0 + 20.0 * k, k);
        for (int i = 0; i < per; i++) {
            s = s * 1103515245u + 12345u;
            double a = (double)(s >> 8 & 0xffff) / 655.36; // 0 .. 100
            s = s * 1103515245u + 12345u;
            double len = (double)(s >> 8 & 0xff) / 200.0;
            int which = (int)(s >> 20) % 4;
            if (which == 0)
                ev[n++] = compute(r, a, a + len);
            else if (which == 1)
                ev[n++] = named(r, "data.wait", a, a + len);
            else if (which == 2)
                ev[n++] = coll(r, SIM_COLL_REDUCE_SCATTER, a, a + len, 8);
            else
                ev[n++] = named(r, "ps.wait", a, a + len);
        }
    }
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report(ev, n, 0, &r, err, sizeof err) == SIM_OK);
    CHECK(adds_up(&r) == 0);
    for (int i = 0; i < 4; i++) {
        const SimReportRank *k = &r.rank[i];
        CHECK(k->overlap <= k->comm + TOL && k->overlap <= k->compute + TOL);
        CHECK(k->compute >= 0 && k->compute <= k->span + TOL);
        CHECK(k->exposed >= 0 && k->idle >= 0 && k->data_wait >= 0);
        CHECK(k->ps_wait <= k->idle + TOL);
        CHECK(k->span > 90 && k->span <= 101);
    }
    sim_trace_report_free(&r);
    free(ev);
    return 0;
}

static int test_errors(void) {
    SimEvent ev[] = {compute(0, 0, 1), coll(1, SIM_COLL_ALL_REDUCE, 0, 1, 4)};
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report(ev, 2, 0, &r, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "\"iteration\"");
    CHECK(r.rank == NULL);
    CHECK(sim_trace_report(ev, 2, 1, &r, err, sizeof err) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 1 outside 0 .. 0");
    CHECK(sim_trace_report(NULL, 0, 0, &r, err, sizeof err) == SIM_EINVAL);
    // A rank without markers beside one with them: measured first to last.
    // It is never named the slowest: its window is not a step time.
    SimEvent ev2[] = {begin(0, 0, 0), compute(0, 0, 2), compute(1, 1, 5)};
    CHECK(sim_trace_report(ev2, 3, 0, &r, err, sizeof err) == SIM_OK);
    CHECK_EQ_INT(r.rank[1].steps, 0);
    CHECK_NEAR(r.rank[1].span, 4, TOL);
    CHECK_NEAR(r.rank[1].compute, 4, TOL);
    CHECK_EQ_INT(r.slowest, 0);
    sim_trace_report_free(&r);
    return 0;
}

// Sets an event's measured times.
static SimEvent walled(SimEvent e, double a, double b) {
    e.wall_start = a;
    e.wall_end = b;
    return e;
}

// One rank, two steps. Simulated: compute [0,10], the all-reduce [5,12]
// (5 under compute, 2 exposed), step 2 from 12: compute [12,14]. Measured:
// compute [0,4], the all-reduce [4,6] (none under compute), step 2 from 7:
// compute [7,8], idle [6,7].
static int test_clocks(void) {
    SimEvent ev[] = {walled(begin(0, 0, 0), 0, 0), walled(compute(0, 0, 10), 0, 4),
                     walled(coll(0, SIM_COLL_ALL_REDUCE, 5, 12, 64), 4, 6),
                     walled(begin(0, 12, 1), 7, 7), walled(compute(0, 12, 14), 7, 8)};
    size_t n = sizeof ev / sizeof ev[0];
    SimTraceReport s, w, d;
    char err[256];
    CHECK(sim_trace_report_on(ev, n, 0, SIM_REPORT_CLOCK_SIM, &s, err, sizeof err) == SIM_OK);
    CHECK(sim_trace_report_on(ev, n, 0, SIM_REPORT_CLOCK_WALL, &w, err, sizeof err) == SIM_OK);
    CHECK(sim_trace_report(ev, n, 0, &d, err, sizeof err) == SIM_OK);
    CHECK(s.clock == SIM_REPORT_CLOCK_SIM && d.clock == SIM_REPORT_CLOCK_SIM);
    CHECK(w.clock == SIM_REPORT_CLOCK_WALL);
    const SimReportRank *a = &s.rank[0], *b = &w.rank[0], *c = &d.rank[0];
    CHECK_NEAR(a->span, 14, TOL);
    CHECK_NEAR(a->compute, 12, TOL);
    CHECK_NEAR(a->comm, 7, TOL);
    CHECK_NEAR(a->overlap, 5, TOL);
    CHECK_NEAR(a->exposed, 2, TOL);
    CHECK_NEAR(a->idle, 0, TOL);
    CHECK_NEAR(a->step[1].start, 12, TOL);
    CHECK_NEAR(b->span, 8, TOL);
    CHECK_NEAR(b->compute, 5, TOL);
    CHECK_NEAR(b->comm, 2, TOL);
    CHECK_NEAR(b->overlap, 0, TOL);
    CHECK_NEAR(b->exposed, 2, TOL);
    CHECK_NEAR(b->idle, 1, TOL);
    CHECK_EQ_INT(b->steps, 2);
    CHECK_NEAR(b->step[0].span, 7, TOL);
    CHECK_NEAR(b->step[1].start, 7, TOL);
    CHECK_NEAR(b->step[1].compute, 1, TOL);
    CHECK_NEAR(c->span, a->span, 0);
    CHECK_NEAR(c->overlap, a->overlap, 0);
    CHECK(strcmp(sim_report_clock_key(SIM_REPORT_CLOCK_SIM), "sim") == 0);
    CHECK(strcmp(sim_report_clock_key(SIM_REPORT_CLOCK_WALL), "wall") == 0);
    sim_trace_report_free(&s);
    sim_trace_report_free(&w);
    sim_trace_report_free(&d);
    return 0;
}

// Each kind of op on both clocks: compute ops by name, collectives by
// kind, the waits, other streams and markers left out, the most measured
// time first.
static int test_ops(void) {
    SimEvent ev[] = {
        walled(compute(0, 0, 1), 0, 3),       walled(compute(1, 0, 1), 0, 2),
        walled(named(0, "data.wait", 1, 2), 3, 9),
        walled(coll(0, SIM_COLL_ALL_REDUCE, 1, 1.5, 100), 3, 7),
        walled(coll(1, SIM_COLL_ALL_REDUCE, 1, 1.5, 100), 2, 6),
        walled(ev_base(0, SIM_EV_COMPUTE, SIM_STREAM_COMM, "copy", 0, 5), 0, 50),
        walled(named(1, "adam_step", 2, 2.25), 6, 6.5), walled(begin(0, 0, 0), 0, 0),
    };
    SimReportOps o;
    CHECK(sim_trace_report_ops(ev, sizeof ev / sizeof ev[0], &o) == SIM_OK);
    CHECK_EQ_INT(o.n, 3);
    CHECK(strcmp(o.op[0].name, "all_reduce") == 0);
    CHECK_EQ_INT(o.op[0].coll, SIM_COLL_ALL_REDUCE);
    CHECK_EQ_INT(o.op[0].calls, 2);
    CHECK_NEAR(o.op[0].sim_s, 1, TOL);
    CHECK_NEAR(o.op[0].wall_s, 8, TOL);
    CHECK_EQ_INT(o.op[0].bytes, 200);
    CHECK(strcmp(o.op[1].name, "linear_fwd") == 0);
    CHECK_EQ_INT(o.op[1].coll, -1);
    CHECK_EQ_INT(o.op[1].calls, 2);
    CHECK_NEAR(o.op[1].sim_s, 2, TOL);
    CHECK_NEAR(o.op[1].wall_s, 5, TOL);
    CHECK_EQ_INT(o.op[1].bytes, 0);
    CHECK(strcmp(o.op[2].name, "adam_step") == 0);
    CHECK_NEAR(o.op[2].wall_s, 0.5, TOL);
    sim_trace_report_ops_free(&o);
    CHECK(o.op == NULL && o.n == 0);
    CHECK(sim_trace_report_ops(NULL, 0, &o) == SIM_OK && o.n == 0);
    sim_trace_report_ops_free(&o);
    return 0;
}

// From a later step on: one rank, steps at 0, 10 and 20; compute [0,10],
// [10,12], [20,25]. From step 2 the window is [10,25]: two steps, compute
// 7, idle 8 ([12,20]); the first step is left out as the set-up is. From
// step 4 there is none.
static int test_from_step(void) {
    SimEvent ev[] = {begin(0, 20, 2), compute(0, 20, 25), begin(0, 0, 0), compute(0, 0, 10),
                     begin(0, 10, 1), compute(0, 10, 12)};
    SimTraceReport r;
    char err[256];
    CHECK(sim_trace_report_from(ev, 6, 0, SIM_REPORT_CLOCK_SIM, 2, &r, err, sizeof err) ==
          SIM_OK);
    CHECK_EQ_INT(r.first_step, 2);
    CHECK_EQ_INT(r.steps, 2);
    const SimReportRank *k = &r.rank[0];
    CHECK_EQ_INT(k->steps, 2);
    CHECK_NEAR(k->start, 10, TOL);
    CHECK_NEAR(k->span, 15, TOL);
    CHECK_NEAR(k->compute, 7, TOL);
    CHECK_NEAR(k->idle, 8, TOL);
    CHECK_NEAR(k->step[0].start, 10, TOL);
    CHECK_NEAR(k->step[0].span, 10, TOL);
    CHECK_NEAR(k->step[0].idle, 8, TOL);
    CHECK_NEAR(k->step[1].span, 5, TOL);
    sim_trace_report_free(&r);
    CHECK(sim_trace_report_from(ev, 6, 0, SIM_REPORT_CLOCK_SIM, 1, &r, err, sizeof err) ==
          SIM_OK);
    CHECK_EQ_INT(r.first_step, 1);
    CHECK_EQ_INT(r.rank[0].steps, 3);
    CHECK_NEAR(r.rank[0].span, 25, TOL);
    sim_trace_report_free(&r);
    CHECK(sim_trace_report_from(ev, 6, 0, SIM_REPORT_CLOCK_SIM, 4, &r, err, sizeof err) ==
          SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 0 has 3 steps: none from step 4 on");
    CHECK(sim_trace_report_from(ev, 6, 0, SIM_REPORT_CLOCK_SIM, 0, &r, err, sizeof err) ==
          SIM_EINVAL);
    return 0;
}

int main(void) {
    int fails = 0;
    fails += test_from_step();
    fails += test_ops();
    fails += test_clocks();
    fails += test_overlap();
    fails += test_per_step();
    fails += test_data_wait();
    fails += test_host_wait();
    fails += test_slowest();
    fails += test_random_adds_up();
    fails += test_errors();
    if (fails == 0)
        printf("test_trace_report: ok\n");
    return fails != 0;
}
