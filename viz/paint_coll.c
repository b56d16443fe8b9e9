// viz/paint_coll.c: the running collective as a diagram.
//
// Nodes: one rounded box per rank, where paint_coll_place.c puts them for
// the topology; many ranks shrink the boxes, whose names become their
// numbers. Edges: the topology's links, dim;
// the links of the step in flight, bright, each carrying its transfer as a
// block of the chunk's colour that moves from the sender's box to the
// receiver's at the clock's fraction between step_t0 and step_t1: a filled
// block is added in (reduce), an outlined one replaces the receiver's copy.
//
// Buffers: under its name each node shows its nchunks slots; a slot is a
// column filled bottom up with one segment per rank whose contribution is
// summed into that copy (VizColl.held), in the rank's colour, so a slot is
// full once every rank is in. The side column lists the selected rank's
// running sums in words ("c1: r0+r2+r3"), as the terminal's panel does.
#include "paint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"     // defines: sim_algo_name, SIM_ALGO_COUNT
#include "draw_internal.h" // defines: viz_fmt_bytes

// ---------------------------------------------------------------------------

static void arrow(cairo_t *cr, double x0, double y0, double x1, double y1, double head,
                  VizRgba c, double width) {
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len <= 0)
        return;
    double ux = dx / len, uy = dy / len;
    viz_gfx_set(cr, c);
    cairo_set_line_width(cr, width);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1 - ux * head * 0.8, y1 - uy * head * 0.8);
    cairo_stroke(cr);
    if (head <= 0)
        return;
    cairo_move_to(cr, x1, y1);
    cairo_line_to(cr, x1 - ux * head - uy * head * 0.5, y1 - uy * head + ux * head * 0.5);
    cairo_line_to(cr, x1 - ux * head + uy * head * 0.5, y1 - uy * head - ux * head * 0.5);
    cairo_close_path(cr);
    cairo_fill(cr);
}

// The topology's links, dim (a direct exchange has too many to draw: only
// its transfers are).
static void paint_links(cairo_t *cr, const VizColl *k, const VizBox *node, int n) {
    VizRgba dim = viz_rgba_alpha(viz_ink(VIZ_INK_FRAME), 0.9);
    double x0, y0, x1, y1;
    for (int q = 0; q < n; q++) {
        int to = viz_paint_coll_link(k, q, n);
        if (to < 0 || n < 2 || !viz_paint_coll_edge(node, n, q, to, &x0, &y0, &x1, &y1))
            continue;
        arrow(cr, x0, y0, x1, y1, k->topo == VIZ_TOPO_RING ? 6 : 0, dim, 1.2);
    }
}

// Node q's slots: one column per chunk, filled bottom up by the ranks
// summed into it, in rank order. Painted a colour at a time (one path of
// rectangles for each rank), not a rectangle at a time: 16 ranks' 16 slots
// are 256 segments a node, and a cairo fill each costs more than the path.
static void paint_slots(VizPaint *p, const VizScene *s, int q, VizBox r) {
    const VizColl *k = &s->coll;
    cairo_t *cr = p->g.cr;
    int nc = k->nchunks, n = s->nranks;
    if (nc <= 0 || !k->held || !k->nheld || r.w < nc * 2 || r.h < 3)
        return;
    enum { MAX_SLOTS = 256 };
    nc = nc < MAX_SLOTS ? nc : MAX_SLOTS;
    double gap = r.w / nc > 6 ? 2 : 0.5, sw = (r.w - gap * (nc - 1)) / nc;
    double seg = r.h / (n > 0 ? n : 1);
    const uint64_t *held = k->held + (size_t)q * (size_t)k->nchunks;
    const int *nheld = k->nheld + (size_t)q * (size_t)k->nchunks;
    for (int c = 0; c < nc; c++)
        cairo_rectangle(cr, r.x + c * (sw + gap), r.y, sw, r.h);
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_fill(cr);
    int drawn[MAX_SLOTS] = {0};
    for (int j = 0; j < n && j < 64; j++) {
        int any = 0;
        for (int c = 0; c < nc; c++) {
            if (!(held[c] >> j & 1))
                continue;
            cairo_rectangle(cr, r.x + c * (sw + gap), r.y + r.h - (drawn[c] + 1) * seg, sw,
                            seg + 0.3);
            drawn[c]++;
            any = 1;
        }
        if (any) {
            viz_gfx_set(cr, viz_rank_colour(j));
            cairo_fill(cr);
        }
    }
    int more = 0; // ranks past 64 are counted only
    for (int c = 0; c < nc; c++)
        if (nheld[c] > drawn[c]) {
            cairo_rectangle(cr, r.x + c * (sw + gap), r.y + r.h - nheld[c] * seg, sw,
                            (nheld[c] - drawn[c]) * seg);
            more = 1;
        }
    if (more) {
        viz_gfx_set(cr, viz_ink(VIZ_INK_DIM));
        cairo_fill(cr);
    }
    // the chunk's colour as a thin cap: which slot is which chunk
    if (sw >= 3)
        for (int c = 0; c < nc; c++) {
            viz_gfx_set(cr, viz_chunk_colour(c));
            cairo_rectangle(cr, r.x + c * (sw + gap), r.y - 2, sw, 1.6);
            cairo_fill(cr);
        }
}

static void paint_node(VizPaint *p, const VizScene *s, int q, VizBox r) {
    const VizColl *k = &s->coll;
    cairo_t *cr = p->g.cr;
    int sel = q == p->selected_rank, root = q == k->root && k->topo != VIZ_TOPO_RING;
    double rad = r.h < 20 ? 3 : 6;
    viz_gfx_fill_round(cr, r.x, r.y, r.w, r.h, rad, viz_ink(VIZ_INK_BACKGROUND));
    viz_gfx_round_rect(cr, r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1, rad);
    viz_gfx_set(cr, sel ? viz_ink(VIZ_INK_SELECTED) : root ? viz_ink(VIZ_INK_TITLE)
                                                        : viz_rank_colour(q));
    cairo_set_line_width(cr, sel ? 2.2 : 1.3);
    cairo_stroke(cr);
    double px = r.h * 0.3;
    px = px > p->font_px ? p->font_px : px < 7 ? 7 : px;
    char name[24];
    if (r.w > px * 5)
        snprintf(name, sizeof name, "rank %d%s", q, root ? " (root)" : "");
    else
        snprintf(name, sizeof name, "%d", q);
    int slots = k->nchunks > 0 && r.h > px * 2.2 && r.w >= k->nchunks * 2 + 6;
    double ty = slots ? r.y + 2 : r.y + (r.h - px * 1.2) / 2;
    double tw;
    viz_gfx_text_size(&p->g, name, px, VIZ_FONT_SANS_BOLD, &tw, NULL);
    if (tw <= r.w - 2)
        viz_gfx_text(&p->g, r.x + r.w / 2, ty, name, px, VIZ_FONT_SANS_BOLD,
                     sel ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_TEXT), VIZ_ALIGN_CENTER);
    if (slots) {
        double top = r.y + px * 1.35 + 4;
        paint_slots(p, s, q, (VizBox){r.x + 4, top, r.w - 8, r.y + r.h - 4 - top});
    }
}

// The links of the transfers in flight, in their chunks' colours.
static void paint_xfer_edges(VizPaint *p, const VizScene *s, const VizBox *node, int n) {
    const VizColl *k = &s->coll;
    cairo_t *cr = p->g.cr;
    for (int i = 0; i < k->nxfer; i++) {
        const VizXfer *x = &k->xfer[i];
        double x0, y0, x1, y1;
        if (!viz_paint_coll_edge(node, n, x->src, x->dst, &x0, &y0, &x1, &y1))
            continue;
        VizRgba c = viz_chunk_colour(x->chunk);
        arrow(cr, x0, y0, x1, y1, n > 24 ? 4 : 7, viz_rgba_alpha(c, 0.55), n > 24 ? 1 : 1.8);
    }
}

// Each transfer's block at fraction f of the way along its edge.
static void paint_xfer_blocks(VizPaint *p, const VizScene *s, const VizBox *node, int n,
                              double f) {
    const VizColl *k = &s->coll;
    cairo_t *cr = p->g.cr;
    double side = node[0].h * 0.42;
    side = side > 22 ? 22 : side < 10 ? 10 : side;
    for (int i = 0; i < k->nxfer; i++) {
        const VizXfer *x = &k->xfer[i];
        double cx, cy;
        if (!viz_paint_chunk_at(node, n, x, f, &cx, &cy))
            continue;
        VizRgba c = viz_chunk_colour(x->chunk);
        if (x->reduce) {
            viz_gfx_fill_round(cr, cx - side / 2, cy - side / 2, side, side, side / 4, c);
        } else { // a copy: outlined, the receiver's chunk is replaced
            viz_gfx_fill_round(cr, cx - side / 2, cy - side / 2, side, side, side / 4,
                               viz_ink(VIZ_INK_BACKGROUND));
            viz_gfx_round_rect(cr, cx - side / 2 + 1, cy - side / 2 + 1, side - 2, side - 2,
                               side / 4);
            viz_gfx_set(cr, c);
            cairo_set_line_width(cr, 2);
            cairo_stroke(cr);
        }
        if (side >= 13 && x->chunk >= 0) {
            char t[16];
            snprintf(t, sizeof t, "%d", x->chunk);
            viz_gfx_text_at(&p->g, cx, cy, t, side * 0.62, VIZ_FONT_SANS_BOLD,
                            x->reduce ? viz_ink(VIZ_INK_BACKGROUND) : c, VIZ_ALIGN_CENTER,
                            VIZ_VALIGN_MIDDLE);
        }
    }
}

// "c1: r0+r2+r3" for each chunk of rank q, the words a learner reads the
// slots by.
static void paint_sums(VizPaint *p, const VizScene *s, int q, VizBox r) {
    const VizColl *k = &s->coll;
    if (k->nchunks <= 0 || !k->held || !k->nheld || r.w < 60)
        return;
    double px = p->font_px * 0.92, line = px * 1.5, y = r.y;
    char head[48];
    snprintf(head, sizeof head, "rank %d holds", q);
    viz_gfx_text(&p->g, r.x, y, head, px, VIZ_FONT_SANS_BOLD, viz_ink(VIZ_INK_SELECTED),
                 VIZ_ALIGN_LEFT);
    y += line;
    for (int c = 0; c < k->nchunks && y + line <= r.y + r.h; c++) {
        uint64_t bits = k->held[(size_t)q * k->nchunks + c];
        int count = k->nheld[(size_t)q * k->nchunks + c];
        char t[160];
        int o = snprintf(t, sizeof t, "c%d: ", c);
        if (count >= s->nranks)
            snprintf(t + o, sizeof t - (size_t)o, "all %d ranks", s->nranks);
        else if (count == 0)
            snprintf(t + o, sizeof t - (size_t)o, "-");
        else if (count > 8 || s->nranks > 64)
            snprintf(t + o, sizeof t - (size_t)o, "%d of %d ranks", count, s->nranks);
        else
            for (int j = 0, first = 1; j < 64 && o < (int)sizeof t - 8; j++)
                if (bits >> j & 1) {
                    o += snprintf(t + o, sizeof t - (size_t)o, "%sr%d", first ? "" : "+", j);
                    first = 0;
                }
        double sw = px * 0.8;
        viz_gfx_fill_round(p->g.cr, r.x, y + px * 0.25, sw, sw, 2, viz_chunk_colour(c));
        viz_gfx_text_fit(&p->g, r.x + sw + px * 0.5, y, t, px, VIZ_FONT_MONO,
                         viz_ink(VIZ_INK_TEXT), r.w - sw - px * 0.5);
        y += line;
    }
    if (y + line * 2 <= r.y + r.h) {
        y += line * 0.4;
        double sw = px * 0.8;
        viz_gfx_fill_round(p->g.cr, r.x, y + px * 0.25, sw, sw, 2, viz_chunk_colour(0));
        viz_gfx_text(&p->g, r.x + sw + px * 0.5, y, "added in (reduce)", px, VIZ_FONT_SANS,
                     viz_ink(VIZ_INK_DIM), VIZ_ALIGN_LEFT);
        y += line;
        viz_gfx_round_rect(p->g.cr, r.x + 1, y + px * 0.25 + 1, sw - 2, sw - 2, 2);
        viz_gfx_set(p->g.cr, viz_chunk_colour(0));
        cairo_set_line_width(p->g.cr, 1.5);
        cairo_stroke(p->g.cr);
        viz_gfx_text(&p->g, r.x + sw + px * 0.5, y, "copied (replaces)", px, VIZ_FONT_SANS,
                     viz_ink(VIZ_INK_DIM), VIZ_ALIGN_LEFT);
    }
}

static void coll_title(const VizScene *s, char *t, size_t len) {
    const VizColl *k = &s->coll;
    char by[24];
    viz_fmt_bytes(k->bytes, by, sizeof by);
    const char *algo = k->algo >= 0 && k->algo < SIM_ALGO_COUNT ? sim_algo_name((SimAlgo)k->algo)
                                                               : "?";
    int o = snprintf(t, len, "%s (%s)", k->name ? k->name : "collective", algo);
    if (k->bucket >= 0)
        o += snprintf(t + o, len - (size_t)o, " of bucket #%d", k->bucket);
    else if (k->unit >= 0)
        o += snprintf(t + o, len - (size_t)o, " of unit %d", k->unit);
    o += snprintf(t + o, len - (size_t)o, ", %s", by);
    if (!k->running)
        snprintf(t + o, len - (size_t)o, ": finished");
    else if (k->step >= 0 && k->phase_step >= 0 && k->phase_steps > 0)
        snprintf(t + o, len - (size_t)o, ": %s, step %d of %d (%d of %d in all)",
                 k->step_label ? k->step_label : "step", k->phase_step + 1, k->phase_steps,
                 k->step + 1, k->nsteps);
    else if (k->step >= 0 && k->nsteps > 0)
        snprintf(t + o, len - (size_t)o, ": %s%sstep %d of %d",
                 k->step_label ? k->step_label : "", k->step_label ? ", " : "", k->step + 1,
                 k->nsteps);
}

// The diagram's area inside the panel, and the side column of sums.
static void split(const VizPaint *p, const VizScene *s, VizBox in, VizBox *diagram,
                  VizBox *side) {
    // the sums in words only where the nodes keep room for their slots
    int n = s->nranks;
    double sw = s->coll.nchunks > 0 && in.w > 560 && (n <= 8 || in.w > 900) ? p->font_px * 15 : 0;
    *diagram = (VizBox){in.x, in.y, in.w - sw, in.h - p->font_px * 1.3};
    *side = (VizBox){in.x + in.w - sw, in.y, sw, in.h};
}

VizBox viz_paint_coll_area(const VizPaint *p, const VizScene *s, VizBox b) {
    VizBox diagram, side;
    split(p, s, viz_paint_panel_inner(p, b, 1), &diagram, &side);
    return diagram;
}

void viz_paint_coll(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox b) {
    (void)l;
    const VizColl *k = &s->coll;
    if (b.w <= 0 || b.h <= 0 || !k->active)
        return;
    char title[256];
    coll_title(s, title, sizeof title);
    VizBox in = viz_paint_panel(p, b, title), diagram, side;
    if (in.w <= 0 || in.h <= 0)
        return;
    split(p, s, in, &diagram, &side);
    VizBox node[VIZ_PAINT_MAX_NODES];
    int n = viz_paint_coll_nodes(s, diagram, node, VIZ_PAINT_MAX_NODES);
    if (n <= 0)
        return;
    cairo_save(p->g.cr);
    cairo_rectangle(p->g.cr, b.x, b.y, b.w, b.h);
    cairo_clip(p->g.cr);
    paint_links(p->g.cr, k, node, n);
    if (k->running)
        paint_xfer_edges(p, s, node, n);
    for (int q = 0; q < n; q++)
        paint_node(p, s, q, node[q]);
    if (k->running) // the blocks ride over the nodes they leave
        paint_xfer_blocks(p, s, node, n, viz_paint_step_fraction(p, s));
    if (side.w > 0 && k->running)
        paint_sums(p, s, p->selected_rank < n ? p->selected_rank : 0, side);
    char cap[160];
    int reduce = 0;
    for (int i = 0; i < k->nxfer; i++)
        reduce |= k->xfer[i].reduce;
    if (!k->running)
        snprintf(cap, sizeof cap, "finished: every rank holds its result");
    else if (k->nxfer > 0)
        snprintf(cap, sizeof cap, "%d transfer%s of one chunk each; the receivers %s them",
                 k->nxfer, k->nxfer == 1 ? "" : "s", reduce ? "add" : "store");
    else
        snprintf(cap, sizeof cap, "no transfer in flight at this instant");
    viz_gfx_text_fit(&p->g, in.x, in.y + in.h - p->font_px * 1.2, cap, p->font_px * 0.92,
                     VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM), diagram.w);
    cairo_restore(p->g.cr);
}
