// viz/plot_draw.c: pixels, rectangles, lines and markers on a VizImage
// (see raster.h). Integer arithmetic only, clipped to the image.
#include "raster.h"

#include <stdlib.h>

void viz_put(VizImage *img, int x, int y, VizRgb c) {
    if (x < 0 || y < 0 || x >= img->w || y >= img->h)
        return;
    uint8_t *p = img->rgb + 3 * ((size_t)y * (size_t)img->w + (size_t)x);
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
}

void viz_fill_rect(VizImage *img, int x0, int y0, int x1, int y1, VizRgb c) {
    if (x0 > x1) {
        int t = x0;
        x0 = x1;
        x1 = t;
    }
    if (y0 > y1) {
        int t = y0;
        y0 = y1;
        y1 = t;
    }
    if (x0 < 0)
        x0 = 0;
    if (y0 < 0)
        y0 = 0;
    if (x1 >= img->w)
        x1 = img->w - 1;
    if (y1 >= img->h)
        y1 = img->h - 1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            viz_put(img, x, y, c);
}

void viz_rect(VizImage *img, int x0, int y0, int x1, int y1, VizRgb c) {
    viz_fill_rect(img, x0, y0, x1, y0, c);
    viz_fill_rect(img, x0, y1, x1, y1, c);
    viz_fill_rect(img, x0, y0, x0, y1, c);
    viz_fill_rect(img, x1, y0, x1, y1, c);
}

void viz_line(VizImage *img, int x0, int y0, int x1, int y1, int width, VizRgb c) {
    if (width < 1)
        width = 1;
    // The pen covers [-lo, width - 1 - lo] around each point, centred.
    int lo = (width - 1) / 2;
    int dx = abs(x1 - x0), dy = -abs(y1 - y0);
    int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int e = dx + dy;
    // A segment far outside the image would take long to walk pixel by
    // pixel; the plot only draws inside its frame, so this bound never cuts
    // a visible line short.
    if (dx > 4 * VIZ_PLOT_MAX_SIDE || -dy > 4 * VIZ_PLOT_MAX_SIDE)
        return;
    for (;;) {
        viz_fill_rect(img, x0 - lo, y0 - lo, x0 - lo + width - 1, y0 - lo + width - 1, c);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * e;
        if (e2 >= dy) {
            e += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            e += dx;
            y0 += sy;
        }
    }
}

void viz_marker(VizImage *img, int x, int y, int r, VizMarker m, VizRgb c) {
    if (r < 1)
        r = 1;
    for (int dy = -r; dy <= r; dy++) {
        for (int dx = -r; dx <= r; dx++) {
            int in = 0;
            switch (m) {
            case VIZ_MARK_CIRCLE:
                // r * r + r keeps the disc round at small radii.
                in = dx * dx + dy * dy <= r * r + r;
                break;
            case VIZ_MARK_SQUARE:
                in = abs(dx) < r && abs(dy) < r;
                break;
            case VIZ_MARK_TRIANGLE:
                // Apex up at -r, base at +r: half-width grows by 1/2 per row.
                in = 2 * abs(dx) <= dy + r;
                break;
            case VIZ_MARK_DIAMOND:
                in = abs(dx) + abs(dy) <= r;
                break;
            default:
                in = dx == 0 && dy == 0;
                break;
            }
            if (in)
                viz_put(img, x + dx, y + dy, c);
        }
    }
}
