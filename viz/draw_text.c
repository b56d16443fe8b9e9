// viz/draw_text.c: the words around the pictures: the narrative (lesson
// text, then "> " and the event's caption), the status line and the help
// overlay with the player's keys (viz/player.h).
#include "draw_internal.h"

#include <string.h>

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

int viz_narrative_lines(const VizScene *s, const char *lesson, int w) {
    int n = caption_lines(s, w);
    if (lesson && *lesson)
        n += viz_wrap_lines(lesson, w - 2);
    return n;
}

void viz_draw_narrative(VizCanvas *c, VizRect r, const VizScene *s, const char *lesson) {
    if (r.h <= 0)
        return;
    // The caption has the last lines; the lesson what is above them.
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
    static const char *const keys[][2] = {
        {"space", "play / pause"},
        {"n / p", "next / previous event"},
        {"N / P", "next / previous iteration"},
        {"] / [", "next / previous event of the chosen kind"},
        {"k", "choose that kind (bucket launch, all-gather, ...)"},
        {"+ / -", "faster / slower"},
        {"r / R", "next / previous rank"},
        {"t", "simulated / wall clock"},
        {"z", "zoom the timeline (iteration, 1/2, 1/4, ...)"},
        {"g", "go to: an event number or iN for iteration N, Enter"},
        {"Home / End", "first / last event"},
        {"?", "this help (any key closes it)"},
        {"q", "quit"},
    };
    int n = (int)(sizeof keys / sizeof keys[0]);
    int w = 66, h = n + 4;
    if (w > c->w)
        w = c->w;
    if (h > c->h)
        h = c->h;
    VizRect r = {(c->w - w) / 2, (c->h - h) / 2, w, h};
    viz_canvas_fill(c, r, ' ', VIZ_STYLE_NORMAL);
    viz_canvas_box(c, r, VIZ_STYLE_TITLE, "ddplab keys");
    for (int i = 0; i < n && 2 + i < h - 1; i++) {
        int y = r.y + 2 + i;
        viz_canvas_text(c, r.x + 3, y, 12, VIZ_STYLE_TITLE, keys[i][0]);
        viz_canvas_text(c, r.x + 16, y, r.w - 18, VIZ_STYLE_NORMAL, keys[i][1]);
    }
}
