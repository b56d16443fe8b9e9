// viz/draw_buckets.c: DDP's gradient buckets as one rank sees them (the
// selected rank, named in the title with the plan's origin and order), one
// row each:
//
//    #1  2.bias 2.weight   4.00 MiB [#####.....] reducing 45%; r3 filling 1/2
//
// index, the parameters it holds (as many names as fit, then "+k"), its
// bytes, a bar (filling: '-' share of parameters ready; waiting: '=' full
// but an earlier bucket has not launched; reducing: '#' progress of the
// all_reduce; done: all '#'), the state in words, and where other ranks
// are somewhere else with it, which ranks and where ("r1-3 filling 7/8").
// When the rows do not all fit, the ones around the bucket in flight are
// shown.
#include "draw_internal.h"

#include <stdio.h>
#include <string.h>

// Parameter names of bucket b, as many as fit in w cells, then "+k".
static void names(const VizScene *s, const VizBucket *b, int w, char *out, size_t len) {
    out[0] = '\0';
    if (!s->params || b->nparams <= 0 || w <= 0) {
        viz_elide("-", w, out, len);
        return;
    }
    size_t o = 0;
    int cells = 0;
    for (int k = 0; k < b->nparams; k++) {
        int i = b->first + k;
        const char *nm = i >= 0 && i < s->nparams && s->params[i].name ? s->params[i].name : "?";
        int nc = viz_utf8_cells(nm);
        int rest = b->nparams - k - 1;
        char more[16] = "";
        if (rest > 0)
            snprintf(more, sizeof more, " +%d", rest);
        // This name fits if what follows it ("+rest") still fits after it,
        // or if it is the last one.
        int need = cells + (k ? 1 : 0) + nc;
        int tail = rest > 0 ? (int)strlen(more) : 0;
        if (need + tail > w && !(rest == 0 && need <= w)) {
            char m2[16];
            snprintf(m2, sizeof m2, "%s+%d", k ? " " : "", b->nparams - k);
            if (cells + (int)strlen(m2) <= w && o + strlen(m2) < len) {
                memcpy(out + o, m2, strlen(m2) + 1);
            } else if (k == 0) {
                viz_elide(nm, w, out, len); // not even one name: cut it
            }
            return;
        }
        size_t nb = strlen(nm);
        if (o + nb + 2 >= len)
            return;
        if (k)
            out[o++] = ' ';
        memcpy(out + o, nm, nb);
        o += nb;
        out[o] = '\0';
        cells = need;
    }
}

static VizStyle state_style(VizBucketState st) {
    switch (st) {
    case VIZ_BUCKET_FILLING:
    case VIZ_BUCKET_WAITING: return VIZ_STYLE_FILLING;
    case VIZ_BUCKET_REDUCING: return VIZ_STYLE_REDUCING;
    case VIZ_BUCKET_DONE: return VIZ_STYLE_DONE;
    default: return VIZ_STYLE_DIM;
    }
}

static void bar(VizCanvas *c, int x, int y, int w, const VizBucket *b) {
    uint32_t dot = viz_glyph(c, VIZ_G_DOT);
    viz_canvas_put(c, x, y, '[', VIZ_STYLE_DIM);
    viz_canvas_put(c, x + w + 1, y, ']', VIZ_STYLE_DIM);
    for (int k = 0; k < w; k++)
        viz_canvas_put(c, x + 1 + k, y, dot, VIZ_STYLE_DIM);
    VizStyle st = state_style(b->state);
    int glyph = -1;
    double f = 0;
    switch (b->state) {
    case VIZ_BUCKET_FILLING:
        glyph = VIZ_G_LIGHT;
        f = b->nparams > 0 ? (double)b->nready / b->nparams : 0;
        break;
    case VIZ_BUCKET_WAITING:
        glyph = VIZ_G_MEDIUM;
        f = 1;
        break;
    case VIZ_BUCKET_REDUCING:
        viz_canvas_bar(c, x + 1, y, w, b->progress, st);
        return;
    case VIZ_BUCKET_DONE:
        viz_canvas_bar(c, x + 1, y, w, 1, st);
        return;
    default: return;
    }
    int n = (int)(f * w + 0.5);
    for (int k = 0; k < n; k++)
        viz_canvas_put(c, x + 1 + k, y, viz_glyph(c, glyph), st);
}

// The first bucket before b that has not launched on the view rank: the
// one a full bucket waits for (launches go in index order), -1.
static int waits_for(const VizScene *s, int b) {
    for (int j = 0; j < b; j++)
        if (s->buckets[j].state < VIZ_BUCKET_REDUCING)
            return j;
    return -1;
}

// The view rank's state in words: "filling 5/6", "waiting for #0", ...
static void state_text(const VizScene *s, const VizBucket *b, char *out, size_t len) {
    const char *nm = viz_draw_bucket_name(b->state);
    int self = (int)(b - s->buckets), w;
    switch (b->state) {
    case VIZ_BUCKET_FILLING: snprintf(out, len, "%s %d/%d", nm, b->nready, b->nparams); break;
    case VIZ_BUCKET_WAITING:
        if ((w = waits_for(s, self)) >= 0)
            snprintf(out, len, "%s for #%d", nm, w);
        else
            snprintf(out, len, "full, launches next"); // its launch event follows
        break;
    case VIZ_BUCKET_REDUCING:
        snprintf(out, len, "%s %d%%", nm, (int)(b->progress * 100 + 0.5));
        // the step, unless other ranks' marks need the room
        if (b->ndiffer == 0 && s->coll.active && s->coll.running && s->coll.bucket == self &&
            s->coll.nsteps > 0 && s->coll.step >= 0) {
            size_t k = strlen(out);
            snprintf(out + k, len - k, ", step %lld/%d", (long long)s->coll.step + 1,
                     s->coll.nsteps); // a loaded trace's step may be 2^31-1
        }
        break;
    default: snprintf(out, len, "%s", nm); break;
    }
}

// The other ranks' group: "r1-3 filling 7/8", "r0 reducing", "" when every
// rank agrees; "(+2)": two more ranks are elsewhere, in other states.
void viz_draw_bucket_others(const VizBucket *b, char *out, size_t len) {
    out[0] = '\0';
    if (b->ndiffer <= 0 || b->other_n <= 0)
        return;
    char who[40];
    if (b->other_n == 1)
        snprintf(who, sizeof who, "r%d", b->other_lo);
    else if (b->other_n == b->other_hi - b->other_lo + 1)
        snprintf(who, sizeof who, "r%d-%d", b->other_lo, b->other_hi);
    else
        snprintf(who, sizeof who, "%d ranks", b->other_n);
    const char *nm = viz_draw_bucket_name(b->other_state);
    int n = b->other_state == VIZ_BUCKET_FILLING
                ? snprintf(out, len, "%s %s %d/%d", who, nm, b->other_ready, b->nparams)
                : snprintf(out, len, "%s %s", who, nm);
    if (b->ndiffer > b->other_n && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, " (+%d)", b->ndiffer - b->other_n);
}

// The same after "; ", as the bucket row's state continues with it.
static void others_text(const VizBucket *b, char *out, size_t len) {
    out[0] = '\0';
    if (len < 3)
        return;
    viz_draw_bucket_others(b, out + 2, len - 2);
    if (out[2] != '\0') {
        out[0] = ';';
        out[1] = ' ';
    }
}

// The title: whose view, which plan, in what order, and the launch rule,
// dropping the least needed parts until it fits in w cells.
static void title_text(const VizScene *s, int first, int rows, int w, char *out, size_t len) {
    char plan[80], scroll[48] = "";
    const char *order = s->plan_order == VIZ_ORDER_PARAMS     ? ", parameter order"
                        : s->plan_order == VIZ_ORDER_REVERSED ? ", buckets in reverse parameter order"
                        : s->plan_order == VIZ_ORDER_READY    ? ", gradient-ready order"
                                                              : "";
    if (s->plan_kind == VIZ_PLAN_REBUILT && s->plan_iteration >= 0)
        snprintf(plan, sizeof plan, "rebuilt in iteration %d%s", s->plan_iteration, order);
    else if (s->plan_kind == VIZ_PLAN_REBUILT)
        snprintf(plan, sizeof plan, "rebuilt%s", order);
    else if (s->plan_kind == VIZ_PLAN_INFERRED)
        snprintf(plan, sizeof plan, "as the ready events show them");
    else
        snprintf(plan, sizeof plan, "initial plan%s", order);
    if (rows < s->nbuckets)
        snprintf(scroll, sizeof scroll, "  #%d..#%d of %d", first, first + rows - 1, s->nbuckets);
    static const char *const rule[] = {"; all_reduce launched in index order",
                                       "; launched in index order", ""};
    for (int k = 0; k < 3; k++) {
        snprintf(out, len, "Buckets on rank %d (%s%s)%s", s->bucket_rank, plan, rule[k], scroll);
        if (viz_utf8_cells(out) <= w)
            return;
    }
}

// The bucket the rows centre on: the one in flight, else the first that
// is on its way (filling, waiting), else the first.
static int focus(const VizScene *s) {
    if (s->coll.active && s->coll.running && s->coll.bucket >= 0 && s->coll.bucket < s->nbuckets)
        return s->coll.bucket;
    for (int i = 0; i < s->nbuckets; i++)
        if (s->buckets[i].state == VIZ_BUCKET_REDUCING)
            return i;
    for (int i = 0; i < s->nbuckets; i++)
        if (s->buckets[i].state == VIZ_BUCKET_FILLING || s->buckets[i].state == VIZ_BUCKET_WAITING)
            return i;
    return 0;
}

enum { IDX_W = 4, BYTES_W = 10 }; // the index and bytes columns

// Bucket i's row at line y: index, names, bytes, bar, the view rank's
// state, then the other ranks' marks (a warning when they are behind).
static void bucket_row(VizCanvas *c, VizRect r, const VizScene *s, int i, int y, int namesw,
                       int barw) {
    const VizBucket *b = &s->buckets[i];
    int x = r.x + 1;
    int active = s->coll.active && s->coll.running && s->coll.bucket == i;
    viz_canvas_printf(c, x, y, IDX_W, active ? VIZ_STYLE_SELECTED : VIZ_STYLE_NORMAL, "%s#%d",
                      active ? ">" : " ", i);
    x += IDX_W + 1;
    char nm[256], buf[256];
    names(s, b, namesw, nm, sizeof nm);
    viz_canvas_text(c, x, y, namesw, VIZ_STYLE_NORMAL, nm);
    x += namesw + 1;
    char by[24];
    viz_fmt_bytes(b->bytes, by, sizeof by);
    int bl = (int)strlen(by);
    viz_canvas_text(c, x + BYTES_W - bl, y, BYTES_W, VIZ_STYLE_NORMAL, by);
    x += BYTES_W + 1;
    bar(c, x, y, barw, b);
    x += barw + 3;
    char st[80], other[96];
    state_text(s, b, st, sizeof st);
    others_text(b, other, sizeof other);
    int end = r.x + r.w;
    x += viz_canvas_text(c, x, y, viz_elide(st, end - x, buf, sizeof buf), state_style(b->state),
                         buf);
    if (other[0] && x < end)
        viz_canvas_text(c, x, y, viz_elide(other, end - x, buf, sizeof buf),
                        b->behind ? VIZ_STYLE_WARN : VIZ_STYLE_DIM, buf);
}

void viz_draw_buckets(VizCanvas *c, VizRect r, const VizScene *s) {
    if (r.h <= 0 || s->nbuckets <= 0 || !s->buckets)
        return;
    int nb = s->nbuckets, rows = r.h - 1;
    int first = 0;
    if (rows < nb) {
        first = focus(s) - rows / 2;
        if (first < 0)
            first = 0;
        if (first + rows > nb)
            first = nb - rows;
    } else {
        rows = nb;
    }
    char title[256], buf[256];
    title_text(s, first, rows, r.w - 2, title, sizeof title);
    int k = viz_elide(title, r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y, k, VIZ_STYLE_TITLE, buf);

    // Columns: index, names, bytes, bar, state (with room for the other
    // ranks' marks).
    int statew = r.w >= 120 ? 44 : 35;
    int barw = r.w / (r.w >= 120 ? 5 : 8); // narrow: the words need the cells more
    if (barw < 10)
        barw = 10;
    if (barw > 30)
        barw = 30;
    int namesw = r.w - 1 - IDX_W - 1 - BYTES_W - 1 - (barw + 2) - 1 - statew;
    if (namesw < 8)
        namesw = 8; // the state gives way (elided)
    for (int row = 0; row < rows; row++)
        bucket_row(c, r, s, first + row, r.y + 1 + row, namesw, barw);
}
