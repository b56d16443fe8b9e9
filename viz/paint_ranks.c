// viz/paint_ranks.c: the rank boxes, painted (placeholder: their frames).
#include "paint.h"

void viz_paint_ranks(VizPaint *p, const VizScene *s, const VizLayout *l) {
    (void)s;
    for (int k = 0; k < l->nboxes; k++) {
        VizBox b = viz_paint_box(p, l->box[k]);
        viz_gfx_round_rect(p->g.cr, b.x, b.y, b.w, b.h, 6);
        viz_gfx_set(p->g.cr, viz_ink(VIZ_INK_FRAME));
        cairo_stroke(p->g.cr);
    }
}
