// viz/draw_hub.c: DataParallel, where device 0 drives every step: device 0
// on top, the other devices below on a bus, arrows down when device 0
// sends (replicate, scatter, scatter_grad) and up when it collects
// (gather, reduce).
//
//   DataParallel: dp.scatter - device 0 splits the batch across the devices
//                      +- device 0 -----+
//                      | dp.scatter     |
//                      +----------------+
//          +-----------+--------+-----------+
//          v           v        v           v
//   +- device 1 -+ ...
#include "draw_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *step;
    int dir;            // 1: device 0 sends; -1: device 0 collects
    const char *what;
} HubStep;

static const HubStep steps[] = {
    {"dp.replicate", 1, "device 0 copies the parameters to every device"},
    {"dp.scatter", 1, "device 0 splits the batch across the devices"},
    {"dp.gather", -1, "the outputs come back to device 0"},
    {"dp.scatter_grad", 1, "device 0 sends each device its outputs' gradient"},
    {"dp.reduce", -1, "the gradients are summed onto device 0"},
};

static const HubStep *find_step(const char *name) {
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (strcmp(steps[i].step, name) == 0)
            return &steps[i];
    return NULL;
}

void viz_draw_hub(VizCanvas *c, VizRect r, const VizScene *s) {
    if (r.h <= 0 || !s->hub.active)
        return;
    const HubStep *st = find_step(s->hub.step);
    char t[200];
    if (st)
        snprintf(t, sizeof t, "DataParallel: %s - %s", st->step, st->what);
    else if (s->hub.step)
        snprintf(t, sizeof t, "DataParallel: %s", s->hub.step);
    else
        snprintf(t, sizeof t, "DataParallel: device 0 drives every step (no step yet)");
    char buf[200];
    int n = viz_elide(t, r.w - 2, buf, sizeof buf);
    viz_canvas_text(c, r.x + 1, r.y, n, VIZ_STYLE_TITLE, buf);
    if (r.h < 5 || s->nranks < 1)
        return;

    int framed = r.h >= 9;
    int nh = framed ? 3 : 1;
    int others = s->nranks - 1;
    // Devices 1.. on one row, as many as fit.
    int minw = framed ? 14 : 9;
    int fit = (r.w - 2) / minw;
    int shown = others < fit ? others : fit;
    int more = others - shown;
    int cw = shown > 0 ? (r.w - 2) / shown : r.w - 2;
    int nw = cw - 2;
    if (nw > 24)
        nw = 24;
    int hubw = framed ? 24 : 16;
    int hx = r.x + (r.w - hubw) / 2, hy = r.y + 1;
    int busy = hy + nh, stuby = busy + 1, dy = stuby + 1;
    int hcx = hx + hubw / 2;
    char text[64];
    snprintf(text, sizeof text, "%s", s->hub.step ? s->hub.step : "hub");
    VizStyle active = st ? VIZ_STYLE_CHUNK : VIZ_STYLE_DIM;
    viz_draw_node(c, (VizRect){hx, hy, hubw, nh}, framed ? "device 0" : "dev0", framed ? text : "hub",
                  VIZ_STYLE_SELECTED, 1);
    if (shown <= 0)
        return;
    int first_cx = 0, last_cx = 0;
    for (int i = 0; i < shown; i++) {
        int q = 1 + i;
        int x = r.x + 1 + i * cw + (cw - nw) / 2;
        int cx = x + nw / 2;
        if (i == 0)
            first_cx = cx;
        last_cx = cx;
        char name[24];
        snprintf(name, sizeof name, framed ? "device %d" : "dev%d", q);
        const char *ph = s->ranks ? viz_draw_phase_name(s->ranks[q].phase) : "";
        viz_draw_node(c, (VizRect){x, dy, nw, nh}, name, framed ? ph : "", VIZ_STYLE_DIM, 0);
        // The stub from the bus to the device, its head by the direction.
        uint32_t g = st ? viz_glyph(c, st->dir > 0 ? VIZ_G_DOWN : VIZ_G_UP)
                        : viz_glyph(c, VIZ_G_VLINE);
        viz_canvas_put(c, cx, stuby, g, active);
    }
    int lo = first_cx < hcx ? first_cx : hcx, hi = last_cx > hcx ? last_cx : hcx;
    viz_canvas_hline(c, lo, busy, hi - lo + 1, active);
    viz_canvas_put(c, hcx, busy,
                   st && st->dir < 0 ? viz_glyph(c, VIZ_G_UP) : viz_glyph(c, VIZ_G_VLINE), active);
    if (more > 0)
        viz_canvas_printf(c, r.x + r.w - 12, r.y + 1, 11, VIZ_STYLE_DIM, "+%d more", more);
}
