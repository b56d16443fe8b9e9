// viz/layout_embed.c: the view on a part of a host's screen (see
// viz_layout_embed in layout.h). No narrative and no status line: the host
// draws its own words around the view.
//
// The rules:
//   - Below VIZ_EMBED_MIN_W x VIZ_EMBED_MIN_H nothing is laid out.
//   - From 80 columns, once the full layout's smallest panels fit, the
//     full layout is used (layout.c), without the narrative and status.
//   - Otherwise the compact arrangement: every panel as wide as the area,
//     in the full layout's order top to bottom; what gets lines first is
//     the header, the focus panel (the collective while it runs, else the
//     buckets, shards or hub), the rank lines, the timeline. Each of these
//     grows a step (the focus framed or with more rows, a line per rank,
//     two lanes) before the strategy panels the scene is not about get
//     theirs; then all grow in stages to what they can use.
//   - Rank lines are one line per rank while there are lines for each;
//     with fewer lines they pack side by side (at least LINE_MIN_W columns
//     each); when not every rank fits, the last slot says which are shown
//     and the page shown holds the selected rank. A spare line under them
//     is the memory legend.
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

enum {
    LINE_MIN_W = 35, // ">r12 backward  [PPGGOOAA|...] 558M"
    LEVELS = 4,
};

// The strategy panels, in the order they stand on the screen.
typedef enum { K_BUCKETS = 0, K_COLL, K_SHARDS, K_HUB, K_COUNT, K_NONE = -1 } Kind;

static int cap(int v, int hi) { return v < hi ? v : hi; }

static int present(const VizScene *s, Kind k) {
    switch (k) {
    case K_BUCKETS: return s->nbuckets > 0;
    case K_COLL: return s->coll.active;
    case K_SHARDS: return s->shards.nunits > 0 && s->nranks > 0;
    case K_HUB: return s->hub.active;
    default: return 0;
    }
}

// What the scene is about: the collective while it runs, else the
// strategy's own panel, else a finished collective (a benchmark between two).
static Kind focus_of(const VizScene *s) {
    if (s->coll.active && s->coll.running)
        return K_COLL;
    static const Kind order[] = {K_BUCKETS, K_SHARDS, K_HUB, K_COLL};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (present(s, order[i]))
            return order[i];
    return K_NONE;
}

// A strategy panel's height at each level: the buckets and the shards by
// rows (their drawers centre the rows on the bucket in flight and the
// selected rank), the collective and the hub compact or framed.
static int kind_level(const VizScene *s, Kind k, int level) {
    if (!present(s, k))
        return 0;
    static const int rows[LEVELS] = {1, 4, 8, 1 << 20};
    switch (k) {
    case K_BUCKETS: return 1 + cap(s->nbuckets, rows[level]);
    case K_SHARDS: return 3 + cap(s->nranks, rows[level]); // title, units, ranks, legend
    case K_COLL:
        return level == 0 ? VIZ_LAYOUT_COLL_COMPACT_H : viz_layout_coll_framed_h(s);
    default: return level == 0 ? VIZ_LAYOUT_HUB_COMPACT_H : VIZ_LAYOUT_HUB_FRAMED_H;
    }
}

// The lines kind k uses of H: 0 below its smallest form.
static int kind_fit(const VizScene *s, Kind k, int H) {
    int lo = kind_level(s, k, 0), hi = kind_level(s, k, LEVELS - 1);
    if (lo <= 0 || H < lo)
        return 0;
    if (k == K_COLL || k == K_HUB) // two forms only
        return H >= hi ? hi : lo;
    return H < hi ? H : hi;
}

// ---------------------------------------------------------------------------
// Rank lines

typedef struct {
    int rows, cols;  // the grid of slots
    int n;           // ranks shown
    int note;        // 1: the slot after the last rank says which are shown
    int legend;      // 1: a line under the rows for the memory legend
} Lines;

static int nshow_of(const VizScene *s) {
    return cap(s->nranks > 0 ? s->nranks : 0, VIZ_LAYOUT_MAX_BOXES);
}

static int line_cols_max(int w) { return w / LINE_MIN_W > 1 ? w / LINE_MIN_W : 1; }

// The rank lines in H lines on w columns: one per line when there is a line
// for each, else side by side, else a page of them and the note.
static Lines lines_fit(const VizScene *s, int w, int H) {
    Lines g = {0};
    int ns = nshow_of(s);
    if (H <= 0 || ns <= 0)
        return g;
    int cmax = cap(line_cols_max(w), ns);
    g.cols = (ns + H - 1) / H;
    if (g.cols <= cmax) {
        g.rows = (ns + g.cols - 1) / g.cols;
        g.n = ns;
    } else {
        g.cols = cmax;
        g.rows = H;
        g.n = H * cmax;
    }
    int slots = g.rows * g.cols;
    if (g.n < s->nranks) { // a page of them (or more ranks than are ever shown)
        if (g.n == slots && slots >= 2)
            g.n--;
        g.note = g.n < slots;
    }
    g.legend = H > g.rows;
    return g;
}

static int lines_level(const VizScene *s, int w, int level) {
    int ns = nshow_of(s);
    if (ns <= 0)
        return 0;
    int packed = (ns + line_cols_max(w) - 1) / line_cols_max(w);
    switch (level) {
    case 0: return cap(packed, 2);
    case 1: return cap(ns, 4);
    case 2: return cap(ns, 8) + 1;
    default: return ns + 1;
    }
}

static int lines_used(const VizScene *s, int w, int H) {
    Lines g = lines_fit(s, w, H);
    return g.rows + g.legend;
}

// ---------------------------------------------------------------------------
// The compact arrangement's stages

enum { E_FOCUS = 0, E_RANKS, E_TIMELINE, E_OTHER, E_COUNT };

typedef struct {
    const VizScene *s;
    int w;
    Kind focus;
} Ctx;

// The panels other than the focus share E_OTHER: each its smallest form
// in screen order while they fit, then each grows in that order.
static int other_split(const Ctx *c, int H, int got[K_COUNT]) {
    int left = H;
    for (int k = 0; k < K_COUNT; k++) {
        got[k] = 0;
        if (k == c->focus || !present(c->s, (Kind)k))
            continue;
        int lo = kind_level(c->s, (Kind)k, 0);
        if (lo <= left) {
            got[k] = lo;
            left -= lo;
        }
    }
    for (int k = 0; k < K_COUNT && left > 0; k++) {
        if (got[k] <= 0)
            continue;
        int more = kind_fit(c->s, (Kind)k, got[k] + left) - got[k];
        if (more > 0) {
            got[k] += more;
            left -= more;
        }
    }
    return H - left;
}

static int level_h(const Ctx *c, int p, int level) {
    switch (p) {
    case E_FOCUS: return c->focus == K_NONE ? 0 : kind_level(c->s, c->focus, level);
    case E_RANKS: return lines_level(c->s, c->w, level);
    case E_TIMELINE: return viz_layout_timeline_level(c->s, level < 2 ? level : 2);
    default: {
        int n = 0;
        for (int k = 0; k < K_COUNT; k++)
            if (k != c->focus)
                n += kind_level(c->s, (Kind)k, level);
        return n;
    }
    }
}

// The lines panel p uses of H (0: not even its smallest form fits).
static int fit_h(const Ctx *c, int p, int H) {
    switch (p) {
    case E_FOCUS: return c->focus == K_NONE ? 0 : kind_fit(c->s, c->focus, H);
    case E_RANKS: return lines_used(c->s, c->w, H);
    case E_TIMELINE:
        return H < viz_layout_timeline_level(c->s, 0) ? 0 : viz_layout_timeline_fit(c->s, H);
    default: {
        int got[K_COUNT];
        return other_split(c, H, got);
    }
    }
}

// Each panel's lines of H (the header's line already taken): the smallest
// forms in order of what is kept, then growth in stages.
static void heights(const Ctx *c, int H, int hp[E_COUNT]) {
    // The other panels come in only once the first three have grown a
    // step, so that a line more never leaves the focus smaller (a finished
    // collective's 5 lines would take the buckets' rows).
    static const int stage[][2] = {
        {E_FOCUS, 0}, {E_RANKS, 0}, {E_TIMELINE, 0}, {E_FOCUS, 1}, {E_RANKS, 1},
        {E_TIMELINE, 1}, {E_OTHER, 0}, {E_FOCUS, 2}, {E_RANKS, 2}, {E_OTHER, 1},
        {E_TIMELINE, 2}, {E_FOCUS, 3}, {E_RANKS, 3}, {E_OTHER, 3},
    };
    int used = 0;
    memset(hp, 0, sizeof(int) * E_COUNT);
    for (size_t k = 0; k < sizeof stage / sizeof stage[0]; k++) {
        int p = stage[k][0], want = level_h(c, p, stage[k][1]);
        int room = H - used;
        if (want <= hp[p] || room <= 0)
            continue;
        int grow = want - hp[p] < room ? want - hp[p] : room;
        int got = fit_h(c, p, hp[p] + grow);
        if (got > hp[p]) {
            used += got - hp[p];
            hp[p] = got;
        }
    }
}

// The rank lines in l->ranks, row by row, on the page holding `selected`.
static void place_lines(const VizScene *s, VizLayout *l, int selected) {
    VizRect r = l->ranks;
    Lines g = lines_fit(s, r.w, r.h);
    l->compact_ranks = 1;
    l->nboxes = g.n;
    l->first_box = 0;
    if (g.n <= 0)
        return;
    if (g.n < s->nranks) {
        int first = selected - selected % g.n;
        if (first + g.n > s->nranks)
            first = s->nranks - g.n;
        l->first_box = first;
    }
    for (int k = 0; k < g.n + g.note; k++) {
        int row = k / g.cols, col = k % g.cols;
        int x0 = r.x + col * r.w / g.cols, x1 = r.x + (col + 1) * r.w / g.cols;
        VizRect slot = {x0, r.y + row, x1 - x0, 1};
        if (k < g.n)
            l->box[k] = slot;
        else
            l->rank_note = slot;
    }
}

static void compact(const VizScene *s, int w, int h, int selected, VizLayout *l) {
    Ctx c = {.s = s, .w = w, .focus = focus_of(s)};
    int hp[E_COUNT], got[K_COUNT];
    heights(&c, h - 1, hp);
    other_split(&c, hp[E_OTHER], got);
    if (c.focus != K_NONE)
        got[c.focus] = hp[E_FOCUS];
    int y = 0;
    l->header = (VizRect){0, y++, w, 1};
    l->ranks = (VizRect){0, y, w, hp[E_RANKS]};
    y += hp[E_RANKS];
    VizRect *panel[K_COUNT] = {&l->buckets, &l->coll, &l->shards, &l->hub};
    for (int k = 0; k < K_COUNT; k++) {
        if (got[k] > 0)
            *panel[k] = (VizRect){0, y, w, got[k]};
        y += got[k];
    }
    l->timeline = (VizRect){0, y, w, hp[E_TIMELINE]};
    viz_layout_timeline_cols(l);
    place_lines(s, l, selected);
    viz_layout_place_nodes(s, l, selected);
    l->ok = 1;
}

int viz_layout_embed(const VizScene *s, int w, int h, int selected, VizLayout *l) {
    memset(l, 0, sizeof *l);
    l->w = w;
    l->h = h;
    if (w < VIZ_EMBED_MIN_W || h < VIZ_EMBED_MIN_H) {
        snprintf(l->why, sizeof l->why, "the area is %dx%d; the view needs at least %dx%d", w, h,
                 VIZ_EMBED_MIN_W, VIZ_EMBED_MIN_H);
        return 0;
    }
    if (selected < 0 || selected >= s->nranks)
        selected = 0;
    if (w >= VIZ_MIN_W && (h >= VIZ_MIN_H || viz_layout_full_min(s, w) <= h))
        viz_layout_full(s, w, h, selected, 1, l);
    else
        compact(s, w, h, selected, l);
    return 1;
}
