// viz/chart_layout.c: where the title, the legend and the panels of a chart
// go. Top to bottom: the title, the subtitle, the legend (wrapped into
// rows), then the panels in a grid (each with its title above, its y tick
// labels and axis label at its left, its x tick labels below), and the x
// axis' label under the bottom row. Sizes follow the font size, which
// follows the image's size.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h"
#include "chart_draw.h"

static int columns_of(const VizChart *c) {
    if (c->columns > 0)
        return c->columns < c->npanels ? c->columns : c->npanels;
    return c->npanels <= 3 ? 1 : 2;
}

// The widest y label a panel needs at its left: tick labels, or the rows'
// names of a bar panel.
static double left_labels_w(VizGfx *g, const VizChartPanel *p, const VizChartScale *ys,
                            double px) {
    double most = 0, w;
    char buf[48];
    if (p->nrows > 0) {
        for (int i = 0; i < p->nrows; i++) {
            viz_gfx_text_size(g, p->rows[i] ? p->rows[i] : "", px, VIZ_FONT_SANS, &w, NULL);
            most = w > most ? w : most;
        }
        return most;
    }
    for (int i = 0; i < ys->t.n; i++) {
        viz_chart_tick_label(ys, ys->t.v[i], buf, sizeof buf);
        viz_gfx_text_size(g, buf, px, VIZ_FONT_SANS, &w, NULL);
        most = w > most ? w : most;
    }
    return most;
}

// The legend's rows: items laid left to right, wrapped at width w. Returns
// its height.
static double legend_height(VizGfx *g, const VizChartLayout *l, double w, double px) {
    if (l->nlegend == 0)
        return 0;
    double x = 0, rows = 1;
    for (int i = 0; i < l->nlegend; i++) {
        double item = viz_chart_legend_item_w(g, &l->legend[i], px);
        if (x > 0 && x + item > w)
            rows++, x = 0;
        x += item;
    }
    return rows * px * 1.6;
}

// Panels of one column start their data at the same x (the widest left
// margin of the column), so that a shared x axis lines up.
static void align_columns(VizChartLayout *l, int n, int cols) {
    for (int col = 0; col < cols; col++) {
        double x = 0;
        for (int p = col; p < n; p += cols)
            x = l->panel[p].area.x > x ? l->panel[p].area.x : x;
        for (int p = col; p < n; p += cols) {
            VizBox *a = &l->panel[p].area;
            a->w -= x - a->x;
            a->x = x;
        }
    }
}

// The bands above the panels: title, subtitle, legend. Returns where the
// panels start.
static double place_bands(VizGfx *g, const VizChart *c, VizChartLayout *l, double pad) {
    double px = l->font_px, top = pad;
    l->title_y = top;
    if (c->title)
        top += px * 1.45 * 1.4;
    l->subtitle_y = top;
    if (c->subtitle)
        top += px * 1.5;
    double lh = legend_height(g, l, l->w - 2 * pad, px);
    l->legend_box = (VizBox){pad, top + px * 0.3, l->w - 2 * pad, lh};
    return top + lh + (lh > 0 ? px * 0.6 : 0);
}

// Panel p in its cell of the grid (cols columns of cell_w x cell_h from
// (x0, y0)): titles above, y labels at the left, x tick labels below.
static void place_panel(VizGfx *g, const VizChart *c, VizChartLayout *l, int p, int cols,
                        double x0, double y0, double cell_w, double cell_h) {
    const VizChartPanel *pn = &c->panels[p];
    VizChartPlace *pl = &l->panel[p];
    double px = l->font_px;
    double cx = x0 + (p % cols) * cell_w, cy = y0 + (p / cols) * cell_h;
    double head = pn->title ? px * 1.7 : px * 0.6;
    // small multiples share one y scale: its label once a row, at the left
    pl->y_title = pn->y.label != NULL && (!c->share_y || p % cols == 0);
    double ylab = pl->y_title ? px * 1.8 : 0;
    double left = ylab + left_labels_w(g, pn, &pl->ys, px) + px * 0.8;
    double foot = px * 1.9; // the x tick labels
    double gap = cols > 1 && p % cols != cols - 1 ? px * 1.5 : px * 0.8;
    pl->cell = (VizBox){cx, cy, cell_w, cell_h};
    pl->area = (VizBox){cx + left, cy + head, cell_w - left - gap, cell_h - head - foot};
}

SimStatus viz_chart_layout(VizGfx *g, const VizChart *c, int w, int h, VizChartLayout *l,
                           char *err, size_t errlen) {
    memset(l, 0, sizeof *l);
    l->w = w, l->h = h;
    double scale = fmin(w / (double)VIZ_CHART_DEFAULT_W, h / (double)VIZ_CHART_DEFAULT_H);
    double px = fmax(10, 13 * fmax(scale, 0.8));
    l->font_px = px;
    l->npanels = c->npanels;
    for (int p = 0; p < c->npanels; p++) {
        SimStatus st = viz_chart_scales(c, p, &l->panel[p].xs, &l->panel[p].ys, err, errlen);
        if (st != SIM_OK)
            return st;
    }
    viz_chart_collect_legend(c, l);
    double pad = px * 1.2, top = place_bands(g, c, l, pad);
    double bottom = h - pad - (c->x.label ? px * 1.6 : 0);
    int cols = columns_of(c), rows = (c->npanels + cols - 1) / cols;
    double cell_w = (w - 2 * pad) / cols, cell_h = (bottom - top) / rows;
    for (int p = 0; p < c->npanels; p++)
        place_panel(g, c, l, p, cols, pad, top, cell_w, cell_h);
    align_columns(l, c->npanels, cols);
    for (int p = 0; p < c->npanels; p++)
        if (l->panel[p].area.w < 20 || l->panel[p].area.h < 20)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "the chart is too small for "
                                   "its %d panel%s", c->npanels, c->npanels == 1 ? "" : "s");
    return SIM_OK;
}
