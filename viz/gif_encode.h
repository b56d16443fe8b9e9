// viz/gif_encode.h: the GIF stream as gif_write.c drives it (gif_encode.c,
// built with giflib only); no giflib type shows here.
#ifndef DDPLAB_VIZ_GIF_ENCODE_H
#define DDPLAB_VIZ_GIF_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gif.h" // defines: VizGifPalette, VizGifRect

typedef struct VizGifEnc VizGifEnc;

// Starts a w x h animation on f with global palette p, looping forever.
// *out is set whenever the encoder was made, even when writing the header
// then failed: viz_gif_enc_close releases it either way. SIM_ENOMEM,
// SIM_EIO.
SimStatus viz_gif_enc_open(VizGifEnc **out, FILE *f, int w, int h, const VizGifPalette *p,
                           char *err, size_t errlen);
// One frame shown for delay_cs hundredths of a second: rectangle r of cur
// (h rows of w palette indices). prev NULL: the first frame, stored as it
// is (r the whole screen); else the frame before, whose unchanged pixels in
// r are stored as r->transparent.
SimStatus viz_gif_enc_frame(VizGifEnc *e, const VizGifRect *r, const uint8_t *prev,
                            const uint8_t *cur, int w, int delay_cs, char *err, size_t errlen);
// Writes the trailer and releases e (NULL: nothing). SIM_EIO.
SimStatus viz_gif_enc_close(VizGifEnc *e, char *err, size_t errlen);

#endif
