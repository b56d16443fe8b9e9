// viz/paint.c: the frame. The scene is laid out on virtual cells
// (layout.h) so the painted picture keeps the terminal's arrangement; each
// panel then paints its pixel box with shapes and real text. This file
// paints the frame's own parts: background, header, narrative, legend,
// status line and help overlay.
#include "paint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "player.h"        // defines: viz_player_help_keys
#include "draw_internal.h" // defines: viz_fmt_time, viz_default_status

VizBox viz_paint_box(const VizPaint *p, VizRect r) {
    return (VizBox){r.x * p->cell_w, r.y * p->cell_h, r.w * p->cell_w, r.h * p->cell_h};
}

double viz_paint_tween(const VizPaint *p, double a, double b) {
    return p->next != NULL ? a + (b - a) * p->u : a;
}

double viz_paint_now(const VizPaint *p, const VizScene *s) {
    return p->next != NULL ? viz_paint_tween(p, s->now, p->next->now) : s->now;
}

SimStatus viz_paint_init(VizPaint *p, cairo_t *cr, double scale) {
    memset(p, 0, sizeof *p);
    if (!(scale > 0))
        scale = 1;
    p->cell_w = VIZ_PAINT_CELL_W * scale;
    p->cell_h = VIZ_PAINT_CELL_H * scale;
    p->font_px = VIZ_PAINT_FONT_PX * scale;
    p->scale = scale;
    return viz_gfx_init(&p->g, cr);
}

void viz_paint_done(VizPaint *p) {
    viz_gfx_done(&p->g);
}

int viz_paint_layout(VizPaint *p, const VizScene *s, int w, int h, int selected,
                     VizLayout *l) {
    double base = VIZ_PAINT_CELL_H * p->scale;
    int cols = (int)floor(w / p->cell_w), rows = (int)floor(h / base);
    cols = cols > 1 ? cols : 1;
    rows = rows > 1 ? rows : 1;
    p->cell_h = base;
    // the rows the panels want at their largest, with the status line and
    // two lines of narrative (not the caption's own: it changes every event)
    if (rows >= VIZ_MIN_H && viz_layout(s, cols, 0, selected, l)) {
        int want = l->h - l->narrative.h + 3;
        want = want > VIZ_MIN_H ? want : VIZ_MIN_H;
        want = want > p->rows_wanted ? want : p->rows_wanted;
        p->rows_wanted = want;
        if (want < rows) {
            double ch = h / (double)want;
            p->cell_h = ch < base * 1.5 ? ch : base * 1.5;
            rows = (int)floor(h / p->cell_h);
        }
    }
    return viz_layout(s, cols, rows, selected, l);
}

// The title takes the panel's first cell row, as the terminal's does, so
// that the rows the layout counted for the rest are there.
VizBox viz_paint_panel_inner(const VizPaint *p, VizBox b, int titled) {
    double m = 1, pad = p->font_px * 0.6, top = titled ? p->cell_h : p->cell_h * 0.25;
    VizBox c = {b.x + m + pad, b.y + top, b.w - 2 * m - 2 * pad, b.h - top - m - 2};
    c.w = c.w < 0 ? 0 : c.w;
    c.h = c.h < 0 ? 0 : c.h;
    return c;
}

VizBox viz_paint_panel(VizPaint *p, VizBox b, const char *title) {
    cairo_t *cr = p->g.cr;
    double m = 1; // a gap between neighbouring panels
    VizBox in = {b.x + m, b.y + m, b.w - 2 * m, b.h - 2 * m};
    if (in.w <= 0 || in.h <= 0)
        return (VizBox){b.x, b.y, 0, 0};
    viz_gfx_fill_round(cr, in.x, in.y, in.w, in.h, 6, viz_ink(VIZ_INK_PANEL));
    viz_gfx_round_rect(cr, in.x + 0.5, in.y + 0.5, in.w - 1, in.h - 1, 6);
    viz_gfx_set(cr, viz_ink(VIZ_INK_FRAME));
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    double pad = p->font_px * 0.6;
    int titled = title != NULL && title[0];
    if (titled)
        viz_gfx_text_fit(&p->g, in.x + pad, b.y + (p->cell_h - p->font_px * 1.2) / 2 + 1, title,
                         p->font_px, VIZ_FONT_SANS_BOLD, viz_ink(VIZ_INK_TITLE), in.w - 2 * pad);
    return viz_paint_panel_inner(p, b, titled);
}

// ---------------------------------------------------------------------------
// Text that wraps: the reused layout, set to a width for one string.

static double wrap_text(VizPaint *p, double x, double y, double w, double maxh,
                        const char *utf8, double px, VizFont f, VizRgba c) {
    if (w <= 0 || maxh <= 0 || utf8 == NULL || !utf8[0])
        return 0;
    viz_gfx_text_size(&p->g, utf8, px, f, NULL, NULL); // sets the font and the text
    PangoLayout *lay = p->g.layout;
    pango_layout_set_width(lay, (int)(w * PANGO_SCALE));
    pango_layout_set_wrap(lay, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_height(lay, (int)(maxh * PANGO_SCALE));
    pango_layout_set_ellipsize(lay, PANGO_ELLIPSIZE_END);
    int pw, ph;
    pango_layout_get_pixel_size(lay, &pw, &ph);
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, c);
    cairo_move_to(cr, x, y);
    pango_cairo_update_layout(cr, lay);
    pango_cairo_show_layout(cr, lay);
    pango_layout_set_height(lay, -1); // the next string is one line again
    pango_layout_set_width(lay, -1);
    return ph;
}

// ---------------------------------------------------------------------------
// Header: what the run is on the left, where the cursor stands on the right.

static void paint_header(VizPaint *p, const VizScene *s, VizBox b) {
    if (b.h <= 0)
        return;
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, viz_ink(VIZ_INK_PANEL));
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_fill(cr);
    double px = p->font_px, my = b.y + b.h / 2, x = b.x + px * 0.7;
    x += viz_gfx_text_at(&p->g, x, my, "ddplab", px * 1.1, VIZ_FONT_SANS_BOLD,
                         viz_ink(VIZ_INK_TITLE), VIZ_ALIGN_LEFT, VIZ_VALIGN_MIDDLE);
    x += px;
    char right[160], t[32], loss[40] = "";
    viz_fmt_time(viz_paint_now(p, s), t, sizeof t);
    if (!isnan(s->loss))
        snprintf(loss, sizeof loss, "   loss %.4g", s->loss);
    if (s->iterations <= 0)
        snprintf(right, sizeof right, "event %zu / %zu   t = %s%s", s->index, s->count, t, loss);
    else if (s->iteration < 0) // before the first iteration's marker
        snprintf(right, sizeof right, "iteration - (0-%d)   event %zu / %zu   t = %s%s",
                 s->iterations - 1, s->index, s->count, t, loss);
    else // as the terminal's header counts them
        snprintf(right, sizeof right, "iteration %d (0-%d)   event %zu / %zu   t = %s%s",
                 s->iteration, s->iterations - 1, s->index, s->count, t, loss);
    double rw = 0;
    viz_gfx_text_size(&p->g, right, px, VIZ_FONT_MONO, &rw, NULL);
    viz_gfx_text_at(&p->g, b.x + b.w - px * 0.7, my, right, px, VIZ_FONT_MONO,
                    viz_ink(VIZ_INK_TEXT), VIZ_ALIGN_RIGHT, VIZ_VALIGN_MIDDLE);
    char title[260];
    const SimTraceInfo *info = s->info;
    int named = info != NULL && info->title[0] != '\0';
    int prof = info != NULL && info->profile[0] != '\0';
    if (named)
        snprintf(title, sizeof title, "%s%s%s", info->title, prof ? "   " : "",
                 prof ? info->profile : "");
    else
        snprintf(title, sizeof title, "R = %d%s%s", s->nranks, prof ? "   " : "",
                 prof ? info->profile : "");
    double room = b.x + b.w - px * 0.7 - rw - px * 1.5 - x;
    if (room > px * 3) {
        viz_gfx_text_size(&p->g, title, px, VIZ_FONT_SANS, NULL, NULL);
        viz_gfx_text_fit(&p->g, x, my - px * 0.62, title, px, VIZ_FONT_SANS,
                         viz_ink(VIZ_INK_TEXT), room);
    }
}

// ---------------------------------------------------------------------------
// Narrative: the lesson, then the event's caption, then its detail.

static void paint_narrative(VizPaint *p, const VizScene *s, VizBox b, const char *lesson) {
    if (b.h <= 0)
        return;
    double px = p->font_px, pad = px * 0.7, y = b.y + 2, w = b.w - 2 * pad - px * 1.4;
    double bottom = b.y + b.h;
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, viz_rgba_alpha(viz_ink(VIZ_INK_PANEL), 0.6));
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_fill(cr);
    if (lesson && lesson[0])
        y += wrap_text(p, b.x + pad, y, b.w - 2 * pad, bottom - y - px * 1.4, lesson, px,
                       VIZ_FONT_SANS, viz_ink(VIZ_INK_TEXT)) + 2;
    if (s->caption[0] && bottom - y > px) {
        // a caret like the terminal's "> ", as a small triangle
        double cy = y + px * 0.62;
        cairo_move_to(cr, b.x + pad, cy - px * 0.35);
        cairo_line_to(cr, b.x + pad + px * 0.55, cy);
        cairo_line_to(cr, b.x + pad, cy + px * 0.35);
        cairo_close_path(cr);
        viz_gfx_set(cr, viz_ink(VIZ_INK_CAPTION));
        cairo_fill(cr);
        y += wrap_text(p, b.x + pad + px * 1.4, y, w, bottom - y, s->caption, px,
                       VIZ_FONT_SANS_BOLD, viz_ink(VIZ_INK_CAPTION)) + 2;
    }
    if (s->detail && s->detail[0] && bottom - y > px)
        wrap_text(p, b.x + pad + px * 1.4, y, w, bottom - y, s->detail, px * 0.92, VIZ_FONT_MONO,
                  viz_ink(VIZ_INK_DIM));
}

// ---------------------------------------------------------------------------
// Status line: the player's state and keys on the left, the phases' colours
// on the right when there is room.

// The phases' colours at the right of the status line, when they fit in
// `room` pixels there. Returns the width used (0: not drawn).
static double paint_legend(VizPaint *p, VizBox b, double room) {
    static const VizPhase ph[] = {VIZ_PHASE_FORWARD, VIZ_PHASE_BACKWARD, VIZ_PHASE_OPTIMIZER,
                                  VIZ_PHASE_COMM, VIZ_PHASE_WAIT, VIZ_PHASE_IDLE};
    static const char *const names[] = {"forward", "backward", "optimizer", "communication",
                                        "waiting", "idle"};
    double px = p->font_px * 0.92, sw = px * 0.8, gap = px * 0.9;
    double total = 0;
    for (size_t k = 0; k < sizeof ph / sizeof ph[0]; k++) {
        double tw;
        viz_gfx_text_size(&p->g, names[k], px, VIZ_FONT_SANS, &tw, NULL);
        total += sw + px * 0.35 + tw + gap;
    }
    if (total > room)
        return 0;
    double x = b.x + b.w - total, my = b.y + b.h / 2;
    for (size_t k = 0; k < sizeof ph / sizeof ph[0]; k++) {
        viz_gfx_fill_round(p->g.cr, x, my - sw / 2, sw, sw, 2, viz_phase_colour(ph[k]));
        x += sw + px * 0.35;
        x += viz_gfx_text_at(&p->g, x, my, names[k], px, VIZ_FONT_SANS, viz_ink(VIZ_INK_DIM),
                             VIZ_ALIGN_LEFT, VIZ_VALIGN_MIDDLE) + gap;
    }
    return total;
}

static void paint_status(VizPaint *p, VizBox b, const char *status) {
    if (b.h <= 0)
        return;
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, viz_ink(VIZ_INK_PANEL));
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_fill(cr);
    double px = p->font_px * 0.92, pad = p->font_px * 0.7, sw = 0;
    status = status ? status : "";
    viz_gfx_text_size(&p->g, status, px, VIZ_FONT_MONO, &sw, NULL);
    // the keys come first: the legend only where they leave room
    double legend = paint_legend(p, b, b.w - 2 * pad - sw - p->font_px * 2);
    viz_gfx_text_fit(&p->g, b.x + pad, b.y + (b.h - px * 1.2) / 2, status, px, VIZ_FONT_MONO,
                     viz_ink(VIZ_INK_TEXT), b.w - 2 * pad - legend);
}

// ---------------------------------------------------------------------------
// Help: the keys of player.h on a card over the frame.

static void paint_help(VizPaint *p, int w, int h) {
    int n;
    const VizHelpKey *keys = viz_player_help_keys(&n);
    double px = p->font_px, line = px * 1.55;
    double cw = px * 36, ch = line * (n + 2.2);
    cw = cw < w - 20 ? cw : w - 20;
    ch = ch < h - 20 ? ch : h - 20;
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, viz_rgba_alpha(viz_ink(VIZ_INK_BACKGROUND), 0.55));
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    VizBox card = {(w - cw) / 2, (h - ch) / 2, cw, ch};
    viz_gfx_fill_round(cr, card.x, card.y, card.w, card.h, 10, viz_ink(VIZ_INK_PANEL));
    viz_gfx_round_rect(cr, card.x + 0.5, card.y + 0.5, card.w - 1, card.h - 1, 10);
    viz_gfx_set(cr, viz_ink(VIZ_INK_TITLE));
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
    viz_gfx_text(&p->g, card.x + px * 1.2, card.y + px * 0.8, "ddplab keys", px * 1.15,
                 VIZ_FONT_SANS_BOLD, viz_ink(VIZ_INK_TITLE), VIZ_ALIGN_LEFT);
    for (int k = 0; k < n; k++) {
        double y = card.y + line * (k + 1.6);
        if (y + line > card.y + card.h)
            break;
        viz_gfx_text(&p->g, card.x + px * 1.2, y, keys[k].key, px, VIZ_FONT_MONO_BOLD,
                     viz_ink(VIZ_INK_SELECTED), VIZ_ALIGN_LEFT);
        viz_gfx_text_fit(&p->g, card.x + px * 9.5, y, keys[k].what, px, VIZ_FONT_SANS,
                         viz_ink(VIZ_INK_TEXT), card.w - px * 10.5);
    }
}

// ---------------------------------------------------------------------------

void viz_paint_message(VizPaint *p, int w, int h, const char *msg) {
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_paint(cr);
    double px = p->font_px * 1.1, mw = w * 0.8;
    wrap_text(p, (w - mw) / 2, h / 2.0 - px * 2, mw, h / 2.0, msg ? msg : "", px,
              VIZ_FONT_SANS, viz_ink(VIZ_INK_WARN));
}

void viz_paint_frame(VizPaint *p, const VizScene *s, const VizLayout *l, const VizDrawOpts *o,
                     int w, int h) {
    if (!l->ok) {
        viz_paint_message(p, w, h, l->why);
        return;
    }
    cairo_t *cr = p->g.cr;
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_paint(cr);
    int sel = o ? o->selected_rank : 0;
    p->selected_rank = sel >= 0 && sel < s->nranks ? sel : 0;
    // The next instant only tweens a scene of the same shape.
    if (p->next != NULL && p->next->nranks != s->nranks)
        p->next = NULL;
    paint_header(p, s, viz_paint_box(p, l->header));
    viz_paint_ranks(p, s, l);
    viz_paint_buckets(p, s, viz_paint_box(p, l->buckets));
    viz_paint_coll(p, s, l, viz_paint_box(p, l->coll));
    viz_paint_shards(p, s, viz_paint_box(p, l->shards));
    viz_paint_hub(p, s, viz_paint_box(p, l->hub));
    viz_paint_timeline(p, s, viz_paint_box(p, l->timeline));
    paint_narrative(p, s, viz_paint_box(p, l->narrative), o ? o->lesson : NULL);
    if (!o || !o->text_mode) {
        paint_status(p, viz_paint_box(p, l->status),
                     o && o->status ? o->status : viz_default_status);
        if (o && o->help)
            paint_help(p, w, h);
    }
}
