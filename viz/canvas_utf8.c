// viz/canvas_utf8.c: UTF-8 in and out of canvas cells, the ASCII stand-ins
// an ASCII canvas shows for drawing characters, and the glyph table of the
// two canvas modes. One code point is one cell (the views draw no wide
// characters).
#include "draw_internal.h"

#include <string.h>

int viz_utf8_encode(uint32_t cp, char *buf) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    int n;
    if (cp < 0x80) {
        buf[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        buf[0] = (char)(0xC0 | (cp >> 6));
        buf[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        buf[0] = (char)(0xE0 | (cp >> 12));
        buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        buf[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        buf[0] = (char)(0xF0 | (cp >> 18));
        buf[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        buf[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        buf[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    buf[n] = '\0';
    return n;
}

uint32_t viz_utf8_next(const char **s) {
    const unsigned char *p = (const unsigned char *)*s;
    unsigned char b = p[0];
    if (b < 0x80) {
        *s += b ? 1 : 0;
        return b;
    }
    int n;
    uint32_t cp, min;
    if ((b & 0xE0) == 0xC0) {
        n = 1;
        cp = b & 0x1F;
        min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
        n = 2;
        cp = b & 0x0F;
        min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
        n = 3;
        cp = b & 0x07;
        min = 0x10000;
    } else {
        *s += 1; // a stray continuation byte or 0xF8..0xFF
        return 0xFFFD;
    }
    for (int k = 1; k <= n; k++) {
        if ((p[k] & 0xC0) != 0x80) {
            *s += 1; // truncated sequence: skip the lead byte only
            return 0xFFFD;
        }
        cp = (cp << 6) | (p[k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *s += 1; // overlong or not a scalar value
        return 0xFFFD;
    }
    *s += n + 1;
    return cp;
}

uint32_t viz_ascii_fallback(uint32_t cp) {
    if (cp < 0x80)
        return cp >= 0x20 || cp == 0 ? cp : '?';
    switch (cp) {
    case 0x2190: case 0x25C0: case 0x25C4: return '<';
    case 0x2192: case 0x25B6: case 0x25BA: return '>';
    case 0x2191: case 0x25B2: return '^';
    case 0x2193: case 0x25BC: return 'v';
    case 0x2026: case 0x00B7: return '.';
    case 0x2500: case 0x2501: case 0x2504: case 0x2508: return '-';
    case 0x2502: case 0x2503: case 0x2506: case 0x250A: return '|';
    case 0x2550: return '=';
    case 0x2551: return '|';
    default: break;
    }
    if (cp >= 0x2500 && cp <= 0x257F)
        return '+'; // corners and tees
    if (cp >= 0x2580 && cp <= 0x259F)
        return '#'; // blocks and shades
    return '?';
}

int viz_utf8_cells(const char *s) {
    int n = 0;
    while (*s && *s != '\n') {
        viz_utf8_next(&s);
        n++;
    }
    return n;
}

int viz_elide(const char *utf8, int maxw, char *out, size_t outlen) {
    if (outlen == 0)
        return 0;
    out[0] = '\0';
    if (!utf8 || maxw <= 0)
        return 0;
    int total = viz_utf8_cells(utf8);
    // Cells copied from the input: all of it when it fits, else maxw - 3
    // followed by "..." (or as many dots as fit in a tiny field).
    int keep = total <= maxw ? total : (maxw > 3 ? maxw - 3 : 0);
    int dots = total <= maxw ? 0 : (maxw < 3 ? maxw : 3);
    size_t o = 0;
    const char *p = utf8;
    int cells = 0;
    for (; cells < keep; cells++) {
        const char *q = p;
        viz_utf8_next(&p);
        size_t n = (size_t)(p - q);
        if (o + n + 1 > outlen)
            break;
        memcpy(out + o, q, n);
        o += n;
    }
    for (int k = 0; k < dots && o + 2 <= outlen; k++, cells++)
        out[o++] = '.';
    out[o] = '\0';
    return cells;
}

uint32_t viz_glyph(const VizCanvas *c, int g) {
    static const uint32_t uni[VIZ_G_COUNT] = {
        [VIZ_G_HLINE] = 0x2500, [VIZ_G_VLINE] = 0x2502, [VIZ_G_TL] = 0x250C,
        [VIZ_G_TR] = 0x2510,    [VIZ_G_BL] = 0x2514,    [VIZ_G_BR] = 0x2518,
        [VIZ_G_LEFT] = 0x25C4,  [VIZ_G_RIGHT] = 0x25BA, [VIZ_G_UP] = 0x25B2,
        [VIZ_G_DOWN] = 0x25BC,  [VIZ_G_FULL] = 0x2588,  [VIZ_G_LIGHT] = 0x2591,
        [VIZ_G_MEDIUM] = 0x2592, [VIZ_G_DOT] = 0x00B7,  [VIZ_G_PEAK] = 0x2503,
        [VIZ_G_DHLINE] = 0x2550, [VIZ_G_DVLINE] = 0x2551, [VIZ_G_DTL] = 0x2554,
        [VIZ_G_DTR] = 0x2557,    [VIZ_G_DBL] = 0x255A,    [VIZ_G_DBR] = 0x255D,
    };
    static const uint32_t ascii[VIZ_G_COUNT] = {
        [VIZ_G_HLINE] = '-', [VIZ_G_VLINE] = '|', [VIZ_G_TL] = '+',  [VIZ_G_TR] = '+',
        [VIZ_G_BL] = '+',    [VIZ_G_BR] = '+',    [VIZ_G_LEFT] = '<', [VIZ_G_RIGHT] = '>',
        [VIZ_G_UP] = '^',    [VIZ_G_DOWN] = 'v',  [VIZ_G_FULL] = '#', [VIZ_G_LIGHT] = '-',
        [VIZ_G_MEDIUM] = '=', [VIZ_G_DOT] = '.',  [VIZ_G_PEAK] = '|', [VIZ_G_DHLINE] = '=',
        [VIZ_G_DVLINE] = '|', [VIZ_G_DTL] = '+',  [VIZ_G_DTR] = '+', [VIZ_G_DBL] = '+',
        [VIZ_G_DBR] = '+',
    };
    if (g < 0 || g >= VIZ_G_COUNT)
        return '?';
    return c->unicode ? uni[g] : ascii[g];
}
