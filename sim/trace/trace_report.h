// sim/trace/trace_report.h: a per-rank summary of a recorded run, as profilers
// give one: where each rank's step time went (compute, data wait, exposed
// communication, idle), how much communication hid under compute, the
// slowest rank and why, bytes per collective kind, peak memory per category.
// A plain function over an array of events (any order), so tests feed it
// hand-built arrays with known answers.
//
// The steps. A rank's optimizer steps are delimited by the training loop's
// markers (SIM_EV_MARKER, name "iteration", label "begin"): step k runs
// from its begin to the next begin on that rank, the last one to the end of
// that rank's last event. Events before the first begin (set-up: the
// initial broadcast, allocations) are left out of the times. A rank with no
// begin marker (a parameter server) is measured from its first event's
// start to its last event's end and counted with steps = 0.
//
// The categories, within a rank's steps, as unions of intervals:
//   C compute:   SIM_EV_COMPUTE on SIM_STREAM_COMPUTE, except the names
//                "data.wait" and "ps.wait";
//   D data wait: "data.wait" (the compute stream waiting for a batch);
//   M comm busy: SIM_EV_COLL on any stream (one whole collective);
//   P ps wait:   "ps.wait" (blocked by the staleness bound): part of idle.
//   H host work: SIM_EV_COMPUTE on SIM_STREAM_HOST but the input pipeline's
//                ("data.*"): CPU offload's copies and optimizer step;
//                host_wait = |H \ (C u D u M)|, part of idle.
// Then, every instant of the span counted exactly once:
//   compute   = |C|
//   data_wait = |D \ C|            (on one stream they never overlap)
//   exposed   = |M \ (C u D)|      communication nothing hid
//   idle      = span - |C u D u M| (measured on its own, not as the rest)
//   overlap   = |M n C|, overlap % = overlap / |M|
// so compute + data_wait + exposed + idle = span for every rank, to
// rounding; SimReportRank.sum_error holds the difference.
//
// The clock: the simulated times (sim_start/sim_end, the cost model's) or
// the measured ones (wall_start/wall_end: the host's clock around each op
// on the cpu backend; on the cuda backend the GPU's own, from CUDA events,
// for math ops and NCCL calls). The same sweep runs on either, so the
// measured overlap of communication with compute is counted as the
// simulated one is.
//
// Bytes and memory are over the whole trace (set-up included): per
// collective kind the SIM_EV_COLL events of every rank (calls, buffer
// bytes) and the SIM_EV_XFER bytes that travelled; per rank the device
// ledger's peak of each category (rebuilt from the alloc / free events) and
// the peak of its total (`count`), host total too. Each step's own four
// parts come in SimReportRank.step, from the same sweep.
#ifndef DDPLAB_SIM_TRACE_REPORT_H
#define DDPLAB_SIM_TRACE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"   // defines: SimStatus
#include "coll/coll.h"     // defines: SIM_COLL_COUNT
#include "trace/mem_cat.h" // defines: SIM_MEM_CAT_COUNT
#include "trace/trace.h"   // defines: SimEvent

// One step of a rank: from its begin marker to the next (the last: to the
// rank's end), with the same four parts, which add up to its span.
typedef struct {
    double start, span;
    double compute, data_wait, exposed, idle;
} SimReportStep;

typedef struct {
    int steps;               // iteration-begin markers on this rank
    SimReportStep *step;     // [steps], heap: each step's own figures
    int events;              // events of this rank in the trace
    double start, end;       // the measured window (seconds, simulated)
    double span;             // end - start: the sum of its step times
    double compute, data_wait, exposed, idle;
    double comm;             // |M|: communication busy
    double overlap;          // |M n C|
    double ps_wait;          // "ps.wait" time (inside idle)
    double host_wait;        // idle time while the host worked (inside idle)
    double sum_error;        // compute + data_wait + exposed + idle - span
    int64_t mem_peak[SIM_MEM_CAT_COUNT]; // device bytes, each category's own peak
    int64_t mem_peak_total;  // device ledger total's peak (`count`)
    int64_t host_peak_total; // host ledger total's peak
} SimReportRank;

typedef struct {
    uint64_t calls;      // SIM_EV_COLL events, all ranks
    uint64_t bytes;      // their buffer bytes, all ranks
    uint64_t sent_bytes; // SIM_EV_XFER bytes of this kind, all ranks
} SimReportColl;

// Why the slowest rank is slowest.
typedef enum {
    SIM_REPORT_WHY_NONE = 0,   // one rank, or no time at all
    SIM_REPORT_WHY_SLOW_COMPUTE, // its compute well above the others' mean
    SIM_REPORT_WHY_DATA,       // data wait is its largest share
    SIM_REPORT_WHY_EXPOSED,    // exposed communication is its largest share
    SIM_REPORT_WHY_COMPUTE,    // compute is its largest share (compute-bound)
    SIM_REPORT_WHY_IDLE,       // idle is its largest share
} SimReportWhy;

typedef enum {
    SIM_REPORT_CLOCK_SIM = 0, // the simulated times
    SIM_REPORT_CLOCK_WALL,    // the measured times
} SimReportClock;

typedef struct {
    SimReportClock clock;    // the times every figure below is in
    int first_step;          // steps counted from this one (1-based); step[j] is
                             // step first_step + j of its rank
    int nranks;
    SimReportRank *rank;     // [nranks], heap
    int steps;               // the most steps on any rank
    SimReportColl coll[SIM_COLL_COUNT];
    int slowest;             // rank (among those with steps); -1 when none has a span
    SimReportWhy why;
    double why_value;        // SLOW_COMPUTE: its compute / the others' mean;
                             // otherwise that category's share of its span
    double others_mean;      // the others' mean of the category named
    double max_sum_error;    // the largest |sum_error| over the ranks
} SimTraceReport;

// Slow-compute threshold: a rank whose compute is this many times the
// others' mean is named a straggler whatever its largest share.
#define SIM_REPORT_SLOW_RATIO 1.2

// Summarises n events (nranks: 0 = 1 + the largest rank seen). On success
// *out owns an array to free with sim_trace_report_free. SIM_EINVAL with a
// message in err when no rank has an "iteration"/"begin" marker or an
// event's rank is out of range; SIM_ENOMEM. On failure *out holds nothing.
SimStatus sim_trace_report(const SimEvent *ev, size_t n, int nranks, SimTraceReport *out,
                           char *err, size_t errlen);
// The same on the chosen clock (sim_trace_report is SIM_REPORT_CLOCK_SIM).
SimStatus sim_trace_report_on(const SimEvent *ev, size_t n, int nranks, SimReportClock clock,
                              SimTraceReport *out, char *err, size_t errlen);
// The same from each rank's first_step-th step on (1-based; 1: every step):
// the steps before it are left out as the set-up is (warm-up steps whose
// measured times include one-time costs). SIM_EINVAL, err naming the rank,
// when a rank with steps has fewer than first_step.
SimStatus sim_trace_report_from(const SimEvent *ev, size_t n, int nranks, SimReportClock clock,
                                int first_step, SimTraceReport *out, char *err,
                                size_t errlen);
// The same over an engine trace as it stands (each rank's buffer, no
// merge), e.g. at the end of a run; its ranks are the trace's.
SimStatus sim_trace_report_of(const SimTrace *t, SimReportClock clock, SimTraceReport *out,
                              char *err, size_t errlen);
// "sim", "wall".
const char *sim_report_clock_key(SimReportClock c);
void sim_trace_report_free(SimTraceReport *r);

// One line on why the slowest rank is slowest, e.g. "rank 2: compute 3.0x
// the others' mean (a slow rank: the others wait for it)", "rank 0: waits
// for data (data wait 71% of its time)". Writes "" when why is NONE.
void sim_trace_report_why(const SimTraceReport *r, char *buf, size_t len);
// "none", "slow-compute", "data-wait", "exposed-comm", "compute-bound", "idle".
const char *sim_report_why_key(SimReportWhy w);

// Each kind of op's time on both clocks, over the whole trace and every
// rank: the compute stream's ops by name (the waits "data.wait" and
// "ps.wait" left out) and the collectives by kind (their buffer bytes too),
// sorted by measured time, the most first. Where the measured time of a
// kind is far from the simulated one, the hardware profile is off for it
// (the cuda backend measures with CUDA events, so those are the GPU's own
// kernel times).
typedef struct {
    const char *name;  // the op's event name ("linear_fwd") or the collective's
                       // kind ("all_reduce"); points into the events or static
    int coll;          // SimCollKind for a collective, -1 for a compute op
    uint64_t calls;    // events, all ranks
    double sim_s;      // summed simulated durations
    double wall_s;     // summed measured durations
    uint64_t bytes;    // collectives: summed buffer bytes; 0 for compute ops
} SimReportOp;

typedef struct {
    SimReportOp *op; // [n], heap
    int n;
} SimReportOps;

// SIM_ENOMEM (out then holds nothing). Free with sim_trace_report_ops_free.
SimStatus sim_trace_report_ops(const SimEvent *ev, size_t n, SimReportOps *out);
void sim_trace_report_ops_free(SimReportOps *o);

#endif
