// cli/report/report_png.c: `ddplab report --png FILE`: one stacked horizontal bar
// per rank, its total split into compute, exposed comm, data wait and idle
// (left to right), on a common time axis, drawn with the chart code's
// raster primitives (viz/raster.h) and written as a PNG.
//
// Layout (pixels): title band TOP high; then one bar of BAR_H plus GAP per
// rank (at most MAX_BARS drawn); the time axis with its ticks; the legend.
#include <stdlib.h>
#include <string.h>

#include "plot.h"   // defines: VizImage, viz_png_write, viz_ticks_linear
#include "raster.h" // defines: viz_fill_rect, viz_draw_text, VizRgb
#include "report/report.h"

enum {
    WIDTH = 800,
    LEFT = 70,  // rank labels
    RIGHT = 30,
    TOP = 40,   // title
    BAR_H = 24,
    GAP = 8,
    AXIS_H = 40, // ticks and the axis label
    LEGEND_H = 30,
    MAX_BARS = 256,
};

#define NPARTS 4

static const char *const part_names[NPARTS] = {"compute", "exposed comm", "data wait", "idle"};
static const VizRgb part_rgb[NPARTS] = {
    {0x1f, 0x77, 0xb4}, // compute: blue
    {0xd6, 0x27, 0x28}, // exposed comm: red
    {0xff, 0x7f, 0x0e}, // data wait: orange
    {0xc7, 0xc7, 0xc7}, // idle: light grey
};

SimStatus report_png(const char *path, const VizTrace *t, const SimTraceReport *r, char *err,
                     size_t errlen) {
    (void)t;
    if (!viz_png_available()) {
        snprintf(err, errlen, "--png: this build has no PNG output (libpng was not found)");
        return SIM_ENOTSUP;
    }
    int nbars = r->nranks < MAX_BARS ? r->nranks : MAX_BARS;
    double most = 0;
    for (int i = 0; i < nbars; i++)
        if (r->rank[i].span > most)
            most = r->rank[i].span;
    // The axis unit, from the longest bar.
    const char *uname = "us";
    double scale = 1e6;
    if (most >= 1)
        uname = "s", scale = 1;
    else if (most >= 1e-3)
        uname = "ms", scale = 1e3;
    VizTicks ticks;
    if (viz_ticks_linear(0, most > 0 ? most * scale : 1, 8, &ticks) != SIM_OK) {
        snprintf(err, errlen, "--png: no time to draw");
        return SIM_EINVAL;
    }
    VizImage img = {WIDTH, TOP + nbars * (BAR_H + GAP) + AXIS_H + LEGEND_H, NULL};
    if (img.h < VIZ_PLOT_MIN_SIDE)
        img.h = VIZ_PLOT_MIN_SIDE;
    img.rgb = malloc((size_t)img.w * (size_t)img.h * 3);
    if (img.rgb == NULL) {
        snprintf(err, errlen, "out of memory drawing %s", path);
        return SIM_ENOMEM;
    }
    memset(img.rgb, 0xff, (size_t)img.w * (size_t)img.h * 3);
    const VizRgb black = {0, 0, 0}, grid = {0xe0, 0xe0, 0xe0};
    int x0 = LEFT, x1 = WIDTH - RIGHT, y_axis = TOP + nbars * (BAR_H + GAP);
    double span_px = (double)(x1 - x0) / (ticks.hi > 0 ? ticks.hi : 1);
    char title[200];
    snprintf(title, sizeof title, "time per rank over %d step%s", r->steps,
             r->steps == 1 ? "" : "s");
    viz_draw_text(&img, (WIDTH - viz_text_width(title, 2)) / 2, 10, title, 2, black);
    // Gridlines and ticks.
    for (int k = 0; k < ticks.n; k++) {
        int x = x0 + (int)(ticks.v[k] * span_px + 0.5);
        viz_fill_rect(&img, x, TOP - 4, x, y_axis, grid);
        viz_fill_rect(&img, x, y_axis, x, y_axis + 4, black);
        char lab[32];
        viz_tick_label(&ticks, ticks.v[k], lab, sizeof lab);
        viz_draw_text(&img, x - viz_text_width(lab, 1) / 2, y_axis + 8, lab, 1, black);
    }
    viz_fill_rect(&img, x0, y_axis, x1, y_axis, black);
    viz_fill_rect(&img, x0, TOP - 4, x0, y_axis, black);
    char xl[32];
    snprintf(xl, sizeof xl, "time (%s)", uname);
    viz_draw_text(&img, (x0 + x1 - viz_text_width(xl, 1)) / 2, y_axis + 22, xl, 1, black);
    // The bars.
    for (int i = 0; i < nbars; i++) {
        const SimReportRank *k = &r->rank[i];
        const double part[NPARTS] = {k->compute, k->exposed, k->data_wait, k->idle};
        int y = TOP + i * (BAR_H + GAP);
        char lab[32];
        snprintf(lab, sizeof lab, "rank %d", i);
        viz_draw_text(&img, x0 - 6 - viz_text_width(lab, 1), y + BAR_H / 2 - 4, lab, 1,
                      black);
        double acc = 0;
        int xa = x0;
        for (int p = 0; p < NPARTS; p++) {
            acc += part[p] * scale;
            int xb = x0 + (int)(acc * span_px + 0.5);
            if (xb > xa)
                viz_fill_rect(&img, xa + 1, y, xb, y + BAR_H - 1, part_rgb[p]);
            xa = xb > xa ? xb : xa;
        }
        if (i == r->slowest)
            viz_draw_text(&img, xa + 4 < x1 - 40 ? xa + 4 : x1 - 40, y + BAR_H / 2 - 4,
                          "slowest", 1, black);
    }
    // The legend: a swatch and a name per part, in one row.
    int lx = x0, ly = y_axis + AXIS_H;
    for (int p = 0; p < NPARTS; p++) {
        viz_fill_rect(&img, lx, ly, lx + 11, ly + 9, part_rgb[p]);
        viz_draw_text(&img, lx + 16, ly + 1, part_names[p], 1, black);
        lx += 16 + viz_text_width(part_names[p], 1) + 24;
    }
    SimStatus st = viz_png_write(path, &img, err, errlen);
    viz_image_free(&img);
    return st;
}
