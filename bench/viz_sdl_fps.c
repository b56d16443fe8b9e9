// bench/viz_sdl_fps.c: frames per second of the SDL2 view while it
// animates, against the target of 60. The trace: R ranks running a few
// ring all_reduces of different sizes on the CPU backend, as DDP's buckets
// would; the player plays it at 30 events per second and every frame
// advances it by 1/60 s, so frames mix scene changes (a new event: the
// scenes and the layout) with pure animation (the chunks travelling, the
// bars tweening); every frame is painted with cairo (paint.h).
//
// Two outputs, measured one after the other for the same number of seconds:
//   offscreen  the painter on a 1400 x 900 image surface (what --png, the
//              GIF frames and the tests use; no display)
//   dummy      a 1440 x 900 window of SDL's dummy video driver (the real
//              window loop: paint, texture upload, present, without a
//              display)
// A window on a display presents with vsync and is capped at the display's
// rate; these figures are the headroom under that cap.
//
//   viz_sdl_fps [seconds per output (3)] [ranks (16)]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "engine/comm.h"
#include "engine/world.h"
#include "view_sdl_internal.h"

enum { TARGET_FPS = 60, OFF_W = 1400, OFF_H = 900 };

static SimStatus rank_main(SimRank *r, void *arg) {
    (void)arg;
    static const size_t sizes[] = {1 << 16, 1 << 16, 3 << 14, 1 << 12};
    float *buf = malloc(sizes[0] * sizeof *buf);
    if (buf == NULL)
        return SIM_ENOMEM;
    for (size_t i = 0; i < sizes[0]; i++)
        buf[i] = (float)(r->rank + (int)(i % 5));
    SimStatus st = SIM_OK;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && st == SIM_OK; k++)
        st = sim_all_reduce(r, buf, buf, sizes[k], SIM_FP32, SIM_SUM, SIM_ALGO_RING);
    free(buf);
    return st;
}

static int make_trace(VizTrace *t, int R) {
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = R;
    cfg.trace = 1;
    cfg.watchdog_s = 60;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &cfg, &cpu_backend_ops);
    if (st == SIM_OK) {
        SimTraceInfo info;
        memset(&info, 0, sizeof info);
        snprintf(info.title, sizeof info.title, "bench  all_reduce ring x4  R=%d", R);
        snprintf(info.strategy, sizeof info.strategy, "bench");
        info.nodes = 1;
        sim_trace_set_info(w.trace, &info);
        st = sim_world_run(&w, rank_main, NULL);
    }
    if (st == SIM_OK)
        st = viz_trace_from_sim(w.trace, t, "bench");
    else
        fprintf(stderr, "viz_sdl_fps: the run failed: %s\n", sim_world_error(&w));
    sim_world_free(&w);
    return st == SIM_OK ? 0 : -1;
}

static double now_s(void) {
    return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

typedef struct {
    double fps;
    unsigned long frames, scenes, paints, timelines;
    double ms_worst;
} Result;

// Plays p over m from the start for `secs` seconds of wall time, one frame
// per call of draw(). The player loops back to the start at the end.
static void play(VizPlayer *p, const VizModel *m, double secs, Result *r,
                 int (*draw)(void *), void *ctx, const VizSdlView *v) {
    unsigned long scenes0 = v->scenes_built, paints0 = v->paints;
    unsigned long tl0 = viz_paint_cache_misses(v->cache);
    double t0 = now_s(), last = t0, worst = 0;
    unsigned long n = 0;
    while (last - t0 < secs) {
        viz_player_tick(p, m, 1.0 / TARGET_FPS);
        if (!p->playing) { // reached the end: from the start again
            p->pos = 0;
            p->playing = 1;
        }
        if (draw(ctx) != 0)
            break;
        double t = now_s();
        worst = t - last > worst ? t - last : worst;
        last = t;
        n++;
    }
    r->frames = n;
    r->fps = n / (last - t0);
    r->scenes = v->scenes_built - scenes0;
    r->paints = v->paints - paints0;
    r->timelines = viz_paint_cache_misses(v->cache) - tl0;
    r->ms_worst = worst * 1e3;
}

typedef struct {
    VizSdlView *v;
    VizModel *m;
    VizPlayer *p;
} OffCtx;

static int draw_off(void *c) {
    OffCtx *o = c;
    return viz_sdl_view_frame(o->v, o->m, o->p, NULL) == SIM_OK ? 0 : -1;
}

static int offscreen(VizModel *m, int R, double secs, Result *r) {
    char err[256];
    VizSdlView *v = calloc(1, sizeof *v);
    int rc = -1;
    if (v != NULL && viz_sdl_view_init(v, NULL, 1, err, sizeof err) == SIM_OK) {
        if (viz_sdl_view_resize(v, OFF_W, OFF_H) == SIM_OK) {
            VizPlayer p;
            viz_player_init(&p, viz_model_count(m), R);
            while (viz_player_speed(&p) < 30 && viz_player_key(&p, m, '+'))
                ;
            p.playing = 1;
            OffCtx c = {v, m, &p};
            play(&p, m, secs, r, draw_off, &c, v);
            rc = 0;
        }
        viz_sdl_view_free(v);
    } else {
        fprintf(stderr, "viz_sdl_fps: offscreen: out of memory\n");
    }
    free(v);
    return rc;
}

typedef struct {
    VizSdlApp *a;
} WinCtx;

static int draw_win(void *c) {
    VizSdlApp *a = ((WinCtx *)c)->a;
    char err[256];
    SDL_Event e;
    while (SDL_PollEvent(&e))
        viz_sdl_app_event(a, &e);
    a->dirty = 1;
    // The bench's own clock moves the player; the app draws what it shows.
    return viz_sdl_app_frame(a, 0, err, sizeof err) == SIM_OK ? 0 : -1;
}

static int dummy_window(VizTrace *t, VizModel *m, double secs, Result *r) {
    SDL_setenv("SDL_VIDEODRIVER", "dummy", 1);
    VizSource src = {t, m, NULL, t->n};
    VizViewOpts o;
    viz_view_opts_default(&o);
    VizSdlApp *a = calloc(1, sizeof *a);
    char err[512];
    if (a == NULL)
        return -1;
    if (viz_sdl_app_open(a, &src, &o, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "viz_sdl_fps: dummy window: %s\n", err);
        free(a);
        return -1;
    }
    while (viz_player_speed(&a->player) < 30 && viz_player_key(&a->player, m, '+'))
        ;
    a->player.playing = 1;
    WinCtx c = {a};
    play(&a->player, m, secs, r, draw_win, &c, &a->view);
    viz_sdl_app_close(a);
    free(a);
    return 0;
}

static void report(const char *what, const Result *r) {
    printf("%-44s %8.1f fps  (%lu frames, %lu scenes, %lu painted, %lu timelines, worst "
           "%.1f ms)  %s\n",
           what, r->fps, r->frames, r->scenes, r->paints, r->timelines, r->ms_worst,
           r->fps >= TARGET_FPS ? "PASS" : "FAIL");
}

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 3;
    int R = argc > 2 ? atoi(argv[2]) : 16;
    if (!(secs > 0) || R < 2 || R > 64) {
        fprintf(stderr, "usage: viz_sdl_fps [seconds per output (3)] [ranks 2..64 (16)]\n");
        return 2;
    }
    VizTrace t;
    if (make_trace(&t, R) != 0)
        return 1;
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    if (m == NULL) {
        fprintf(stderr, "viz_sdl_fps: %s\n", err);
        viz_trace_free(&t);
        return 1;
    }
    printf("viz_sdl_fps: %d ranks, %zu events, playing at 30 events/s, target %d fps\n", R,
           viz_model_count(m), TARGET_FPS);
    Result r;
    int rc = 0;
    char what[96];
    if (offscreen(m, R, secs, &r) == 0) {
        snprintf(what, sizeof what, "offscreen, cairo image surface, %dx%d", OFF_W, OFF_H);
        report(what, &r);
    } else {
        rc = 1;
    }
    if (dummy_window(&t, m, secs, &r) == 0) {
        snprintf(what, sizeof what, "window, dummy video driver, %dx%d", VIZ_SDL_WIN_W,
                 VIZ_SDL_WIN_H);
        report(what, &r);
    } else {
        rc = 1;
    }
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}
