// viz/chart_axes.c: what frames each panel's data: light gridlines at the
// ticks, the axis lines at the left and bottom, tick labels, the y axis'
// label turned up the left side, the panel's title above it, and the
// chart's title, subtitle and x axis label.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart_draw.h"

static const double quarter = 1.5707963267948966;

// "simulated time (ms)": the axis label with the unit its scale chose.
static void axis_title(const VizChartAxis *a, const VizChartScale *s, char *buf, size_t len) {
    if (s->unit[0] && !s->log)
        snprintf(buf, len, "%s (%s)", a->label, s->unit);
    else
        snprintf(buf, len, "%s", a->label);
}

static void grid_x(VizGfx *g, const VizChartPlace *pl, double px, int labels) {
    cairo_t *cr = g->cr;
    VizRgba grid = viz_rgb(0xe6e6e6), ink = viz_rgb(0x444444);
    char buf[48];
    for (int i = 0; i < pl->xs.t.n; i++) {
        double v = pl->xs.t.v[i] * pl->xs.div;
        double x = viz_chart_px_x(pl, v);
        if (isnan(x) || x < pl->area.x - 0.5 || x > pl->area.x + pl->area.w + 0.5)
            continue;
        viz_gfx_set(cr, grid);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, (int)x + 0.5, pl->area.y);
        cairo_line_to(cr, (int)x + 0.5, pl->area.y + pl->area.h);
        cairo_stroke(cr);
        if (!labels)
            continue;
        viz_chart_tick_label(&pl->xs, pl->xs.t.v[i], buf, sizeof buf);
        viz_gfx_text(g, x, pl->area.y + pl->area.h + px * 0.4, buf, px, VIZ_FONT_SANS, ink,
                     VIZ_ALIGN_CENTER);
    }
}

static void grid_y(VizGfx *g, const VizChartPlace *pl, double px) {
    cairo_t *cr = g->cr;
    VizRgba grid = viz_rgb(0xe6e6e6), ink = viz_rgb(0x444444);
    char buf[48];
    for (int i = 0; i < pl->ys.t.n; i++) {
        double v = pl->ys.t.v[i] * pl->ys.div;
        double y = viz_chart_px_y(pl, v);
        if (isnan(y) || y < pl->area.y - 0.5 || y > pl->area.y + pl->area.h + 0.5)
            continue;
        viz_gfx_set(cr, grid);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, pl->area.x, (int)y + 0.5);
        cairo_line_to(cr, pl->area.x + pl->area.w, (int)y + 0.5);
        cairo_stroke(cr);
        viz_chart_tick_label(&pl->ys, pl->ys.t.v[i], buf, sizeof buf);
        viz_gfx_text_at(g, pl->area.x - px * 0.5, y, buf, px, VIZ_FONT_SANS, ink,
                        VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
    }
}

static void row_names(VizGfx *g, const VizChartPanel *pn, const VizChartPlace *pl, double px) {
    VizRgba ink = viz_rgb(0x444444);
    for (int i = 0; i < pn->nrows; i++)
        viz_gfx_text_at(g, pl->area.x - px * 0.5, viz_chart_px_y(pl, i),
                        pn->rows[i] ? pn->rows[i] : "", px, VIZ_FONT_SANS, ink,
                        VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
}

static void y_title(VizGfx *g, const VizChartPanel *pn, const VizChartPlace *pl, double px,
                    double left) {
    char buf[128];
    axis_title(&pn->y, &pl->ys, buf, sizeof buf);
    cairo_save(g->cr);
    cairo_translate(g->cr, left, pl->area.y + pl->area.h / 2);
    cairo_rotate(g->cr, -quarter);
    viz_gfx_text(g, 0, 0, buf, px, VIZ_FONT_SANS, viz_rgb(0x333333), VIZ_ALIGN_CENTER);
    cairo_restore(g->cr);
}

static void frame_lines(cairo_t *cr, const VizChartPlace *pl) {
    viz_gfx_set(cr, viz_rgb(0x666666));
    cairo_set_line_width(cr, 1);
    double x = (int)pl->area.x + 0.5, y = (int)(pl->area.y + pl->area.h) + 0.5;
    cairo_move_to(cr, x, pl->area.y);
    cairo_line_to(cr, x, y);
    cairo_line_to(cr, pl->area.x + pl->area.w, y);
    cairo_stroke(cr);
}

void viz_chart_draw_axes(VizGfx *g, const VizChart *c, const VizChartLayout *l) {
    double px = l->font_px;
    VizRgba title = viz_rgb(0x111111), dim = viz_rgb(0x666666);
    if (c->title)
        viz_gfx_text(g, l->w / 2.0, l->title_y, c->title, px * 1.45, VIZ_FONT_SANS_BOLD, title,
                     VIZ_ALIGN_CENTER);
    if (c->subtitle)
        viz_gfx_text(g, l->w / 2.0, l->subtitle_y, c->subtitle, px, VIZ_FONT_SANS, dim,
                     VIZ_ALIGN_CENTER);
    double bottom = 0;
    for (int p = 0; p < c->npanels; p++) {
        const VizChartPanel *pn = &c->panels[p];
        const VizChartPlace *pl = &l->panel[p];
        if (pn->nrows > 0)
            row_names(g, pn, pl, px);
        else
            grid_y(g, pl, px);
        grid_x(g, pl, px, 1);
        frame_lines(g->cr, pl);
        if (pn->title) {
            double tx = pl->area.x, ty = pl->area.y - px * 1.5;
            if (pn->marked) {
                viz_gfx_fill_round(g->cr, tx, ty + px * 0.15, px * 1.1, px * 1.1, px * 0.2,
                                   viz_chart_ink(pn->mark, p));
                tx += px * 1.5;
            }
            viz_gfx_text(g, tx, ty, pn->title, px * 1.05, VIZ_FONT_SANS_BOLD, title,
                         VIZ_ALIGN_LEFT);
        }
        if (pl->y_title) {
            y_title(g, pn, pl, px, pl->cell.x + px * 0.1);
        }
        if (pl->area.y + pl->area.h > bottom)
            bottom = pl->area.y + pl->area.h;
    }
    if (c->x.label) {
        char buf[128];
        axis_title(&c->x, &l->panel[0].xs, buf, sizeof buf);
        viz_gfx_text(g, l->w / 2.0, bottom + px * 2.0, buf, px, VIZ_FONT_SANS,
                     viz_rgb(0x333333), VIZ_ALIGN_CENTER);
    }
}
