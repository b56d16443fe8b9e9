// viz/plots.h: the charts of a whole trace, as chart data (chart.h) built
// from the scene model's series; the caller draws them with
// viz_chart_write. Building them needs no cairo, so the program and the
// tests can check what a chart will hold without drawing it.
//
//   viz_plot_loss    the loss logged at each iteration's end against the
//                    iteration (whole ticks; a log axis when the loss falls
//                    by more than a factor of 30), the last value noted;
//   viz_plot_memory  each rank's device memory over simulated time, stacked
//                    by category (the view's colours), the device's
//                    capacity as a line when it is on the scale and the
//                    peak noted. Ranks that are alike (every category within
//                    VIZ_PLOT_ALIKE of the peak at every instant) share ONE
//                    panel; ranks that differ get a panel each (small
//                    multiples, one y range), the first VIZ_CHART_MAX_PANELS.
//
//   VizPlot p;
//   if (viz_plot_memory(m, &p, err, sizeof err) == SIM_OK)
//       st = viz_chart_write(&p.chart, "mem.svg", err, sizeof err);
//   viz_plot_free(&p);
#ifndef DDPLAB_VIZ_PLOTS_H
#define DDPLAB_VIZ_PLOTS_H

#include <stddef.h>

#include "base/status.h"   // defines: SimStatus
#include "chart.h"         // defines: VizChart
#include "engine/memory.h" // defines: SIM_MEM_CAT_COUNT
#include "scene.h"         // defines: VizModel

// Ranks are alike when they differ by at most this share of the peak.
#define VIZ_PLOT_ALIKE 0.01

enum {
    VIZ_PLOT_MAX_POINTS = 2000, // per series; more are thinned, peaks kept
    VIZ_PLOT_MAX_CATS = SIM_MEM_CAT_COUNT,
};

// A chart and everything it points to. The arrays (x, y) are owned here.
typedef struct {
    VizChart chart;
    VizChartPanel panel[VIZ_CHART_MAX_PANELS];
    VizChartSeries series[VIZ_CHART_MAX_PANELS * VIZ_PLOT_MAX_CATS];
    VizChartRule rule[VIZ_CHART_MAX_PANELS];
    VizChartNote note[VIZ_CHART_MAX_PANELS];
    int panel_rank[VIZ_CHART_MAX_PANELS]; // the rank each panel shows
    char title[160], subtitle[200];
    char panel_title[VIZ_CHART_MAX_PANELS][32];
    char note_text[VIZ_CHART_MAX_PANELS][96];
    char rule_text[96];
    double *buf; // every series' x and y
} VizPlot;

// Fill *p (release with viz_plot_free, whatever they return). SIM_EINVAL
// with a message when the trace has nothing to plot (a benchmark has no
// loss; no memory events), SIM_ENOMEM.
SimStatus viz_plot_loss(const VizModel *m, VizPlot *p, char *err, size_t errlen);
SimStatus viz_plot_memory(const VizModel *m, VizPlot *p, char *err, size_t errlen);
void viz_plot_free(VizPlot *p);
// "ddp, 4 ranks" (or "4 ranks" when the trace does not name its strategy).
void viz_plot_run_name(const VizModel *m, char *buf, size_t len);

#endif
