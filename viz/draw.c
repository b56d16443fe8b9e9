// viz/draw.c: viz_draw, which hands each panel of a layout to its drawer
// (draw_*.c), and the header line.
#include "draw_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// The header's right part: where the cursor stands, in the longest of its
// forms that leaves `room` cells; the parts go from the end (the loss, the
// clock, the event), the iteration stays. Returns its cells.
static int header_right(const VizScene *s, int room, char *out, size_t len) {
    char t[32], it[32], ev[64], loss[32] = "";
    viz_fmt_time(s->now, t, sizeof t);
    // Iterations counted from 0, as the trace, the captions and `--at iN`
    // count them; the range says how many there are.
    if (s->iterations <= 0)
        snprintf(it, sizeof it, "iter -");
    else if (s->iteration >= 0)
        snprintf(it, sizeof it, "iter %d (0-%d)", s->iteration, s->iterations - 1);
    else
        snprintf(it, sizeof it, "iter - (0-%d)", s->iterations - 1);
    snprintf(ev, sizeof ev, "event %zu/%zu", s->index, s->count);
    if (!isnan(s->loss))
        snprintf(loss, sizeof loss, "  loss %.4g", s->loss);
    for (int parts = 4; parts > 1; parts--) {
        snprintf(out, len, "%s  %s%s%s%s", it, ev, parts > 2 ? "  t=" : "", parts > 2 ? t : "",
                 parts > 3 ? loss : "");
        if (viz_utf8_cells(out) <= room)
            return viz_utf8_cells(out);
    }
    snprintf(out, len, "%s", it);
    return viz_utf8_cells(out);
}

void viz_draw_header(VizCanvas *c, const VizLayout *l, const VizScene *s) {
    VizRect r = l->header;
    if (r.h <= 0)
        return;
    // Left part: what the run is (the title, elided first, then the hardware
    // profile); right part: where the cursor stands. On a narrow view the
    // right part sheds its tail rather than leave the title under TITLE_MIN.
    enum { TITLE_MIN = 12 };
    const SimTraceInfo *info = s->info;
    char title[200], prof[80] = "";
    if (info && info->title[0])
        snprintf(title, sizeof title, "%s", info->title);
    else
        snprintf(title, sizeof title, "R=%d", s->nranks);
    if (info && info->profile[0])
        snprintf(prof, sizeof prof, "  [%s]", info->profile);
    int x = r.x + 1;
    x += viz_canvas_text(c, x, r.y, 6, VIZ_STYLE_TITLE, "ddplab");
    x += 2;
    int tmin = viz_utf8_cells(title) < TITLE_MIN ? viz_utf8_cells(title) : TITLE_MIN;
    char right[256];
    int rw = header_right(s, r.x + r.w - 1 - 2 - x - tmin, right, sizeof right);
    int pw = viz_utf8_cells(prof);
    int room = r.x + r.w - 1 - rw - 2 - x;
    if (pw > room / 2)
        pw = 0; // a narrow screen keeps the title rather than the profile
    char buf[200];
    int lw = viz_elide(title, room - pw, buf, sizeof buf);
    viz_canvas_text(c, x, r.y, lw, VIZ_STYLE_NORMAL, buf);
    if (pw)
        viz_canvas_text(c, x + lw, r.y, pw, VIZ_STYLE_DIM, prof);
    viz_canvas_text(c, r.x + r.w - 1 - rw, r.y, rw, VIZ_STYLE_NORMAL, right);
}

void viz_draw(VizCanvas *c, const VizLayout *l, const VizScene *s, const VizDrawOpts *o) {
    viz_canvas_clear(c);
    if (!l->ok) {
        int n = viz_utf8_cells(l->why);
        viz_canvas_text(c, (c->w - n) / 2 > 0 ? (c->w - n) / 2 : 0, c->h / 2, -1, VIZ_STYLE_WARN,
                        l->why);
        return;
    }
    int sel = o ? o->selected_rank : 0;
    if (sel < 0 || sel >= s->nranks)
        sel = 0;
    viz_draw_header(c, l, s);
    viz_draw_ranks(c, l, s, sel);
    viz_draw_buckets(c, l->buckets, s);
    viz_draw_coll(c, l, s, sel);
    viz_draw_shards(c, l->shards, s, sel);
    viz_draw_hub(c, l->hub, s);
    viz_draw_timeline(c, l, s, sel);
    viz_draw_narrative(c, l->narrative, s, o ? o->lesson : NULL);
    if (!o || !o->text_mode) {
        viz_draw_status(c, l->status, o && o->status ? o->status : viz_default_status);
        if (o && o->help)
            viz_draw_help(c);
    }
}
