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
    double scale;           // output pixels per layout pixel (HiDPI: 2)
    struct VizPaintCache *cache; // what may be kept between frames, or NULL
    int rows_wanted;        // the most rows a scene laid out by this painter
                            // wanted (viz_paint_layout; 0: none yet)
} VizPaint;

// What a painter on an image surface keeps between frames
// (paint_timeline.c): the timeline panel without its cursor, as an image,
// painted again only when the lanes, the window or the box change, so a
// frame of pure animation copies it and draws the cursor. A painter with
// cache NULL paints everything every time (SVG and PDF do: vectors).
typedef struct VizPaintCache VizPaintCache;
VizPaintCache *viz_paint_cache_new(void); // NULL: out of memory
void viz_paint_cache_free(VizPaintCache *c);
// Times the cached timeline was painted again (for tests).
unsigned long viz_paint_cache_misses(const VizPaintCache *c);

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

// ---------------------------------------------------------------------------
// The whole frame (paint.c)

enum {
    VIZ_PAINT_CELL_W = 9,   // a virtual layout cell, in pixels at scale 1
    VIZ_PAINT_CELL_H = 18,
    VIZ_PAINT_FONT_PX = 13, // body text
};

// A painter on cr at `scale` (HiDPI: 2 doubles every size): cells of
// VIZ_PAINT_CELL_W x VIZ_PAINT_CELL_H, no tween. SIM_ENOMEM.
SimStatus viz_paint_init(VizPaint *p, cairo_t *cr, double scale);
void viz_paint_done(VizPaint *p);
// Lays s out for a w x h pixel surface (l->ok = 0 when it is too small;
// l->why says so). Cells are VIZ_PAINT_CELL_W wide; they grow taller (up
// to half as tall again) when the panels want fewer rows than the surface
// has, so the pictures get the room rather than blank lines: p->cell_h is
// set to the height chosen. The rows counted are the panels' with two
// lines of narrative, whatever the caption's length, and the most any
// scene of this painter wanted, so the cells do not change height from one
// event to the next while a window plays. Returns l->ok.
int viz_paint_layout(VizPaint *p, const VizScene *s, int w, int h, int selected,
                     VizLayout *l);
// Paints the frame of s on a w x h surface: the background, the header,
// every panel in its box, the narrative, the legend and status line, and
// the help overlay when o->help. l is viz_paint_layout's answer for s (a
// layout that is not ok paints its why).
void viz_paint_frame(VizPaint *p, const VizScene *s, const VizLayout *l, const VizDrawOpts *o,
                     int w, int h);
// msg alone, centred, on the background (too small a window, no events yet).
void viz_paint_message(VizPaint *p, int w, int h, const char *msg);
// A panel's card: its fill, its border and its title (NULL: none) at the top
// left. Returns the box inside, under the title.
VizBox viz_paint_panel(VizPaint *p, VizBox b, const char *title);
// The box inside a panel's card (titled: with a title), as viz_paint_panel
// returns it, without painting.
VizBox viz_paint_panel_inner(const VizPaint *p, VizBox b, int titled);
// The clock between the scene and the next: s->now moved u of the way to
// next->now.
double viz_paint_now(const VizPaint *p, const VizScene *s);

// ---------------------------------------------------------------------------
// The collective's geometry (paint_coll_place.c), shared with the window's
// mouse and the tests.

enum { VIZ_PAINT_MAX_NODES = 256 }; // nodes placed at most

// The nodes of s's collective inside the panel's box b: node k (0 ..
// returned count - 1, at most max) is rank k's rounded box. 0 when no
// collective has run.
int viz_paint_coll_nodes(const VizScene *s, VizBox b, VizBox *node, int max);
// The box the nodes of the collective's panel b go in (viz_paint_coll
// places them there).
VizBox viz_paint_coll_area(const VizPaint *p, const VizScene *s, VizBox b);
// How far (0..1) the step in flight has got at the painter's clock
// (viz_paint_now between step_t0 and step_t1); 0 between steps.
double viz_paint_step_fraction(const VizPaint *p, const VizScene *s);
// Where transfer x's block stands at fraction f (0..1) of its step: on the
// straight edge from the sender's box border to the receiver's, (cx, cy)
// its centre. 0 when either node is not among the n drawn.
int viz_paint_chunk_at(const VizBox *node, int n, const VizXfer *x, double f, double *cx,
                       double *cy);
// The edge a transfer from src to dst travels: from the sender's border to
// the receiver's, moved a little to the sender's right so that the two ways
// between one pair of nodes do not lie on each other. 0 when either is not
// among the n nodes (or src = dst).
int viz_paint_coll_edge(const VizBox *node, int n, int src, int dst, double *x0, double *y0,
                        double *x1, double *y1);
// The node rank q's link of the topology goes to: the next on a ring or
// chain, the parent in the tree, the root of a star; -1 for none (a direct
// exchange links every pair: none is drawn).
int viz_paint_coll_link(const VizColl *k, int q, int n);

// ---------------------------------------------------------------------------
// The timeline's geometry (paint_timeline.c)

// The lanes' box inside the timeline panel b (the part time maps onto).
VizBox viz_paint_timeline_lanes(const VizPaint *p, const VizScene *s, VizBox b);
// Pixel (x, y) over the lanes: 1 with the time there (seconds on the
// scene's clock) and the rank of the lane under it (-1 between lanes);
// 0 outside the lanes.
int viz_paint_timeline_at(const VizPaint *p, const VizScene *s, VizBox b, double x, double y,
                          double *t, int *rank);

#endif
