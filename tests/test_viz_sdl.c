// tests/test_viz_sdl.c: the SDL2 view (viz/views.h, viz/view_sdl*.c); the
// charts are tests/test_viz_chart.c. Every part runs without a display: frames
// are drawn by the software renderer on a surface, the window by SDL's
// dummy video driver.
//
//   test_viz_sdl parts    rectangles of box drawing and bars, the glyph
//                         cache, bars tweened between two frames, the key
//                         map, the instants the animation moves between (a
//                         hand-built trace)
//   test_viz_sdl frames   a ring all_reduce at R = 4 half way through a
//                         step, and an FSDP iteration at an all-gather,
//                         drawn to PNG: decoded, many colours, not all
//                         background, ink in every rank box and node where
//                         the layout put them, the chunks between their
//                         ranks in their colours, the PNG equal to the
//                         frame the view draws
//   test_viz_sdl window   viz_sdl_run under SDL_VIDEODRIVER=dummy, quitting
//                         after N frames; then the window's handling of
//                         keys, clicks on rank boxes, scrubbing the
//                         timeline, s (save a PNG) and quit
//   test_viz_sdl nodisplay  an impossible video driver, or no display at
//                         all: SIM_ENOTSUP naming --viz ncurses; --png
//                         still works
//
// Exits 77 (skipped) when the build has no SDL2 or no libpng. With
// DDPLAB_SDL_TEST_OUT=DIR the PNGs are written there and kept.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "image.h"
#include "scene.h"
#include "test_env.h"
#include "test_files.h"
#include "test_viz_sdl_util.h"
#include "views.h"

#ifdef DDPLAB_HAVE_SDL
#include "view_sdl_internal.h"

static int failures = 0;

static char out_dir[512];
static int keep_out;

static const char *out_path(const char *name) {
    static char buf[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", out_dir, name);
    return buf[k];
}

static const uint8_t *pixel(const VizImage *img, int x, int y) {
    return img->rgb + 3 * ((size_t)y * (size_t)img->w + (size_t)x);
}

static void bg_rgb(uint8_t rgb[3]) {
    VizSdlRgb b = viz_sdl_background();
    rgb[0] = b.r;
    rgb[1] = b.g;
    rgb[2] = b.b;
}

// An offscreen view: a surface, its software renderer, the view on it.
typedef struct {
    SDL_Surface *surf;
    SDL_Renderer *ren;
    VizSdlView v;
    int open;
} Off;

static int off_open(Off *o, int w, int h) {
    char err[256];
    memset(o, 0, sizeof *o);
    CHECK(TTF_Init() == 0);
    o->surf = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    CHECK(o->surf != NULL);
    o->ren = SDL_CreateSoftwareRenderer(o->surf);
    CHECK(o->ren != NULL);
    SimStatus st = viz_sdl_view_init(&o->v, o->ren, NULL, VIZ_SDL_FONT_PT, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "view: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    o->open = 1;
    CHECK_EQ_INT(viz_sdl_view_resize(&o->v, w, h), SIM_OK);
    return 0;
}

static void off_close(Off *o) {
    if (o->open)
        viz_sdl_view_free(&o->v);
    if (o->ren)
        SDL_DestroyRenderer(o->ren);
    if (o->surf)
        SDL_FreeSurface(o->surf);
    TTF_Quit();
    memset(o, 0, sizeof *o);
}

// ----------------------------------------------------------------------------
// parts

static int test_shapes(void) {
    Off o;
    int rc = off_open(&o, 64, 64);
    if (rc != 0) {
        off_close(&o);
        return rc;
    }
    const int w = o.v.font.cell_w, h = o.v.font.cell_h;
    CHECK(w >= 6 && h >= 10);
    VizSdlRgb fg = {255, 255, 255}, bg = {0, 0, 0};
    SDL_Rect cell = {0, 0, w, h};
    static const struct {
        uint32_t cp;
        int row, col; // 1: the middle row / column is inked edge to edge
    } lines[] = {{0x2500, 1, 0}, {0x2502, 0, 1}, {0x253C, 1, 1}, {0x2501, 1, 0}, {0x2550, 0, 0}};
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        SDL_SetRenderDrawColor(o.ren, 0, 0, 0, 255);
        SDL_RenderClear(o.ren);
        CHECK_EQ_INT(viz_sdl_draw_shape(o.ren, cell, lines[k].cp, fg, bg), 1);
        VizImage img;
        char err[128];
        CHECK_EQ_INT(viz_sdl_read_image(o.ren, w, h, &img, err, sizeof err), SIM_OK);
        int row = 0, col = 0, any = 0;
        for (int x = 0; x < w; x++)
            row += pixel(&img, x, h / 2)[0] == 255;
        for (int y = 0; y < h; y++)
            col += pixel(&img, w / 2, y)[0] == 255;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                any += pixel(&img, x, y)[0] == 255;
        viz_image_free(&img);
        CHECK(any > 0);
        if (lines[k].row)
            CHECK_EQ_INT(row, w);
        if (lines[k].col)
            CHECK_EQ_INT(col, h);
        if (lines[k].cp == 0x2500) // a light line is thin
            CHECK(any <= 2 * w);
    }
    // Bars: k eighths fill (w k + 4) / 8 columns, every row.
    for (int e = 1; e <= 8; e++) {
        uint32_t cp = e == 8 ? 0x2588 : (uint32_t)(0x2590 - e);
        CHECK_EQ_INT(viz_sdl_bar_eighths(cp), e);
        SDL_SetRenderDrawColor(o.ren, 0, 0, 0, 255);
        SDL_RenderClear(o.ren);
        CHECK_EQ_INT(viz_sdl_draw_shape(o.ren, cell, cp, fg, bg), 1);
        VizImage img;
        char err[128];
        CHECK_EQ_INT(viz_sdl_read_image(o.ren, w + 2, h, &img, err, sizeof err), SIM_OK);
        int inked = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w + 2; x++)
                inked += pixel(&img, x, y)[0] == 255;
        viz_image_free(&img);
        CHECK_EQ_INT(inked, h * ((w * e + 4) / 8));
    }
    CHECK_EQ_INT(viz_sdl_bar_eighths('#'), 0);
    CHECK_EQ_INT(viz_sdl_bar_eighths(0x2590), 0);
    CHECK_EQ_INT(viz_sdl_draw_shape(o.ren, cell, 'A', fg, bg), 0);
    CHECK_EQ_INT(viz_sdl_draw_shape(o.ren, cell, 0x2571, fg, bg), 0); // diagonal: the font's
    off_close(&o);
    return 0;
}

static int test_glyph_cache(void) {
    Off o;
    int rc = off_open(&o, 64, 64);
    if (rc != 0) {
        off_close(&o);
        return rc;
    }
    VizSdlFont *f = &o.v.font;
    size_t made = f->made;
    const VizSdlGlyph *a = viz_sdl_glyph(f, 'A', VIZ_STYLE_NORMAL);
    CHECK(a != NULL && a->tex != NULL && a->w > 0 && a->h > 0);
    SDL_Texture *atex = a->tex; // a itself moves when the table grows
    CHECK_EQ_INT(f->made, made + 1);
    CHECK(viz_sdl_glyph(f, 'A', VIZ_STYLE_NORMAL) == a); // cached
    CHECK_EQ_INT(f->made, made + 1);
    CHECK(viz_sdl_glyph(f, 'A', VIZ_STYLE_TITLE) != NULL); // another style, another texture
    CHECK_EQ_INT(f->made, made + 2);
    CHECK(viz_sdl_glyph(f, 0x10FFFD, VIZ_STYLE_NORMAL) != NULL); // not in the font: '?'
    // Hundreds of entries grow the table and keep every one.
    for (uint32_t cp = 0x21; cp < 0x7f; cp++)
        for (int st = 0; st < 6; st++)
            CHECK(viz_sdl_glyph(f, cp, st) != NULL);
    CHECK(f->cap > 512);
    CHECK(viz_sdl_glyph(f, 'A', VIZ_STYLE_NORMAL)->tex == atex);
    // Every style has a look; the styles the timeline tells apart differ.
    CHECK(viz_sdl_look(VIZ_STYLE_COUNT + 5) == viz_sdl_look(VIZ_STYLE_NORMAL));
    const VizSdlLook *fw = viz_sdl_look(VIZ_STYLE_FORWARD), *bw = viz_sdl_look(VIZ_STYLE_BACKWARD);
    CHECK(memcmp(&fw->fg, &bw->fg, sizeof fw->fg) != 0);
    off_close(&o);
    return 0;
}

// Columns inked with colour c in pixel row y, from x0 on, until the first
// pixel of another colour.
static int run_of(const VizImage *img, int x0, int y, VizSdlRgb c) {
    int n = 0;
    for (int x = x0; x < img->w; x++, n++) {
        const uint8_t *p = pixel(img, x, y);
        if (p[0] != c.r || p[1] != c.g || p[2] != c.b)
            break;
    }
    return n;
}

// A bar of 36 eighths in this frame and 72 in the next one is drawn, half
// way between the instants, 54 eighths long; shrinking back the same.
static int test_bar_tween(void) {
    Off o;
    int rc = off_open(&o, 900, 500);
    if (rc != 0) {
        off_close(&o);
        return rc;
    }
    VizSdlView *v = &o.v;
    CHECK(v->fits);
    const int cw = v->font.cell_w, ch = v->font.cell_h, row = 3, x0 = 10;
    const VizStyle st = VIZ_STYLE_MEM_FIRST + SIM_MEM_PARAM;
    const VizSdlRgb fg = viz_sdl_look(st)->fg;
    static const struct {
        int from, to;
        double u;
        int want; // eighths shown
    } cases[] = {{36, 72, 0.5, 54}, {72, 36, 0.5, 54}, {36, 72, 0.25, 45}, {0, 16, 0.5, 8},
                 {40, 0, 0.75, 10}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        VizCanvas *cv[2] = {&v->canvas, &v->next};
        int fill[2] = {cases[k].from, cases[k].to};
        for (int j = 0; j < 2; j++) {
            viz_canvas_clear(cv[j]);
            viz_canvas_text(cv[j], 2, row, -1, VIZ_STYLE_NORMAL, "mem");
            for (int e = fill[j], x = x0; e > 0; e -= 8, x++)
                viz_canvas_put(cv[j], x, row, e >= 8 ? 0x2588 : 0x2590 - (uint32_t)e, st);
        }
        memset(&v->layout, 0, sizeof v->layout);
        v->layout.ok = 1;
        v->layout.ranks = (VizRect){0, 0, v->cols, 8};
        v->next_layout = v->layout;
        v->have_frame = v->have_next = 1;
        v->instant = (VizSdlInstant){0, 1, 0, 1, cases[k].u, 1};
        v->next_drawn.index = 1;
        SDL_SetRenderDrawColor(o.ren, 0, 0, 0, 255);
        SDL_RenderClear(o.ren);
        viz_sdl_draw_cells(v, &v->canvas, row, 0, v->cols);
        viz_sdl_draw_overlays(v);
        VizImage img;
        char err[128];
        CHECK_EQ_INT(viz_sdl_read_image(o.ren, 900, 500, &img, err, sizeof err), SIM_OK);
        int got = run_of(&img, x0 * cw, row * ch + ch / 2, fg);
        viz_image_free(&img);
        double want = cases[k].want * cw / 8.0;
        if (fabs(got - want) > 1.01) {
            fprintf(stderr, "bar %d -> %d at u %.2f: %d pixels, want %.1f\n", cases[k].from,
                    cases[k].to, cases[k].u, got, want);
            rc = 1;
        }
    }
    v->have_frame = v->have_next = 0;
    off_close(&o);
    return rc;
}

static int test_keys(void) {
    CHECK_EQ_INT(viz_sdl_key(SDLK_LEFT), VIZ_KEY_LEFT);
    CHECK_EQ_INT(viz_sdl_key(SDLK_RIGHT), VIZ_KEY_RIGHT);
    CHECK_EQ_INT(viz_sdl_key(SDLK_UP), VIZ_KEY_UP);
    CHECK_EQ_INT(viz_sdl_key(SDLK_DOWN), VIZ_KEY_DOWN);
    CHECK_EQ_INT(viz_sdl_key(SDLK_HOME), VIZ_KEY_HOME);
    CHECK_EQ_INT(viz_sdl_key(SDLK_END), VIZ_KEY_END);
    CHECK_EQ_INT(viz_sdl_key(SDLK_RETURN), VIZ_KEY_ENTER);
    CHECK_EQ_INT(viz_sdl_key(SDLK_KP_ENTER), VIZ_KEY_ENTER);
    CHECK_EQ_INT(viz_sdl_key(SDLK_BACKSPACE), VIZ_KEY_BACKSPACE);
    CHECK_EQ_INT(viz_sdl_key(SDLK_ESCAPE), VIZ_KEY_ESCAPE);
    CHECK_EQ_INT(viz_sdl_key(SDLK_PAGEDOWN), 'N');
    CHECK_EQ_INT(viz_sdl_key(SDLK_PAGEUP), 'P');
    CHECK_EQ_INT(viz_sdl_key(SDLK_a), 0); // letters come as text
    CHECK_EQ_INT(viz_sdl_key(SDLK_SPACE), 0);
    return 0;
}

static SimStatus add_compute(VizTrace *t, int rank, double t0, double t1) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.sim_start = e.wall_start = t0;
    e.sim_end = e.wall_end = t1;
    e.kind = SIM_EV_COMPUTE;
    e.name = "matmul";
    e.rank = rank;
    e.stream = SIM_STREAM_COMPUTE;
    e.step = e.nsteps = e.chunk = e.src = e.dst = -1;
    return viz_trace_add(t, &e, NULL);
}

// Instants: events 0-2 at t = 0, 3-4 at t = 1, 5 at t = 3.
static int test_instants(void) {
    VizTrace t;
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    info.nodes = 1;
    CHECK_EQ_INT(viz_trace_init(&t, 2, &info, "hand"), SIM_OK);
    static const double at[] = {0, 0, 0, 1, 1, 3};
    for (int k = 0; k < 6; k++)
        CHECK_EQ_INT(add_compute(&t, k % 2, at[k], at[k] + 0.5), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    VizSdlInstant in = viz_sdl_instant(m, 6, 1.5);
    CHECK_EQ_INT(in.a, 0);
    CHECK_EQ_INT(in.b, 3);
    CHECK_EQ_INT(in.next_ok, 1);
    CHECK_NEAR(in.u, 0.5, 1e-12);
    CHECK_NEAR(in.t_a, 0, 0);
    CHECK_NEAR(in.t_b, 1, 0);
    in = viz_sdl_instant(m, 6, 0);
    CHECK_NEAR(in.u, 0, 0);
    in = viz_sdl_instant(m, 6, 4.25);
    CHECK_EQ_INT(in.a, 3);
    CHECK_EQ_INT(in.b, 5);
    CHECK_NEAR(in.u, 0.625, 1e-12);
    CHECK_NEAR(in.t_b, 3, 0);
    in = viz_sdl_instant(m, 6, 5); // the last instant: nothing to move to
    CHECK_EQ_INT(in.next_ok, 0);
    CHECK_NEAR(in.u, 0, 0);
    in = viz_sdl_instant(m, 4, 3.5); // a live run that has shown 4 events
    CHECK_EQ_INT(in.next_ok, 0);
    in = viz_sdl_instant(m, 6, 99); // past the end: the last event
    CHECK_EQ_INT(in.a, 5);
    // A step's progress follows the instant's time between its ends.
    VizScene *s = viz_scene_new(m);
    CHECK(s != NULL);
    s->coll.step_t0 = 0;
    s->coll.step_t1 = 2;
    in = viz_sdl_instant(m, 6, 1.5); // time 0.5 of the step 0..2
    CHECK_NEAR(viz_sdl_step_progress(s, &in), 0.25, 1e-12);
    viz_scene_free(s);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

// ----------------------------------------------------------------------------
// frames

// Ink in every rank box and node of the layout: the frame's lines through
// the middle of its bottom row and its left column of cells, and some of
// the inside.
static int check_boxes(const VizImage *img, const VizSdlView *v) {
    uint8_t bg[3];
    bg_rgb(bg);
    const VizLayout *l = &v->layout;
    int cw = v->font.cell_w, ch = v->font.cell_h;
    CHECK(l->nboxes > 0);
    for (int k = 0; k < l->nboxes + l->nnodes; k++) {
        VizRect r = k < l->nboxes ? l->box[k] : l->node[k - l->nboxes];
        CHECK(r.w > 2 && r.h > 2);
        int x0 = r.x * cw, y0 = r.y * ch, x1 = (r.x + r.w) * cw, y1 = (r.y + r.h) * ch;
        double inside = tsdl_share_not(img, x0, y0, x1, y1, bg);
        double bottom = tsdl_share_not(img, x0, y1 - ch + ch / 2, x1, y1 - ch + ch / 2 + 1, bg);
        double left = tsdl_share_not(img, x0 + cw / 2, y0 + ch / 2, x0 + cw / 2 + 1,
                                     y1 - ch / 2, bg);
        if (!(inside > 0.04 && bottom > 0.8 && left > 0.9)) {
            fprintf(stderr, "%s %d at cells %d,%d %dx%d: ink %.3f, bottom edge %.3f, left %.3f\n",
                    k < l->nboxes ? "box" : "node", k < l->nboxes ? k : k - l->nboxes, r.x,
                    r.y, r.w, r.h, inside, bottom, left);
            return 1;
        }
    }
    return 0;
}

static int check_not_blank(const VizImage *img) {
    uint8_t bg[3];
    bg_rgb(bg);
    int colours = tsdl_distinct_colours(img, 100000);
    double share = tsdl_share_of(img, bg);
    if (colours < 24 || !(share > 0.3 && share < 0.97)) {
        fprintf(stderr, "%d colours, background %.3f of the pixels\n", colours, share);
        return 1;
    }
    return 0;
}

static int same_image(const VizImage *a, const VizImage *b) {
    CHECK_EQ_INT(a->w, b->w);
    CHECK_EQ_INT(a->h, b->h);
    CHECK(memcmp(a->rgb, b->rgb, (size_t)a->w * (size_t)a->h * 3) == 0);
    return 0;
}

// Draws event i + frac offscreen as viz_sdl_png does, and as a PNG; checks
// both agree and look like a frame. *off stays open for the caller.
static int frame_and_png(Off *off, VizModel *m, size_t i, double frac, const char *png,
                         VizImage *img) {
    CHECK_EQ_INT(off_open(off, VIZ_SDL_PNG_W, VIZ_SDL_PNG_H), 0);
    VizPlayer p;
    viz_player_init(&p, viz_model_count(m), viz_model_trace(m)->nranks);
    viz_player_suggest_jump(&p, m); // as viz_sdl_png does
    p.pos = (double)i + frac;
    CHECK_EQ_INT(viz_sdl_view_frame(&off->v, m, &p, NULL), SIM_OK);
    CHECK(off->v.fits && off->v.have_frame && off->v.layout.ok);
    char err[512];
    CHECK_EQ_INT(viz_sdl_read_image(off->ren, VIZ_SDL_PNG_W, VIZ_SDL_PNG_H, img, err,
                                    sizeof err),
                 SIM_OK);
    SimStatus st = viz_sdl_png(m, i, frac, NULL, png, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "viz_sdl_png: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    VizImage dec;
    CHECK_EQ_INT(tsdl_png_read(png, &dec), 0);
    int rc = same_image(&dec, img);
    viz_image_free(&dec);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(check_not_blank(img), 0);
    CHECK_EQ_INT(check_boxes(img, &off->v), 0);
    return 0;
}

static int colour_near(const uint8_t *p, VizSdlRgb c, int tol) {
    return abs(p[0] - c.r) <= tol && abs(p[1] - c.g) <= tol && abs(p[2] - c.b) <= tol;
}

static int test_ring_frame(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_ring_trace(&t, 4, 1, 4096), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    // Rank 0's second step of the ring: every rank sends a chunk.
    size_t i = viz_model_next(m, SIZE_MAX, VIZ_JUMP_COLL_STEP, +1);
    CHECK(i != SIZE_MAX);
    i = viz_model_next(m, i, VIZ_JUMP_COLL_STEP, +1);
    CHECK(i != SIZE_MAX);
    Off off;
    VizImage img = {0, 0, NULL};
    int rc = frame_and_png(&off, m, i, 0.5, out_path("ring-r4-mid-step.png"), &img);
    if (rc == 0) {
        const VizSdlView *v = &off.v;
        const VizColl *c = &v->scene->coll;
        CHECK(c->active && c->running);
        CHECK_EQ_INT(c->step, 1);
        CHECK_EQ_INT(c->nxfer, 4);
        CHECK_EQ_INT(v->layout.nnodes, 4);
        CHECK(v->instant.next_ok);
        double prog = viz_sdl_step_progress(v->scene, &v->instant);
        CHECK(prog > 0.05 && prog < 0.95);
        // Each chunk travels the arrow drawn for it, from beside its sender
        // to beside its receiver, and is where the step's progress puts it,
        // in its colour (sampled beside the number written on it).
        int cw = v->font.cell_w, ch = v->font.cell_h;
        for (int k = 0; k < c->nxfer; k++) {
            const VizXfer *x = &c->xfer[k];
            CHECK_EQ_INT(x->dst, (x->src + 1) % 4);
            VizSdlPath path;
            CHECK(viz_sdl_chunk_path(v, x, &path));
            CHECK(path.drawn && path.n >= 2);
            VizRect rs = v->layout.node[x->src], rd = v->layout.node[x->dst];
            int tx = (int)(path.x[0] / cw), ty = (int)(path.y[0] / ch);
            int hx = (int)(path.x[path.n - 1] / cw), hy = (int)(path.y[path.n - 1] / ch);
            CHECK(tx >= rs.x - 1 && tx <= rs.x + rs.w && ty >= rs.y - 1 && ty <= rs.y + rs.h);
            CHECK(hx >= rd.x - 1 && hx <= rd.x + rd.w && hy >= rd.y - 1 && hy <= rd.y + rd.h);
            double cx, cy, px, py, dx, dy;
            int side;
            CHECK(viz_sdl_chunk_place(v, x, prog, 0, &cx, &cy, &side));
            viz_sdl_path_at(&path, prog, &px, &py, &dx, &dy);
            CHECK_NEAR(cx, px, 1e-9);
            CHECK_NEAR(cy, py, 1e-9);
            viz_sdl_path_at(&path, 0, &px, &py, &dx, &dy);
            CHECK(hypot(cx - px, cy - py) > 1);
            viz_sdl_path_at(&path, 1, &px, &py, &dx, &dy);
            CHECK(hypot(cx - px, cy - py) > 1);
            const uint8_t *p = pixel(&img, (int)lround(cx - side / 2.0 + 3), (int)lround(cy));
            if (!colour_near(p, viz_sdl_chunk_colour(x->chunk), 8)) {
                fprintf(stderr, "chunk %d at %.0f,%.0f: pixel %d,%d,%d\n", x->chunk, cx, cy,
                        p[0], p[1], p[2]);
                rc = 1;
            }
        }
        // The frame at the step's start holds the chunks at their senders:
        // the pixels where they are now differ.
        VizImage start;
        char e2[256];
        VizPlayer p;
        viz_player_init(&p, viz_model_count(m), 4);
        p.pos = (double)v->instant.a;
        CHECK_EQ_INT(viz_sdl_view_frame(&off.v, m, &p, NULL), SIM_OK);
        CHECK_NEAR(viz_sdl_step_progress(off.v.scene, &off.v.instant), 0, 1e-9);
        CHECK_EQ_INT(viz_sdl_read_image(off.ren, img.w, img.h, &start, e2, sizeof e2), SIM_OK);
        CHECK(memcmp(start.rgb, img.rgb, (size_t)img.w * (size_t)img.h * 3) != 0);
        viz_image_free(&start);
    }
    viz_image_free(&img);
    off_close(&off);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

static int test_fsdp_frame(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_fsdp_trace(&t, 4, 1), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    // The second unit's all-gather in the forward.
    size_t i = viz_model_next(m, SIZE_MAX, VIZ_JUMP_GATHER, +1);
    CHECK(i != SIZE_MAX);
    size_t j = viz_model_next(m, i, VIZ_JUMP_GATHER, +1);
    i = j != SIZE_MAX ? j : i;
    Off off;
    VizImage img = {0, 0, NULL};
    int rc = frame_and_png(&off, m, i, 0.5, out_path("fsdp-r4-gather.png"), &img);
    if (rc == 0) {
        const VizSdlView *v = &off.v;
        CHECK(v->scene->shards.nunits > 1);
        VizRect r = v->layout.shards;
        CHECK(r.w > 0 && r.h > 0);
        uint8_t bg[3];
        bg_rgb(bg);
        int cw = v->font.cell_w, ch = v->font.cell_h;
        double ink = tsdl_share_not(&img, r.x * cw, r.y * ch, (r.x + r.w) * cw,
                                    (r.y + r.h) * ch, bg);
        if (!(ink > 0.05)) {
            fprintf(stderr, "shards panel: ink %.3f\n", ink);
            rc = 1;
        }
    }
    viz_image_free(&img);
    off_close(&off);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

// ----------------------------------------------------------------------------
// the window

static void text_event(VizSdlApp *a, const char *s) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_TEXTINPUT;
    snprintf(e.text.text, sizeof e.text.text, "%s", s);
    viz_sdl_app_event(a, &e);
}

static void key_event(VizSdlApp *a, SDL_Keycode sym) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.keysym.sym = sym;
    viz_sdl_app_event(a, &e);
}

static void mouse_event(VizSdlApp *a, Uint32 type, double cx, double cy) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    int x = (int)(cx * a->view.font.cell_w / a->scale);
    int y = (int)(cy * a->view.font.cell_h / a->scale);
    if (type == SDL_MOUSEMOTION) {
        e.motion.x = x;
        e.motion.y = y;
        e.motion.state = SDL_BUTTON_LMASK;
    } else {
        e.button.button = SDL_BUTTON_LEFT;
        e.button.x = x;
        e.button.y = y;
    }
    viz_sdl_app_event(a, &e);
}

static int frame(VizSdlApp *a) {
    char err[256];
    unsigned long before = a->view.frames;
    SimStatus st = viz_sdl_app_frame(a, 1.0 / 60, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "frame: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(a->view.frames, before + 1);
    return 0;
}

// The event a scrub to time tt must land on: the nearest instant's first.
static int nearest_ok(const VizModel *m, size_t got, double tt) {
    const VizTrace *t = viz_model_trace(m);
    double best = fabs(t->ev[got].sim_start - tt);
    for (size_t k = 0; k < t->n; k++)
        CHECK(fabs(t->ev[k].sim_start - tt) >= best - 1e-15);
    CHECK(got == 0 || t->ev[got - 1].sim_start < t->ev[got].sim_start);
    return 0;
}

static int app_checks(VizSdlApp *a, VizModel *m) {
    size_t n = viz_model_count(m);
    CHECK_EQ_INT(frame(a), 0);
    CHECK(a->view.fits && a->view.layout.ok);
    CHECK_EQ_INT(viz_player_index(&a->player), 0);
    text_event(a, "n");
    CHECK_EQ_INT(viz_player_index(&a->player), 1);
    CHECK_EQ_INT(frame(a), 0);
    key_event(a, SDLK_END);
    CHECK_EQ_INT(viz_player_index(&a->player), n - 1);
    key_event(a, SDLK_HOME);
    CHECK_EQ_INT(viz_player_index(&a->player), 0);
    text_event(a, "  "); // play, pause
    CHECK_EQ_INT(a->player.playing, 0);
    // Step into the first collective step, so the ring is drawn.
    size_t step = viz_model_next(m, SIZE_MAX, VIZ_JUMP_COLL_STEP, +1);
    CHECK(step != SIZE_MAX);
    a->player.pos = (double)step;
    a->dirty = 1;
    CHECK_EQ_INT(frame(a), 0);

    // Clicks select ranks: a rank box, then a node of the ring.
    const VizLayout *l = &a->view.layout;
    CHECK(l->nboxes >= 3 && l->nnodes >= 2);
    VizRect b = l->box[2];
    mouse_event(a, SDL_MOUSEBUTTONDOWN, b.x + b.w / 2.0, b.y + b.h / 2.0);
    mouse_event(a, SDL_MOUSEBUTTONUP, b.x + b.w / 2.0, b.y + b.h / 2.0);
    CHECK_EQ_INT(a->player.selected_rank, l->first_box + 2);
    CHECK_EQ_INT(frame(a), 0);
    VizRect nd = a->view.layout.node[1];
    mouse_event(a, SDL_MOUSEBUTTONDOWN, nd.x + nd.w / 2.0, nd.y + nd.h / 2.0);
    mouse_event(a, SDL_MOUSEBUTTONUP, nd.x + nd.w / 2.0, nd.y + nd.h / 2.0);
    CHECK_EQ_INT(a->player.selected_rank, a->view.layout.first_node + 1);
    CHECK_EQ_INT(frame(a), 0);

    // Scrubbing: a click on the timeline goes to the event nearest that
    // column's time; dragging follows.
    l = &a->view.layout;
    const VizTimeline *tl = &a->view.scene->timeline;
    CHECK(l->timeline.w > 0 && tl->ncols > 4 && tl->t1 > tl->t0);
    int row = l->timeline.y + l->timeline.h / 2;
    double t0 = tl->t0, t1 = tl->t1;
    int ncols = tl->ncols;
    for (int q = 1; q <= 3; q++) {
        int col = ncols * q / 4;
        mouse_event(a, q == 1 ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEMOTION,
                    l->timeline_x + col + 0.5, row + 0.5);
        double tt = t0 + (col + 0.5) * (t1 - t0) / ncols;
        CHECK(a->dragging);
        CHECK_EQ_INT(nearest_ok(m, viz_player_index(&a->player), tt), 0);
    }
    mouse_event(a, SDL_MOUSEBUTTONUP, 0, 0);
    CHECK(!a->dragging);
    CHECK_EQ_INT(frame(a), 0);

    // s saves the frame, as big as the window's output.
    text_event(a, "s");
    CHECK_EQ_INT(frame(a), 0);
    CHECK(a->saved[0] != '\0');
    VizImage img;
    CHECK_EQ_INT(tsdl_png_read(a->saved, &img), 0);
    CHECK_EQ_INT(img.w, a->view.px_w);
    CHECK_EQ_INT(img.h, a->view.px_h);
    int rc = check_not_blank(&img);
    viz_image_free(&img);
    CHECK_EQ_INT(rc, 0);
    CHECK(strstr(a->player.message, "saved") != NULL);

    // A window too small says so, and grows back.
    CHECK_EQ_INT(viz_sdl_view_resize(&a->view, 300, 200), SIM_OK);
    a->dirty = 1;
    CHECK_EQ_INT(frame(a), 0);
    CHECK(!a->view.fits);
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = SDL_WINDOWEVENT_SIZE_CHANGED;
    viz_sdl_app_event(a, &e);
    CHECK_EQ_INT(frame(a), 0);
    CHECK(a->view.fits);

    // q quits.
    text_event(a, "q");
    CHECK(a->quit);
    return 0;
}

static int stop_polls; // the stop request's calls (one test window at a time)

static int stop_on_third_poll(void) {
    return ++stop_polls >= 3;
}

static int test_window(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    VizTrace t;
    CHECK_EQ_INT(tsdl_ring_trace(&t, 4, 2, 4096), SIM_OK);
    char err[512];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    VizSource src = {&t, m, NULL, t.n};
    VizViewOpts o;
    viz_view_opts_default(&o);

    // The loop: playing, it quits after N frames.
    unsigned long frames = tenv_quick() ? 10 : 60;
    char n[32];
    snprintf(n, sizeof n, "%lu", frames);
    setenv("DDPLAB_SDL_QUIT_AFTER", n, 1);
    o.autoplay = 1;
    o.speed = 100;
    SimStatus st = viz_sdl_run(&src, &o, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "viz_sdl_run: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    unsetenv("DDPLAB_SDL_QUIT_AFTER");

    // A stop request (a live run's Ctrl-C) closes the window, idle or not.
    stop_polls = 0;
    o.should_stop = stop_on_third_poll;
    o.autoplay = 0;
    st = viz_sdl_run(&src, &o, err, sizeof err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(stop_polls, 3);
    o.should_stop = NULL;

    // The window, event by event; PNGs are saved in the working directory.
    char cwd[1024];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK_EQ_INT(chdir(out_dir), 0);
    VizSdlApp *a = calloc(1, sizeof *a);
    CHECK(a != NULL);
    o.autoplay = 0;
    st = viz_sdl_app_open(a, &src, &o, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "open: %s\n", err);
    int rc = st == SIM_OK ? app_checks(a, m) : 1;
    if (st == SIM_OK)
        viz_sdl_app_close(a);
    free(a);
    CHECK_EQ_INT(chdir(cwd), 0);
    CHECK_EQ_INT(rc, 0);

    // A live source: the window opens before the model exists, waits, then
    // follows the events as they are pulled (here all queued at once).
    VizLive *live = viz_live_new();
    CHECK(live != NULL);
    VizTrace lt;
    CHECK_EQ_INT(viz_trace_init(&lt, t.nranks, &t.info, "live"), SIM_OK);
    VizSource ls = {&lt, NULL, live, 0};
    a = calloc(1, sizeof *a);
    CHECK(a != NULL);
    o.autoplay = 1;
    st = viz_sdl_app_open(a, &ls, &o, err, sizeof err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK(!a->player_ready);
    rc = frame(a); // nothing yet: "waiting for the run's first event"
    if (rc == 0 && a->player_ready)
        rc = 1;
    for (size_t i = 0; i < t.n; i++)
        viz_live_tap(live, &t.ev[i]);
    viz_live_finish(live, SIM_OK);
    for (int k = 0; k < 5 && rc == 0; k++)
        rc = frame(a);
    if (rc == 0 && !(a->player_ready && ls.model != NULL && a->player.available == t.n &&
                     a->player.playing && viz_player_index(&a->player) > 0)) {
        fprintf(stderr, "live: ready %d, available %zu of %zu, index %zu\n", a->player_ready,
                a->player.available, t.n, viz_player_index(&a->player));
        rc = 1;
    }
    viz_sdl_app_close(a);
    free(a);
    viz_live_detach(live);
    viz_model_free(ls.model);
    viz_trace_free(&lt);
    viz_live_free(live);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

static int test_nodisplay(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_ring_trace(&t, 2, 1, 256), SIM_OK);
    char err[512];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    VizSource src = {&t, m, NULL, t.n};
    VizViewOpts o;
    viz_view_opts_default(&o);
    setenv("SDL_VIDEODRIVER", "no-such-driver", 1);
    err[0] = '\0';
    CHECK_EQ_INT(viz_sdl_run(&src, &o, err, sizeof err), SIM_ENOTSUP);
    CHECK_STR_CONTAINS(err, "--viz ncurses");
    // No display at all: SDL falls back to drivers that show nothing.
    unsetenv("SDL_VIDEODRIVER");
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    err[0] = '\0';
    CHECK_EQ_INT(viz_sdl_run(&src, &o, err, sizeof err), SIM_ENOTSUP);
    CHECK_STR_CONTAINS(err, "--viz ncurses");
    // --png needs no display.
    const char *png = out_path("nodisplay-last.png");
    o.png = png;
    o.start = t.n - 1;
    o.png_w = 1000;
    o.png_h = 600;
    SimStatus st = viz_sdl_run(&src, &o, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "--png: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    VizImage img;
    CHECK_EQ_INT(tsdl_png_read(png, &img), 0);
    CHECK_EQ_INT(img.w, 1000);
    CHECK_EQ_INT(img.h, 600);
    viz_image_free(&img);
    // Too small for a frame, or a bad event: said, nothing written.
    o.png_w = 300;
    o.png_h = 200;
    CHECK_EQ_INT(viz_sdl_png(m, 0, 0, &o, out_path("small.png"), err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "80 x 24");
    CHECK(!tfile_exists(out_path("small.png")));
    CHECK_EQ_INT(viz_sdl_png(m, t.n, 0, NULL, out_path("bad.png"), err, sizeof err),
                 SIM_EINVAL);
    CHECK(!tfile_exists(out_path("bad.png")));
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

#endif // DDPLAB_HAVE_SDL

#ifndef DDPLAB_HAVE_SDL
int main(void) {
    char err[256];
    CHECK_EQ_INT(viz_sdl_available(), 0);
    CHECK_EQ_INT(viz_sdl_run(NULL, NULL, err, sizeof err), SIM_ENOTSUP);
    CHECK_STR_CONTAINS(err, "libsdl2-dev libsdl2-ttf-dev");
    printf("skipped: this build has no SDL2\n");
    return 77;
}
#else
int main(int argc, char **argv) {
    const char *part = argc > 1 ? argv[1] : "parts";
    CHECK_EQ_INT(viz_sdl_available(), 1);
    if (!viz_png_available()) {
        printf("skipped: this build has no libpng\n");
        return 77;
    }
    const char *keep = getenv("DDPLAB_SDL_TEST_OUT");
    if (keep && keep[0]) {
        snprintf(out_dir, sizeof out_dir, "%s", keep);
        keep_out = 1;
    } else if (tfile_mkdtemp(out_dir, sizeof out_dir, "sdl") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    if (strcmp(part, "parts") == 0) {
        RUN(test_shapes);
        RUN(test_glyph_cache);
        RUN(test_bar_tween);
        RUN(test_keys);
        RUN(test_instants);
    } else if (strcmp(part, "frames") == 0) {
        RUN(test_ring_frame);
        RUN(test_fsdp_frame);
    } else if (strcmp(part, "window") == 0) {
        RUN(test_window);
    } else if (strcmp(part, "nodisplay") == 0) {
        RUN(test_nodisplay);
    } else {
        fprintf(stderr, "usage: test_viz_sdl parts|frames|window|nodisplay\n");
        failures++;
    }
    if (keep_out)
        printf("PNGs kept in %s\n", out_dir);
    else
        tfile_rmtree(out_dir);
    return failures ? 1 : 0;
}
#endif
