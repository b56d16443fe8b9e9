// viz/gif.h: animated GIF files of RGBA frames (giflib), for sharing a few
// seconds of the view: a ring step's chunks going round, an FSDP unit
// gathered and freed.
//
// The view's pictures are flat colours with antialiased edges, so one
// global palette of at most 256 colours, chosen from every frame's pixels,
// keeps them exact where it can: when all frames together hold 256 colours
// or fewer, each is kept as it is; otherwise the colours are counted on
// 5-bit-per-channel buckets, the 256 most popular buckets are kept (each as
// the exact colour that occurs most in it) and every other colour becomes
// its nearest palette colour. There is no dithering, so flat areas stay
// flat.
//
// Frames after the first are stored as the rectangle that changed, with the
// unchanged pixels inside it transparent (shown from the frame before), so
// a step of a few moving squares costs a few hundred bytes. The file loops
// forever (the NETSCAPE2.0 extension).
//
// Memory: the writer asks for every frame twice (once to count its
// colours, once to encode it) and holds two RGBA frames' worth at most,
// never the whole animation.
#ifndef DDPLAB_VIZ_GIF_H
#define DDPLAB_VIZ_GIF_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus

enum {
    VIZ_GIF_MAX_COLOURS = 256,
    VIZ_GIF_MAX_SIDE = 8192, // pixels a side (GIF allows 65535; memory does not)
};

// Draws frame k (0 .. frames - 1) into rgba: h rows of w pixels, 4 bytes a
// pixel (r, g, b, a; a is ignored), top row first, no padding. Asked twice
// per frame, in order, and must draw the same picture both times.
typedef SimStatus (*VizGifDraw)(void *ctx, size_t k, uint8_t *rgba, char *err, size_t errlen);
// Frame k (0-based) of n was handled in pass 1 (colours) or 2 (encoding).
typedef void (*VizGifProgress)(void *ctx, int pass, size_t k, size_t n);

typedef struct {
    int w, h;                // pixels, 1 .. VIZ_GIF_MAX_SIDE
    size_t frames;           // at least 1
    int delay_cs;            // each frame's delay in 1/100 s (0 .. 65535)
    const int *delays;       // [frames] per-frame delays instead; NULL: delay_cs
    VizGifDraw draw;
    void *ctx;               // for draw and progress
    VizGifProgress progress; // NULL: none
} VizGifSpec;

// 1 when built with giflib.
int viz_gif_available(void);
// Writes the animation to path, atomically (sim/base/outfile.h): on any
// failure the destination is untouched. SIM_EINVAL for a bad spec,
// SIM_EIO when the file cannot be written, SIM_ENOMEM, a draw's own
// failure (its message, prefixed with the frame), SIM_ENOTSUP without
// giflib (the message names the package).
SimStatus viz_gif_write(const char *path, const VizGifSpec *s, char *err, size_t errlen);

// ---------------------------------------------------------------------------
// The palette (gif_palette.c, gif_count.c), public for its tests.

// The exact colours seen in frames, with how many pixels had each.
typedef struct VizGifCount VizGifCount;

typedef struct {
    int n;                                   // colours in use, 1 .. 256
    uint8_t rgb[VIZ_GIF_MAX_COLOURS][3];     // [n] r, g, b
} VizGifPalette;

// NULL when memory runs out.
VizGifCount *viz_gif_count_new(void);
void viz_gif_count_free(VizGifCount *c);
// Counts npixels RGBA pixels (4 bytes each). SIM_ENOMEM.
SimStatus viz_gif_count_add(VizGifCount *c, const uint8_t *rgba, size_t npixels);
// Distinct colours counted so far.
size_t viz_gif_count_distinct(const VizGifCount *c);
// Chooses the palette of what was counted (at least one colour: black
// when nothing was), and remembers each counted colour's palette index for
// viz_gif_map. SIM_ENOMEM.
SimStatus viz_gif_palette_choose(VizGifCount *c, VizGifPalette *p);
// The index of the palette colour nearest rgb (squared distance; the
// lowest index among equals).
int viz_gif_nearest(const VizGifPalette *p, const uint8_t rgb[3]);
// Palette indices of npixels RGBA pixels into idx[npixels]: a counted
// colour's remembered index, any other colour's nearest.
void viz_gif_map(const VizGifCount *c, const VizGifPalette *p, const uint8_t *rgba,
                 size_t npixels, uint8_t *idx);

// ---------------------------------------------------------------------------
// Frame differences (gif_rect.c)

typedef struct {
    int x, y, w, h;   // the rectangle stored; 1 x 1 at (0, 0) when nothing changed
    int transparent;  // the index that means "unchanged" in it; -1: none free,
                      // every pixel of the rectangle is stored as it is
} VizGifRect;

// The smallest rectangle holding every pixel where cur differs from prev
// (both h rows of w palette indices), and an index that no changed pixel
// in it uses (preferring `spare`, an index above the palette's colours, when
// it is below 256; -1 for none).
VizGifRect viz_gif_changed(const uint8_t *prev, const uint8_t *cur, int w, int h, int spare);
// Row y of r as stored: cur's indices, r.transparent where prev has the same.
void viz_gif_rect_row(const VizGifRect *r, const uint8_t *prev, const uint8_t *cur, int w,
                      int y, uint8_t *out);

#endif
