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
// between instants), with the clock's time on the axis. Everything but the
// cursor changes only with the scene, so a painter with a cache keeps it as
// an image between frames.
#include "paint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
static void axis(VizPaint *p, VizBox l, double t0, double t1) {
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

// The cursor: a line over the lanes at the clock, and on the axis a pill
// with the clock's time (over the tick labels it passes).
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
    char lab[32];
    viz_fmt_time(t, lab, sizeof lab);
    double px = p->font_px * 0.8, tw, th;
    viz_gfx_text_size(&p->g, lab, px, VIZ_FONT_MONO_BOLD, &tw, &th);
    double pw = tw + px, ph = th + 2;
    double bx = x - pw / 2;
    bx = bx < l.x - p->font_px ? l.x - p->font_px : bx + pw > l.x + l.w ? l.x + l.w - pw : bx;
    double by = l.y - ph - 2;
    viz_gfx_fill_round(cr, bx, by, pw, ph, ph / 2, viz_ink(VIZ_INK_CURSOR));
    viz_gfx_text(&p->g, bx + pw / 2, by + 1, lab, px, VIZ_FONT_MONO_BOLD,
                 viz_ink(VIZ_INK_BACKGROUND), VIZ_ALIGN_CENTER);
}

// The panel without its cursor: card, axis, lane labels, lanes, legend.
static void paint_static(VizPaint *p, const VizScene *s, VizBox b) {
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
    int first, n = lanes_shown(p, s, (VizBox){b.x + p->font_px * 0.6, b.y + 1,
                                              b.w - p->font_px * 1.2, b.h - 2},
                               &first);
    axis(p, l, tl->t0, tl->t1);
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
    double ly = l.y + l.h + p->cell_h * 0.25;
    if (ly + p->font_px <= b.y + b.h)
        legend(p, tl, in.x, ly, in.w);
}

// ---------------------------------------------------------------------------
// The cache: the static part on an image surface of the box's size (its
// corner on whole pixels, so the copy is exact), with what it was painted
// from.

struct VizPaintCache {
    cairo_surface_t *sf;
    cairo_t *cr;
    VizGfx g;
    int x, y, w, h;          // the image's place on the frame, in pixels
    int valid;
    // the key: everything paint_static reads
    double cell_h, font_px;
    int selected, ncols, nranks, ranks[VIZ_TIMELINE_MAX_RANKS];
    double t0, t1, exposed_s;
    uint8_t *lanes;          // [2 * nranks * ncols] compute, then comm
    size_t lanes_cap;
    unsigned long misses;
};

VizPaintCache *viz_paint_cache_new(void) {
    return calloc(1, sizeof(VizPaintCache));
}

static void drop_image(VizPaintCache *c) {
    if (c->cr != NULL) {
        viz_gfx_done(&c->g);
        cairo_destroy(c->cr);
    }
    if (c->sf != NULL)
        cairo_surface_destroy(c->sf);
    c->sf = NULL;
    c->cr = NULL;
    c->valid = 0;
}

void viz_paint_cache_free(VizPaintCache *c) {
    if (c == NULL)
        return;
    drop_image(c);
    free(c->lanes);
    free(c);
}

unsigned long viz_paint_cache_misses(const VizPaintCache *c) {
    return c ? c->misses : 0;
}

static int same_key(const VizPaintCache *c, const VizPaint *p, const VizTimeline *tl, int x,
                    int y, int w, int h) {
    size_t n = (size_t)tl->nranks * (size_t)tl->ncols;
    if (!c->valid || c->x != x || c->y != y || c->w != w || c->h != h ||
        c->cell_h != p->cell_h || c->font_px != p->font_px || c->selected != p->selected_rank ||
        c->ncols != tl->ncols || c->nranks != tl->nranks || c->t0 != tl->t0 ||
        c->t1 != tl->t1 || c->exposed_s != tl->exposed_s)
        return 0;
    if (memcmp(c->ranks, tl->ranks, sizeof c->ranks) != 0)
        return 0;
    return memcmp(c->lanes, tl->compute, n) == 0 && memcmp(c->lanes + n, tl->comm, n) == 0;
}

static int keep_key(VizPaintCache *c, const VizPaint *p, const VizTimeline *tl) {
    size_t n = (size_t)tl->nranks * (size_t)tl->ncols;
    if (2 * n > c->lanes_cap) {
        uint8_t *l = realloc(c->lanes, 2 * n);
        if (l == NULL)
            return 0;
        c->lanes = l;
        c->lanes_cap = 2 * n;
    }
    memcpy(c->lanes, tl->compute, n);
    memcpy(c->lanes + n, tl->comm, n);
    memcpy(c->ranks, tl->ranks, sizeof c->ranks);
    c->cell_h = p->cell_h;
    c->font_px = p->font_px;
    c->selected = p->selected_rank;
    c->ncols = tl->ncols;
    c->nranks = tl->nranks;
    c->t0 = tl->t0;
    c->t1 = tl->t1;
    c->exposed_s = tl->exposed_s;
    return 1;
}

// Paints the static part into the cache's image when its key changed.
// 0 when there is no image to copy (out of memory: paint straight).
static int refresh(VizPaintCache *c, const VizPaint *p, const VizScene *s, VizBox b) {
    const VizTimeline *tl = &s->timeline;
    int x = (int)floor(b.x), y = (int)floor(b.y);
    int w = (int)ceil(b.x + b.w) - x, h = (int)ceil(b.y + b.h) - y;
    if (same_key(c, p, tl, x, y, w, h))
        return 1;
    if (c->sf == NULL || c->w != w || c->h != h) {
        drop_image(c);
        c->sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
        c->cr = cairo_create(c->sf);
        if (cairo_status(c->cr) != CAIRO_STATUS_SUCCESS || viz_gfx_init(&c->g, c->cr) != SIM_OK) {
            cairo_destroy(c->cr);
            c->cr = NULL;
            drop_image(c);
            return 0;
        }
    }
    c->x = x;
    c->y = y;
    c->w = w;
    c->h = h;
    VizPaint q = *p;
    q.g = c->g;
    q.cache = NULL;
    cairo_save(c->cr);
    viz_gfx_set(c->cr, viz_ink(VIZ_INK_BACKGROUND)); // under the card's round corners
    cairo_paint(c->cr);
    cairo_translate(c->cr, -x, -y);
    paint_static(&q, s, b);
    cairo_restore(c->cr);
    c->g = q.g; // the fonts' sizes it set
    cairo_surface_flush(c->sf);
    c->misses++;
    c->valid = keep_key(c, p, tl);
    return 1;
}

void viz_paint_timeline(VizPaint *p, const VizScene *s, VizBox b) {
    if (b.w <= 0 || b.h <= 0)
        return;
    const VizTimeline *tl = &s->timeline;
    int lanes = tl->ncols > 0 && tl->nranks > 0 && tl->compute && tl->comm;
    if (p->cache != NULL && lanes && refresh(p->cache, p, s, b)) {
        cairo_t *cr = p->g.cr;
        cairo_set_source_surface(cr, p->cache->sf, p->cache->x, p->cache->y);
        cairo_rectangle(cr, p->cache->x, p->cache->y, p->cache->w, p->cache->h);
        cairo_fill(cr);
    } else {
        paint_static(p, s, b);
    }
    if (lanes)
        cursor(p, s, viz_paint_timeline_lanes(p, s, b));
}
