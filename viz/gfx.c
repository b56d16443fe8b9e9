// viz/gfx.c: colours, pango text, boxes, and writing a drawing as PNG, SVG
// or PDF.
#include "gfx.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <ctype.h>
#include <string.h>

#include "base/errbuf.h"  // defines: sim_errbuf_fail
#include "base/outfile.h" // defines: SimOutFile

VizRgba viz_rgb(unsigned hex) {
    return (VizRgba){((hex >> 16) & 0xff) / 255.0, ((hex >> 8) & 0xff) / 255.0,
                     (hex & 0xff) / 255.0, 1.0};
}

VizRgba viz_rgba_alpha(VizRgba c, double a) {
    c.a = a;
    return c;
}

VizRgba viz_rgba_mix(VizRgba c, VizRgba d, double t) {
    return (VizRgba){c.r + (d.r - c.r) * t, c.g + (d.g - c.g) * t, c.b + (d.b - c.b) * t,
                     c.a + (d.a - c.a) * t};
}

static const char *const font_names[VIZ_FONT_COUNT] = {
    [VIZ_FONT_SANS] = "DejaVu Sans",
    [VIZ_FONT_SANS_BOLD] = "DejaVu Sans Bold",
    [VIZ_FONT_MONO] = "DejaVu Sans Mono",
    [VIZ_FONT_MONO_BOLD] = "DejaVu Sans Mono Bold",
};

SimStatus viz_gfx_init(VizGfx *g, cairo_t *cr) {
    memset(g, 0, sizeof *g);
    g->cr = cr;
    g->layout = pango_cairo_create_layout(cr);
    if (g->layout == NULL)
        return SIM_ENOMEM;
    for (int f = 0; f < VIZ_FONT_COUNT; f++) {
        g->font[f] = pango_font_description_from_string(font_names[f]);
        if (g->font[f] == NULL) {
            viz_gfx_done(g);
            return SIM_ENOMEM;
        }
    }
    return SIM_OK;
}

void viz_gfx_done(VizGfx *g) {
    for (int f = 0; f < VIZ_FONT_COUNT; f++)
        if (g->font[f] != NULL)
            pango_font_description_free(g->font[f]);
    if (g->layout != NULL)
        g_object_unref(g->layout);
    memset(g, 0, sizeof *g);
}

// Sets the layout to utf8 in f at px (the font description is changed only
// when its size does).
static void set_text(VizGfx *g, const char *utf8, double px, VizFont f) {
    if (g->font_px[f] != px) {
        pango_font_description_set_absolute_size(g->font[f], px * PANGO_SCALE);
        g->font_px[f] = px;
    }
    pango_layout_set_font_description(g->layout, g->font[f]);
    pango_layout_set_width(g->layout, -1);
    pango_layout_set_ellipsize(g->layout, PANGO_ELLIPSIZE_NONE);
    pango_layout_set_text(g->layout, utf8, -1);
}

static double draw_layout(VizGfx *g, double x, double y, VizRgba c, VizAlignX ax,
                          VizAlignY ay) {
    int w, h;
    pango_layout_get_pixel_size(g->layout, &w, &h);
    double dx = ax == VIZ_ALIGN_CENTER ? w / 2.0 : ax == VIZ_ALIGN_RIGHT ? w : 0;
    double dy = 0;
    if (ay == VIZ_VALIGN_MIDDLE)
        dy = h / 2.0;
    else if (ay == VIZ_VALIGN_BASELINE)
        dy = pango_layout_get_baseline(g->layout) / (double)PANGO_SCALE;
    viz_gfx_set(g->cr, c);
    cairo_move_to(g->cr, x - dx, y - dy);
    pango_cairo_update_layout(g->cr, g->layout);
    pango_cairo_show_layout(g->cr, g->layout);
    return w;
}

double viz_gfx_text_at(VizGfx *g, double x, double y, const char *utf8, double px, VizFont f,
                       VizRgba c, VizAlignX ax, VizAlignY ay) {
    set_text(g, utf8, px, f);
    return draw_layout(g, x, y, c, ax, ay);
}

double viz_gfx_text(VizGfx *g, double x, double y, const char *utf8, double px, VizFont f,
                    VizRgba c, VizAlignX ax) {
    return viz_gfx_text_at(g, x, y, utf8, px, f, c, ax, VIZ_VALIGN_TOP);
}

void viz_gfx_text_size(VizGfx *g, const char *utf8, double px, VizFont f, double *w,
                       double *h) {
    set_text(g, utf8, px, f);
    int pw, ph;
    pango_layout_get_pixel_size(g->layout, &pw, &ph);
    if (w != NULL)
        *w = pw;
    if (h != NULL)
        *h = ph;
}

double viz_gfx_text_fit(VizGfx *g, double x, double y, const char *utf8, double px, VizFont f,
                        VizRgba c, double max_w) {
    set_text(g, utf8, px, f);
    if (max_w > 0) {
        pango_layout_set_width(g->layout, (int)(max_w * PANGO_SCALE));
        pango_layout_set_ellipsize(g->layout, PANGO_ELLIPSIZE_END);
    }
    return draw_layout(g, x, y, c, VIZ_ALIGN_LEFT, VIZ_VALIGN_TOP);
}

void viz_gfx_set(cairo_t *cr, VizRgba c) {
    cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a);
}

void viz_gfx_round_rect(cairo_t *cr, double x, double y, double w, double h, double r) {
    if (r > w / 2)
        r = w / 2;
    if (r > h / 2)
        r = h / 2;
    if (r <= 0) {
        cairo_rectangle(cr, x, y, w, h);
        return;
    }
    const double q = 1.5707963267948966; // a quarter turn
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + w - r, y + r, r, -q, 0);
    cairo_arc(cr, x + w - r, y + h - r, r, 0, q);
    cairo_arc(cr, x + r, y + h - r, r, q, 2 * q);
    cairo_arc(cr, x + r, y + r, r, 2 * q, 3 * q);
    cairo_close_path(cr);
}

void viz_gfx_fill_round(cairo_t *cr, double x, double y, double w, double h, double r,
                        VizRgba c) {
    viz_gfx_round_rect(cr, x, y, w, h, r);
    viz_gfx_set(cr, c);
    cairo_fill(cr);
}

VizGfxFormat viz_gfx_format(const char *path) {
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (dot == NULL || strchr(dot, '/') != NULL)
        return VIZ_GFX_UNKNOWN;
    char ext[8] = "";
    size_t n = strlen(dot + 1);
    if (n == 0 || n >= sizeof ext)
        return VIZ_GFX_UNKNOWN;
    for (size_t k = 0; k <= n; k++)
        ext[k] = (char)tolower((unsigned char)dot[1 + k]);
    if (strcmp(ext, "png") == 0)
        return VIZ_GFX_PNG;
    if (strcmp(ext, "svg") == 0)
        return VIZ_GFX_SVG;
    if (strcmp(ext, "pdf") == 0)
        return VIZ_GFX_PDF;
    return VIZ_GFX_UNKNOWN;
}

static cairo_status_t write_stdio(void *closure, const unsigned char *data, unsigned int len) {
    return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS
                                                : CAIRO_STATUS_WRITE_ERROR;
}

static cairo_surface_t *make_surface(VizGfxFormat fmt, FILE *f, int w, int h) {
    switch (fmt) {
    case VIZ_GFX_PNG:
        return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    case VIZ_GFX_SVG:
        return cairo_svg_surface_create_for_stream(write_stdio, f, w, h);
    case VIZ_GFX_PDF:
        return cairo_pdf_surface_create_for_stream(write_stdio, f, w, h);
    default:
        return NULL;
    }
}

SimStatus viz_gfx_write(const char *path, int w, int h, VizGfxDrawFn draw, void *ctx, char *err,
                        size_t errlen) {
    VizGfxFormat fmt = viz_gfx_format(path);
    if (fmt == VIZ_GFX_UNKNOWN)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: the file name must end in .png, "
                               ".svg or .pdf (it chooses the format)", path ? path : "(null)");
    SimOutFile out;
    SimStatus st = sim_outfile_open(&out, path);
    if (st != SIM_OK)
        return sim_errbuf_fail(err, errlen, st, "cannot write %s", path);
    cairo_surface_t *sf = make_surface(fmt, out.f, w, h);
    cairo_t *cr = cairo_create(sf);
    st = cairo_status(cr) == CAIRO_STATUS_SUCCESS ? SIM_OK : SIM_ENOMEM;
    if (st == SIM_OK)
        st = draw(ctx, cr, w, h, err, errlen);
    else
        sim_errbuf_fail(err, errlen, st, "cannot draw %s: out of memory", path);
    cairo_destroy(cr);
    if (st == SIM_OK && fmt == VIZ_GFX_PNG &&
        cairo_surface_write_to_png_stream(sf, write_stdio, out.f) != CAIRO_STATUS_SUCCESS)
        st = sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s", path);
    cairo_surface_finish(sf); // SVG and PDF are written out here
    if (st == SIM_OK && cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS)
        st = sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s", path);
    cairo_surface_destroy(sf);
    if (st != SIM_OK) {
        sim_outfile_abort(&out);
        return st;
    }
    if (sim_outfile_commit(&out) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s", path);
    return SIM_OK;
}
