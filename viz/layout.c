// viz/layout.c: where each panel goes (see layout.h). Pure integer
// arithmetic on the scene's counts; nothing is drawn here.
//
// The rules:
//   - Below 80 x 24 nothing is laid out (ok = 0, why says the size).
//   - Top to bottom: header (1 line), rank boxes, the strategy's panels
//     (buckets, collective, shards, hub), timeline, narrative, status (1
//     line; none at h = 0, the text view).
//   - Every panel has a minimum that fits 80 x 24 with 4 ranks, and levels
//     of comfort above it. Spare lines go round in stages: one row of full
//     rank boxes with the memory legend, then the strategy panels (the
//     collective gets framed nodes), then two timeline lanes and its
//     legend, then more rank rows, bucket / shard rows and lanes, and what
//     is left goes to the narrative. At h = 0 every panel gets all it
//     wants.
//   - Rank boxes are at least 20 columns wide, as many per row as fit (at
//     most the ranks, at most 64 in all); when not every rank fits, a note
//     line "ranks a..b of R" tops the panel and the page shown is the one
//     holding the selected rank.
//   - From 150 columns the collective diagram goes to the right of the
//     buckets / shards / hub (two fifths of the width).
//   - Embedded (viz_layout_embed, layout_embed.c) the same arrangement is
//     used without the narrative and the status line where it fits: the
//     panels first grow as they would with them, then on into their lines.
#include "layout_internal.h"

#include "draw_internal.h"

#include <stdio.h>
#include <string.h>

enum {
    BOX_MIN_W = 20,
    BOX_H_MIN = 4,   // frame + phase line + memory bar
    BOX_H = 5,       // + memory numbers
    SIDE_W = 150,    // side by side from this width
    LEVELS = 4,
};

typedef struct {
    int R;                // ranks
    int nshow;            // ranks that may get a box (<= 64)
    int cols;             // boxes per row
    int rows_need;        // rows for nshow boxes
} RankGeo;

static RankGeo rank_geo(const VizScene *s, int w) {
    RankGeo g;
    g.R = s->nranks > 0 ? s->nranks : 0;
    g.nshow = g.R < VIZ_LAYOUT_MAX_BOXES ? g.R : VIZ_LAYOUT_MAX_BOXES;
    g.cols = w / BOX_MIN_W;
    if (g.cols > g.nshow)
        g.cols = g.nshow;
    if (g.cols < 1)
        g.cols = 1;
    g.rows_need = g.nshow > 0 ? (g.nshow + g.cols - 1) / g.cols : 0;
    return g;
}

// The best arrangement of rank boxes in H lines: the most rows, then the
// taller box, then the legend line. Returns the lines used (0: none fit).
static int rank_fit(const RankGeo *g, int H, int *rows, int *bh, int *legend, int *note) {
    int best = -1, used = 0;
    *rows = *bh = *legend = *note = 0;
    if (g->nshow == 0)
        return 0;
    for (int lg = 0; lg <= 1; lg++) {
        for (int b = BOX_H_MIN; b <= BOX_H; b++) {
            int r = (H - lg) / b, nt = 0;
            if (r >= g->rows_need && g->nshow == g->R) {
                r = g->rows_need;
            } else {
                r = (H - lg - 1) / b; // room for the note line
                if (r > g->rows_need)
                    r = g->rows_need;
                nt = 1;
            }
            if (r < 1)
                continue;
            int score = r * 100 + (b == BOX_H) * 10 + lg;
            if (score > best) {
                best = score;
                *rows = r;
                *bh = b;
                *legend = lg;
                *note = nt;
                used = nt + r * b + lg;
            }
        }
    }
    return used;
}

static int ranks_level(const RankGeo *g, int level) {
    if (g->nshow == 0)
        return 0;
    int note = g->cols < g->R;
    switch (level) {
    case 0: return note + BOX_H_MIN;
    case 1: return note + BOX_H + 1;
    case 2: {
        int r = g->rows_need < 2 ? g->rows_need : 2;
        return (r * g->cols < g->R) + r * BOX_H + 1;
    }
    default: return (g->rows_need * g->cols < g->R) + g->rows_need * BOX_H + 1;
    }
}

static int ring_topo(const VizScene *s) {
    return s->coll.topo == VIZ_TOPO_RING || s->coll.topo == VIZ_TOPO_CHAIN;
}

// The collective diagram: title, nodes (and the space between rows, or the
// transfer lanes), caption. Framed nodes are 3 lines, compact ones 1.
int viz_layout_coll_framed_h(const VizScene *s) {
    if (ring_topo(s))
        return 1 + 3 + 2 + 3 + 1;
    int lanes = s->coll.nxfer < 1 ? 1 : s->coll.nxfer > 4 ? 4 : s->coll.nxfer;
    return 1 + 3 + lanes + 1;
}

static int coll_level(const VizScene *s, int level) {
    if (!s->coll.active)
        return 0;
    return level == 0 ? VIZ_LAYOUT_COLL_COMPACT_H : viz_layout_coll_framed_h(s);
}

static int cap(int v, int hi) { return v < hi ? v : hi; }

static int buckets_level(const VizScene *s, int level) {
    int nb = s->nbuckets;
    if (nb <= 0)
        return 0;
    static const int rows[LEVELS] = {2, 4, 8, 1 << 20};
    return 1 + cap(nb, rows[level]);
}

static int shards_level(const VizScene *s, int level) {
    if (s->shards.nunits <= 0)
        return 0;
    static const int rows[LEVELS] = {2, 4, 8, VIZ_LAYOUT_MAX_BOXES};
    return 3 + cap(s->nranks, rows[level]); // title, unit names, ranks, legend
}

static int hub_level(const VizScene *s, int level) {
    if (!s->hub.active)
        return 0;
    return level == 0 ? VIZ_LAYOUT_HUB_COMPACT_H : VIZ_LAYOUT_HUB_FRAMED_H;
}

static int timeline_lanes(const VizScene *s) {
    if (s->timeline.nranks > 0)
        return s->timeline.nranks;
    return s->nranks < 4 ? (s->nranks > 0 ? s->nranks : 1) : 4;
}

int viz_layout_timeline_level(const VizScene *s, int level) {
    int L = timeline_lanes(s);
    switch (level) {
    case 0: return 1 + 2;
    case 1: return 1 + 2 * cap(L, 2) + 1;
    default: return 1 + 2 * L + 1;
    }
}

int viz_layout_timeline_fit(const VizScene *s, int H) {
    int L = timeline_lanes(s), lanes = (H - 1) / 2;
    if (lanes > L)
        lanes = L;
    if (lanes < 1)
        return H;
    return 1 + 2 * lanes + (H >= 2 + 2 * lanes);
}

// The middle band: the strategy panels, stacked or side by side.
typedef struct {
    int side;          // 1: coll to the right of the others
    int has_left;      // buckets, shards or hub present
} Mid;

static int left_level(const VizScene *s, int level) {
    return buckets_level(s, level) + shards_level(s, level) + hub_level(s, level);
}

static int mid_level(const VizScene *s, const Mid *m, int level) {
    int left = left_level(s, level), coll = coll_level(s, level);
    if (m->side)
        return left > coll ? left : coll;
    return left + coll;
}

enum { P_RANKS = 0, P_MID, P_TIMELINE, P_COUNT };

typedef struct {
    const VizScene *s;
    RankGeo rg;
    Mid mid;
} Ctx;

static int level_h(const Ctx *c, int p, int level) {
    switch (p) {
    case P_RANKS: return ranks_level(&c->rg, level);
    case P_MID: return mid_level(c->s, &c->mid, level);
    default: return viz_layout_timeline_level(c->s, level);
    }
}

// Splits the middle band's height among the left-hand panels (buckets,
// shards, hub): each its minimum, then each up to what it wants in order.
static void split_left(const VizScene *s, int H, int *hb, int *hs, int *hh) {
    int want[3] = {buckets_level(s, LEVELS - 1), shards_level(s, LEVELS - 1),
                   hub_level(s, LEVELS - 1)};
    int got[3] = {buckets_level(s, 0), shards_level(s, 0), hub_level(s, 0)};
    int left = H - got[0] - got[1] - got[2];
    for (int k = 0; k < 3 && left > 0; k++) {
        int more = want[k] - got[k];
        if (more > left)
            more = left;
        if (more > 0 && k == 2 && got[k] + more < VIZ_LAYOUT_HUB_FRAMED_H)
            more = 0; // the hub only grows to its framed form
        got[k] += more;
        left -= more;
    }
    *hb = got[0];
    *hs = got[1];
    *hh = got[2];
}

// Splits a stacked middle band: the collective's diagram is discrete
// (compact or framed), the rest as split_left.
static void split_stacked(const VizScene *s, int H, int *hb, int *hc, int *hs, int *hh) {
    int lmin = left_level(s, 0);
    *hc = coll_level(s, 0);
    if (s->coll.active && H - lmin >= viz_layout_coll_framed_h(s) &&
        H - viz_layout_coll_framed_h(s) >= left_level(s, 1))
        *hc = viz_layout_coll_framed_h(s);
    split_left(s, H - *hc, hb, hs, hh);
}

// The middle band in H lines: each panel's height; returns the lines used.
static int mid_split(const VizScene *s, const Mid *m, int H, int *hb, int *hc, int *hs, int *hh) {
    *hb = *hc = *hs = *hh = 0;
    if (H <= 0)
        return 0;
    int *order[4] = {hb, hs, hh, hc}; // who keeps its lines when they run short
    if (m->side) {
        split_left(s, H, hb, hs, hh);
        *hc = coll_level(s, 0);
        if (H >= viz_layout_coll_framed_h(s))
            *hc = viz_layout_coll_framed_h(s);
        if (*hc > H)
            *hc = H;
    } else {
        split_stacked(s, H, hb, hc, hs, hh);
    }
    // Only a scene with every panel at once overflows its minima: the later
    // panels in `order` then lose lines (the collective first).
    int left = H;
    for (int k = 0; k < (m->side ? 3 : 4); k++) {
        if (*order[k] > left)
            *order[k] = left;
        left -= *order[k];
    }
    if (m->side) {
        int lsum = *hb + *hs + *hh;
        return lsum > *hc ? lsum : *hc;
    }
    return *hb + *hc + *hs + *hh;
}

// The lines panel p really uses when given H (a partial height can leave
// a line no row fits in).
static int fit_h(const Ctx *c, int p, int H) {
    int a, b, d, e;
    switch (p) {
    case P_RANKS: return rank_fit(&c->rg, H, &a, &b, &d, &e);
    case P_MID: return mid_split(c->s, &c->mid, H, &a, &b, &d, &e);
    default: return viz_layout_timeline_fit(c->s, H);
    }
}

static void place_boxes(const Ctx *c, VizLayout *l, int selected) {
    const RankGeo *g = &c->rg;
    VizRect r = l->ranks;
    int rows, bh, legend, note;
    rank_fit(g, r.h, &rows, &bh, &legend, &note);
    int n = rows * g->cols;
    if (n > g->nshow)
        n = g->nshow;
    l->nboxes = n;
    l->first_box = 0;
    if (n <= 0)
        return;
    if (n < g->R) {
        int first = selected - selected % n;
        if (first + n > g->R)
            first = g->R - n;
        l->first_box = first;
    }
    for (int k = 0; k < n; k++) {
        int row = k / g->cols, col = k % g->cols;
        int x0 = r.x + col * r.w / g->cols, x1 = r.x + (col + 1) * r.w / g->cols;
        l->box[k] = (VizRect){x0, r.y + note + row * bh, x1 - x0, bh};
    }
}

// The collective's nodes: two rows for a ring or chain (top row left to
// right, bottom row right to left, so the ring goes round clockwise), one
// row with transfer lanes below for a tree, star or direct exchange.
void viz_layout_place_nodes(const VizScene *s, VizLayout *l, int selected) {
    VizRect r = l->coll;
    if (!s->coll.active || r.h <= 0 || s->nranks <= 0)
        return;
    int R = s->nranks;
    int framed = r.h >= viz_layout_coll_framed_h(s);
    int nh = framed ? 3 : 1, minw = framed ? 10 : 8, gap = 6; // "[r12 ..]"
    int ring = ring_topo(s);
    int inner = r.w - 2;
    int kmax = inner / (minw + gap);
    if (kmax < 1)
        kmax = 1;
    int nmax = ring ? 2 * kmax : kmax;
    if (nmax > VIZ_LAYOUT_MAX_BOXES)
        nmax = VIZ_LAYOUT_MAX_BOXES;
    int n = R < nmax ? R : nmax;
    int first = 0;
    if (n < R) {
        first = selected - n / 2;
        if (first < 0)
            first = 0;
        if (first + n > R)
            first = R - n;
    }
    int k = ring ? (n + 1) / 2 : n;
    int cwid = inner / k;
    int nw = cwid - 8;
    if (nw > (framed ? 26 : 20))
        nw = framed ? 26 : 20; // compact: "[r12 c3:r0+r1+r2+r3]"
    if (nw < minw)
        nw = minw;
    if (nw > cwid)
        nw = cwid;
    int ytop = r.y + 1, ybot = ytop + nh + (framed ? 2 : 1);
    for (int i = 0; i < n; i++) {
        int col = i, y = ytop;
        if (ring && i >= k) {
            col = 2 * k - 1 - i;
            y = ybot;
        }
        int x = r.x + 1 + col * cwid + (cwid - nw) / 2;
        l->node[i] = (VizRect){x, y, nw, nh};
    }
    l->nnodes = n;
    l->first_node = first;
}

static Ctx make_ctx(const VizScene *s, int w) {
    Ctx c = {.s = s, .rg = rank_geo(s, w)};
    c.mid.has_left = left_level(s, 0) > 0;
    c.mid.side = w >= SIDE_W && c.mid.has_left && s->coll.active;
    return c;
}

int viz_layout_full_min(const VizScene *s, int w) {
    Ctx c = make_ctx(s, w);
    int n = 1; // the header
    for (int p = 0; p < P_COUNT; p++)
        n += level_h(&c, p, 0);
    return n;
}

// Grows the panels from hp in stages, in order of what a small screen
// misses most, by up to `room` lines; returns the lines left.
static int grow(const Ctx *c, int room, int hp[P_COUNT]) {
    static const int stage[][2] = {
        {P_RANKS, 1},    {P_MID, 1},   {P_TIMELINE, 1}, {P_RANKS, 2},
        {P_MID, 2},      {P_TIMELINE, 2}, {P_MID, 3},   {P_RANKS, 3},
    };
    for (size_t k = 0; k < sizeof stage / sizeof stage[0]; k++) {
        int p = stage[k][0], want = level_h(c, p, stage[k][1]);
        if (want <= hp[p] || room <= 0)
            continue;
        int more = want - hp[p];
        if (more > room)
            more = room; // a partial height, of which the panel keeps what it can use
        int got = fit_h(c, p, hp[p] + more);
        if (got > hp[p]) {
            room -= got - hp[p];
            hp[p] = got;
        }
    }
    return room;
}

// The panels' heights on h > 0 lines, of which `fixed` go to the header and
// the status line and at least narr_min to the narrative (0: none). Returns
// the narrative's lines (spare ones included).
static int grow_heights(const Ctx *c, int h, int fixed, int narr_min, int hp[P_COUNT]) {
    int used = narr_min;
    for (int p = 0; p < P_COUNT; p++) {
        hp[p] = level_h(c, p, 0);
        used += hp[p];
    }
    int narr = narr_min + grow(c, h - fixed - used, hp);
    int floor = narr_min > 0 ? 1 : 0;
    if (narr < floor) {
        // Not even the minima fit (a scene with every panel at once):
        // the timeline goes first, then the middle band shrinks.
        int over = floor - narr;
        int cut = hp[P_TIMELINE] < over ? hp[P_TIMELINE] : over;
        hp[P_TIMELINE] -= cut;
        over -= cut;
        hp[P_MID] -= over;
        if (hp[P_MID] < 0)
            hp[P_MID] = 0;
        narr = floor;
    }
    return narr;
}

// The embedded view's heights: viz_layout's panels when they fit with its
// narrative and status line, whose lines then go on growing the panels (so
// each is at least as tall as there); else the panels alone on h lines.
static void embed_heights(const Ctx *c, int w, int h, int hp[P_COUNT]) {
    if (h < VIZ_MIN_H && viz_layout_full_min(c->s, w) + 3 > h) {
        grow_heights(c, h, 1, 0, hp);
        return;
    }
    int room = grow_heights(c, h, 2, 2, hp) + 1;
    int hm = fit_h(c, P_MID, hp[P_MID]); // what the middle band left to the narrative
    room += hp[P_MID] - hm;
    hp[P_MID] = hm;
    grow(c, room, hp);
}

// Places the middle band (buckets, coll, shards, hub) from line y; returns
// the lines it uses of H.
static int place_mid(const Ctx *c, VizLayout *l, int y, int H) {
    int hb, hc, hs, hh, w = l->w;
    int hm = mid_split(c->s, &c->mid, H, &hb, &hc, &hs, &hh);
    if (hm <= 0)
        return 0;
    if (c->mid.side) {
        int rw = w * 2 / 5, lw = w - rw;
        l->buckets = (VizRect){0, y, lw, hb};
        l->shards = (VizRect){0, y + hb, lw, hs};
        l->hub = (VizRect){0, y + hb + hs, lw, hh};
        l->coll = (VizRect){lw, y, rw, hc};
    } else {
        l->buckets = (VizRect){0, y, w, hb};
        l->coll = (VizRect){0, y + hb, w, hc};
        l->shards = (VizRect){0, y + hb + hc, w, hs};
        l->hub = (VizRect){0, y + hb + hc + hs, w, hh};
    }
    return hm;
}

void viz_layout_timeline_cols(VizLayout *l) {
    if (l->timeline.h > 0) {
        l->timeline_x = VIZ_LAYOUT_TL_LABEL_W;
        l->timeline_cols = l->w - VIZ_LAYOUT_TL_LABEL_W - 1;
    }
}

void viz_layout_full(const VizScene *s, int w, int h, int selected, int embed, VizLayout *l) {
    Ctx c = make_ctx(s, w);
    int hp[P_COUNT], narr, status = h > 0 && !embed ? 1 : 0;
    if (h == 0) {
        for (int p = 0; p < P_COUNT; p++)
            hp[p] = level_h(&c, p, LEVELS - 1);
        narr = viz_narrative_lines(s, NULL, w);
        if (narr < 1)
            narr = 1;
    } else if (embed) {
        embed_heights(&c, w, h, hp);
        narr = 0;
    } else {
        narr = grow_heights(&c, h, 1 + status, 2, hp);
    }

    int y = 0;
    l->header = (VizRect){0, y, w, 1};
    y += 1;
    l->ranks = (VizRect){0, y, w, hp[P_RANKS]};
    y += hp[P_RANKS];
    // Lines the middle band cannot use go to the narrative.
    int hm = place_mid(&c, l, y, hp[P_MID]);
    narr += hp[P_MID] - hm;
    y += hm;
    l->timeline = (VizRect){0, y, w, hp[P_TIMELINE]};
    y += hp[P_TIMELINE];
    if (!embed) {
        l->narrative = (VizRect){0, y, w, narr};
        y += narr;
        l->status = (VizRect){0, y, w, status};
        y += status;
    }
    if (h == 0)
        l->h = y;
    viz_layout_timeline_cols(l);
    place_boxes(&c, l, selected);
    viz_layout_place_nodes(s, l, selected);
    l->ok = 1;
}

int viz_layout(const VizScene *s, int w, int h, int selected, VizLayout *l) {
    memset(l, 0, sizeof *l);
    l->w = w;
    l->h = h;
    if (w < VIZ_MIN_W || h < 0 || (h > 0 && h < VIZ_MIN_H)) {
        if (h == 0)
            snprintf(l->why, sizeof l->why, "the width is %d; ddplab needs at least %d columns", w,
                     VIZ_MIN_W);
        else
            snprintf(l->why, sizeof l->why, "the terminal is %dx%d; ddplab needs at least %dx%d", w,
                     h, VIZ_MIN_W, VIZ_MIN_H);
        return 0;
    }
    if (selected < 0 || selected >= s->nranks)
        selected = 0;
    viz_layout_full(s, w, h, selected, 0, l);
    return 1;
}
