// viz/frame.c: one frame of an interactive view without the terminal: the
// scene at the player's cursor, laid out on w x h cells (the whole
// terminal, or a part of a host's screen), drawn onto a canvas (frame.h).
// Kept apart from the screen so that the frame benchmark times both halves.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

void viz_frame_init(VizFrame *f) {
    memset(f, 0, sizeof *f);
}

void viz_frame_free(VizFrame *f) {
    if (f->scene != NULL)
        viz_scene_free(f->scene);
    if (f->canvas.cells != NULL)
        viz_canvas_free(&f->canvas);
    memset(f, 0, sizeof *f);
}

// A blank w x h canvas in the wanted character set.
static SimStatus frame_canvas(VizFrame *f, int w, int h, int unicode) {
    VizCanvas *c = &f->canvas;
    if (c->cells == NULL)
        SIM_CHECK(viz_canvas_init(c, w, h, unicode));
    else if (c->w != w || c->h != h)
        SIM_CHECK(viz_canvas_resize(c, w, h));
    else
        viz_canvas_clear(c);
    c->unicode = unicode;
    return SIM_OK;
}

void viz_frame_message(VizCanvas *c, const char *text) {
    viz_canvas_clear(c);
    int n = 0;
    for (const char *s = text; *s;) {
        (void)viz_utf8_next(&s);
        n++;
    }
    int x = n < c->w ? (c->w - n) / 2 : 0;
    viz_canvas_text(c, x, c->h / 2, c->w - x, VIZ_STYLE_WARN, text);
}

// The status line alone on the bottom row (the waiting screen's).
static void frame_status_row(VizCanvas *c, const char *status) {
    VizRect r = {0, c->h - 1, c->w, 1};
    viz_canvas_fill(c, r, ' ', VIZ_STYLE_STATUS);
    viz_canvas_text(c, 1, c->h - 1, c->w - 2, VIZ_STYLE_STATUS, status);
}

// The frame, full screen (embed 0) or embedded in a host's screen.
static SimStatus frame_draw(VizFrame *f, VizModel *m, const VizPlayer *p, int w, int h,
                            int unicode, const char *lesson, int embed) {
    if (w < 1 || h < 1)
        return SIM_EINVAL;
    SIM_CHECK(frame_canvas(f, w, h, unicode));
    viz_player_status(p, f->status, sizeof f->status);
    int min_w = embed ? VIZ_EMBED_MIN_W : VIZ_MIN_W, min_h = embed ? VIZ_EMBED_MIN_H : VIZ_MIN_H;
    if (w < min_w || h < min_h) {
        f->ok = 0;
        snprintf(f->layout.why, sizeof f->layout.why, "%s is %dx%d; %s needs at least %dx%d",
                 embed ? "the view's pane" : "the terminal", w, h, embed ? "the view" : "ddplab",
                 min_w, min_h);
        viz_frame_message(&f->canvas, f->layout.why);
        return SIM_OK;
    }
    f->ok = 1;
    if (m == NULL || p->available == 0 || viz_model_count(m) == 0) {
        viz_frame_message(&f->canvas, "waiting for the run's first events ...");
        if (!embed)
            frame_status_row(&f->canvas, f->status);
        return SIM_OK;
    }
    if (f->scene == NULL || f->scene_model != m) {
        if (f->scene != NULL)
            viz_scene_free(f->scene);
        f->scene = viz_scene_new(m);
        f->scene_model = m;
        if (f->scene == NULL)
            return SIM_ENOMEM;
    }
    size_t i = viz_player_index(p);
    if (i >= viz_model_count(m))
        i = viz_model_count(m) - 1;
    // The lanes are as wide as the layout makes them, which the layout
    // learns from the scene: build the scene for last frame's width, and
    // once more when the layout chose another (the first frame, a resize).
    int cols = f->timeline_cols > 0 ? f->timeline_cols : w;
    for (int pass = 0; pass < 2; pass++) {
        VizSceneOpts so;
        viz_player_scene_opts(p, m, cols, &so);
        SIM_CHECK(viz_scene_at(m, i, &so, f->scene));
        if (embed)
            viz_layout_embed(f->scene, w, h, p->selected_rank, &f->layout);
        else
            viz_layout(f->scene, w, h, p->selected_rank, &f->layout);
        if (!f->layout.ok || f->layout.timeline_cols <= 0 || f->layout.timeline_cols == cols)
            break;
        cols = f->timeline_cols = f->layout.timeline_cols;
    }
    if (!f->layout.ok) {
        f->ok = 0;
        viz_frame_message(&f->canvas, f->layout.why);
        return SIM_OK;
    }
    VizDrawOpts d = {
        .status = f->status,
        .lesson = embed ? NULL : lesson,
        .selected_rank = p->selected_rank,
        .help = p->help,
        .text_mode = 0,
    };
    viz_draw(&f->canvas, &f->layout, f->scene, &d);
    return SIM_OK;
}

SimStatus viz_frame_draw(VizFrame *f, VizModel *m, const VizPlayer *p, int w, int h,
                         int unicode, const char *lesson) {
    return frame_draw(f, m, p, w, h, unicode, lesson, 0);
}

SimStatus viz_frame_draw_embed(VizFrame *f, VizModel *m, const VizPlayer *p, int w, int h,
                               int unicode) {
    return frame_draw(f, m, p, w, h, unicode, NULL, 1);
}
