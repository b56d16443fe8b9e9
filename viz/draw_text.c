// viz/draw_text.c: the words around the pictures: the narrative (lesson
// text, then "> " and the event's caption, then the event's detail lines,
// e.g. a run's diagnosis), the status line and the help overlay with the
// player's keys (viz/player.h).
#include "draw_internal.h"

#include <string.h>

#include "player.h" // defines: viz_player_help_keys

const char *const viz_default_status =
    "space play  n/p step  N/P iteration  ]/[ jump  k kind  +/- speed  r/R rank  t clock  "
    "z zoom  g go to  ? help  q quit";
// What the default says when the screen is narrow.
static const char *const status_short =
    "space play  n/p step  N/P iter  ]/[ jump  +/- speed  r/R rank  ? help  q quit";

// The caption wraps after "> ", two cells in; the lesson one cell in.
static int caption_lines(const VizScene *s, int w) {
    return s->caption[0] ? viz_wrap_lines(s->caption, w - 3) : 0;
}

// The detail wraps under the caption, at the same indent.
static int detail_lines(const VizScene *s, int w) {
    return s->detail && s->detail[0] ? viz_wrap_lines(s->detail, w - 3) : 0;
}

// What of the detail a narrative of `lines` lines at width w shows: all of
// it when it fits, else its last lines from the start of a line (a
// diagnosis ends with what matters most: who is missing and why), the last
// line alone (cut) when not even that fits.
static const char *detail_tail(const char *d, int w, int lines) {
    if (viz_wrap_lines(d, w) <= lines)
        return d;
    const char *fit = NULL, *last = NULL;
    size_t n = strlen(d);
    while (n > 0 && d[n - 1] == '\n')
        n--;
    for (size_t k = n; k > 0; k--) {
        if (d[k - 1] != '\n')
            continue;
        const char *p = d + k;
        if (last == NULL)
            last = p;
        if (viz_wrap_lines(p, w) > lines)
            break;
        fit = p;
    }
    return fit ? fit : last ? last : d;
}

int viz_narrative_lines(const VizScene *s, const char *lesson, int w) {
    int n = caption_lines(s, w) + detail_lines(s, w);
    if (lesson && *lesson)
        n += viz_wrap_lines(lesson, w - 2);
    return n;
}

void viz_draw_narrative(VizCanvas *c, VizRect r, const VizScene *s, const char *lesson) {
    if (r.h <= 0)
        return;
    // The caption has the last lines; the lesson what is above them; the
    // detail what is left below the caption (its last lines on a small
    // screen: the lesson and the caption come first).
    int cl = caption_lines(s, r.w);
    if (cl > r.h)
        cl = r.h;
    int ll = r.h - cl;
    if (lesson && *lesson && ll > 0)
        viz_canvas_wrap(c, (VizRect){r.x + 1, r.y, r.w - 2, ll}, VIZ_STYLE_NORMAL, lesson);
    else
        ll = 0;
    if (cl > 0) {
        int lesson_used = lesson && *lesson ? viz_wrap_lines(lesson, r.w - 2) : 0;
        if (lesson_used > ll)
            lesson_used = ll;
        int y = r.y + lesson_used;
        viz_canvas_put(c, r.x, y, '>', VIZ_STYLE_CAPTION);
        viz_canvas_wrap(c, (VizRect){r.x + 2, y, r.w - 3, cl}, VIZ_STYLE_CAPTION, s->caption);
        int dl = r.y + r.h - (y + cl);
        if (dl > 0 && detail_lines(s, r.w) > 0)
            viz_canvas_wrap(c, (VizRect){r.x + 2, y + cl, r.w - 3, dl}, VIZ_STYLE_NORMAL,
                            detail_tail(s->detail, r.w - 3, dl));
    }
}

void viz_draw_status(VizCanvas *c, VizRect r, const char *status) {
    if (r.h <= 0)
        return;
    viz_canvas_fill(c, (VizRect){r.x, r.y, r.w, 1}, ' ', VIZ_STYLE_STATUS);
    if (status == viz_default_status && viz_utf8_cells(status) > r.w - 2)
        status = status_short;
    char buf[512];
    int n = viz_elide(status ? status : "", r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y, n, VIZ_STYLE_STATUS, buf);
}

void viz_draw_help(VizCanvas *c) {
    int nkeys, n = 0;
    const VizHelpKey *keys = viz_player_help_keys(&nkeys);
    for (int i = 0; i < nkeys; i++)
        n += !keys[i].window_only; // the terminal has no mouse and no PNG key
    int w = 66, h = n + 4;
    if (w > c->w)
        w = c->w;
    if (h > c->h)
        h = c->h;
    VizRect r = {(c->w - w) / 2, (c->h - h) / 2, w, h};
    viz_canvas_fill(c, r, ' ', VIZ_STYLE_NORMAL);
    viz_canvas_box(c, r, VIZ_STYLE_TITLE, "ddplab keys");
    for (int i = 0, row = 0; i < nkeys && 2 + row < h - 1; i++) {
        if (keys[i].window_only)
            continue;
        int y = r.y + 2 + row++;
        viz_canvas_text(c, r.x + 3, y, 12, VIZ_STYLE_TITLE, keys[i].key);
        viz_canvas_text(c, r.x + 16, y, r.w - 18, VIZ_STYLE_NORMAL, keys[i].what);
    }
}
