// tests/test_viz_gif.c: animated GIFs (viz/gif.h) and the frames they are
// made of (viz_sdl_frame, viz/views.h).
//
//   test_viz_gif writer   the palette on synthetic pictures (exact colours
//                         kept when there are 256 or fewer; else the most
//                         popular 5-bit buckets, each as its commonest
//                         colour, and every colour its nearest entry); the
//                         changed rectangle and its transparent index;
//                         files of synthetic frames decoded back with
//                         giflib: the same pictures, the loop, the delays,
//                         small rectangles; bad specs, a path that cannot
//                         be written and a frame that fails to draw
//   test_viz_gif frames   a ring all_reduce at R = 4 and an FSDP iteration
//                         drawn by the SDL2 view: each frame of the GIF is
//                         the frame viz_sdl_frame draws for its event (to
//                         the palette's mapping), which is the PNG
//                         viz_sdl_png writes for it; in-between frames
//
// A part exits 77 (skipped) when the build lacks what it needs (giflib for
// the files; SDL2 and libpng for frames). With DDPLAB_GIF_TEST_OUT=DIR the
// files are written there and kept.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "gif.h"
#include "image.h" // defines: VizImage, viz_png_available
#include "test_files.h"
#include "test_gif_util.h"
#include "test_viz_sdl_util.h"
#include "views.h"

// fontconfig (loaded by pango) keeps its configuration for the whole
// process, and loads it on a thread of its own: neither is this code's.
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

static const char *out_path(const char *name) {
    static char buf[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", out_dir, name);
    return buf[k];
}

static void set_px(uint8_t *rgba, int w, int x, int y, uint32_t rgb) {
    uint8_t *p = rgba + 4 * ((size_t)y * (size_t)w + (size_t)x);
    p[0] = (uint8_t)(rgb >> 16);
    p[1] = (uint8_t)(rgb >> 8);
    p[2] = (uint8_t)rgb;
    p[3] = 255;
}

static int in_palette(const VizGifPalette *p, uint32_t rgb) {
    for (int i = 0; i < p->n; i++)
        if (((uint32_t)p->rgb[i][0] << 16 | (uint32_t)p->rgb[i][1] << 8 | p->rgb[i][2]) == rgb)
            return 1;
    return 0;
}

static long dist2(const uint8_t a[3], const uint8_t b[3]) {
    long d = 0;
    for (int j = 0; j < 3; j++)
        d += ((long)a[j] - b[j]) * ((long)a[j] - b[j]);
    return d;
}

// ----------------------------------------------------------------------------
// The palette

// 200 colours, each on a different number of pixels: all kept exactly, the
// commonest first, and each maps to its own entry.
static int test_palette_exact(void) {
    enum { W = 200, H = 20 };
    uint8_t *rgba = calloc((size_t)W * H, 4);
    CHECK(rgba != NULL);
    for (int x = 0; x < W; x++)
        for (int y = 0; y < H; y++) // colour x covers column x down to row x % 20
            set_px(rgba, W, x, y, y <= x % H ? (uint32_t)x * 0x010203u : 0x0a0b0cu);
    VizGifCount *c = viz_gif_count_new();
    CHECK(c != NULL);
    CHECK_EQ_INT(viz_gif_count_add(c, rgba, (size_t)W * H), SIM_OK);
    CHECK_EQ_INT(viz_gif_count_distinct(c), 201);
    VizGifPalette p;
    CHECK_EQ_INT(viz_gif_palette_choose(c, &p), SIM_OK);
    CHECK_EQ_INT(p.n, 201);
    CHECK(p.rgb[0][0] == 0x0a && p.rgb[0][1] == 0x0b && p.rgb[0][2] == 0x0c); // the most pixels
    uint8_t *idx = malloc((size_t)W * H);
    CHECK(idx != NULL);
    viz_gif_map(c, &p, rgba, (size_t)W * H, idx);
    for (size_t k = 0; k < (size_t)W * H; k++)
        CHECK(memcmp(p.rgb[idx[k]], rgba + 4 * k, 3) == 0);
    free(idx);
    viz_gif_count_free(c);
    free(rgba);
    // Nothing counted: one colour, black.
    c = viz_gif_count_new();
    CHECK_EQ_INT(viz_gif_palette_choose(c, &p), SIM_OK);
    CHECK_EQ_INT(p.n, 1);
    viz_gif_count_free(c);
    return 0;
}

// 300 buckets (5 bits a channel), bucket b on 1000 - b pixels of its base
// colour and 3 of a neighbour in the same bucket: the 256 commonest
// buckets are kept, each as its base colour (not the neighbour); the rest
// map to their nearest entry.
static int test_palette_buckets(void) {
    enum { NB = 300 };
    size_t n = 0;
    for (int b = 0; b < NB; b++)
        n += 1003 - (size_t)b;
    uint8_t *rgba = calloc(n, 4);
    CHECK(rgba != NULL);
    uint32_t base[NB];
    size_t k = 0;
    for (int b = 0; b < NB; b++) {
        // each in a bucket of its own: r and g step by 8 and 24
        base[b] = (uint32_t)(b % 32) * 8 << 16 | (uint32_t)(b / 32) * 24 << 8 | 64;
        for (int j = 0; j < 1003 - b; j++, k++) {
            uint32_t rgb = j < 1000 - b ? base[b] : base[b] + 3; // blue 67: the same bucket
            uint8_t *q = rgba + 4 * k;
            q[0] = (uint8_t)(rgb >> 16), q[1] = (uint8_t)(rgb >> 8), q[2] = (uint8_t)rgb;
            q[3] = 255;
        }
    }
    VizGifCount *c = viz_gif_count_new();
    CHECK(c != NULL);
    CHECK_EQ_INT(viz_gif_count_add(c, rgba, n), SIM_OK);
    CHECK_EQ_INT(viz_gif_count_distinct(c), 2 * NB);
    VizGifPalette p;
    CHECK_EQ_INT(viz_gif_palette_choose(c, &p), SIM_OK);
    CHECK_EQ_INT(p.n, VIZ_GIF_MAX_COLOURS);
    for (int b = 0; b < NB; b++) {
        CHECK_EQ_INT(in_palette(&p, base[b]), b < VIZ_GIF_MAX_COLOURS);
        CHECK(!in_palette(&p, base[b] + 3));
    }
    // every pixel: its nearest entry (checked by brute force here)
    uint8_t *idx = malloc(n);
    CHECK(idx != NULL);
    viz_gif_map(c, &p, rgba, n, idx);
    for (k = 0; k < n; k += 7) {
        long best = -1;
        for (int i = 0; i < p.n; i++) {
            long d = dist2(p.rgb[i], rgba + 4 * k);
            best = best < 0 || d < best ? d : best;
        }
        CHECK_EQ_INT(dist2(p.rgb[idx[k]], rgba + 4 * k), best);
    }
    // a colour never counted maps to its nearest too
    const uint8_t odd[4] = {base[3] >> 16, (base[3] >> 8) & 255, (base[3] & 255) + 1, 255};
    uint8_t one;
    viz_gif_map(c, &p, odd, 1, &one);
    CHECK_EQ_INT(one, viz_gif_nearest(&p, odd));
    CHECK(dist2(p.rgb[one], odd) <= 1);
    free(idx);
    viz_gif_count_free(c);
    free(rgba);
    return 0;
}

// ----------------------------------------------------------------------------
// The changed rectangle

static int test_rect(void) {
    enum { W = 10, H = 8 };
    uint8_t prev[W * H], cur[W * H], row[W];
    memset(prev, 1, sizeof prev);
    memcpy(cur, prev, sizeof cur);
    VizGifRect r = viz_gif_changed(prev, cur, W, H, 5);
    CHECK(r.x == 0 && r.y == 0 && r.w == 1 && r.h == 1 && r.transparent == 5);
    cur[2 * W + 3] = 7; // (3, 2)
    cur[5 * W + 6] = 1; // unchanged
    cur[4 * W + 8] = 9; // (8, 4)
    r = viz_gif_changed(prev, cur, W, H, 5);
    CHECK(r.x == 3 && r.y == 2 && r.w == 6 && r.h == 3 && r.transparent == 5);
    viz_gif_rect_row(&r, prev, cur, W, 2, row);
    CHECK(row[0] == 7 && row[1] == 5 && row[5] == 5);
    viz_gif_rect_row(&r, prev, cur, W, 4, row);
    CHECK(row[5] == 9 && row[0] == 5);
    // No spare: the lowest index no changed pixel uses; 1 is used by
    // unchanged pixels only, so it is free.
    cur[2 * W + 4] = 0;
    r = viz_gif_changed(prev, cur, W, H, -1);
    CHECK_EQ_INT(r.transparent, 1);
    // All 256 used by changed pixels: none, and rows are stored as they are.
    enum { BW = 256 };
    static uint8_t bp[BW * 2], bc[BW * 2];
    for (int x = 0; x < BW; x++) {
        bp[x] = (uint8_t)(x + 1);
        bc[x] = (uint8_t)x;
        bp[BW + x] = bc[BW + x] = 3;
    }
    r = viz_gif_changed(bp, bc, BW, 2, -1);
    CHECK(r.x == 0 && r.w == BW && r.h == 1 && r.transparent == -1);
    uint8_t brow[BW];
    viz_gif_rect_row(&r, bp, bc, BW, 0, brow);
    CHECK(memcmp(brow, bc, BW) == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// Files of synthetic frames

// A square of SIDE pixels in one colour moving right on a flat background
// with a stripe of a second colour; frame `still` repeats the one before.
typedef struct {
    int w, h;
    int still;
    int gradient;  // 1: a background of > 256 colours
    int fail_at;   // a frame that fails to draw (-1: none)
    int calls;     // draws made
    int reported[2]; // frames each pass reported done (count_progress)
} Synth;

static void synth_draw_into(const Synth *s, size_t k, uint8_t *rgba) {
    size_t pos = (int)k > s->still && s->still >= 0 ? k - 1 : k;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            uint32_t rgb = y < 4 ? 0x3050a0u : 0x101418u;
            if (s->gradient)
                rgb = (uint32_t)(x * 255 / s->w) << 16 | (uint32_t)(y * 255 / s->h) << 8 | 0x40;
            if (x >= 5 + 6 * (int)pos && x < 15 + 6 * (int)pos && y >= 10 && y < 20)
                rgb = 0xe0a040u;
            set_px(rgba, s->w, x, y, rgb);
        }
}

static SimStatus synth_draw(void *ctx, size_t k, uint8_t *rgba, char *err, size_t errlen) {
    Synth *s = ctx;
    s->calls++;
    if ((int)k == s->fail_at) {
        snprintf(err, errlen, "the synthetic frame would not draw");
        return SIM_EIO;
    }
    synth_draw_into(s, k, rgba);
    return SIM_OK;
}

// Every frame of the file at path is s's, exactly.
static int same_frames(const char *path, Synth *s, size_t frames) {
    TgifAnim a;
    CHECK_EQ_INT(tgif_open(&a, path), 0);
    int rc = 0;
    uint8_t *want = malloc((size_t)s->w * (size_t)s->h * 4);
    CHECK(want != NULL);
    if (a.frames != (int)frames || a.w != s->w || a.h != s->h)
        rc = 1;
    for (int k = 0; rc == 0 && k < a.frames; k++) {
        synth_draw_into(s, (size_t)k, want);
        if (tgif_show(&a, k) != 0)
            rc = 1;
        for (size_t i = 0; rc == 0 && i < (size_t)s->w * (size_t)s->h; i++)
            if (memcmp(a.rgb + 3 * i, want + 4 * i, 3) != 0) {
                fprintf(stderr, "frame %d, pixel %zu differs\n", k, i);
                rc = 1;
            }
    }
    free(want);
    tgif_close(&a);
    return rc;
}

static int test_write_flat(void) {
    Synth s = {64, 40, 3, 0, -1, 0, {0, 0}};
    const int delays[6] = {10, 20, 30, 40, 50, 150};
    VizGifSpec spec = {s.w, s.h, 6, 0, delays, synth_draw, &s, NULL};
    char err[256] = "";
    SimStatus st = viz_gif_write(out_path("flat.gif"), &spec, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(s.calls, 12); // two passes
    CHECK_EQ_INT(same_frames(out_path("flat.gif"), &s, 6), 0);
    TgifAnim a;
    CHECK_EQ_INT(tgif_open(&a, out_path("flat.gif")), 0);
    CHECK_EQ_INT(tgif_loops(&a), 0);
    for (int k = 0; k < 6; k++)
        CHECK_EQ_INT(tgif_delay(&a, k), delays[k]);
    // three colours: a map of 4 (one spare for transparency)
    CHECK_EQ_INT(tgif_map_size(&a), 4);
    int r[4];
    tgif_rect(&a, 0, r);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 64 && r[3] == 40);
    tgif_rect(&a, 1, r); // the square moved 6 to the right: 16 x 10
    CHECK(r[0] == 5 && r[1] == 10 && r[2] == 16 && r[3] == 10);
    tgif_rect(&a, 4, r); // frame 4 repeats frame 3: one transparent pixel
    CHECK(r[2] == 1 && r[3] == 1);
    tgif_close(&a);
    // one frame, a uniform delay
    VizGifSpec one = {s.w, s.h, 1, 7, NULL, synth_draw, &s, NULL};
    CHECK_EQ_INT(viz_gif_write(out_path("one.gif"), &one, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(tgif_open(&a, out_path("one.gif")), 0);
    CHECK_EQ_INT(a.frames, 1);
    CHECK_EQ_INT(tgif_delay(&a, 0), 7);
    tgif_close(&a);
    return 0;
}

// Progress: each pass reports every frame in order, as k of n.
static void count_progress(void *ctx, int pass, size_t k, size_t n) {
    Synth *s = ctx;
    if (pass >= 1 && pass <= 2 && k == (size_t)s->reported[pass - 1] && n == 5)
        s->reported[pass - 1]++;
    else
        s->reported[0] = -1000; // out of order
}

// More than 256 colours: each decoded pixel is the palette entry nearest
// the drawn one (the map's nearest: its padding repeats palette colours).
static int test_write_many(void) {
    Synth s = {96, 64, -1, 1, -1, 0, {0, 0}};
    VizGifSpec spec = {s.w, s.h, 5, 10, NULL, synth_draw, &s, count_progress};
    char err[256] = "";
    CHECK_EQ_INT(viz_gif_write(out_path("many.gif"), &spec, err, sizeof err), SIM_OK);
    TgifAnim a;
    CHECK_EQ_INT(tgif_open(&a, out_path("many.gif")), 0);
    CHECK_EQ_INT(a.frames, 5);
    CHECK(s.reported[0] == 5 && s.reported[1] == 5);
    CHECK_EQ_INT(tgif_map_size(&a), 256);
    uint8_t *want = malloc((size_t)s.w * (size_t)s.h * 4);
    CHECK(want != NULL);
    size_t exact = 0, all = 0;
    for (int k = 0; k < 5; k++) {
        synth_draw_into(&s, (size_t)k, want);
        CHECK_EQ_INT(tgif_show(&a, k), 0);
        for (size_t i = 0; i < (size_t)s.w * (size_t)s.h; i++) {
            long d = dist2(a.rgb + 3 * i, want + 4 * i);
            CHECK_EQ_INT(d, tgif_nearest_d2(&a, want + 4 * i));
            exact += d == 0;
            all++;
        }
    }
    CHECK(exact > 0 && exact < all);
    free(want);
    tgif_close(&a);
    return 0;
}

static int test_write_errors(void) {
    Synth s = {32, 24, -1, 0, -1, 0, {0, 0}};
    char err[256] = "";
    VizGifSpec none = {32, 24, 0, 10, NULL, synth_draw, &s, NULL};
    CHECK_EQ_INT(viz_gif_write(out_path("x.gif"), &none, err, sizeof err), SIM_EINVAL);
    VizGifSpec big = {VIZ_GIF_MAX_SIDE + 1, 24, 1, 10, NULL, synth_draw, &s, NULL};
    CHECK_EQ_INT(viz_gif_write(out_path("x.gif"), &big, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "8192");
    VizGifSpec slow = {32, 24, 1, 70000, NULL, synth_draw, &s, NULL};
    CHECK_EQ_INT(viz_gif_write(out_path("x.gif"), &slow, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "delay");
    struct stat sb;
    CHECK(stat(out_path("x.gif"), &sb) != 0);
    // a directory that does not exist: nothing drawn, nothing left
    VizGifSpec ok = {32, 24, 3, 10, NULL, synth_draw, &s, NULL};
    s.calls = 0;
    CHECK_EQ_INT(viz_gif_write(out_path("no/such/dir/x.gif"), &ok, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "no/such/dir/x.gif");
    CHECK_EQ_INT(s.calls, 0);
    // a frame that fails in the second pass: its message, and the file
    // that was there before is untouched
    const char before[] = "the old file";
    CHECK_EQ_INT(tfile_write(out_path("keep.gif"), before, sizeof before - 1), 0);
    s.fail_at = 2;
    CHECK_EQ_INT(viz_gif_write(out_path("keep.gif"), &ok, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "frame 3 of 3");
    CHECK_STR_CONTAINS(err, "would not draw");
    size_t n = 0;
    char *kept = tfile_read(out_path("keep.gif"), &n);
    CHECK(kept != NULL && n == sizeof before - 1 && memcmp(kept, before, n) == 0);
    free(kept);
    return 0;
}

// ----------------------------------------------------------------------------
// Frames of the SDL2 view

enum { FW = 800, FH = 500 }; // small, fast, and above the layout's least

typedef struct {
    VizModel *m;
    size_t first;
    int tween;
} ViewAnim;

static void view_at(const ViewAnim *v, size_t k, size_t *i, double *frac) {
    size_t per = (size_t)v->tween + 1;
    *i = v->first + k / per;
    *frac = (double)(k % per) / (double)per;
}

static SimStatus view_draw(void *ctx, size_t k, uint8_t *rgba, char *err, size_t errlen) {
    const ViewAnim *v = ctx;
    size_t i;
    double frac;
    view_at(v, k, &i, &frac);
    return viz_sdl_frame(v->m, i, frac, NULL, FW, FH, rgba, err, errlen);
}

// Writes frames of v to name and checks each decoded frame against
// viz_sdl_frame's: exactly the palette's mapping of it (the palette chosen
// here from the same frames), and exact on most pixels.
static int gif_of_view(ViewAnim *v, size_t frames, const char *name) {
    VizGifSpec spec = {FW, FH, frames, 10, NULL, view_draw, v, NULL};
    char err[512] = "";
    SimStatus st = viz_gif_write(out_path(name), &spec, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "%s: %s\n", name, err);
    CHECK_EQ_INT(st, SIM_OK);
    size_t npix = (size_t)FW * FH;
    uint8_t *rgba = malloc(npix * 4), *idx = malloc(npix);
    VizGifCount *c = viz_gif_count_new();
    CHECK(rgba != NULL && idx != NULL && c != NULL);
    for (size_t k = 0; k < frames; k++) {
        CHECK_EQ_INT(view_draw(v, k, rgba, err, sizeof err), SIM_OK);
        CHECK_EQ_INT(viz_gif_count_add(c, rgba, npix), SIM_OK);
    }
    VizGifPalette p;
    CHECK_EQ_INT(viz_gif_palette_choose(c, &p), SIM_OK);
    TgifAnim a;
    CHECK_EQ_INT(tgif_open(&a, out_path(name)), 0);
    CHECK_EQ_INT(a.frames, (int)frames);
    CHECK_EQ_INT(tgif_loops(&a), 0);
    size_t exact = 0, near = 0;
    for (size_t k = 0; k < frames; k++) {
        CHECK_EQ_INT(view_draw(v, k, rgba, err, sizeof err), SIM_OK);
        viz_gif_map(c, &p, rgba, npix, idx);
        CHECK_EQ_INT(tgif_show(&a, (int)k), 0);
        CHECK_EQ_INT(tgif_delay(&a, (int)k), 10);
        for (size_t i = 0; i < npix; i++) {
            if (memcmp(a.rgb + 3 * i, p.rgb[idx[i]], 3) != 0) {
                fprintf(stderr, "%s: frame %zu, pixel %zu is not the palette's\n", name, k, i);
                return 1;
            }
            long d = dist2(a.rgb + 3 * i, rgba + 4 * i);
            exact += d == 0;
            near += d < 64; // within 8 on one channel, or about 4.6 on each
        }
    }
    // Flat colours stay exact; what is lost is antialiased edges' shades
    // (at 800 x 500 the frame is nearly all text).
    double share = (double)exact / (double)(npix * frames);
    double share_near = (double)near / (double)(npix * frames);
    printf("%s: %zu frames, %zu colours drawn, palette %d, %.4f of pixels exact, %.4f "
           "near\n", name, frames, viz_gif_count_distinct(c), p.n, share, share_near);
    CHECK(share > 0.9);
    CHECK(share_near > 0.99);
    tgif_close(&a);
    viz_gif_count_free(c);
    free(rgba);
    free(idx);
    return 0;
}

// viz_sdl_frame's picture of event i is the PNG viz_sdl_png writes for it.
static int frame_is_png(VizModel *m, size_t i, const char *name) {
    char err[512] = "";
    VizViewOpts o;
    viz_view_opts_default(&o);
    o.png_w = FW;
    o.png_h = FH;
    CHECK_EQ_INT(viz_sdl_png(m, i, 0.0, &o, out_path(name), err, sizeof err), SIM_OK);
    VizImage png;
    CHECK_EQ_INT(tsdl_png_read(out_path(name), &png), 0);
    CHECK(png.w == FW && png.h == FH);
    uint8_t *rgba = malloc((size_t)FW * FH * 4);
    CHECK(rgba != NULL);
    CHECK_EQ_INT(viz_sdl_frame(m, i, 0.0, &o, FW, FH, rgba, err, sizeof err), SIM_OK);
    for (size_t k = 0; k < (size_t)FW * FH; k++) {
        CHECK(memcmp(png.rgb + 3 * k, rgba + 4 * k, 3) == 0);
        CHECK_EQ_INT(rgba[4 * k + 3], 255);
    }
    free(rgba);
    viz_image_free(&png);
    return 0;
}

static int test_frame_errors(VizModel *m) {
    char err[512] = "";
    uint8_t px[4 * 64];
    size_t n = viz_model_count(m);
    CHECK_EQ_INT(viz_sdl_frame(m, n, 0, NULL, 8, 8, px, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "events");
    CHECK_EQ_INT(viz_sdl_frame(m, 0, 0, NULL, 8, 8, px, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "at least");
    return 0;
}

static int tween_moves(VizModel *m, size_t i) {
    size_t npix = (size_t)FW * FH;
    uint8_t *a = malloc(npix * 4), *b = malloc(npix * 4), *c = malloc(npix * 4);
    CHECK(a != NULL && b != NULL && c != NULL);
    char err[512];
    CHECK_EQ_INT(viz_sdl_frame(m, i, 0.0, NULL, FW, FH, a, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(viz_sdl_frame(m, i, 1.0 / 3, NULL, FW, FH, b, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(viz_sdl_frame(m, i + 1, 0.0, NULL, FW, FH, c, err, sizeof err), SIM_OK);
    CHECK(memcmp(a, b, npix * 4) != 0);
    CHECK(memcmp(b, c, npix * 4) != 0);
    free(a);
    free(b);
    free(c);
    return 0;
}

static int test_ring_gif(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_ring_trace(&t, 4, 1, 4096), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    size_t i = viz_model_next(m, SIZE_MAX, VIZ_JUMP_COLL_STEP, +1);
    CHECK(i != SIZE_MAX && i + 8 <= viz_model_count(m));
    int rc = test_frame_errors(m);
    ViewAnim v = {m, i, 0};
    if (rc == 0)
        rc = gif_of_view(&v, 8, "ring.gif"); // 8 events: 8 frames
    if (rc == 0)
        rc = frame_is_png(m, i + 3, "ring-3.png");
    // 4 events with 2 frames between each: 4 + 3 * 2, the chunks moving
    // (an in-between frame is neither event's)
    if (rc == 0)
        rc = tween_moves(m, i);
    v.tween = 2;
    if (rc == 0)
        rc = gif_of_view(&v, 4 + 3 * 2, "ring-tween.gif");
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

static int test_fsdp_gif(void) {
    VizTrace t;
    CHECK_EQ_INT(tsdl_fsdp_trace(&t, 2, 1), SIM_OK);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    size_t i = viz_model_next(m, SIZE_MAX, VIZ_JUMP_GATHER, +1);
    CHECK(i != SIZE_MAX && i + 6 <= viz_model_count(m));
    ViewAnim v = {m, i, 0};
    int rc = gif_of_view(&v, 6, "fsdp.gif");
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

// ----------------------------------------------------------------------------

static int writer_part(void) {
    RUN(test_palette_exact);
    RUN(test_palette_buckets);
    RUN(test_rect);
    if (!viz_gif_available()) {
        char err[256];
        VizGifSpec s = {8, 8, 1, 10, NULL, synth_draw, NULL, NULL};
        CHECK_EQ_INT(viz_gif_write("x.gif", &s, err, sizeof err), SIM_ENOTSUP);
        CHECK_STR_CONTAINS(err, "libgif-dev");
        printf("the files: skipped (this build has no giflib)\n");
        return 0;
    }
    RUN(test_write_flat);
    RUN(test_write_many);
    RUN(test_write_errors);
    return 0;
}

static int frames_part(void) {
    if (!viz_gif_available() || !viz_sdl_available() || !viz_png_available()) {
        printf("skipped: this build lacks giflib, SDL2 or libpng\n");
        return 77;
    }
    RUN(test_ring_gif);
    RUN(test_fsdp_gif);
    return 0;
}

int main(int argc, char **argv) {
    const char *part = argc > 1 ? argv[1] : "writer";
    const char *keep = getenv("DDPLAB_GIF_TEST_OUT");
    if (keep && keep[0])
        snprintf(out_dir, sizeof out_dir, "%s", keep);
    else if (tfile_mkdtemp(out_dir, sizeof out_dir, "gif") != 0)
        return 1;
    int rc;
    if (strcmp(part, "writer") == 0)
        rc = writer_part();
    else if (strcmp(part, "frames") == 0)
        rc = frames_part();
    else {
        fprintf(stderr, "usage: test_viz_gif writer|frames\n");
        rc = 2;
    }
    if (keep && keep[0])
        printf("files kept in %s\n", out_dir);
    else
        tfile_rmtree(out_dir);
    if (rc != 0)
        return rc;
    return failures ? 1 : 0;
}
