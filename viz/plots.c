// viz/plots.c: the loss and memory charts of a trace (plots.h), drawn by
// plot.h from the series the scene model keeps.
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "plot.h"

// "ddp, 4 ranks" (or "4 ranks" when the trace does not name its strategy).
static void run_name(const VizModel *m, char *buf, size_t len) {
    const VizTrace *t = viz_model_trace(m);
    if (t->info.strategy[0])
        snprintf(buf, len, "%s, %d rank%s", t->info.strategy, t->nranks,
                 t->nranks == 1 ? "" : "s");
    else
        snprintf(buf, len, "%d rank%s", t->nranks, t->nranks == 1 ? "" : "s");
}

SimStatus viz_plot_loss_png(const VizModel *m, const char *path, char *err, size_t errlen) {
    if (m == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace to plot");
    const double *x, *y;
    size_t n = viz_model_loss(m, &x, &y);
    double lo = INFINITY, hi = 0;
    size_t finite = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            continue;
        finite++;
        lo = y[i] < lo ? y[i] : lo;
        hi = y[i] > hi ? y[i] : hi;
    }
    if (finite == 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "cannot plot the loss to %s: the trace has no loss values (the "
                               "training loop of ddplab run logs one at each iteration's "
                               "end; a benchmark logs none)",
                               path ? path : "a file");
    if (n > (size_t)INT32_MAX)
        n = (size_t)INT32_MAX;
    char name[64], title[128];
    run_name(m, name, sizeof name);
    snprintf(title, sizeof title, "loss per iteration (%s)", name);
    VizPlotSpec spec = {title, "iteration", "loss", 0, 0, 0, 0};
    // A loss that falls by more than a factor of 30 reads better on a log axis.
    spec.logy = lo > 0 && hi / lo > 30 ? 1 : 0;
    VizSeries s = {"loss", (int)n, x, y};
    return viz_plot_png(path, &spec, &s, 1, err, errlen);
}

// Units for a range of values: the largest of the table's steps that is at
// most hi (the first one when none is).
typedef struct {
    const char *name;
    double div;
} Unit;

static Unit pick_unit(const Unit *u, int n, double hi) {
    Unit best = u[0];
    for (int i = 0; i < n; i++)
        if (hi >= u[i].div)
            best = u[i];
    return best;
}

SimStatus viz_plot_memory_png(const VizModel *m, const char *path, char *err, size_t errlen) {
    if (m == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace to plot");
    int nranks = viz_model_trace(m)->nranks;
    int shown = nranks < VIZ_PLOT_MAX_SERIES ? nranks : VIZ_PLOT_MAX_SERIES;
    double tmax = 0, bmax = 0;
    size_t total = 0;
    for (int r = 0; r < shown; r++) {
        const double *x, *y;
        size_t n = viz_model_memory(m, r, &x, &y);
        for (size_t i = 0; i < n; i++) {
            tmax = x[i] > tmax ? x[i] : tmax;
            bmax = y[i] > bmax ? y[i] : bmax;
        }
        total += n;
    }
    if (total == 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "cannot plot memory to %s: the trace has no memory events",
                               path ? path : "a file");
    static const Unit times[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
    static const Unit sizes[] = {{"bytes", 1},
                                 {"KiB", 1024.0},
                                 {"MiB", 1024.0 * 1024},
                                 {"GiB", 1024.0 * 1024 * 1024}};
    Unit tu = pick_unit(times, 3, tmax), bu = pick_unit(sizes, 4, bmax);

    // Memory holds its value until the next event: each point after the
    // first is preceded by the previous value at its time, so the lines
    // are steps. 2n - 1 points per rank.
    VizSeries s[VIZ_PLOT_MAX_SERIES];
    char labels[VIZ_PLOT_MAX_SERIES][16];
    double *buf = malloc(2 * (2 * total + (size_t)shown) * sizeof *buf);
    if (buf == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the memory plot");
    double *next = buf;
    int ns = 0;
    for (int r = 0; r < shown; r++) {
        const double *x, *y;
        size_t n = viz_model_memory(m, r, &x, &y);
        if (n == 0)
            continue;
        double *px = next, *py = next + 2 * n;
        next += 4 * n;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (i > 0) {
                px[k] = x[i] / tu.div;
                py[k++] = y[i - 1] / bu.div;
            }
            px[k] = x[i] / tu.div;
            py[k++] = y[i] / bu.div;
        }
        snprintf(labels[ns], sizeof labels[ns], "rank %d", r);
        s[ns] = (VizSeries){labels[ns], (int)(k < (size_t)INT32_MAX ? k : (size_t)INT32_MAX),
                            px, py};
        ns++;
    }
    char name[64], title[160], xl[48], yl[48];
    run_name(m, name, sizeof name);
    if (shown < nranks)
        snprintf(title, sizeof title, "device memory per rank (%s; ranks 0-%d shown)", name,
                 shown - 1);
    else
        snprintf(title, sizeof title, "device memory per rank (%s)", name);
    snprintf(xl, sizeof xl, "simulated time (%s)", tu.name);
    snprintf(yl, sizeof yl, "device memory (%s)", bu.name);
    VizPlotSpec spec = {title, xl, yl, 0, 0, 0, 0};
    SimStatus st = viz_plot_png(path, &spec, s, ns, err, errlen);
    free(buf);
    return st;
}
