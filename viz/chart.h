// viz/chart.h: charts (loss, memory by category, bandwidth, a planner's
// sweep, a report's time per rank) drawn with cairo and pango, written as
// PNG, SVG or PDF by the file name's extension. A chart is plain data
// (VizChart) that the program fills; viz_chart_write draws it. The drawing
// lives with the SDL view's plugin (the program links no cairo): the
// program's viz_chart_write opens the plugin (view_sdl_load.c).
//
//   double x[] = {0, 1, 2}, y[] = {2.3, 1.9, 1.7};
//   VizChartSeries s = {.label = "loss", .kind = VIZ_CHART_LINE, .n = 3, .x = x, .y = y};
//   VizChartPanel p = {.y = {.label = "loss"}, .series = &s, .nseries = 1};
//   VizChart c = {.title = "loss", .x = {.label = "iteration", .integer = 1},
//                 .panels = &p, .npanels = 1};
//   viz_chart_write(&c, "loss.svg", err, sizeof err);
//
// Values are given in base units (seconds, bytes, bytes per second): the
// drawing picks the unit that reads best from the axis' range (us / ms / s,
// KiB .. GiB, ...) and names it in the axis label.
#ifndef DDPLAB_VIZ_CHART_H
#define DDPLAB_VIZ_CHART_H

#include <stddef.h>

#include "base/status.h" // defines: SimStatus

enum {
    VIZ_CHART_MAX_PANELS = 16,
    VIZ_CHART_MAX_SERIES = 24,   // per panel
    VIZ_CHART_DEFAULT_W = 960,
    VIZ_CHART_DEFAULT_H = 600,
    VIZ_CHART_MIN_SIDE = 200,
    VIZ_CHART_MAX_SIDE = 8192,
};

// What an axis' values are; the drawing scales them to a unit.
typedef enum {
    VIZ_UNIT_NONE = 0,  // plain numbers (loss, tokens/s)
    VIZ_UNIT_SECONDS,   // us, ms or s
    VIZ_UNIT_BYTES,     // bytes, KiB, MiB, GiB, TiB (powers of 1024)
    VIZ_UNIT_BYTES_SI,  // bytes, kB, MB, GB, TB (powers of 1000, as a planner quotes)
    VIZ_UNIT_BYTES_S,   // B/s, KB/s .. TB/s (powers of 1000, as bandwidth is quoted)
} VizChartUnit;

typedef struct {
    const char *label;  // "simulated time": the unit is added, "(ms)"
    VizChartUnit unit;
    int log;            // 0 linear; 2 or 10: a logarithmic axis of that base
    int integer;        // ticks on whole values only (steps, iterations, ranks)
    int from_zero;      // a linear axis starts at 0 (areas, memory, throughput)
} VizChartAxis;

// Where a colour comes from: the palette the view uses for the same thing
// (viz/paint.h), so that a category or a rank has one colour everywhere.
typedef enum {
    VIZ_INK_AUTO = 0,  // a cycle of eight hues: index 1..7 picks one, 0 takes the
                       // series' position in its panel
    VIZ_INK_MEMCAT,    // memory category index (SIM_MEM_*): viz_mem_colour
    VIZ_INK_RANKOF,    // rank index: viz_rank_colour
    VIZ_INK_HEX,       // index is 0xRRGGBB
    VIZ_INK_ALERT,     // red: what does not fit, a capacity
    VIZ_INK_MUTED,     // grey: a reference, a model's prediction
} VizChartInkKind;

typedef struct {
    VizChartInkKind kind;
    unsigned index;
} VizChartInk;

typedef enum {
    VIZ_CHART_LINE = 0, // points joined by segments (NaN breaks the line)
    VIZ_CHART_STEP,     // holds each value until the next point's x
    VIZ_CHART_AREA,     // a step, filled, stacked on the panel's earlier areas
                        // (a panel's areas share their points' x: same n, same x)
    VIZ_CHART_MARKS,    // points only: dots
    VIZ_CHART_CROSSES,  // points only: crosses (a configuration that fails)
    VIZ_CHART_BARS,     // horizontal bars: y[i] is the row (0 at the top),
                        // x[i] the length, stacked along x on earlier bars
} VizChartKind;

// One series: n points (x[i], y[i]). A point with a NaN or infinite
// coordinate (or <= 0 on a log axis) is left out. label (NULL: none) names
// it in the legend; series with the same label and ink share one entry.
typedef struct {
    const char *label;
    VizChartKind kind;
    VizChartInk ink;
    size_t n;
    const double *x, *y;
    int dots;           // lines: a dot at each point too
    int dashed;
} VizChartSeries;

// A horizontal line across a panel at y (a device's capacity), labelled at
// its right end.
typedef struct {
    double y;
    const char *label;
    VizChartInk ink;
    int shade_above;    // tint what lies above the line (what does not fit)
} VizChartRule;

// A note at a data point: a ring at (x, y) and the text beside it ("peak
// 3.2 GiB at 0.41 s").
typedef struct {
    double x, y;
    const char *text;
} VizChartNote;

// One panel: its data area, y axis and contents; every panel shares the
// chart's x axis.
typedef struct {
    const char *title;  // above the panel (may be NULL)
    int marked;         // a swatch of ink `mark` before the title (a rank's colour)
    VizChartInk mark;
    VizChartAxis y;
    const VizChartSeries *series;
    int nseries;
    const VizChartRule *rules;
    int nrules;
    const VizChartNote *notes;
    int nnotes;
    const char *const *rows; // BARS: the row names, [nrows] (y = 0 .. nrows - 1)
    int nrows;
} VizChartPanel;

struct VizChart {
    const char *title;
    const char *subtitle;  // a second, quieter line (may be NULL)
    VizChartAxis x;        // shared by every panel
    const VizChartPanel *panels;
    int npanels;           // 1 .. VIZ_CHART_MAX_PANELS
    int columns;           // panels per row (0: one column up to 3 panels, else 2)
    int share_y;           // small multiples: every panel has one y range
    int width, height;     // pixels (0: VIZ_CHART_DEFAULT_W x _H)
};
typedef struct VizChart VizChart;

// Draws c into path (.png, .svg or .pdf), atomically. SIM_EINVAL for a chart
// with nothing to draw or an unknown extension (err names the known ones),
// SIM_EIO when the file cannot be written, SIM_ENOTSUP without the plugin,
// SIM_ENOMEM.
SimStatus viz_chart_write(const VizChart *c, const char *path, char *err, size_t errlen);

// 1 when this build can draw charts (the program: it was built with the
// plugin; whether the plugin loads is told when a chart is written), else 0
// with err saying what to install.
int viz_chart_available(char *err, size_t errlen);

// 1 when path ends in a format a chart can be written as (.png, .svg,
// .pdf, any case): VIZ_CHART_FORMATS names them for messages.
int viz_chart_format_ok(const char *path);
#define VIZ_CHART_FORMATS ".png, .svg or .pdf"

#endif
