// viz/paint.h: the scene drawn with cairo, as shapes: what the SDL window
// shows, and what its PNG, SVG and GIF frames hold. The scene model
// (scene.h) is the only input; the layout (layout.h), computed on a grid of
// virtual cells of cell_w x cell_h pixels, places the panels, and each panel
// is painted in its rectangle by a file of its own:
//
//   paint.c          the frame: background, panels in their boxes, header,
//                    caption and status line
//   paint_coll.c     the running collective: nodes on a ring or tree, edges,
//                    chunks moving along them, each node's buffer as segments
//   paint_buckets.c  DDP buckets as bars filling, launching, reducing
//   paint_timeline.c compute and communication streams as solid bars
//   paint_ranks.c    per-rank boxes: phase, memory stacked by category, the
//                    peak and the device capacity marked
//   paint_shards.c   FSDP / ZeRO: each unit's flat parameter cut into shards
//                    coloured by owner, gathered, freed, reduce-scattered
//   paint_hub.c      DataParallel: device 0 and the replicas
//   paint_palette.c  the colours every panel and chart share
//
// Motion between two instants of simulated time: a frame stands at fraction
// u (0..1) of the way from scene s to scene next (the scene at the next
// later instant, or NULL); panels interpolate bar lengths between them, and
// chunks move along their edges by the cursor's time within the step.
#ifndef DDPLAB_VIZ_PAINT_H
#define DDPLAB_VIZ_PAINT_H

#include <stddef.h>

#include "gfx.h"    // defines: VizGfx, VizRgba
#include "layout.h" // defines: VizLayout, VizRect
#include "scene.h"  // defines: VizScene

// A rectangle in pixels.
typedef struct {
    double x, y, w, h;
} VizBox;

typedef struct {
    VizGfx g;               // the cairo context and text
    double cell_w, cell_h;  // one layout cell in pixels
    double font_px;         // body text size in pixels
    const VizScene *next;   // the scene at the next instant, or NULL
    double u;               // 0..1 of the way from the scene to next
    int selected_rank;
} VizPaint;

// A layout rectangle (cells) in pixels.
VizBox viz_paint_box(const VizPaint *p, VizRect r);
// a + (b - a) * u: a bar's length between two instants.
double viz_paint_tween(const VizPaint *p, double a, double b);

// The panels, each inside its box (a box of zero size draws nothing).
void viz_paint_ranks(VizPaint *p, const VizScene *s, const VizLayout *l);
void viz_paint_shards(VizPaint *p, const VizScene *s, VizBox b);
void viz_paint_hub(VizPaint *p, const VizScene *s, VizBox b);
void viz_paint_coll(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox b);
void viz_paint_buckets(VizPaint *p, const VizScene *s, VizBox b);
void viz_paint_timeline(VizPaint *p, const VizScene *s, VizBox b);

// ---------------------------------------------------------------------------
// The palette (paint_palette.c), on a dark background. Charts on white use
// the same hues for the same things.

typedef enum {
    VIZ_INK_BACKGROUND = 0, // the window
    VIZ_INK_PANEL,          // a panel's fill
    VIZ_INK_FRAME,          // a panel's border, gridlines
    VIZ_INK_TEXT,
    VIZ_INK_DIM,            // secondary text
    VIZ_INK_TITLE,
    VIZ_INK_SELECTED,       // the selected rank
    VIZ_INK_CURSOR,         // the timeline's cursor
    VIZ_INK_CAPTION,
    VIZ_INK_WARN,           // faults, OOM
    VIZ_INK_COUNT
} VizInk;
VizRgba viz_ink(VizInk k);
// What a rank is doing (the rank boxes' phase, the timeline's lanes).
VizRgba viz_phase_colour(VizPhase p);
VizRgba viz_cell_colour(VizCellKind k);
VizRgba viz_bucket_colour(VizBucketState s);
VizRgba viz_shard_colour(VizShardState s);
// Memory category c (SIM_MEM_*), the same in the view and the charts.
VizRgba viz_mem_colour(int c);
// Rank r's colour, told apart for 12 ranks and repeating after: an FSDP
// shard's owner, a contribution summed into a buffer, a chart's series.
VizRgba viz_rank_colour(int r);
// Chunk c of a collective step (8 colours, repeating).
VizRgba viz_chunk_colour(int c);

#endif
