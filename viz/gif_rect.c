// viz/gif_rect.c: what a frame after the first stores (gif.h): the
// rectangle where it differs from the frame before, with the pixels that
// did not change inside it made transparent, so that the encoder sees long
// runs of one index and the decoder keeps the earlier picture there.
#include "gif.h"

#include <string.h>

// The columns [*x0, *x1) of row y where the two differ; 0 when none.
static int row_span(const uint8_t *prev, const uint8_t *cur, int w, int *x0, int *x1) {
    int a = 0, b = w;
    while (a < w && prev[a] == cur[a])
        a++;
    if (a == w)
        return 0;
    while (b > a && prev[b - 1] == cur[b - 1])
        b--;
    *x0 = a;
    *x1 = b;
    return 1;
}

// An index that no changed pixel of r uses: spare when there is one, else
// the lowest free; -1 when all 256 are used.
static int free_index(const VizGifRect *r, const uint8_t *prev, const uint8_t *cur, int w,
                      int spare) {
    if (spare >= 0 && spare < VIZ_GIF_MAX_COLOURS)
        return spare;
    uint8_t used[VIZ_GIF_MAX_COLOURS];
    memset(used, 0, sizeof used);
    for (int y = r->y; y < r->y + r->h; y++) {
        const uint8_t *p = prev + (size_t)y * (size_t)w, *c = cur + (size_t)y * (size_t)w;
        for (int x = r->x; x < r->x + r->w; x++)
            if (p[x] != c[x])
                used[c[x]] = 1;
    }
    for (int i = 0; i < VIZ_GIF_MAX_COLOURS; i++)
        if (!used[i])
            return i;
    return -1;
}

VizGifRect viz_gif_changed(const uint8_t *prev, const uint8_t *cur, int w, int h, int spare) {
    int x0 = w, x1 = 0, y0 = h, y1 = 0;
    for (int y = 0; y < h; y++) {
        int a, b;
        size_t off = (size_t)y * (size_t)w;
        if (!row_span(prev + off, cur + off, w, &a, &b))
            continue;
        x0 = a < x0 ? a : x0;
        x1 = b > x1 ? b : x1;
        y0 = y < y0 ? y : y0;
        y1 = y + 1;
    }
    VizGifRect r = {0, 0, 1, 1, -1};
    if (y1 > y0) { // something changed
        r.x = x0;
        r.y = y0;
        r.w = x1 - x0;
        r.h = y1 - y0;
    }
    r.transparent = free_index(&r, prev, cur, w, spare);
    return r;
}

void viz_gif_rect_row(const VizGifRect *r, const uint8_t *prev, const uint8_t *cur, int w,
                      int y, uint8_t *out) {
    const uint8_t *p = prev + (size_t)y * (size_t)w + r->x;
    const uint8_t *c = cur + (size_t)y * (size_t)w + r->x;
    if (r->transparent < 0) {
        memcpy(out, c, (size_t)r->w);
        return;
    }
    for (int x = 0; x < r->w; x++)
        out[x] = p[x] == c[x] ? (uint8_t)r->transparent : c[x];
}
