// viz/paint_shards_cell.c: one unit on one rank: its flat parameter as a
// bar of shards coloured by owner, and its gradient while it is reduced.
#include "paint_shards_internal.h"

#include <math.h>

double viz_shard_arrived(int g, int own, int k, double f, int ring) {
    if (k == own)
        return 1;
    if (g <= 1)
        return 0;
    if (!ring)
        return f < 0 ? 0 : f > 1 ? 1 : f;
    int i = ((own - 1 - k) % g + g) % g; // its place in the order of arrival
    double a = f * (g - 1) - i;
    return a < 0 ? 0 : a > 1 ? 1 : a;
}

// Shard k's left edge in bar r of g shards, on a whole pixel.
static double edge(VizBox r, int g, int k) {
    return round(r.x + r.w * k / g);
}

// Shard k of r, filled over `part` (0..1) of its width in colour c.
static void fill_shard(cairo_t *cr, VizBox r, int g, int k, double part, VizRgba c, int seps) {
    double x0 = edge(r, g, k), x1 = edge(r, g, k + 1);
    if (seps && x1 - x0 >= 4)
        x1 -= 1; // a dark pixel parts neighbouring shards
    double w = (x1 - x0) * part;
    if (w <= 0)
        return;
    cairo_rectangle(cr, x0, r.y, w, r.h);
    viz_gfx_set(cr, c);
    cairo_fill(cr);
}

// The own shard, at least 2 pixels wide so that it shows in a mini bar.
static void fill_own(cairo_t *cr, VizBox r, int g, int own, VizRgba c) {
    double x0 = edge(r, g, own), x1 = edge(r, g, own + 1);
    if (x1 - x0 < 2) {
        x1 = x0 + 2;
        if (x1 > r.x + r.w) {
            x1 = r.x + r.w;
            x0 = x1 - 2;
        }
    }
    cairo_rectangle(cr, x0, r.y, x1 - x0, r.h);
    viz_gfx_set(cr, c);
    cairo_fill(cr);
}

// An outline of width lw just outside r, so that it covers no shard (a
// 3-pixel shard at the bar's end would be half hidden under it).
static void outline(cairo_t *cr, VizBox r, VizRgba c, double lw) {
    cairo_rectangle(cr, r.x - lw / 2, r.y - lw / 2, r.w + lw, r.h + lw);
    viz_gfx_set(cr, c);
    cairo_set_line_width(cr, lw);
    cairo_stroke(cr);
}

// The empty places of shards not held: a faint outline each (when shards
// are wide enough to tell apart), so the bar still shows its cut.
static void empty_shards(cairo_t *cr, VizBox r, int g) {
    if (r.w / g < 4)
        return;
    VizRgba c = viz_rgba_alpha(viz_ink(VIZ_INK_FRAME), 0.9);
    for (int k = 1; k < g; k++) {
        double x = edge(r, g, k) - 0.5;
        cairo_move_to(cr, x, r.y + 1);
        cairo_line_to(cr, x, r.y + r.h - 1);
    }
    viz_gfx_set(cr, c);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
}

// Shards drawn in bar r: every one of g while each has a pixel, else one
// per pixel (a thousand ranks' bar stays a bar's worth of work).
static int drawn(VizBox r, int g) {
    return g <= r.w ? g : r.w >= 1 ? (int)r.w : 1;
}

// The owner of drawn shard kd of gd, of g shards.
static int owner(int kd, int gd, int g) {
    return (int)((long long)kd * g / gd);
}

// Shards held..g-1 hold only padding: the background over them, crossed
// by thin diagonal lines in the frame ink.
static void padding(cairo_t *cr, VizBox r, int g, int held) {
    double x0 = edge(r, g, held), x1 = r.x + r.w;
    if (x1 - x0 < 1)
        return;
    cairo_save(cr);
    cairo_rectangle(cr, x0, r.y, x1 - x0, r.h);
    cairo_clip(cr);
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_paint(cr);
    for (double x = x0 - r.h; x < x1; x += 4) {
        cairo_move_to(cr, x, r.y + r.h);
        cairo_line_to(cr, x + r.h, r.y);
    }
    viz_gfx_set(cr, viz_rgba_alpha(viz_ink(VIZ_INK_FRAME), 0.9));
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    cairo_restore(cr);
}

static void param_bar(VizPaint *p, VizBox r, const VizShardCell *c) {
    cairo_t *cr = p->g.cr;
    int g = c->g, gd = drawn(r, g), seps = r.w / g >= 4;
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_fill(cr);
    empty_shards(cr, r, g);
    for (int kd = 0; kd < gd; kd++) {
        int k = owner(kd, gd, g);
        if (k == c->own)
            continue;
        double part = 0;
        if (c->state == VIZ_SHARD_GATHERED)
            part = 1;
        else if (c->state == VIZ_SHARD_GATHERING)
            part = viz_shard_arrived(g, c->own, k, c->f, c->ring);
        if (c->replicated && part < 1)
            fill_shard(cr, r, gd, kd, 1, viz_rgba_alpha(viz_rank_colour(k), 0.3), seps);
        if (part > 0)
            fill_shard(cr, r, gd, kd, part, viz_rank_colour(k), seps);
    }
    fill_own(cr, r, g, c->own, viz_rank_colour(c->own));
    if (c->held > 0 && c->held < g)
        padding(cr, r, g, c->held);
}

// The gradient: reduce-scatter sends shard k to its owner k, so on this
// rank the shards of others fade as the collective runs while its own
// gathers the sum; once reduced only the own shard is left, in the
// reduced ink.
static void grad_bar(VizPaint *p, VizBox r, const VizShardCell *c) {
    cairo_t *cr = p->g.cr;
    int g = c->g, gd = drawn(r, g), seps = r.w / g >= 4;
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_fill(cr);
    if (c->state == VIZ_SHARD_REDUCED) {
        VizRgba faint = viz_rgba_alpha(viz_shard_colour(VIZ_SHARD_REDUCED), 0.3);
        if (c->replicated) // the whole reduced gradient, the own shard the one it steps
            fill_shard(cr, r, 1, 0, 1, faint, 0);
        fill_own(cr, r, g, c->own, viz_shard_colour(VIZ_SHARD_REDUCED));
        return;
    }
    // an all_reduce (replicated) leaves every shard where it is
    double fade = c->replicated ? 1 : 1 - (c->f < 0 ? 0 : c->f > 1 ? 1 : c->f);
    for (int kd = 0; kd < gd; kd++) {
        int k = owner(kd, gd, g);
        if (k != c->own)
            fill_shard(cr, r, gd, kd, 1, viz_rgba_alpha(viz_rank_colour(k), 0.25 + 0.6 * fade),
                       seps);
    }
    fill_own(cr, r, g, c->own, viz_rgba_mix(viz_rank_colour(c->own),
                                            viz_shard_colour(VIZ_SHARD_REDUCING), 0.35));
}

static VizRgba accent(int state) {
    return state == VIZ_SHARD_SHARDED ? viz_ink(VIZ_INK_FRAME)
                                      : viz_shard_colour((VizShardState)state);
}

VizBox viz_shard_param_box(VizBox r, int strip) {
    if (strip)
        r.h = round(r.h * 0.55);
    return r;
}

void viz_paint_shard_cell(VizPaint *p, VizBox r, const VizShardCell *c) {
    if (r.w < 3 || r.h < 2 || c->g < 1)
        return;
    int grad = c->state == VIZ_SHARD_REDUCING || c->state == VIZ_SHARD_REDUCED;
    double lw = r.h >= 10 && r.w >= 20 ? 1.5 : 1;
    if (!c->strip) {
        if (grad)
            grad_bar(p, r, c);
        else
            param_bar(p, r, c);
        // a mini bar's outline is the state's ink, faint when it is many
        // cells' (sharded, reduced), so that the cells that change stand out
        int quiet = r.h < 10 && (c->state == VIZ_SHARD_SHARDED || c->state == VIZ_SHARD_REDUCED);
        VizRgba a = accent(c->state);
        outline(p->g.cr, r, quiet ? viz_rgba_alpha(a, 0.45) : a, lw);
        return;
    }
    VizBox pb = viz_shard_param_box(r, 1);
    double gap = r.h >= 16 ? 2 : 1;
    VizBox gb = {r.x, r.y + pb.h + gap, r.w, r.h - pb.h - gap};
    param_bar(p, pb, c);
    outline(p->g.cr, pb, grad ? viz_ink(VIZ_INK_FRAME) : accent(c->state), lw);
    if (grad) {
        grad_bar(p, gb, c);
        outline(p->g.cr, gb, accent(c->state), 1);
    }
}
