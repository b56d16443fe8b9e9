// viz/paint_shards.c: FSDP and ZeRO ownership, painted. A grid of units
// (columns) by ranks (rows); each cell is the unit's flat parameter as a
// bar cut into `group` shards, shard k in rank k's colour (its owner in the
// shard group), showing what that rank holds now (paint_shards_cell.c):
//
//   Ownership (ZeRO-3): each unit's flat parameter in 4 shards, coloured by owner
//              u0 root      >u1 blocks.0   u2 blocks.1
//   rank 0     [0| | | ]    [0|1|2|3]      [0| | | ]     sharded / gathered
//   rank 1     [ |1| | ]    [0|1|2|3]      [ |1| | ]
//              ... legend: own shard, arriving, gathered, grad reduce-scatter, reduced
//
// An all-gather in flight (s->coll.unit) fills the arriving shards in the
// ring's order as it progresses (tweened with the frame's u). The current
// unit's column is tinted and its name in the selected ink, the selected
// rank's row likewise. With more units or ranks than fit, cells shrink to
// mini bars (one bar, no gradient strip) and then a window of units around
// the current one and of ranks around the selected one is shown, the title
// saying which.
#include "paint_shards_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_internal.h" // defines: viz_draw_window

enum {
    MIN_ROW_PX = 7,    // a mini bar's row
    STRIP_ROW_PX = 14, // rows from this tall get a gradient strip
};

typedef struct {
    int R, U, g;
    int u0, ncol;      // units shown: u0 .. u0 + ncol - 1
    int r0, nrow;      // ranks shown
    double label_w;    // the rank labels' column
    double x0, y0;     // the grid's top left
    double col_w, row_h;
} Grid;

static const char *unit_name(const VizShards *sh, int u) {
    return sh->units && sh->units[u].name ? sh->units[u].name : "";
}

// The columns that fit W pixels: every unit when a column keeps 3 pixels a
// shard (or 14 pixels a mini bar), else a window around the current unit.
static void grid_columns(Grid *G, const VizShards *sh, double W) {
    double min_col = G->g * 3 > 14 ? G->g * 3 : 14;
    if (min_col > 90)
        min_col = 14; // too many shards to draw apart: mini bars
    G->ncol = W > 0 ? (int)(W / min_col) : 0;
    if (G->ncol > G->U)
        G->ncol = G->U;
    if (G->ncol < 1)
        G->ncol = 1;
    G->col_w = floor(W / G->ncol);
    if (G->col_w > 220)
        G->col_w = 220; // a longer bar says nothing more
    G->u0 = viz_draw_window(G->U, G->ncol, sh->current >= 0 ? sh->current : 0);
}

// The rows that fit H pixels: every rank when a row keeps MIN_ROW_PX, else
// a window around the selected rank.
static void grid_rows(Grid *G, double H, double cell_h, int selected) {
    G->row_h = H / G->R;
    if (G->row_h > cell_h * 1.25)
        G->row_h = floor(cell_h * 1.25);
    G->nrow = G->R;
    if (G->row_h < MIN_ROW_PX) {
        G->row_h = MIN_ROW_PX;
        G->nrow = H > 0 ? (int)(H / MIN_ROW_PX) : 1;
        if (G->nrow < 1)
            G->nrow = 1;
    }
    G->row_h = floor(G->row_h);
    G->r0 = viz_draw_window(G->R, G->nrow, selected);
}

// The grid in panel b: the rank labels' column, then the cells under a
// title line and a line of unit names, above the legend's line.
static Grid grid_of(VizPaint *p, const VizScene *s, VizBox b) {
    Grid G;
    G.R = s->nranks;
    G.U = s->shards.nunits;
    G.g = s->shards.group > 0 && s->shards.group <= G.R ? s->shards.group : G.R;
    char widest[24];
    snprintf(widest, sizeof widest, "rank %d", G.R - 1);
    viz_gfx_text_size(&p->g, widest, p->font_px * 0.9, VIZ_FONT_SANS, &G.label_w, NULL);
    G.label_w += p->cell_w * 2;
    grid_columns(&G, &s->shards, b.w - G.label_w - p->cell_w);
    grid_rows(&G, b.h - 3 * p->cell_h - 4, p->cell_h, p->selected_rank);
    G.x0 = b.x + G.label_w;
    G.y0 = b.y + 2 * p->cell_h + 2;
    return G;
}

// What sharding the run's strategy stands for, from its name ("" for
// FSDP, whose sharding the header names): the stage and what it shards.
static const char *stage_of(const VizScene *s, const char **note) {
    const char *st = s->info ? s->info->strategy : "";
    static const struct {
        const char *name, *stage, *note;
    } zero[] = {
        {"zero1", "ZeRO-1", "optimizer state sharded; params and grads whole"},
        {"zero2", "ZeRO-2", "grads and optimizer state sharded"},
        {"zero3", "ZeRO-3", "params, grads and optimizer state sharded"},
        {"fsdp2", "FSDP2", "each parameter chunked on dim 0, padded on its own"},
    };
    for (size_t k = 0; k < sizeof zero / sizeof zero[0]; k++)
        if (strcmp(st, zero[k].name) == 0) {
            *note = zero[k].note;
            return zero[k].stage;
        }
    *note = "";
    return "";
}

// ZeRO-1 keeps parameters and gradients whole on every rank.
static int replicated(const VizScene *s) {
    return s->info && (strcmp(s->info->strategy, "zero1") == 0 ||
                       strstr(s->info->title, "zero1") != NULL);
}

// The title in the longest of its forms that fits: what the cells are,
// the ZeRO stage and what it shards, the shard groups, and the windows of
// units and ranks when not all are shown.
static void title(VizPaint *p, const VizScene *s, VizBox b, const Grid *G) {
    char what[128] = "", groups[48] = "", t[320];
    if (G->ncol < G->U || G->nrow < G->R)
        snprintf(what, sizeof what, "; units %d..%d of %d, ranks %d..%d of %d", G->u0,
                 G->u0 + G->ncol - 1, G->U, G->r0, G->r0 + G->nrow - 1, G->R);
    if (G->g < G->R)
        snprintf(groups, sizeof groups, " (groups of %d ranks)", G->g);
    const char *note, *stage = stage_of(s, &note);
    const char *dot = "  \xc2\xb7  ";
    double room = b.w - 2 * p->cell_w, w = 0;
    for (int form = 0; form < 4; form++) {
        int long_head = form == 0, with_note = form < 2 && stage[0], with_stage = form < 3;
        snprintf(t, sizeof t, "%s%s%s: %s%d shard%s%s, coloured by owner%s%s%s%s",
                 with_stage ? stage : "", with_stage && stage[0] ? " ownership" : "",
                 with_stage && stage[0] ? "" : "Ownership",
                 long_head ? viz_shards_whole(s) : "", G->g, G->g == 1 ? "" : "s",
                 long_head ? "" : s->shards.per_param ? " per parameter" : " per unit", groups,
                 what, with_note ? dot : "",
                 with_note ? note : "");
        viz_gfx_text_size(&p->g, t, p->font_px, VIZ_FONT_SANS_BOLD, &w, NULL);
        if (w <= room)
            break;
    }
    double h;
    viz_gfx_text_size(&p->g, t, p->font_px, VIZ_FONT_SANS_BOLD, NULL, &h);
    viz_gfx_text_fit(&p->g, b.x + p->cell_w, b.y + (p->cell_h - h) / 2 + 2, t, p->font_px,
                     VIZ_FONT_SANS_BOLD, viz_ink(VIZ_INK_TITLE), room);
}

// The current unit's column: a tint behind it and a frame in the selected ink.
static void current_column(VizPaint *p, const Grid *G, int k) {
    double x = G->x0 + k * G->col_w - 2, y = G->y0 - p->cell_h;
    double h = p->cell_h + G->nrow * G->row_h + 2;
    VizRgba c = viz_ink(VIZ_INK_SELECTED);
    viz_gfx_fill_round(p->g.cr, x, y, G->col_w, h, 4, viz_rgba_alpha(c, 0.08));
    viz_gfx_round_rect(p->g.cr, x + 0.5, y + 0.5, G->col_w - 1, h - 1, 4);
    viz_gfx_set(p->g.cr, viz_rgba_alpha(c, 0.7));
    cairo_set_line_width(p->g.cr, 1);
    cairo_stroke(p->g.cr);
}

// Unit names over the columns ("u2 blocks.1", or the index alone in narrow
// columns; in very narrow ones every few units).
static void unit_labels(VizPaint *p, const VizScene *s, const Grid *G) {
    const VizShards *sh = &s->shards;
    double px = p->font_px * 0.85, y = G->y0 - p->cell_h / 2 - 1, wdig;
    char widest[16];
    snprintf(widest, sizeof widest, "%d", G->U - 1);
    viz_gfx_text_size(&p->g, widest, px, VIZ_FONT_SANS, &wdig, NULL);
    int every = (int)ceil((wdig + 4) / G->col_w);
    for (int k = 0; k < G->ncol; k++) {
        int u = G->u0 + k, cur = viz_shards_is_current(sh, u);
        if (!cur && every > 1 && u % every != 0)
            continue;
        char nm[128];
        const char *un = unit_name(sh, u);
        // an mlp's modules are numbered ("0", "2"): say they are modules
        // (FSDP2's columns are parameters, "0.weight": named as they are)
        int numeric = !sh->per_param && un[0] >= '0' && un[0] <= '9';
        if (G->col_w >= 60)
            snprintf(nm, sizeof nm, numeric ? "u%d (module %s)" : "u%d %s", viz_shards_unit(sh, u),
                     un);
        else
            snprintf(nm, sizeof nm, "%d", viz_shards_unit(sh, u));
        VizRgba c = cur ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_DIM);
        VizFont f = cur ? VIZ_FONT_SANS_BOLD : VIZ_FONT_SANS;
        double h, x = G->x0 + k * G->col_w;
        viz_gfx_text_size(&p->g, nm, px, f, NULL, &h);
        double room = G->col_w - 4 > wdig ? G->col_w - 4 : wdig + 2;
        viz_gfx_text_fit(&p->g, x, y - h / 2, nm, px, f, c, room);
    }
}

// The fraction of unit u's collective at the frame: its progress (tweened
// to the next instant's while the same collective runs) when the scene's
// collective is u's, 1 once it is over, 0 when it has not started.
static double unit_progress(const VizPaint *p, const VizScene *s, int u) {
    const VizColl *c = &s->coll;
    if (!c->active || c->unit != u)
        return 0;
    double f = c->progress;
    const VizScene *n = p->next;
    if (n && n->coll.active && n->coll.unit == u && n->coll.seq == c->seq)
        f = viz_paint_tween(p, f, n->coll.progress);
    else if (n)
        f = viz_paint_tween(p, f, 1);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

// Row i, column k's cell: a small gap to its neighbours.
static VizBox cell_rect(const Grid *G, int i, int k) {
    double gap_y = G->row_h >= 12 ? 3 : 1, gap_x = G->col_w >= 30 ? 6 : 2;
    double y = G->y0 + i * G->row_h;
    return (VizBox){G->x0 + k * G->col_w, round(y + gap_y / 2), G->col_w - gap_x,
                    G->row_h - gap_y};
}

static int has_strip(const Grid *G) {
    return G->row_h >= STRIP_ROW_PX && G->col_w / G->g >= 3;
}

int viz_paint_shards_where(VizPaint *p, const VizScene *s, VizBox b, int u, int q,
                           VizBox *cell, int *strip) {
    if (s->shards.nunits <= 0 || s->nranks <= 0)
        return 0;
    Grid G = grid_of(p, s, b);
    if (u < G.u0 || u >= G.u0 + G.ncol || q < G.r0 || q >= G.r0 + G.nrow)
        return 0;
    *cell = cell_rect(&G, q - G.r0, u - G.u0);
    *strip = has_strip(&G);
    return 1;
}

static void rank_row(VizPaint *p, const VizScene *s, const Grid *G, int i, const double *f) {
    int q = G->r0 + i, sel = q == p->selected_rank;
    double y = G->y0 + i * G->row_h;
    if (sel) // a band across the label and the row
        viz_gfx_fill_round(p->g.cr, G->x0 - G->label_w + 2, y, G->label_w - 2 + G->ncol * G->col_w,
                           G->row_h, 3, viz_rgba_alpha(viz_ink(VIZ_INK_SELECTED), 0.12));
    // short rows label every few ranks, and the selected one, whose
    // neighbours then give way
    int every = G->row_h >= p->font_px ? 1 : (int)ceil(p->font_px / G->row_h);
    int near_sel = abs(q - p->selected_rank) < every;
    if (sel || (q % every == 0 && !near_sel)) {
        char lab[24];
        snprintf(lab, sizeof lab, G->row_h >= p->font_px ? "rank %d" : "%d", q);
        double px = G->row_h >= p->font_px ? p->font_px * 0.9 : p->font_px * 0.75;
        viz_gfx_text_at(&p->g, G->x0 - p->cell_w, y + G->row_h / 2, lab, px, VIZ_FONT_SANS,
                        sel ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_TEXT),
                        VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
    }
    for (int k = 0; k < G->ncol; k++) {
        int u = G->u0 + k;
        VizShardCell c = {
            .g = G->g,
            .own = q % G->g,
            .state = s->shards.state[(size_t)u * (size_t)G->R + (size_t)q],
            .f = f[k],
            .strip = has_strip(G),
            .ring = s->coll.topo == VIZ_TOPO_RING,
            .replicated = replicated(s),
            .held = s->shards.units ? s->shards.units[u].held : 0,
        };
        viz_paint_shard_cell(p, cell_rect(G, i, k), &c);
    }
    if (sel) { // over the cells, so that it shows in a grid of mini bars too
        viz_gfx_round_rect(p->g.cr, G->x0 - 3.5, y + 0.5, G->ncol * G->col_w + 2, G->row_h - 1, 3);
        viz_gfx_set(p->g.cr, viz_rgba_alpha(viz_ink(VIZ_INK_SELECTED), 0.6));
        cairo_set_line_width(p->g.cr, 1);
        cairo_stroke(p->g.cr);
    }
}

// A legend entry: a small cell of state st (shards of 4, owner own) and its
// words. Returns the x after it, or x when it does not fit before end.
static double legend_item(VizPaint *p, double x, double ymid, int st, double f, int rep,
                          const char *words, double end) {
    double px = p->font_px * 0.85, w;
    viz_gfx_text_size(&p->g, words, px, VIZ_FONT_SANS, &w, NULL);
    double cw = round(px * 3), ch = round(px * 0.9);
    if (x + cw + 5 + w > end)
        return x;
    VizShardCell c = {.g = 4, .own = 1, .state = st, .f = f, .strip = 0, .ring = 0,
                      .replicated = rep};
    viz_paint_shard_cell(p, (VizBox){x, round(ymid - ch / 2), cw, ch}, &c);
    viz_gfx_text_at(&p->g, x + cw + 5, ymid, words, px, VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM),
                    VIZ_ALIGN_LEFT, VIZ_VALIGN_MIDDLE);
    return x + cw + 5 + w + px * 1.2;
}

// FSDP2's legend entry for shards that are padding only (a rank past a
// parameter's last row): a cell of 4 shards whose last one is padding.
static void legend_pad(VizPaint *p, double x, double ymid, double end) {
    double px = p->font_px * 0.85, w;
    const char *words = "padding only";
    viz_gfx_text_size(&p->g, words, px, VIZ_FONT_SANS, &w, NULL);
    double cw = round(px * 3), ch = round(px * 0.9);
    if (x + cw + 5 + w > end)
        return;
    VizShardCell c = {.g = 4, .own = 0, .state = VIZ_SHARD_SHARDED, .held = 3};
    viz_paint_shard_cell(p, (VizBox){x, round(ymid - ch / 2), cw, ch}, &c);
    viz_gfx_text_at(&p->g, x + cw + 5, ymid, words, px, VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM),
                    VIZ_ALIGN_LEFT, VIZ_VALIGN_MIDDLE);
}

static void legend(VizPaint *p, const VizScene *s, VizBox b, double y) {
    double x = b.x + p->cell_w, end = b.x + b.w - p->cell_w, ymid = round(y + p->cell_h / 2);
    int rep = replicated(s);
    x = legend_item(p, x, ymid, VIZ_SHARD_SHARDED, 0, rep,
                    rep ? "own shard (the rest a stale copy)" : "own shard", end);
    x = legend_item(p, x, ymid, VIZ_SHARD_GATHERING, 0.5, rep, "all-gather: arriving", end);
    x = legend_item(p, x, ymid, VIZ_SHARD_GATHERED, 0, rep, "gathered", end);
    x = legend_item(p, x, ymid, VIZ_SHARD_REDUCING, 0.5, rep,
                    rep ? "grads all_reduced" : "grads reduce-scatter to owners", end);
    x = legend_item(p, x, ymid, VIZ_SHARD_REDUCED, 0, rep, "own grad shard reduced", end);
    if (s->shards.per_param)
        legend_pad(p, x, ymid, end);
}

void viz_paint_shards(VizPaint *p, const VizScene *s, VizBox b) {
    const VizShards *sh = &s->shards;
    if (b.w <= 0 || b.h <= 0 || sh->nunits <= 0 || sh->state == NULL || s->nranks <= 0)
        return;
    viz_gfx_fill_round(p->g.cr, b.x, b.y, b.w, b.h, 6, viz_ink(VIZ_INK_PANEL));
    Grid G = grid_of(p, s, b);
    title(p, s, b, &G);
    if (b.h < 3 * p->cell_h)
        return;
    for (int k = 0; k < G.ncol; k++)
        if (viz_shards_is_current(sh, G.u0 + k))
            current_column(p, &G, k);
    unit_labels(p, s, &G);
    double f[VIZ_LAYOUT_MAX_BOXES * 4];
    if (G.ncol > (int)(sizeof f / sizeof f[0]))
        G.ncol = (int)(sizeof f / sizeof f[0]);
    for (int k = 0; k < G.ncol; k++)
        f[k] = unit_progress(p, s, viz_shards_unit(sh, G.u0 + k));
    for (int i = 0; i < G.nrow; i++)
        rank_row(p, s, &G, i, f);
    double ly = G.y0 + G.nrow * G.row_h + 2;
    if (ly + p->cell_h <= b.y + b.h + 1)
        legend(p, s, b, ly);
}
