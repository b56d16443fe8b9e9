// tests/test_gif_util.h: GIF files read back for the animation tests: the
// whole file decoded with giflib (DGifSlurp), and its frames composed one
// after another as a viewer shows them (each frame's rectangle drawn over
// the picture before, its transparent pixels keeping what was there).
#ifndef DDPLAB_TESTS_GIF_UTIL_H
#define DDPLAB_TESTS_GIF_UTIL_H

#include <stdint.h>

typedef struct {
    void *gif;     // the decoded file (GifFileType)
    int w, h;      // the screen
    int frames;
    int shown;     // the frame rgb holds now; -1 before the first
    uint8_t *rgb;  // [h][w][3] the picture after frame `shown`
} TgifAnim;

// Reads path. 0, or -1 after printing why (a build without giflib: -1).
int tgif_open(TgifAnim *a, const char *path);
void tgif_close(TgifAnim *a);
// Composes frames up to k (k > shown, in order; k < frames) into a->rgb.
// 0, or -1 after printing why.
int tgif_show(TgifAnim *a, int k);
// Frame k's delay in 1/100 s, or -1 when it has no graphic control block.
int tgif_delay(const TgifAnim *a, int k);
// The NETSCAPE2.0 loop count (0: for ever), or -1 when the file has none.
int tgif_loops(const TgifAnim *a);
// The rectangle frame k stores: x, y, w, h.
void tgif_rect(const TgifAnim *a, int k, int r[4]);
// Entries of the global colour map (0 when there is none), and entry i.
int tgif_map_size(const TgifAnim *a);
void tgif_map_entry(const TgifAnim *a, int i, uint8_t rgb[3]);
// The squared distance from rgb to the nearest entry of the global map.
long tgif_nearest_d2(const TgifAnim *a, const uint8_t rgb[3]);

#endif
