// viz/chart_scale.c: an axis' range, unit and ticks from the data it shows,
// and the map from a value to a pixel.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h"
#include "chart_draw.h"
#include "units.h"

// Ticks an axis aims at, at most: the x axis is the wider one.
enum { MAX_TICKS_X = 10, MAX_TICKS_Y = 8 };

// The extent of the values an axis shows.
typedef struct {
    double lo, hi;
    int any;
} Span;

static void span_add(Span *s, double v, int log) {
    if (!isfinite(v) || (log && v <= 0))
        return;
    if (!s->any || v < s->lo)
        s->lo = v;
    if (!s->any || v > s->hi)
        s->hi = v;
    s->any = 1;
}

// Stacked kinds add up: the top of the stack at point i is the sum of the
// panel's stacked series at i (they share their x; chart.h).
static int stacked(VizChartKind k) {
    return k == VIZ_CHART_AREA || k == VIZ_CHART_BARS;
}

static void panel_span(const VizChartPanel *p, int log_x, int log_y, Span *xs, Span *ys) {
    size_t most = 0;
    for (int k = 0; k < p->nseries; k++) {
        const VizChartSeries *s = &p->series[k];
        if (s->x == NULL || s->y == NULL)
            continue;
        if (stacked(s->kind)) {
            most = s->n > most ? s->n : most;
            continue;
        }
        for (size_t i = 0; i < s->n; i++) {
            if (!isfinite(s->y[i]) || (log_y && s->y[i] <= 0))
                continue;
            span_add(xs, s->x[i], log_x);
            if (isfinite(s->x[i]))
                span_add(ys, s->y[i], log_y);
        }
    }
    // Areas: x along, y stacked. Bars: y the row, x stacked.
    for (size_t i = 0; i < most; i++) {
        double area = 0, bar = 0;
        int any_area = 0;
        for (int k = 0; k < p->nseries; k++) {
            const VizChartSeries *s = &p->series[k];
            if (!stacked(s->kind) || s->x == NULL || s->y == NULL || i >= s->n)
                continue;
            if (s->kind == VIZ_CHART_AREA && isfinite(s->y[i])) {
                area += s->y[i];
                any_area = 1;
                span_add(xs, s->x[i], log_x);
            } else if (s->kind == VIZ_CHART_BARS && isfinite(s->x[i])) {
                bar += s->x[i];
            }
        }
        if (any_area)
            span_add(ys, area, log_y);
        if (bar > 0)
            span_add(xs, bar, log_x);
    }
    for (int k = 0; k < p->nrules; k++)
        span_add(ys, p->rules[k].y, log_y);
}

static int is_bars(const VizChartPanel *p) {
    return p->nrows > 0;
}

// Integer axes: whole ticks only. Ticks finer than 1 become 1 apart.
static void whole_ticks(VizChartScale *s) {
    if (s->t.step >= 1 || s->log)
        return;
    double lo = floor(s->t.lo), hi = ceil(s->t.hi);
    if (hi <= lo)
        hi = lo + 1;
    s->t.lo = lo, s->t.hi = hi, s->t.step = 1, s->t.n = 0;
    for (double v = lo; v <= hi && s->t.n < VIZ_TICKS_MAX; v += 1)
        s->t.v[s->t.n++] = v;
    s->lo = lo, s->hi = hi;
}

// A linear x axis ends where the data does (time runs out there; a wider
// round end would read as a gap): ticks beyond it are dropped.
static void tight(VizChartScale *s, Span sp, int from_zero) {
    double lo = (from_zero && sp.lo > 0 ? 0 : sp.lo) / s->div, hi = sp.hi / s->div;
    if (!(hi > lo))
        return;
    double eps = (hi - lo) * 1e-9;
    int k = 0;
    for (int i = 0; i < s->t.n; i++)
        if (s->t.v[i] >= lo - eps && s->t.v[i] <= hi + eps)
            s->t.v[k++] = s->t.v[i];
    s->t.n = k;
    s->lo = lo, s->hi = hi;
}

static SimStatus make_scale(const VizChartAxis *a, Span sp, int fit, VizChartScale *s,
                            char *err, size_t errlen, const char *which) {
    memset(s, 0, sizeof *s);
    s->kind = a->unit;
    s->div = 1;
    int max_ticks = which[0] == 'x' ? MAX_TICKS_X : MAX_TICKS_Y;
    if (!sp.any)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "nothing to draw on the %s axis", which);
    if (a->log == 2 || a->log == 10) {
        s->log = a->log;
        if (viz_ticks_log(sp.lo, sp.hi, a->log, max_ticks, &s->t) != SIM_OK)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "cannot place the %s axis' ticks",
                                   which);
        s->lo = s->t.lo, s->hi = s->t.hi;
        return SIM_OK;
    }
    if (a->from_zero && sp.lo > 0)
        sp.lo = 0;
    VizUnitChoice u = viz_unit_pick(a->unit, fmax(fabs(sp.lo), fabs(sp.hi)));
    s->div = u.div;
    snprintf(s->unit, sizeof s->unit, "%s", u.name);
    if (viz_ticks_linear(sp.lo / u.div, sp.hi / u.div, max_ticks, &s->t) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "cannot place the %s axis' ticks",
                               which);
    s->lo = s->t.lo, s->hi = s->t.hi;
    if (a->integer)
        whole_ticks(s);
    if (fit)
        tight(s, sp, a->from_zero);
    return SIM_OK;
}

SimStatus viz_chart_scales(const VizChart *c, int p, VizChartScale *xs, VizChartScale *ys,
                           char *err, size_t errlen) {
    Span sx = {0, 0, 0}, sy = {0, 0, 0};
    int lx = c->x.log != 0;
    for (int k = 0; k < c->npanels; k++) {
        Span ignore = {0, 0, 0};
        int mine = k == p || c->share_y;
        panel_span(&c->panels[k], lx, c->panels[p].y.log != 0, &sx, mine ? &sy : &ignore);
    }
    // bars end anywhere: their axis ends at a round value
    int bars = 0;
    for (int k = 0; k < c->npanels; k++)
        bars |= is_bars(&c->panels[k]);
    SimStatus st = make_scale(&c->x, sx, !bars, xs, err, errlen, "x");
    if (st != SIM_OK)
        return st;
    if (is_bars(&c->panels[p])) { // rows, top to bottom: no ticks
        memset(ys, 0, sizeof *ys);
        ys->div = 1;
        ys->lo = c->panels[p].nrows - 0.5, ys->hi = -0.5;
        return SIM_OK;
    }
    return make_scale(&c->panels[p].y, sy, 0, ys, err, errlen, "y");
}

double viz_chart_px(const VizChartScale *s, double v, double a, double b) {
    if (!isfinite(v))
        return NAN;
    double f;
    if (s->log) {
        if (v <= 0)
            return NAN;
        f = log(v / s->lo) / log(s->hi / s->lo);
    } else {
        f = (v / s->div - s->lo) / (s->hi - s->lo);
    }
    return a + (b - a) * f;
}

double viz_chart_px_x(const VizChartPlace *p, double v) {
    return viz_chart_px(&p->xs, v, p->area.x, p->area.x + p->area.w);
}

double viz_chart_px_y(const VizChartPlace *p, double v) {
    return viz_chart_px(&p->ys, v, p->area.y + p->area.h, p->area.y);
}

void viz_chart_tick_label(const VizChartScale *s, double v, char *buf, size_t len) {
    if (s->log && s->kind != VIZ_UNIT_NONE) {
        viz_unit_fmt(s->kind, v, buf, len);
        return;
    }
    viz_tick_label(&s->t, v, buf, len);
}
