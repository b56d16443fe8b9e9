// viz/draw_shards.c: FSDP's ownership grid, a row per rank and a column per
// unit (each unit's flat parameter split into G shards, G = the shard
// group's size):
//
//   Ownership: unit x rank, each unit's flat parameter in 4 shards
//              u0 root    u1 blocks.0 >u2 blocks.1  u3 blocks.2
//    rank 0    [0...]     [0...]      [****]        [0...]
//    rank 1    [.1..]     [.1..]      [****]        [.1..]
//    0-3 own shard  * gathered  ~ arriving  r reducing  + grad reduced  . not held
//
// A cell has one character per shard of the unit: the rank's own shard
// (its index in the group) and what it holds of the others. With more
// shards than fit, a cell is one character for the whole unit: '.'
// sharded, '~' gathering, '*' gathered, 'r' reducing, '+' reduced.
#include "draw_internal.h"

#include <stdio.h>
#include <string.h>

enum { LABEL_W = 10 };

static char digit(int j) {
    if (j < 10)
        return (char)('0' + j);
    if (j < 36)
        return (char)('a' + j - 10);
    return '#';
}

static VizStyle state_style(int st) {
    switch (st) {
    case VIZ_SHARD_GATHERING: return VIZ_STYLE_FILLING;
    case VIZ_SHARD_GATHERED: return VIZ_STYLE_GATHERED;
    case VIZ_SHARD_REDUCING: return VIZ_STYLE_REDUCING;
    case VIZ_SHARD_REDUCED: return VIZ_STYLE_DONE;
    default: return VIZ_STYLE_NORMAL;
    }
}

static char compact_glyph(int st) {
    switch (st) {
    case VIZ_SHARD_GATHERING: return '~';
    case VIZ_SHARD_GATHERED: return '*';
    case VIZ_SHARD_REDUCING: return 'r';
    case VIZ_SHARD_REDUCED: return '+';
    default: return '.';
    }
}

// The detailed cell of a rank that is index j of a group of g; shards from
// `held` on (FSDP2: ranks past a parameter's last row; 0: none) are padding.
static void detailed(VizCanvas *c, int x, int y, int g, int j, int st, int held) {
    VizStyle sty = state_style(st);
    viz_canvas_put(c, x, y, '[', VIZ_STYLE_DIM);
    for (int k = 0; k < g; k++) {
        char ch;
        if (held > 0 && k >= held) {
            viz_canvas_put(c, x + 1 + k, y, '_', VIZ_STYLE_DIM);
            continue;
        }
        switch (st) {
        case VIZ_SHARD_GATHERED: ch = '*'; break;
        case VIZ_SHARD_GATHERING: ch = k == j ? digit(j) : '~'; break;
        case VIZ_SHARD_REDUCING: ch = k == j ? digit(j) : 'r'; break;
        case VIZ_SHARD_REDUCED: ch = k == j ? '+' : '.'; break;
        default: ch = k == j ? digit(j) : '.'; break;
        }
        viz_canvas_put(c, x + 1 + k, y, (uint32_t)ch, k == j ? sty : ch == '.' ? VIZ_STYLE_DIM : sty);
    }
    viz_canvas_put(c, x + 1 + g, y, ']', VIZ_STYLE_DIM);
}

int viz_draw_window(int n, int fit, int focus) {
    if (fit >= n)
        return 0;
    int first = focus - fit / 2;
    if (first < 0)
        first = 0;
    if (first + fit > n)
        first = n - fit;
    return first;
}

void viz_draw_shards(VizCanvas *c, VizRect r, const VizScene *s, int selected) {
    const VizShards *sh = &s->shards;
    if (r.h <= 0 || sh->nunits <= 0 || !sh->state || s->nranks <= 0)
        return;
    int R = s->nranks, U = sh->nunits;
    int g = sh->group > 0 && sh->group <= R ? sh->group : R; // a loaded trace's may be 2^31-1
    int inner = r.w - 1 - LABEL_W;
    // Detailed cells when at least min(U, 3) columns of them fit.
    // A column fits its unit's label (">u2 blocks.1") when it can.
    int colw = g + 2 + 2;
    for (int u = 0; u < U; u++) {
        char nm[96];
        int n = snprintf(nm, sizeof nm, ">u%d %s", viz_shards_unit(sh, u),
                         sh->units && sh->units[u].name ? sh->units[u].name : "");
        if (n + 1 > colw)
            colw = n + 1;
    }
    if (colw > 20)
        colw = g + 4 > 20 ? g + 4 : 20;
    int want = U < 3 ? U : 3;
    int det = g <= 36 && inner / colw >= want;
    if (!det)
        colw = 4;
    int ncol = inner / colw;
    if (ncol > U)
        ncol = U;
    if (ncol < 1)
        ncol = 1;
    int nrow = r.h - 3;
    if (nrow > R)
        nrow = R;
    if (nrow < 1)
        nrow = 1;
    int u0 = viz_draw_window(U, ncol, sh->current >= 0 ? sh->current : 0);
    int r0 = viz_draw_window(R, nrow, selected);

    char t[200];
    int o;
    if (ncol < U || nrow < R)
        o = snprintf(t, sizeof t,
                     "Ownership, %d shard%s per %s: %s %d..%d of %d, ranks %d..%d of %d", g,
                     g == 1 ? "" : "s", sh->per_param ? "parameter" : "unit",
                     sh->per_param ? "parameters" : "units", u0, u0 + ncol - 1, U, r0,
                     r0 + nrow - 1, R);
    else
        o = snprintf(t, sizeof t, "Ownership: %s x rank, %s%d shard%s",
                     sh->per_param ? "parameter" : "unit", viz_shards_whole(s), g,
                     g == 1 ? "" : "s");
    if (g < R && o > 0 && o < (int)sizeof t)
        snprintf(t + o, sizeof t - (size_t)o, " (groups of %d ranks)", g);
    char buf[200];
    int n = viz_elide(t, r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y, n, VIZ_STYLE_TITLE, buf);
    if (r.h < 2)
        return;

    // Unit names; the current unit is marked '>'.
    int x0 = r.x + 1 + LABEL_W;
    for (int k = 0; k < ncol; k++) {
        int u = u0 + k;
        char nm[96];
        int cur = viz_shards_is_current(sh, u);
        if (det)
            snprintf(nm, sizeof nm, "%su%d %s", cur ? ">" : "", viz_shards_unit(sh, u),
                     sh->units && sh->units[u].name ? sh->units[u].name : "");
        else
            snprintf(nm, sizeof nm, "%s%d", cur ? ">" : "", viz_shards_unit(sh, u));
        int m = viz_elide(nm, colw - 1, buf, sizeof buf);
        viz_canvas_text(c, x0 + k * colw, r.y + 1, m, cur ? VIZ_STYLE_SELECTED : VIZ_STYLE_DIM,
                        buf);
    }
    for (int i = 0; i < nrow && 2 + i < r.h; i++) {
        int q = r0 + i, y = r.y + 2 + i;
        viz_canvas_printf(c, r.x + 1, y, LABEL_W - 1,
                          q == selected ? VIZ_STYLE_SELECTED : VIZ_STYLE_NORMAL, "rank %d", q);
        for (int k = 0; k < ncol; k++) {
            int u = u0 + k;
            int st = sh->state[(size_t)u * (size_t)R + (size_t)q];
            int x = x0 + k * colw;
            if (det)
                detailed(c, x, y, g, q % g, st, sh->units ? sh->units[u].held : 0);
            else
                viz_canvas_put(c, x + 1, y, (uint32_t)compact_glyph(st), state_style(st));
        }
    }
    if (r.h >= 3 + nrow) {
        const char *lg;
        char tmp[160];
        if (det) {
            snprintf(tmp, sizeof tmp,
                     "0-%c own shard  * gathered  ~ arriving  r reducing  + grad reduced  . not "
                     "held%s", digit(g - 1), sh->per_param ? "  _ padding only" : "");
            lg = tmp;
        } else {
            lg = ". sharded  ~ gathering  * gathered  r reducing  + reduced";
        }
        int m = viz_elide(lg, r.w - 2, buf, sizeof buf);
        viz_canvas_text(c, r.x + 1, r.y + 2 + nrow, m, VIZ_STYLE_DIM, buf);
    }
}
