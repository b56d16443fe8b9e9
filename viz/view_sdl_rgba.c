// viz/view_sdl_rgba.c: viz_sdl_frame (views.h), one frame into a caller's
// buffer: the view drawn offscreen as viz_sdl_png draws it (a software
// renderer on a surface, no display), read back as r, g, b, a bytes.
//
// Each call sets the view up and tears it down (the font, its glyph cache,
// the surface), so calls share nothing and any thread may make them; an
// animation pays that per frame, about as much as drawing the frame.
#include "view_sdl_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"

// What one offscreen frame needs, released by off_close in any state.
typedef struct {
    SDL_Surface *surf;
    SDL_Renderer *ren;
    VizSdlView *v; // NULL until set up
} Offscreen;

static void off_close(Offscreen *o) {
    if (o->v != NULL) {
        viz_sdl_view_free(o->v);
        free(o->v);
    }
    if (o->ren)
        SDL_DestroyRenderer(o->ren);
    if (o->surf)
        SDL_FreeSurface(o->surf);
}

// The surface, its renderer and the view on it, sized w x h, checked to
// hold the smallest frame the layout draws.
static SimStatus off_open(Offscreen *o, const VizViewOpts *opts, int w, int h, char *err,
                          size_t errlen) {
    memset(o, 0, sizeof *o);
    o->surf = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (o->surf != NULL)
        o->ren = SDL_CreateSoftwareRenderer(o->surf);
    if (o->ren == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "cannot make a %d x %d surface: %s", w,
                               h, SDL_GetError());
    VizSdlView *v = calloc(1, sizeof *v);
    if (v == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the frame");
    SimStatus st = viz_sdl_view_init(v, o->ren, opts ? opts->font : NULL, VIZ_SDL_FONT_PT, err,
                                     errlen);
    if (st != SIM_OK) {
        free(v);
        return st;
    }
    o->v = v;
    if ((st = viz_sdl_view_resize(v, w, h)) != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "out of memory for a %d x %d frame", w, h);
    if (!v->fits)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "a %d x %d image holds %d x %d cells of the font; a frame needs "
                               "%d x %d (at least %d x %d pixels)",
                               w, h, v->cols, v->rows, VIZ_MIN_W, VIZ_MIN_H,
                               VIZ_MIN_W * v->font.cell_w, VIZ_MIN_H * v->font.cell_h);
    return SIM_OK;
}

// Draws event i at frac of the way to the next, as a paused window shows it.
static SimStatus draw_event(Offscreen *o, VizModel *m, size_t i, double frac,
                            const VizViewOpts *opts, char *err, size_t errlen) {
    size_t count = viz_model_count(m);
    VizPlayer p;
    viz_player_init(&p, count, viz_model_trace(m)->nranks);
    viz_player_suggest_jump(&p, m);
    p.live_done = 1;
    p.playing = 0;
    if (!(frac > 0) || i + 1 >= count)
        frac = 0;
    p.pos = (double)i + (frac < 0.999999 ? frac : 0.999999);
    SimStatus st = viz_sdl_view_frame(o->v, m, &p, opts ? opts->lesson : NULL);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "cannot draw event %zu: %s", i,
                               sim_strerror(st));
    return SIM_OK;
}

// The renderer's target into rgba[h][w][4]: SDL's RGBA32 is r, g, b, a in
// memory order on any host.
static SimStatus read_back(SDL_Renderer *ren, int w, int h, uint8_t *rgba, char *err,
                           size_t errlen) {
    if (SDL_RenderReadPixels(ren, &(SDL_Rect){0, 0, w, h}, SDL_PIXELFORMAT_RGBA32, rgba,
                             4 * w) != 0)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot read the frame back: %s",
                               SDL_GetError());
    size_t n = (size_t)w * (size_t)h;
    for (size_t k = 0; k < n; k++)
        rgba[4 * k + 3] = 255;
    return SIM_OK;
}

SimStatus viz_sdl_frame(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w, int h,
                        uint8_t *rgba, char *err, size_t errlen) {
    if (m == NULL || rgba == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace or no buffer to draw into");
    size_t count = viz_model_count(m);
    if (i >= count)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "event %zu: the trace has %zu events",
                               i, count);
    if (w < 1 || h < 1 || w > VIZ_PLOT_MAX_SIDE || h > VIZ_PLOT_MAX_SIDE)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "a %d x %d image cannot be drawn (1 to "
                               "%d pixels a side)", w, h, VIZ_PLOT_MAX_SIDE);
    Uint32 sdl_before = SDL_WasInit(SDL_INIT_EVERYTHING);
    if (TTF_Init() != 0)
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot start SDL2_ttf: %s",
                               TTF_GetError());
    Offscreen off;
    SimStatus st = off_open(&off, o, w, h, err, errlen);
    if (st == SIM_OK)
        st = draw_event(&off, m, i, frac, o, err, errlen);
    if (st == SIM_OK)
        st = read_back(off.ren, w, h, rgba, err, errlen);
    off_close(&off);
    TTF_Quit();
    if (sdl_before == 0)
        SDL_Quit();
    return st;
}
