// viz/chart.c: viz_chart_write in the plugin: the chart is checked, laid
// out (chart_layout.c), then drawn on white (axes, series, legend) onto the
// surface of the file's format (viz_gfx_write).
#include "chart.h"

#include "base/errbuf.h"
#include "chart_draw.h"

// What cannot be drawn at all, said before any file is opened.
static SimStatus check(const VizChart *c, char *err, size_t errlen) {
    if (c == NULL || c->npanels < 1 || c->panels == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "the chart has no panel to draw");
    if (c->npanels > VIZ_CHART_MAX_PANELS)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "the chart has %d panels (at most %d)",
                               c->npanels, VIZ_CHART_MAX_PANELS);
    for (int p = 0; p < c->npanels; p++)
        if (c->panels[p].nseries < 0 || c->panels[p].nseries > VIZ_CHART_MAX_SERIES ||
            (c->panels[p].nseries > 0 && c->panels[p].series == NULL))
            return sim_errbuf_fail(err, errlen, SIM_EINVAL, "panel %d has %d series (at most "
                                   "%d)", p, c->panels[p].nseries, VIZ_CHART_MAX_SERIES);
    int w = c->width ? c->width : VIZ_CHART_DEFAULT_W;
    int h = c->height ? c->height : VIZ_CHART_DEFAULT_H;
    if (w < VIZ_CHART_MIN_SIDE || h < VIZ_CHART_MIN_SIDE || w > VIZ_CHART_MAX_SIDE ||
        h > VIZ_CHART_MAX_SIDE)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "a chart of %d x %d pixels (each side "
                               "%d..%d)", w, h, VIZ_CHART_MIN_SIDE, VIZ_CHART_MAX_SIDE);
    return SIM_OK;
}

static void size_of(const VizChart *c, int *w, int *h) {
    *w = c->width ? c->width : VIZ_CHART_DEFAULT_W;
    *h = c->height ? c->height : VIZ_CHART_DEFAULT_H;
}

SimStatus viz_chart_draw(const VizChart *c, cairo_t *cr, int w, int h, VizChartLayout *l,
                         char *err, size_t errlen) {
    VizChartLayout mine;
    VizChartLayout *lay = l ? l : &mine;
    VizGfx g;
    if (viz_gfx_init(&g, cr) != SIM_OK)
        return sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the chart's text");
    SimStatus st = viz_chart_layout(&g, c, w, h, lay, err, errlen);
    if (st == SIM_OK) {
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_GOOD);
        viz_gfx_set(cr, viz_rgb(0xffffff));
        cairo_paint(cr);
        viz_chart_draw_axes(&g, c, lay);
        st = viz_chart_draw_series(&g, c, lay);
        if (st != SIM_OK)
            sim_errbuf_fail(err, errlen, st, "out of memory drawing the chart");
        viz_chart_draw_legend(&g, c, lay);
    }
    viz_gfx_done(&g);
    return st;
}

SimStatus viz_chart_render(const VizChart *c, cairo_surface_t **out, VizChartLayout *l,
                           char *err, size_t errlen) {
    *out = NULL;
    SimStatus st = check(c, err, errlen);
    if (st != SIM_OK)
        return st;
    int w, h;
    size_of(c, &w, &h);
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(sf);
    st = cairo_status(cr) == CAIRO_STATUS_SUCCESS
             ? viz_chart_draw(c, cr, w, h, l, err, errlen)
             : sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory for the chart");
    cairo_destroy(cr);
    cairo_surface_flush(sf);
    if (st != SIM_OK) {
        cairo_surface_destroy(sf);
        return st;
    }
    *out = sf;
    return SIM_OK;
}

static SimStatus draw_cb(void *ctx, cairo_t *cr, int w, int h, char *err, size_t errlen) {
    return viz_chart_draw(ctx, cr, w, h, NULL, err, errlen);
}

SimStatus viz_chart_write(const VizChart *c, const char *path, char *err, size_t errlen) {
    if (path == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no file to draw the chart into");
    if (viz_gfx_format(path) == VIZ_GFX_UNKNOWN)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "%s: unknown chart format: the file "
                               "name must end in " VIZ_CHART_FORMATS, path);
    SimStatus st = check(c, err, errlen);
    if (st != SIM_OK)
        return st;
    int w, h;
    size_of(c, &w, &h);
    if (viz_gfx_format(path) == VIZ_GFX_SVG)
        return viz_chart_write_svg(c, path, w, h, err, errlen);
    // VizGfxDrawFn takes a mutable context; the chart is only read
    return viz_gfx_write(path, w, h, draw_cb, (void *)c, err, errlen);
}

int viz_chart_available(char *err, size_t errlen) {
    if (err && errlen)
        err[0] = '\0';
    return 1;
}
