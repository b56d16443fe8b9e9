// viz/view_sdl_stub.c: the SDL2 view and the charts in a build without SDL2, cairo or pango.
// Everything says what to install, and what shows the same scene instead.
#include "chart.h"
#include "views.h"

#include "base/errbuf.h"

static const char missing[] = "this ddplab was built without SDL2 (install the packages "
                              "libsdl2-dev libsdl2-ttf-dev libcairo2-dev libpango1.0-dev, then "
                              "rebuild)";

SimStatus viz_sdl_run(VizSource *src, const VizViewOpts *o, char *err, size_t errlen) {
    (void)src;
    (void)o;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP,
                           "%s; --viz ncurses shows the same view in the terminal", missing);
}

SimStatus viz_sdl_png(VizModel *m, size_t i, double frac, const VizViewOpts *o,
                      const char *path, char *err, size_t errlen) {
    (void)m;
    (void)i;
    (void)frac;
    (void)o;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot draw %s: %s; --viz text prints "
                           "the same frame", path ? path : "the frame", missing);
}

SimStatus viz_sdl_frame(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w, int h,
                        uint8_t *rgba, char *err, size_t errlen) {
    (void)m;
    (void)i;
    (void)frac;
    (void)o;
    (void)w;
    (void)h;
    (void)rgba;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot draw the frame: %s", missing);
}

SimStatus viz_chart_write(const VizChart *c, const char *path, char *err, size_t errlen) {
    (void)c;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "cannot draw %s: %s",
                           path ? path : "the chart", missing);
}

int viz_chart_available(char *err, size_t errlen) {
    sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "charts are drawn with cairo and pango, and %s",
                    missing);
    return 0;
}

int viz_sdl_available(void) {
    return 0;
}
