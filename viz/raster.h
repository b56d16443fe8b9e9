// viz/raster.h: the raster primitives and the bitmap font that the charts
// (viz_plot_render) and the run report's bars (cli/report/report_png.c) are
// drawn with. Every primitive clips to the image, so callers may draw partly
// outside it.
#ifndef DDPLAB_VIZ_RASTER_H
#define DDPLAB_VIZ_RASTER_H

#include <stdint.h>

#include "plot.h"

typedef struct {
    uint8_t r, g, b;
} VizRgb;

// The font: 5 x 7 glyphs (capitals and digits) plus one row below the
// baseline for descenders, drawn in a cell VIZ_FONT_ADV wide and
// VIZ_FONT_LINE tall at scale 1.
enum {
    VIZ_FONT_W = 5,
    VIZ_FONT_H = 8,      // rows per glyph, the last one for descenders
    VIZ_FONT_ASCENT = 7, // rows above and on the baseline
    VIZ_FONT_ADV = 6,    // horizontal advance per character
    VIZ_FONT_LINE = 10,  // vertical advance per line
};

// Row r (0 top .. VIZ_FONT_H - 1) of the glyph for c as VIZ_FONT_W chars,
// '#' set and '.' clear; characters outside 32..126 map to '?'.
const char *viz_font_row(char c, int r);
// Width in pixels of s at scale (no trailing gap).
int viz_text_width(const char *s, int scale);
// Draws s with its top-left corner at (x, y), each font pixel a scale x scale
// square.
void viz_draw_text(VizImage *img, int x, int y, const char *s, int scale, VizRgb c);
// The same, turned a quarter turn anticlockwise so it reads bottom to top:
// (x, y) is the bottom-left corner of the turned text (its first character
// sits at the bottom).
void viz_draw_text_up(VizImage *img, int x, int y, const char *s, int scale, VizRgb c);

void viz_put(VizImage *img, int x, int y, VizRgb c);
// Filled rectangle with inclusive corners (any order).
void viz_fill_rect(VizImage *img, int x0, int y0, int x1, int y1, VizRgb c);
// Rectangle outline, 1 pixel wide, inclusive corners.
void viz_rect(VizImage *img, int x0, int y0, int x1, int y1, VizRgb c);
// A line from (x0, y0) to (x1, y1), both ends included, `width` pixels thick
// (1 or 2 ...): Bresenham with a square pen.
void viz_line(VizImage *img, int x0, int y0, int x1, int y1, int width, VizRgb c);

typedef enum {
    VIZ_MARK_CIRCLE,
    VIZ_MARK_SQUARE,
    VIZ_MARK_TRIANGLE,
    VIZ_MARK_DIAMOND,
    VIZ_MARK_COUNT
} VizMarker;

// A filled marker centred on (x, y) with radius r; the centre pixel is
// always set.
void viz_marker(VizImage *img, int x, int y, int r, VizMarker m, VizRgb c);

#endif
