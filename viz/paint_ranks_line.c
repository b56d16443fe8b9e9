// viz/paint_ranks_line.c: the compact rank lines of a small embedded view
// (VizLayout.compact_ranks), one per rank:
//
//   > r0 (backward) linear.3 + AllReduce [params|grads|act...]  558 MiB  54%
//     r1 (backward)                       [params|grads|act...]  558 MiB  54%
//
// the selected rank on a tinted band with a marker, its label, the phase
// chip, the op when the line has room for it, a thin stacked bar (the same
// scale and marks as the boxes) and the figures. Every line of a column
// uses the same widths (viz_paint_line_bar), so bars and figures line up.
#include "paint_ranks_internal.h"

#include <math.h>
#include <stdio.h>

#include "draw_internal.h" // defines: viz_fmt_bytes

static void band(VizPaint *p, VizBox slot) {
    VizRgba sel = viz_ink(VIZ_INK_SELECTED);
    viz_gfx_fill_round(p->g.cr, slot.x + 1, slot.y + 1, slot.w - 2, slot.h - 2, 4,
                       viz_rgba_alpha(sel, 0.14));
    // a marker at the left edge: the selection reads without colour too
    double h = slot.h * 0.6;
    cairo_t *cr = p->g.cr;
    cairo_move_to(cr, slot.x + 3, slot.y + slot.h / 2 - h / 2);
    cairo_line_to(cr, slot.x + 3 + h * 0.5, slot.y + slot.h / 2);
    cairo_line_to(cr, slot.x + 3, slot.y + slot.h / 2 + h / 2);
    cairo_close_path(cr);
    viz_gfx_set(cr, sel);
    cairo_fill(cr);
}

// "558 MiB  54%" after the bar.
static void figures(VizPaint *p, const VizScene *s, const VizPaintMem *m, double x,
                    double ymid, double end) {
    uint64_t cap = s->info ? s->info->device_capacity : 0;
    char cur[24], t[48];
    viz_fmt_bytes(m->total > 0 ? (uint64_t)(m->total + 0.5) : 0, cur, sizeof cur);
    if (cap > 0) {
        double v = m->total * 100.0 / (double)cap;
        snprintf(t, sizeof t, "%s %3.0f%%", cur, v < 999999 ? v : 999999);
    } else {
        snprintf(t, sizeof t, "%s", cur);
    }
    int over = cap > 0 && m->total > (double)cap;
    double px = p->font_px * 0.9, h;
    viz_gfx_text_size(&p->g, t, px, VIZ_FONT_MONO, NULL, &h);
    if (end - x > px)
        viz_gfx_text_fit(&p->g, x, ymid - h / 2, t, px, VIZ_FONT_MONO,
                         over ? viz_ink(VIZ_INK_WARN) : viz_ink(VIZ_INK_TEXT), end - x);
}

static void paint_line(VizPaint *p, const VizScene *s, int q, VizBox slot, double scale) {
    int sel = q == p->selected_rank;
    if (sel)
        band(p, slot);
    double px = p->font_px, ymid = round(slot.y + slot.h / 2);
    uint64_t cap = s->info ? s->info->device_capacity : 0;
    char lab[16];
    snprintf(lab, sizeof lab, "r%d", q);
    viz_gfx_text_at(&p->g, slot.x + px, ymid, lab, px, VIZ_FONT_MONO_BOLD,
                    sel ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_TEXT), VIZ_ALIGN_LEFT,
                    VIZ_VALIGN_MIDDLE);
    VizBox bar = viz_paint_line_bar(p, slot, s->nranks, cap > 0);
    // the chip starts where the widest label ends, so that chips line up
    char widest[16];
    snprintf(widest, sizeof widest, "r%d", s->nranks - 1);
    double lw;
    viz_gfx_text_size(&p->g, widest, px, VIZ_FONT_MONO_BOLD, &lw, NULL);
    double x = slot.x + px + lw + px * 0.5;
    const VizRankBox *rb = &s->ranks[q];
    double chip_w = viz_paint_phase_chip_w(p, VIZ_PHASE_OPTIMIZER, px * 0.8);
    x += viz_paint_phase_chip(p, x, ymid, rb->phase, px * 0.8, chip_w) + px * 0.6;
    char what[160];
    viz_draw_rank_what(rb, what, sizeof what);
    if (what[0] && bar.x - px * 0.6 - x > px * 4) {
        double h;
        viz_gfx_text_size(&p->g, what, px * 0.9, VIZ_FONT_SANS, NULL, &h);
        viz_gfx_text_fit(&p->g, x, ymid - h / 2, what, px * 0.9, VIZ_FONT_SANS,
                         viz_ink(VIZ_INK_DIM), bar.x - px * 0.6 - x);
    }
    VizPaintMem m;
    viz_paint_rank_mem(p, s, q, &m);
    if (bar.w >= 8)
        viz_paint_mem_bar(p, bar, &m, scale, (double)cap);
    figures(p, s, &m, bar.x + bar.w + px * 0.6, ymid, slot.x + slot.w - px * 0.3);
}

void viz_paint_rank_lines(VizPaint *p, const VizScene *s, const VizLayout *l) {
    double scale = viz_paint_ranks_scale(p, s);
    VizRect r = l->ranks;
    int bottom = r.y;
    for (int k = 0; k < l->nboxes && l->first_box + k < s->nranks; k++) {
        paint_line(p, s, l->first_box + k, viz_paint_box(p, l->box[k]), scale);
        if (l->box[k].y + 1 > bottom)
            bottom = l->box[k].y + 1;
    }
    if (l->rank_note.w > 0 && l->rank_note.h > 0) {
        viz_paint_ranks_note(p, s, l, viz_paint_box(p, l->rank_note));
        if (l->rank_note.y + 1 > bottom)
            bottom = l->rank_note.y + 1;
    }
    if (bottom < r.y + r.h) {
        VizBox all = viz_paint_box(p, r);
        viz_paint_ranks_legend(p, s, l,
                               (VizBox){all.x, (r.y + r.h - 1) * p->cell_h, all.w, p->cell_h});
    }
}
