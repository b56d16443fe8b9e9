// viz/draw_timeline.c: two lanes per shown rank over the scene's window of
// time, one column per slice:
//
//   time (ms) 0         1.0       2.0     v 3.0       4.0
//   r0  comp  FFFFFFFFFFBBBBBBBBBBBBBBBBBBBBBB          OO
//       comm                 ==========!!!!!!!!!!
//   F forward  B backward  O optimizer  x other  = comm (overlapped)  ...
//
// Glyphs are letters so a text log reads like the terminal; styles add the
// colours. 'v' over the lanes marks the cursor.
#include "draw_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Ticks: the time unit that suits the window and a 1-2-5 step that leaves
// at least minsp columns between labels.
static void axis(VizCanvas *c, int x, int y, int cols, double t0, double t1, int minsp,
                 int cursor) {
    double span = t1 - t0;
    // no ticks for a span too wide to scale (a loaded trace's times near
    // 1e308 overflowed to a NaN column)
    if (!(span > 0) || !(span < 1e300) || cols < 2)
        return;
    double unit = span >= 1 ? 1 : span >= 1e-3 ? 1e-3 : 1e-6;
    double raw = span / unit * minsp / cols;
    double p = pow(10, floor(log10(raw)));
    double step = p;
    if (step < raw)
        step = 2 * p;
    if (step < raw)
        step = 5 * p;
    if (step < raw)
        step = 10 * p;
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 9)
        dec = 9;
    double a = t0 / unit, b = t1 / unit;
    if (!(b > a))
        return; // a window too thin for the numbers to tell apart
    int next_free = 0;
    // Ticks by index (never v += step, which a large t0 could absorb); no
    // more ticks than columns.
    double k0 = ceil(a / step - 1e-9);
    for (int i = 0; i <= cols; i++) {
        double v = (k0 + i) * step;
        if (v > b + 1e-9 * step)
            break;
        int col = (int)floor((v - a) / (b - a) * cols + 0.5);
        if (col < next_free || col >= cols)
            continue;
        char lab[32];
        int n = snprintf(lab, sizeof lab, "%.*f", dec, fabs(v) < step * 1e-6 ? 0.0 : v);
        if (col + n > cols)
            break;
        if (cursor >= 0 && cursor >= col - 1 && cursor <= col + n)
            continue; // the cursor's 'v' stands there
        viz_canvas_text(c, x + col, y, n, VIZ_STYLE_DIM, lab);
        next_free = col + n + 2;
    }
}

static const char *unit_name(double span) {
    return span >= 1 ? "time (s)" : span >= 1e-3 ? "time (ms)" : "time (us)";
}

void viz_draw_timeline(VizCanvas *c, const VizLayout *l, const VizScene *s, int selected) {
    VizRect r = l->timeline;
    if (r.h <= 0)
        return;
    const VizTimeline *tl = &s->timeline;
    int x = l->timeline_x, m = l->timeline_cols;
    if (tl->ncols <= 0 || tl->nranks <= 0 || !tl->compute || !tl->comm || m <= 0) {
        viz_canvas_text(c, r.x + 1, r.y, r.w - 2, VIZ_STYLE_DIM, "timeline: nothing recorded yet");
        return;
    }
    double span = tl->t1 - tl->t0;
    viz_canvas_text(c, r.x, r.y, x - r.x - 1, VIZ_STYLE_DIM, unit_name(span));
    int n = tl->ncols;
    int cur = tl->cursor_col >= 0 && tl->cursor_col < n ? (int)((int64_t)tl->cursor_col * m / n)
                                                        : -1;
    axis(c, x, r.y, m, tl->t0, tl->t1, 10, cur);
    if (cur >= 0)
        viz_canvas_put(c, x + cur, r.y, 'v', VIZ_STYLE_CURSOR);

    int lanes = (r.h - 1) / 2;
    if (lanes > tl->nranks)
        lanes = tl->nranks;
    // The selected rank's lane stays when not all fit.
    int first = 0;
    for (int i = 0; i < tl->nranks; i++)
        if (tl->ranks[i] == selected && i >= lanes)
            first = i - lanes + 1;
    for (int i = 0; i < lanes; i++) {
        int li = first + i, q = tl->ranks[li];
        int y = r.y + 1 + 2 * i;
        VizStyle ls = q == selected ? VIZ_STYLE_SELECTED : VIZ_STYLE_NORMAL;
        viz_canvas_printf(c, r.x, y, x - r.x - 1, ls, "r%-3d comp", q);
        viz_canvas_text(c, r.x, y + 1, x - r.x - 1, VIZ_STYLE_DIM, "     comm");
        const uint8_t *cl = tl->compute + (size_t)li * (size_t)n;
        const uint8_t *ml = tl->comm + (size_t)li * (size_t)n;
        for (int j = 0; j < m; j++) {
            int k = (int)((int64_t)j * n / m);
            for (int lane = 0; lane < 2; lane++) {
                int kind = lane ? ml[k] : cl[k];
                char g = viz_cell_glyph(kind);
                VizStyle st = viz_cell_style(kind);
                if (j == cur) {
                    st = VIZ_STYLE_CURSOR;
                    if (g == ' ')
                        g = '|';
                }
                viz_canvas_put(c, x + j, y + lane, (uint32_t)g, st);
            }
        }
    }
    int ly = r.y + 1 + 2 * lanes;
    if (ly < r.y + r.h) {
        // The legend, with the exposed communication of the first lane;
        // short names when the long ones do not fit, then (a narrow
        // embedded view) without that figure, then tighter still, so that
        // the glyphs keep their names rather than lose the last ones.
        static const int kinds[] = {VIZ_CELL_FORWARD, VIZ_CELL_BACKWARD, VIZ_CELL_OPTIMIZER,
                                    VIZ_CELL_OTHER,   VIZ_CELL_COMM,     VIZ_CELL_EXPOSED,
                                    VIZ_CELL_HOST};
        static const char *const shortn[] = {"fwd", "bwd", "optim", "other",
                                             "comm", "exposed comm", "host"};
        static const char *const tinyn[] = {"fwd", "bwd", "opt", "other",
                                            "comm", "exposed", "host"};
        char lg[256], t[32];
        viz_fmt_time(tl->exposed_s, t, sizeof t);
        for (int pass = 0; pass < 4; pass++) {
            const char *sep = pass < 3 ? "  " : " ";
            int o = 0;
            for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
                const char *nm = pass == 0 ? viz_cell_name(kinds[i]) : pass < 3 ? shortn[i]
                                                                                : tinyn[i];
                o += snprintf(lg + o, sizeof lg - (size_t)o, "%s%c %s", i ? sep : "",
                              viz_cell_glyph(kinds[i]), nm);
            }
            if (pass < 2)
                snprintf(lg + o, sizeof lg - (size_t)o, "  v now   exposed comm r%d: %s",
                         tl->ranks[0], t);
            else
                snprintf(lg + o, sizeof lg - (size_t)o, "%sv now", sep);
            if (viz_utf8_cells(lg) <= r.w - 2)
                break;
        }
        char buf[256];
        int k = viz_elide(lg, r.w - 2, buf, sizeof buf);
        viz_canvas_text(c, r.x + 1, ly, k, VIZ_STYLE_DIM, buf);
    }
}
