// cli/report/report_png.c: `ddplab report --png FILE`: one stacked horizontal
// bar per rank, its total split into compute, exposed comm, data wait and
// idle (left to right), on a common time axis, drawn as a chart (chart.h)
// and written as PNG, SVG or PDF by the file name.
#include <stdio.h>
#include <stdlib.h>

#include "chart.h" // defines: VizChart, viz_chart_write
#include "report/report.h"

enum { MAX_BARS = 256, ROW_PX = 26 };

#define NPARTS 4

static const char *const part_names[NPARTS] = {"compute", "exposed comm", "data wait", "idle"};
static const unsigned part_rgb[NPARTS] = {
    0x1f77b4, // compute: blue
    0xd62728, // exposed comm: red
    0xff7f0e, // data wait: orange
    0xc7c7c7, // idle: light grey
};

// The bars' data: for part p, x[p][i] its seconds on rank i and y[p][i] = i;
// the rows' names. One block: [2 * NPARTS][nbars] doubles.
typedef struct {
    double *x[NPARTS], *y[NPARTS];
    char (*names)[32];
    const char **rows;
} Bars;

static int bars_make(Bars *b, const SimTraceReport *r, int nbars) {
    double *buf = malloc((size_t)nbars * 2 * NPARTS * sizeof *buf);
    b->names = malloc((size_t)nbars * sizeof *b->names);
    b->rows = malloc((size_t)nbars * sizeof *b->rows);
    if (buf == NULL || b->names == NULL || b->rows == NULL) {
        free(buf), free(b->names), free(b->rows);
        return -1;
    }
    for (int p = 0; p < NPARTS; p++)
        b->x[p] = buf + (size_t)p * nbars, b->y[p] = buf + (size_t)(NPARTS + p) * nbars;
    for (int i = 0; i < nbars; i++) {
        const SimReportRank *k = &r->rank[i];
        const double part[NPARTS] = {k->compute, k->exposed, k->data_wait, k->idle};
        for (int p = 0; p < NPARTS; p++)
            b->x[p][i] = part[p], b->y[p][i] = i;
        snprintf(b->names[i], sizeof b->names[i], i == r->slowest ? "rank %d (slowest)"
                 : "rank %d", i);
        b->rows[i] = b->names[i];
    }
    return 0;
}

static void bars_free(Bars *b) {
    free(b->x[0]), free(b->names), free(b->rows);
}

SimStatus report_png(const char *path, const VizTrace *t, const SimTraceReport *r, char *err,
                     size_t errlen) {
    (void)t;
    int nbars = r->nranks < MAX_BARS ? r->nranks : MAX_BARS;
    Bars b;
    if (nbars < 1 || bars_make(&b, r, nbars) != 0) {
        snprintf(err, errlen, nbars < 1 ? "--png: no rank to draw" : "out of memory drawing %s",
                 path);
        return nbars < 1 ? SIM_EINVAL : SIM_ENOMEM;
    }
    VizChartSeries s[NPARTS];
    for (int p = 0; p < NPARTS; p++)
        s[p] = (VizChartSeries){.label = part_names[p], .kind = VIZ_CHART_BARS,
                                .ink = {VIZ_INK_HEX, part_rgb[p]}, .n = (size_t)nbars,
                                .x = b.x[p], .y = b.y[p]};
    VizChartPanel panel = {.series = s, .nseries = NPARTS, .rows = b.rows, .nrows = nbars};
    char title[200], sub[96];
    snprintf(title, sizeof title, "time per rank over %d step%s", r->steps,
             r->steps == 1 ? "" : "s");
    snprintf(sub, sizeof sub, "%d rank%s; the slowest is marked", nbars,
             nbars == 1 ? "" : "s");
    if (nbars < r->nranks)
        snprintf(sub, sizeof sub, "ranks 0-%d of %d shown", nbars - 1, r->nranks);
    int h = 170 + nbars * ROW_PX;
    VizChart c = {.title = title, .subtitle = sub,
                  .x = {.label = "time", .unit = VIZ_UNIT_SECONDS, .from_zero = 1},
                  .panels = &panel, .npanels = 1, .height = h < 320 ? 320 : h};
    SimStatus st = viz_chart_write(&c, path, err, errlen);
    bars_free(&b);
    return st;
}
