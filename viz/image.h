// viz/image.h: an RGB image in memory and its encoding as a PNG file, for
// the SDL view's frames read back from its renderer (view_sdl.c). Part of
// the view's library and plugin, so libpng is the plugin's, not the
// program's. The charts (chart.h) are drawn and written with cairo instead. Without libpng
// at build time the encoding returns SIM_ENOTSUP with a message that names
// the package libpng-dev.
#ifndef DDPLAB_VIZ_IMAGE_H
#define DDPLAB_VIZ_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus

enum { VIZ_IMAGE_MAX_SIDE = 8192 };

// h rows of w pixels, 3 bytes each (r, g, b), top row first, no padding:
// pixel (x, y) is rgb[3 * ((size_t)y * w + x)].
typedef struct {
    int w, h;
    uint8_t *rgb;
} VizImage;

void viz_image_free(VizImage *img);

// 1 when this build can encode PNG files (libpng was found).
int viz_png_available(void);
// Writes img as an 8-bit RGB PNG at path, atomically. SIM_EIO with a message
// naming path when it cannot be written (nothing is left behind),
// SIM_EINVAL for an empty image, SIM_ENOTSUP without libpng.
SimStatus viz_png_write(const char *path, const VizImage *img, char *err, size_t errlen);

#endif
