// viz/paint_buckets.c: DDP's gradient buckets, as the selected rank sees
// them, one row each:
//
//   #1  4.00 MiB  [ seg | seg | seg ]  reducing 45%   2.bias 2.weight
//
// The bar is cut in one segment per parameter, as wide as its bytes. While
// the bucket fills, a segment lights up as its gradient becomes ready (the
// brighter, the more ranks have it); a full bucket that waits for an
// earlier one is drawn in the waiting colour; once launched, the all_reduce's
// progress sweeps over it from the left, and a reduced bucket is all done.
// The progress tweens towards the next instant's. Ranks somewhere else
// with the bucket are summed up after the state ("r3 filling 1/2"), in the
// warning colour when they are behind.
#include "paint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw_internal.h" // defines: viz_fmt_bytes, viz_draw_bucket_name

// The first bucket before b that has not launched: the one a full bucket
// waits for (launches go in index order), -1.
static int waits_for(const VizScene *s, int b) {
    for (int j = 0; j < b; j++)
        if (s->buckets[j].state < VIZ_BUCKET_REDUCING)
            return j;
    return -1;
}

static void state_text(const VizScene *s, const VizBucket *b, double progress, char *out,
                       size_t len) {
    const char *nm = viz_draw_bucket_name(b->state);
    int self = (int)(b - s->buckets), w;
    switch (b->state) {
    case VIZ_BUCKET_FILLING: snprintf(out, len, "%s %d/%d", nm, b->nready, b->nparams); break;
    case VIZ_BUCKET_WAITING:
        if ((w = waits_for(s, self)) >= 0)
            snprintf(out, len, "full, waits for #%d", w);
        else
            snprintf(out, len, "full, launches next");
        break;
    case VIZ_BUCKET_REDUCING:
        snprintf(out, len, "all_reduce %d%%", (int)(progress * 100 + 0.5));
        break;
    case VIZ_BUCKET_DONE: snprintf(out, len, "reduced"); break;
    default: snprintf(out, len, "%s", nm); break;
    }
}

static void names_text(const VizScene *s, const VizBucket *b, char *out, size_t len) {
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < b->nparams && o + 2 < len; k++) {
        int i = b->first + k;
        const char *nm = s->params && i >= 0 && i < s->nparams && s->params[i].name
                             ? s->params[i].name : "?";
        int n = snprintf(out + o, len - o, "%s%s", k ? " " : "", nm);
        if (n < 0 || (size_t)n >= len - o)
            break;
        o += (size_t)n;
    }
}

// The bucket the rows centre on when they do not all fit.
static int focus(const VizScene *s) {
    if (s->coll.active && s->coll.running && s->coll.bucket >= 0 && s->coll.bucket < s->nbuckets)
        return s->coll.bucket;
    for (int i = 0; i < s->nbuckets; i++)
        if (s->buckets[i].state == VIZ_BUCKET_REDUCING ||
            s->buckets[i].state == VIZ_BUCKET_FILLING || s->buckets[i].state == VIZ_BUCKET_WAITING)
            return i;
    return 0;
}

// The bar of bucket b in r: a segment per parameter, then the progress.
static void bar(VizPaint *p, const VizScene *s, const VizBucket *b, double progress, VizBox r) {
    cairo_t *cr = p->g.cr;
    viz_gfx_fill_round(cr, r.x, r.y, r.w, r.h, 3, viz_ink(VIZ_INK_BACKGROUND));
    double total = 0;
    for (int k = 0; k < b->nparams; k++) {
        int i = b->first + k;
        total += s->params && i >= 0 && i < s->nparams ? (double)s->params[i].bytes : 0;
    }
    VizRgba fill = viz_bucket_colour(b->state == VIZ_BUCKET_WAITING ? VIZ_BUCKET_WAITING
                                                                    : VIZ_BUCKET_FILLING);
    double x = r.x;
    for (int k = 0; k < b->nparams; k++) {
        int i = b->first + k;
        const VizParam *q = s->params && i >= 0 && i < s->nparams ? &s->params[i] : NULL;
        double w = total > 0 && q ? r.w * (double)q->bytes / total : r.w / b->nparams;
        double lit = 0;
        if (b->state >= VIZ_BUCKET_WAITING)
            lit = 1;
        else if (b->state == VIZ_BUCKET_FILLING && q && q->ready > 0)
            lit = 0.45 + 0.55 * q->ready / (s->nranks > 0 ? s->nranks : 1);
        if (lit > 0) {
            viz_gfx_set(cr, viz_rgba_alpha(fill, lit > 1 ? 1 : lit));
            cairo_rectangle(cr, x, r.y, w, r.h);
            cairo_fill(cr);
        }
        if (k > 0 && w > 0) { // the parameters' borders
            viz_gfx_set(cr, viz_ink(VIZ_INK_PANEL));
            cairo_rectangle(cr, x - 0.5, r.y, 1, r.h);
            cairo_fill(cr);
        }
        x += w;
    }
    if (b->state == VIZ_BUCKET_REDUCING || b->state == VIZ_BUCKET_DONE) {
        double f = b->state == VIZ_BUCKET_DONE ? 1 : progress;
        viz_gfx_set(cr, viz_bucket_colour(b->state));
        cairo_rectangle(cr, r.x, r.y, r.w * (f < 0 ? 0 : f > 1 ? 1 : f), r.h);
        cairo_fill(cr);
    }
    viz_gfx_round_rect(cr, r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1, 3);
    viz_gfx_set(cr, viz_ink(VIZ_INK_FRAME));
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
}

static void row(VizPaint *p, const VizScene *s, int i, VizBox r) {
    const VizBucket *b = &s->buckets[i];
    int active = s->coll.active && s->coll.running && s->coll.bucket == i;
    double px = p->font_px, my = r.y + r.h / 2;
    double progress = b->progress;
    if (p->next && p->next->nbuckets == s->nbuckets && p->next->buckets &&
        p->next->bucket_rank == s->bucket_rank)
        progress = viz_paint_tween(p, b->progress, p->next->buckets[i].progress);
    char t[64], by[24];
    snprintf(t, sizeof t, "#%d", i);
    if (active)
        viz_gfx_fill_round(p->g.cr, r.x - 4, r.y, r.w + 4, r.h, 4,
                           viz_rgba_alpha(viz_bucket_colour(VIZ_BUCKET_REDUCING), 0.12));
    viz_gfx_text_at(&p->g, r.x, my, t, px, VIZ_FONT_MONO_BOLD,
                    active ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_TEXT), VIZ_ALIGN_LEFT,
                    VIZ_VALIGN_MIDDLE);
    viz_fmt_bytes(b->bytes, by, sizeof by);
    double x = r.x + px * 2.6;
    viz_gfx_text_at(&p->g, x + px * 5.6, my, by, px, VIZ_FONT_MONO, viz_ink(VIZ_INK_DIM),
                    VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
    x += px * 6.4;
    double bw = r.w * 0.34, bh = r.h * 0.62;
    bw = bw < px * 10 ? px * 10 : bw;
    bar(p, s, b, progress, (VizBox){x, my - bh / 2, bw, bh});
    x += bw + px * 0.8;
    char st[80], other[96], nm[512];
    state_text(s, b, progress, st, sizeof st);
    double sw = viz_gfx_text_at(&p->g, x, my, st, px, VIZ_FONT_SANS_BOLD,
                                b->state == VIZ_BUCKET_EMPTY ? viz_ink(VIZ_INK_DIM)
                                                             : viz_bucket_colour(b->state),
                                VIZ_ALIGN_LEFT, VIZ_VALIGN_MIDDLE);
    x += (sw > px * 9 ? sw : px * 9) + px * 0.6;
    viz_draw_bucket_others(b, other, sizeof other);
    double end = r.x + r.w;
    if (other[0] && end - x > px * 4) {
        viz_gfx_text_size(&p->g, other, px, VIZ_FONT_SANS, NULL, NULL);
        double ow = viz_gfx_text_fit(&p->g, x, my - px * 0.62, other, px * 0.92, VIZ_FONT_SANS,
                                     b->behind ? viz_ink(VIZ_INK_WARN) : viz_ink(VIZ_INK_DIM),
                                     end - x);
        x += ow + px;
    }
    names_text(s, b, nm, sizeof nm);
    if (end - x > px * 4)
        viz_gfx_text_fit(&p->g, x, my - px * 0.6, nm, px * 0.92, VIZ_FONT_MONO,
                         viz_ink(VIZ_INK_DIM), end - x);
}

void viz_paint_buckets(VizPaint *p, const VizScene *s, VizBox b) {
    if (b.w <= 0 || b.h <= 0 || s->nbuckets <= 0 || !s->buckets)
        return;
    const char *plan = s->plan_kind == VIZ_PLAN_REBUILT    ? "rebuilt plan"
                       : s->plan_kind == VIZ_PLAN_INFERRED ? "plan inferred from the ready events"
                                                           : "initial plan";
    char title[160];
    snprintf(title, sizeof title, "DDP buckets on rank %d (%s; all_reduce launched in index "
             "order)", s->bucket_rank, plan);
    VizBox in = viz_paint_panel(p, b, title);
    // a row per cell row under the title, as the layout counted them
    double rh = p->cell_h;
    int rows = (int)floor(b.h / p->cell_h + 1e-6) - 1, nb = s->nbuckets, first = 0;
    if (rows <= 0)
        return;
    if (rows < nb) {
        first = focus(s) - rows / 2;
        first = first < 0 ? 0 : first + rows > nb ? nb - rows : first;
    } else {
        rows = nb;
        rh = in.h / rows < p->cell_h * 1.6 ? in.h / rows : p->cell_h * 1.6;
    }
    if (in.h < rows * rh) // the card's border took a little of the last row
        rh = in.h / rows;
    for (int k = 0; k < rows; k++)
        row(p, s, first + k, (VizBox){in.x, in.y + k * rh, in.w, rh});
}
