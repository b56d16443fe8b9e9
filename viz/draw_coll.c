// viz/draw_coll.c: the collective at the cursor as a diagram.
//
// Ring (and chain): the ranks go round clockwise, the top row left to right
// and the bottom row right to left (layout.c places the nodes):
//
//   AllReduce (ring) of bucket #1, 4.00 MiB: reduce-scatter, step 2 of 6
//    +- rank 0 -------+               +- rank 1 -------+
//    | c3:r3+r0       |------c3------>| c0:r0+r1       |
//    +----------------+               +----------------+
//       ^ c2                                       | c0
//    +- rank 3 -------+               +- rank 2 -------+  ...
//
// Each arrow is one transfer of this step, labelled with its chunk; the
// ring's idle links are dim lines. A node shows the chunk it sends (or
// receives) and whose contributions that copy holds ("c2:r1+r2+r3", or a
// count "c2:3/4" when the names do not fit, "c2:all" when complete).
//
// Tree, star and direct exchanges: the nodes in one row and each transfer
// on a lane below, from the sender's column ('o') to the receiver's (head).
#include "draw_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h" // defines: sim_algo_name, SIM_ALGO_COUNT

void viz_draw_node(VizCanvas *c, VizRect r, const char *name, const char *text, VizStyle st,
                   int selected) {
    if (r.w <= 0 || r.h <= 0)
        return;
    char buf[128];
    if (r.h >= 3) {
        viz_canvas_box_h(c, r, st, name, selected);
        int k = viz_elide(text ? text : "", r.w - 4, buf, sizeof buf);
        viz_canvas_text(c, r.x + 2, r.y + 1, k, VIZ_STYLE_NORMAL, buf);
        return;
    }
    // One line: "[name text]", the name whole and the text in what is left.
    viz_canvas_put(c, r.x, r.y, '[', st);
    viz_canvas_put(c, r.x + r.w - 1, r.y, ']', st);
    VizStyle ns = st == VIZ_STYLE_DIM ? VIZ_STYLE_NORMAL : st;
    int n = viz_elide(name, r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y, n, ns, buf);
    int room = r.w - 2 - n - 1;
    if (text && *text && room > 0) {
        int k = viz_elide(text, room, buf, sizeof buf);
        viz_canvas_text(c, r.x + 2 + n, r.y, k, VIZ_STYLE_NORMAL, buf);
    }
}

static int is_ring(const VizColl *k) {
    return k->topo == VIZ_TOPO_RING || k->topo == VIZ_TOPO_CHAIN;
}

// The chunk node q shows: the one it sends this step, else the one it
// receives, else the one it holds most of. -1 when none.
static int shown_chunk(const VizColl *k, int q) {
    for (int i = 0; i < k->nxfer; i++)
        if (k->xfer[i].src == q && k->xfer[i].chunk >= 0 && k->xfer[i].chunk < k->nchunks)
            return k->xfer[i].chunk;
    for (int i = 0; i < k->nxfer; i++)
        if (k->xfer[i].dst == q && k->xfer[i].chunk >= 0 && k->xfer[i].chunk < k->nchunks)
            return k->xfer[i].chunk;
    if (k->nchunks <= 0 || !k->nheld)
        return -1;
    int best = 0;
    for (int ch = 1; ch < k->nchunks; ch++)
        if (k->nheld[(size_t)q * k->nchunks + ch] > k->nheld[(size_t)q * k->nchunks + best])
            best = ch;
    return best;
}

// "c2:r1+r2+r3" when it fits in w, else "c2:1+2+3", else "c2:3/4";
// "c2:all" once every rank's contribution is in.
static void held_text(const VizScene *s, int q, int w, char *out, size_t len) {
    const VizColl *k = &s->coll;
    out[0] = '\0';
    int ch = shown_chunk(k, q);
    if (ch < 0 || !k->nheld)
        return;
    size_t at = (size_t)q * (size_t)k->nchunks + (size_t)ch;
    int n = k->nheld[at];
    if (n >= s->nranks) {
        snprintf(out, len, "c%d:all", ch);
        return;
    }
    if (n <= 0) {
        snprintf(out, len, "c%d:-", ch);
        return;
    }
    if (k->held && s->nranks <= 64) {
        for (int style = 0; style < 2; style++) {
            char buf[256];
            int o = snprintf(buf, sizeof buf, "c%d:", ch), first = 1;
            for (int r = 0; r < s->nranks && o < (int)sizeof buf - 8; r++) {
                if (!(k->held[at] >> r & 1))
                    continue;
                o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%s%d", first ? "" : "+",
                              style == 0 ? "r" : "", r);
                first = 0;
            }
            if (o <= w && (size_t)o < len) {
                memcpy(out, buf, (size_t)o + 1);
                return;
            }
        }
    }
    char buf[48];
    int o = snprintf(buf, sizeof buf, "c%d:%d/%d", ch, n, s->nranks);
    if (o > w) // only the count
        snprintf(buf, sizeof buf, "%d/%d", n, s->nranks);
    snprintf(out, len, "%s", buf);
}

static VizRect node_of(const VizLayout *l, int q) {
    int i = q - l->first_node;
    if (i < 0 || i >= l->nnodes)
        return (VizRect){0, 0, 0, 0};
    return l->node[i];
}

static int in_row(const VizLayout *l, int i) {
    return l->node[i].y != l->node[0].y; // 0: top row, 1: bottom row
}

// A path from node a to node b of the ring picture (both shown). Returns 0
// when the picture has no clean path for that pair (not neighbours).
typedef struct {
    int x0, y0, x1, y1; // for viz_canvas_arrow
    int lx, ly;         // where the label starts
    int vdir;           // a vertical path: 1 down, -1 up; 0 otherwise
} Path;

static int ring_path(const VizLayout *l, int ia, int ib, Path *p, int lablen) {
    VizRect A = l->node[ia], B = l->node[ib];
    int ra = in_row(l, ia), rb = in_row(l, ib);
    p->vdir = 0;
    if (ra == rb) {
        // Neighbours in a row only: nothing may stand between them.
        int lo = A.x < B.x ? A.x : B.x, hi = A.x < B.x ? B.x : A.x;
        for (int i = 0; i < l->nnodes; i++)
            if (i != ia && i != ib && in_row(l, i) == ra && l->node[i].x > lo && l->node[i].x < hi)
                return 0;
        p->y0 = p->y1 = A.y + A.h / 2;
        if (B.x > A.x) {
            p->x0 = A.x + A.w;
            p->x1 = B.x - 1;
        } else {
            p->x0 = A.x - 1;
            p->x1 = B.x + B.w;
        }
        int lo2 = p->x0 < p->x1 ? p->x0 : p->x1, span = p->x1 > p->x0 ? p->x1 - p->x0 : p->x0 - p->x1;
        p->lx = lo2 + (span + 1 - lablen) / 2;
        p->ly = p->y0;
        return span >= 2;
    }
    int down = rb > ra;
    int overlap = A.x < B.x + B.w && B.x < A.x + A.w;
    if (overlap) {
        // Straight down on the right-hand side, up on the left, so a pair
        // exchanging both ways shows two lines.
        int x = down ? A.x + A.w - 3 : A.x + 2;
        p->x0 = p->x1 = x;
        p->y0 = down ? A.y + A.h : A.y - 1;
        p->y1 = down ? B.y - 1 : B.y + B.h;
        if (down ? p->y1 < p->y0 : p->y1 > p->y0)
            return 0;
        p->ly = (p->y0 + p->y1) / 2;
        p->lx = down ? x + 2 : x - 1 - lablen;
        p->vdir = down ? 1 : -1;
        return 1;
    }
    // An L: out of a's side, along its row to b's centre, then to b.
    p->y0 = A.y + A.h / 2;
    p->x0 = B.x > A.x ? A.x + A.w : A.x - 1;
    p->x1 = B.x + B.w / 2;
    p->y1 = down ? B.y - 1 : B.y + B.h;
    int lo = p->x0 < p->x1 ? p->x0 : p->x1, span = p->x1 > p->x0 ? p->x1 - p->x0 : p->x0 - p->x1;
    p->lx = lo + (span - lablen) / 2;
    p->ly = p->y0;
    return 1;
}

static void draw_path(VizCanvas *c, const Path *p, VizStyle st, int head) {
    if (p->x0 == p->x1 && p->y0 == p->y1) {
        // One cell (compact rows): the head alone says the direction.
        int g = p->vdir > 0 ? VIZ_G_DOWN : p->vdir < 0 ? VIZ_G_UP : VIZ_G_HLINE;
        viz_canvas_put(c, p->x0, p->y0, viz_glyph(c, head ? g : VIZ_G_VLINE), st);
        return;
    }
    if (head) {
        viz_canvas_arrow(c, p->x0, p->y0, p->x1, p->y1, st);
        return;
    }
    viz_canvas_arrow(c, p->x0, p->y0, p->x1, p->y1, st);
    // No head: the last cell continues the line.
    viz_canvas_put(c, p->x1, p->y1, viz_glyph(c, p->y0 != p->y1 ? VIZ_G_VLINE : VIZ_G_HLINE), st);
}

// Draws the transfers of a ring step; returns how many had no clean path.
static int draw_ring(VizCanvas *c, const VizLayout *l, const VizScene *s) {
    const VizColl *k = &s->coll;
    int n = l->nnodes, hidden = 0;
    // The idle links first, dim.
    for (int i = 0; i + 1 < n; i++) {
        Path p;
        if (ring_path(l, i, i + 1, &p, 0))
            draw_path(c, &p, VIZ_STYLE_DIM, 0);
    }
    if (k->topo == VIZ_TOPO_RING && n == s->nranks && n > 2) {
        Path p;
        if (ring_path(l, n - 1, 0, &p, 0))
            draw_path(c, &p, VIZ_STYLE_DIM, 0);
    }
    for (int i = 0; i < k->nxfer; i++) {
        const VizXfer *x = &k->xfer[i];
        int ia = x->src - l->first_node, ib = x->dst - l->first_node;
        if (ia < 0 || ia >= n || ib < 0 || ib >= n || ia == ib) {
            hidden++;
            continue;
        }
        char lab[16] = "";
        if (x->chunk >= 0)
            snprintf(lab, sizeof lab, "c%d", x->chunk);
        int ll = (int)strlen(lab);
        Path p;
        if (!ring_path(l, ia, ib, &p, ll + 2)) {
            hidden++;
            continue;
        }
        draw_path(c, &p, VIZ_STYLE_CHUNK, 1);
        if (ll) {
            if (p.x0 != p.x1)
                viz_canvas_printf(c, p.lx, p.ly, ll + 2, VIZ_STYLE_CHUNK, " %s ", lab);
            else
                viz_canvas_text(c, p.vdir > 0 ? p.x0 + 2 : p.x0 - 1 - ll, p.ly, ll,
                                VIZ_STYLE_CHUNK, lab);
        }
    }
    return hidden;
}

// Tree, star, direct: each transfer on the first lane where its span is
// free. Returns how many found no lane.
static int draw_lanes(VizCanvas *c, const VizLayout *l, const VizScene *s, int y0, int nlanes) {
    enum { MAX_LANES = 16, MAX_SPANS = 64 };
    int lo[MAX_LANES][MAX_SPANS], hi[MAX_LANES][MAX_SPANS], cnt[MAX_LANES] = {0};
    if (nlanes > MAX_LANES)
        nlanes = MAX_LANES;
    const VizColl *k = &s->coll;
    int hidden = 0;
    for (int i = 0; i < k->nxfer; i++) {
        const VizXfer *x = &k->xfer[i];
        VizRect A = node_of(l, x->src), B = node_of(l, x->dst);
        if (A.w <= 0 || B.w <= 0 || x->src == x->dst) {
            hidden++;
            continue;
        }
        int ax = A.x + A.w / 2, bx = B.x + B.w / 2;
        int a = ax < bx ? ax : bx, b = ax < bx ? bx : ax;
        int lane = -1;
        for (int ln = 0; ln < nlanes && lane < 0; ln++) {
            int ok = cnt[ln] < MAX_SPANS;
            for (int j = 0; j < cnt[ln] && ok; j++)
                if (a <= hi[ln][j] + 1 && lo[ln][j] <= b + 1)
                    ok = 0;
            if (ok)
                lane = ln;
        }
        if (lane < 0) {
            hidden++;
            continue;
        }
        lo[lane][cnt[lane]] = a;
        hi[lane][cnt[lane]] = b;
        cnt[lane]++;
        int y = y0 + lane;
        int dir = bx > ax ? 1 : -1;
        viz_canvas_put(c, ax, y, 'o', VIZ_STYLE_CHUNK);
        viz_canvas_arrow(c, ax + dir, y, bx, y, VIZ_STYLE_CHUNK);
        if (x->chunk >= 0) {
            char lab[16];
            int ll = snprintf(lab, sizeof lab, " c%d ", x->chunk);
            if (b - a - 2 >= ll)
                viz_canvas_text(c, a + 1 + (b - a - 1 - ll) / 2, y, ll, VIZ_STYLE_CHUNK, lab);
        }
    }
    return hidden;
}

// Appends to t (len bytes) at *o, never past the end.
static void app(char *t, size_t len, int *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void app(char *t, size_t len, int *o, const char *fmt, ...) {
    if (*o < 0 || (size_t)*o >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t + *o, len - (size_t)*o, fmt, ap);
    va_end(ap);
    if (n > 0)
        *o += n;
}

// Where the collective stands: "reduce-scatter step 3 of 3 (step 3 of 6
// in all)", counted in its phase as the step captions count, and in the
// whole collective as the bucket rows do; terse: "reduce-scatter 3/3".
static void step_text(const VizColl *k, int terse, char *t, size_t len, int *o) {
    const char *lab = k->step_label ? k->step_label : "";
    const char *sep = k->step_label ? " " : "";
    // a phase of one step is named by the step of the whole ("reduce, step 1 of 2")
    int phased = k->phase_step >= 0 && k->phase_steps > 1 && k->phase_steps < k->nsteps;
    long long at = phased ? k->phase_step + 1 : (long long)k->step + 1; // may be 2^31-1
    int of = phased ? k->phase_steps : k->nsteps;
    if (!k->running)
        app(t, len, o, ": done");
    else if (k->step < 0 && k->nsteps > 0)
        app(t, len, o, ": between steps (%d in all)", k->nsteps);
    else if (k->step < 0 || k->nsteps <= 0)
        return;
    else if (terse)
        app(t, len, o, ": %s%s%lld/%d", lab, sep, at, of);
    else if (phased)
        app(t, len, o, ": %s%sstep %lld of %d (step %lld of %d in all)", lab, sep, at, of,
            (long long)k->step + 1, k->nsteps);
    else
        app(t, len, o, ": %s%sstep %lld of %d", lab, k->step_label ? ", " : "", at, of);
}

// "AllReduce (ring) of bucket #1, 4.00 MiB: reduce-scatter step 3 of 3
// (step 3 of 6 in all)", and the ranks shown when not all are; shorter
// forms when it is too long.
static void title(VizCanvas *c, VizRect r, const VizScene *s, const VizLayout *l) {
    const VizColl *k = &s->coll;
    char t[256], by[24];
    const char *nm = k->name ? k->name : "collective";
    const char *algo = k->algo >= 0 && k->algo < SIM_ALGO_COUNT ? sim_algo_name((SimAlgo)k->algo)
                                                               : "?";
    viz_fmt_bytes(k->bytes, by, sizeof by);
    for (int level = 0; level < 3; level++) {
        int o = 0, terse = level == 2;
        app(t, sizeof t, &o, "%s (%s)", nm, algo);
        if (k->bucket >= 0)
            app(t, sizeof t, &o, " of bucket #%d", k->bucket);
        else if (k->unit >= 0)
            app(t, sizeof t, &o, " of unit %d", k->unit);
        if (level == 0)
            app(t, sizeof t, &o, ", %s", by);
        step_text(k, terse, t, sizeof t, &o);
        if (l->nnodes < s->nranks)
            app(t, sizeof t, &o, terse ? "  ranks %d..%d/%d" : "   ranks %d..%d of %d",
                l->first_node, l->first_node + l->nnodes - 1, s->nranks);
        if (viz_utf8_cells(t) <= r.w - 2)
            break;
    }
    char buf[256];
    int n = viz_elide(t, r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y, n, VIZ_STYLE_TITLE, buf);
}

static void caption(VizCanvas *c, VizRect r, const VizScene *s, int hidden) {
    const VizColl *k = &s->coll;
    char t[256];
    int reduce = 0;
    for (int i = 0; i < k->nxfer; i++)
        reduce |= k->xfer[i].reduce;
    int o;
    if (!k->running)
        o = snprintf(t, sizeof t, "finished: every rank holds its result");
    else if (k->nxfer > 0)
        o = snprintf(t, sizeof t, "%d transfer%s of one chunk each; receivers %s%s", k->nxfer,
                     k->nxfer == 1 ? "" : "s", reduce ? "add them in" : "store them",
                     k->nchunks <= 0 ? ""
                     : reduce        ? " (node: chunk:ranks summed so far)"
                                     : " (node: chunk:rank it came from)");
    else
        o = snprintf(t, sizeof t, "no transfer in flight at this event");
    if (hidden > 0 && o > 0 && o < (int)sizeof t)
        snprintf(t + o, sizeof t - (size_t)o, " (+%d not drawn)", hidden);
    char buf[256];
    int n = viz_elide(t, r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y + r.h - 1, n, VIZ_STYLE_DIM, buf);
}

void viz_draw_coll(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected) {
    VizRect r = l->coll;
    const VizColl *k = &s->coll;
    if (r.h <= 0 || !k->active)
        return;
    title(c, r, s, l);
    if (r.h < 3 || l->nnodes <= 0)
        return;
    int framed = l->node[0].h >= 3;
    for (int i = 0; i < l->nnodes; i++) {
        int q = l->first_node + i;
        char name[32], text[96];
        int root = k->root == q && !is_ring(k);
        snprintf(name, sizeof name, framed ? "rank %d%s" : "r%d%s", q, root ? " root" : "");
        if (framed && (int)strlen(name) > l->node[i].w - 6) // narrow nodes: "r12"
            snprintf(name, sizeof name, "r%d%s", q, root ? " root" : "");
        int tw = framed ? l->node[i].w - 4 : l->node[i].w - 3 - (int)strlen(name);
        text[0] = '\0';
        if (k->running) // once finished, the caption says what every rank holds
            held_text(s, q, tw, text, sizeof text);
        viz_draw_node(c, l->node[i], name, text,
                      q == selected ? VIZ_STYLE_SELECTED : root ? VIZ_STYLE_TITLE : VIZ_STYLE_DIM,
                      q == selected);
    }
    int hidden;
    if (is_ring(k)) {
        hidden = draw_ring(c, l, s);
    } else {
        int y0 = l->node[0].y + l->node[0].h;
        hidden = draw_lanes(c, l, s, y0, r.y + r.h - 1 - y0);
    }
    caption(c, r, s, hidden);
}
