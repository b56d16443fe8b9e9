// viz/view_sdl_rgba.c: viz_sdl_frame, one frame into a caller's buffer.
#include "view_sdl_internal.h"

#include "base/errbuf.h"

SimStatus viz_sdl_frame(VizModel *m, size_t i, double frac, const VizViewOpts *o, int w, int h,
                        uint8_t *rgba, char *err, size_t errlen) {
    (void)m;
    (void)i;
    (void)frac;
    (void)o;
    (void)w;
    (void)h;
    (void)rgba;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "frames are not drawn into memory yet");
}
