// viz/chart_draw.h: how the plugin draws a VizChart (chart.h), in parts:
//
//   chart.c         viz_chart_write: checks the chart, draws it into a file
//   chart_scale.c   each axis' range, unit and ticks from the data; value to pixel
//   chart_layout.c  where the title, the panels and the legend go
//   chart_axes.c    gridlines, ticks, tick labels, axis labels, panel titles
//   chart_series.c  lines, steps, stacked areas, marks, bars, rules, notes
//   chart_legend.c  one entry per distinct label, in a row under the title
//   chart_svg.c     SVG files, with the title as text
//
// The layout is computed before anything is drawn and can be had on its
// own (viz_chart_render), so tests find where each panel and value landed.
#ifndef DDPLAB_VIZ_CHART_DRAW_H
#define DDPLAB_VIZ_CHART_DRAW_H

#include "chart.h"
#include "gfx.h"   // defines: VizGfx, VizRgba
#include "paint.h" // defines: VizBox
#include "ticks.h" // defines: VizTicks

// One axis as drawn: its span [lo, hi] in the unit's values (data / div),
// its ticks (in the same values), and for a log axis the base.
typedef struct {
    double lo, hi;
    double div;        // data value / div = axis value (1 on log axes)
    char unit[16];     // "ms", "GiB", "" for none
    int log;           // 0, or the base 2 / 10
    VizChartUnit kind; // log axes label each tick with its own unit
    VizTicks t;
} VizChartScale;

// Where one panel went: its data area in pixels (x grows right, y down)
// and its two scales.
typedef struct {
    VizBox area;
    VizBox cell;       // the panel with its titles and labels
    int y_title;       // its y axis is labelled (small multiples: the left column's)
    VizChartScale xs, ys;
} VizChartPlace;

enum { VIZ_CHART_MAX_LEGEND = 32 };

typedef struct {
    const char *label;
    VizChartInk ink;
    VizChartKind kind;
} VizChartLegendItem;

typedef struct {
    int w, h;
    double font_px;    // tick labels; titles are larger
    int npanels;
    VizChartPlace panel[VIZ_CHART_MAX_PANELS];
    int nlegend;
    VizChartLegendItem legend[VIZ_CHART_MAX_LEGEND];
    VizBox legend_box;
    double title_y, subtitle_y;
} VizChartLayout;

// chart_scale.c. The scales of panel p (x shared, y its own or, with
// share_y, every panel's). SIM_EINVAL with err when nothing can be drawn.
SimStatus viz_chart_scales(const VizChart *c, int p, VizChartScale *xs, VizChartScale *ys,
                           char *err, size_t errlen);
// Data value v to a pixel along [a, b] (a at lo, b at hi); NAN when v cannot
// be placed (not finite, <= 0 on a log axis).
double viz_chart_px(const VizChartScale *s, double v, double a, double b);
double viz_chart_px_x(const VizChartPlace *p, double v);
double viz_chart_px_y(const VizChartPlace *p, double v);
// A tick's label ("0.5", "250", "4 KiB" on a log byte axis).
void viz_chart_tick_label(const VizChartScale *s, double v, char *buf, size_t len);

// chart_layout.c. Everything but the drawing. SIM_EINVAL, SIM_ENOMEM.
SimStatus viz_chart_layout(VizGfx *g, const VizChart *c, int w, int h, VizChartLayout *l,
                           char *err, size_t errlen);

// The colour an ink names (on white).
VizRgba viz_chart_ink(VizChartInk k, int series_index);

// The drawing, after the layout.
void viz_chart_draw_axes(VizGfx *g, const VizChart *c, const VizChartLayout *l);
SimStatus viz_chart_draw_series(VizGfx *g, const VizChart *c, const VizChartLayout *l);
void viz_chart_draw_legend(VizGfx *g, const VizChart *c, const VizChartLayout *l);
// The legend's entries (chart_legend.c), collected into l; the width one
// takes in its row (the layout and the drawing wrap the rows alike).
void viz_chart_collect_legend(const VizChart *c, VizChartLayout *l);
double viz_chart_legend_item_w(VizGfx *g, const VizChartLegendItem *it, double px);

// The whole chart onto cr (w x h pixels), and where things went when l is
// not NULL.
SimStatus viz_chart_draw(const VizChart *c, cairo_t *cr, int w, int h, VizChartLayout *l,
                         char *err, size_t errlen);
// Draws c into a new image surface of its size (for tests and golden
// images): *out (release with cairo_surface_destroy) and, when l is not
// NULL, the layout.
SimStatus viz_chart_render(const VizChart *c, cairo_surface_t **out, VizChartLayout *l,
                           char *err, size_t errlen);

// c as an SVG file of w x h (chart_svg.c), with <title> and <desc>.
SimStatus viz_chart_write_svg(const VizChart *c, const char *path, int w, int h, char *err,
                              size_t errlen);

#endif
