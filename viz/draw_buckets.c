// viz/draw_buckets.c: DDP's gradient buckets, one row each:
//
//    #1  2.bias 2.weight +1        4.00 MiB [########........] reducing 45%
//
// index, the parameters it holds (as many names as fit, then "+k"), its
// bytes, a bar (filling: '-' share of parameters ready; waiting: '=' full
// but an earlier bucket has not launched; reducing: '#' progress of the
// all_reduce; done: all '#') and the state in words. When the rows do not
// all fit, the ones around the bucket in flight are shown.
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

static void state_text(const VizScene *s, const VizBucket *b, char *out, size_t len) {
    const char *nm = viz_draw_bucket_name(b->state);
    switch (b->state) {
    case VIZ_BUCKET_FILLING:
        if (b->lagging_rank >= 0)
            snprintf(out, len, "%s %d/%d, rank %d lags", nm, b->nready, b->nparams,
                     b->lagging_rank);
        else
            snprintf(out, len, "%s %d/%d", nm, b->nready, b->nparams);
        break;
    case VIZ_BUCKET_WAITING:
        if (b->lagging_rank >= 0)
            snprintf(out, len, "%s for rank %d", nm, b->lagging_rank);
        else
            snprintf(out, len, "%s for an earlier bucket", nm);
        break;
    case VIZ_BUCKET_REDUCING:
        snprintf(out, len, "%s %d%%", nm, (int)(b->progress * 100 + 0.5));
        if (s->coll.active && s->coll.running && s->coll.bucket == (int)(b - s->buckets) &&
            s->coll.nsteps > 0 && s->coll.step >= 0) {
            size_t k = strlen(out);
            snprintf(out + k, len - k, ", step %lld/%d", (long long)s->coll.step + 1,
                     s->coll.nsteps); // a loaded trace's step may be 2^31-1
        }
        break;
    default: snprintf(out, len, "%s", nm); break;
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
    char title[160];
    int n = snprintf(title, sizeof title,
                     "Buckets (gradients in reverse layer order; all_reduce launched in index order)");
    if (rows < nb && n > 0 && (size_t)n < sizeof title)
        snprintf(title + n, sizeof title - (size_t)n, "  #%d..#%d of %d", first, first + rows - 1,
                 nb);
    char buf[160];
    int k = viz_elide(title, r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y, k, VIZ_STYLE_TITLE, buf);

    // Columns: index, names, bytes, bar, state.
    int idxw = 4, bytesw = 10, statew = 26;
    int barw = r.w / 5;
    if (barw < 10)
        barw = 10;
    if (barw > 30)
        barw = 30;
    int namesw = r.w - 1 - idxw - 1 - bytesw - 1 - (barw + 2) - 1 - statew;
    if (namesw < 8) {
        statew -= 8 - namesw;
        namesw = 8;
    }
    for (int row = 0; row < rows; row++) {
        int i = first + row;
        const VizBucket *b = &s->buckets[i];
        int y = r.y + 1 + row;
        int x = r.x + 1;
        int active = s->coll.active && s->coll.running && s->coll.bucket == i;
        viz_canvas_printf(c, x, y, idxw, active ? VIZ_STYLE_SELECTED : VIZ_STYLE_NORMAL, "%s#%d",
                          active ? ">" : " ", i);
        x += idxw + 1;
        char nm[256];
        names(s, b, namesw, nm, sizeof nm);
        viz_canvas_text(c, x, y, namesw, VIZ_STYLE_NORMAL, nm);
        x += namesw + 1;
        char by[24];
        viz_fmt_bytes(b->bytes, by, sizeof by);
        int bl = (int)strlen(by);
        viz_canvas_text(c, x + bytesw - bl, y, bytesw, VIZ_STYLE_NORMAL, by);
        x += bytesw + 1;
        bar(c, x, y, barw, b);
        x += barw + 3;
        char st[80];
        state_text(s, b, st, sizeof st);
        int sl = viz_elide(st, r.x + r.w - x, buf, sizeof buf);
        viz_canvas_text(c, x, y, sl,
                        b->lagging_rank >= 0 && b->state != VIZ_BUCKET_DONE ? VIZ_STYLE_WARN
                                                                             : state_style(b->state),
                        buf);
    }
}
