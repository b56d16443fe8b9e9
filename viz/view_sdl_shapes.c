// viz/view_sdl_shapes.c: box drawing and block elements as rectangles.
// A font's box-drawing glyphs are sized to its em square, not to the cell
// (DejaVu Sans Mono's U+2500 is 11 x 18 in a 9 x 18 cell), so frames drawn
// with them overlap or leave gaps; bars built from eighth blocks must meet
// the pixel the tweens compute. Drawing them here makes every frame line
// meet its neighbour and every bar end where the layout says.
#include "view_sdl_internal.h"

// Arms of U+2500..U+257F, four digits each: left, up, right, down; 0 none,
// 1 light, 2 heavy, 3 double. Dashed lines draw solid; "" (the diagonals)
// are left to the font.
static const char *const box_arms[0x80] = {
    "1010", "2020", "0101", "0202", "1010", "2020", "0101", "0202", // 2500
    "1010", "2020", "0101", "0202", "0011", "0021", "0012", "0022", // 2508
    "1001", "2001", "1002", "2002", "0110", "0120", "0210", "0220", // 2510
    "1100", "2100", "1200", "2200", "0111", "0121", "0211", "0112", // 2518
    "0212", "0221", "0122", "0222", "1101", "2101", "1201", "1102", // 2520
    "1202", "2201", "2102", "2202", "1011", "2011", "1021", "2021", // 2528
    "1012", "2012", "1022", "2022", "1110", "2110", "1120", "2120", // 2530
    "1210", "2210", "1220", "2220", "1111", "2111", "1121", "2121", // 2538
    "1211", "1112", "1212", "2211", "1221", "2112", "1122", "2221", // 2540
    "2122", "2212", "1222", "2222", "1010", "2020", "0101", "0202", // 2548
    "3030", "0303", "0031", "0013", "0033", "3001", "1003", "3003", // 2550
    "0130", "0310", "0330", "3100", "1300", "3300", "0131", "0313", // 2558
    "0333", "3101", "1303", "3303", "3031", "1013", "3033", "3130", // 2560
    "1310", "3330", "3131", "1313", "3333", "0011", "1001", "1100", // 2568
    "0110", "",     "",     "",     "1000", "0100", "0010", "0001", // 2570
    "2000", "0200", "0020", "0002", "1020", "0102", "2010", "0201", // 2578
};

static void fill(SDL_Renderer *ren, int x, int y, int w, int h) {
    if (w > 0 && h > 0)
        SDL_RenderFillRect(ren, &(SDL_Rect){x, y, w, h});
}

static int box(SDL_Renderer *ren, SDL_Rect r, uint32_t cp) {
    const char *arms = box_arms[cp - 0x2500];
    if (arms[0] == '\0')
        return 0;
    int light = r.w >= 14 ? 2 : 1;
    int heavy = light + (r.w >= 6 ? 1 + light / 2 : 0);
    int gap = r.w >= 12 ? 3 : 2; // between the two strokes of a double line
    int cx = r.x + r.w / 2, cy = r.y + r.h / 2;
    // The thickest arm decides how far every arm reaches into the centre,
    // so a light arm meets a heavy one without a notch.
    int reach = 0;
    for (int k = 0; k < 4; k++) {
        int t = arms[k] == '1' ? light : arms[k] == '2' ? heavy : arms[k] == '3' ? gap + 1 : 0;
        reach = t > reach ? t : reach;
    }
    reach = (reach + 1) / 2;
    for (int k = 0; k < 4; k++) {
        int kind = arms[k] - '0';
        if (kind == 0)
            continue;
        int t = kind == 2 ? heavy : light;
        int offs[2] = {-(t / 2), 0}, n = 1;
        if (kind == 3) { // two thin strokes either side of the centre line
            offs[0] = -gap / 2 - light;
            offs[1] = gap - gap / 2;
            n = 2;
        }
        for (int s = 0; s < n; s++) {
            int o = offs[s];
            switch (k) {
            case 0: fill(ren, r.x, cy + o, cx + reach - r.x, t); break;
            case 1: fill(ren, cx + o, r.y, t, cy + reach - r.y); break;
            case 2: fill(ren, cx - reach, cy + o, r.x + r.w - (cx - reach), t); break;
            default: fill(ren, cx + o, cy - reach, t, r.y + r.h - (cy - reach)); break;
            }
        }
    }
    return 1;
}

int viz_sdl_box_arms(uint32_t cp) {
    if (cp < 0x2500 || cp > 0x257F)
        return 0;
    const char *arms = box_arms[cp - 0x2500];
    int mask = 0;
    for (int k = 0; arms[0] != '\0' && k < 4; k++)
        if (arms[k] != '0')
            mask |= 1 << k;
    return mask;
}

int viz_sdl_bar_eighths(uint32_t cp) {
    if (cp == 0x2588)
        return 8;
    if (cp >= 0x2589 && cp <= 0x258F)
        return (int)(0x2590 - cp);
    return 0;
}

static VizSdlRgb mix(VizSdlRgb a, VizSdlRgb b, int num, int den) {
    VizSdlRgb m = {(uint8_t)((a.r * num + b.r * (den - num)) / den),
                   (uint8_t)((a.g * num + b.g * (den - num)) / den),
                   (uint8_t)((a.b * num + b.b * (den - num)) / den)};
    return m;
}

static int block(SDL_Renderer *ren, SDL_Rect r, uint32_t cp, VizSdlRgb fg, VizSdlRgb bg) {
    int w = r.w, h = r.h;
    if (cp >= 0x2591 && cp <= 0x2593) { // shades: the glyph colour over the cell
        VizSdlRgb c = mix(fg, bg, (int)(cp - 0x2590), 4);
        SDL_SetRenderDrawColor(ren, c.r, c.g, c.b, 255);
        fill(ren, r.x, r.y, w, h);
        SDL_SetRenderDrawColor(ren, fg.r, fg.g, fg.b, 255);
        return 1;
    }
    int e = viz_sdl_bar_eighths(cp);
    if (e > 0) { // left eighths and the full block: the bars
        fill(ren, r.x, r.y, (w * e + 4) / 8, h);
        return 1;
    }
    if (cp >= 0x2581 && cp <= 0x2587) { // lower eighths
        int eh = (h * (int)(cp - 0x2580) + 4) / 8;
        fill(ren, r.x, r.y + h - eh, w, eh);
        return 1;
    }
    switch (cp) {
    case 0x2580: fill(ren, r.x, r.y, w, h / 2); return 1;
    case 0x2590: fill(ren, r.x + w / 2, r.y, w - w / 2, h); return 1;
    case 0x2594: fill(ren, r.x, r.y, w, (h + 4) / 8); return 1;
    case 0x2595: fill(ren, r.x + w - (w + 4) / 8, r.y, (w + 4) / 8, h); return 1;
    default: break;
    }
    // Quadrants: bit 1 upper left, 2 upper right, 4 lower left, 8 lower right.
    static const uint8_t quad[10] = {4, 8, 1, 13, 9, 7, 11, 2, 6, 14}; // U+2596..
    if (cp >= 0x2596 && cp <= 0x259F) {
        int q = quad[cp - 0x2596], hw = w / 2, hh = h / 2;
        if (q & 1)
            fill(ren, r.x, r.y, hw, hh);
        if (q & 2)
            fill(ren, r.x + hw, r.y, w - hw, hh);
        if (q & 4)
            fill(ren, r.x, r.y + hh, hw, h - hh);
        if (q & 8)
            fill(ren, r.x + hw, r.y + hh, w - hw, h - hh);
        return 1;
    }
    return 0;
}

int viz_sdl_draw_shape(SDL_Renderer *ren, SDL_Rect r, uint32_t cp, VizSdlRgb fg,
                       VizSdlRgb bg) {
    if (cp < 0x2500 || cp > 0x259F)
        return 0;
    SDL_SetRenderDrawColor(ren, fg.r, fg.g, fg.b, 255);
    return cp < 0x2580 ? box(ren, r, cp) : block(ren, r, cp, fg, bg);
}
