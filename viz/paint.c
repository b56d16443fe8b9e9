// viz/paint.c: the frame. Boxes from layout cells, tweens.
#include "paint.h"

VizBox viz_paint_box(const VizPaint *p, VizRect r) {
    return (VizBox){r.x * p->cell_w, r.y * p->cell_h, r.w * p->cell_w, r.h * p->cell_h};
}

double viz_paint_tween(const VizPaint *p, double a, double b) {
    return p->next != NULL ? a + (b - a) * p->u : a;
}
