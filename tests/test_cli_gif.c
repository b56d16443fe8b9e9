// tests/test_cli_gif.c: `ddplab replay TRACE --gif` and `ddplab run ... --gif`
// as a user runs them: the frames --from .. --to, each the picture --png
// draws for its event (to the GIF's palette), looping, at --gif-fps with
// the last frame held; --gif-tween's in-between frames, --gif-size, the
// default span; and every refusal in one line: --from after --to, --from
// without --gif, a path that cannot be written, a bad or too small size,
// too many frames, the view's plugin missing.
//
// Exits 77 (skipped) when the build has no SDL2, giflib or libpng.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"
#include "test_gif_util.h"

#ifdef DDPLAB_HAVE_PNG
#include <png.h>
#endif

static const char *exe;
static char tmpdir[256];

static const char *path(const char *name) { return tcli_path(tmpdir, name); }

// The PNG at p as h rows of w RGB pixels (heap), or NULL.
static uint8_t *png_read(const char *p, int *w, int *h) {
#ifdef DDPLAB_HAVE_PNG
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&pi, p))
        return NULL;
    pi.format = PNG_FORMAT_RGB;
    uint8_t *rgb = malloc(PNG_IMAGE_SIZE(pi));
    if (rgb == NULL || !png_image_finish_read(&pi, NULL, rgb, 0, NULL)) {
        png_image_free(&pi);
        free(rgb);
        return NULL;
    }
    *w = (int)pi.width;
    *h = (int)pi.height;
    return rgb;
#else
    (void)p, (void)w, (void)h;
    return NULL;
#endif
}

// "animation: FILE (events A to B, N frames, ...)": A, B and N.
static int parse_animation(const char *out, size_t *a, size_t *b, size_t *n) {
    const char *s = strstr(out, "(events ");
    return s != NULL && sscanf(s, "(events %zu to %zu, %zu frames", a, b, n) == 3 ? 0 : -1;
}

// Frame `frame` of the GIF (composed in a) is the PNG of `event`, each
// pixel the map's nearest colour to the PNG's.
static int frame_is_png(TgifAnim *a, int frame, const char *trace, size_t event) {
    char at[32], name[64];
    snprintf(at, sizeof at, "%zu", event);
    snprintf(name, sizeof name, "event-%zu.png", event);
    TcliResult r;
    TCLI_RUN(r, exe, 60, "replay", trace, "--png", path(name), "--at", at);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    int w = 0, h = 0;
    uint8_t *png = png_read(path(name), &w, &h);
    CHECK(png != NULL);
    CHECK(w == a->w && h == a->h);
    CHECK_EQ_INT(tgif_show(a, frame), 0);
    size_t exact = 0, npix = (size_t)w * (size_t)h;
    for (size_t i = 0; i < npix; i++) {
        const uint8_t *p = png + 3 * i, *g = a->rgb + 3 * i;
        long d = 0;
        for (int j = 0; j < 3; j++)
            d += ((long)p[j] - g[j]) * ((long)p[j] - g[j]);
        if (d != tgif_nearest_d2(a, p)) {
            fprintf(stderr, "frame %d, pixel %zu: not the nearest colour to event %zu's\n",
                    frame, i, event);
            free(png);
            return 1;
        }
        exact += d == 0;
    }
    free(png);
    CHECK((double)exact / (double)npix > 0.9);
    return 0;
}

static const char *trace_of_ddp(void) {
    static int made;
    static char t[600]; // path()'s buffers are reused
    if (!made) {
        snprintf(t, sizeof t, "%s", path("ddp.ddptrace"));
        TcliResult r;
        TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "4", "--steps", "2", "--model",
                 "mlp:16,32,32,4", "--trace", t);
        made = r.rc == 0;
        if (!made)
            tcli_show("the trace", &r);
        tcli_result_free(&r);
    }
    return made ? t : NULL;
}

// The event number of the trace's first collective step (coll-step:0, the
// initial broadcast's), read from a one-frame animation of it; 0 when it
// cannot be. The spans below count from it: between two coll-step events
// lie a hundred and more of the other ranks' events.
static size_t first_ring_step(const char *t) {
    TcliResult r;
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("step0.gif"), "--from", "coll-step:0",
             "--to", "coll-step:0", "--gif-size", "800x500");
    size_t a = 0, b = 0, n = 0;
    if (r.rc != 0 || parse_animation(r.out, &a, &b, &n) != 0 || a != b || n != 1) {
        tcli_show("the first ring step", &r);
        a = 0;
    }
    tcli_result_free(&r);
    return a;
}

// The first collective step and the 4 events after it: 5 frames, each the PNG of
// its event, 10 frames a second, the last held 1 s.
static int test_replay_frames(void) {
    const char *t = trace_of_ddp();
    CHECK(t != NULL);
    size_t s0 = first_ring_step(t);
    CHECK(s0 > 0);
    char from[32], to[32];
    snprintf(from, sizeof from, "%zu", s0);
    snprintf(to, sizeof to, "%zu", s0 + 4);
    TcliResult r;
    TCLI_RUN(r, exe, 120, "replay", t, "--gif", path("ring.gif"), "--from", from, "--to", to);
    if (r.rc != 0)
        tcli_show("replay --gif", &r);
    CHECK_EQ_INT(r.rc, 0);
    size_t a, b, n;
    CHECK_EQ_INT(parse_animation(r.out, &a, &b, &n), 0);
    tcli_result_free(&r);
    CHECK(a == s0 && b == s0 + 4);
    CHECK_EQ_INT(n, 5);
    TgifAnim g;
    CHECK_EQ_INT(tgif_open(&g, path("ring.gif")), 0);
    CHECK_EQ_INT(g.frames, (int)n);
    CHECK(g.w == 1600 && g.h == 1000); // --png's size
    CHECK_EQ_INT(tgif_loops(&g), 0);
    for (int k = 0; k < g.frames; k++)
        CHECK_EQ_INT(tgif_delay(&g, k), k + 1 < g.frames ? 10 : 100);
    int rc = frame_is_png(&g, 0, t, a);
    if (rc == 0)
        rc = frame_is_png(&g, (int)(n - 1), t, b);
    tgif_close(&g);
    return rc;
}

// --gif-tween 2 on 4 events: 4 + 3 * 2 frames; --gif-size and --gif-fps.
static int test_tween_size_fps(void) {
    const char *t = trace_of_ddp();
    CHECK(t != NULL);
    size_t s0 = first_ring_step(t);
    CHECK(s0 > 0);
    char from[32], to[32];
    snprintf(from, sizeof from, "%zu", s0 + 1);
    snprintf(to, sizeof to, "%zu", s0 + 4);
    TcliResult r;
    TCLI_RUN(r, exe, 120, "replay", t, "--gif", path("tween.gif"), "--from", from, "--to", to,
             "--gif-tween", "2", "--gif-size", "900x560", "--gif-fps", "25");
    CHECK_EQ_INT(r.rc, 0);
    size_t a, b, n;
    CHECK_EQ_INT(parse_animation(r.out, &a, &b, &n), 0);
    CHECK_STR_CONTAINS(r.out, "25 fps, 900 x 560");
    tcli_result_free(&r);
    size_t events = b - a + 1;
    CHECK_EQ_INT(events, 4);
    CHECK_EQ_INT(n, events + (events - 1) * 2);
    TgifAnim g;
    CHECK_EQ_INT(tgif_open(&g, path("tween.gif")), 0);
    CHECK_EQ_INT(g.frames, (int)n);
    CHECK(g.w == 900 && g.h == 560);
    CHECK_EQ_INT(tgif_delay(&g, 0), 4);
    CHECK_EQ_INT(tgif_delay(&g, g.frames - 1), 100);
    tgif_close(&g);
    return 0;
}

// No --to: from --at to the end of its iteration; `ddplab run` writes the
// same animation (its first collective step) as a replay of its trace.
static int test_default_span_and_run(void) {
    const char *t = trace_of_ddp();
    CHECK(t != NULL);
    TcliResult r;
    TCLI_RUN(r, exe, 120, "replay", t, "--gif", path("it1.gif"), "--at", "i1",
             "--gif-size", "800x500");
    CHECK_EQ_INT(r.rc, 0);
    size_t a, b, n;
    CHECK_EQ_INT(parse_animation(r.out, &a, &b, &n), 0);
    tcli_result_free(&r);
    CHECK(n == b - a + 1 && n <= 200 && n > 10);
    // i1's span ends where the trace does (2 iterations) or 200 events on
    TCLI_RUN(r, exe, 60, "replay", t, "--info");
    size_t events = 0;
    const char *e = strstr(r.out, "events:");
    CHECK(e != NULL && sscanf(e, "events: %zu", &events) == 1);
    tcli_result_free(&r);
    CHECK(b == events - 1 || n == 200);
    // the run's own trace is replayed: another run may order its ranks'
    // events differently
    char run_trace[600];
    snprintf(run_trace, sizeof run_trace, "%s", path("run.ddptrace"));
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "4", "--steps", "2", "--model",
             "mlp:16,32,32,4", "--trace", run_trace, "--gif", path("run.gif"), "--from",
             "coll-step:0", "--to", "coll-step:0", "--gif-size", "800x500");
    if (r.rc != 0)
        tcli_show("run --gif", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "animation: ");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "replay", run_trace, "--gif", path("replayed.gif"), "--from",
             "coll-step:0", "--to", "coll-step:0", "--gif-size", "800x500");
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    size_t n1 = 0, n2 = 0;
    char *g1 = tfile_read(path("run.gif"), &n1), *g2 = tfile_read(path("replayed.gif"), &n2);
    CHECK(g1 != NULL && g2 != NULL);
    CHECK(n1 == n2 && memcmp(g1, g2, n1) == 0);
    free(g1);
    free(g2);
    return 0;
}

static int test_refusals(void) {
    const char *t = trace_of_ddp();
    CHECK(t != NULL);
    const char *pre = "ddplab replay: ";
    TcliResult r;
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--from", "coll:1", "--to",
             "coll:0");
    CHECK_EQ_INT(tcli_refused(&r, pre, "comes after --to coll:0"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "replay", t, "--png", path("x.png"), "--from", "coll:1");
    CHECK_EQ_INT(tcli_refused(&r, pre, "add --gif FILE.gif"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "2", "--gif-fps", "20");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab run: ", "add --gif FILE.gif"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("no/such/dir/x.gif"));
    CHECK_EQ_INT(tcli_refused(&r, pre, "no/such/dir/x.gif"), 0);
    tcli_result_free(&r);
    static const char *const bad_sizes[] = {"10", "0x5", "800x", "x600", "800x600x2", "9000x10",
                                            "-5x10", "800 x 600"};
    for (size_t k = 0; k < sizeof bad_sizes / sizeof bad_sizes[0]; k++) {
        TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--gif-size", bad_sizes[k]);
        CHECK_EQ_INT(tcli_refused(&r, pre, "WIDTHxHEIGHT"), 0);
        tcli_result_free(&r);
    }
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--gif-size", "300x200");
    CHECK_EQ_INT(tcli_refused(&r, pre, "at least"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--gif-fps", "0");
    CHECK_EQ_INT(tcli_refused(&r, pre, "1 to 50"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--from", "0", "--to", "650");
    CHECK_EQ_INT(tcli_refused(&r, pre, "narrow the span with --from and --to"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--from", "0", "--to", "250",
             "--gif-tween", "2");
    CHECK_EQ_INT(tcli_refused(&r, pre, "lower --gif-tween"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--to", "i9");
    CHECK_EQ_INT(tcli_refused(&r, pre, "--to i9: the trace has 2 iterations"), 0);
    tcli_result_free(&r);
    struct stat sb;
    CHECK(stat(path("x.gif"), &sb) != 0); // no refusal left a file
    // the SDL view's plugin missing: one line that names it, exit 4
    CHECK_EQ_INT(mkdir(path("empty"), 0700), 0);
    setenv("DDPLAB_PLUGIN_DIR", path("empty"), 1);
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("x.gif"), "--from", "0", "--to", "2");
    unsetenv("DDPLAB_PLUGIN_DIR");
    CHECK_EQ_INT(r.rc, 4);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "ddplab-sdl.so");
    CHECK(stat(path("x.gif"), &sb) != 0);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_begin(argc, argv, tmpdir, sizeof tmpdir, "cli-gif");
    if (exe == NULL)
        return 2;
#ifndef DDPLAB_HAVE_PNG
    printf("skipped: this build has no libpng\n");
    tfile_rmtree(tmpdir);
    return 77;
#endif
    // a build without SDL2 or giflib refuses --gif at once, saying what to install
    TcliResult r;
    const char *t = trace_of_ddp();
    if (t == NULL)
        return 1;
    TCLI_RUN(r, exe, 60, "replay", t, "--gif", path("probe.gif"), "--from", "0", "--to", "0",
             "--gif-size", "800x500");
    if (r.rc != 0 && (strstr(r.err, "libgif-dev") || strstr(r.err, "libsdl2-dev"))) {
        printf("skipped: %s", r.err);
        tcli_result_free(&r);
        tfile_rmtree(tmpdir);
        return 77;
    }
    int fails = r.rc != 0;
    if (r.rc != 0)
        tcli_show("one frame", &r);
    tcli_result_free(&r);
    fails += test_refusals();
    fails += test_replay_frames();
    fails += test_tween_size_fps();
    fails += test_default_span_and_run();
    tfile_rmtree(tmpdir);
    if (fails == 0)
        printf("ok\n");
    return fails ? 1 : 0;
}
