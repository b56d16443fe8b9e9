// viz/chart_series.c: a panel's contents, clipped to its data area, in
// layers: stacked areas (each category on the ones before it), bars,
// lines and steps, marks, then the rules (a capacity) and the notes (a
// peak) on top.
#include <math.h>
#include <stdlib.h>

#include "chart_draw.h"

static const double turn = 6.283185307179586;

static int placeable(double x, double y) {
    return isfinite(x) && isfinite(y);
}

// One line or step: a NaN (or a value a log axis cannot place) breaks it.
static void draw_line(cairo_t *cr, const VizChartPlace *pl, const VizChartSeries *s,
                      VizRgba col, double px) {
    int open = 0;
    double prev_y = 0;
    for (size_t i = 0; i < s->n; i++) {
        double x = viz_chart_px_x(pl, s->x[i]), y = viz_chart_px_y(pl, s->y[i]);
        if (!placeable(x, y)) {
            open = 0;
            continue;
        }
        if (!open)
            cairo_move_to(cr, x, y);
        else if (s->kind == VIZ_CHART_STEP) {
            cairo_line_to(cr, x, prev_y);
            cairo_line_to(cr, x, y);
        } else
            cairo_line_to(cr, x, y);
        open = 1, prev_y = y;
    }
    viz_gfx_set(cr, col);
    cairo_set_line_width(cr, px * 0.17);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    if (s->dashed) {
        double d[2] = {px * 0.6, px * 0.4};
        cairo_set_dash(cr, d, 2, 0);
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

static void draw_marks(cairo_t *cr, const VizChartPlace *pl, const VizChartSeries *s,
                       VizRgba col, double px, int crosses) {
    double r = px * (crosses ? 0.42 : 0.3);
    viz_gfx_set(cr, col);
    cairo_set_line_width(cr, px * 0.2);
    for (size_t i = 0; i < s->n; i++) {
        double x = viz_chart_px_x(pl, s->x[i]), y = viz_chart_px_y(pl, s->y[i]);
        if (!placeable(x, y))
            continue;
        if (crosses) {
            cairo_move_to(cr, x - r, y - r);
            cairo_line_to(cr, x + r, y + r);
            cairo_move_to(cr, x + r, y - r);
            cairo_line_to(cr, x - r, y + r);
            cairo_stroke(cr);
        } else {
            cairo_new_sub_path(cr);
            cairo_arc(cr, x, y, r, 0, turn);
            cairo_fill(cr);
        }
    }
}

// A stacked area: each value held until the next point, on top of base[]
// (the areas drawn before it), which it then raises. base is [s->n].
static void draw_area(cairo_t *cr, const VizChartPlace *pl, const VizChartSeries *s,
                      double *base, VizRgba col) {
    size_t n = s->n;
    if (n == 0)
        return;
    double x0 = viz_chart_px_x(pl, s->x[0]);
    cairo_move_to(cr, x0, viz_chart_px_y(pl, base[0]));
    for (size_t i = 0; i < n; i++) {
        double v = isfinite(s->y[i]) ? s->y[i] : 0;
        double xa = viz_chart_px_x(pl, s->x[i]);
        double xb = viz_chart_px_x(pl, s->x[i + 1 < n ? i + 1 : i]);
        double y = viz_chart_px_y(pl, base[i] + v);
        cairo_line_to(cr, xa, y);
        cairo_line_to(cr, xb, y);
    }
    for (size_t k = n; k-- > 0;) {
        double xa = viz_chart_px_x(pl, s->x[k]);
        double xb = viz_chart_px_x(pl, s->x[k + 1 < n ? k + 1 : k]);
        double y = viz_chart_px_y(pl, base[k]);
        cairo_line_to(cr, xb, y);
        cairo_line_to(cr, xa, y);
    }
    cairo_close_path(cr);
    viz_gfx_set(cr, col);
    cairo_fill(cr);
    for (size_t i = 0; i < n; i++)
        base[i] += isfinite(s->y[i]) ? s->y[i] : 0;
}

// Horizontal bars: y[i] the row, x[i] the length, laid after the row's
// earlier bars (off[] per row, [nrows]).
static void draw_bars(cairo_t *cr, const VizChartPlace *pl, const VizChartSeries *s,
                      double *off, int nrows, VizRgba col) {
    double pitch = fabs(viz_chart_px_y(pl, 1) - viz_chart_px_y(pl, 0));
    for (size_t i = 0; i < s->n; i++) {
        int row = (int)s->y[i];
        if (row < 0 || row >= nrows || !isfinite(s->x[i]) || s->x[i] <= 0)
            continue;
        double xa = viz_chart_px_x(pl, off[row]), xb = viz_chart_px_x(pl, off[row] + s->x[i]);
        double yc = viz_chart_px_y(pl, row);
        viz_gfx_set(cr, col);
        cairo_rectangle(cr, xa, yc - pitch * 0.32, xb - xa, pitch * 0.64);
        cairo_fill(cr);
        off[row] += s->x[i];
    }
}

static void draw_rule(VizGfx *g, const VizChartPlace *pl, const VizChartRule *r, double px) {
    double y = viz_chart_px_y(pl, r->y);
    if (!isfinite(y))
        return;
    VizRgba col = viz_chart_ink(r->ink, 0);
    cairo_t *cr = g->cr;
    if (r->shade_above && y > pl->area.y) {
        viz_gfx_set(cr, viz_rgba_alpha(col, 0.07));
        cairo_rectangle(cr, pl->area.x, pl->area.y, pl->area.w, y - pl->area.y);
        cairo_fill(cr);
    }
    double d[2] = {px * 0.7, px * 0.35};
    cairo_set_dash(cr, d, 2, 0);
    cairo_set_line_width(cr, px * 0.15);
    viz_gfx_set(cr, col);
    cairo_move_to(cr, pl->area.x, y);
    cairo_line_to(cr, pl->area.x + pl->area.w, y);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    if (r->label)
        viz_gfx_text_at(g, pl->area.x + pl->area.w - px * 0.3, y - px * 0.2, r->label,
                        px * 0.95, VIZ_FONT_SANS_BOLD, col, VIZ_ALIGN_RIGHT,
                        VIZ_VALIGN_BASELINE);
}

static void draw_note(VizGfx *g, const VizChartPlace *pl, const VizChartNote *n, double px) {
    double x = viz_chart_px_x(pl, n->x), y = viz_chart_px_y(pl, n->y);
    if (!placeable(x, y) || n->text == NULL)
        return;
    cairo_t *cr = g->cr;
    VizRgba ink = viz_rgb(0x222222);
    cairo_set_line_width(cr, px * 0.16);
    viz_gfx_set(cr, ink);
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, px * 0.4, 0, turn);
    cairo_stroke(cr);
    double tw, th;
    viz_gfx_text_size(g, n->text, px * 0.95, VIZ_FONT_SANS, &tw, &th);
    // beside the point, on the side with room, and inside the area
    double tx = x + px * 0.8;
    if (tx + tw > pl->area.x + pl->area.w)
        tx = x - px * 0.8 - tw;
    if (tx < pl->area.x)
        tx = pl->area.x + px * 0.2;
    double ty = y - th - px * 0.4;
    if (ty < pl->area.y)
        ty = y + px * 0.5;
    // an opaque label: the data under it gives way to the words
    viz_gfx_round_rect(cr, tx - px * 0.3, ty - px * 0.1, tw + px * 0.6, th + px * 0.2, px * 0.25);
    viz_gfx_set(cr, viz_rgb(0xffffff));
    cairo_fill_preserve(cr);
    viz_gfx_set(cr, viz_rgb(0xbbbbbb));
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    viz_gfx_text(g, tx, ty, n->text, px * 0.95, VIZ_FONT_SANS, ink, VIZ_ALIGN_LEFT);
}

static SimStatus draw_panel(VizGfx *g, const VizChartPanel *pn, const VizChartPlace *pl,
                            double px) {
    cairo_t *cr = g->cr;
    size_t most = 0;
    for (int k = 0; k < pn->nseries; k++)
        most = pn->series[k].n > most ? pn->series[k].n : most;
    size_t nb = most > (size_t)pn->nrows ? most : (size_t)pn->nrows;
    double *base = calloc(nb ? nb : 1, sizeof *base);
    if (base == NULL)
        return SIM_ENOMEM;
    cairo_save(cr);
    // a mark on the frame shows whole: the clip reaches past the area
    cairo_rectangle(cr, pl->area.x - px * 0.6, pl->area.y - px * 0.6, pl->area.w + px * 1.2,
                    pl->area.h + px * 1.2);
    cairo_clip(cr);
    for (int k = 0; k < pn->nseries; k++) { // areas first: the lines go over them
        const VizChartSeries *s = &pn->series[k];
        if (s->kind == VIZ_CHART_AREA && s->x && s->y)
            draw_area(cr, pl, s, base, viz_chart_ink(s->ink, k));
        else if (s->kind == VIZ_CHART_BARS && s->x && s->y)
            draw_bars(cr, pl, s, base, pn->nrows, viz_chart_ink(s->ink, k));
    }
    for (int k = 0; k < pn->nseries; k++) {
        const VizChartSeries *s = &pn->series[k];
        VizRgba col = viz_chart_ink(s->ink, k);
        if (s->x == NULL || s->y == NULL)
            continue;
        if (s->kind == VIZ_CHART_LINE || s->kind == VIZ_CHART_STEP) {
            draw_line(cr, pl, s, col, px);
            if (s->dots)
                draw_marks(cr, pl, s, col, px, 0);
        } else if (s->kind == VIZ_CHART_MARKS || s->kind == VIZ_CHART_CROSSES) {
            draw_marks(cr, pl, s, col, px, s->kind == VIZ_CHART_CROSSES);
        }
    }
    cairo_restore(cr);
    free(base);
    for (int k = 0; k < pn->nrules; k++)
        draw_rule(g, pl, &pn->rules[k], px);
    for (int k = 0; k < pn->nnotes; k++)
        draw_note(g, pl, &pn->notes[k], px);
    return SIM_OK;
}

SimStatus viz_chart_draw_series(VizGfx *g, const VizChart *c, const VizChartLayout *l) {
    for (int p = 0; p < c->npanels; p++)
        if (draw_panel(g, &c->panels[p], &l->panel[p], l->font_px) != SIM_OK)
            return SIM_ENOMEM;
    return SIM_OK;
}
