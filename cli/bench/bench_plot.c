// cli/bench/bench_plot.c: `ddplab bench --plot FILE.png`: bus bandwidth against
// message size (both axes logarithmic), one line each for the measured
// out-of-place and in-place calls and one for the simulated hardware, so
// the latency-bound start, the bandwidth plateau and the gap to the
// modelled links read at a glance.
#include "bench/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot.h" // defines: viz_plot_png, VizSeries

// GB/s (1e9 bytes) for bytes moved in secs; NaN when there is no time, so
// the chart leaves the point out.
static double busbw(const BenchOptions *o, size_t count, double secs) {
    if (!(secs > 0))
        return NAN;
    double bytes = sim_coll_algbw_bytes(o->coll, count, o->dtype, o->nranks);
    return bytes / secs / 1e9 * sim_coll_busbw_factor(o->coll, o->nranks);
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
    snprintf(title, sizeof title, "%s, %s, %d ranks: bus bandwidth", bench_coll_name(o->coll),
             sim_algo_name(bench_algo_resolved(o)), o->nranks);
    VizSeries s[3];
    int ns = 0;
    if (o->modes & BENCH_OUT_OF_PLACE)
        s[ns++] = (VizSeries){"measured, out-of-place", n, x, y_oop};
    if (o->modes & BENCH_IN_PLACE)
        s[ns++] = (VizSeries){"measured, in-place", n, x, y_ip};
    s[ns++] = (VizSeries){sim_label, n, x, y_sim};
    VizPlotSpec spec = {.title = title, .xlabel = "message size (bytes)",
                        .ylabel = "busbw (GB/s)", .logx = 2, .logy = 10};
    SimStatus st = viz_plot_png(path, &spec, s, ns, err, errlen);
    free(x);
    return st == SIM_OK ? 0 : -1;
}
