// viz/paint_timeline.c: the compute and communication streams of each
// shown rank over the scene's window of time:
//
//   time (ms)    0.0        1.0        2.0   |   3.0
//   r0  compute  [ forward ][ backward          ]   [opt]
//       comm                [ comm ][exposed]
//   ...
//   swatches: forward backward optimizer ... exposed comm r0: 1.2 ms
//
// A lane's columns (VizTimeline cells) are merged into runs of one kind and
// painted as solid bars; exposed communication (the compute stream idle) is
// drawn in its own colour with a bright border, so the time lost to waiting
// stands out. The cursor is a vertical line at the clock (moving smoothly
// between instants), with a marker on the axis.
#include "paint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw_internal.h" // defines: viz_fmt_time, viz_cell_name

// The label column, in multiples of the font size; the rows in cell rows,
// as the layout counts them: the axis, two per rank, the legend.
static const double LABEL_EM = 6.2;

static double lane_h(const VizPaint *p) {
    return p->cell_h * 0.8;
}

static double pair_h(const VizPaint *p) {
    return p->cell_h * 2;
}

static double axis_h(const VizPaint *p) {
    return p->cell_h * 1.1;
}

// How many ranks' lane pairs fit in the box, and the first shown (the
// selected rank's pair stays when not all fit).
static int lanes_shown(const VizPaint *p, const VizScene *s, VizBox b, int *first) {
    const VizTimeline *tl = &s->timeline;
    double pair = pair_h(p);
    int n = (int)((b.h - axis_h(p) - p->cell_h * 0.6) / pair + 0.2);
    n = n < 0 ? 0 : n > tl->nranks ? tl->nranks : n;
    *first = 0;
    for (int i = 0; i < tl->nranks; i++)
        if (tl->ranks[i] == p->selected_rank && i >= n && n > 0)
            *first = i - n + 1;
    return n;
}

VizBox viz_paint_timeline_lanes(const VizPaint *p, const VizScene *s, VizBox b) {
    VizBox in = {b.x + p->font_px * 0.6, b.y + 1, b.w - p->font_px * 1.2, b.h - 2};
    int first, n = lanes_shown(p, s, in, &first);
    double x = in.x + p->font_px * LABEL_EM;
    return (VizBox){x, in.y + axis_h(p), in.x + in.w - x, n * pair_h(p) - p->cell_h * 0.3};
}

int viz_paint_timeline_at(const VizPaint *p, const VizScene *s, VizBox b, double x, double y,
                          double *t, int *rank) {
    const VizTimeline *tl = &s->timeline;
    VizBox l = viz_paint_timeline_lanes(p, s, b);
    if (l.w <= 0 || l.h <= 0 || tl->ncols <= 0 || !(tl->t1 > tl->t0) || x < l.x ||
        x >= l.x + l.w || y < l.y - axis_h(p) || y >= l.y + l.h)
        return 0;
    *t = tl->t0 + (x - l.x) / l.w * (tl->t1 - tl->t0);
    double pair = pair_h(p);
    int first, n = lanes_shown(p, s, (VizBox){b.x + p->font_px * 0.6, b.y + 1, b.w - p->font_px * 1.2,
                                              b.h - 2},
                               &first);
    int i = y < l.y ? -1 : (int)((y - l.y) / pair);
    *rank = i >= 0 && i < n ? tl->ranks[first + i] : -1;
    return 1;
}

// Ticks in the unit that suits the window, a 1-2-5 step at least `minpx`
// apart.
static void axis(VizPaint *p, VizBox l, double t0, double t1, double cursor_x) {
    double span = t1 - t0;
    if (!(span > 0) || !(span < 1e300) || l.w < 20)
        return;
    double unit = span >= 1 ? 1 : span >= 1e-3 ? 1e-3 : 1e-6;
    double minpx = p->font_px * 6;
    double raw = span / unit * minpx / l.w, pw = pow(10, floor(log10(raw))), step = pw;
    if (step < raw)
        step = 2 * pw;
    if (step < raw)
        step = 5 * pw;
    if (step < raw)
        step = 10 * pw;
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    dec = dec > 9 ? 9 : dec;
    double a = t0 / unit, b = t1 / unit, k0 = ceil(a / step - 1e-9);
    cairo_t *cr = p->g.cr;
    for (int i = 0; i < 200; i++) {
        double v = (k0 + i) * step;
        if (v > b + 1e-9 * step)
            break;
        double x = l.x + (v - a) / (b - a) * l.w;
        viz_gfx_set(cr, viz_rgba_alpha(viz_ink(VIZ_INK_FRAME), 0.7));
        cairo_rectangle(cr, floor(x), l.y - 3, 1, l.h + 3);
        cairo_fill(cr);
        if (fabs(x - cursor_x) < p->font_px * 1.2)
            continue; // the cursor's marker stands there
        char lab[32];
        snprintf(lab, sizeof lab, "%.*f", dec, fabs(v) < step * 1e-6 ? 0.0 : v);
        viz_gfx_text_at(&p->g, x, l.y - 4, lab, p->font_px * 0.85, VIZ_FONT_MONO,
                        viz_ink(VIZ_INK_DIM), VIZ_ALIGN_CENTER, VIZ_VALIGN_BASELINE);
    }
    const char *un = span >= 1 ? "time (s)" : span >= 1e-3 ? "time (ms)" : "time (us)";
    viz_gfx_text_at(&p->g, l.x - p->font_px * LABEL_EM, l.y - 4, un, p->font_px * 0.85,
                    VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM), VIZ_ALIGN_LEFT, VIZ_VALIGN_BASELINE);
}

// One lane: its cells merged into runs of a kind, each a bar.
static void lane(cairo_t *cr, const uint8_t *cells, int n, VizBox r) {
    viz_gfx_set(cr, viz_cell_colour(VIZ_CELL_IDLE));
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_fill(cr);
    for (int j = 0; j < n;) {
        int kind = cells[j], e = j + 1;
        while (e < n && cells[e] == kind)
            e++;
        if (kind != VIZ_CELL_IDLE) {
            double x0 = r.x + r.w * j / n, x1 = r.x + r.w * e / n;
            viz_gfx_set(cr, viz_cell_colour((VizCellKind)kind));
            cairo_rectangle(cr, x0, r.y + 1, x1 - x0, r.h - 2);
            cairo_fill(cr);
            if (kind == VIZ_CELL_EXPOSED) { // a bright rim: time lost waiting
                cairo_rectangle(cr, x0 + 0.75, r.y + 1.75, x1 - x0 - 1.5, r.h - 3.5);
                viz_gfx_set(cr, viz_rgb(0xffd0c8));
                cairo_set_line_width(cr, 1.5);
                cairo_stroke(cr);
            }
        }
        j = e;
    }
}

static void legend(VizPaint *p, const VizTimeline *tl, double x, double y, double w) {
    static const int kinds[] = {VIZ_CELL_FORWARD, VIZ_CELL_BACKWARD, VIZ_CELL_OPTIMIZER,
                                VIZ_CELL_OTHER,   VIZ_CELL_COMM,     VIZ_CELL_EXPOSED,
                                VIZ_CELL_HOST};
    double px = p->font_px * 0.88, sw = px * 0.9, end = x + w;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *nm = viz_cell_name(kinds[k]);
        double tw;
        viz_gfx_text_size(&p->g, nm, px, VIZ_FONT_SANS, &tw, NULL);
        if (x + sw + tw + px > end)
            return;
        viz_gfx_fill_round(p->g.cr, x, y + (px * 1.2 - sw) / 2, sw, sw, 2,
                           viz_cell_colour((VizCellKind)kinds[k]));
        x += sw + px * 0.35;
        x += viz_gfx_text(&p->g, x, y, nm, px, VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM),
                          VIZ_ALIGN_LEFT) + px;
    }
    char t[32], lab[64];
    viz_fmt_time(tl->exposed_s, t, sizeof t);
    snprintf(lab, sizeof lab, "exposed comm r%d: %s", tl->ranks[0], t);
    double tw;
    viz_gfx_text_size(&p->g, lab, px, VIZ_FONT_SANS_BOLD, &tw, NULL);
    if (x + tw + px < end)
        viz_gfx_text(&p->g, end, y, lab, px, VIZ_FONT_SANS_BOLD, viz_cell_colour(VIZ_CELL_EXPOSED),
                     VIZ_ALIGN_RIGHT);
}

static void cursor(VizPaint *p, const VizScene *s, VizBox l) {
    const VizTimeline *tl = &s->timeline;
    double t = viz_paint_now(p, s);
    if (!(tl->t1 > tl->t0) || t < tl->t0 || t > tl->t1)
        return;
    double x = l.x + (t - tl->t0) / (tl->t1 - tl->t0) * l.w;
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, viz_ink(VIZ_INK_CURSOR));
    cairo_rectangle(cr, x - 0.75, l.y - 2, 1.5, l.h + 2);
    cairo_fill(cr);
    double k = p->font_px * 0.4;
    cairo_move_to(cr, x - k, l.y - k * 1.6);
    cairo_line_to(cr, x + k, l.y - k * 1.6);
    cairo_line_to(cr, x, l.y - 1);
    cairo_close_path(cr);
    cairo_fill(cr);
}

void viz_paint_timeline(VizPaint *p, const VizScene *s, VizBox b) {
    if (b.w <= 0 || b.h <= 0)
        return;
    const VizTimeline *tl = &s->timeline;
    cairo_t *cr = p->g.cr;
    VizBox in = viz_paint_panel(p, b, NULL);
    if (in.w <= 0)
        return;
    if (tl->ncols <= 0 || tl->nranks <= 0 || !tl->compute || !tl->comm) {
        viz_gfx_text(&p->g, in.x, in.y, "timeline: nothing recorded yet", p->font_px,
                     VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM), VIZ_ALIGN_LEFT);
        return;
    }
    VizBox l = viz_paint_timeline_lanes(p, s, b);
    int first, n = lanes_shown(p, s, (VizBox){b.x + p->font_px * 0.6, b.y + 1, b.w - p->font_px * 1.2,
                                              b.h - 2},
                               &first);
    double now = viz_paint_now(p, s), cx = -1e9;
    if (tl->t1 > tl->t0 && now >= tl->t0 && now <= tl->t1)
        cx = l.x + (now - tl->t0) / (tl->t1 - tl->t0) * l.w;
    axis(p, l, tl->t0, tl->t1, cx);
    double lh = lane_h(p), pair = pair_h(p);
    for (int i = 0; i < n; i++) {
        int li = first + i, q = tl->ranks[li];
        double y = l.y + i * pair;
        int sel = q == p->selected_rank;
        char lab[16];
        snprintf(lab, sizeof lab, "r%d", q);
        double lx = l.x - p->font_px * LABEL_EM;
        viz_gfx_text_at(&p->g, lx, y + lh, lab, p->font_px, VIZ_FONT_MONO_BOLD,
                        sel ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_TEXT), VIZ_ALIGN_LEFT,
                        VIZ_VALIGN_MIDDLE);
        viz_gfx_text_at(&p->g, l.x - 6, y + lh / 2, "compute", p->font_px * 0.82,
                        VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM), VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
        viz_gfx_text_at(&p->g, l.x - 6, y + lh * 1.5, "comm", p->font_px * 0.82, VIZ_FONT_SANS,
                        viz_ink(VIZ_INK_DIM), VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
        lane(cr, tl->compute + (size_t)li * (size_t)tl->ncols, tl->ncols,
             (VizBox){l.x, y, l.w, lh});
        lane(cr, tl->comm + (size_t)li * (size_t)tl->ncols, tl->ncols,
             (VizBox){l.x, y + lh, l.w, lh});
    }
    cursor(p, s, l);
    double ly = l.y + l.h + p->cell_h * 0.25;
    if (ly + p->font_px <= b.y + b.h)
        legend(p, tl, in.x, ly, in.w);
}
