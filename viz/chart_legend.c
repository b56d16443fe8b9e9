// viz/chart_legend.c: the inks of a chart and its legend: one entry per
// distinct (label, ink) over every panel, in the order first met, drawn in
// rows under the title, each a swatch of the series' kind and its label.
#include <string.h>

#include "chart_draw.h"

VizRgba viz_chart_ink(VizChartInk k, int series_index) {
    // a cycle of eight hues that stay apart on white
    static const unsigned cycle[8] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728,
                                      0x9467bd, 0x8c564b, 0xe377c2, 0x17becf};
    switch (k.kind) {
    case VIZ_INK_MEMCAT:
        return viz_mem_colour((int)k.index);
    case VIZ_INK_RANKOF:
        return viz_rank_colour((int)k.index);
    case VIZ_INK_HEX:
        return viz_rgb(k.index & 0xffffffu);
    case VIZ_INK_ALERT:
        return viz_rgb(0xd62728);
    case VIZ_INK_MUTED:
        return viz_rgb(0x7f7f7f);
    default:
        return viz_rgb(cycle[(k.index ? k.index : (unsigned)series_index) % 8]);
    }
}

static int same_ink(VizChartInk a, VizChartInk b) {
    return a.kind == b.kind && a.index == b.index;
}

void viz_chart_collect_legend(const VizChart *c, VizChartLayout *l) {
    l->nlegend = 0;
    for (int p = 0; p < c->npanels; p++) {
        const VizChartPanel *pn = &c->panels[p];
        for (int k = 0; k < pn->nseries; k++) {
            const VizChartSeries *s = &pn->series[k];
            if (s->label == NULL || l->nlegend == VIZ_CHART_MAX_LEGEND)
                continue;
            // an automatic ink takes its position's colour: the entry
            // names that colour, so equal positions in two panels share it
            VizChartInk ink = s->ink;
            if (ink.kind == VIZ_INK_AUTO && ink.index == 0) {
                VizRgba c0 = viz_chart_ink(ink, k);
                ink = (VizChartInk){VIZ_INK_HEX, ((unsigned)(c0.r * 255 + 0.5) << 16) |
                                                     ((unsigned)(c0.g * 255 + 0.5) << 8) |
                                                     (unsigned)(c0.b * 255 + 0.5)};
            }
            int seen = 0;
            for (int i = 0; i < l->nlegend && !seen; i++)
                seen = strcmp(l->legend[i].label, s->label) == 0 &&
                       same_ink(l->legend[i].ink, ink);
            if (!seen)
                l->legend[l->nlegend++] = (VizChartLegendItem){s->label, ink, s->kind};
        }
    }
}

double viz_chart_legend_item_w(VizGfx *g, const VizChartLegendItem *it, double px) {
    double tw;
    viz_gfx_text_size(g, it->label, px, VIZ_FONT_SANS, &tw, NULL);
    return px * 2.2 + tw + px * 1.6; // swatch, gap, label, space to the next
}

// The swatch of one entry at (x, y), size px: a filled square for areas
// and bars, a short line for lines and steps, a dot or a cross for marks.
static void swatch(cairo_t *cr, const VizChartLegendItem *it, double x, double y, double px) {
    VizRgba col = viz_chart_ink(it->ink, 0);
    switch (it->kind) {
    case VIZ_CHART_AREA:
    case VIZ_CHART_BARS:
        viz_gfx_fill_round(cr, x, y + px * 0.1, px * 1.4, px * 0.9, px * 0.15, col);
        break;
    case VIZ_CHART_MARKS:
        viz_gfx_set(cr, col);
        cairo_arc(cr, x + px * 0.7, y + px * 0.55, px * 0.35, 0, 6.283185307179586);
        cairo_fill(cr);
        break;
    case VIZ_CHART_CROSSES:
        viz_gfx_set(cr, col);
        cairo_set_line_width(cr, px * 0.18);
        cairo_move_to(cr, x + px * 0.35, y + px * 0.2);
        cairo_line_to(cr, x + px * 1.05, y + px * 0.9);
        cairo_move_to(cr, x + px * 1.05, y + px * 0.2);
        cairo_line_to(cr, x + px * 0.35, y + px * 0.9);
        cairo_stroke(cr);
        break;
    default:
        viz_gfx_set(cr, col);
        cairo_set_line_width(cr, px * 0.22);
        cairo_move_to(cr, x, y + px * 0.55);
        cairo_line_to(cr, x + px * 1.4, y + px * 0.55);
        cairo_stroke(cr);
    }
}

void viz_chart_draw_legend(VizGfx *g, const VizChart *c, const VizChartLayout *l) {
    (void)c;
    double px = l->font_px, x = l->legend_box.x, y = l->legend_box.y;
    VizRgba ink = viz_rgb(0x333333);
    for (int i = 0; i < l->nlegend; i++) {
        const VizChartLegendItem *it = &l->legend[i];
        double item = viz_chart_legend_item_w(g, it, px);
        if (x > l->legend_box.x && x + item > l->legend_box.x + l->legend_box.w)
            x = l->legend_box.x, y += px * 1.6;
        swatch(g->cr, it, x, y + px * 0.1, px);
        viz_gfx_text(g, x + px * 2.0, y, it->label, px, VIZ_FONT_SANS, ink, VIZ_ALIGN_LEFT);
        x += item;
    }
}
