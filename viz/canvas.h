// viz/canvas.h: a grid of character cells, each a Unicode code point and a
// style. The layout draws the scene onto a canvas; the renderers only copy
// the canvas out: the text view as lines, ncurses cell by cell with colour
// pairs, SDL2 as glyphs on a pixel grid (plus its own smooth overlays). So
// the three views show the same scene by construction.
//
// Styles are semantic ("backward compute", "bucket reducing"), never
// colours: each renderer maps them to what it can show (ncurses: colour
// pairs, or bold / reverse / dim in monochrome; SDL2: RGB).
#ifndef DDPLAB_VIZ_CANVAS_H
#define DDPLAB_VIZ_CANVAS_H

#include <stdint.h>
#include <stdio.h>

#include "base/status.h"   // defines: SimStatus
#include "engine/memory.h" // defines: SIM_MEM_CAT_COUNT

typedef enum {
    VIZ_STYLE_NORMAL = 0,
    VIZ_STYLE_DIM,        // frames, axes, inactive things
    VIZ_STYLE_TITLE,      // panel titles, the header
    VIZ_STYLE_SELECTED,   // the selected rank
    VIZ_STYLE_CURSOR,     // the timeline cursor
    VIZ_STYLE_STATUS,     // the status line (reverse video)
    VIZ_STYLE_CAPTION,    // the narrative
    VIZ_STYLE_WARN,       // out of memory, faults, a lagging rank
    VIZ_STYLE_FORWARD,    // phases and timeline cells
    VIZ_STYLE_BACKWARD,
    VIZ_STYLE_OPTIMIZER,
    VIZ_STYLE_OTHER,
    VIZ_STYLE_COMM,       // overlapped communication
    VIZ_STYLE_EXPOSED,    // exposed communication
    VIZ_STYLE_HOST,
    VIZ_STYLE_WAIT,
    VIZ_STYLE_FILLING,    // buckets, shards: in progress
    VIZ_STYLE_REDUCING,
    VIZ_STYLE_DONE,
    VIZ_STYLE_GATHERED,
    VIZ_STYLE_CHUNK,      // a chunk moving in the collective diagram
    VIZ_STYLE_MEM_FIRST,  // VIZ_STYLE_MEM_FIRST + SimMemCat: memory bars
    VIZ_STYLE_COUNT = VIZ_STYLE_MEM_FIRST + SIM_MEM_CAT_COUNT
} VizStyle;

typedef struct {
    uint32_t ch;   // Unicode code point (' ' when empty)
    uint8_t style; // VizStyle
} VizCell;

typedef struct {
    int w, h;
    int unicode;   // 1: box drawing and block characters; 0: ASCII only
    VizCell *cells; // [h * w], row-major
} VizCanvas;

typedef struct {
    int x, y, w, h; // cells; empty when w <= 0 or h <= 0
} VizRect;

// Allocates a w x h canvas of blanks (w, h >= 1). SIM_EINVAL, SIM_ENOMEM.
SimStatus viz_canvas_init(VizCanvas *c, int w, int h, int unicode);
// Resizes (contents lost, all blank). SIM_EINVAL, SIM_ENOMEM.
SimStatus viz_canvas_resize(VizCanvas *c, int w, int h);
void viz_canvas_clear(VizCanvas *c);
void viz_canvas_free(VizCanvas *c);

// Everything below clips to the canvas (and to clip, when given): drawing
// outside is a no-op, never an error.
void viz_canvas_put(VizCanvas *c, int x, int y, uint32_t ch, VizStyle st);
const VizCell *viz_canvas_at(const VizCanvas *c, int x, int y); // NULL outside
// UTF-8 text from (x, y), at most maxw cells (maxw < 0: to the edge), one
// line (a newline stops it). Characters the canvas cannot show (non-ASCII
// on an ASCII canvas) become '?'. Returns the cells written.
int viz_canvas_text(VizCanvas *c, int x, int y, int maxw, VizStyle st, const char *utf8);
int viz_canvas_printf(VizCanvas *c, int x, int y, int maxw, VizStyle st, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
// Word-wrapped text inside r; returns the lines used (text past r is cut,
// its last visible line ends in "...").
int viz_canvas_wrap(VizCanvas *c, VizRect r, VizStyle st, const char *utf8);
void viz_canvas_fill(VizCanvas *c, VizRect r, uint32_t ch, VizStyle st);
// A frame around r (box drawing, or + - |) with an optional title in its
// top edge.
void viz_canvas_box(VizCanvas *c, VizRect r, VizStyle st, const char *title);
void viz_canvas_hline(VizCanvas *c, int x, int y, int w, VizStyle st);
// A horizontal bar of w cells filled to frac (0..1): eighth blocks on a
// Unicode canvas, '#' on ASCII; the unfilled part is left as it was.
void viz_canvas_bar(VizCanvas *c, int x, int y, int w, double frac, VizStyle st);
// An arrow from (x0, y0) to (x1, y1) along a straight or L-shaped path,
// with its head at the end.
void viz_canvas_arrow(VizCanvas *c, int x0, int y0, int x1, int y1, VizStyle st);

// Copies src onto c with its top-left cell at (x, y), clipped to c and to
// clip (when given): how a host puts an embedded view's frame into its
// own screen.
void viz_canvas_blit(VizCanvas *c, int x, int y, const VizCanvas *src, const VizRect *clip);

// The canvas as lines of UTF-8 (ASCII on an ASCII canvas), trailing blanks
// trimmed, trailing blank lines dropped. Styles are lost. Returns the bytes
// written, or -1 on a write error.
long viz_canvas_write(const VizCanvas *c, FILE *out);

// Encodes one code point as UTF-8 into buf (>= 5 bytes, NUL-terminated);
// returns the bytes (1..4).
int viz_utf8_encode(uint32_t cp, char *buf);
// Decodes one code point from *s and advances *s; invalid bytes decode as
// U+FFFD one byte at a time.
uint32_t viz_utf8_next(const char **s);

#endif
