// tests/test_viz_sdl_util.h: what the SDL2 view's tests draw and how they
// look at the result: engine traces of a ring all_reduce and of an FSDP
// iteration on CPU ranks, and PNG files decoded back into RGB pixels.
#ifndef DDPLAB_TESTS_VIZ_SDL_UTIL_H
#define DDPLAB_TESTS_VIZ_SDL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"  // defines: VizImage
#include "vtrace.h" // defines: VizTrace

// The trace of `count` sum all_reduces of fp32 buffers (elements given) on
// R CPU ranks with the ring algorithm, copied into t. SIM_OK or the
// engine's failure (printed).
SimStatus tsdl_ring_trace(VizTrace *t, int R, int ncoll, size_t elements);
// The trace of `steps` training iterations of mlp:16,32,4 under FSDP
// FULL_SHARD on R CPU ranks, with the run's description filled in.
SimStatus tsdl_fsdp_trace(VizTrace *t, int R, int steps);

// Reads the PNG at path as 8-bit RGB into img (release with
// viz_image_free). 0, or -1 after printing why.
int tsdl_png_read(const char *path, VizImage *img);

// Distinct colours in img (counted up to `cap`), and the share (0..1) of
// pixels that have colour rgb.
int tsdl_distinct_colours(const VizImage *img, int cap);
double tsdl_share_of(const VizImage *img, const uint8_t rgb[3]);
// The share of pixels in the rectangle x0..x1-1, y0..y1-1 (clipped) that
// differ from rgb.
double tsdl_share_not(const VizImage *img, int x0, int y0, int x1, int y1,
                      const uint8_t rgb[3]);

#endif
