// viz/view_sdl.c: the SDL2 view: a resizable window that animates the scene
// painted with cairo (view_sdl_frame.c, paint.h), and the same picture
// drawn offscreen into a PNG or SVG file (viz_sdl_png: no display).
//
// Keys and mouse: view_sdl_input.c. s saves the frame shown as
// ddplab-frame-NNNNNN.png in the working directory.
//
// Presents are vsync'd where the renderer can; where they do not wait
// (software, the dummy driver) frames are paced to 60 per second. A paused
// view with nothing changing draws nothing and waits for input.
//
// Test hook: DDPLAB_SDL_QUIT_AFTER=N quits after N frames drawn (with
// SDL_VIDEODRIVER=dummy the loop then runs without a display).
#include "view_sdl_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"

static const char no_display[] = "cannot open a window: there is no display (DISPLAY and "
                                 "WAYLAND_DISPLAY are unset, and SDL_VIDEODRIVER names no "
                                 "driver)";
static const char try_instead[] = "--viz ncurses shows the same view in the terminal, and "
                                  "--png FILE draws a frame without a display";

int viz_sdl_available(void) {
    return 1;
}

// ---------------------------------------------------------------------------
// The window

static const char *drivers_named(void) {
    const char *d = SDL_getenv("SDL_VIDEODRIVER");
    return d && d[0] ? d : NULL;
}

static SDL_Renderer *make_renderer(SDL_Window *win) {
    static const Uint32 tries[] = {
        SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC | SDL_RENDERER_TARGETTEXTURE,
        SDL_RENDERER_PRESENTVSYNC,
        0,
        SDL_RENDERER_SOFTWARE,
    };
    for (size_t k = 0; k < sizeof tries / sizeof tries[0]; k++) {
        SDL_Renderer *r = SDL_CreateRenderer(win, -1, tries[k]);
        if (r != NULL)
            return r;
    }
    return NULL;
}

SimStatus viz_sdl_app_resize(VizSdlApp *a) {
    int ow = 0, oh = 0, ww = 0, wh = 0;
    SDL_GetRendererOutputSize(a->ren, &ow, &oh);
    SDL_GetWindowSize(a->win, &ww, &wh);
    a->scale = ww > 0 ? (float)ow / (float)ww : 1.0f;
    a->dirty = 1;
    return viz_sdl_view_resize(&a->view, ow, oh);
}

static void set_speed(VizPlayer *p, const VizModel *m, double want) {
    // The player's speeds are a table behind + and -: walk to the nearest.
    for (int k = 0; k < 64 && viz_player_speed(p) < want * 0.999; k++) {
        double before = viz_player_speed(p);
        viz_player_key(p, m, '+');
        if (viz_player_speed(p) <= before)
            break;
        if (viz_player_speed(p) > want * 1.001 && viz_player_speed(p) - want > want - before) {
            viz_player_key(p, m, '-');
            break;
        }
    }
    for (int k = 0; k < 64 && viz_player_speed(p) > want * 1.001; k++) {
        double before = viz_player_speed(p);
        viz_player_key(p, m, '-');
        if (viz_player_speed(p) >= before)
            break;
        if (viz_player_speed(p) < want * 0.999 && want - viz_player_speed(p) > before - want) {
            viz_player_key(p, m, '+');
            break;
        }
    }
    p->message[0] = '\0';
}

// The player, once the model exists (at once in a replay; at the first
// event of a live run).
static void setup_player(VizSdlApp *a) {
    VizSource *src = a->src;
    if (a->player_ready || src->model == NULL)
        return;
    VizPlayer *p = &a->player;
    viz_player_init(p, src->settled, src->trace->nranks);
    viz_player_suggest_jump(p, src->model);
    p->available = src->settled;
    p->live_done = src->live ? viz_live_done(src->live) : 1;
    size_t start = a->opts.start;
    if (p->available > 0 && start >= p->available)
        start = p->available - 1;
    p->pos = (double)start;
    if (a->opts.speed > 0)
        set_speed(p, src->model, a->opts.speed);
    p->playing = a->opts.autoplay;
    a->player_ready = 1;
    a->dirty = 1;
}

SimStatus viz_sdl_app_open(VizSdlApp *a, VizSource *src, const VizViewOpts *o, char *err,
                           size_t errlen) {
    memset(a, 0, sizeof *a);
    a->src = src;
    a->opts = *o;
    a->scale = 1;
    const char *named = drivers_named();
#if !defined(__APPLE__) && !defined(_WIN32)
    // X11 and Wayland both need their variable; without either there is
    // nothing to open a window on (and SDL2 would only find headless drivers).
    const char *x11 = SDL_getenv("DISPLAY"), *wl = SDL_getenv("WAYLAND_DISPLAY");
    if (named == NULL && !(x11 && x11[0]) && !(wl && wl[0]))
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "%s; %s", no_display, try_instead);
#endif
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP,
                               "cannot open a window: SDL2 could not start its video (%s); %s",
                               SDL_GetError(), try_instead);
    // Without a display SDL2 falls back to drivers that draw nowhere; a
    // window there would be invisible, so only a driver asked for by name
    // (tests: SDL_VIDEODRIVER=dummy) is accepted.
    const char *drv = SDL_GetCurrentVideoDriver();
    int headless = drv && (strcmp(drv, "offscreen") == 0 || strcmp(drv, "dummy") == 0);
    if ((headless && named == NULL) || SDL_GetNumVideoDisplays() < 1) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        SDL_Quit();
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "%s; %s", no_display, try_instead);
    }
    int w = VIZ_SDL_WIN_W, h = VIZ_SDL_WIN_H;
    SDL_Rect usable;
    if (SDL_GetDisplayUsableBounds(0, &usable) == 0 && usable.w > 0 && usable.h > 0) {
        w = w < usable.w * 9 / 10 ? w : usable.w * 9 / 10;
        h = h < usable.h * 9 / 10 ? h : usable.h * 9 / 10;
    }
    char title[200];
    snprintf(title, sizeof title, "ddplab%s%s", src->trace->info.title[0] ? ": " : "",
             src->trace->info.title);
    a->win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (a->win != NULL)
        a->ren = make_renderer(a->win);
    if (a->ren == NULL) {
        char why[256];
        snprintf(why, sizeof why, "%s", SDL_GetError());
        viz_sdl_app_close(a);
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot open a window: %s; %s", why,
                               try_instead);
    }
    SDL_RendererInfo info;
    if (SDL_GetRendererInfo(a->ren, &info) == 0)
        a->vsync = (info.flags & SDL_RENDERER_PRESENTVSYNC) != 0;
    int ow = 0, oh = 0;
    SDL_GetRendererOutputSize(a->ren, &ow, &oh);
    float scale = w > 0 && ow > 0 ? (float)ow / (float)w : 1.0f;
    SimStatus st = viz_sdl_view_init(&a->view, a->ren, scale, err, errlen);
    if (st == SIM_OK)
        st = viz_sdl_app_resize(a);
    if (st != SIM_OK) {
        if (st == SIM_ENOMEM)
            sim_errbuf_fail(err, errlen, st, "out of memory for the window's frame");
        viz_sdl_app_close(a);
        return st;
    }
    SDL_SetWindowMinimumSize(a->win, 200, 120);
    const char *qa = SDL_getenv("DDPLAB_SDL_QUIT_AFTER");
    if (qa != NULL)
        a->quit_after = strtoul(qa, NULL, 10);
    SDL_StartTextInput();
    setup_player(a);
    a->dirty = 1;
    return SIM_OK;
}

void viz_sdl_app_close(VizSdlApp *a) {
    viz_sdl_view_free(&a->view);
    if (a->ren)
        SDL_DestroyRenderer(a->ren);
    if (a->win)
        SDL_DestroyWindow(a->win);
    a->ren = NULL;
    a->win = NULL;
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    SDL_Quit();
}

// ---------------------------------------------------------------------------
// Frames

static void save_frame(VizSdlApp *a) {
    char name[128], err[300];
    size_t i = a->player_ready ? viz_player_index(&a->player) : 0;
    snprintf(name, sizeof name, "ddplab-frame-%06zu.png", i);
    VizImage img;
    SimStatus st = viz_sdl_view_image(&a->view, &img, err, sizeof err);
    if (st == SIM_OK) {
        st = viz_png_write(name, &img, err, sizeof err);
        viz_image_free(&img);
    }
    if (st == SIM_OK)
        snprintf(a->saved, sizeof a->saved, "%s", name);
    if (a->player_ready)
        snprintf(a->player.message, sizeof a->player.message, "%s%.80s",
                 st == SIM_OK ? "saved " : "", st == SIM_OK ? name : err);
    a->dirty = 1; // show the message
}

SimStatus viz_sdl_app_frame(VizSdlApp *a, double dt, char *err, size_t errlen) {
    VizSource *src = a->src;
    if (src->live != NULL && viz_source_poll(src))
        a->dirty = 1;
    setup_player(a);
    VizPlayer *p = &a->player;
    if (a->player_ready) {
        p->available = src->settled;
        p->live_done = src->live ? viz_live_done(src->live) : 1;
        if (viz_player_tick(p, src->model, dt))
            a->dirty = 1;
        if (p->playing) // the overlays move between events too
            a->dirty = 1;
        if (p->quit)
            a->quit = 1;
    }
    if (a->quit_after > 0) // the test hook counts frames drawn (see viz_sdl_run)
        a->dirty = 1;
    if (!a->dirty && !a->save)
        return SIM_OK;
    a->dirty = 0;
    SimStatus st = viz_sdl_view_frame(&a->view, a->player_ready ? src->model : NULL, p,
                                      a->opts.lesson);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "cannot draw the frame: %s",
                               sim_strerror(st));
    a->ever_fit |= a->view.fits;
    if (a->save) {
        a->save = 0;
        save_frame(a);
    }
    Uint64 p0 = SDL_GetPerformanceCounter();
    SDL_RenderPresent(a->ren);
    a->present_s =
        (double)(SDL_GetPerformanceCounter() - p0) / (double)SDL_GetPerformanceFrequency();
    if (a->quit_after > 0 && a->view.frames >= a->quit_after) {
        SDL_Event q;
        memset(&q, 0, sizeof q);
        q.type = SDL_QUIT;
        SDL_PushEvent(&q);
        a->quit_after = 0;
    }
    return SIM_OK;
}

// --png in a run: the frame at opts.start, drawn offscreen once the source
// has every event.
static SimStatus png_of_source(VizSource *src, const VizViewOpts *o, char *err, size_t errlen) {
    viz_source_poll(src);
    while (src->live != NULL && !viz_live_done(src->live)) {
        SDL_Delay(20);
        viz_source_poll(src);
    }
    viz_source_poll(src);
    if (src->model == NULL || viz_model_count(src->model) == 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "the trace has no events to draw");
    size_t n = viz_model_count(src->model);
    return viz_sdl_png(src->model, o->start < n ? o->start : n - 1, 0.0, o, o->png, err,
                       errlen);
}

SimStatus viz_sdl_run(VizSource *src, const VizViewOpts *o, char *err, size_t errlen) {
    if (src == NULL || src->trace == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace to show");
    VizViewOpts opts;
    if (o != NULL)
        opts = *o;
    else
        viz_view_opts_default(&opts);
    if (opts.png != NULL)
        return png_of_source(src, &opts, err, errlen);
    VizSdlApp *a = malloc(sizeof *a);
    if (a == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the window");
    SimStatus st = viz_sdl_app_open(a, src, &opts, err, errlen);
    if (st != SIM_OK) {
        free(a);
        return st;
    }
    const double freq = (double)SDL_GetPerformanceFrequency();
    Uint64 last = SDL_GetPerformanceCounter();
    while (!a->quit) {
        SDL_Event e;
        // The test hook (quit after N frames) keeps drawing: a player that
        // reached the end in fewer frames (a slow, loaded machine gives each
        // frame a long step) would otherwise idle with no frame to count.
        int busy = a->dirty || a->save || (a->player_ready && a->player.playing) ||
                   a->quit_after > 0;
        // Idle: sleep until input (or, in a live run, until the next poll).
        if (!busy && SDL_WaitEventTimeout(&e, src->live ? 50 : 250))
            viz_sdl_app_event(a, &e);
        while (!a->quit && SDL_PollEvent(&e))
            viz_sdl_app_event(a, &e);
        if (a->quit || (opts.should_stop && opts.should_stop()))
            break;
        Uint64 now = SDL_GetPerformanceCounter();
        double dt = (double)(now - last) / freq;
        last = now;
        unsigned long before = a->view.frames;
        st = viz_sdl_app_frame(a, dt > 0.25 ? 0.25 : dt, err, errlen);
        if (st != SIM_OK)
            break;
        // Pace to 60 frames per second where presents do not wait for the
        // display (software renderers, the dummy driver: some claim vsync
        // and return at once).
        if (a->view.frames != before && (!a->vsync || a->present_s < 0.002)) {
            double spent = (double)(SDL_GetPerformanceCounter() - now) / freq;
            if (spent < 1.0 / 60)
                SDL_Delay((Uint32)((1.0 / 60 - spent) * 1000));
        }
    }
    if (st == SIM_OK && !a->ever_fit)
        st = sim_errbuf_fail(err, errlen, SIM_EINVAL,
                             "the window never held the %d x %d pixels a frame needs",
                             (int)(VIZ_MIN_W * a->view.paint.cell_w + 0.999),
                             (int)(VIZ_MIN_H * VIZ_PAINT_CELL_H * a->view.scale + 0.999));
    viz_sdl_app_close(a);
    free(a);
    return st;
}

// ---------------------------------------------------------------------------
// Offscreen

typedef struct {
    VizSdlView *v;
    const VizPlayer *p;
    const char *lesson;
} PngJob;

// A PNG is the view's own surface, pixel for pixel; SVG and PDF are the
// same frame painted again onto their surface, as vectors.
static SimStatus paint_job(void *ctx, cairo_t *cr, int w, int h, char *err, size_t errlen) {
    (void)w;
    (void)h;
    PngJob *j = ctx;
    if (cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE) {
        cairo_set_source_surface(cr, j->v->surf, 0, 0);
        cairo_paint(cr);
        return SIM_OK;
    }
    SimStatus st = viz_sdl_view_paint_to(j->v, cr, j->p, j->lesson);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "out of memory for the drawing");
    return SIM_OK;
}

SimStatus viz_sdl_png(VizModel *m, size_t i, double frac, const VizViewOpts *o,
                      const char *path, char *err, size_t errlen) {
    if (m == NULL || path == NULL || path[0] == '\0')
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace or no file name to draw to");
    int w = o && o->png_w > 0 ? o->png_w : VIZ_SDL_PNG_W;
    int h = o && o->png_h > 0 ? o->png_h : VIZ_SDL_PNG_H;
    if (w > VIZ_IMAGE_MAX_SIDE || h > VIZ_IMAGE_MAX_SIDE)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "a %d x %d image is too large (at most "
                               "%d pixels a side)", w, h, VIZ_IMAGE_MAX_SIDE);
    VizSdlView *v = malloc(sizeof *v);
    VizPlayer *p = malloc(sizeof *p);
    SimStatus st = SIM_ENOMEM;
    if (v == NULL || p == NULL)
        sim_errbuf_fail(err, errlen, st, "out of memory for the frame");
    else
        st = viz_sdl_offscreen(m, i, frac, o, w, h, v, p, err, errlen);
    if (st == SIM_OK) {
        // a name with another ending (as --png has always taken) is a PNG
        VizGfxFormat fmt = viz_gfx_format(path);
        if (fmt == VIZ_GFX_SVG || fmt == VIZ_GFX_PDF || fmt == VIZ_GFX_PNG) {
            PngJob job = {v, p, o ? o->lesson : NULL};
            st = viz_gfx_write(path, w, h, paint_job, &job, err, errlen);
        } else {
            VizImage img = {0, 0, NULL};
            st = viz_sdl_view_image(v, &img, err, errlen);
            if (st == SIM_OK)
                st = viz_png_write(path, &img, err, errlen);
            viz_image_free(&img);
        }
        viz_sdl_view_free(v);
    }
    free(v);
    free(p);
    return st;
}
