// viz/plot.c: the chart's layout and drawing (viz_plot_render) and the
// one-call PNG writer (viz_plot_png). See plot.h.
//
// Layout, outside in: a margin; the title on top; the y-axis label (turned)
// and the y tick labels on the left; the x tick labels and the x-axis label
// below; then the black frame. Inside the frame a pad keeps markers off the
// frame lines, and the data area inside the pad is where the axes' [lo, hi]
// map. Tick counts follow from the room their labels need.
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "raster.h"

static const VizRgb WHITE = {255, 255, 255};
static const VizRgb BLACK = {0, 0, 0};
static const VizRgb GRID = {221, 221, 221};
static const VizRgb LEGEND_EDGE = {150, 150, 150};

// Eight colours, far apart in hue and lightness, none of them grey.
static const VizRgb PALETTE[8] = {
    {0, 90, 200},   // blue
    {230, 110, 0},  // orange
    {0, 150, 70},   // green
    {205, 30, 45},  // red
    {130, 60, 185}, // purple
    {0, 165, 175},  // teal
    {150, 95, 35},  // brown
    {225, 55, 165}, // magenta
};

void viz_plot_series_colour(int i, uint8_t rgb[3]) {
    VizRgb c = PALETTE[(unsigned)i % 8u];
    rgb[0] = c.r;
    rgb[1] = c.g;
    rgb[2] = c.b;
}

// Series i and i + 8 share a colour, so their shapes must differ.
static VizMarker series_marker(int i) {
    return (VizMarker)((i + i / 8) % VIZ_MARK_COUNT);
}

void viz_image_free(VizImage *img) {
    if (img == NULL)
        return;
    free(img->rgb);
    memset(img, 0, sizeof(*img));
}

// ----------------------------------------------------------------------------
// data

// Values this large are refused as unplottable: the axis arithmetic (span,
// powers of ten) would overflow.
#define PLOT_VALUE_LIMIT 1e300

static int plottable(double v, int log) {
    return isfinite(v) && fabs(v) <= PLOT_VALUE_LIMIT && (!log || v > 0);
}

static int point_ok(const VizSeries *s, int i, int logx, int logy) {
    return plottable(s->x[i], logx) && plottable(s->y[i], logy);
}

static int is_power_of_two(double v) {
    int e;
    return v > 0 && frexp(v, &e) == 0.5;
}

typedef struct {
    double xlo, xhi, ylo, yhi;
    int npoints;           // plottable points over all series
    int xpow2, ypow2;      // every plottable x (y) is a power of two
} DataRange;

static void data_range(const VizSeries *s, int nseries, int logx, int logy, DataRange *d) {
    memset(d, 0, sizeof(*d));
    d->xpow2 = d->ypow2 = 1;
    for (int k = 0; k < nseries; k++) {
        for (int i = 0; i < s[k].n; i++) {
            if (!point_ok(&s[k], i, logx, logy))
                continue;
            double x = s[k].x[i], y = s[k].y[i];
            if (d->npoints == 0) {
                d->xlo = d->xhi = x;
                d->ylo = d->yhi = y;
            }
            d->xlo = fmin(d->xlo, x);
            d->xhi = fmax(d->xhi, x);
            d->ylo = fmin(d->ylo, y);
            d->yhi = fmax(d->yhi, y);
            d->xpow2 &= is_power_of_two(x);
            d->ypow2 &= is_power_of_two(y);
            d->npoints++;
        }
    }
}

static const char *series_name(const VizSeries *s, int k, char *buf, size_t len) {
    if (s->label != NULL && s->label[0] != '\0')
        return s->label;
    snprintf(buf, len, "series %d", k + 1);
    return buf;
}

static SimStatus check_input(const VizPlotSpec *spec, const VizSeries *s, int nseries,
                             char *err, size_t errlen) {
    if (spec->width != 0 && (spec->width < VIZ_PLOT_MIN_SIDE || spec->width > VIZ_PLOT_MAX_SIDE))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "plot width %d is outside %d..%d pixels (0 for %d)", spec->width,
                               VIZ_PLOT_MIN_SIDE, VIZ_PLOT_MAX_SIDE, VIZ_PLOT_DEFAULT_WIDTH);
    if (spec->height != 0 &&
        (spec->height < VIZ_PLOT_MIN_SIDE || spec->height > VIZ_PLOT_MAX_SIDE))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "plot height %d is outside %d..%d pixels (0 for %d)", spec->height,
                               VIZ_PLOT_MIN_SIDE, VIZ_PLOT_MAX_SIDE, VIZ_PLOT_DEFAULT_HEIGHT);
    const int logs[2] = {spec->logx, spec->logy};
    for (int a = 0; a < 2; a++)
        if (logs[a] != 0 && logs[a] != 1 && logs[a] != 2 && logs[a] != 10)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "plot log%c %d: use 0 (linear), 1 (log, base from the data), "
                                   "2 or 10",
                                   a == 0 ? 'x' : 'y', logs[a]);
    if (s == NULL || nseries <= 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "nothing to plot: no series given");
    if (nseries > VIZ_PLOT_MAX_SERIES)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "%d series to plot; at most %d fit in one chart", nseries,
                               VIZ_PLOT_MAX_SERIES);
    for (int k = 0; k < nseries; k++) {
        char nb[32];
        const char *name = series_name(&s[k], k, nb, sizeof(nb));
        if (s[k].n <= 0)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "plot series '%s' has no points",
                                   name);
        if (s[k].x == NULL || s[k].y == NULL)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "plot series '%s' has %d points but no %s values", name,
                                   s[k].n, s[k].x == NULL ? "x" : "y");
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// axes

// Position of u in [lo, hi] on a pixel span [p0, p1] (log: by logarithm).
static int map_axis(const VizTicks *t, double u, int p0, int p1) {
    double f = t->log ? (log(u) - log(t->lo)) / (log(t->hi) - log(t->lo))
                      : (u - t->lo) / (t->hi - t->lo);
    // Far outside the axis (a caller's point, never a plotted one): clamp
    // so the pixel stays an int.
    f = fmin(fmax(f, -1e5), 1e5);
    return p0 + (int)lround(f * (p1 - p0));
}

int viz_plot_map(const VizPlotFrame *f, double x, double y, int *px, int *py) {
    if (!plottable(x, f->xt.log) || !plottable(y, f->yt.log))
        return 0;
    *px = map_axis(&f->xt, x, f->x0, f->x1);
    *py = map_axis(&f->yt, y, f->y1, f->y0); // y grows downwards
    return 1;
}

static SimStatus axis_ticks(double lo, double hi, int logmode, int pow2, int max_ticks,
                            VizTicks *t) {
    if (logmode == 0)
        return viz_ticks_linear(lo, hi, max_ticks, t);
    int base = logmode == 1 ? (pow2 ? 2 : 10) : logmode;
    return viz_ticks_log(lo, hi, base, max_ticks, t);
}

// The most ticks for the axis (up to `start`) whose labels, centred on
// their ticks along a span of `len` pixels, keep `gap` pixels apart. Labels
// along x take their text width, along y their line height.
static SimStatus fit_ticks(double lo, double hi, int logmode, int pow2, int start, int len,
                           int vertical, int scale, VizTicks *t) {
    if (start > VIZ_TICKS_MAX)
        start = VIZ_TICKS_MAX;
    if (start < 2)
        start = 2;
    int gap = 8 * scale;
    for (int m = start; m >= 2; m--) {
        SimStatus st = axis_ticks(lo, hi, logmode, pow2, m, t);
        if (st != SIM_OK)
            return st;
        int fits = 1, prev_pos = 0, prev_half = 0;
        for (int i = 0; i < t->n && fits; i++) {
            char lb[48];
            viz_tick_label(t, t->v[i], lb, sizeof(lb));
            int half = vertical ? VIZ_FONT_ASCENT * scale / 2 + 1 : viz_text_width(lb, scale) / 2;
            int pos = map_axis(t, t->v[i], 0, len);
            if (i > 0 && pos - prev_pos < prev_half + half + gap)
                fits = 0;
            prev_pos = pos;
            prev_half = half;
        }
        if (fits || m == 2)
            return SIM_OK;
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// drawing

typedef struct {
    VizImage *img;
    VizPlotFrame *f;
    int scale;     // text and stroke scale: 1, or 2 for large images
    int fx0, fy0, fx1, fy1; // the frame lines
} Canvas;

static void draw_grid(Canvas *c) {
    VizPlotFrame *f = c->f;
    for (int i = 0; i < f->xt.n; i++) {
        int px = map_axis(&f->xt, f->xt.v[i], f->x0, f->x1);
        viz_fill_rect(c->img, px, c->fy0 + 1, px, c->fy1 - 1, GRID);
    }
    for (int i = 0; i < f->yt.n; i++) {
        int py = map_axis(&f->yt, f->yt.v[i], f->y1, f->y0);
        viz_fill_rect(c->img, c->fx0 + 1, py, c->fx1 - 1, py, GRID);
    }
}

static void draw_axes(Canvas *c) {
    VizPlotFrame *f = c->f;
    int s = c->scale, tick = 4 * s;
    char lb[48];
    for (int k = 0; k < s; k++)
        viz_rect(c->img, c->fx0 - k, c->fy0 - k, c->fx1 + k, c->fy1 + k, BLACK);
    for (int i = 0; i < f->xt.n; i++) {
        int px = map_axis(&f->xt, f->xt.v[i], f->x0, f->x1);
        viz_fill_rect(c->img, px, c->fy1 + 1, px + s - 1, c->fy1 + tick, BLACK);
        viz_tick_label(&f->xt, f->xt.v[i], lb, sizeof(lb));
        int w = viz_text_width(lb, s);
        int lx = px - w / 2;
        // Keep the end labels inside the image.
        if (lx + w > c->img->w - 2 * s)
            lx = c->img->w - 2 * s - w;
        if (lx < 2 * s)
            lx = 2 * s;
        viz_draw_text(c->img, lx, c->fy1 + tick + 4 * s, lb, s, BLACK);
    }
    for (int i = 0; i < f->yt.n; i++) {
        int py = map_axis(&f->yt, f->yt.v[i], f->y1, f->y0);
        viz_fill_rect(c->img, c->fx0 - tick, py, c->fx0 - 1, py + s - 1, BLACK);
        viz_tick_label(&f->yt, f->yt.v[i], lb, sizeof(lb));
        int w = viz_text_width(lb, s);
        viz_draw_text(c->img, c->fx0 - tick - 4 * s - w, py - (VIZ_FONT_ASCENT * s) / 2, lb, s,
                      BLACK);
    }
}

// Markers would merge into a band on a dense series: the line alone shows
// it (a point still lies on the line).
static int has_markers(const VizPlotFrame *f, const VizSeries *s, int r) {
    return s->n <= (f->x1 - f->x0 + 1) / (3 * r);
}

static void draw_series(Canvas *c, const VizSeries *s, int nseries) {
    VizPlotFrame *f = c->f;
    int sc = c->scale, width = 2 * sc, r = 3 * sc;
    // Lines of every series first, then every series' markers, so no line
    // hides a point.
    for (int k = 0; k < nseries; k++) {
        VizRgb col = PALETTE[k % 8];
        int have_prev = 0, px0 = 0, py0 = 0;
        for (int i = 0; i < s[k].n; i++) {
            int px, py;
            if (!viz_plot_map(f, s[k].x[i], s[k].y[i], &px, &py)) {
                have_prev = 0; // a gap breaks the line
                continue;
            }
            if (have_prev)
                viz_line(c->img, px0, py0, px, py, width, col);
            px0 = px;
            py0 = py;
            have_prev = 1;
        }
    }
    for (int k = 0; k < nseries; k++) {
        if (!has_markers(f, &s[k], r))
            continue;
        VizRgb col = PALETTE[k % 8];
        for (int i = 0; i < s[k].n; i++) {
            int px, py;
            if (viz_plot_map(f, s[k].x[i], s[k].y[i], &px, &py))
                viz_marker(c->img, px, py, r, series_marker(k), col);
        }
    }
}

// How much of the data would a legend box hide: points inside it, and
// samples along each segment.
static int legend_cost(const VizPlotFrame *f, const VizSeries *s, int nseries, int bx0, int by0,
                       int bx1, int by1) {
    int cost = 0;
    for (int k = 0; k < nseries; k++) {
        int have_prev = 0, px0 = 0, py0 = 0;
        for (int i = 0; i < s[k].n; i++) {
            int px, py;
            if (!viz_plot_map(f, s[k].x[i], s[k].y[i], &px, &py)) {
                have_prev = 0;
                continue;
            }
            const int samples = have_prev ? 8 : 1;
            for (int j = 1; j <= samples; j++) {
                int qx = have_prev ? px0 + (px - px0) * j / samples : px;
                int qy = have_prev ? py0 + (py - py0) * j / samples : py;
                cost += qx >= bx0 && qx <= bx1 && qy >= by0 && qy <= by1;
            }
            px0 = px;
            py0 = py;
            have_prev = 1;
        }
    }
    return cost;
}

static void draw_legend(Canvas *c, const VizSeries *s, int nseries) {
    if (nseries == 1 && (s[0].label == NULL || s[0].label[0] == '\0'))
        return; // one unnamed line needs no key
    int sc = c->scale, pad = 6 * sc, sample = 24 * sc, rowh = VIZ_FONT_LINE * sc + 4 * sc;
    int textw = 0;
    char nb[32];
    for (int k = 0; k < nseries; k++) {
        int w = viz_text_width(series_name(&s[k], k, nb, sizeof(nb)), sc);
        if (w > textw)
            textw = w;
    }
    int bw = pad + sample + pad + textw + pad, bh = pad + nseries * rowh - 4 * sc + pad;
    int margin = 8 * sc;
    // Corners in order of preference: top right, top left, bottom right,
    // bottom left; the one that hides the least data wins.
    int best_cost = -1, bx = 0, by = 0;
    for (int corner = 0; corner < 4; corner++) {
        int x = corner % 2 == 0 ? c->fx1 - margin - bw : c->fx0 + margin;
        int y = corner < 2 ? c->fy0 + margin : c->fy1 - margin - bh;
        // Markers reach 3 pixels (at scale) past their point.
        int r = 4 * sc;
        int cost = legend_cost(c->f, s, nseries, x - r, y - r, x + bw - 1 + r, y + bh - 1 + r);
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            bx = x;
            by = y;
        }
    }
    viz_fill_rect(c->img, bx, by, bx + bw - 1, by + bh - 1, WHITE);
    viz_rect(c->img, bx, by, bx + bw - 1, by + bh - 1, LEGEND_EDGE);
    for (int k = 0; k < nseries; k++) {
        VizRgb col = PALETTE[k % 8];
        int rowy = by + pad + k * rowh;
        int midy = rowy + (VIZ_FONT_ASCENT * sc) / 2;
        int lx0 = bx + pad, lx1 = bx + pad + sample - 1;
        viz_line(c->img, lx0, midy, lx1, midy, 2 * sc, col);
        if (has_markers(c->f, &s[k], 3 * sc))
            viz_marker(c->img, (lx0 + lx1) / 2, midy, 3 * sc, series_marker(k), col);
        viz_draw_text(c->img, lx1 + 1 + pad, rowy, series_name(&s[k], k, nb, sizeof(nb)), sc,
                      BLACK);
    }
}

// The title centred over the frame (kept inside the image), the x label
// centred under the tick labels, the y label turned and centred beside the
// frame at the image's left edge.
static void draw_titles(Canvas *c, const VizPlotSpec *spec, int title_y, int xlabel_y,
                        int ylabel_x) {
    int s = c->scale, cx = (c->fx0 + c->fx1) / 2, cy = (c->fy0 + c->fy1) / 2;
    if (spec->title != NULL && spec->title[0] != '\0') {
        // Large letters if the title fits, else small ones, else cut short.
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", spec->title);
        int room = c->img->w - 8 * s, ts = 2 * s;
        if (viz_text_width(buf, ts) > room)
            ts = s;
        size_t maxc = (size_t)((room + VIZ_FONT_ADV * ts - VIZ_FONT_W * ts) / (VIZ_FONT_ADV * ts));
        if (strlen(buf) > maxc && maxc >= 3)
            snprintf(buf + maxc - 2, sizeof(buf) - (maxc - 2), "..");
        int w = viz_text_width(buf, ts);
        int x = cx - w / 2;
        if (x + w > c->img->w - 4 * s)
            x = c->img->w - 4 * s - w;
        if (x < 4 * s)
            x = 4 * s;
        viz_draw_text(c->img, x, title_y + (2 * s - ts) * VIZ_FONT_ASCENT / 2, buf, ts, BLACK);
    }
    if (spec->xlabel != NULL && spec->xlabel[0] != '\0') {
        int w = viz_text_width(spec->xlabel, s);
        viz_draw_text(c->img, cx - w / 2, xlabel_y, spec->xlabel, s, BLACK);
    }
    if (spec->ylabel != NULL && spec->ylabel[0] != '\0') {
        int w = viz_text_width(spec->ylabel, s);
        int y = cy + w / 2;
        if (y >= c->img->h)
            y = c->img->h - 1;
        viz_draw_text_up(c->img, ylabel_x, y, spec->ylabel, s, BLACK);
    }
}

SimStatus viz_plot_render(const VizPlotSpec *spec_in, const VizSeries *s, int nseries,
                          VizImage *img, VizPlotFrame *frame, char *err, size_t errlen) {
    memset(img, 0, sizeof(*img));
    VizPlotSpec spec = {0};
    if (spec_in != NULL)
        spec = *spec_in;
    SimStatus st = check_input(&spec, s, nseries, err, errlen);
    if (st != SIM_OK)
        return st;
    int W = spec.width != 0 ? spec.width : VIZ_PLOT_DEFAULT_WIDTH;
    int H = spec.height != 0 ? spec.height : VIZ_PLOT_DEFAULT_HEIGHT;

    DataRange d;
    data_range(s, nseries, spec.logx != 0, spec.logy != 0, &d);
    if (d.npoints == 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "nothing to plot: every point has a NaN or infinite coordinate%s",
                               spec.logx || spec.logy ? " or one <= 0 on a log axis" : "");

    // Text is 1 pixel per font pixel up to about twice the default size.
    int sc = W >= 2 * VIZ_PLOT_DEFAULT_WIDTH && H >= 2 * VIZ_PLOT_DEFAULT_HEIGHT ? 2 : 1;
    int line = VIZ_FONT_LINE * sc, tick = 4 * sc, margin = 8 * sc, pad = 8 * sc;
    int has_title = spec.title != NULL && spec.title[0] != '\0';
    int has_xl = spec.xlabel != NULL && spec.xlabel[0] != '\0';
    int has_yl = spec.ylabel != NULL && spec.ylabel[0] != '\0';

    int title_y = margin;
    int top = has_title ? margin + 2 * line + 4 * sc : margin + line;
    int bottom_text = tick + 4 * sc + line + (has_xl ? line + 4 * sc : 0);
    int fy0 = top, fy1 = H - 1 - margin - bottom_text;

    VizPlotFrame f;
    memset(&f, 0, sizeof(f));
    f.y0 = fy0 + pad;
    f.y1 = fy1 - pad;
    int datah = f.y1 - f.y0;
    st = fit_ticks(d.ylo, d.yhi, spec.logy, d.ypow2, datah / (3 * line) + 1, datah, 1, sc, &f.yt);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "cannot plot y values from %g to %g: the range is too extreme",
                               d.ylo, d.yhi);
    int ylabw = 0;
    for (int i = 0; i < f.yt.n; i++) {
        char lb[48];
        viz_tick_label(&f.yt, f.yt.v[i], lb, sizeof(lb));
        int w = viz_text_width(lb, sc);
        if (w > ylabw)
            ylabw = w;
    }
    int ylabel_x = margin;
    int fx0 = margin + (has_yl ? line + 4 * sc : 0) + ylabw + 4 * sc + tick;
    int fx1 = W - 1 - 3 * margin;
    f.x0 = fx0 + pad;
    f.x1 = fx1 - pad;
    int dataw = f.x1 - f.x0;
    if (dataw < 8 * sc || datah < 8 * sc)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "plot of %d x %d pixels leaves no room for the data", W, H);
    st = fit_ticks(d.xlo, d.xhi, spec.logx, d.xpow2, dataw / (4 * VIZ_FONT_ADV * sc) + 1, dataw,
                   0, sc, &f.xt);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "cannot plot x values from %g to %g: the range is too extreme",
                               d.xlo, d.xhi);

    img->rgb = malloc((size_t)W * (size_t)H * 3);
    if (img->rgb == NULL)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for a %d x %d plot", W, H);
    img->w = W;
    img->h = H;
    memset(img->rgb, 255, (size_t)W * (size_t)H * 3);

    Canvas c = {img, &f, sc, fx0, fy0, fx1, fy1};
    draw_grid(&c);
    draw_series(&c, s, nseries);
    draw_axes(&c);
    draw_titles(&c, &spec, title_y, fy1 + tick + 4 * sc + line + 4 * sc, ylabel_x);
    draw_legend(&c, s, nseries);
    if (frame != NULL) {
        f.ax0 = fx0;
        f.ay0 = fy0;
        f.ax1 = fx1;
        f.ay1 = fy1;
        *frame = f;
    }
    return SIM_OK;
}

SimStatus viz_plot_png(const char *path, const VizPlotSpec *spec, const VizSeries *s,
                       int nseries, char *err, size_t errlen) {
    if (!viz_png_available())
        return viz_png_write(path, NULL, err, errlen); // says what is missing
    VizImage img;
    SimStatus st = viz_plot_render(spec, s, nseries, &img, NULL, err, errlen);
    if (st != SIM_OK)
        return st;
    st = viz_png_write(path, &img, err, errlen);
    viz_image_free(&img);
    return st;
}
