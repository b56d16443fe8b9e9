// viz/layout_internal.h: what the full layout (layout.c) and the embedded
// one (layout_embed.c) share: the heights of the panels whose forms are
// fixed, the timeline's levels and the placement of the collective's nodes,
// so that a panel looks the same in both.
#ifndef DDPLAB_VIZ_LAYOUT_INTERNAL_H
#define DDPLAB_VIZ_LAYOUT_INTERNAL_H

#include "layout.h" // defines: VizLayout
#include "scene.h"  // defines: VizScene

enum {
    VIZ_LAYOUT_TL_LABEL_W = 10,     // "r12 comm  " before the timeline's lanes
    VIZ_LAYOUT_COLL_COMPACT_H = 5,  // title, two rows of one-line nodes, caption
    VIZ_LAYOUT_HUB_COMPACT_H = 5,   // title, device 0, bus, arrows, devices
    VIZ_LAYOUT_HUB_FRAMED_H = 9,    // the same with framed devices
};

// The collective diagram with framed (3-line) nodes: title, nodes, the space
// between the rows (or the transfer lanes), caption.
int viz_layout_coll_framed_h(const VizScene *s);
// The timeline at level 0 (one lane), 1 (two lanes and the legend), 2 and
// up (every lane shown and the legend); and the lines it uses of H.
int viz_layout_timeline_level(const VizScene *s, int level);
int viz_layout_timeline_fit(const VizScene *s, int H);
// Sets l->timeline_x and timeline_cols from l->timeline and l->w.
void viz_layout_timeline_cols(VizLayout *l);
// Places the collective's nodes in l->coll (framed when it is tall enough),
// the selected rank among them.
void viz_layout_place_nodes(const VizScene *s, VizLayout *l, int selected);

// The lines the full arrangement needs at least on w columns, without the
// narrative and the status line.
int viz_layout_full_min(const VizScene *s, int w);
// The full arrangement on w x h (h = 0: natural height); embed = 1 leaves out
// the narrative and the status line (their rects stay empty). l is zeroed
// with w and h set; selected is a rank of s.
void viz_layout_full(const VizScene *s, int w, int h, int selected, int embed, VizLayout *l);

#endif
