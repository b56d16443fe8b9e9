// viz/paint_shards.c: the shards panel, painted (placeholder: its frame).
#include "paint.h"

void viz_paint_shards(VizPaint *p, const VizScene *s, VizBox b) {
    (void)s;
    viz_gfx_round_rect(p->g.cr, b.x, b.y, b.w, b.h, 6);
    viz_gfx_set(p->g.cr, viz_ink(VIZ_INK_FRAME));
    cairo_stroke(p->g.cr);
}
