// viz/paint_ranks.c: the rank boxes, painted. Each box, in three rows:
//
//   .----------------------------------------------.
//   | rank 2  (backward)  linear.3 + AllReduce     |   phase chip, op, collective
//   | [params|grads|optim|act|....]  ^peak  |cap 54% |   memory stacked by category
//   | 558 MiB  peak 658 MiB / 1.00 GiB  host 2 MiB |   the figures
//   '----------------------------------------------'
//
// The selected rank's box has a thick border in the selected ink, a rank
// past its capacity a border in the warning ink. Bars share one scale
// (viz_paint_ranks_scale) so that boxes compare, and move between this
// instant and the next with the frame's u. "ranks a..b of R" tops the
// panel when not every rank has a box; a legend of the categories shown
// takes its last line when the layout left one. Compact layouts paint one
// line per rank instead (paint_ranks_line.c).
#include "paint_ranks_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw_internal.h" // defines: viz_fmt_bytes, viz_mem_short

static uint64_t capacity(const VizScene *s) {
    return s->info ? s->info->device_capacity : 0;
}

static int over_capacity(const VizScene *s, const VizPaintMem *m) {
    uint64_t cap = capacity(s);
    return cap > 0 && m->total > (double)cap;
}

static void fmt(double v, char *buf, size_t len) {
    viz_fmt_bytes(v > 0 ? (uint64_t)(v + 0.5) : 0, buf, len);
}

// "rank 5", with its node in multi-node runs ("rank 5 · node 1").
static void title_of(const VizScene *s, int q, char *buf, size_t len) {
    const SimTraceInfo *in = s->info;
    if (in && in->nodes > 1 && s->nranks % in->nodes == 0)
        snprintf(buf, len, "rank %d \xc2\xb7 node %d", q, q / (s->nranks / in->nodes));
    else
        snprintf(buf, len, "rank %d", q);
}

static void frame(VizPaint *p, VizBox b, int selected, int over) {
    cairo_t *cr = p->g.cr;
    viz_gfx_fill_round(cr, b.x, b.y, b.w, b.h, 6, viz_ink(VIZ_INK_PANEL));
    double lw = selected ? 2 : 1;
    viz_gfx_round_rect(cr, b.x + lw / 2, b.y + lw / 2, b.w - lw, b.h - lw, 6);
    VizRgba c = over ? viz_ink(VIZ_INK_WARN) : selected ? viz_ink(VIZ_INK_SELECTED)
                                                        : viz_ink(VIZ_INK_FRAME);
    viz_gfx_set(cr, c);
    cairo_set_line_width(cr, lw);
    cairo_stroke(cr);
}

// What the rank runs, from x within room: the op dim, the collective in
// flight in the communication phase's colour ("relu_bwd + AllReduce").
static void what_text(VizPaint *p, const VizRankBox *rb, double x, double ymid, double room) {
    double px = p->font_px, h, w = 0;
    viz_gfx_text_size(&p->g, "Ag", px, VIZ_FONT_SANS, NULL, &h);
    double y = ymid - h / 2;
    int comm = rb->phase == VIZ_PHASE_COMM || rb->phase == VIZ_PHASE_WAIT;
    if (rb->op && !(comm && rb->coll)) {
        char op[160];
        snprintf(op, sizeof op, "%s%s", rb->op, rb->coll ? " + " : "");
        w = viz_gfx_text_fit(&p->g, x, y, op, px, VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM), room);
    }
    if (rb->coll && room - w > px * 2)
        viz_gfx_text_fit(&p->g, x + w, y, rb->coll, px, VIZ_FONT_SANS,
                         viz_phase_colour(VIZ_PHASE_COMM), room - w);
}

// Row 0: the title, the phase chip, then what the rank runs.
static void head_row(VizPaint *p, const VizScene *s, int q, VizBox b, double ymid, int sel) {
    double px = p->font_px, pad = round(p->cell_w);
    char title[64];
    title_of(s, q, title, sizeof title);
    VizRgba tc = sel ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_TEXT);
    double x = b.x + pad;
    x += viz_gfx_text_at(&p->g, x, ymid, title, px, VIZ_FONT_SANS_BOLD, tc, VIZ_ALIGN_LEFT,
                         VIZ_VALIGN_MIDDLE);
    x += px * 0.6;
    double room = b.x + b.w - pad - x;
    const VizRankBox *rb = &s->ranks[q];
    if (room < viz_paint_phase_chip_w(p, rb->phase, px * 0.85))
        return;
    x += viz_paint_phase_chip(p, x, ymid, rb->phase, px * 0.85, 0) + px * 0.5;
    room = b.x + b.w - pad - x;
    if (room > px * 2)
        what_text(p, rb, x, ymid, room);
}

// Row 1: the bar, and the percent of capacity at its right.
static void bar_row(VizPaint *p, const VizScene *s, VizBox b, const VizPaintMem *m,
                    double scale) {
    uint64_t cap = capacity(s);
    VizBox bar = viz_paint_rank_bar(p, b, cap > 0);
    viz_paint_mem_bar(p, bar, m, scale, (double)cap);
    if (cap == 0)
        return;
    char pct[16];
    double v = m->total * 100.0 / (double)cap;
    snprintf(pct, sizeof pct, "%.0f%%", v < 999999 ? v : 999999);
    VizRgba c = over_capacity(s, m) ? viz_ink(VIZ_INK_WARN) : viz_ink(VIZ_INK_TEXT);
    viz_gfx_text_at(&p->g, b.x + b.w - round(p->cell_w), bar.y + bar.h / 2, pct,
                    p->font_px * 0.9, VIZ_FONT_MONO, c, VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
}

// Row 2: "558 MiB  peak 658 MiB / 1.00 GiB  host 2.00 MiB", the longest
// form that fits (without the capacity, then without "peak"'s word).
static void figures_row(VizPaint *p, const VizScene *s, VizBox b, double ymid,
                        const VizPaintMem *m) {
    double px = p->font_px * 0.9, pad = round(p->cell_w);
    char cur[24], peak[24], capb[24], host[40] = "", line[128];
    fmt(m->total, cur, sizeof cur);
    fmt(m->peak, peak, sizeof peak);
    fmt((double)capacity(s), capb, sizeof capb);
    if (m->host > 0) {
        char h[24];
        fmt(m->host, h, sizeof h);
        snprintf(host, sizeof host, "  host %s", h);
    }
    const char *forms[] = {"%s  peak %s / %s%s", "%s  peak %s%s", "%s pk %s%s"};
    double room = b.w - 2 * pad, w = 0;
    for (int k = capacity(s) > 0 ? 0 : 1; k < 3; k++) {
        if (k == 0)
            snprintf(line, sizeof line, forms[k], cur, peak, capb, host);
        else
            snprintf(line, sizeof line, forms[k], cur, peak, host);
        viz_gfx_text_size(&p->g, line, px, VIZ_FONT_MONO, &w, NULL);
        if (w <= room)
            break;
    }
    double h;
    viz_gfx_text_size(&p->g, line, px, VIZ_FONT_MONO, NULL, &h);
    VizRgba c = over_capacity(s, m) ? viz_ink(VIZ_INK_WARN) : viz_ink(VIZ_INK_DIM);
    viz_gfx_text_fit(&p->g, b.x + pad, ymid - h / 2, line, px, VIZ_FONT_MONO, c, room);
}

static void paint_box(VizPaint *p, const VizScene *s, int q, VizBox cell, double scale) {
    VizBox b = viz_paint_rank_box(p, cell);
    if (b.w < 20 || b.h < 20)
        return;
    VizPaintMem m;
    viz_paint_rank_mem(p, s, q, &m);
    int sel = q == p->selected_rank;
    frame(p, b, sel, over_capacity(s, &m));
    double row = b.h / 3;
    head_row(p, s, q, b, round(b.y + row * 0.55), sel);
    bar_row(p, s, b, &m, scale);
    figures_row(p, s, b, round(b.y + row * 2.45), &m);
}

// A swatch of colour c then name at x; returns the x after it (or x
// unchanged when it would pass end).
static double swatch(VizPaint *p, double x, double ymid, VizRgba c, const char *name,
                     double end) {
    double px = p->font_px * 0.85, w;
    viz_gfx_text_size(&p->g, name, px, VIZ_FONT_SANS, &w, NULL);
    double sw = round(px * 0.9);
    if (x + sw + 4 + w > end)
        return x;
    viz_gfx_fill_round(p->g.cr, x, round(ymid - sw / 2), sw, sw, 2, c);
    viz_gfx_text_at(&p->g, x + sw + 4, ymid, name, px, VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM),
                    VIZ_ALIGN_LEFT, VIZ_VALIGN_MIDDLE);
    return x + sw + 4 + w + px;
}

// The legend: the categories in the shown ranks' bars, the peak tick and
// the capacity line (or that the bars are scaled to the largest peak).
void viz_paint_ranks_legend(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox r) {
    int present[SIM_MEM_CAT_COUNT] = {0};
    for (int k = 0; k < l->nboxes && l->first_box + k < s->nranks; k++)
        for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
            if (s->ranks[l->first_box + k].mem[c] > 0)
                present[c] = 1;
    double ymid = round(r.y + r.h / 2), end = r.x + r.w - p->cell_w;
    double x = r.x + p->cell_w;
    x += viz_gfx_text_at(&p->g, x, ymid, "memory", p->font_px * 0.85, VIZ_FONT_SANS_BOLD,
                         viz_ink(VIZ_INK_DIM), VIZ_ALIGN_LEFT, VIZ_VALIGN_MIDDLE) +
         p->font_px * 0.8;
    int n;
    const int *order = viz_paint_mem_order(&n);
    for (int i = 0; i < n; i++)
        if (present[order[i]])
            x = swatch(p, x, ymid, viz_mem_colour(order[i]), viz_mem_short(order[i]), end);
    x = swatch(p, x, ymid, viz_ink(VIZ_INK_TEXT), "peak", end);
    uint64_t cap = capacity(s);
    char t[112], cb[24];
    viz_fmt_bytes(cap, cb, sizeof cb);
    if (cap > 0 && (double)cap > viz_paint_ranks_scale(p, s))
        snprintf(t, sizeof t, "capacity %s per device, off the scale: bars span the largest "
                 "peak", cb);
    else if (cap > 0)
        snprintf(t, sizeof t, "capacity %s per device", cb);
    else
        snprintf(t, sizeof t, "no capacity: scaled to the largest peak");
    swatch(p, x, ymid, cap > 0 ? viz_ink(VIZ_INK_WARN) : viz_ink(VIZ_INK_FRAME), t, end);
}

// "ranks 4..7 of 64" in r.
void viz_paint_ranks_note(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox r) {
    char t[96];
    snprintf(t, sizeof t, "ranks %d..%d of %d  (r / R: next / previous rank)", l->first_box,
             l->first_box + l->nboxes - 1, s->nranks);
    double h;
    viz_gfx_text_size(&p->g, t, p->font_px * 0.85, VIZ_FONT_SANS, NULL, &h);
    viz_gfx_text_fit(&p->g, r.x + p->cell_w, r.y + (r.h - h) / 2, t, p->font_px * 0.85,
                     VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM), r.w - 2 * p->cell_w);
}

void viz_paint_ranks(VizPaint *p, const VizScene *s, const VizLayout *l) {
    VizRect r = l->ranks;
    if (r.w <= 0 || r.h <= 0 || l->nboxes <= 0 || s->ranks == NULL)
        return;
    if (l->compact_ranks) {
        viz_paint_rank_lines(p, s, l);
        return;
    }
    VizBox all = viz_paint_box(p, r);
    if (l->nboxes < s->nranks)
        viz_paint_ranks_note(p, s, l, (VizBox){all.x, all.y, all.w, p->cell_h});
    double scale = viz_paint_ranks_scale(p, s);
    int bottom = r.y;
    for (int k = 0; k < l->nboxes && l->first_box + k < s->nranks; k++) {
        paint_box(p, s, l->first_box + k, viz_paint_box(p, l->box[k]), scale);
        if (l->box[k].y + l->box[k].h > bottom)
            bottom = l->box[k].y + l->box[k].h;
    }
    if (bottom < r.y + r.h)
        viz_paint_ranks_legend(p, s, l,
                               (VizBox){all.x, (r.y + r.h - 1) * p->cell_h, all.w, p->cell_h});
}
