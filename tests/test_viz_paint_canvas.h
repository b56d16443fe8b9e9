// tests/test_viz_paint_canvas.h: what the painted panels' tests paint on
// and how they read it back: a cairo image surface with a VizPaint on it
// (cells of 9 x 18 pixels, 13-pixel text), its pixels, a scene of a trace
// at one event with the next event's scene and a layout, the events to
// look at; and the gallery part (test_viz_paint_gallery.c).
#ifndef DDPLAB_TESTS_VIZ_PAINT_CANVAS_H
#define DDPLAB_TESTS_VIZ_PAINT_CANVAS_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h" // defines: VizLayout
#include "paint.h"  // defines: VizPaint, VizRgba
#include "vtrace.h" // defines: VizTrace

enum { TPC_CELL_W = 9, TPC_CELL_H = 18, TPC_FONT_PX = 13 };

typedef struct {
    cairo_surface_t *sf;
    cairo_t *cr;
    VizPaint p;
    int w, h;
} TpcCanvas;

// A w x h surface filled with the background ink. 0, or 1 (close it still).
int tpc_canvas_open(TpcCanvas *c, int w, int h);
void tpc_canvas_close(TpcCanvas *c);
// Writes the surface as $DDPLAB_PAINT_OUT/name.png when that is set.
void tpc_canvas_save(TpcCanvas *c, const char *name);
// The pixel at (x, y) as 0xRRGGBB (0 outside).
uint32_t tpc_pixel(TpcCanvas *c, int x, int y);
// 1 when pixel v is colour k within 2 per channel.
int tpc_is(uint32_t v, VizRgba k);
// Pixels of colour k on row y from x0 to x1 - 1.
int tpc_count_row(TpcCanvas *c, int y, int x0, int x1, VizRgba k);

// A trace's scene at event i, the next event's scene (for tweens) and the
// layout on W x H cells (embed: viz_layout_embed).
typedef struct {
    VizModel *m;
    VizScene *s, *next;
    VizLayout l;
} TpcShot;

// 0, or 1 after printing why (free it still).
int tpc_shot_at(TpcShot *sh, const VizTrace *t, size_t i, int selected, int W, int H,
                int embed);
void tpc_shot_free(TpcShot *sh);
// Paints the rank, shard and hub panels where the layout put them, at u of
// the way to the next scene (u = 0: no tween).
void tpc_paint_panels(TpcCanvas *c, const TpcShot *sh, int selected, double u);
// The same on a canvas of the layout's size, saved as name. 0, or 1.
int tpc_paint_shot(const TpcShot *sh, int selected, double u, const char *name);

// The mlp the runs train.
#define TPC_MLP "mlp:16,32,32,4"

// The nth event of kind k from iteration it's start (nth = 0: the start),
// or the last one there is when there are fewer (SIZE_MAX: none).
size_t tpc_jump(const VizTrace *t, int it, VizJump k, int nth);
// The largest device peak of any rank at the trace's end.
double tpc_largest_peak(const VizTrace *t);
// A DDP run of TPC_MLP on R ranks whose devices hold `times` their largest
// peak. 0, or 1 after printing why.
int tpc_ddp_trace(VizTrace *t, int R, double times);

// The nth event of kind (a collective's call or step) on rank 0 after
// event i, or the last one before rank 0's next marker (i when none).
size_t tpc_coll_after(const VizTrace *t, size_t i, int kind, int nth);

// Paints the gallery's frames (saved under DDPLAB_PAINT_OUT). 0, or 1.
int tpc_gallery(void);

#endif
