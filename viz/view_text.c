// viz/view_text.c: the text view. Frames of the same layout the terminal
// views draw, laid out at their natural height and written as plain lines
// (ASCII by default, so logs and CI read them), one at the start event
// when it is not the first (--at), one at each stop event after it and one
// at the last event. Nothing in a frame depends on the wall clock, so
// the output of a run is reproducible, live or replayed.
#include "draw_internal.h"
#include "views.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void viz_view_opts_default(VizViewOpts *o) {
    memset(o, 0, sizeof *o);
    o->stops = VIZ_JUMP_ITERATION;
}

enum { LABEL_COLS = 11 }; // columns left of the timeline lanes at any width

// One frame of event i into out, reusing scene s.
static SimStatus frame(VizModel *m, VizScene *s, size_t i, int width, int unicode,
                       const char *lesson, FILE *out) {
    VizSceneOpts so = viz_scene_opts_default();
    int cols = width - LABEL_COLS;
    so.timeline_cols = cols > VIZ_TIMELINE_MAX_COLS ? VIZ_TIMELINE_MAX_COLS : cols;
    SimStatus st = viz_scene_at(m, i, &so, s);
    if (st != SIM_OK)
        return st;
    VizLayout l;
    if (!viz_layout(s, width, 0, so.selected_rank, &l))
        return SIM_EINVAL;
    if (l.timeline_cols > 0 && l.timeline_cols != so.timeline_cols &&
        l.timeline_cols <= VIZ_TIMELINE_MAX_COLS) {
        // The layout's lanes differ from the guess: ask for exactly them.
        so.timeline_cols = l.timeline_cols;
        st = viz_scene_at(m, i, &so, s);
        if (st != SIM_OK)
            return st;
        viz_layout(s, width, 0, so.selected_rank, &l);
    }
    // The lesson goes above the caption, in lines the layout did not know of.
    int extra = lesson && *lesson ? viz_wrap_lines(lesson, width - 2) : 0;
    l.narrative.h += extra;
    l.h += extra;
    VizCanvas c;
    st = viz_canvas_init(&c, width, l.h, unicode);
    if (st != SIM_OK)
        return st;
    VizDrawOpts d = {.lesson = lesson, .selected_rank = so.selected_rank, .text_mode = 1};
    viz_draw(&c, &l, s, &d);
    long n = viz_canvas_write(&c, out);
    viz_canvas_free(&c);
    return n < 0 ? SIM_EIO : SIM_OK;
}

SimStatus viz_text_frame(VizModel *m, size_t i, int width, int unicode, const char *lesson,
                         FILE *out) {
    if (!m || !out || i >= viz_model_count(m))
        return SIM_EINVAL;
    if (width == 0)
        width = 120;
    if (width < VIZ_MIN_W)
        return SIM_EINVAL;
    VizScene *s = viz_scene_new(m);
    if (!s)
        return SIM_ENOMEM;
    SimStatus st = frame(m, s, i, width, unicode, lesson, out);
    viz_scene_free(s);
    return st;
}

static int is_stop(const VizModel *m, size_t i, unsigned mask) {
    for (int k = 0; k < VIZ_JUMP_COUNT; k++)
        if ((mask >> k & 1u) && viz_model_is(m, i, (VizJump)k))
            return 1;
    return 0;
}

static void rule(FILE *out, int width, int unicode) {
    for (int k = 0; k < width; k++)
        fputs(unicode ? "\xe2\x94\x80" : "-", out);
    fputc('\n', out);
}

SimStatus viz_text_run(VizSource *src, const VizViewOpts *o, FILE *out, char *err,
                       size_t errlen) {
    VizViewOpts def;
    if (!o) {
        viz_view_opts_default(&def);
        o = &def;
    }
    if (errlen)
        err[0] = '\0';
    int width = o->width > 0 ? o->width : 120;
    if (width < VIZ_MIN_W) {
        snprintf(err, errlen, "the width is %d; ddplab needs at least %d columns", width,
                 VIZ_MIN_W);
        return SIM_EINVAL;
    }
    unsigned mask = o->stop_mask ? o->stop_mask : 1u << (unsigned)o->stops;
    VizScene *s = NULL;
    size_t next = o->start, last = SIZE_MAX;
    int frames = 0;
    SimStatus st = SIM_OK;
    for (;;) {
        // Done before the poll: that poll pulls everything there will be.
        int done = !src->live || viz_live_done(src->live);
        int changed = viz_source_poll(src);
        // A live run is drained to its end before any frame: an event can
        // still arrive ahead of ones already indexed (a rank records a
        // collective when it ends, at the time it began), and a frame drawn
        // too early would miss it. So the frames are those a replay of the
        // same run gives.
        if (src->model && done) {
            if (!s && !(s = viz_scene_new(src->model))) {
                st = SIM_ENOMEM;
                break;
            }
            size_t count = viz_model_count(src->model);
            for (; next < count && st == SIM_OK; next++) {
                // where the caller asked to open (--at) is shown even when
                // it is not a stop
                if (!is_stop(src->model, next, mask) && !(next == o->start && next > 0))
                    continue;
                if (frames++)
                    rule(out, width, o->unicode);
                st = frame(src->model, s, next, width, o->unicode, o->lesson, out);
                last = next;
            }
            if (st != SIM_OK)
                break;
        }
        if (done && !changed)
            break;
        if (!changed) {
            struct timespec ts = {0, 10 * 1000 * 1000}; // a live run: wait for events
            nanosleep(&ts, NULL);
        }
    }
    if (st == SIM_OK) {
        size_t count = src->model ? viz_model_count(src->model) : 0;
        if (count == 0) {
            snprintf(err, errlen, "%s: no events to show",
                     src->trace && src->trace->source[0] ? src->trace->source : "trace");
            st = SIM_EINVAL;
        } else if (last != count - 1 && o->start < count) {
            if (frames++)
                rule(out, width, o->unicode);
            st = frame(src->model, s, count - 1, width, o->unicode, o->lesson, out);
        }
    }
    if (st != SIM_OK && errlen && !err[0])
        snprintf(err, errlen, "text view: %s", sim_strerror(st));
    if (s)
        viz_scene_free(s);
    return st;
}
