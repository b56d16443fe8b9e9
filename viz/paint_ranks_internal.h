// viz/paint_ranks_internal.h: what the rank boxes (paint_ranks.c) and the
// compact rank lines (paint_ranks_line.c) share: a rank's memory between
// two instants, the bar's scale, the stacked bar with its marks, the phase
// chip and the byte figures. The geometry functions are here too, so that
// tests can find a bar on the painted surface and read it.
#ifndef DDPLAB_VIZ_PAINT_RANKS_INTERNAL_H
#define DDPLAB_VIZ_PAINT_RANKS_INTERNAL_H

#include <stdint.h>

#include "paint.h" // defines: VizPaint, VizBox, VizScene

// Rank q's memory at the frame's instant: each figure tweened from the
// scene to the next one (SIM_MEM_BACKING left at 0).
typedef struct {
    double mem[SIM_MEM_CAT_COUNT];
    double total, peak, host;
} VizPaintMem;

void viz_paint_rank_mem(const VizPaint *p, const VizScene *s, int q, VizPaintMem *m);

// The least share of the capacity the largest peak must fill for the bars
// to span the capacity (paint_ranks_bar.c).
#define VIZ_PAINT_CAP_SHARE 0.05

// Bytes that fill a whole bar: the device capacity, or more when a rank's
// peak goes past it (so the overflow shows beyond the capacity mark); the
// largest peak over the ranks when the run has no capacity or fills less
// than VIZ_PAINT_CAP_SHARE of it, so that the boxes compare. Tweened like
// the figures. Always >= 1.
double viz_paint_ranks_scale(const VizPaint *p, const VizScene *s);

// The categories in bar order (the model's state first, then what comes
// and goes during a step); *n gets their count.
const int *viz_paint_mem_order(int *n);

// Paints the stacked bar in r: one segment per category, left to right in
// viz_paint_mem_order, each mem[cat] / scale of r.w wide (held to the bar),
// segment edges on whole pixels; the peak as a light tick across the bar
// and the capacity (cap > 0) as a WARN-coloured line, both a few pixels
// taller than the bar.
void viz_paint_mem_bar(VizPaint *p, VizBox r, const VizPaintMem *m, double scale, double cap);

// The x of bytes v on a bar r at scale (the left edge plus v / scale of
// the width, held to the bar, on a whole pixel).
double viz_paint_bar_x(VizBox r, double v, double scale);

// A pill of phase ph's colour with its name in dark text, its left edge at
// x and its middle at ymid, at least min_w wide. Returns its width.
double viz_paint_phase_chip(VizPaint *p, double x, double ymid, VizPhase ph, double px,
                            double min_w);
// The width a chip of phase ph would take at px.
double viz_paint_phase_chip_w(VizPaint *p, VizPhase ph, double px);

// Rank q's box (the layout rect in pixels, inset so that neighbours part)
// and the bar inside it (the percent of capacity, when there is one, takes
// the bar's right end).
VizBox viz_paint_rank_box(const VizPaint *p, VizBox cell);
VizBox viz_paint_rank_bar(const VizPaint *p, VizBox box, int has_cap);

// The compact line's bar inside a one-line slot, for a world of nranks
// ranks and a run with a capacity or not (the same for every line, so the
// bars of a column line up).
VizBox viz_paint_line_bar(VizPaint *p, VizBox slot, int nranks, int has_cap);

// The compact layout's lines (paint_ranks_line.c), one per shown rank,
// and the note "ranks a..b of R" in l->rank_note.
void viz_paint_rank_lines(VizPaint *p, const VizScene *s, const VizLayout *l);
// The panel's last line: the categories in the shown bars, the peak and
// the capacity marks. And "ranks a..b of R" in r.
void viz_paint_ranks_legend(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox r);
void viz_paint_ranks_note(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox r);

#endif
