// viz/image_png.c: an RGB image as a PNG file, through libpng's simplified
// write API (png_image, libpng 1.6+), into a file replaced atomically
// (sim/base/outfile.h). Built without libpng, the writer says which package to
// install instead.
#include "image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/outfile.h"

void viz_image_free(VizImage *img) {
    if (img == NULL)
        return;
    free(img->rgb);
    memset(img, 0, sizeof(*img));
}

#ifdef DDPLAB_HAVE_PNG
#include <png.h>

int viz_png_available(void) {
    return 1;
}

SimStatus viz_png_write(const char *path, const VizImage *img, char *err, size_t errlen) {
    if (path == NULL || path[0] == '\0')
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no PNG file name given");
    if (img == NULL || img->rgb == NULL || img->w <= 0 || img->h <= 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "cannot write %s: the image is empty",
                               path);
    SimOutFile o;
    errno = 0;
    SimStatus st = sim_outfile_open(&o, path);
    if (st != SIM_OK) {
        int e = errno;
        return sim_errbuf_fail(err, errlen, st, "cannot write %s: %s", path,
                               st == SIM_ENOMEM ? "out of memory"
                               : e != 0        ? strerror(e)
                                               : "cannot create a temporary file beside it");
    }
    png_image pi;
    memset(&pi, 0, sizeof(pi));
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)img->w;
    pi.height = (png_uint_32)img->h;
    pi.format = PNG_FORMAT_RGB;
    if (!png_image_write_to_stdio(&pi, o.f, 0, img->rgb, (png_int_32)(3 * img->w), NULL)) {
        char msg[sizeof(pi.message)];
        memcpy(msg, pi.message, sizeof(msg));
        msg[sizeof(msg) - 1] = '\0';
        png_image_free(&pi);
        sim_outfile_abort(&o);
        return sim_errbuf_fail(err, errlen, SIM_EIO, "cannot write %s: libpng: %s", path, msg);
    }
    png_image_free(&pi);
    errno = 0;
    st = sim_outfile_commit(&o);
    if (st != SIM_OK) {
        int e = errno;
        return sim_errbuf_fail(err, errlen, st, "cannot write %s: %s", path,
                               e != 0 ? strerror(e) : "writing or renaming the file failed");
    }
    return SIM_OK;
}

#else

int viz_png_available(void) {
    return 0;
}

SimStatus viz_png_write(const char *path, const VizImage *img, char *err, size_t errlen) {
    (void)img;
    return sim_errbuf_fail(err, errlen, SIM_ENOTSUP,
                           "cannot write %s: this ddplab was built without PNG support "
                           "(install the package libpng-dev, then rebuild)",
                           path != NULL ? path : "the PNG file");
}

#endif
