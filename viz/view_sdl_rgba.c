// viz/view_sdl_rgba.c: frames drawn offscreen: a view without a renderer
// paints into its cairo surface, and viz_sdl_frame copies that into the
// caller's buffer. No SDL call is made: no display, no video driver.
#include "view_sdl_internal.h"

#include <string.h>

#include "base/errbuf.h"

SimStatus viz_sdl_offscreen(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w,
                            int h, VizSdlView *v, VizPlayer *p, char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    if (m == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no trace to draw");
    size_t count = viz_model_count(m);
    if (i >= count)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "event %zu: the trace has %zu events",
                               i, count);
    if (w <= 0 || h <= 0 || w > VIZ_IMAGE_MAX_SIDE || h > VIZ_IMAGE_MAX_SIDE)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "a %d x %d image cannot be drawn (1 to "
                               "%d pixels a side)", w, h, VIZ_IMAGE_MAX_SIDE);
    viz_sdl_view_init(v, NULL, 1, err, errlen);
    SimStatus st = viz_sdl_view_resize(v, w, h);
    if (st != SIM_OK) {
        viz_sdl_view_free(v);
        return sim_errbuf_fail(err, errlen, st, "out of memory for a %d x %d frame", w, h);
    }
    if (!v->fits) {
        int mw = (int)(VIZ_MIN_W * v->paint.cell_w + 0.999);
        int mh = (int)(VIZ_MIN_H * VIZ_PAINT_CELL_H + 0.999);
        viz_sdl_view_free(v);
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "a %d x %d image is too small: a frame "
                               "needs at least %d x %d pixels", w, h, mw, mh);
    }
    viz_player_init(p, count, viz_model_trace(m)->nranks);
    viz_player_suggest_jump(p, m);
    p->live_done = 1;
    p->playing = 0;
    if (!(frac > 0) || i + 1 >= count)
        frac = 0;
    p->pos = (double)i + (frac < 0.999999 ? frac : 0.999999);
    st = viz_sdl_view_paint(v, m, p, o ? o->lesson : NULL);
    if (st != SIM_OK) {
        viz_sdl_view_free(v);
        return sim_errbuf_fail(err, errlen, st, "cannot draw event %zu: %s", i,
                               sim_strerror(st));
    }
    return SIM_OK;
}

SimStatus viz_sdl_frame(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w, int h,
                        uint8_t *rgba, char *err, size_t errlen) {
    if (rgba == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no buffer to draw into");
    VizSdlView v;
    VizPlayer p;
    SimStatus st = viz_sdl_offscreen(m, i, frac, o, w, h, &v, &p, err, errlen);
    if (st != SIM_OK)
        return st;
    // the surface is one native word a pixel, x R G B from the high byte
    const uint8_t *data = cairo_image_surface_get_data(v.surf);
    int stride = cairo_image_surface_get_stride(v.surf);
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * (size_t)stride);
        uint8_t *out = rgba + (size_t)y * (size_t)w * 4;
        for (int x = 0; x < w; x++) {
            out[4 * x] = (uint8_t)(row[x] >> 16);
            out[4 * x + 1] = (uint8_t)(row[x] >> 8);
            out[4 * x + 2] = (uint8_t)row[x];
            out[4 * x + 3] = 255;
        }
    }
    viz_sdl_view_free(&v);
    return SIM_OK;
}
