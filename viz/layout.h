// viz/layout.h: where each panel of a scene goes on a w x h grid of cells,
// and drawing the scene there. Pure: integer rectangles in, cells out, so it
// is tested without a terminal, and the three renderers share it.
//
// Panels, top to bottom (a panel the scene does not need takes no room):
//   header      one line: title, iteration, clock, the event's position
//   ranks       one box per rank: phase, op, memory bar by category, peak
//   buckets     DDP: a row per bucket (parameters, bytes, state, progress)
//   coll        the running collective: ranks on a ring / tree / star, the
//               chunk each sends this step, what each holds, the caption
//   shards      FSDP: unit x rank grid of shard states
//   hub         DataParallel: device 0 scattering, gathering, reducing
//   timeline    compute and communication lanes per shown rank, cursor
//   narrative   lesson text and the current event's caption
//   status      the controls (and the player's state)
// The minimum is 80 x 24 (VIZ_MIN_W x VIZ_MIN_H); more room shows more
// ranks, wider bars, longer timelines, and the panels side by side.
//
// Embedded in a host's screen (viz_layout_embed: a lesson player that draws
// its own text beside or under the view) there is no narrative and no
// status line, and the view goes down to VIZ_EMBED_MIN_W x VIZ_EMBED_MIN_H:
// there the rank boxes become one line per rank ("r0 backward [PPGGOA..]
// 558 MiB") and the panels the scene is not about give way first.
#ifndef DDPLAB_VIZ_LAYOUT_H
#define DDPLAB_VIZ_LAYOUT_H

#include <stddef.h>

#include "canvas.h" // defines: VizCanvas, VizRect
#include "scene.h"  // defines: VizScene

enum {
    VIZ_MIN_W = 80,
    VIZ_MIN_H = 24,
    VIZ_LAYOUT_MAX_BOXES = 64, // rank boxes and ring nodes drawn at most
};
// The embedded view's minimum. 60 columns, not 40: a DDP bucket row's fixed
// columns (index, names, bytes, bar) take 57, and at 40 its state ("filling
// 1/2", "reducing 50%") and its parameters' names have no room at all; the
// other panels would be legible at 40. 8 lines: the header, the tallest
// compact focus panel (5: the collective or the hub) and two rank lines.
enum { VIZ_EMBED_MIN_W = 60, VIZ_EMBED_MIN_H = 8 };

typedef struct {
    int ok;                 // 0: too small (why says so)
    char why[128];          // "the terminal is 70x20; ddplab needs at least 80x24"
    int w, h;               // the grid laid out
    VizRect header, ranks, buckets, coll, shards, hub, timeline, narrative, status;
    int nboxes;             // rank boxes shown (ranks first_box .. first_box+nboxes-1)
    int first_box;          // chosen so that the selected rank is shown
    VizRect box[VIZ_LAYOUT_MAX_BOXES];
    int compact_ranks;      // 1: box[k] is one line (phase, memory bar, bytes),
                            // not a framed box (viz_layout_embed on a small area)
    VizRect rank_note;      // compact lines: where "ranks a..b of R" goes when
                            // not every rank is shown (empty otherwise)
    int nnodes;             // ranks drawn in the collective diagram
    VizRect node[VIZ_LAYOUT_MAX_BOXES]; // node[k]: the box of rank first_node + k
    int first_node;
    int timeline_cols;      // columns of the lanes (for VizSceneOpts)
    int timeline_x;         // the canvas column of lane column 0
} VizLayout;

// Lays out scene s on a w x h grid. h = 0: as tall as the panels want
// (the text view). selected: the rank to keep visible. Returns l->ok.
int viz_layout(const VizScene *s, int w, int h, int selected, VizLayout *l);

// Lays out s on a w x h part of a host's screen: no narrative panel and no
// status line (their rects are empty; the host draws its own), down to
// VIZ_EMBED_MIN_W x VIZ_EMBED_MIN_H. Below the full layout's comfort the
// panels shrink in this order of what is kept: the header line, the panel
// the scene is about (the collective diagram while a collective runs, else the
// buckets, shards or hub), compact rank lines (one line per rank: phase and
// memory bar), then the timeline. Returns l->ok (0 below the minimum, why says so).
//
// From 80 columns, once the full layout's smallest panels fit in h (and
// always from 80 x 24), the panels are viz_layout's, the narrative's and the
// status line's lines going to the others. Otherwise every panel is as wide
// as the area, in viz_layout's order top to bottom; the rank lines go a few
// to a line while lines are short; the panels the scene is not about (the
// buckets while their all_reduce runs) come after the timeline, and spare
// lines go round in stages as in viz_layout. Lines that no panel can use
// stay blank at the bottom. viz_draw draws the result (VizDrawOpts.lesson
// and .status go unused: there is no panel for them).
int viz_layout_embed(const VizScene *s, int w, int h, int selected, VizLayout *l);

// What the renderers add to the scene.
typedef struct {
    const char *status;     // the status line (NULL: the default key list)
    const char *lesson;     // lesson text for the narrative panel (may be NULL)
    int selected_rank;
    int help;               // 1: draw the help overlay
    int text_mode;          // 1: the text view (no status line, no help)
} VizDrawOpts;

// Draws s into c (which should be l->w x l->h) as l places it.
void viz_draw(VizCanvas *c, const VizLayout *l, const VizScene *s, const VizDrawOpts *o);
// The help overlay alone (the key list), centred in c.
void viz_draw_help(VizCanvas *c);

#endif
