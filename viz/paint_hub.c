// viz/paint_hub.c: DataParallel, painted. Device 0 (the hub, which alone
// holds the real parameters and the optimizer) above, the replicas in a
// row below, an arrow from the hub to each replica when it sends
// (dp.replicate, dp.scatter, dp.scatter_grad) and from each replica to the
// hub when it collects (dp.gather, dp.reduce):
//
//   DataParallel: device 0 drives...  (replicate) (scatter) (gather) ...
//                      .----------------------.
//                      |    device 0 (hub)    |
//                      |      (waiting)       |
//                      '----------------------'
//               /    #        |   #          \  #        arrows, packets
//        [device 1]      [device 2]       [device 3]      (+N more)
//   dp.scatter: device 0 splits the batch: each device gets its slice
//
// The steps of one iteration are chips on the title line, the current one
// lit; each device shows its phase as a chip. While the step's collective
// runs, a packet on each arrow moves with its progress (tweened to the next
// instant), coloured by what it carries: the parameters, a device's slice
// of the batch or its outputs, gradients. A panel too short for the
// caption line says the step in its title instead.
#include "paint_ranks_internal.h" // defines: viz_paint_phase_chip

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *step;  // the marker's name (sim/strategy/dp.c)
    const char *chip;  // its name on the title line
    int dir;           // 1: device 0 sends; -1: device 0 collects
    const char *what;  // the caption
} HubStep;

static const HubStep steps[] = {
    {"dp.replicate", "replicate", 1, "device 0 copies the parameters to every device"},
    {"dp.scatter", "scatter", 1, "device 0 splits the batch: each device gets its slice"},
    {"dp.gather", "gather", -1, "the outputs come back to device 0, which computes the loss"},
    {"dp.scatter_grad", "scatter_grad", 1,
     "device 0 sends each device the gradient of its outputs"},
    {"dp.reduce", "reduce", -1,
     "the gradients are summed onto device 0, which alone steps the optimizer"},
};
enum { NSTEPS = sizeof steps / sizeof steps[0], MAX_SHOWN = 16 };

static int find_step(const char *name) {
    for (int i = 0; name && i < NSTEPS; i++)
        if (strcmp(steps[i].step, name) == 0)
            return i;
    return -1;
}

// What a packet of the step carries, by colour: the parameters, device
// k's slice of the batch or its outputs, gradients.
static VizRgba packet_colour(int step, int k) {
    switch (step) {
    case 0: return viz_mem_colour(SIM_MEM_PARAM);
    case 1:
    case 2: return viz_rank_colour(k);
    default: return viz_mem_colour(SIM_MEM_GRAD);
    }
}

// The chips of the five steps at the title line's right, the current lit;
// nothing when they do not fit after x_min. Returns where they start (the
// panel's right edge when there are none).
static double step_chips(VizPaint *p, VizBox b, double x_min, int cur) {
    double px = p->font_px * 0.8, gap = px * 0.5, total = 0, w[NSTEPS];
    for (int i = 0; i < NSTEPS; i++) {
        viz_gfx_text_size(&p->g, steps[i].chip, px, VIZ_FONT_SANS_BOLD, &w[i], NULL);
        w[i] += px * 1.2;
        total += w[i] + gap;
    }
    double x = b.x + b.w - p->cell_w - total + gap, start = x;
    if (x < x_min)
        return b.x + b.w;
    double h = round(px * 1.45), ymid = round(b.y + p->cell_h / 2 + 2);
    for (int i = 0; i < NSTEPS; i++) {
        VizRgba accent = viz_ink(VIZ_INK_TITLE);
        if (i == cur)
            viz_gfx_fill_round(p->g.cr, x, ymid - h / 2, w[i], h, h / 2, accent);
        viz_gfx_round_rect(p->g.cr, x + 0.5, ymid - h / 2 + 0.5, w[i] - 1, h - 1, h / 2);
        viz_gfx_set(p->g.cr, i == cur ? accent : viz_ink(VIZ_INK_FRAME));
        cairo_set_line_width(p->g.cr, 1);
        cairo_stroke(p->g.cr);
        viz_gfx_text_at(&p->g, x + w[i] / 2, ymid, steps[i].chip, px, VIZ_FONT_SANS_BOLD,
                        i == cur ? viz_ink(VIZ_INK_BACKGROUND) : viz_ink(VIZ_INK_DIM),
                        VIZ_ALIGN_CENTER, VIZ_VALIGN_MIDDLE);
        x += w[i] + gap;
    }
    return start;
}

// A device: a rounded box with its name and phase chip, side by side on
// one line, or the chip under the name when the box has two lines; the
// hub's border in the selected ink.
static void device(VizPaint *p, VizBox r, const char *name, VizPhase ph, int hub) {
    cairo_t *cr = p->g.cr;
    viz_gfx_fill_round(cr, r.x, r.y, r.w, r.h, 6, viz_ink(VIZ_INK_BACKGROUND));
    double lw = hub ? 2 : 1;
    viz_gfx_round_rect(cr, r.x + lw / 2, r.y + lw / 2, r.w - lw, r.h - lw, 6);
    viz_gfx_set(cr, hub ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_FRAME));
    cairo_set_line_width(cr, lw);
    cairo_stroke(cr);
    double px = p->font_px * (r.w < 110 ? 0.8 : 0.9), tw;
    viz_gfx_text_size(&p->g, name, px, VIZ_FONT_SANS_BOLD, &tw, NULL);
    double cpx = px * 0.85, chip = viz_paint_phase_chip_w(p, ph, cpx);
    VizRgba tc = hub ? viz_ink(VIZ_INK_SELECTED) : viz_ink(VIZ_INK_TEXT);
    if (r.h >= 1.8 * p->cell_h) {
        double ymid = round(r.y + r.h * 0.32);
        viz_gfx_text_at(&p->g, r.x + r.w / 2, ymid, name, px, VIZ_FONT_SANS_BOLD, tc,
                        VIZ_ALIGN_CENTER, VIZ_VALIGN_MIDDLE);
        if (chip <= r.w - 8)
            viz_paint_phase_chip(p, round(r.x + (r.w - chip) / 2), round(r.y + r.h * 0.7), ph,
                                 cpx, 0);
        return;
    }
    double ymid = round(r.y + r.h / 2);
    int with_chip = tw + chip + px * 0.5 <= r.w - 8;
    double x = r.x + (r.w - tw - (with_chip ? chip + px * 0.5 : 0)) / 2;
    if (x < r.x + 4)
        x = r.x + 4;
    x += viz_gfx_text_at(&p->g, x, ymid, name, px, VIZ_FONT_SANS_BOLD, tc, VIZ_ALIGN_LEFT,
                         VIZ_VALIGN_MIDDLE);
    if (with_chip)
        viz_paint_phase_chip(p, x + px * 0.5, ymid, ph, cpx, 0);
}

// A point at t (0..1) on the curve from a (the hub's bottom) to b (a
// replica's top): a cubic that leaves and arrives vertically.
static void curve_at(double ax, double ay, double bx, double by, double t, double *x,
                     double *y) {
    double my = (ay + by) / 2, s = 1 - t;
    *x = s * s * s * ax + 3 * s * s * t * ax + 3 * s * t * t * bx + t * t * t * bx;
    *y = s * s * s * ay + 3 * s * s * t * my + 3 * s * t * t * my + t * t * t * by;
}

static void arrow_head(cairo_t *cr, double x, double y, double dir, double size) {
    // dir +1 points down, -1 up
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x - size * 0.6, y - dir * size);
    cairo_line_to(cr, x + size * 0.6, y - dir * size);
    cairo_close_path(cr);
    cairo_fill(cr);
}

// The arrow between the hub's (ax, ay) and a replica's (bx, by); its head
// at the replica when the hub sends, at the hub when it collects; a packet
// at fraction f of the way (f < 0: none).
static void hub_link(VizPaint *p, double ax, double ay, double bx, double by, int dir, double f,
                 VizRgba packet, VizRgba ink) {
    cairo_t *cr = p->g.cr;
    double my = (ay + by) / 2, head = round(p->font_px * 0.55);
    double ey = dir > 0 ? by - head : by, sy = dir > 0 ? ay : ay + head;
    cairo_move_to(cr, ax, sy);
    cairo_curve_to(cr, ax, my, bx, my, bx, ey);
    viz_gfx_set(cr, ink);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
    if (dir > 0)
        arrow_head(cr, bx, by, 1, head);
    else
        arrow_head(cr, ax, ay, -1, head);
    if (f < 0)
        return;
    // the packet travels the middle of the curve, clear of both boxes
    double x, y, t = 0.15 + 0.7 * (dir > 0 ? f : 1 - f), r = round(p->font_px * 0.45);
    curve_at(ax, ay, bx, by, t, &x, &y);
    viz_gfx_fill_round(cr, x - r, y - r * 0.75, 2 * r, 1.5 * r, 2, packet);
    viz_gfx_round_rect(cr, x - r, y - r * 0.75, 2 * r, 1.5 * r, 2);
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
}

// The step's collective at the frame: its progress while it runs, tweened
// to the next instant's when the same one still runs then, else to its end
// (DataParallel's scatter and gather are sends and receives, one after the
// other, each over by the next instant); -1 when none runs.
static double step_progress(const VizPaint *p, const VizScene *s) {
    const VizColl *c = &s->coll;
    if (!c->active || !c->running)
        return -1;
    double f = c->progress;
    const VizScene *n = p->next;
    if (n && n->coll.active && n->coll.running && n->coll.seq == c->seq)
        f = viz_paint_tween(p, f, n->coll.progress);
    else if (n)
        f = viz_paint_tween(p, f, 1);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

static VizPhase phase_of(const VizScene *s, int q) {
    return s->ranks && q < s->nranks ? s->ranks[q].phase : VIZ_PHASE_IDLE;
}

static void caption(VizPaint *p, const VizScene *s, int st, VizBox r) {
    char t[200];
    if (st >= 0)
        snprintf(t, sizeof t, "%s: %s", steps[st].step, steps[st].what);
    else if (s->hub.step)
        snprintf(t, sizeof t, "%s", s->hub.step);
    else
        snprintf(t, sizeof t, "device 0 drives every step (no step yet)");
    double h;
    viz_gfx_text_size(&p->g, t, p->font_px * 0.9, VIZ_FONT_SANS, NULL, &h);
    viz_gfx_text_fit(&p->g, r.x + p->cell_w, r.y + (r.h - h) / 2, t, p->font_px * 0.9,
                     VIZ_FONT_SANS, viz_ink(VIZ_INK_CAPTION), r.w - 2 * p->cell_w);
}

// Device 0 and the replicas that fit (devices 1 .. shown), their links.
static void diagram(VizPaint *p, const VizScene *s, int st, VizBox d) {
    int others = s->nranks - 1;
    double min_w = 9 * p->cell_w, gap = p->cell_w;
    int fit = (int)((d.w - 2 * p->cell_w) / (min_w + gap));
    int shown = others < fit ? others : fit;
    if (shown > MAX_SHOWN)
        shown = MAX_SHOWN;
    double bh = round(d.h * 0.34 < 2.4 * p->cell_h ? d.h * 0.34 : 2.4 * p->cell_h);
    double hw = round(d.w * 0.3 > 24 * p->cell_w ? 24 * p->cell_w : d.w * 0.3);
    if (hw < 16 * p->cell_w)
        hw = 16 * p->cell_w;
    VizBox hub = {round(d.x + (d.w - hw) / 2), d.y, hw, bh};
    if (shown > 0) {
        double cw = floor((d.w - 2 * p->cell_w) / shown);
        double nw = cw - gap > 22 * p->cell_w ? 22 * p->cell_w : cw - gap;
        double f = step_progress(p, s);
        int dir = st >= 0 ? steps[st].dir : 0;
        VizRgba ink = st >= 0 ? viz_ink(VIZ_INK_TEXT) : viz_ink(VIZ_INK_FRAME);
        for (int i = 0; i < shown; i++) {
            double cx = round(d.x + p->cell_w + cw * i + cw / 2);
            VizBox rb = {round(cx - nw / 2), d.y + d.h - bh, round(nw), bh};
            if (dir != 0)
                hub_link(p, hub.x + hub.w * (i + 1) / (shown + 1), hub.y + hub.h, cx, rb.y, dir, f,
                     packet_colour(st, i + 1), ink);
            char name[24];
            snprintf(name, sizeof name, "device %d", i + 1);
            device(p, rb, name, phase_of(s, i + 1), 0);
        }
    }
    device(p, hub, "device 0 (hub)", phase_of(s, 0), 1);
    if (others > shown) {
        char more[32];
        snprintf(more, sizeof more, "+%d more", others - shown);
        viz_gfx_text_at(&p->g, d.x + d.w - p->cell_w, d.y + bh / 2, more, p->font_px * 0.85,
                        VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM), VIZ_ALIGN_RIGHT,
                        VIZ_VALIGN_MIDDLE);
    }
}

void viz_paint_hub(VizPaint *p, const VizScene *s, VizBox b) {
    if (b.w <= 0 || b.h <= 0 || !s->hub.active)
        return;
    viz_gfx_fill_round(p->g.cr, b.x, b.y, b.w, b.h, 6, viz_ink(VIZ_INK_PANEL));
    int st = find_step(s->hub.step);
    int with_caption = b.h >= 6.5 * p->cell_h;
    // the title: what the step does when there is no caption line for it
    char t[200];
    if (!with_caption && st >= 0)
        snprintf(t, sizeof t, "DataParallel: %s", steps[st].what);
    else
        snprintf(t, sizeof t, "DataParallel: device 0 drives every step");
    double tw, th;
    viz_gfx_text_size(&p->g, "DataParallel: device 0", p->font_px, VIZ_FONT_SANS_BOLD, &tw, &th);
    double chips = step_chips(p, b, b.x + p->cell_w * 2 + tw, st);
    viz_gfx_text_fit(&p->g, b.x + p->cell_w, b.y + p->cell_h / 2 + 2 - th / 2, t, p->font_px,
                     VIZ_FONT_SANS_BOLD, viz_ink(VIZ_INK_TITLE), chips - b.x - 2 * p->cell_w);
    double top = b.y + p->cell_h + 4, bottom = b.y + b.h - (with_caption ? p->cell_h : 0) - 4;
    if (bottom - top >= 2.5 * p->cell_h && s->nranks >= 1)
        diagram(p, s, st, (VizBox){b.x, top, b.w, bottom - top});
    if (with_caption)
        caption(p, s, st, (VizBox){b.x, b.y + b.h - p->cell_h - 2, b.w, p->cell_h});
}
