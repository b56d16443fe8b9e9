// viz/gfx.h: what every cairo drawing of ddplab shares (the SDL view's
// scene, its exported frames, the charts): colours, text set with pango in
// DejaVu Sans and DejaVu Sans Mono, rounded boxes, and the choice of file
// format by extension.
//
//   VizGfx g;
//   viz_gfx_init(&g, cr);
//   viz_gfx_text(&g, 10, 20, "bucket #1", 13, VIZ_FONT_SANS_BOLD, ink, VIZ_ALIGN_LEFT);
//   viz_gfx_done(&g);
//
// Text is laid out with one PangoLayout reused for every string, since
// making a layout per label costs more than drawing it.
#ifndef DDPLAB_VIZ_GFX_H
#define DDPLAB_VIZ_GFX_H

#include <cairo.h>
#include <pango/pangocairo.h>
#include <stddef.h>

#include "base/status.h" // defines: SimStatus

typedef struct {
    double r, g, b, a; // 0..1 each
} VizRgba;

// 0xRRGGBB, opaque.
VizRgba viz_rgb(unsigned hex);
VizRgba viz_rgba_alpha(VizRgba c, double a);
// c mixed with d: t = 0 gives c, 1 gives d.
VizRgba viz_rgba_mix(VizRgba c, VizRgba d, double t);

typedef enum {
    VIZ_FONT_SANS = 0,
    VIZ_FONT_SANS_BOLD,
    VIZ_FONT_MONO,      // figures that line up in columns
    VIZ_FONT_MONO_BOLD,
    VIZ_FONT_COUNT
} VizFont;

// Where (x, y) is on the text's box: x at its left, centre or right; y at
// its top, middle or baseline.
typedef enum {
    VIZ_ALIGN_LEFT = 0,
    VIZ_ALIGN_CENTER = 1,
    VIZ_ALIGN_RIGHT = 2,
} VizAlignX;
typedef enum {
    VIZ_VALIGN_TOP = 0,
    VIZ_VALIGN_MIDDLE = 1,
    VIZ_VALIGN_BASELINE = 2,
} VizAlignY;

typedef struct {
    cairo_t *cr;
    PangoLayout *layout;                       // reused for every string
    PangoFontDescription *font[VIZ_FONT_COUNT];
    double font_px[VIZ_FONT_COUNT];            // the size each font is set to now
} VizGfx;

// Ties a context to cr (which must outlive it). SIM_ENOMEM.
SimStatus viz_gfx_init(VizGfx *g, cairo_t *cr);
void viz_gfx_done(VizGfx *g);

// Draws utf8 (plain text, no markup) at px pixels in font f and colour c,
// (x, y) placed on the text's box by ax, ay. Returns the text's width.
double viz_gfx_text_at(VizGfx *g, double x, double y, const char *utf8, double px, VizFont f,
                       VizRgba c, VizAlignX ax, VizAlignY ay);
// viz_gfx_text_at with ay = VIZ_VALIGN_TOP.
double viz_gfx_text(VizGfx *g, double x, double y, const char *utf8, double px, VizFont f,
                    VizRgba c, VizAlignX ax);
// The size utf8 would take, in pixels (w, h may be NULL).
void viz_gfx_text_size(VizGfx *g, const char *utf8, double px, VizFont f, double *w,
                       double *h);
// Like viz_gfx_text, but cut to max_w pixels with an ellipsis at the end.
double viz_gfx_text_fit(VizGfx *g, double x, double y, const char *utf8, double px, VizFont f,
                        VizRgba c, double max_w);

void viz_gfx_set(cairo_t *cr, VizRgba c);
// A rectangle with corners of radius r (0: square), as a path.
void viz_gfx_round_rect(cairo_t *cr, double x, double y, double w, double h, double r);
void viz_gfx_fill_round(cairo_t *cr, double x, double y, double w, double h, double r,
                        VizRgba c);

// The file formats a drawing can be written as, from path's extension
// (".png", ".svg", ".pdf", any case); VIZ_GFX_UNKNOWN otherwise.
typedef enum {
    VIZ_GFX_UNKNOWN = 0,
    VIZ_GFX_PNG,
    VIZ_GFX_SVG,
    VIZ_GFX_PDF,
} VizGfxFormat;
VizGfxFormat viz_gfx_format(const char *path);

// Draws with draw(ctx, cr, w, h) onto a w x h surface of path's format and
// writes it atomically (sim/base/outfile.h). draw returns SIM_OK or an
// error (with err set) that abandons the file. SIM_EINVAL for an unknown
// extension (err names the ones known), SIM_EIO, SIM_ENOMEM.
typedef SimStatus (*VizGfxDrawFn)(void *ctx, cairo_t *cr, int w, int h, char *err,
                                  size_t errlen);
SimStatus viz_gfx_write(const char *path, int w, int h, VizGfxDrawFn draw, void *ctx, char *err,
                        size_t errlen);

#endif
