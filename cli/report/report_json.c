// cli/report/report_json.c: `ddplab report --json`: one JSON document on stdout,
// times in seconds, bytes as integers:
//   {"trace": "...", "title": "...", "ranks": R, "steps": S, "first_step": K,
//    "per_rank": [{"rank", "steps", "total_s", "mean_step_s" (null without
//                  steps), "compute_s", "data_wait_s",
//                  "exposed_comm_s", "idle_s", "comm_busy_s", "overlap_s",
//                  "overlap_pct" (null without comm), "ps_wait_s", "host_wait_s",
//                  "sum_error_s", "step_times": [{"step", "start_s",
//                  "total_s", "compute_s", "data_wait_s", "exposed_comm_s",
//                  "idle_s"}, ...], "peak_device_bytes", "peak_host_bytes",
//                  "peak_by_category": {"param": B, ...}}, ...],
//    "check": {"adds_up": true, "max_error_s": E},
//    "collectives": {"all_reduce": {"calls", "bytes", "sent_bytes"}, ...},
//    "slowest": {"rank", "why", "value", "others_mean_s", "text"} or null,
//    "clock": "sim" or "wall" (the clock of every time above)}
// With --clock both, each per_rank entry also has "measured": {"total_s",
// "mean_step_s", the four parts, "comm_busy_s", "overlap_s",
// "overlap_pct"} on the measured clock, and the document has "ops": [{"name",
// "collective", "calls", "sim_s", "wall_s", "bytes"}, ...] (every kind of op,
// the most measured time first).
#include <math.h>
#include <string.h>

#include "base/outfile.h"  // defines: SimJsonOut
#include "coll/coll.h"     // defines: sim_coll_name
#include "engine/memory.h" // defines: sim_mem_cat_key
#include "report/report.h"

static void num(SimJsonOut *o, const char *k, double v) {
    sim_json_key(o, k, 0);
    sim_json_num(o, v);
}

// The four parts of a span, which add up to it (a rank's, or one step's).
static void parts(SimJsonOut *o, double compute, double data_wait, double exposed,
                  double idle) {
    num(o, "compute_s", compute);
    num(o, "data_wait_s", data_wait);
    num(o, "exposed_comm_s", exposed);
    num(o, "idle_s", idle);
}

// A rank's times: its total, mean step, four parts and communication
// (first: the object's first key).
static void rank_times(SimJsonOut *o, const SimReportRank *k, int first) {
    sim_json_key(o, "total_s", first);
    sim_json_num(o, k->span);
    sim_json_key(o, "mean_step_s", 0);
    if (k->steps > 0)
        sim_json_num(o, k->span / k->steps);
    else
        sim_json_raw(o, "null");
    parts(o, k->compute, k->data_wait, k->exposed, k->idle);
    num(o, "comm_busy_s", k->comm);
    num(o, "overlap_s", k->overlap);
    sim_json_key(o, "overlap_pct", 0);
    if (k->comm > 0)
        sim_json_num(o, 100 * k->overlap / k->comm);
    else
        sim_json_raw(o, "null");
}

static void rank_json(SimJsonOut *o, int i, const SimReportRank *k, int first_step,
                      const SimReportRank *wall) {
    sim_json_raw(o, i ? ",\n    {" : "\n    {");
    sim_json_key(o, "rank", 1);
    sim_json_i64(o, i);
    sim_json_key(o, "steps", 0);
    sim_json_i64(o, k->steps);
    rank_times(o, k, 0);
    if (wall != NULL) {
        sim_json_key(o, "measured", 0);
        sim_json_raw(o, "{");
        rank_times(o, wall, 1);
        sim_json_raw(o, "}");
    }
    num(o, "ps_wait_s", k->ps_wait);
    num(o, "host_wait_s", k->host_wait);
    num(o, "sum_error_s", k->sum_error);
    sim_json_key(o, "step_times", 0); // each step's own parts
    sim_json_raw(o, "[");
    for (int j = 0; j < k->steps; j++) {
        const SimReportStep *st = &k->step[j];
        sim_json_raw(o, j ? ", {" : "{");
        sim_json_key(o, "step", 1);
        sim_json_i64(o, j + first_step);
        num(o, "start_s", st->start);
        num(o, "total_s", st->span);
        parts(o, st->compute, st->data_wait, st->exposed, st->idle);
        sim_json_raw(o, "}");
    }
    sim_json_raw(o, "]");
    sim_json_key(o, "peak_device_bytes", 0);
    sim_json_i64(o, k->mem_peak_total);
    sim_json_key(o, "peak_host_bytes", 0);
    sim_json_i64(o, k->host_peak_total);
    sim_json_key(o, "peak_by_category", 0);
    sim_json_raw(o, "{");
    int first = 1;
    for (int c = 0; c < SIM_MEM_CAT_COUNT; c++) {
        if (c == SIM_MEM_BACKING)
            continue;
        sim_json_key(o, sim_mem_cat_key((SimMemCat)c), first);
        sim_json_i64(o, k->mem_peak[c]);
        first = 0;
    }
    sim_json_raw(o, "}}");
}

// "ops": each kind of op's time on both clocks (--clock both).
static void ops_json(SimJsonOut *o, const SimReportOps *ops) {
    sim_json_raw(o, ",\n");
    sim_json_key(o, "ops", 1);
    sim_json_raw(o, "[");
    for (int i = 0; i < ops->n; i++) {
        const SimReportOp *k = &ops->op[i];
        sim_json_raw(o, i ? ",\n    {" : "\n    {");
        sim_json_key(o, "name", 1);
        sim_json_str(o, k->name);
        sim_json_key(o, "collective", 0);
        sim_json_raw(o, k->coll >= 0 ? "true" : "false");
        sim_json_key(o, "calls", 0);
        sim_json_u64(o, k->calls);
        num(o, "sim_s", k->sim_s);
        num(o, "wall_s", k->wall_s);
        sim_json_key(o, "bytes", 0);
        sim_json_u64(o, k->bytes);
        sim_json_raw(o, "}");
    }
    sim_json_raw(o, "]");
}

void report_print_json(FILE *out, const VizTrace *t, const SimTraceReport *r,
                       const SimTraceReport *measured, const SimReportOps *ops) {
    SimJsonOut o;
    sim_json_begin(&o, out);
    sim_json_raw(&o, "{");
    sim_json_key(&o, "trace", 1);
    sim_json_str(&o, t->source);
    sim_json_key(&o, "title", 0);
    sim_json_str(&o, t->info.title);
    sim_json_key(&o, "ranks", 0);
    sim_json_i64(&o, r->nranks);
    sim_json_key(&o, "steps", 0);
    sim_json_i64(&o, r->steps);
    sim_json_key(&o, "first_step", 0);
    sim_json_i64(&o, r->first_step);
    sim_json_key(&o, "per_rank", 0);
    sim_json_raw(&o, "[");
    int ok = 1;
    for (int i = 0; i < r->nranks; i++) {
        rank_json(&o, i, &r->rank[i], r->first_step, measured ? &measured->rank[i] : NULL);
        if (fabs(r->rank[i].sum_error) > 1e-9 * (r->rank[i].span > 0 ? r->rank[i].span : 1))
            ok = 0;
    }
    sim_json_raw(&o, "],\n");
    sim_json_key(&o, "check", 1);
    sim_json_raw(&o, "{\"adds_up\": ");
    sim_json_raw(&o, ok ? "true" : "false");
    num(&o, "max_error_s", r->max_sum_error);
    sim_json_raw(&o, "},\n");
    sim_json_key(&o, "collectives", 1);
    sim_json_raw(&o, "{");
    int first = 1;
    for (int c = 0; c < SIM_COLL_COUNT; c++) {
        const SimReportColl *k = &r->coll[c];
        if (k->calls == 0 && k->sent_bytes == 0)
            continue;
        sim_json_key(&o, sim_coll_name((SimCollKind)c), first);
        sim_json_raw(&o, "{\"calls\": ");
        sim_json_u64(&o, k->calls);
        sim_json_raw(&o, ", \"bytes\": ");
        sim_json_u64(&o, k->bytes);
        sim_json_raw(&o, ", \"sent_bytes\": ");
        sim_json_u64(&o, k->sent_bytes);
        sim_json_raw(&o, "}");
        first = 0;
    }
    sim_json_raw(&o, "},\n");
    sim_json_key(&o, "slowest", 1);
    if (r->slowest < 0) {
        sim_json_raw(&o, "null");
    } else {
        char why[256];
        sim_trace_report_why(r, why, sizeof why);
        sim_json_raw(&o, "{\"rank\": ");
        sim_json_i64(&o, r->slowest);
        sim_json_raw(&o, ", \"why\": ");
        sim_json_str(&o, sim_report_why_key(r->why));
        num(&o, "value", r->why_value);
        num(&o, "others_mean_s", r->others_mean);
        sim_json_raw(&o, ", \"text\": ");
        sim_json_str(&o, why);
        sim_json_raw(&o, "}");
    }
    if (ops != NULL)
        ops_json(&o, ops);
    sim_json_raw(&o, ",\n");
    sim_json_key(&o, "clock", 1);
    sim_json_str(&o, sim_report_clock_key(r->clock));
    sim_json_raw(&o, "}\n");
    sim_json_flush(&o);
}
