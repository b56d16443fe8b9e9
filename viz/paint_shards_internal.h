// viz/paint_shards_internal.h: one cell of the shards panel (a unit on a
// rank), painted by paint_shards_cell.c for paint_shards.c.
#ifndef DDPLAB_VIZ_PAINT_SHARDS_INTERNAL_H
#define DDPLAB_VIZ_PAINT_SHARDS_INTERNAL_H

#include "paint.h" // defines: VizPaint, VizBox

typedef struct {
    int g;       // shards of the unit's flat parameter (the group's size)
    int own;     // the rank's index in its group: the shard it owns
    int state;   // VizShardState of the unit on the rank
    double f;    // 0..1 of the unit's collective at the frame (gathering, reducing)
    int strip;   // 1: a gradient strip under the parameter bar
    int ring;    // 1: the all-gather runs on a ring (shards arrive one per
                 // step); 0: every shard arrives at once
    int replicated; // 1: every rank keeps the whole parameter and gradient
                 // (ZeRO-1): the shards it does not own are there, faint
                 // (stale until the all-gather after the step brings their
                 // owners' updates), and gradients are all_reduced whole
    int held;    // FSDP2: shards from `held` on hold only padding (ranks past
                 // the parameter's last row), hatched; 0: every shard holds data
} VizShardCell;

// Paints cell c in r: the parameter bar cut into c->g shards, shard k in
// viz_rank_colour(k) where the rank holds it and an empty outline where it
// does not; under it (c->strip) the gradient as the same shards, while it
// is reduce-scattered (the shards bound for other owners fade as f grows)
// and once reduced (the own shard in the reduced ink). Without the strip,
// the gradient takes the bar's place in those two states. The outline is
// the state's ink (viz_shard_colour; the frame ink when sharded).
void viz_paint_shard_cell(VizPaint *p, VizBox r, const VizShardCell *c);

// Fraction 0..1 of shard k that has arrived on a rank that owns shard own,
// at fraction f of an all-gather of g shards: on a ring (ring = 1) the
// shards arrive one per step, from the previous rank's first (own - 1,
// own - 2, ...); otherwise all of them together.
double viz_shard_arrived(int g, int own, int k, double f, int ring);

// The parameter bar of a cell painted in r (all of it without a strip).
VizBox viz_shard_param_box(VizBox r, int strip);

// Where unit u on rank q is painted in the panel b: the cell's rectangle
// and whether it has a gradient strip. 0 when the unit or the rank is not
// among those shown.
int viz_paint_shards_where(VizPaint *p, const VizScene *s, VizBox b, int u, int q,
                           VizBox *cell, int *strip);

#endif
