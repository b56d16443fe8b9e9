// cli/bench/bench_plot.c: `ddplab bench --plot FILE`: bus bandwidth against
// message size (sizes on a log-2 axis, bandwidth on a log-10 one), one line
// each for the measured out-of-place and in-place calls and a dashed one for
// the simulated hardware, so the latency-bound start, the bandwidth plateau
// and the gap to the modelled links read at a glance. .png, .svg or .pdf.
#include "bench/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chart.h" // defines: VizChart, viz_chart_write

// Bytes per second for bytes moved in secs; NaN when there is no time, so
// the chart leaves the point out.
static double busbw(const BenchOptions *o, size_t count, double secs) {
    if (!(secs > 0))
        return NAN;
    double bytes = sim_coll_algbw_bytes(o->coll, count, o->dtype, o->nranks);
    return bytes / secs * sim_coll_busbw_factor(o->coll, o->nranks);
}

int bench_plot(const BenchRun *run, const char *path, char *err, size_t errlen) {
    const BenchOptions *o = run->opt;
    int n = run->nsizes;
    double *x = malloc((size_t)n * 4 * sizeof *x);
    if (x == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    double *y_oop = x + n, *y_ip = x + 2 * n, *y_sim = x + 3 * n;
    for (int p = 0; p < n; p++) {
        x[p] = (double)run->bytes[p];
        y_oop[p] = (o->modes & BENCH_OUT_OF_PLACE) ? busbw(o, run->counts[p], bench_time(run, p, 0))
                                                   : NAN;
        y_ip[p] = (o->modes & BENCH_IN_PLACE) ? busbw(o, run->counts[p], bench_time(run, p, 1))
                                              : NAN;
        y_sim[p] = busbw(o, run->counts[p], bench_sim_time(o, run->counts[p]));
    }
    char sim_label[96], title[128];
    snprintf(sim_label, sizeof sim_label, "simulated (%s)", o->sys.name);
    snprintf(title, sizeof title, "%s, %s, %d ranks: bus bandwidth per size", bench_coll_name(o->coll),
             sim_algo_name(bench_algo_resolved(o)), o->nranks);
    VizChartSeries s[3];
    int ns = 0;
    size_t k = (size_t)n;
    if (o->modes & BENCH_OUT_OF_PLACE)
        s[ns++] = (VizChartSeries){.label = "measured, out-of-place", .kind = VIZ_CHART_LINE,
                                   .ink = {VIZ_INK_AUTO, 0}, .n = k, .x = x, .y = y_oop,
                                   .dots = 1};
    if (o->modes & BENCH_IN_PLACE)
        s[ns++] = (VizChartSeries){.label = "measured, in-place", .kind = VIZ_CHART_LINE,
                                   .ink = {VIZ_INK_AUTO, 1}, .n = k, .x = x, .y = y_ip,
                                   .dots = 1};
    s[ns++] = (VizChartSeries){.label = sim_label, .kind = VIZ_CHART_LINE,
                               .ink = {VIZ_INK_MUTED, 0}, .n = k, .x = x, .y = y_sim,
                               .dashed = 1};
    VizChartPanel panel = {.y = {.label = "bus bandwidth", .unit = VIZ_UNIT_BYTES_S,
                                 .log = 10},
                           .series = s, .nseries = ns};
    VizChart c = {.title = title,
                  .x = {.label = "message size", .unit = VIZ_UNIT_BYTES, .log = 2},
                  .panels = &panel, .npanels = 1};
    SimStatus st = viz_chart_write(&c, path, err, errlen);
    free(x);
    return st == SIM_OK ? 0 : -1;
}
