// viz/view_sdl_stub.c: the SDL2 view in a build without SDL2 and SDL2_ttf.
// Everything says what to install, and what shows the same scene instead.
#include "views.h"

#include "base/errbuf.h"

static const char missing[] = "this ddplab was built without SDL2 (install the packages "
                              "libsdl2-dev libsdl2-ttf-dev, then rebuild)";

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

int viz_sdl_available(void) {
    return 0;
}
