// viz/paint_ranks_bar.c: the pieces of a rank's box and line: its memory
// between two instants, the stacked bar and its marks, the phase chip.
#include "paint_ranks_internal.h"

#include <math.h>
#include <stdio.h>

#include "draw_internal.h" // defines: viz_draw_phase_name

static const int bar_order[] = {
    SIM_MEM_PARAM, SIM_MEM_PARAM_LOWP, SIM_MEM_PARAM_SHARD, SIM_MEM_GRAD,  SIM_MEM_GRAD_SHARD,
    SIM_MEM_OPTIM, SIM_MEM_ACT,        SIM_MEM_COMM,        SIM_MEM_OTHER,
};
enum { NCAT = sizeof bar_order / sizeof bar_order[0] };

const int *viz_paint_mem_order(int *n) {
    *n = NCAT;
    return bar_order;
}

// The next instant's box of rank q, or NULL when there is none to tween to.
static const VizRankBox *next_box(const VizPaint *p, const VizScene *s, int q) {
    const VizScene *n = p->next;
    if (n == NULL || n->ranks == NULL || n->nranks != s->nranks)
        return NULL;
    return &n->ranks[q];
}

static double tween(const VizPaint *p, int64_t a, const int64_t *b) {
    return b != NULL ? viz_paint_tween(p, (double)a, (double)*b) : (double)a;
}

void viz_paint_rank_mem(const VizPaint *p, const VizScene *s, int q, VizPaintMem *m) {
    const VizRankBox *a = &s->ranks[q], *b = next_box(p, s, q);
    for (int c = 0; c < SIM_MEM_CAT_COUNT; c++)
        m->mem[c] = c == SIM_MEM_BACKING ? 0 : tween(p, a->mem[c], b ? &b->mem[c] : NULL);
    m->total = tween(p, a->mem_total, b ? &b->mem_total : NULL);
    m->peak = tween(p, a->mem_peak, b ? &b->mem_peak : NULL);
    m->host = tween(p, a->host_total, b ? &b->host_total : NULL);
}

static double largest(const VizScene *s) {
    double m = 1;
    for (int q = 0; q < s->nranks; q++) {
        if ((double)s->ranks[q].mem_peak > m)
            m = (double)s->ranks[q].mem_peak;
        if ((double)s->ranks[q].mem_total > m)
            m = (double)s->ranks[q].mem_total;
    }
    return m;
}

// The bars span the capacity, unless the largest peak fills less than
// VIZ_PAINT_CAP_SHARE of it (KiB on a GiB device: every bar would be an
// empty line); then they span the largest peak, and the capacity, off the
// scale, is named in the legend.
static double scale_of(const VizScene *s) {
    double big = largest(s);
    double cap = s->info ? (double)s->info->device_capacity : 0;
    return cap > big && big >= VIZ_PAINT_CAP_SHARE * cap ? cap : big;
}

double viz_paint_ranks_scale(const VizPaint *p, const VizScene *s) {
    const VizScene *n = p->next;
    double a = scale_of(s);
    if (n == NULL || n->ranks == NULL || n->nranks != s->nranks)
        return a;
    return viz_paint_tween(p, a, scale_of(n));
}

double viz_paint_bar_x(VizBox r, double v, double scale) {
    double f = scale > 0 && v > 0 ? v / scale : 0;
    if (f > 1)
        f = 1;
    return round(r.x + f * r.w);
}

// A vertical mark 2 pixels wide at x, `over` pixels past the bar each way,
// edged in the background ink so that it shows on any segment's colour.
static void mark(cairo_t *cr, VizBox r, double x, double over, VizRgba c) {
    if (x > r.x + r.w - 2)
        x = r.x + r.w - 2; // a mark at the very end stays inside the bar
    cairo_rectangle(cr, x - 1, r.y - over, 4, r.h + 2 * over);
    viz_gfx_set(cr, viz_rgba_alpha(viz_ink(VIZ_INK_BACKGROUND), 0.85));
    cairo_fill(cr);
    cairo_rectangle(cr, x, r.y - over, 2, r.h + 2 * over);
    viz_gfx_set(cr, c);
    cairo_fill(cr);
}

void viz_paint_mem_bar(VizPaint *p, VizBox r, const VizPaintMem *m, double scale, double cap) {
    cairo_t *cr = p->g.cr;
    if (r.w < 4 || r.h < 2)
        return;
    double rad = r.h / 3 < 3 ? r.h / 3 : 3;
    viz_gfx_fill_round(cr, r.x, r.y, r.w, r.h, rad, viz_ink(VIZ_INK_BACKGROUND));
    cairo_save(cr);
    viz_gfx_round_rect(cr, r.x, r.y, r.w, r.h, rad);
    cairo_clip(cr);
    double cum = 0;
    for (int i = 0; i < NCAT; i++) {
        int c = bar_order[i];
        if (m->mem[c] <= 0)
            continue;
        double x0 = viz_paint_bar_x(r, cum, scale);
        cum += m->mem[c];
        double x1 = viz_paint_bar_x(r, cum, scale);
        if (x1 <= x0)
            continue;
        cairo_rectangle(cr, x0, r.y, x1 - x0, r.h);
        viz_gfx_set(cr, viz_mem_colour(c));
        cairo_fill(cr);
    }
    cairo_restore(cr);
    viz_gfx_round_rect(cr, r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1, rad);
    viz_gfx_set(cr, viz_ink(VIZ_INK_FRAME));
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    double over = r.h >= 8 ? 3 : 2;
    if (cap > 0 && cap <= scale)
        mark(cr, r, viz_paint_bar_x(r, cap, scale), over, viz_ink(VIZ_INK_WARN));
    if (m->peak > 0)
        mark(cr, r, viz_paint_bar_x(r, m->peak, scale) - 1, over, viz_ink(VIZ_INK_TEXT));
}

double viz_paint_phase_chip_w(VizPaint *p, VizPhase ph, double px) {
    double w;
    viz_gfx_text_size(&p->g, viz_draw_phase_name(ph), px, VIZ_FONT_SANS_BOLD, &w, NULL);
    return w + px;
}

double viz_paint_phase_chip(VizPaint *p, double x, double ymid, VizPhase ph, double px,
                            double min_w) {
    double w = viz_paint_phase_chip_w(p, ph, px);
    if (w < min_w)
        w = min_w;
    double h = round(px * 1.35);
    double y = round(ymid - h / 2);
    viz_gfx_fill_round(p->g.cr, x, y, w, h, h / 2, viz_phase_colour(ph));
    viz_gfx_text_at(&p->g, x + w / 2, ymid, viz_draw_phase_name(ph), px, VIZ_FONT_SANS_BOLD,
                    viz_ink(VIZ_INK_BACKGROUND), VIZ_ALIGN_CENTER, VIZ_VALIGN_MIDDLE);
    return w;
}

VizBox viz_paint_rank_box(const VizPaint *p, VizBox cell) {
    double gap = p->cell_w / 3 < 3 ? p->cell_w / 3 : 3;
    return (VizBox){round(cell.x + gap), round(cell.y + gap), round(cell.w - 2 * gap),
                    round(cell.h - 2 * gap)};
}

// The percent of capacity's room at the bar's right: "100%" at the body
// size, and a gap.
static double pct_room(const VizPaint *p) {
    return round(p->font_px * 3.4);
}

VizBox viz_paint_rank_bar(const VizPaint *p, VizBox box, int has_cap) {
    double pad = round(p->cell_w);
    double row = box.h / 3;
    double h = round(row * 0.5 < 14 ? row * 0.5 : 14);
    double w = box.w - 2 * pad - (has_cap ? pct_room(p) : 0);
    return (VizBox){box.x + pad, round(box.y + row * 1.5 - h / 2), w > 0 ? round(w) : 0, h};
}

VizBox viz_paint_line_bar(VizPaint *p, VizBox slot, int nranks, int has_cap) {
    // label, chip and figures keep their widths; the bar takes the rest up
    // to 40 cells (a longer one says nothing more), and room past that goes
    // to the op, between the chip and the bar
    char widest[16];
    snprintf(widest, sizeof widest, "r%d", nranks > 0 ? nranks - 1 : 0);
    double lw, fw;
    double px = p->font_px;
    viz_gfx_text_size(&p->g, widest, px, VIZ_FONT_MONO_BOLD, &lw, NULL);
    viz_gfx_text_size(&p->g, has_cap ? "1023 MiB 100%" : "1023 MiB", px * 0.9, VIZ_FONT_MONO,
                      &fw, NULL);
    double chip = viz_paint_phase_chip_w(p, VIZ_PHASE_OPTIMIZER, px * 0.8);
    double x = slot.x + px + lw + px * 0.5 + chip + px * 0.6;
    double w = slot.x + slot.w - px * 0.8 - fw - px * 0.6 - x;
    double most = 40 * p->cell_w, op_min = 12 * p->cell_w, op_max = 28 * p->cell_w;
    if (w > most + op_min) {
        double op = w - most < op_max ? w - most : op_max;
        x += op;
        w -= op;
    }
    if (w > most)
        w = most;
    double h = round(slot.h * 0.32 > 4 ? slot.h * 0.32 : 4);
    return (VizBox){round(x), round(slot.y + slot.h / 2 - h / 2), w > 0 ? round(w) : 0, h};
}
