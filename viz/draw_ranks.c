// viz/draw_ranks.c: the rank boxes. Each box:
//
//   += rank 0 =================+   (the selected rank: double edges)
//   | backward linear + AllRe...|   phase (styled), op, the collective
//   | PPGGOOOOAAA.|........  54%|   memory by category against capacity,
//   | 558 MiB  peak 658 MiB     |   '|' at the peak so far
//   +===========================+
//
// ASCII bars use a letter per category (P params, G grads, O optimizer, A
// activations, C comm, x other; lower case for shards and low-precision
// copies); Unicode bars a shade per kind. Bars are scaled to the device
// capacity, or to the largest peak over the ranks when the run has none
// (so boxes compare). A legend line under the boxes names the categories
// that appear. Numbers shrink to fit narrow boxes ("558M pk 658M").
#include "draw_internal.h"

#include <stdio.h>
#include <string.h>

// Categories in bar order: the model's state first, then what comes and
// goes during a step.
static const int bar_order[] = {
    SIM_MEM_PARAM, SIM_MEM_PARAM_LOWP, SIM_MEM_PARAM_SHARD, SIM_MEM_GRAD,  SIM_MEM_GRAD_SHARD,
    SIM_MEM_OPTIM, SIM_MEM_ACT,        SIM_MEM_COMM,        SIM_MEM_OTHER,
};
enum { NCAT = sizeof bar_order / sizeof bar_order[0] };

static int64_t bar_scale(const VizScene *s) {
    uint64_t cap = s->info ? s->info->device_capacity : 0;
    if (cap > 0)
        return (int64_t)cap;
    int64_t m = 1;
    for (int q = 0; q < s->nranks; q++) {
        if (s->ranks[q].mem_peak > m)
            m = s->ranks[q].mem_peak;
        if (s->ranks[q].mem_total > m)
            m = s->ranks[q].mem_total;
    }
    return m;
}

static int cells_of(int64_t v, int64_t scale, int w) {
    if (v <= 0)
        return 0;
    double f = (double)v / (double)scale;
    if (f > 1)
        f = 1;
    return (int)(f * w + 0.5);
}

// A category's cell in a Unicode bar: a shade per kind of state (the
// parameters solid, gradients dark, optimizer medium, activations light,
// buffers checkered), so plain Unicode text still tells them apart; the
// styles add colour where there is colour.
static uint32_t uni_glyph(int cat) {
    switch (cat) {
    case SIM_MEM_PARAM:
    case SIM_MEM_PARAM_SHARD:
    case SIM_MEM_PARAM_LOWP: return 0x2588;
    case SIM_MEM_GRAD:
    case SIM_MEM_GRAD_SHARD: return 0x2593;
    case SIM_MEM_OPTIM: return 0x2592;
    case SIM_MEM_ACT: return 0x2591;
    case SIM_MEM_COMM: return 0x259E;
    default: return 0x259A;
    }
}

static uint32_t mem_glyph(const VizCanvas *c, int cat) {
    return c->unicode ? uni_glyph(cat) : (uint32_t)viz_mem_letter(cat);
}

// The memory bar of one rank: w cells at (x, y).
static void mem_bar(VizCanvas *c, int x, int y, int w, const VizRankBox *b, int64_t scale) {
    uint32_t dot = viz_glyph(c, VIZ_G_DOT);
    for (int k = 0; k < w; k++)
        viz_canvas_put(c, x + k, y, dot, VIZ_STYLE_DIM);
    int64_t cum = 0;
    int end = 0;
    for (int i = 0; i < NCAT; i++) {
        int cat = bar_order[i];
        int64_t v = b->mem[cat];
        if (v <= 0)
            continue;
        int a = cells_of(cum, scale, w);
        cum = v > INT64_MAX - cum ? INT64_MAX : cum + v; // a loaded trace's may be near 2^63
        int e = cells_of(cum, scale, w);
        for (int k = a; k < e; k++)
            viz_canvas_put(c, x + k, y, mem_glyph(c, cat), (VizStyle)(VIZ_STYLE_MEM_FIRST + cat));
        if (e > end)
            end = e;
    }
    int pk = cells_of(b->mem_peak, scale, w) - 1;
    if (pk >= end && pk < w)
        viz_canvas_put(c, x + pk, y, viz_glyph(c, VIZ_G_PEAK), VIZ_STYLE_WARN);
}

// "rank 5 (node 1)" in multi-node runs, or the longest shorter form that
// fits `room` columns for the world's largest numbers ("rank 5, node 1",
// "r5 node 1", "r5 n1"), the same form on every box, so that the node is
// never cut off; "rank 5" alone when none fits or there is one node.
static void box_title(char *title, size_t len, const VizScene *s, int q, int room) {
    snprintf(title, len, "rank %d", q);
    if (!s->info || s->info->nodes < 2 || s->nranks % s->info->nodes != 0)
        return;
    int per_node = s->nranks / s->info->nodes;
    static const char *const forms[] = {"rank %d (node %d)", "rank %d, node %d", "r%d node %d",
                                        "r%d n%d"};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        char widest[48];
        int n = snprintf(widest, sizeof widest, forms[k], s->nranks - 1, s->info->nodes - 1);
        if (n > 0 && n <= room) {
            snprintf(title, len, forms[k], q, q / per_node);
            return;
        }
    }
}

static void draw_box(VizCanvas *c, VizRect r, const VizScene *s, int q, int selected,
                     int64_t scale) {
    const VizRankBox *b = &s->ranks[q];
    uint64_t cap = s->info ? s->info->device_capacity : 0;
    int over = cap > 0 && b->mem_total > (int64_t)cap;
    char title[48];
    box_title(title, sizeof title, s, q, r.w - 6); // the room viz_canvas_box_h leaves
    VizStyle fst = over ? VIZ_STYLE_WARN : q == selected ? VIZ_STYLE_SELECTED : VIZ_STYLE_DIM;
    viz_canvas_box_h(c, r, fst, title, q == selected);

    int x = r.x + 2, cw = r.w - 4;
    if (cw <= 0 || r.h < 3)
        return;
    // Line 1: the phase, then the op (or the collective it waits for).
    const char *phase = viz_draw_phase_name(b->phase);
    int n = viz_canvas_text(c, x, r.y + 1, cw, viz_draw_phase_style(b->phase), phase);
    char what[160] = "";
    if ((b->phase == VIZ_PHASE_COMM || b->phase == VIZ_PHASE_WAIT) && b->coll)
        snprintf(what, sizeof what, "%s", b->coll);
    else if (b->op && b->coll)
        snprintf(what, sizeof what, "%s + %s", b->op, b->coll);
    else if (b->op)
        snprintf(what, sizeof what, "%s", b->op);
    else if (b->coll)
        snprintf(what, sizeof what, "%s", b->coll);
    if (what[0] && cw - n - 1 > 0) {
        char buf[160];
        int k = viz_elide(what, cw - n - 1, buf, sizeof buf);
        viz_canvas_text(c, x + n + 1, r.y + 1, k, VIZ_STYLE_NORMAL, buf);
    }
    if (r.h < 4)
        return;
    // Line 2: the bar, and the share of capacity when there is one.
    char pct[16] = "";
    if (cap > 0) { // a loaded trace's capacity may be 1 byte: the share is held below 10^6 %
        double p = (double)b->mem_total * 100.0 / (double)cap + 0.5;
        snprintf(pct, sizeof pct, "%3d%%", p < 999999 ? (p > -99999 ? (int)p : -99999) : 999999);
    }
    int pw = pct[0] ? (int)strlen(pct) + 1 : 0;
    int bw = cw - pw;
    if (bw > 0)
        mem_bar(c, x, r.y + 2, bw, b, scale);
    if (pw)
        viz_canvas_text(c, x + bw + 1, r.y + 2, pw - 1, over ? VIZ_STYLE_WARN : VIZ_STYLE_NORMAL,
                        pct);
    if (r.h < 5)
        return;
    // Line 3: the numbers, in the longest form that fits.
    uint64_t cu = b->mem_total > 0 ? (uint64_t)b->mem_total : 0;
    uint64_t pu = b->mem_peak > 0 ? (uint64_t)b->mem_peak : 0;
    char cur[24], peak[24], capb[24], line[128];
    viz_fmt_bytes(cu, cur, sizeof cur);
    viz_fmt_bytes(pu, peak, sizeof peak);
    viz_fmt_bytes(cap, capb, sizeof capb);
    snprintf(line, sizeof line, cap ? "%s pk %s / %s" : "%s  peak %s", cur, peak, capb);
    if (cap && viz_utf8_cells(line) > cw)
        snprintf(line, sizeof line, "%s  peak %s", cur, peak);
    if (viz_utf8_cells(line) > cw)
        snprintf(line, sizeof line, "%s pk %s", cur, peak);
    if (viz_utf8_cells(line) > cw) {
        viz_fmt_bytes_short(cu, cur, sizeof cur);
        viz_fmt_bytes_short(pu, peak, sizeof peak);
        viz_fmt_bytes_short(cap, capb, sizeof capb);
        snprintf(line, sizeof line, cap ? "%s pk %s / %s" : "%s  peak %s", cur, peak, capb);
        if (viz_utf8_cells(line) > cw)
            snprintf(line, sizeof line, "%s pk %s", cur, peak);
    }
    if (b->host_total > 0) {
        char host[24];
        viz_fmt_bytes((uint64_t)b->host_total, host, sizeof host);
        size_t k = strlen(line);
        snprintf(line + k, sizeof line - k, "  host %s", host);
    }
    char buf[128];
    int k = viz_elide(line, cw, buf, sizeof buf);
    viz_canvas_text(c, x, r.y + 3, k, over ? VIZ_STYLE_WARN : VIZ_STYLE_NORMAL, buf);
}

static void legend(VizCanvas *c, VizRect r, int y, const VizScene *s, const VizLayout *l) {
    int present[SIM_MEM_CAT_COUNT] = {0};
    for (int k = 0; k < l->nboxes; k++)
        for (int cat = 0; cat < SIM_MEM_CAT_COUNT; cat++)
            if (s->ranks[l->first_box + k].mem[cat] > 0)
                present[cat] = 1;
    int x = r.x + 1, end = r.x + r.w - 1;
    x += viz_canvas_text(c, x, y, end - x, VIZ_STYLE_DIM, "memory:");
    for (int i = 0; i < NCAT; i++) {
        int cat = bar_order[i];
        if (!present[cat])
            continue;
        const char *name = viz_mem_short(cat);
        int need = 4 + viz_utf8_cells(name);
        if (x + need > end)
            break;
        viz_canvas_put(c, x + 2, y, mem_glyph(c, cat), (VizStyle)(VIZ_STYLE_MEM_FIRST + cat));
        x += 4;
        x += viz_canvas_text(c, x, y, end - x, VIZ_STYLE_DIM, name);
    }
    char tail[64];
    uint64_t cap = s->info ? s->info->device_capacity : 0;
    if (cap > 0) {
        char cb[24];
        viz_fmt_bytes(cap, cb, sizeof cb);
        snprintf(tail, sizeof tail, "  %s peak  of %s per device", c->unicode ? "\xe2\x94\x83" : "|",
                 cb);
    } else {
        snprintf(tail, sizeof tail, "  %s peak  (no capacity: scaled to the largest peak)",
                 c->unicode ? "\xe2\x94\x83" : "|");
    }
    if (x + viz_utf8_cells(tail) <= end)
        viz_canvas_text(c, x, y, end - x, VIZ_STYLE_DIM, tail);
}

void viz_draw_ranks(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected) {
    VizRect r = l->ranks;
    if (r.h <= 0 || l->nboxes <= 0 || !s->ranks)
        return;
    if (l->nboxes < s->nranks)
        viz_canvas_printf(c, r.x + 1, r.y, r.w - 2, VIZ_STYLE_DIM,
                          "ranks %d..%d of %d (r / R: next / previous rank)", l->first_box,
                          l->first_box + l->nboxes - 1, s->nranks);
    int64_t scale = bar_scale(s);
    int bottom = r.y;
    for (int k = 0; k < l->nboxes; k++) {
        int q = l->first_box + k;
        if (q >= s->nranks)
            break;
        draw_box(c, l->box[k], s, q, selected, scale);
        if (l->box[k].y + l->box[k].h > bottom)
            bottom = l->box[k].y + l->box[k].h;
    }
    if (bottom < r.y + r.h)
        legend(c, r, r.y + r.h - 1, s, l);
}
