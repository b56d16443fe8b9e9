// viz/gif_internal.h: what gif*.c share and no caller needs: the colour
// table behind VizGifCount (gif_count.c), which the palette (gif_palette.c)
// walks and fills with indices.
#ifndef DDPLAB_VIZ_GIF_INTERNAL_H
#define DDPLAB_VIZ_GIF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gif.h"

// Open addressing, cap a power of two, at most half full. A slot with key
// 0 is empty; a colour's key is (r << 16 | g << 8 | b) + 1.
struct VizGifCount {
    uint32_t *key;  // [cap]
    uint64_t *n;    // [cap] pixels of that colour
    uint8_t *index; // [cap] its palette index, once chosen
    size_t cap, used;
};

static inline uint32_t viz_gif_key(const uint8_t *px) {
    return ((uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2]) + 1;
}

// The remembered palette index of the colour with this key, or -1 when it
// was never counted.
int viz_gif_count_find(const VizGifCount *c, uint32_t key);

#endif
