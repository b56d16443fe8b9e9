// placeholder until the embedded layout lands
#include "layout.h"
int viz_layout_embed(const VizScene *s, int w, int h, int selected, VizLayout *l) {
    int ok = viz_layout(s, w, h, selected, l);
    l->narrative.w = l->narrative.h = 0;
    l->status.w = l->status.h = 0;
    return ok;
}
