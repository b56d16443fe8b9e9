// viz/gif_stub.c: animations in a build without giflib: the palette and
// the frame differences (gif_palette.c, gif_rect.c) are there, the file
// writer says which package to install.
#include "gif.h"

#include "base/errbuf.h"

int viz_gif_available(void) {
    return 0;
}

SimStatus viz_gif_write(const char *path, const VizGifSpec *s, char *err, size_t errlen) {
    (void)s;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP,
                           "cannot write %s: this ddplab was built without GIF support "
                           "(install the package libgif-dev, then rebuild)",
                           path != NULL && path[0] ? path : "the GIF file");
}
