// viz/view_sdl_frame.c: one frame of the SDL2 view. The scene at the
// cursor and the scene at the next instant of simulated time are built
// when the cursor's event changes, laid out on the virtual cells of the
// output's size, and painted (paint.h) into a cairo image surface at the
// cursor's fraction between the two instants. The window uploads that
// surface into a streaming texture; offscreen frames read it, or paint the
// same scenes onto an SVG or PDF surface.
#include "view_sdl_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"

SimStatus viz_sdl_view_init(VizSdlView *v, SDL_Renderer *ren, double scale, char *err,
                            size_t errlen) {
    (void)err;
    (void)errlen;
    memset(v, 0, sizeof *v);
    v->ren = ren;
    v->scale = scale > 0 ? scale : 1;
    v->cache = viz_paint_cache_new(); // without it frames are only slower
    return SIM_OK;
}

static void drop_surface(VizSdlView *v) {
    if (v->cr != NULL) {
        viz_paint_done(&v->paint);
        cairo_destroy(v->cr);
    }
    if (v->surf != NULL)
        cairo_surface_destroy(v->surf);
    if (v->tex != NULL)
        SDL_DestroyTexture(v->tex);
    v->cr = NULL;
    v->surf = NULL;
    v->tex = NULL;
}

void viz_sdl_view_free(VizSdlView *v) {
    if (v->scene)
        viz_scene_free(v->scene);
    if (v->next_scene)
        viz_scene_free(v->next_scene);
    drop_surface(v);
    viz_paint_cache_free(v->cache);
    memset(v, 0, sizeof *v);
}

SimStatus viz_sdl_view_resize(VizSdlView *v, int w, int h) {
    w = w < 1 ? 1 : w;
    h = h < 1 ? 1 : h;
    v->have_frame = v->have_next = 0;
    v->painted_ok = 0;
    if (v->surf != NULL && v->px_w == w && v->px_h == h)
        return SIM_OK;
    drop_surface(v);
    v->px_w = w;
    v->px_h = h;
    v->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(v->surf) != CAIRO_STATUS_SUCCESS) {
        drop_surface(v);
        return SIM_ENOMEM;
    }
    v->cr = cairo_create(v->surf);
    if (cairo_status(v->cr) != CAIRO_STATUS_SUCCESS ||
        viz_paint_init(&v->paint, v->cr, v->scale) != SIM_OK) {
        cairo_destroy(v->cr);
        v->cr = NULL;
        drop_surface(v);
        return SIM_ENOMEM;
    }
    v->paint.cache = v->cache;
    // RGB24 is one native 32-bit word a pixel, x R G B from the high byte:
    // SDL's RGB888 on every byte order.
    if (v->ren != NULL) {
        v->tex = SDL_CreateTexture(v->ren, SDL_PIXELFORMAT_RGB888, SDL_TEXTUREACCESS_STREAMING,
                                   w, h);
        if (v->tex == NULL) {
            drop_surface(v);
            return SIM_ENOMEM;
        }
    }
    int cols = (int)floor(w / v->paint.cell_w), rows = (int)floor(h / v->paint.cell_h);
    v->fits = cols >= VIZ_MIN_W && rows >= VIZ_MIN_H;
    // two columns of the timeline per cell: bars with a resolution finer
    // than the terminal's letters
    int tc = cols * 2;
    v->timeline_cols = tc < 1 ? 1 : tc > VIZ_TIMELINE_MAX_COLS ? VIZ_TIMELINE_MAX_COLS : tc;
    return SIM_OK;
}

int viz_sdl_view_cell_at(const VizSdlView *v, int x, int y, int *cx, int *cy) {
    if (x < 0 || y < 0 || v->surf == NULL || x >= v->px_w || y >= v->px_h)
        return 0;
    *cx = (int)floor(x / v->paint.cell_w);
    *cy = (int)floor(y / v->paint.cell_h);
    return 1;
}

static int same_drawn(const VizSdlDrawn *a, const VizSdlDrawn *b) {
    return a->index == b->index && a->count == b->count && a->available == b->available &&
           a->selected == b->selected && a->use_wall == b->use_wall && a->zoom == b->zoom &&
           a->timeline_cols == b->timeline_cols && a->w == b->w && a->h == b->h;
}

// The scene for `want`, rebuilt only when its inputs changed.
static SimStatus build(VizSdlView *v, VizModel *m, const VizPlayer *p, const VizSdlDrawn *want,
                       VizSdlDrawn *have, int *have_ok, VizScene **scene) {
    if (*have_ok && same_drawn(want, have))
        return SIM_OK;
    if (*scene == NULL && (*scene = viz_scene_new(m)) == NULL)
        return SIM_ENOMEM;
    VizSceneOpts so;
    viz_player_scene_opts(p, m, want->timeline_cols, &so);
    so.selected_rank = want->selected;
    SimStatus st = viz_scene_at(m, want->index, &so, *scene);
    if (st != SIM_OK) {
        *have_ok = 0;
        return st;
    }
    v->scenes_built++;
    *have = *want;
    *have_ok = 1;
    return SIM_OK;
}

static SimStatus build_scenes(VizSdlView *v, VizModel *m, const VizPlayer *p, size_t avail) {
    VizSdlDrawn want;
    memset(&want, 0, sizeof want);
    size_t i = viz_player_index(p);
    want.index = i < avail ? i : avail - 1;
    want.count = viz_model_count(m);
    want.available = avail;
    want.selected = p->selected_rank;
    want.use_wall = p->use_wall;
    want.zoom = p->zoom;
    want.timeline_cols = v->timeline_cols;
    want.w = v->px_w;
    want.h = v->px_h;
    // The cursor reached the instant the tweens were moving to: that scene
    // is the one wanted now, and the old one may become the next.
    if (v->have_next && same_drawn(&want, &v->next_drawn) &&
        !(v->have_frame && same_drawn(&want, &v->drawn))) {
        VizScene *t = v->scene;
        VizSdlDrawn d = v->drawn;
        int ok = v->have_frame;
        v->scene = v->next_scene;
        v->drawn = v->next_drawn;
        v->have_frame = 1;
        v->next_scene = t;
        v->next_drawn = d;
        v->have_next = ok;
    }
    SimStatus st = build(v, m, p, &want, &v->drawn, &v->have_frame, &v->scene);
    if (st != SIM_OK)
        return st;
    viz_paint_layout(&v->paint, v->scene, v->px_w, v->px_h, want.selected, &v->layout);
    double pos = p->pos < (double)want.index ? (double)want.index : p->pos;
    if (pos > (double)want.index + 1)
        pos = (double)want.index;
    v->instant = viz_sdl_instant(m, avail, pos);
    if (!v->instant.next_ok)
        return SIM_OK;
    VizSdlDrawn next = want;
    next.index = v->instant.b;
    return build(v, m, p, &next, &v->next_drawn, &v->have_next, &v->next_scene);
}

static int same_painted(const VizSdlPainted *a, const VizSdlPainted *b) {
    return same_drawn(&a->at, &b->at) && a->next_index == b->next_index && a->u == b->u &&
           a->help == b->help && a->lesson == b->lesson && strcmp(a->status, b->status) == 0 &&
           strcmp(a->message, b->message) == 0;
}

static void paint_scene(VizSdlView *v, VizPaint *pt, const VizPlayer *p, const char *lesson,
                        const char *status) {
    pt->next = v->instant.next_ok && v->have_next ? v->next_scene : NULL;
    pt->u = v->instant.next_ok ? v->instant.u : 0;
    VizDrawOpts d = {status, lesson, p->selected_rank, p->help, 0};
    viz_paint_frame(pt, v->scene, &v->layout, &d, v->px_w, v->px_h);
}

SimStatus viz_sdl_view_paint(VizSdlView *v, VizModel *m, const VizPlayer *p,
                             const char *lesson) {
    if (v->surf == NULL)
        return SIM_ENOMEM;
    VizSdlPainted want;
    memset(&want, 0, sizeof want);
    want.next_index = SIZE_MAX;
    size_t count = m ? viz_model_count(m) : 0;
    size_t avail = p->available < count ? p->available : count;
    if (!v->fits)
        snprintf(want.message, sizeof want.message,
                 "The window is %d x %d pixels. ddplab needs at least %.0f x %.0f: make the "
                 "window larger.", v->px_w, v->px_h, ceil(VIZ_MIN_W * v->paint.cell_w),
                 ceil(VIZ_MIN_H * VIZ_PAINT_CELL_H * v->scale));
    else if (avail == 0)
        snprintf(want.message, sizeof want.message, "%s",
                 v->message[0] ? v->message : "waiting for the run's first event ...");
    if (want.message[0]) {
        v->have_frame = v->have_next = 0;
    } else {
        SimStatus st = build_scenes(v, m, p, avail);
        if (st != SIM_OK)
            return st;
        want.at = v->drawn;
        if (v->instant.next_ok) {
            want.next_index = v->instant.b;
            want.u = v->instant.u;
        }
        want.help = p->help;
        want.lesson = lesson;
        viz_player_status(p, want.status, sizeof want.status);
    }
    if (v->painted_ok && same_painted(&want, &v->painted))
        return SIM_OK;
    if (want.message[0])
        viz_paint_message(&v->paint, v->px_w, v->px_h, want.message);
    else
        paint_scene(v, &v->paint, p, lesson, want.status);
    cairo_surface_flush(v->surf);
    v->painted = want;
    v->painted_ok = 1;
    v->paints++;
    return SIM_OK;
}

SimStatus viz_sdl_view_frame(VizSdlView *v, VizModel *m, const VizPlayer *p,
                             const char *lesson) {
    v->frames++;
    unsigned long before = v->paints;
    SimStatus st = viz_sdl_view_paint(v, m, p, lesson);
    if (st != SIM_OK)
        return st;
    if (v->ren == NULL || v->tex == NULL)
        return SIM_OK;
    if (v->paints != before || v->uploads == 0) {
        SDL_UpdateTexture(v->tex, NULL, cairo_image_surface_get_data(v->surf),
                          cairo_image_surface_get_stride(v->surf));
        v->uploads++;
    }
    SDL_RenderCopy(v->ren, v->tex, NULL, NULL);
    return SIM_OK;
}

SimStatus viz_sdl_view_paint_to(VizSdlView *v, cairo_t *cr, const VizPlayer *p,
                                const char *lesson) {
    VizPaint pt;
    if (viz_paint_init(&pt, cr, v->scale) != SIM_OK)
        return SIM_ENOMEM;
    pt.cell_h = v->paint.cell_h; // the cells the layout was made on
    if (v->have_frame) {
        char status[256];
        viz_player_status(p, status, sizeof status);
        paint_scene(v, &pt, p, lesson, status);
    } else {
        viz_paint_message(&pt, v->px_w, v->px_h, v->painted.message);
    }
    viz_paint_done(&pt);
    return SIM_OK;
}

SimStatus viz_sdl_view_image(const VizSdlView *v, VizImage *img, char *err, size_t errlen) {
    int w = v->px_w, h = v->px_h;
    img->w = img->h = 0;
    img->rgb = malloc((size_t)w * (size_t)h * 3);
    if (img->rgb == NULL || v->surf == NULL) {
        free(img->rgb);
        img->rgb = NULL;
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for a %d x %d image", w,
                               h);
    }
    const uint8_t *data = cairo_image_surface_get_data(v->surf);
    int stride = cairo_image_surface_get_stride(v->surf);
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * (size_t)stride);
        uint8_t *o = img->rgb + (size_t)y * (size_t)w * 3;
        for (int x = 0; x < w; x++) {
            o[3 * x] = (uint8_t)(row[x] >> 16);
            o[3 * x + 1] = (uint8_t)(row[x] >> 8);
            o[3 * x + 2] = (uint8_t)row[x];
        }
    }
    img->w = w;
    img->h = h;
    return SIM_OK;
}
