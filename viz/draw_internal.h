// viz/draw_internal.h: what the canvas, the layout and the panel drawers
// (draw_*.c) share inside viz/: glyph choices per canvas mode, number
// formatting, eliding, word-wrap counting and one drawer per panel. Not part
// of the views' contract (that is canvas.h and layout.h).
#ifndef DDPLAB_VIZ_DRAW_INTERNAL_H
#define DDPLAB_VIZ_DRAW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "canvas.h" // defines: VizCanvas, VizRect, VizStyle
#include "layout.h" // defines: VizLayout, VizDrawOpts
#include "scene.h"  // defines: VizScene

// ---------------------------------------------------------------------------
// Canvas helpers (canvas.c, canvas_utf8.c)

// What an ASCII canvas shows for code point cp: cp itself when ASCII, a
// stand-in for box drawing, blocks and arrows ('-', '|', '+', '#', '>'),
// '?' otherwise.
uint32_t viz_ascii_fallback(uint32_t cp);
// Cells (code points) of a UTF-8 string, up to a newline or the end.
int viz_utf8_cells(const char *s);
// Lines that viz_canvas_wrap would use for utf8 at width w with no height
// limit (0 for an empty string; at least 1 otherwise).
int viz_wrap_lines(const char *utf8, int w);
// Copies utf8 into out (outlen bytes) cut to at most maxw cells; a cut
// string ends in "..." (so it is exactly maxw cells). Returns the cells.
int viz_elide(const char *utf8, int maxw, char *out, size_t outlen);
// A frame like viz_canvas_box with a chosen horizontal edge character
// (the selected rank's box: '=' / double line).
void viz_canvas_box_h(VizCanvas *c, VizRect r, VizStyle st, const char *title, int dbl);
// A vertical line of h cells.
void viz_canvas_vline(VizCanvas *c, int x, int y, int h, VizStyle st);

// Glyphs by canvas mode.
enum {
    VIZ_G_HLINE = 0, VIZ_G_VLINE, VIZ_G_TL, VIZ_G_TR, VIZ_G_BL, VIZ_G_BR,
    VIZ_G_LEFT, VIZ_G_RIGHT, VIZ_G_UP, VIZ_G_DOWN, VIZ_G_FULL, VIZ_G_LIGHT,
    VIZ_G_MEDIUM, VIZ_G_DOT, VIZ_G_PEAK, VIZ_G_DHLINE, VIZ_G_DVLINE, VIZ_G_DTL, VIZ_G_DTR,
    VIZ_G_DBL, VIZ_G_DBR, VIZ_G_COUNT
};
uint32_t viz_glyph(const VizCanvas *c, int g);

// ---------------------------------------------------------------------------
// Formatting (draw_fmt.c)

// "512 B", "12.0 KiB", "4.04 MiB", "1.20 GiB" (three significant digits).
void viz_fmt_bytes(uint64_t b, char *buf, size_t len);
// The same in at most 4 characters for tight boxes: "512B", "40K", "558M", "1.2G".
void viz_fmt_bytes_short(uint64_t b, char *buf, size_t len);
// A time in the unit that suits it: "850 us", "1.25 ms", "2.00 s".
void viz_fmt_time(double s, char *buf, size_t len);
// Short names that do not need the scene model: "forward", "reducing", ...
const char *viz_draw_phase_name(VizPhase p);
const char *viz_draw_bucket_name(VizBucketState st);
// The group of ranks elsewhere with bucket b ("r1-3 filling 7/8", "" when
// every rank agrees): the terminal's bucket row and the painted one.
void viz_draw_bucket_others(const VizBucket *b, char *out, size_t len);
// The first of fit items out of n shown, so that item focus is in the
// middle where it can be (0 when all fit): the shard grid's units and ranks.
int viz_draw_window(int n, int fit, int focus);
// What rank box b is doing besides its phase ("relu_bwd + AllReduce").
void viz_draw_rank_what(const VizRankBox *b, char *what, size_t len);
VizStyle viz_draw_phase_style(VizPhase p);
// Memory categories shown in the bars (SIM_MEM_BACKING is left out): the
// letter an ASCII bar uses and the short name of the legend.
char viz_mem_letter(int cat);
const char *viz_mem_short(int cat);
// Timeline cells: the glyph of a VizCellKind (the same in both modes, so
// a text log reads like the terminal) and its style.
char viz_cell_glyph(int kind);
VizStyle viz_cell_style(int kind);
const char *viz_cell_name(int kind);

// ---------------------------------------------------------------------------
// Panels (draw_*.c). Each draws inside its rectangle only.

void viz_draw_header(VizCanvas *c, const VizLayout *l, const VizScene *s);
void viz_draw_ranks(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected);
void viz_draw_buckets(VizCanvas *c, VizRect r, const VizScene *s);
void viz_draw_coll(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected);
void viz_draw_shards(VizCanvas *c, VizRect r, const VizScene *s, int selected);
void viz_draw_hub(VizCanvas *c, VizRect r, const VizScene *s);
void viz_draw_timeline(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected);
void viz_draw_narrative(VizCanvas *c, VizRect r, const VizScene *s, const char *lesson);
void viz_draw_status(VizCanvas *c, VizRect r, const char *status);

// The default status line: the player's keys.
extern const char *const viz_default_status;

// Lines the narrative wants at width w: the lesson (may be NULL) and the
// caption, wrapped.
int viz_narrative_lines(const VizScene *s, const char *lesson, int w);

// A node of a diagram (collective or hub): a framed box when r.h >= 3, a
// one-line "[name text]" otherwise.
void viz_draw_node(VizCanvas *c, VizRect r, const char *name, const char *text, VizStyle st,
                   int selected);

#endif
