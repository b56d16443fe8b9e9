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
//
// On a small embedded view (VizLayout.compact_ranks) each rank is one line
// instead (below: draw_lines), with the same bar.
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

// What a rank is doing besides its phase: the op, or the collective it
// waits for, or both.
void viz_draw_rank_what(const VizRankBox *b, char *what, size_t len) {
    what[0] = '\0';
    if ((b->phase == VIZ_PHASE_COMM || b->phase == VIZ_PHASE_WAIT) && b->coll)
        snprintf(what, len, "%s", b->coll);
    else if (b->op && b->coll)
        snprintf(what, len, "%s + %s", b->op, b->coll);
    else if (b->op)
        snprintf(what, len, "%s", b->op);
    else if (b->coll)
        snprintf(what, len, "%s", b->coll);
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
    char what[160];
    viz_draw_rank_what(b, what, sizeof what);
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

// ---------------------------------------------------------------------------
// Compact rank lines (viz_layout_embed on a small area), one per rank:
//
//   >r0 backward  linear + AllReduce   [PPPGGOOOOOAAAA..|....]  558 MiB pk  658 MiB   54%
//    r1 backward  [PGOA|...]  558 MiB  54%          (two to a line on 80 columns)
//
// the selected rank marked '>', the phase, the op where there is room to
// spare, the memory bar as in the boxes, and the numbers in the longest of
// their forms that leaves the bar BAR_MIN cells. The forms depend on the
// line's width only, so the lines of a column stay aligned.

enum {
    PHASE_W = 9,    // "optimizer"
    BAR_MIN = 8,    // the numbers shrink before the bar gets shorter
    BAR_OP = 24,    // the bar's cells once the op has a column
    BAR_MAX = 40,
    OP_MIN = 10,
    OP_MAX = 28,
    CUR_W = 8,      // "4.04 MiB"
    SHORT_W = 4,    // "558M"
    PCT_W = 4,      // "100%"
};

typedef enum { NUM_PEAK = 0, NUM_LONG, NUM_SHORT, NUM_TINY } NumForm;

// The cells of a numbers form.
static int num_width(NumForm f, int has_cap) {
    int pct = has_cap ? 1 + PCT_W : 0;
    switch (f) {
    case NUM_PEAK: // "558 MiB pk  658 MiB   54%"
        return CUR_W + 4 + CUR_W + (has_cap ? 2 + PCT_W : 0);
    case NUM_LONG: return CUR_W + pct;
    case NUM_SHORT: return SHORT_W + pct;
    default: return SHORT_W;
    }
}

static void num_text(NumForm f, const VizRankBox *b, uint64_t cap, char *out, size_t len) {
    uint64_t cu = b->mem_total > 0 ? (uint64_t)b->mem_total : 0;
    uint64_t pu = b->mem_peak > 0 ? (uint64_t)b->mem_peak : 0;
    char cur[24], peak[24], pct[16] = "";
    if (f <= NUM_LONG) {
        viz_fmt_bytes(cu, cur, sizeof cur);
        viz_fmt_bytes(pu, peak, sizeof peak);
    } else {
        viz_fmt_bytes_short(cu, cur, sizeof cur);
    }
    if (cap > 0 && f != NUM_TINY) {
        double p = (double)b->mem_total * 100.0 / (double)cap + 0.5;
        snprintf(pct, sizeof pct, "%*d%%", PCT_W - 1,
                 p < 999999 ? (p > -99999 ? (int)p : -99999) : 999999);
    }
    int w = f <= NUM_LONG ? CUR_W : SHORT_W;
    if (f == NUM_PEAK)
        snprintf(out, len, "%*s pk %*s%s%s", w, cur, CUR_W, peak, pct[0] ? "  " : "", pct);
    else
        snprintf(out, len, "%*s%s%s", w, cur, pct[0] ? " " : "", pct);
}

static void draw_line(VizCanvas *c, VizRect r, const VizScene *s, int q, int selected,
                      int64_t scale, int labw) {
    const VizRankBox *b = &s->ranks[q];
    uint64_t cap = s->info ? s->info->device_capacity : 0;
    int over = cap > 0 && b->mem_total > (int64_t)cap;
    int x = r.x, end = r.x + r.w - 2; // two blank columns part the lines side by side
    VizStyle ls = q == selected ? VIZ_STYLE_SELECTED : VIZ_STYLE_NORMAL;
    if (q == selected)
        viz_canvas_put(c, x, r.y, '>', VIZ_STYLE_SELECTED);
    viz_canvas_printf(c, x + 1, r.y, labw, ls, "r%d", q);
    x += 1 + labw + 1;
    viz_canvas_text(c, x, r.y, end - x, viz_draw_phase_style(b->phase),
                    viz_draw_phase_name(b->phase));
    x += PHASE_W + 1;
    int room = end - x;
    if (room <= 0) // a slot narrower than the layout ever makes
        return;
    NumForm f = NUM_PEAK;
    while (f < NUM_TINY && room - num_width(f, cap > 0) - 1 - 2 < BAR_MIN)
        f++;
    int nw = num_width(f, cap > 0);
    int bw = room - nw - 1 - 2;
    if (bw > BAR_OP + OP_MIN + 1) {
        // Room to spare: the op before the bar, then a longer bar.
        char what[160], buf[160];
        viz_draw_rank_what(b, what, sizeof what);
        int ow = bw - BAR_OP - 1 < OP_MAX ? bw - BAR_OP - 1 : OP_MAX;
        int k = viz_elide(what, ow, buf, sizeof buf);
        viz_canvas_text(c, x, r.y, k, VIZ_STYLE_NORMAL, buf);
        x += ow + 1;
        bw -= ow + 1;
    }
    if (bw > BAR_MAX)
        bw = BAR_MAX; // what is left stays blank at the end of the line
    if (bw > 0) {
        viz_canvas_put(c, x, r.y, '[', VIZ_STYLE_DIM);
        mem_bar(c, x + 1, r.y, bw, b, scale);
        viz_canvas_put(c, x + 1 + bw, r.y, ']', VIZ_STYLE_DIM);
        x += bw + 3;
    }
    char num[96];
    num_text(f, b, cap, num, sizeof num);
    viz_canvas_text(c, x, r.y, end - x, over ? VIZ_STYLE_WARN : VIZ_STYLE_NORMAL, num);
}

// "ranks 4..7 of 64 (r / R: next / previous rank)", or the longest shorter
// form that fits the note's slot.
static void draw_note(VizCanvas *c, VizRect r, const VizLayout *l, const VizScene *s) {
    static const char *const forms[] = {"ranks %d..%d of %d (r / R: next / previous rank)",
                                        "ranks %d..%d of %d (r / R)", "ranks %d..%d of %d",
                                        "%d..%d of %d"};
    int a = l->first_box, z = l->first_box + l->nboxes - 1;
    char t[96];
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        snprintf(t, sizeof t, forms[k], a, z, s->nranks);
        if (viz_utf8_cells(t) <= r.w - 2)
            break;
    }
    viz_canvas_text(c, r.x + 1, r.y, r.w - 2, VIZ_STYLE_DIM, t);
}

static void draw_lines(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected) {
    VizRect r = l->ranks;
    int64_t scale = bar_scale(s);
    char widest[16];
    int labw = snprintf(widest, sizeof widest, "r%d", s->nranks - 1);
    int bottom = r.y;
    for (int k = 0; k < l->nboxes; k++) {
        int q = l->first_box + k;
        if (q >= s->nranks)
            break;
        draw_line(c, l->box[k], s, q, selected, scale, labw);
        if (l->box[k].y + 1 > bottom)
            bottom = l->box[k].y + 1;
    }
    if (l->rank_note.w > 0 && l->rank_note.h > 0) {
        draw_note(c, l->rank_note, l, s);
        if (l->rank_note.y + 1 > bottom)
            bottom = l->rank_note.y + 1;
    }
    if (bottom < r.y + r.h)
        legend(c, r, r.y + r.h - 1, s, l);
}

void viz_draw_ranks(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected) {
    VizRect r = l->ranks;
    if (r.h <= 0 || l->nboxes <= 0 || !s->ranks)
        return;
    if (l->compact_ranks) {
        draw_lines(c, l, s, selected);
        return;
    }
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
