// viz/paint_coll.c: the running collective, painted (placeholder: its frame).
#include "paint.h"

void viz_paint_coll(VizPaint *p, const VizScene *s, const VizLayout *l, VizBox b) {
    (void)s;
    (void)l;
    viz_gfx_round_rect(p->g.cr, b.x, b.y, b.w, b.h, 6);
    viz_gfx_set(p->g.cr, viz_ink(VIZ_INK_FRAME));
    cairo_stroke(p->g.cr);
}
