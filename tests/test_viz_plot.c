// tests/test_viz_plot.c: the PNG line charts (viz/plot.h).
//
//   test_viz_plot raster   ticks and labels, the font, the raster (series
//                          colours at data points, white background, black
//                          axes, gaps at NaN), bad input
//   test_viz_plot png      encode, decode with libpng, compare pixels; the
//                          atomic write and unwritable paths. Exits 77
//                          (skipped) when the build has no libpng, after
//                          checking that the writer says which package is
//                          missing.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plot.h"
#include "raster.h"
#include "test_env.h"
#include "test_files.h"

#ifdef DDPLAB_HAVE_PNG
#include <png.h>
#endif

static int failures = 0;

static const uint8_t *pixel(const VizImage *img, int x, int y) {
    return img->rgb + 3 * ((size_t)y * (size_t)img->w + (size_t)x);
}

static int is_rgb(const uint8_t *p, int r, int g, int b) {
    return p[0] == r && p[1] == g && p[2] == b;
}

static int is_series(const uint8_t *p, int k) {
    uint8_t c[3];
    viz_plot_series_colour(k, c);
    return is_rgb(p, c[0], c[1], c[2]);
}

// Every tick of t, checked against want[0..n-1].
static int check_ticks(const VizTicks *t, const double *want, int n) {
    if (t->n != n) {
        fprintf(stderr, "ticks: %d, want %d:", t->n, n);
        for (int i = 0; i < t->n; i++)
            fprintf(stderr, " %g", t->v[i]);
        fprintf(stderr, "\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        CHECK_NEAR(t->v[i], want[i], fabs(want[i]) * 1e-12 + 1e-300);
    return 0;
}

static int check_label(const VizTicks *t, double v, const char *want) {
    char buf[48];
    viz_tick_label(t, v, buf, sizeof(buf));
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "label of %g: \"%s\", want \"%s\"\n", v, buf, want);
        return 1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// ticks

static int test_ticks_linear(void) {
    VizTicks t;
    CHECK(viz_ticks_linear(0, 1, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 0.2, 0.4, 0.6, 0.8, 1.0}, 6) == 0);
    CHECK(check_label(&t, t.v[1], "0.2") == 0);
    CHECK(check_label(&t, t.v[0], "0.0") == 0);

    // 0.3..2.7: step 0.5 would need 7 ticks, so 1; the axis widens to 0..3.
    CHECK(viz_ticks_linear(0.3, 2.7, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 1, 2, 3}, 4) == 0);
    CHECK_NEAR(t.lo, 0, 0);
    CHECK_NEAR(t.hi, 3, 0);
    CHECK_NEAR(t.step, 1, 0);
    CHECK(check_label(&t, 2, "2") == 0);

    CHECK(viz_ticks_linear(-3.7, 12.1, 8, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){-5, 0, 5, 10, 15}, 5) == 0);
    CHECK(check_label(&t, -5, "-5") == 0);

    // Large values: scientific labels.
    CHECK(viz_ticks_linear(1e6, 5e6, 5, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){1e6, 2e6, 3e6, 4e6, 5e6}, 5) == 0);
    CHECK(check_label(&t, 2e6, "2e6") == 0);
    CHECK(viz_ticks_linear(1e6, 2e6, 3, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){1e6, 1.5e6, 2e6}, 3) == 0);
    CHECK(check_label(&t, 1.5e6, "1.5e6") == 0);
    // Small values.
    CHECK(viz_ticks_linear(0, 4e-5, 5, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 1e-5, 2e-5, 3e-5, 4e-5}, 5) == 0);
    CHECK(check_label(&t, 2e-5, "2e-5") == 0);
    CHECK(check_label(&t, 0, "0") == 0);
    // Decimals as the step needs them, exact decimal values.
    CHECK(viz_ticks_linear(0.001, 0.0015, 5, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0.001, 0.0012, 0.0014, 0.0016}, 4) == 0);
    CHECK(check_label(&t, t.v[1], "0.0012") == 0);
    // A loss curve.
    CHECK(viz_ticks_linear(0.31, 2.48, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){0, 0.5, 1, 1.5, 2, 2.5}, 6) == 0);
    CHECK(check_label(&t, 1.5, "1.5") == 0);
    CHECK(check_label(&t, 1, "1.0") == 0);

    // One value: a range around it, the value on the axis.
    CHECK(viz_ticks_linear(5, 5, 6, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){4.5, 5, 5.5}, 3) == 0);
    CHECK(viz_ticks_linear(0, 0, 6, &t) == SIM_OK);
    CHECK(t.lo < 0 && t.hi > 0 && t.n >= 2);
    CHECK(viz_ticks_linear(-7, -7, 4, &t) == SIM_OK);
    CHECK(t.lo <= -7 && t.hi >= -7 && t.n >= 2 && t.n <= 4);

    // Every result: at most max ticks, at least 2, covering the data.
    const double ranges[][2] = {{0, 1},     {-1, 1},  {3, 1000}, {0.1, 0.11}, {-5e8, 2e9},
                                {1e-9, 2e-9}, {17, 18}, {0, 1e-3}, {123456, 123457}};
    for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
        for (int m = 2; m <= 12; m++) {
            CHECK(viz_ticks_linear(ranges[r][0], ranges[r][1], m, &t) == SIM_OK);
            int straddles = ranges[r][0] < 0 && ranges[r][1] > 0;
            CHECK(t.n >= 2 && t.n <= (straddles && m < 3 ? 3 : m));
            CHECK(t.lo <= ranges[r][0] && t.hi >= ranges[r][1]);
            for (int i = 1; i < t.n; i++)
                CHECK_NEAR(t.v[i] - t.v[i - 1], t.step, t.step * 1e-6);
        }
    }

    CHECK(viz_ticks_linear(1, 0, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(NAN, 1, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(0, INFINITY, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(0, 1, 1, &t) == SIM_EINVAL);
    CHECK(viz_ticks_linear(0, 1, VIZ_TICKS_MAX + 1, &t) == SIM_EINVAL);
    return 0;
}

static int test_ticks_log(void) {
    VizTicks t;
    // A rank sweep 8..16384: every power of two.
    CHECK(viz_ticks_log(8, 16384, 2, 12, &t) == SIM_OK);
    CHECK(t.log == 1 && t.base == 2 && t.stride == 1);
    CHECK(check_ticks(&t, (const double[]){8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                                            16384},
                      12) == 0);
    CHECK(check_label(&t, 16384, "16384") == 0);
    CHECK(check_label(&t, 1024, "1024") == 0);
    // Less room: every other power, at even exponents.
    CHECK(viz_ticks_log(8, 16384, 2, 6, &t) == SIM_OK);
    CHECK(t.stride == 2);
    CHECK(check_ticks(&t, (const double[]){16, 64, 256, 1024, 4096, 16384}, 6) == 0);
    CHECK_NEAR(t.lo, 8, 0);
    CHECK_NEAR(t.hi, 16384, 0);
    // Auto base: 8..16384 fits in powers of two.
    CHECK(viz_ticks_log(8, 16384, 0, 12, &t) == SIM_OK);
    CHECK(t.base == 2);
    // Not powers: the axis widens to the enclosing powers.
    CHECK(viz_ticks_log(5, 100, 2, 12, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){4, 8, 16, 32, 64, 128}, 6) == 0);

    // Message sizes 1 KiB..1 GiB: binary suffixes.
    CHECK(viz_ticks_log(1024, 1073741824.0, 2, 12, &t) == SIM_OK);
    CHECK(t.stride == 2 && t.n == 11);
    CHECK_NEAR(t.v[0], 1024, 0);
    CHECK(check_label(&t, 1024, "1K") == 0);
    CHECK(check_label(&t, 262144, "256K") == 0);
    CHECK(check_label(&t, 1048576, "1M") == 0);
    CHECK(check_label(&t, 1073741824.0, "1G") == 0);
    // Fractions on a base-2 axis.
    CHECK(viz_ticks_log(1.0 / 64, 4, 2, 12, &t) == SIM_OK);
    CHECK(check_label(&t, 0.5, "0.5") == 0);
    CHECK(check_label(&t, 0.125, "0.125") == 0);
    CHECK(check_label(&t, 1.0 / 16, "2^-4") == 0);

    // Decades.
    CHECK(viz_ticks_log(1, 1e6, 0, 8, &t) == SIM_OK);
    CHECK(t.base == 10 && t.stride == 1);
    CHECK(check_ticks(&t, (const double[]){1, 10, 100, 1e3, 1e4, 1e5, 1e6}, 7) == 0);
    CHECK(check_label(&t, 1e4, "10000") == 0);
    CHECK(check_label(&t, 1e5, "1e5") == 0);
    CHECK(viz_ticks_log(3.2e-3, 7e8, 10, 5, &t) == SIM_OK);
    CHECK(t.stride == 3);
    CHECK(check_ticks(&t, (const double[]){1e-3, 1, 1e3, 1e6, 1e9}, 5) == 0);
    CHECK(check_label(&t, 1e-3, "0.001") == 0);
    CHECK(check_label(&t, 1e9, "1e9") == 0);
    // Three decades or less: 1-2-5.
    CHECK(viz_ticks_log(20, 300, 10, 8, &t) == SIM_OK);
    CHECK(t.base == 10 && t.stride == 0);
    CHECK(check_ticks(&t, (const double[]){20, 50, 100, 200, 500}, 5) == 0);
    CHECK(viz_ticks_log(3, 400, 10, 12, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){2, 5, 10, 20, 50, 100, 200, 500}, 8) == 0);
    CHECK(check_label(&t, 200, "200") == 0);
    // Less than a decade: linear ticks on the log axis.
    CHECK(viz_ticks_log(101, 109, 10, 6, &t) == SIM_OK);
    CHECK(t.log == 1 && t.base == 0);
    CHECK(check_ticks(&t, (const double[]){100, 102, 104, 106, 108, 110}, 6) == 0);
    CHECK(check_label(&t, 104, "104") == 0);
    CHECK(viz_ticks_log(20, 80, 10, 8, &t) == SIM_OK);
    CHECK(t.base == 0);
    CHECK(check_ticks(&t, (const double[]){20, 30, 40, 50, 60, 70, 80}, 7) == 0);
    // One value.
    CHECK(viz_ticks_log(64, 64, 2, 12, &t) == SIM_OK);
    CHECK(check_ticks(&t, (const double[]){32, 64, 128}, 3) == 0);
    CHECK(viz_ticks_log(5, 5, 10, 12, &t) == SIM_OK);
    CHECK(t.lo <= 5 && t.hi >= 5 && t.n >= 2);

    // Every result covers the data, within the tick limit, ticks > 0 rising.
    const double ranges[][2] = {{1, 2},      {1e-6, 1},  {8, 16384}, {0.3, 7e9},
                                {1.01, 1.02}, {1e-30, 1},  {2, 1e12},  {0.5, 0.9}};
    for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
        for (int base = 0; base <= 10; base += base == 0 ? 2 : 8) {
            for (int m = 2; m <= 14; m++) {
                CHECK(viz_ticks_log(ranges[r][0], ranges[r][1], base, m, &t) == SIM_OK);
                CHECK(t.n >= 1 && t.n <= m);
                CHECK(t.lo > 0 && t.lo <= ranges[r][0] * (1 + 1e-12));
                CHECK(t.hi >= ranges[r][1] * (1 - 1e-12));
                for (int i = 0; i < t.n; i++) {
                    CHECK(t.v[i] > 0 && t.v[i] >= t.lo * (1 - 1e-12) &&
                          t.v[i] <= t.hi * (1 + 1e-12));
                    if (i > 0)
                        CHECK(t.v[i] > t.v[i - 1]);
                }
            }
        }
    }

    CHECK(viz_ticks_log(0, 10, 10, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_log(-1, 10, 10, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_log(1, 10, 3, 6, &t) == SIM_EINVAL);
    CHECK(viz_ticks_log(1, NAN, 10, 6, &t) == SIM_EINVAL);
    return 0;
}

// ----------------------------------------------------------------------------
// font and primitives

static int test_font(void) {
    for (int ch = 32; ch <= 126; ch++) {
        int set = 0;
        for (int r = 0; r < VIZ_FONT_H; r++) {
            const char *row = viz_font_row((char)ch, r);
            CHECK_EQ_INT(strlen(row), VIZ_FONT_W);
            for (int k = 0; k < VIZ_FONT_W; k++) {
                CHECK(row[k] == '#' || row[k] == '.');
                set += row[k] == '#';
            }
        }
        CHECK(ch == ' ' ? set == 0 : set > 0);
    }
    // Every glyph differs from every other (the l / 1 / I kind of mix-up).
    for (int a = 33; a <= 126; a++) {
        for (int b = a + 1; b <= 126; b++) {
            int same = 1;
            for (int r = 0; r < VIZ_FONT_H && same; r++)
                same = strcmp(viz_font_row((char)a, r), viz_font_row((char)b, r)) == 0;
            if (same)
                fprintf(stderr, "glyphs '%c' and '%c' are the same\n", a, b);
            CHECK(!same);
        }
    }
    // Outside printable ASCII: '?'.
    CHECK(strcmp(viz_font_row('\t', 0), viz_font_row('?', 0)) == 0);
    CHECK(strcmp(viz_font_row((char)200, 3), viz_font_row('?', 3)) == 0);
    CHECK_EQ_INT(viz_text_width("abc", 1), 17);
    CHECK_EQ_INT(viz_text_width("abc", 2), 34);
    CHECK_EQ_INT(viz_text_width("", 1), 0);

    // "L" drawn upright and turned: the stem and the foot land where the
    // picture says.
    uint8_t buf[20 * 20 * 3];
    VizImage img = {20, 20, buf};
    const VizRgb ink = {10, 20, 30};
    memset(buf, 255, sizeof(buf));
    viz_draw_text(&img, 2, 3, "L", 1, ink);
    for (int r = 0; r < 7; r++)
        CHECK(is_rgb(pixel(&img, 2, 3 + r), 10, 20, 30));
    for (int k = 0; k < 5; k++)
        CHECK(is_rgb(pixel(&img, 2 + k, 9), 10, 20, 30));
    CHECK(is_rgb(pixel(&img, 3, 3), 255, 255, 255));
    memset(buf, 255, sizeof(buf));
    // Turned a quarter anticlockwise, bottom-left corner at (2, 15): the
    // stem runs right along row 15, the foot up column 8.
    viz_draw_text_up(&img, 2, 15, "L", 1, ink);
    for (int r = 0; r < 7; r++)
        CHECK(is_rgb(pixel(&img, 2 + r, 15), 10, 20, 30));
    for (int k = 0; k < 5; k++)
        CHECK(is_rgb(pixel(&img, 8, 15 - k), 10, 20, 30));
    CHECK(is_rgb(pixel(&img, 2, 14), 255, 255, 255));

    // Clipping: drawing off the image writes nothing out of bounds.
    viz_draw_text(&img, -3, -4, "WWWWWWWW", 3, ink);
    viz_line(&img, -50, -50, 70, 90, 3, ink);
    viz_marker(&img, 0, 19, 5, VIZ_MARK_DIAMOND, ink);
    // Lines include both ends.
    memset(buf, 255, sizeof(buf));
    viz_line(&img, 3, 4, 15, 11, 1, ink);
    CHECK(is_rgb(pixel(&img, 3, 4), 10, 20, 30));
    CHECK(is_rgb(pixel(&img, 15, 11), 10, 20, 30));
    return 0;
}

// ----------------------------------------------------------------------------
// raster

// Two crossing series, default size.
static const double ax[] = {0, 1, 2, 3, 4};
static const double ay[] = {0.5, 1.5, 4, 9, 16};
static const double by[] = {15, 12, 8, 5, 2};

static int test_raster(void) {
    VizSeries s[2] = {{"squares", 5, ax, ay}, {"falling", 5, ax, by}};
    VizPlotSpec spec = {.title = "Loss per step", .xlabel = "step", .ylabel = "loss"};
    VizImage img;
    VizPlotFrame f;
    char err[256] = "";
    CHECK(viz_plot_render(&spec, s, 2, &img, &f, err, sizeof(err)) == SIM_OK);
    CHECK_EQ_INT(img.w, 800);
    CHECK_EQ_INT(img.h, 500);
    int rc = 0;
    // Each data point has its series' colour.
    for (int k = 0; k < 2 && rc == 0; k++) {
        for (int i = 0; i < 5; i++) {
            int px, py;
            if (!viz_plot_map(&f, s[k].x[i], s[k].y[i], &px, &py) ||
                !is_series(pixel(&img, px, py), k)) {
                fprintf(stderr, "series %d point %d at (%d, %d) lacks its colour\n", k, i, px, py);
                rc = 1;
                break;
            }
        }
    }
    // Axes: both data ranges covered, linear, ticks 1-2-5.
    if (rc == 0 && !(f.xt.lo <= 0 && f.xt.hi >= 4 && f.yt.lo <= 0.5 && f.yt.hi >= 16 &&
                     f.xt.log == 0 && f.yt.log == 0))
        rc = 1;
    // Background white in the margins and inside the frame away from data.
    if (rc == 0 && !(is_rgb(pixel(&img, 0, 0), 255, 255, 255) &&
                     is_rgb(pixel(&img, 799, 499), 255, 255, 255) &&
                     is_rgb(pixel(&img, 3, 250), 255, 255, 255)))
        rc = 1;
    // The frame (axes) is black, on all four sides.
    int my = (f.ay0 + f.ay1) / 2, mx = (f.ax0 + f.ax1) / 2;
    if (rc == 0 && !(is_rgb(pixel(&img, f.ax0, my), 0, 0, 0) &&
                     is_rgb(pixel(&img, f.ax1, my), 0, 0, 0) &&
                     is_rgb(pixel(&img, mx, f.ay0), 0, 0, 0) &&
                     is_rgb(pixel(&img, mx, f.ay1), 0, 0, 0)))
        rc = 1;
    if (rc == 0 && !(f.ax0 < f.x0 && f.x1 < f.ax1 && f.ay0 < f.y0 && f.y1 < f.ay1))
        rc = 1;
    // Gridlines: light grey along most of a y tick's row.
    if (rc == 0) {
        int py = 0, px = 0, grey = 0;
        viz_plot_map(&f, 0, f.yt.v[f.yt.n / 2], &px, &py);
        for (int x = f.ax0 + 1; x < f.ax1; x++)
            grey += is_rgb(pixel(&img, x, py), 221, 221, 221);
        if (grey < (f.ax1 - f.ax0) / 2) {
            fprintf(stderr, "gridline at row %d: %d grey pixels\n", py, grey);
            rc = 1;
        }
    }
    // Text: black pixels in the title band, the tick-label band, and left of
    // the frame (y labels).
    if (rc == 0) {
        int title = 0, below = 0, left = 0;
        for (int y = 0; y < f.ay0; y++)
            for (int x = 0; x < img.w; x++)
                title += is_rgb(pixel(&img, x, y), 0, 0, 0);
        for (int y = f.ay1 + 6; y < img.h; y++)
            for (int x = 0; x < img.w; x++)
                below += is_rgb(pixel(&img, x, y), 0, 0, 0);
        for (int y = f.ay0; y <= f.ay1; y++)
            for (int x = 0; x < f.ax0 - 5; x++)
                left += is_rgb(pixel(&img, x, y), 0, 0, 0);
        if (title < 50 || below < 50 || left < 50) {
            fprintf(stderr, "text pixels: title %d, below %d, left %d\n", title, below, left);
            rc = 1;
        }
    }
    // The legend: a box edged in grey (150) in a corner of the frame, over
    // none of the data points, holding a sample of each series' colour.
    if (rc == 0) {
        int lx0 = img.w, ly0 = img.h, lx1 = -1, ly1 = -1;
        for (int y = 0; y < img.h; y++)
            for (int x = 0; x < img.w; x++)
                if (is_rgb(pixel(&img, x, y), 150, 150, 150)) {
                    lx0 = x < lx0 ? x : lx0;
                    ly0 = y < ly0 ? y : ly0;
                    lx1 = x > lx1 ? x : lx1;
                    ly1 = y > ly1 ? y : ly1;
                }
        if (!(lx1 > lx0 + 40 && ly1 > ly0 + 15 && lx0 > f.ax0 && lx1 < f.ax1 && ly0 > f.ay0 &&
              ly1 < f.ay1)) {
            fprintf(stderr, "legend box (%d, %d)-(%d, %d)\n", lx0, ly0, lx1, ly1);
            rc = 1;
        }
        for (int k = 0; k < 2 && rc == 0; k++) {
            int px, py, n = 0;
            for (int i = 0; i < 5; i++)
                if (viz_plot_map(&f, s[k].x[i], s[k].y[i], &px, &py) && px >= lx0 - 3 &&
                    px <= lx1 + 3 && py >= ly0 - 3 && py <= ly1 + 3)
                    rc = 1;
            for (int y = ly0; y <= ly1; y++)
                for (int x = lx0; x <= lx1; x++)
                    n += is_series(pixel(&img, x, y), k);
            if (n < 20)
                rc = 1;
        }
    }
    viz_image_free(&img);
    CHECK(img.rgb == NULL);
    return rc;
}

// NaN and infinities are skipped and break the line.
static int test_raster_gaps(void) {
    const double x[] = {0, 1, 2, 3, INFINITY, 4};
    const double y[] = {1, NAN, 3, 5, 4, -INFINITY};
    VizSeries s = {"gappy", 6, x, y};
    VizImage img;
    VizPlotFrame f;
    char err[256] = "";
    CHECK(viz_plot_render(NULL, &s, 1, &img, &f, err, sizeof(err)) == SIM_OK);
    int rc = 0, px, py;
    const int pts[3] = {0, 2, 3};
    for (int j = 0; j < 3; j++) {
        int i = pts[j];
        if (!viz_plot_map(&f, x[i], y[i], &px, &py) || !is_series(pixel(&img, px, py), 0))
            rc = 1;
    }
    // The data range ignores the skipped points.
    if (!(f.xt.hi < 10 && f.yt.hi < 10 && f.yt.lo > -10))
        rc = 1;
    // No segment bridges the NaN at x = 1: the middle of (0,1)-(2,3) is bare;
    // (2,3)-(3,5) is drawn.
    CHECK(viz_plot_map(&f, 1, 2, &px, &py) == 1);
    if (is_series(pixel(&img, px, py), 0))
        rc = 1;
    int qx0, qy0, qx1, qy1;
    viz_plot_map(&f, 2, 3, &qx0, &qy0);
    viz_plot_map(&f, 3, 5, &qx1, &qy1);
    int hit = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            hit |= is_series(pixel(&img, (qx0 + qx1) / 2 + dx, (qy0 + qy1) / 2 + dy), 0);
    if (!hit)
        rc = 1;
    CHECK(viz_plot_map(&f, NAN, 1, &px, &py) == 0);
    viz_image_free(&img);
    return rc;
}

// One point; all-equal values; a rank sweep on log axes; a dense series.
static int test_raster_shapes(void) {
    VizImage img;
    VizPlotFrame f;
    char err[256] = "";
    int px, py;

    const double x1[] = {3}, y1[] = {7};
    VizSeries one = {"one", 1, x1, y1};
    CHECK(viz_plot_render(NULL, &one, 1, &img, &f, err, sizeof(err)) == SIM_OK);
    CHECK(viz_plot_map(&f, 3, 7, &px, &py));
    CHECK(px > f.x0 && px < f.x1 && py > f.y0 && py < f.y1);
    int ok = is_series(pixel(&img, px, py), 0);
    viz_image_free(&img);
    CHECK(ok);

    const double xe[] = {1, 2, 3, 4}, ye[] = {5, 5, 5, 5};
    VizSeries flat = {"flat", 4, xe, ye};
    CHECK(viz_plot_render(NULL, &flat, 1, &img, &f, err, sizeof(err)) == SIM_OK);
    CHECK(f.yt.lo < 5 && f.yt.hi > 5);
    ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= viz_plot_map(&f, xe[i], 5, &px, &py) && is_series(pixel(&img, px, py), 0);
    viz_image_free(&img);
    CHECK(ok);

    // A rank sweep: x powers of two 8..16384 take base 2, y base 10.
    double xr[12], yr[12], yr2[12];
    for (int i = 0; i < 12; i++) {
        xr[i] = ldexp(1.0, i + 3);
        yr[i] = 100.0 / xr[i] + 0.05 * log2(xr[i]);
        yr2[i] = 400.0 / xr[i] + 2.0;
    }
    VizSeries sweep[2] = {{"ring", 12, xr, yr}, {"tree", 12, xr, yr2}};
    VizPlotSpec spec = {.title = "step time", .xlabel = "ranks", .ylabel = "s", .logx = 1,
                        .logy = 1};
    CHECK(viz_plot_render(&spec, sweep, 2, &img, &f, err, sizeof(err)) == SIM_OK);
    CHECK(f.xt.log == 1 && f.xt.base == 2);
    CHECK_NEAR(f.xt.lo, 8, 0);
    CHECK_NEAR(f.xt.hi, 16384, 0);
    CHECK(f.xt.n >= 6);
    CHECK(f.yt.log == 1 && f.yt.base == 10);
    ok = 1;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 12; i++)
            ok &= viz_plot_map(&f, xr[i], sweep[k].y[i], &px, &py) &&
                  is_series(pixel(&img, px, py), k);
    // Equal ratios, equal distances on a log axis.
    int p8, p64, p512, dummy;
    viz_plot_map(&f, 8, 1, &p8, &dummy);
    viz_plot_map(&f, 64, 1, &p64, &dummy);
    viz_plot_map(&f, 512, 1, &p512, &dummy);
    viz_image_free(&img);
    CHECK(ok);
    CHECK(abs((p64 - p8) - (p512 - p64)) <= 1);
    // Zero and negative values cannot sit on a log axis: skipped.
    yr[0] = 0;
    yr[1] = -1;
    CHECK(viz_plot_render(&spec, sweep, 2, &img, &f, err, sizeof(err)) == SIM_OK);
    CHECK(viz_plot_map(&f, 8, 0, &px, &py) == 0);
    viz_image_free(&img);

    // A dense series: no markers, the line passes through every point.
    int n = tenv_quick() ? 2000 : 20000;
    double *xd = malloc(sizeof(double) * (size_t)n), *yd = malloc(sizeof(double) * (size_t)n);
    CHECK(xd != NULL && yd != NULL);
    for (int i = 0; i < n; i++) {
        xd[i] = i;
        yd[i] = 2.5 * exp(-i / (n / 4.0)) + 0.3;
    }
    VizSeries dense = {"loss", n, xd, yd};
    VizPlotSpec big = {.title = "loss", .width = 1600, .height = 1000};
    SimStatus st = viz_plot_render(&big, &dense, 1, &img, &f, err, sizeof(err));
    ok = st == SIM_OK && img.w == 1600 && img.h == 1000;
    for (int i = 0; ok && i < n; i += n / 50)
        ok &= viz_plot_map(&f, xd[i], yd[i], &px, &py) && is_series(pixel(&img, px, py), 0);
    if (st == SIM_OK)
        viz_image_free(&img);
    free(xd);
    free(yd);
    CHECK(ok);
    return 0;
}

// Many series: distinct colour-and-shape pairs, all drawn.
static int test_raster_many(void) {
    enum { K = VIZ_PLOT_MAX_SERIES };
    double xs[K][2], ys[K][2];
    VizSeries s[K];
    char labels[K][24];
    for (int k = 0; k < K; k++) {
        xs[k][0] = k;
        xs[k][1] = k + 0.5;
        ys[k][0] = k;
        ys[k][1] = k;
        snprintf(labels[k], sizeof(labels[k]), "rank %d", k);
        s[k] = (VizSeries){labels[k], 2, xs[k], ys[k]};
    }
    VizImage img;
    VizPlotFrame f;
    char err[256] = "";
    CHECK(viz_plot_render(NULL, s, K, &img, &f, err, sizeof(err)) == SIM_OK);
    int ok = 1;
    for (int k = 0; k < K; k++) {
        int px, py;
        ok &= viz_plot_map(&f, xs[k][0], ys[k][0], &px, &py) == 1;
        ok &= is_series(pixel(&img, px, py), k);
    }
    viz_image_free(&img);
    CHECK(ok);
    uint8_t c0[3], c8[3], c1[3];
    viz_plot_series_colour(0, c0);
    viz_plot_series_colour(8, c8);
    viz_plot_series_colour(1, c1);
    CHECK(memcmp(c0, c8, 3) == 0 && memcmp(c0, c1, 3) != 0);
    return 0;
}

static int test_errors(void) {
    VizImage img = {1, 1, (uint8_t *)&img};
    char err[256] = "";
    const double x[] = {1, 2}, y[] = {3, 4};
    const double nx[] = {NAN, 1}, ny[] = {1, INFINITY};
    VizSeries good = {"good", 2, x, y};

    CHECK(viz_plot_render(NULL, NULL, 0, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "no series");
    CHECK(img.rgb == NULL);
    CHECK(viz_plot_render(NULL, &good, 0, &img, NULL, err, sizeof(err)) == SIM_EINVAL);

    VizSeries two[2] = {good, {"empty", 0, x, y}};
    CHECK(viz_plot_render(NULL, two, 2, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "plot series 'empty' has no points");
    two[1] = (VizSeries){NULL, 2, x, NULL};
    CHECK(viz_plot_render(NULL, two, 2, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "'series 2' has 2 points but no y values");

    VizSeries nan = {"nan", 2, nx, ny};
    CHECK(viz_plot_render(NULL, &nan, 1, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "nothing to plot: every point has a NaN or infinite coordinate");
    const double neg[] = {-1, 0};
    VizSeries nonpos = {"neg", 2, x, neg};
    VizPlotSpec logy = {.logy = 1};
    CHECK(viz_plot_render(&logy, &nonpos, 1, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "<= 0 on a log axis");

    VizPlotSpec small = {.width = 50};
    CHECK(viz_plot_render(&small, &good, 1, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "plot width 50 is outside 200..8192 pixels");
    VizPlotSpec tall = {.height = 100000};
    CHECK(viz_plot_render(&tall, &good, 1, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "plot height 100000");
    VizPlotSpec badlog = {.logx = 3};
    CHECK(viz_plot_render(&badlog, &good, 1, &img, NULL, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "plot logx 3");

    VizSeries many[VIZ_PLOT_MAX_SERIES + 1];
    for (int k = 0; k <= VIZ_PLOT_MAX_SERIES; k++)
        many[k] = good;
    CHECK(viz_plot_render(NULL, many, VIZ_PLOT_MAX_SERIES + 1, &img, NULL, err, sizeof(err)) ==
          SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "at most 16");
    CHECK(img.rgb == NULL);
    // A NULL error buffer is allowed.
    CHECK(viz_plot_render(NULL, NULL, 0, &img, NULL, NULL, 0) == SIM_EINVAL);
    // The smallest size still has room.
    VizPlotSpec tiny = {.title = "a long title that will not fit in two hundred pixels",
                        .xlabel = "x",
                        .ylabel = "y",
                        .width = VIZ_PLOT_MIN_SIDE,
                        .height = VIZ_PLOT_MIN_SIDE};
    CHECK(viz_plot_render(&tiny, &good, 1, &img, NULL, err, sizeof(err)) == SIM_OK);
    viz_image_free(&img);
    return 0;
}

// ----------------------------------------------------------------------------
// PNG

#ifdef DDPLAB_HAVE_PNG
// Reads path back as 8-bit RGB; *out allocated. 0 on success.
static int decode_png(const char *path, VizImage *out) {
    png_image pi;
    memset(&pi, 0, sizeof(pi));
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&pi, path)) {
        fprintf(stderr, "decode %s: %s\n", path, pi.message);
        return 1;
    }
    pi.format = PNG_FORMAT_RGB;
    out->w = (int)pi.width;
    out->h = (int)pi.height;
    out->rgb = malloc(PNG_IMAGE_SIZE(pi));
    if (out->rgb == NULL) {
        png_image_free(&pi);
        return 1;
    }
    if (!png_image_finish_read(&pi, NULL, out->rgb, 0, NULL)) {
        fprintf(stderr, "decode %s: %s\n", path, pi.message);
        free(out->rgb);
        out->rgb = NULL;
        return 1;
    }
    return 0;
}

static int test_png(const char *dir) {
    char path[1024], err[512] = "";
    snprintf(path, sizeof(path), "%s/sweep.png", dir);
    VizSeries s[2] = {{"squares", 5, ax, ay}, {"falling", 5, ax, by}};
    VizPlotSpec spec = {.title = "Loss", .xlabel = "step", .ylabel = "loss", .width = 640,
                        .height = 400};
    // Something old in the way: replaced whole.
    CHECK(tfile_write(path, "old", 3) == 0);
    CHECK(viz_plot_png(path, &spec, s, 2, err, sizeof(err)) == SIM_OK);
    CHECK_EQ_INT(tfile_dir_entries(dir), 1); // no temporary left behind

    VizImage want, got = {0, 0, NULL};
    VizPlotFrame f;
    CHECK(viz_plot_render(&spec, s, 2, &want, &f, err, sizeof(err)) == SIM_OK);
    int rc = decode_png(path, &got);
    if (rc == 0 && (got.w != 640 || got.h != 400))
        rc = 1;
    if (rc == 0 && memcmp(got.rgb, want.rgb, (size_t)640 * 400 * 3) != 0) {
        fprintf(stderr, "decoded pixels differ from the rendered image\n");
        rc = 1;
    }
    int px, py;
    if (rc == 0 && !(viz_plot_map(&f, 2, 4, &px, &py) && is_series(pixel(&got, px, py), 0) &&
                     viz_plot_map(&f, 3, 5, &px, &py) && is_series(pixel(&got, px, py), 1) &&
                     is_rgb(pixel(&got, 0, 0), 255, 255, 255) &&
                     is_rgb(pixel(&got, f.ax0, (f.ay0 + f.ay1) / 2), 0, 0, 0)))
        rc = 1;
    free(got.rgb);

    // viz_png_write on its own, a second file.
    char path2[1024];
    snprintf(path2, sizeof(path2), "%s/raw.png", dir);
    if (rc == 0 && viz_png_write(path2, &want, err, sizeof(err)) != SIM_OK)
        rc = 1;
    viz_image_free(&want);
    CHECK(rc == 0);
    CHECK_EQ_INT(tfile_dir_entries(dir), 2);
    CHECK(decode_png(path2, &got) == 0);
    CHECK(got.w == 640 && got.h == 400);
    free(got.rgb);
    return 0;
}
#endif

static int test_png_errors(const char *dir) {
    char path[1024], err[512] = "";
    const double x[] = {1, 2}, y[] = {3, 4};
    VizSeries good = {"good", 2, x, y};

    // A directory that does not exist: SIM_EIO naming the file.
    snprintf(path, sizeof(path), "%s/missing/plot.png", dir);
    CHECK(viz_plot_png(path, NULL, &good, 1, err, sizeof(err)) == SIM_EIO);
    CHECK_STR_CONTAINS(err, "cannot write ");
    CHECK_STR_CONTAINS(err, "/missing/plot.png: No such file or directory");
    // A directory in the place of the file.
    CHECK(viz_plot_png(dir, NULL, &good, 1, err, sizeof(err)) == SIM_EIO);
    CHECK_EQ_INT(tfile_dir_entries(dir), 0);

    // Bad input writes nothing.
    snprintf(path, sizeof(path), "%s/none.png", dir);
    CHECK(viz_plot_png(path, NULL, &good, 0, err, sizeof(err)) == SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "no series");
    CHECK(!tfile_exists(path));
    VizImage empty = {0, 0, NULL};
    CHECK(viz_png_write(path, &empty, err, sizeof(err)) == SIM_EINVAL);
    CHECK(viz_png_write("", &empty, err, sizeof(err)) == SIM_EINVAL);
    CHECK_EQ_INT(tfile_dir_entries(dir), 0);
    return 0;
}

static int run_png(void) {
    char dir[512];
    char err[512] = "";
    const double x[] = {1, 2}, y[] = {3, 4};
    VizSeries good = {"good", 2, x, y};
    if (!viz_png_available()) {
        // The writer says what is missing; the rest cannot run.
        CHECK(viz_plot_png("/tmp/never.png", NULL, &good, 1, err, sizeof(err)) == SIM_ENOTSUP);
        CHECK_STR_CONTAINS(err, "libpng-dev");
        CHECK(!tfile_exists("/tmp/never.png"));
        printf("SKIP: %s\n", err);
        return 77;
    }
#ifdef DDPLAB_HAVE_PNG
    if (tfile_mkdtemp(dir, sizeof(dir), "vizplot") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    int rc = test_png(dir);
    printf("%s test_png\n", rc == 0 ? "ok    " : "FAILED");
    tfile_rmtree(dir);
    if (rc == 0 && tfile_mkdtemp(dir, sizeof(dir), "vizplot") == 0) {
        rc = test_png_errors(dir);
        printf("%s test_png_errors\n", rc == 0 ? "ok    " : "FAILED");
        tfile_rmtree(dir);
    }
    return rc != 0;
#else
    (void)dir;
    (void)test_png_errors;
    fprintf(stderr, "viz_png_available() is 1 but the test was built without libpng\n");
    return 1;
#endif
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "raster";
    if (strcmp(mode, "png") == 0)
        return run_png();
    if (strcmp(mode, "raster") != 0) {
        fprintf(stderr, "usage: %s [raster|png]\n", argv[0]);
        return 2;
    }
    RUN(test_ticks_linear);
    RUN(test_ticks_log);
    RUN(test_font);
    RUN(test_raster);
    RUN(test_raster_gaps);
    RUN(test_raster_shapes);
    RUN(test_raster_many);
    RUN(test_errors);
    return failures != 0;
}
