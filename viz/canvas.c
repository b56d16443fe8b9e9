// viz/canvas.c: the cell grid every view draws on (see canvas.h). Every
// primitive clips to the grid, so the panel drawers can compute positions
// freely and never check bounds themselves.
#include "draw_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

SimStatus viz_canvas_init(VizCanvas *c, int w, int h, int unicode) {
    memset(c, 0, sizeof *c);
    c->unicode = unicode ? 1 : 0;
    return viz_canvas_resize(c, w, h);
}

SimStatus viz_canvas_resize(VizCanvas *c, int w, int h) {
    // 1 << 24 cells is far beyond any terminal or text frame; the bound keeps
    // the size arithmetic away from overflow.
    if (w < 1 || h < 1 || (int64_t)w * h > (1 << 24))
        return SIM_EINVAL;
    VizCell *cells = malloc((size_t)w * (size_t)h * sizeof *cells);
    if (!cells)
        return SIM_ENOMEM;
    free(c->cells);
    c->cells = cells;
    c->w = w;
    c->h = h;
    viz_canvas_clear(c);
    return SIM_OK;
}

void viz_canvas_clear(VizCanvas *c) {
    if (!c->cells)
        return;
    size_t n = (size_t)c->w * (size_t)c->h;
    for (size_t i = 0; i < n; i++) {
        c->cells[i].ch = ' ';
        c->cells[i].style = VIZ_STYLE_NORMAL;
    }
}

void viz_canvas_free(VizCanvas *c) {
    free(c->cells);
    memset(c, 0, sizeof *c);
}

void viz_canvas_put(VizCanvas *c, int x, int y, uint32_t ch, VizStyle st) {
    if (!c->cells || x < 0 || y < 0 || x >= c->w || y >= c->h)
        return;
    if (!c->unicode)
        ch = viz_ascii_fallback(ch);
    else if (ch < 0x20 || (ch >= 0x7F && ch < 0xA0))
        ch = '?'; // control characters would break the terminal's grid
    VizCell *cell = &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
    cell->ch = ch;
    cell->style = (uint8_t)st;
}

void viz_canvas_blit(VizCanvas *c, int x, int y, const VizCanvas *src, const VizRect *clip) {
    if (c->cells == NULL || src == NULL || src->cells == NULL)
        return;
    for (int sy = 0; sy < src->h; sy++) {
        int dy = y + sy;
        if (clip && (dy < clip->y || dy >= clip->y + clip->h))
            continue;
        for (int sx = 0; sx < src->w; sx++) {
            int dx = x + sx;
            if (clip && (dx < clip->x || dx >= clip->x + clip->w))
                continue;
            const VizCell *cell = &src->cells[(size_t)sy * (size_t)src->w + (size_t)sx];
            viz_canvas_put(c, dx, dy, cell->ch, (VizStyle)cell->style);
        }
    }
}

const VizCell *viz_canvas_at(const VizCanvas *c, int x, int y) {
    if (!c->cells || x < 0 || y < 0 || x >= c->w || y >= c->h)
        return NULL;
    return &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
}

int viz_canvas_text(VizCanvas *c, int x, int y, int maxw, VizStyle st, const char *utf8) {
    if (!utf8)
        return 0;
    if (maxw < 0)
        maxw = c->w - x;
    int n = 0;
    while (*utf8 && *utf8 != '\n' && n < maxw) {
        uint32_t cp = viz_utf8_next(&utf8);
        viz_canvas_put(c, x + n, y, cp, st);
        n++;
    }
    return n;
}

int viz_canvas_printf(VizCanvas *c, int x, int y, int maxw, VizStyle st, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return viz_canvas_text(c, x, y, maxw, st, buf);
}

// Word wrap shared by drawing and counting: c == NULL only counts. Words
// are split at spaces; a newline ends a line; a word longer than the width
// is split. maxlines < 0: no limit. Returns the lines used; *cut is set when
// text was left over.
static int wrap_core(VizCanvas *c, VizRect r, VizStyle st, const char *s, int maxlines,
                     int *cut) {
    *cut = 0;
    if (!s || !*s || r.w <= 0)
        return 0;
    int line = 0;
    const char *p = s;
    while (*p) {
        if (maxlines >= 0 && line >= maxlines) {
            *cut = 1;
            break;
        }
        // Take as many whole words as fit on this line.
        const char *start = p, *end = p, *q = p;
        int cells = 0, fitted = 0;
        while (*q && *q != '\n') {
            const char *w0 = q;
            int wc = 0;
            const char *w1 = q;
            while (*w1 && *w1 != ' ' && *w1 != '\n') {
                viz_utf8_next(&w1);
                wc++;
            }
            // the spaces before the word as written (an indented line keeps
            // its indent; each space is one byte and one cell)
            int need = cells + (fitted ? (int)(w0 - end) : 0) + wc;
            if (need > r.w) {
                if (!fitted) {
                    // A word wider than the line: split it.
                    const char *t = w0;
                    for (int k = 0; k < r.w; k++)
                        viz_utf8_next(&t);
                    end = t;
                    cells = r.w;
                    fitted = 1;
                }
                break;
            }
            cells = need;
            end = w1;
            fitted = 1;
            q = w1;
            while (*q == ' ')
                q++;
            if (!*q || *q == '\n')
                break;
        }
        if (c) {
            int x = 0;
            for (const char *t = start; t < end && x < r.w;)
                viz_canvas_put(c, r.x + x++, r.y + line, viz_utf8_next(&t), st);
        }
        line++;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == '\n')
            p++;
    }
    return line;
}

int viz_canvas_wrap(VizCanvas *c, VizRect r, VizStyle st, const char *utf8) {
    if (r.w <= 0 || r.h <= 0)
        return 0;
    int cut = 0;
    int lines = wrap_core(c, r, st, utf8, r.h, &cut);
    if (cut && lines > 0) {
        // Mark the cut: the last visible line ends in "...", right after its
        // last word when there is room, else over its last cells.
        int y = r.y + lines - 1, end = 0;
        for (int x = 0; x < r.w; x++) {
            const VizCell *cell = viz_canvas_at(c, r.x + x, y);
            if (cell && cell->ch != ' ')
                end = x + 1;
        }
        int at = end + 3 <= r.w ? end : r.w - 3;
        if (at < 0)
            at = 0;
        for (int k = 0; k < 3 && at + k < r.w; k++)
            viz_canvas_put(c, r.x + at + k, y, '.', st);
    }
    return lines;
}

int viz_wrap_lines(const char *utf8, int w) {
    int cut = 0;
    VizRect r = {0, 0, w, 0};
    return wrap_core(NULL, r, VIZ_STYLE_NORMAL, utf8, -1, &cut);
}

void viz_canvas_fill(VizCanvas *c, VizRect r, uint32_t ch, VizStyle st) {
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            viz_canvas_put(c, x, y, ch, st);
}

void viz_canvas_hline(VizCanvas *c, int x, int y, int w, VizStyle st) {
    uint32_t g = viz_glyph(c, VIZ_G_HLINE);
    for (int k = 0; k < w; k++)
        viz_canvas_put(c, x + k, y, g, st);
}

void viz_canvas_vline(VizCanvas *c, int x, int y, int h, VizStyle st) {
    uint32_t g = viz_glyph(c, VIZ_G_VLINE);
    for (int k = 0; k < h; k++)
        viz_canvas_put(c, x, y + k, g, st);
}

void viz_canvas_box_h(VizCanvas *c, VizRect r, VizStyle st, const char *title, int dbl) {
    if (r.w <= 0 || r.h <= 0)
        return;
    int x1 = r.x + r.w - 1, y1 = r.y + r.h - 1;
    uint32_t hz = viz_glyph(c, dbl ? VIZ_G_DHLINE : VIZ_G_HLINE);
    for (int x = r.x; x <= x1; x++) {
        viz_canvas_put(c, x, r.y, hz, st);
        viz_canvas_put(c, x, y1, hz, st);
    }
    uint32_t vt = viz_glyph(c, dbl ? VIZ_G_DVLINE : VIZ_G_VLINE);
    for (int y = r.y; y <= y1; y++) {
        viz_canvas_put(c, r.x, y, vt, st);
        viz_canvas_put(c, x1, y, vt, st);
    }
    viz_canvas_put(c, r.x, r.y, viz_glyph(c, dbl ? VIZ_G_DTL : VIZ_G_TL), st);
    viz_canvas_put(c, x1, r.y, viz_glyph(c, dbl ? VIZ_G_DTR : VIZ_G_TR), st);
    viz_canvas_put(c, r.x, y1, viz_glyph(c, dbl ? VIZ_G_DBL : VIZ_G_BL), st);
    viz_canvas_put(c, x1, y1, viz_glyph(c, dbl ? VIZ_G_DBR : VIZ_G_BR), st);
    if (title && *title && r.w >= 7) {
        // "+- title ---+": one edge cell, the title between spaces.
        char buf[256];
        int n = viz_elide(title, r.w - 6, buf, sizeof buf);
        viz_canvas_put(c, r.x + 2, r.y, ' ', st);
        viz_canvas_text(c, r.x + 3, r.y, n, st == VIZ_STYLE_DIM ? VIZ_STYLE_TITLE : st, buf);
        viz_canvas_put(c, r.x + 3 + n, r.y, ' ', st);
    }
}

void viz_canvas_box(VizCanvas *c, VizRect r, VizStyle st, const char *title) {
    viz_canvas_box_h(c, r, st, title, 0);
}

void viz_canvas_bar(VizCanvas *c, int x, int y, int w, double frac, VizStyle st) {
    if (w <= 0)
        return;
    if (!(frac > 0)) // also NaN
        return;
    if (frac > 1)
        frac = 1;
    if (!c->unicode) {
        int n = (int)(frac * w + 0.5);
        for (int k = 0; k < n; k++)
            viz_canvas_put(c, x + k, y, '#', st);
        return;
    }
    // Eighths: full blocks, then one partial block U+258F (1/8) .. U+2589 (7/8).
    int e = (int)(frac * w * 8 + 0.5);
    int full = e / 8, rest = e % 8;
    for (int k = 0; k < full; k++)
        viz_canvas_put(c, x + k, y, 0x2588, st);
    if (rest && full < w)
        viz_canvas_put(c, x + full, y, 0x2590 - (uint32_t)rest, st);
}

void viz_canvas_arrow(VizCanvas *c, int x0, int y0, int x1, int y1, VizStyle st) {
    // Horizontal leg first (at y0), then the vertical leg (at x1).
    uint32_t hz = viz_glyph(c, VIZ_G_HLINE), vt = viz_glyph(c, VIZ_G_VLINE);
    int sx = x1 > x0 ? 1 : -1, sy = y1 > y0 ? 1 : -1;
    for (int x = x0; x != x1; x += sx)
        viz_canvas_put(c, x, y0, hz, st);
    for (int y = y0; y != y1; y += sy)
        viz_canvas_put(c, x1, y, vt, st);
    if (x0 != x1 && y0 != y1) {
        // The corner: where the horizontal leg turns up or down.
        int g;
        if (sx > 0)
            g = sy > 0 ? VIZ_G_TR : VIZ_G_BR;
        else
            g = sy > 0 ? VIZ_G_TL : VIZ_G_BL;
        viz_canvas_put(c, x1, y0, viz_glyph(c, g), st);
    }
    int head;
    if (y0 != y1)
        head = sy > 0 ? VIZ_G_DOWN : VIZ_G_UP;
    else
        head = sx > 0 ? VIZ_G_RIGHT : VIZ_G_LEFT;
    viz_canvas_put(c, x1, y1, viz_glyph(c, head), st);
}

long viz_canvas_write(const VizCanvas *c, FILE *out) {
    // Trailing blank lines are dropped: find the last line with ink.
    int last = -1;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++)
            if (c->cells[(size_t)y * (size_t)c->w + (size_t)x].ch != ' ')
                last = y;
    long total = 0;
    for (int y = 0; y <= last; y++) {
        const VizCell *row = &c->cells[(size_t)y * (size_t)c->w];
        int end = c->w;
        while (end > 0 && row[end - 1].ch == ' ')
            end--;
        for (int x = 0; x < end; x++) {
            char buf[8];
            uint32_t ch = c->unicode ? row[x].ch : viz_ascii_fallback(row[x].ch);
            int n = viz_utf8_encode(ch, buf);
            if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
                return -1;
            total += n;
        }
        if (fputc('\n', out) == EOF)
            return -1;
        total++;
    }
    return total;
}
