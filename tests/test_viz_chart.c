// tests/test_viz_chart.c: the charts as drawn (viz/chart*.c, in the SDL
// view's library): pixels where the layout says panels and series landed,
// whole ticks, the capacity line at the capacity's y, SVG with its title as
// text, refused extensions, and two golden images.
//
//   test_viz_chart [DIR]   DIR: where the golden PNGs are (tests/data)
//
// Golden images: tests/data/chart_memory.png and chart_loss.png. A drawn
// chart must match within TOL per channel on all but GOLDEN_SLACK of the
// pixels (anti-aliased text differs a little between font builds). After a
// deliberate change to the drawing, regenerate them with
//   DDPLAB_CHART_GOLDEN=write build/tests/test_viz_chart tests/data
// and look at them before committing. Exits 77 (skipped) in a build
// without the SDL view's libraries.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "check.h"
#include "plots.h"
#include "scene.h"
#include "test_chart_trace.h"
#include "test_files.h"

#ifdef DDPLAB_HAVE_SDL
#ifdef DDPLAB_HAVE_FONTCONFIG
#include <fontconfig/fontconfig.h>
#endif

#include "chart_draw.h"

static char out_dir[512];

static const char *out_path(const char *name) {
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", out_dir, name);
    return buf[k];
}

// The pixel at (x, y) of an image surface, 0xRRGGBB.
static unsigned pixel(cairo_surface_t *sf, double x, double y) {
    int w = cairo_image_surface_get_width(sf), h = cairo_image_surface_get_height(sf);
    int ix = (int)x, iy = (int)y;
    if (ix < 0 || iy < 0 || ix >= w || iy >= h)
        return 0x1000000; // off the image: matches no colour
    const unsigned char *d = cairo_image_surface_get_data(sf);
    const uint32_t *row = (const uint32_t *)(d + (size_t)iy * cairo_image_surface_get_stride(sf));
    return row[ix] & 0xffffff;
}

static int near_rgb(unsigned p, VizRgba c, int tol) {
    int r = (int)(c.r * 255 + 0.5), g = (int)(c.g * 255 + 0.5), b = (int)(c.b * 255 + 0.5);
    return abs((int)(p >> 16 & 0xff) - r) <= tol && abs((int)(p >> 8 & 0xff) - g) <= tol &&
           abs((int)(p & 0xff) - b) <= tol;
}

// The memory chart of a hand-made trace, drawn; p, *sf and *l filled.
static int draw_memory(VizPlot *p, int nranks, int differ, uint64_t cap, cairo_surface_t **sf,
                       VizChartLayout *l) {
    VizTrace t;
    CHECK_EQ_INT(tct_memory_trace(&t, nranks, differ, cap), 0);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    SimStatus st = viz_plot_memory(m, p, err, sizeof err);
    if (st == SIM_OK)
        st = viz_chart_render(&p->chart, sf, l, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "memory chart: %s\n", err);
    viz_model_free(m);
    viz_trace_free(&t);
    CHECK_EQ_INT(st, SIM_OK);
    return 0;
}

// Stacked bottom up: params [0, 1), optimizer [1, 3), gradients [3, 4),
// activations [4, 5 + r) MiB while iteration 0's gradients live (1.5-1.6 ms).
static int check_rank_panel(cairo_surface_t *sf, const VizChartLayout *l, int k, int r) {
    const VizChartPlace *pl = &l->panel[k];
    double x = viz_chart_px_x(pl, 1.55e-3);
    const struct {
        double mib;
        int cat;
    } at[] = {{0.5, SIM_MEM_PARAM}, {2, SIM_MEM_OPTIM}, {3.5, SIM_MEM_GRAD},
              {4 + (1 + r) / 2.0, SIM_MEM_ACT}};
    for (int i = 0; i < 4; i++) {
        unsigned p = pixel(sf, x, viz_chart_px_y(pl, at[i].mib * TCT_MIB));
        if (!near_rgb(p, viz_mem_colour(at[i].cat), 3)) {
            fprintf(stderr, "panel %d at %g MiB: %06x, not category %d's colour\n", k,
                    at[i].mib, p, at[i].cat);
            return 1;
        }
    }
    // above the rank's own top: nothing stacked (white or a gridline)
    unsigned above = pixel(sf, x, viz_chart_px_y(pl, (5 + r + 0.3) * TCT_MIB));
    CHECK(near_rgb(above, viz_rgb(0xffffff), 30));
    // the swatch before the panel's title is the rank's colour (chart_axes.c)
    double px = l->font_px;
    unsigned sw = pixel(sf, pl->area.x + px * 0.55, pl->area.y - px * 1.5 + px * 0.7);
    if (!near_rgb(sw, viz_rank_colour(r), 3)) {
        fprintf(stderr, "panel %d swatch %06x\n", k, sw);
        return 1;
    }
    return 0;
}

static int test_memory_differ(void) {
    VizPlot p;
    cairo_surface_t *sf;
    VizChartLayout l;
    CHECK(draw_memory(&p, 4, 1, 0, &sf, &l) == 0);
    CHECK_EQ_INT(l.npanels, 4);
    for (int k = 0; k < 4; k++) {
        CHECK(check_rank_panel(sf, &l, k, p.panel_rank[k]) == 0);
        for (int j = 0; j < k; j++) { // four places, none over another
            const VizBox *a = &l.panel[k].area, *b = &l.panel[j].area;
            CHECK(a->x >= b->x + b->w || b->x >= a->x + a->w || a->y >= b->y + b->h ||
                  b->y >= a->y + a->h);
        }
        // one scale: the same y range everywhere
        CHECK_NEAR(l.panel[k].ys.hi, l.panel[0].ys.hi, 0);
    }
    cairo_surface_destroy(sf);
    viz_plot_free(&p);
    return 0;
}

static int test_memory_alike(void) {
    VizPlot p;
    cairo_surface_t *sf;
    VizChartLayout l;
    CHECK(draw_memory(&p, 4, 0, 0, &sf, &l) == 0);
    CHECK_EQ_INT(l.npanels, 1);
    CHECK(check_rank_panel(sf, &l, 0, 0) == 0);
    cairo_surface_destroy(sf);
    viz_plot_free(&p);
    return 0;
}

static int test_integer_ticks(void) {
    VizTrace t;
    CHECK_EQ_INT(tct_memory_trace(&t, 1, 0, 0), 0);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    VizPlot p;
    CHECK_EQ_INT(viz_plot_loss(m, &p, err, sizeof err), SIM_OK);
    cairo_surface_t *sf;
    VizChartLayout l;
    CHECK_EQ_INT(viz_chart_render(&p.chart, &sf, &l, err, sizeof err), SIM_OK);
    const VizTicks *xt = &l.panel[0].xs.t;
    CHECK_EQ_INT(xt->n, 3); // iterations 0, 1, 2: nothing between them
    for (int i = 0; i < xt->n; i++)
        CHECK_NEAR(xt->v[i], i, 0);
    char lab[32];
    viz_chart_tick_label(&l.panel[0].xs, xt->v[1], lab, sizeof lab);
    CHECK(strcmp(lab, "1") == 0);
    cairo_surface_destroy(sf);
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    return 0;
}

// As plan --sweep --plot draws it (cli/plan/plan_plot.c): throughput above,
// memory below with an 80 GB capacity.
static int test_capacity_line(void) {
    double x[] = {8, 16, 32, 64}, tps[] = {900, 450, 440, 430};
    double mem[] = {153e9, 84e9, 50e9, 32e9};
    VizChartSeries a = {.label = "tokens/s", .n = 4, .x = x, .y = tps, .dots = 1};
    VizChartSeries b = {.label = "peak", .n = 4, .x = x, .y = mem, .dots = 1};
    VizChartRule cap = {80e9, "capacity 80 GB", {VIZ_INK_ALERT, 0}, 1};
    VizChartPanel pn[2] = {
        {.y = {.label = "tokens/s", .from_zero = 1}, .series = &a, .nseries = 1},
        {.y = {.label = "GB", .unit = VIZ_UNIT_BYTES_SI, .from_zero = 1}, .series = &b,
         .nseries = 1, .rules = &cap, .nrules = 1},
    };
    VizChart c = {.title = "sweep", .x = {.label = "ranks", .log = 2, .integer = 1},
                  .panels = pn, .npanels = 2};
    cairo_surface_t *sf;
    VizChartLayout l;
    char err[256];
    CHECK_EQ_INT(viz_chart_render(&c, &sf, &l, err, sizeof err), SIM_OK);
    const VizChartPlace *pl = &l.panel[1];
    CHECK(strcmp(pl->ys.unit, "GB") == 0);
    double y = viz_chart_px_y(pl, 80e9);
    // the y of 80 GB lies between the ticks of 50 and 100 GB, in proportion
    double y50 = viz_chart_px_y(pl, 50e9), y100 = viz_chart_px_y(pl, 100e9);
    CHECK_NEAR((y - y50) / (y100 - y50), 0.6, 1e-9);
    VizRgba red = viz_chart_ink(cap.ink, 0);
    int on = 0, off = 0, n = 0;
    for (double px = pl->area.x + pl->area.w * 0.3; px < pl->area.x + pl->area.w * 0.7; px++) {
        on += near_rgb(pixel(sf, px, y), red, 40);
        off += near_rgb(pixel(sf, px, y + 8), red, 40);
        n++;
    }
    CHECK(on > n / 2); // dashed: most of the row, and only that row
    CHECK_EQ_INT(off, 0);
    // above the line is tinted (what does not fit), below it is white
    double xg = pl->area.x + pl->area.w * 0.97;
    unsigned above = pixel(sf, xg, y - 30), below = pixel(sf, xg, y + 30);
    CHECK(near_rgb(below, viz_rgb(0xffffff), 2));
    CHECK(!near_rgb(above, viz_rgb(0xffffff), 2) && (above >> 16) > (above & 0xff));
    cairo_surface_destroy(sf);
    return 0;
}

// Every start tag of the XML text s closed in order; <?..?>, <!..> and
// self-closing tags skipped. 1 when balanced.
static int balanced(const char *s) {
    char stack[64][32];
    int depth = 0;
    for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
        if (p[1] == '?' || p[1] == '!')
            continue;
        const char *end = strchr(p, '>');
        if (end == NULL)
            return 0;
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strcspn(name, " \t\n/>");
        if (len == 0 || len >= sizeof stack[0])
            return 0;
        if (end[-1] == '/')
            continue;
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], name, len) != 0 ||
                stack[depth - 1][len] != '\0')
                return 0;
            depth--;
        } else {
            if (depth == 64)
                return 0;
            memcpy(stack[depth], name, len);
            stack[depth++][len] = '\0';
        }
    }
    return depth == 0;
}

static int test_svg(void) {
    VizPlot p;
    cairo_surface_t *sf;
    VizChartLayout l;
    CHECK(draw_memory(&p, 4, 0, 0, &sf, &l) == 0);
    cairo_surface_destroy(sf);
    const char *path = out_path("memory.svg");
    char err[256];
    CHECK_EQ_INT(viz_chart_write(&p.chart, path, err, sizeof err), SIM_OK);
    size_t n;
    char *text = tfile_read(path, &n);
    CHECK(text != NULL);
    int ok = strncmp(text, "<?xml", 5) == 0 && balanced(text) &&
             strstr(text, "<title>device memory by category (ddp, 4 ranks)</title>") != NULL;
    free(text);
    CHECK(ok);
    // markup in a title is escaped
    p.chart.title = "a < b & c";
    CHECK_EQ_INT(viz_chart_write(&p.chart, path, err, sizeof err), SIM_OK);
    text = tfile_read(path, &n);
    CHECK(text != NULL);
    ok = balanced(text) && strstr(text, "<title>a &lt; b &amp; c</title>") != NULL;
    free(text);
    CHECK(ok);
    // PDF, by the name
    const char *pdf = out_path("memory.pdf");
    CHECK_EQ_INT(viz_chart_write(&p.chart, pdf, err, sizeof err), SIM_OK);
    text = tfile_read(pdf, &n);
    CHECK(text != NULL);
    ok = n > 4 && memcmp(text, "%PDF", 4) == 0;
    free(text);
    CHECK(ok);
    viz_plot_free(&p);
    return 0;
}

static int test_errors(void) {
    VizPlot p;
    cairo_surface_t *sf;
    VizChartLayout l;
    CHECK(draw_memory(&p, 2, 0, 0, &sf, &l) == 0);
    cairo_surface_destroy(sf);
    char err[256];
    const char *gif = out_path("memory.gif");
    CHECK_EQ_INT(viz_chart_write(&p.chart, gif, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, ".png, .svg or .pdf");
    CHECK_STR_CONTAINS(err, "memory.gif");
    CHECK(!tfile_exists(gif));
    CHECK_EQ_INT(viz_chart_write(&p.chart, out_path("no/such/dir/m.png"), err, sizeof err),
                 SIM_EIO);
    VizChart empty = {.title = "nothing"};
    CHECK_EQ_INT(viz_chart_write(&empty, out_path("e.png"), err, sizeof err), SIM_EINVAL);
    p.chart.width = 50;
    CHECK_EQ_INT(viz_chart_write(&p.chart, out_path("small.png"), err, sizeof err),
                 SIM_EINVAL);
    CHECK(!tfile_exists(out_path("e.png")) && !tfile_exists(out_path("small.png")));
    viz_plot_free(&p);
    return 0;
}

enum { TOL = 40 };
#define GOLDEN_SLACK 0.005

// Pixels of a and b that differ by more than TOL in a channel.
static long differing(cairo_surface_t *a, cairo_surface_t *b) {
    int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
    if (w != cairo_image_surface_get_width(b) || h != cairo_image_surface_get_height(b))
        return -1;
    long n = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned p = pixel(a, x, y), q = pixel(b, x, y);
            VizRgba c = viz_rgb(q);
            n += !near_rgb(p, c, TOL);
        }
    return n;
}

// Draws chart c into golden/name (write) or compares it with that file.
static int golden(const VizChart *c, const char *dir, const char *name, int write) {
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (write) {
        CHECK_EQ_INT(viz_chart_write(c, path, err, sizeof err), SIM_OK);
        printf("wrote %s\n", path);
        return 0;
    }
    const char *mine = out_path(name);
    CHECK_EQ_INT(viz_chart_write(c, mine, err, sizeof err), SIM_OK);
    cairo_surface_t *a = cairo_image_surface_create_from_png(mine);
    cairo_surface_t *b = cairo_image_surface_create_from_png(path);
    int ok = cairo_surface_status(a) == CAIRO_STATUS_SUCCESS &&
             cairo_surface_status(b) == CAIRO_STATUS_SUCCESS;
    long bad = ok ? differing(a, b) : -1;
    long total = ok ? (long)cairo_image_surface_get_width(b) * cairo_image_surface_get_height(b)
                    : 0;
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
    if (bad < 0 || bad > total * GOLDEN_SLACK) {
        fprintf(stderr, "%s: %ld of %ld pixels differ from %s (see DDPLAB_CHART_GOLDEN in "
                "tests/test_viz_chart.c)\n", mine, bad, total, path);
        return 1;
    }
    return 0;
}

static int test_golden(const char *dir, int write) {
    VizTrace t;
    CHECK_EQ_INT(tct_memory_trace(&t, 4, 1, (uint64_t)(10 * TCT_MIB)), 0);
    char err[256];
    VizModel *m = viz_model_new(&t, err, sizeof err);
    CHECK(m != NULL);
    VizPlot p;
    CHECK_EQ_INT(viz_plot_memory(m, &p, err, sizeof err), SIM_OK);
    int rc = golden(&p.chart, dir, "chart_memory.png", write);
    viz_plot_free(&p);
    CHECK_EQ_INT(viz_plot_loss(m, &p, err, sizeof err), SIM_OK);
    p.chart.width = 640, p.chart.height = 400;
    rc |= golden(&p.chart, dir, "chart_loss.png", write);
    viz_plot_free(&p);
    viz_model_free(m);
    viz_trace_free(&t);
    return rc;
}

int main(int argc, char **argv) {
    int failures = 0;
    if (tfile_mkdtemp(out_dir, sizeof out_dir, "chart") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    const char *dir = argc > 1 ? argv[1] : "tests/data";
    const char *mode = getenv("DDPLAB_CHART_GOLDEN");
    if (mode && strcmp(mode, "write") == 0) {
        int rc = test_golden(dir, 1);
        tfile_rmtree(out_dir);
        return rc;
    }
    RUN(test_memory_differ);
    RUN(test_memory_alike);
    RUN(test_integer_ticks);
    RUN(test_capacity_line);
    RUN(test_svg);
    RUN(test_errors);
    int golden_rc = test_golden(dir, 0);
    printf("%s test_golden\n", golden_rc ? "FAILED" : "ok    ");
    failures += golden_rc != 0;
    tfile_rmtree(out_dir);
    // the font caches pango, cairo and fontconfig keep for the process, let
    // go so that LeakSanitizer sees what the charts hold and nothing else
    pango_cairo_font_map_set_default(NULL);
    cairo_debug_reset_static_data();
#ifdef DDPLAB_HAVE_FONTCONFIG
    FcFini();
#endif
    return failures != 0;
}
#else
int main(void) {
    char err[256];
    CHECK_EQ_INT(viz_chart_available(err, sizeof err), 0);
    CHECK_STR_CONTAINS(err, "libcairo2-dev");
    VizChart c = {.title = "x"};
    CHECK_EQ_INT(viz_chart_write(&c, "x.png", err, sizeof err), SIM_ENOTSUP);
    printf("skipped: this build draws no charts\n");
    return 77;
}
#endif
