// viz/plots.c: the loss chart of a trace and what every trace chart shares
// (plots.h); the memory chart is plots_memory.c.
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"

void viz_plot_run_name(const VizModel *m, char *buf, size_t len) {
    const VizTrace *t = viz_model_trace(m);
    if (t->info.strategy[0])
        snprintf(buf, len, "%s, %d rank%s", t->info.strategy, t->nranks,
                 t->nranks == 1 ? "" : "s");
    else
        snprintf(buf, len, "%d rank%s", t->nranks, t->nranks == 1 ? "" : "s");
}

void viz_plot_free(VizPlot *p) {
    free(p->buf);
    memset(p, 0, sizeof *p);
}

SimStatus viz_plot_loss(const VizModel *m, VizPlot *p, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    if (m == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace to plot");
    const double *x, *y;
    size_t n = viz_model_loss(m, &x, &y);
    double lo = INFINITY, hi = 0;
    size_t finite = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            continue;
        finite++, last = i;
        lo = y[i] < lo ? y[i] : lo;
        hi = y[i] > hi ? y[i] : hi;
    }
    if (finite == 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "the trace has no loss values (the training loop of ddplab "
                               "run logs one at each iteration's end; a benchmark logs none)");
    char name[64];
    viz_plot_run_name(m, name, sizeof name);
    snprintf(p->title, sizeof p->title, "loss per iteration (%s)", name);
    snprintf(p->note_text[0], sizeof p->note_text[0], "%.4g at iteration %.0f", y[last],
             x[last]);
    p->series[0] = (VizChartSeries){.label = NULL, .kind = VIZ_CHART_LINE, .n = n, .x = x,
                                    .y = y, .dots = n <= 60};
    p->note[0] = (VizChartNote){x[last], y[last], p->note_text[0]};
    // A loss that falls by more than a factor of 30 reads better on a log axis.
    int logy = lo > 0 && hi / lo > 30 ? 10 : 0;
    p->panel[0] = (VizChartPanel){.y = {.label = "loss", .log = logy},
                                  .series = p->series, .nseries = 1,
                                  .notes = p->note, .nnotes = 1};
    p->chart = (VizChart){.title = p->title,
                          .x = {.label = "iteration", .integer = 1},
                          .panels = p->panel, .npanels = 1};
    return SIM_OK;
}
