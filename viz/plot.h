// viz/plot.h: line charts as PNG files (loss per step, memory per rank over
// time, bandwidth per size, a planner's sweep). Plain C and libpng: no
// terminal or window types, so any view or sub-command can use it.
//
// Two halves. The raster half is pure: viz_plot_render draws the chart into
// an RGB buffer (white background, black frame, light grey gridlines at
// "nice" ticks, tick labels, title and axis labels in a built-in 5x7 bitmap
// font, one colour and marker shape per series, a legend) and reports where
// the data landed, so tests check pixels without a file. The encoding half
// writes such a buffer as a PNG, atomically (sim/base/outfile.h). Without libpng
// at build time everything but the encoding works and the encoding returns
// SIM_ENOTSUP with a message that names the package libpng-dev.
//
//   VizSeries s = {"ring", n, ranks, step_ms};
//   VizPlotSpec spec = {.title = "step time", .xlabel = "ranks",
//                       .ylabel = "ms", .logx = 1};
//   SimStatus st = viz_plot_png("sweep.png", &spec, &s, 1, err, sizeof(err));
#ifndef DDPLAB_VIZ_PLOT_H
#define DDPLAB_VIZ_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus
#include "ticks.h"       // defines: VizTicks

// One line of the chart: n points (x[i], y[i]), drawn in order, joined by
// segments. A point with a NaN or infinite coordinate (or one <= 0 on a log
// axis) is skipped and breaks the line there. label (may be NULL) names the
// series in the legend and in error messages.
typedef struct {
    const char *label;
    int n;
    const double *x, *y;
} VizSeries;

// logx / logy: 0 linear; 1 logarithmic with the base chosen from the data
// (2 when every plottable value is a power of two, as in a rank or message
// size sweep, else 10); 2 or 10 force that base. width / height in pixels,
// 0 for the default 800 x 500, else VIZ_PLOT_MIN_SIDE..VIZ_PLOT_MAX_SIDE
// each; text and strokes double from 1600 x 1000 up. title, xlabel
// and ylabel may be NULL. Characters outside printable ASCII draw as '?'.
typedef struct {
    const char *title, *xlabel, *ylabel;
    int logx, logy;
    int width, height;
} VizPlotSpec;

enum {
    VIZ_PLOT_DEFAULT_WIDTH = 800,
    VIZ_PLOT_DEFAULT_HEIGHT = 500,
    VIZ_PLOT_MIN_SIDE = 200,     // smaller leaves no room for the labels
    VIZ_PLOT_MAX_SIDE = 8192,
    VIZ_PLOT_MAX_SERIES = 16,    // the legend's limit; colours x shapes stay distinct
};

// An RGB image: h rows of w pixels, 3 bytes each (r, g, b), top row first,
// no padding: pixel (x, y) is rgb[3 * ((size_t)y * w + x)].
typedef struct {
    int w, h;
    uint8_t *rgb;
} VizImage;

// Where a render put the data: the data area onto which the axes' [lo, hi]
// map (inclusive pixel bounds, y0 the top row), the black frame's lines
// around it a few pixels out (ax0 the left axis, ay1 the bottom axis; they
// grow outwards when the image is large enough for thicker strokes), and
// the two axes' ticks.
typedef struct {
    int x0, y0, x1, y1;
    int ax0, ay0, ax1, ay1;
    VizTicks xt, yt;
} VizPlotFrame;

// The colour of series i (0-based), 3 bytes r, g, b. Eight colours; series
// i and i + 8 share a colour and differ in marker shape.
void viz_plot_series_colour(int i, uint8_t rgb[3]);

// Draws the chart into *img (allocated here; release with viz_image_free)
// and, when frame is not NULL, describes its layout. SIM_EINVAL with a
// message for: no series (or more than VIZ_PLOT_MAX_SERIES), a series with
// no points or NULL arrays, nothing plottable at all (every point NaN or
// infinite, or <= 0 on a log axis), a bad size or log setting; SIM_ENOMEM.
// On failure *img holds nothing.
SimStatus viz_plot_render(const VizPlotSpec *spec, const VizSeries *s, int nseries,
                          VizImage *img, VizPlotFrame *frame, char *err, size_t errlen);
// The pixel of data point (x, y) in a rendered frame: 1 and *px, *py set, or
// 0 when the point cannot be drawn (not finite, <= 0 on a log axis).
int viz_plot_map(const VizPlotFrame *f, double x, double y, int *px, int *py);
void viz_image_free(VizImage *img);

// 1 when this build can encode PNG files (libpng was found).
int viz_png_available(void);
// Writes img as an 8-bit RGB PNG at path, atomically. SIM_EIO with a message
// naming path when it cannot be written (nothing is left behind),
// SIM_EINVAL for an empty image, SIM_ENOTSUP without libpng.
SimStatus viz_png_write(const char *path, const VizImage *img, char *err, size_t errlen);
// viz_plot_render, then viz_png_write. Without libpng: SIM_ENOTSUP at once,
// whatever the data.
SimStatus viz_plot_png(const char *path, const VizPlotSpec *spec, const VizSeries *s,
                       int nseries, char *err, size_t errlen);

#endif
