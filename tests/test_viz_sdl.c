// tests/test_viz_sdl.c: the SDL2 view (viz/views.h, viz/view_sdl*.c) and the
// painter it draws with (viz/paint*.c); the charts are tests/test_viz_chart.c.
// Every part runs without a display: frames are painted into cairo image
// surfaces, the window runs on SDL's dummy video driver.
//
//   test_viz_sdl parts    the key map, the instants the animation moves
//                         between (a hand-built trace), a chunk's block
//                         moving monotonically along its edge across the
//                         frames of one ring step, bars tweening
//   test_viz_sdl frames   a ring all_reduce at R = 4 half way through a
//                         step, an FSDP iteration at an all-gather and a
//                         DDP bucket launch, drawn to PNG: decoded, equal to
//                         the frame the view paints, many colours, the
//                         chunks between their ranks in their colours, the
//                         bucket's bar; the same frame as SVG and into
//                         memory (viz_sdl_frame); golden images of three
//                         panels (tests/data/viz_golden_*.png) compared
//                         with a per-pixel tolerance
//   test_viz_sdl window   viz_sdl_run under SDL_VIDEODRIVER=dummy, quitting
//                         after N frames; then the window's handling of
//                         keys, clicks on rank boxes and nodes, a click on
//                         a timeline lane, dragging and the wheel on the
//                         timeline, s (save a PNG) and quit
//   test_viz_sdl nodisplay  an impossible video driver, or no display at
//                         all: SIM_ENOTSUP naming --viz ncurses; --png
//                         still works
//
// Exits 77 (skipped) when the build has no SDL2 or no libpng. With
// DDPLAB_SDL_TEST_OUT=DIR the PNGs are written there and kept.
// DDPLAB_UPDATE_GOLDEN=1 writes the golden images again (into the source
// tree's tests/data) instead of comparing them.
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

// LeakSanitizer's suppressions, read from the program itself: fontconfig
// (which pango loads) keeps its configuration for the process's life, in
// blocks it no longer points at; releasing it with FcFini races pango's
// own font-loading thread. What the view itself allocates is still
// checked.
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
    return "leak:libfontconfig.so\n";
}
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void) {
    return "race:libfontconfig.so\nrace:libpangoft2-1.0.so\nrace:libglib-2.0.so\n";
}

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
    VizRgba b = viz_ink(VIZ_INK_BACKGROUND);
    rgb[0] = (uint8_t)lround(b.r * 255);
    rgb[1] = (uint8_t)lround(b.g * 255);
    rgb[2] = (uint8_t)lround(b.b * 255);
}

static int colour_near(const uint8_t *p, VizRgba c, int tol) {
    return abs(p[0] - (int)lround(c.r * 255)) <= tol && abs(p[1] - (int)lround(c.g * 255)) <= tol &&
           abs(p[2] - (int)lround(c.b * 255)) <= tol;
}

// Pixels of img inside b that are near colour c.
static int count_near(const VizImage *img, VizBox b, VizRgba c, int tol) {
    int n = 0;
    for (int y = (int)b.y; y < (int)(b.y + b.h) && y < img->h; y++)
        for (int x = (int)b.x; x < (int)(b.x + b.w) && x < img->w; x++)
            if (x >= 0 && y >= 0)
                n += colour_near(pixel(img, x, y), c, tol);
    return n;
}

// ----------------------------------------------------------------------------
// parts

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
    // A step's progress follows the instant's time between its ends: the
    // painter's clock at the instant's u between two scenes at t_a and t_b.
    VizScene *s = viz_scene_new(m), *next = viz_scene_new(m);
    CHECK(s != NULL && next != NULL);
    s->now = 0;
    next->now = 1;
    s->coll.running = 1;
    s->coll.step = 0;
    s->coll.step_t0 = 0;
    s->coll.step_t1 = 2;
    in = viz_sdl_instant(m, 6, 1.5); // time 0.5 of the step 0..2
    VizPaint pt;
    memset(&pt, 0, sizeof pt);
    pt.next = next;
    pt.u = in.u;
    CHECK_NEAR(viz_paint_step_fraction(&pt, s), 0.25, 1e-12);
    // The nearest event: on a lane, the one whose span holds the time.
    size_t near = viz_sdl_event_near(&t, 6, 1.2, 1, 0); // rank 1's event of 1 .. 1.5
    CHECK_EQ_INT(t.ev[near].rank, 1);
    CHECK_NEAR(t.ev[near].sim_start, 1, 0);
    CHECK_EQ_INT(viz_sdl_event_near(&t, 6, 2.9, -1, 0), 5);
    CHECK_EQ_INT(viz_sdl_event_near(&t, 6, 0.2, -1, 0), 0); // an instant's first
    viz_scene_free(s);
    viz_scene_free(next);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

// The ring's second step, on an offscreen view at the cursor pos.
static int ring_view(VizModel *m, double pos, VizSdlView *v, VizPlayer *p) {
    char err[256];
    size_t i = (size_t)pos;
    SimStatus st = viz_sdl_offscreen(m, i, pos - (double)i, NULL, VIZ_SDL_PNG_W, VIZ_SDL_PNG_H,
                                     v, p, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "offscreen: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    return 0;
}

static size_t second_step(VizModel *m) {
    size_t i = viz_model_next(m, SIZE_MAX, VIZ_JUMP_COLL_STEP, +1);
    return i == SIZE_MAX ? i : viz_model_next(m, i, VIZ_JUMP_COLL_STEP, +1);
}

// The nodes of the view's collective, as the painter placed them.
static int view_nodes(VizSdlView *v, VizBox *node) {
    VizBox b = viz_paint_coll_area(&v->paint, v->scene, viz_paint_box(&v->paint, v->layout.coll));
    return viz_paint_coll_nodes(v->scene, b, node, VIZ_LAYOUT_MAX_BOXES);
}

// Across the frames of one instant of a ring step, each chunk's block moves
// from its sender's border towards its receiver's, never back.
static int test_chunk_motion(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_ring_trace(&t, 4, 1, 4096), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    size_t i = second_step(m);
    CHECK(i != SIZE_MAX);
    VizSdlInstant in = viz_sdl_instant(m, viz_model_count(m), (double)i);
    CHECK(in.next_ok && in.b > in.a);
    enum { FRAMES = 9 };
    double last_d[VIZ_MAX_XFERS], last_f = -1;
    int rc = 0;
    for (int k = 0; k < FRAMES && rc == 0; k++) {
        double pos = (double)in.a + (double)(in.b - in.a) * k / FRAMES;
        VizSdlView v;
        VizPlayer p;
        if (ring_view(m, pos, &v, &p) != 0) {
            rc = 1;
            break;
        }
        const VizColl *c = &v.scene->coll;
        VizBox node[VIZ_LAYOUT_MAX_BOXES];
        int n = view_nodes(&v, node);
        v.paint.next = v.have_next ? v.next_scene : NULL;
        v.paint.u = v.instant.u;
        double f = viz_paint_step_fraction(&v.paint, v.scene);
        if (!(c->running && c->step == 1 && c->nxfer == 4 && n == 4 && f > last_f)) {
            fprintf(stderr, "frame %d: running %d step %d nxfer %d nodes %d f %.4f (last %.4f)\n",
                    k, c->running, c->step, c->nxfer, n, f, last_f);
            rc = 1;
        }
        for (int x = 0; x < c->nxfer && rc == 0; x++) {
            const VizXfer *xf = &c->xfer[x];
            CHECK_EQ_INT(xf->dst, (xf->src + 1) % 4);
            double cx, cy, x0, y0, x1, y1;
            CHECK(viz_paint_chunk_at(node, n, xf, f, &cx, &cy));
            CHECK(viz_paint_chunk_at(node, n, xf, 0, &x0, &y0));
            CHECK(viz_paint_chunk_at(node, n, xf, 1, &x1, &y1));
            // the ends are on the boxes' borders (within a few pixels)
            VizBox a = node[xf->src], b = node[xf->dst];
            CHECK(x0 >= a.x - 6 && x0 <= a.x + a.w + 6 && y0 >= a.y - 6 && y0 <= a.y + a.h + 6);
            CHECK(x1 >= b.x - 6 && x1 <= b.x + b.w + 6 && y1 >= b.y - 6 && y1 <= b.y + b.h + 6);
            double d = hypot(cx - x0, cy - y0), rest = hypot(x1 - cx, y1 - cy);
            CHECK_NEAR(d + rest, hypot(x1 - x0, y1 - y0), 1e-6); // on the straight edge
            if (k > 0 && !(d > last_d[x])) {
                fprintf(stderr, "frame %d chunk %d: %.3f px from its sender, was %.3f\n", k,
                        xf->chunk, d, last_d[x]);
                rc = 1;
            }
            last_d[x] = d;
        }
        last_f = f;
        viz_sdl_view_free(&v);
    }
    CHECK(last_f > 0.5); // the instant covers most of the step
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

// A bar tweens between two instants: the painter's tween, and the
// bucket's progress in between.
static int test_tween(void) {
    VizPaint p;
    memset(&p, 0, sizeof p);
    CHECK_NEAR(viz_paint_tween(&p, 2, 6), 2, 0); // no next scene: the scene's
    VizScene next;
    memset(&next, 0, sizeof next);
    p.next = &next;
    p.u = 0.25;
    CHECK_NEAR(viz_paint_tween(&p, 2, 6), 3, 1e-12);
    VizScene s;
    memset(&s, 0, sizeof s);
    s.now = 1;
    next.now = 5;
    CHECK_NEAR(viz_paint_now(&p, &s), 2, 1e-12);
    s.coll.running = 1;
    s.coll.step = 0;
    s.coll.step_t0 = 1;
    s.coll.step_t1 = 3;
    CHECK_NEAR(viz_paint_step_fraction(&p, &s), 0.5, 1e-12);
    p.u = 1; // past the step's end: held at its receiver
    CHECK_NEAR(viz_paint_step_fraction(&p, &s), 1, 0);
    s.coll.step = -1; // between steps: nothing moves
    CHECK_NEAR(viz_paint_step_fraction(&p, &s), 0, 0);
    return 0;
}

// ----------------------------------------------------------------------------
// frames

static int check_not_blank(const VizImage *img) {
    uint8_t bg[3];
    bg_rgb(bg);
    int colours = tsdl_distinct_colours(img, 100000);
    double share = tsdl_share_of(img, bg);
    if (colours < 64 || !(share > 0.02 && share < 0.97)) {
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

// Paints event i + frac offscreen, and writes it with viz_sdl_png; checks
// both agree and look like a frame. v stays open for the caller.
static int frame_and_png(VizModel *m, size_t i, double frac, const char *png, VizSdlView *v,
                         VizImage *img) {
    VizPlayer p;
    char err[512];
    SimStatus st = viz_sdl_offscreen(m, i, frac, NULL, VIZ_SDL_PNG_W, VIZ_SDL_PNG_H, v, &p, err,
                                     sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "offscreen: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK(v->fits && v->have_frame && v->layout.ok);
    CHECK_EQ_INT(viz_sdl_view_image(v, img, err, sizeof err), SIM_OK);
    st = viz_sdl_png(m, i, frac, NULL, png, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "viz_sdl_png: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    VizImage dec;
    CHECK_EQ_INT(tsdl_png_read(png, &dec), 0);
    int rc = same_image(&dec, img);
    viz_image_free(&dec);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(check_not_blank(img), 0);
    return 0;
}

static int test_ring_frame(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_ring_trace(&t, 4, 1, 4096), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    size_t i = second_step(m);
    CHECK(i != SIZE_MAX);
    VizSdlView v;
    VizImage img = {0, 0, NULL};
    int rc = frame_and_png(m, i, 0.5, out_path("ring-r4-mid-step.png"), &v, &img);
    if (rc == 0) {
        const VizColl *c = &v.scene->coll;
        CHECK(c->active && c->running);
        CHECK_EQ_INT(c->nxfer, 4);
        VizBox node[VIZ_LAYOUT_MAX_BOXES];
        int n = view_nodes(&v, node);
        CHECK_EQ_INT(n, 4);
        v.paint.next = v.have_next ? v.next_scene : NULL;
        v.paint.u = v.instant.u;
        double f = viz_paint_step_fraction(&v.paint, v.scene);
        CHECK(f > 0.05 && f < 0.95);
        // Each block is where the step's fraction puts it, in its chunk's
        // colour (sampled inside its left edge, clear of its number).
        for (int k = 0; k < c->nxfer; k++) {
            const VizXfer *x = &c->xfer[k];
            double cx, cy;
            CHECK(viz_paint_chunk_at(node, n, x, f, &cx, &cy));
            int hits = count_near(&img, (VizBox){cx - 8, cy - 2, 5, 4},
                                  viz_chunk_colour(x->chunk), 10);
            if (hits < 8) {
                fprintf(stderr, "chunk %d at %.0f,%.0f: %d pixels of its colour\n", x->chunk, cx,
                        cy, hits);
                rc = 1;
            }
        }
        // Every node has its border in its rank's colour (or the selected
        // rank's).
        for (int q = 1; q < n; q++) {
            VizBox b = node[q];
            if (count_near(&img, b, viz_rank_colour(q), 12) < (int)(b.w / 2)) {
                fprintf(stderr, "node %d: its border is missing\n", q);
                rc = 1;
            }
        }
        // The frame at the step's start holds the chunks at their senders.
        VizSdlView v0;
        VizPlayer p0;
        CHECK_EQ_INT(ring_view(m, (double)v.instant.a, &v0, &p0), 0);
        VizImage start;
        CHECK_EQ_INT(viz_sdl_view_image(&v0, &start, err, sizeof err), SIM_OK);
        CHECK(memcmp(start.rgb, img.rgb, (size_t)img.w * (size_t)img.h * 3) != 0);
        viz_image_free(&start);
        viz_sdl_view_free(&v0);
    }
    viz_sdl_view_free(&v); // offscreen set it up (or zeroed it) whatever failed
    viz_image_free(&img);
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
    VizSdlView v;
    VizImage img = {0, 0, NULL};
    int rc = frame_and_png(m, i, 0.5, out_path("fsdp-r4-gather.png"), &v, &img);
    if (rc == 0) {
        CHECK(v.scene->shards.nunits > 1);
        VizBox r = viz_paint_box(&v.paint, v.layout.shards);
        CHECK(r.w > 0 && r.h > 0);
        uint8_t bg[3];
        bg_rgb(bg);
        double ink = tsdl_share_not(&img, (int)r.x, (int)r.y, (int)(r.x + r.w),
                                    (int)(r.y + r.h), bg);
        if (!(ink > 0.005)) { // its card at least
            fprintf(stderr, "shards panel: ink %.3f\n", ink);
            rc = 1;
        }
    }
    viz_sdl_view_free(&v);
    viz_image_free(&img);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

static int load_ddp(VizTrace *t, VizModel **m) {
    char err[512];
    SimStatus st = viz_trace_load(DDPLAB_SDL_TEST_DATA "/viz_ddp_r4.ddptrace", t, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    *m = viz_model_new(t, err, sizeof err);
    CHECK(*m != NULL);
    return 0;
}

// The frame of a DDP bucket's launch shows the bucket's bar, its
// all_reduce under way in the reducing colour, and the state in words.
static int test_bucket_frame(void) {
    VizTrace t;
    VizModel *m;
    CHECK_EQ_INT(load_ddp(&t, &m), 0);
    size_t i = viz_model_next(m, SIZE_MAX, VIZ_JUMP_BUCKET_LAUNCH, +1);
    CHECK(i != SIZE_MAX);
    // a little after the launch: the all_reduce has started on every rank
    size_t k = viz_model_next(m, i, VIZ_JUMP_COLL_STEP, +1);
    CHECK(k != SIZE_MAX);
    VizSdlView v;
    VizImage img = {0, 0, NULL};
    int rc = frame_and_png(m, k, 0.5, out_path("ddp-r4-bucket.png"), &v, &img);
    if (rc == 0) {
        CHECK(v.scene->nbuckets >= 1);
        const VizBucket *b = &v.scene->buckets[v.scene->coll.bucket >= 0 ? v.scene->coll.bucket : 0];
        CHECK_EQ_INT(b->state, VIZ_BUCKET_REDUCING);
        VizBox r = viz_paint_box(&v.paint, v.layout.buckets);
        CHECK(r.w > 0 && r.h > 0);
        int reducing = count_near(&img, r, viz_bucket_colour(VIZ_BUCKET_REDUCING), 6);
        int bar = count_near(&img, r, viz_bucket_colour(VIZ_BUCKET_FILLING), 6) +
                  count_near(&img, r, viz_bucket_colour(VIZ_BUCKET_WAITING), 6);
        if (reducing < 40 || bar < 40) {
            fprintf(stderr, "bucket bar: %d pixels reducing, %d of the gradients\n", reducing,
                    bar);
            rc = 1;
        }
    }
    viz_sdl_view_free(&v);
    // The same frame as SVG: vectors and text, no pixels.
    char err[512];
    const char *svg = out_path("ddp-r4-bucket.svg");
    SimStatus st = viz_sdl_png(m, k, 0.5, NULL, svg, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "svg: %s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    FILE *f = fopen(svg, "r");
    CHECK(f != NULL);
    char head[256] = "";
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[got] = '\0';
    CHECK(strstr(head, "<svg") != NULL);
    // And into memory, as the GIF export takes it: RGBA, the PNG's pixels.
    size_t n = (size_t)VIZ_SDL_PNG_W * VIZ_SDL_PNG_H;
    uint8_t *rgba = malloc(n * 4);
    CHECK(rgba != NULL);
    CHECK_EQ_INT(viz_sdl_frame(m, k, 0.5, NULL, VIZ_SDL_PNG_W, VIZ_SDL_PNG_H, rgba, err,
                               sizeof err),
                 SIM_OK);
    int same = img.rgb != NULL;
    for (size_t q = 0; q < n && same; q++)
        same = rgba[4 * q] == img.rgb[3 * q] && rgba[4 * q + 1] == img.rgb[3 * q + 1] &&
               rgba[4 * q + 2] == img.rgb[3 * q + 2] && rgba[4 * q + 3] == 255;
    free(rgba);
    CHECK(same);
    CHECK_EQ_INT(viz_sdl_frame(m, t.n, 0, NULL, 800, 600, NULL, err, sizeof err), SIM_EINVAL);
    uint8_t tiny[4 * 100 * 100];
    CHECK_EQ_INT(viz_sdl_frame(m, 0, 0, NULL, 100, 100, tiny, err, sizeof err), SIM_EINVAL);
    viz_image_free(&img);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

// How near two paintings of one frame must be: a pixel matches within
// GOLD_TOL on every channel; at most GOLD_SHARE of the pixels may not (text
// rasterised by another version of pango or freetype, or at another
// fraction of a pixel, moves by a pixel here and there).
enum { GOLD_TOL = 40 };
static const double GOLD_SHARE = 0.02;

// The timeline kept between frames: painted once for frames of one scene
// whose clock moves, again when what it shows changes; the frames with the
// cached image show the lanes as painting them straight does.
static int paint_timeline_at(VizPaint *p, cairo_surface_t *sf, const VizScene *s, VizBox b,
                             double u, VizImage *img) {
    p->u = u;
    viz_gfx_set(p->g.cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_paint(p->g.cr);
    viz_paint_timeline(p, s, b);
    cairo_surface_flush(sf);
    int w = cairo_image_surface_get_width(sf), h = cairo_image_surface_get_height(sf);
    img->w = w;
    img->h = h;
    img->rgb = malloc((size_t)w * h * 3);
    CHECK(img->rgb != NULL);
    const uint8_t *d = cairo_image_surface_get_data(sf);
    int stride = cairo_image_surface_get_stride(sf);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t px = ((const uint32_t *)(d + (size_t)y * stride))[x];
            uint8_t *o = img->rgb + 3 * ((size_t)y * w + x);
            o[0] = (uint8_t)(px >> 16);
            o[1] = (uint8_t)(px >> 8);
            o[2] = (uint8_t)px;
        }
    return 0;
}

static int test_timeline_cache(void) {
    VizTrace t;
    VizModel *m;
    CHECK_EQ_INT(load_ddp(&t, &m), 0);
    size_t k = viz_model_next(m, SIZE_MAX, VIZ_JUMP_BUCKET_LAUNCH, +1);
    VizSdlView v;
    VizPlayer p;
    char err[256];
    CHECK_EQ_INT(viz_sdl_offscreen(m, k, 0.5, NULL, 1200, 760, &v, &p, err, sizeof err), SIM_OK);
    CHECK(v.have_next);
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 760, 220);
    cairo_t *cr = cairo_create(sf);
    VizPaint cached, straight;
    CHECK_EQ_INT(viz_paint_init(&cached, cr, 1), SIM_OK);
    CHECK_EQ_INT(viz_paint_init(&straight, cr, 1), SIM_OK);
    cached.cache = viz_paint_cache_new();
    CHECK(cached.cache != NULL);
    cached.next = straight.next = v.next_scene;
    VizBox b = {18, 9.5, 720, 200}; // a corner off the pixel grid
    VizImage a0, a1, s1;
    CHECK_EQ_INT(paint_timeline_at(&cached, sf, v.scene, b, 0.1, &a0), 0);
    CHECK_EQ_INT(viz_paint_cache_misses(cached.cache), 1);
    CHECK_EQ_INT(paint_timeline_at(&cached, sf, v.scene, b, 0.9, &a1), 0);
    CHECK_EQ_INT(viz_paint_cache_misses(cached.cache), 1); // the cursor moved, nothing else
    CHECK(memcmp(a0.rgb, a1.rgb, (size_t)a0.w * a0.h * 3) != 0);
    CHECK_EQ_INT(paint_timeline_at(&straight, sf, v.scene, b, 0.9, &s1), 0);
    size_t n = (size_t)a1.w * a1.h, bad = 0;
    for (size_t q = 0; q < n; q++)
        for (int c = 0; c < 3; c++)
            if (abs(a1.rgb[3 * q + c] - s1.rgb[3 * q + c]) > GOLD_TOL) {
                bad++;
                break;
            }
    CHECK((double)bad / (double)n < GOLD_SHARE);
    cached.selected_rank = 2; // its label changes colour: painted again
    viz_image_free(&a0);
    CHECK_EQ_INT(paint_timeline_at(&cached, sf, v.scene, b, 0.9, &a0), 0);
    CHECK_EQ_INT(viz_paint_cache_misses(cached.cache), 2);
    viz_image_free(&a0);
    viz_image_free(&a1);
    viz_image_free(&s1);
    viz_paint_cache_free(cached.cache);
    viz_paint_done(&cached);
    viz_paint_done(&straight);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    viz_sdl_view_free(&v);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

// ----------------------------------------------------------------------------
// golden images: three panels painted alone on small surfaces, so that
// each is compared by itself, within GOLD_TOL and GOLD_SHARE.


typedef void (*PanelFn)(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox b);

static void panel_coll(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox b) {
    viz_paint_coll(p, s, l, b);
}

static void panel_buckets(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox b) {
    (void)l;
    viz_paint_buckets(p, s, b);
}

static void panel_timeline(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox b) {
    (void)l;
    viz_paint_timeline(p, s, b);
}

static int compare_golden(const char *name, const VizImage *got) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", DDPLAB_SDL_TEST_DATA, name);
    const char *upd = getenv("DDPLAB_UPDATE_GOLDEN");
    if (upd && upd[0] == '1') {
        char err[256];
        CHECK_EQ_INT(viz_png_write(path, got, err, sizeof err), SIM_OK);
        printf("wrote %s\n", path);
        return 0;
    }
    VizImage want;
    if (tsdl_png_read(path, &want) != 0) {
        fprintf(stderr, "%s: no golden image (DDPLAB_UPDATE_GOLDEN=1 writes it)\n", path);
        return 1;
    }
    int rc = 0;
    if (want.w != got->w || want.h != got->h) {
        fprintf(stderr, "%s: %dx%d, the frame is %dx%d\n", name, want.w, want.h, got->w, got->h);
        rc = 1;
    } else {
        size_t n = (size_t)want.w * want.h, bad = 0;
        for (size_t q = 0; q < n; q++)
            for (int c = 0; c < 3; c++)
                if (abs(want.rgb[3 * q + c] - got->rgb[3 * q + c]) > GOLD_TOL) {
                    bad++;
                    break;
                }
        if ((double)bad / (double)n > GOLD_SHARE) {
            fprintf(stderr, "%s: %zu of %zu pixels differ by more than %d\n", name, bad, n,
                    GOLD_TOL);
            rc = 1;
        }
    }
    if (rc != 0) {
        char err[256];
        viz_png_write(out_path(name), got, err, sizeof err);
        fprintf(stderr, "the frame painted now: %s\n", out_path(name));
    }
    viz_image_free(&want);
    return rc;
}

// Panel fn of the view's scene on a w x h surface.
static int golden_panel(VizSdlView *v, PanelFn fn, int w, int h, const char *name) {
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(sf);
    VizPaint p;
    CHECK_EQ_INT(viz_paint_init(&p, cr, 1), SIM_OK);
    p.next = v->have_next ? v->next_scene : NULL;
    p.u = v->instant.u;
    viz_gfx_set(cr, viz_ink(VIZ_INK_BACKGROUND));
    cairo_paint(cr);
    fn(&p, v->scene, &v->layout, (VizBox){0, 0, w, h});
    viz_paint_done(&p);
    cairo_destroy(cr);
    cairo_surface_flush(sf);
    VizImage img = {w, h, malloc((size_t)w * h * 3)};
    CHECK(img.rgb != NULL);
    const uint8_t *d = cairo_image_surface_get_data(sf);
    int stride = cairo_image_surface_get_stride(sf);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t px = ((const uint32_t *)(d + (size_t)y * stride))[x];
            uint8_t *o = img.rgb + 3 * ((size_t)y * w + x);
            o[0] = (uint8_t)(px >> 16);
            o[1] = (uint8_t)(px >> 8);
            o[2] = (uint8_t)px;
        }
    cairo_surface_destroy(sf);
    int rc = compare_golden(name, &img);
    viz_image_free(&img);
    return rc;
}

static int test_golden(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_ring_trace(&t, 4, 1, 4096), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    size_t i = second_step(m);
    VizSdlView v;
    VizPlayer p;
    int rc = ring_view(m, (double)i + 0.5, &v, &p);
    if (rc == 0) {
        rc |= golden_panel(&v, panel_coll, 640, 280, "viz_golden_ring_r4.png");
        viz_sdl_view_free(&v);
    }
    viz_model_free(m);
    viz_trace_free(&t);
    CHECK_EQ_INT(load_ddp(&t, &m), 0);
    size_t k = viz_model_next(m, viz_model_next(m, SIZE_MAX, VIZ_JUMP_BUCKET_LAUNCH, +1),
                              VIZ_JUMP_COLL_STEP, +1);
    CHECK(k != SIZE_MAX);
    if (viz_sdl_offscreen(m, k, 0.5, NULL, 1200, 760, &v, &p, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "offscreen: %s\n", err);
        rc = 1;
    } else {
        rc |= golden_panel(&v, panel_buckets, 720, 56, "viz_golden_buckets_r4.png");
        rc |= golden_panel(&v, panel_timeline, 720, 200, "viz_golden_timeline_r4.png");
        viz_sdl_view_free(&v);
    }
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

// A mouse event at output pixel (px, py).
static void mouse_event(VizSdlApp *a, Uint32 type, double px, double py) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    int x = (int)(px / a->scale), y = (int)(py / a->scale);
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

static void wheel_event(VizSdlApp *a, int dy, double px, double py) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEWHEEL;
    e.wheel.y = dy;
    e.wheel.mouseX = (int)(px / a->scale);
    e.wheel.mouseY = (int)(py / a->scale);
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

static int timeline_checks(VizSdlApp *a, VizModel *m) {
    VizSdlView *v = &a->view;
    VizBox tb = viz_paint_box(&v->paint, v->layout.timeline);
    VizBox lanes = viz_paint_timeline_lanes(&v->paint, v->scene, tb);
    const VizTimeline *tl = &v->scene->timeline;
    CHECK(lanes.w > 100 && lanes.h > 0 && tl->nranks >= 2 && tl->t1 > tl->t0);
    // A click on rank tl->ranks[1]'s compute lane, two thirds of the way in:
    // the cursor goes to that rank's event there, the rank is selected.
    double t0 = tl->t0, t1 = tl->t1, px = lanes.x + lanes.w * 2 / 3;
    int lane_rank = tl->ranks[1];
    double py = lanes.y + v->paint.cell_h * 2 + 4; // the second pair of lanes
    double t;
    int rank;
    CHECK(viz_paint_timeline_at(&v->paint, v->scene, tb, px, py, &t, &rank));
    CHECK_EQ_INT(rank, lane_rank);
    CHECK_NEAR(t, t0 + (t1 - t0) * 2 / 3, (t1 - t0) / lanes.w);
    mouse_event(a, SDL_MOUSEBUTTONDOWN, px, py);
    CHECK(a->dragging);
    size_t at = viz_player_index(&a->player);
    const SimEvent *ev = &viz_model_trace(m)->ev[at];
    CHECK_EQ_INT(ev->rank, lane_rank);
    CHECK_EQ_INT(a->player.selected_rank, lane_rank);
    CHECK_EQ_INT(at, viz_sdl_event_near(viz_model_trace(m), viz_model_count(m), t, lane_rank, 0));
    CHECK_EQ_INT(frame(a), 0);
    // Dragging right pans the window towards earlier times: the cursor
    // moves back.
    mouse_event(a, SDL_MOUSEMOTION, px + lanes.w / 4, py);
    size_t after = viz_player_index(&a->player);
    if (!(after != at && viz_model_trace(m)->ev[after].sim_start <= ev->sim_start)) {
        fprintf(stderr, "drag: from event %zu (t %.9g) to %zu (t %.9g); window %.9g .. %.9g\n",
                at, ev->sim_start, after, viz_model_trace(m)->ev[after].sim_start, t0, t1);
        return 1;
    }
    mouse_event(a, SDL_MOUSEBUTTONUP, px, py);
    CHECK(!a->dragging);
    CHECK_EQ_INT(frame(a), 0);
    // The wheel over the timeline zooms it in and out again; elsewhere it
    // steps events.
    int zoom = a->player.zoom;
    wheel_event(a, 1, px, py);
    CHECK_EQ_INT(a->player.zoom, zoom + 1);
    CHECK_EQ_INT(frame(a), 0);
    CHECK(a->view.scene->timeline.t1 - a->view.scene->timeline.t0 < (t1 - t0) * 0.75);
    wheel_event(a, -1, px, py);
    CHECK_EQ_INT(a->player.zoom, zoom);
    size_t before = viz_player_index(&a->player);
    wheel_event(a, -1, 10, 5); // over the header
    CHECK_EQ_INT(viz_player_index(&a->player), before + 1);
    CHECK_EQ_INT(frame(a), 0);
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
    text_event(a, "?"); // the help overlay, and any key closes it
    CHECK_EQ_INT(a->player.help, 1);
    CHECK_EQ_INT(frame(a), 0);
    text_event(a, "s"); // saved with the overlay: its card in the middle
    CHECK_EQ_INT(frame(a), 0);
    CHECK(a->saved[0] != '\0');
    VizImage help;
    CHECK_EQ_INT(tsdl_png_read(a->saved, &help), 0);
    int cw = help.w / 6, ch = help.h / 6;
    int card = count_near(&help, (VizBox){help.w / 2 - cw, help.h / 2 - ch, 2 * cw, 2 * ch},
                          viz_ink(VIZ_INK_PANEL), 2);
    int keys = count_near(&help, (VizBox){help.w / 2 - cw * 2, help.h / 2 - ch * 2, 4 * cw,
                                          4 * ch}, viz_ink(VIZ_INK_SELECTED), 40);
    viz_image_free(&help);
    CHECK(card > cw * ch * 2);  // the card fills the middle
    CHECK(keys > 200);          // the keys' names in their colour
    text_event(a, "?");
    CHECK_EQ_INT(a->player.help, 0);
    // Step into the first collective step, so the ring is drawn.
    size_t step = viz_model_next(m, SIZE_MAX, VIZ_JUMP_COLL_STEP, +1);
    CHECK(step != SIZE_MAX);
    a->player.pos = (double)step;
    a->dirty = 1;
    CHECK_EQ_INT(frame(a), 0);
    // A frame with nothing new is not painted again.
    unsigned long paints = a->view.paints;
    a->dirty = 1;
    CHECK_EQ_INT(frame(a), 0);
    CHECK_EQ_INT(a->view.paints, paints);

    // Clicks select ranks: a rank box, then a node of the ring.
    VizSdlView *v = &a->view;
    const VizLayout *l = &v->layout;
    CHECK(l->nboxes >= 3);
    VizBox b = viz_paint_box(&v->paint, l->box[2]);
    mouse_event(a, SDL_MOUSEBUTTONDOWN, b.x + b.w / 2, b.y + b.h / 2);
    mouse_event(a, SDL_MOUSEBUTTONUP, b.x + b.w / 2, b.y + b.h / 2);
    CHECK_EQ_INT(a->player.selected_rank, l->first_box + 2);
    CHECK_EQ_INT(frame(a), 0);
    VizBox node[VIZ_LAYOUT_MAX_BOXES];
    CHECK(view_nodes(v, node) >= 2);
    mouse_event(a, SDL_MOUSEBUTTONDOWN, node[1].x + node[1].w / 2, node[1].y + node[1].h / 2);
    mouse_event(a, SDL_MOUSEBUTTONUP, node[1].x + node[1].w / 2, node[1].y + node[1].h / 2);
    CHECK_EQ_INT(a->player.selected_rank, 1);
    CHECK_EQ_INT(frame(a), 0);

    CHECK_EQ_INT(timeline_checks(a, m), 0);

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
    CHECK_STR_CONTAINS(err, "too small");
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
    CHECK_STR_CONTAINS(err, "libsdl2-dev libcairo2-dev libpango1.0-dev");
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
        RUN(test_keys);
        RUN(test_instants);
        RUN(test_chunk_motion);
        RUN(test_tween);
    } else if (strcmp(part, "frames") == 0) {
        RUN(test_ring_frame);
        RUN(test_fsdp_frame);
        RUN(test_bucket_frame);
        RUN(test_timeline_cache);
        RUN(test_golden);
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
