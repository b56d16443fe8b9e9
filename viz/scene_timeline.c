// viz/scene_timeline.c: the timeline lanes of a window: per shown rank, a
// compute lane (forward / backward / optimizer / other / idle) and a
// communication lane (overlapped with compute, exposed, host copies, idle),
// one cell per column, each the kind that filled most of its slice of time.
//
// Only the events that reach into the window are visited: each lane is
// sorted by start with a running maximum of ends, so the first event that
// ends after the window's start is found by binary search, and the scan
// stops at the first event that starts after its end.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

// One lane on the chosen clock.
typedef struct {
    const VizModel *m;
    const VizLane *l;
    int wall;
} LaneView;

static size_t lv_n(const LaneView *v) {
    return v->wall ? v->l->nwall : v->l->ev.n;
}

static void lv_get(const LaneView *v, size_t k, double *a, double *b, uint32_t *idx) {
    if (v->wall) {
        *a = v->l->wall[k].t0, *b = v->l->wall[k].t1, *idx = v->l->wall[k].idx;
        return;
    }
    *idx = v->l->ev.v[k];
    const SimEvent *e = &v->m->t->ev[*idx];
    *a = viz_ev_t0(e, 0), *b = viz_ev_t1(e, 0);
}

// First position whose running maximum of ends passes t.
static size_t lv_first(const LaneView *v, double t) {
    const double *pm = v->wall ? v->l->wall_pmax : v->l->pmax;
    size_t lo = 0, hi = lv_n(v);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pm[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct {
    double t0, t1, dt;
    int ncols;
} Window;

// A walk over one lane's spans from position k up to the window's end t1,
// each clipped to start where the previous one ended at the earliest, so
// that nested or overlapping events count once.
typedef struct {
    const LaneView *v;
    size_t k;
    double t1, covered;
} SpanWalk;

static SpanWalk span_walk(const LaneView *v, size_t first, double t1) {
    return (SpanWalk){v, first, t1, -INFINITY};
}

// The next span in [*a, *b) and its event; 0 at the end.
static int span_next(SpanWalk *s, double *a, double *b, uint32_t *idx) {
    while (s->k < lv_n(s->v)) {
        lv_get(s->v, s->k++, a, b, idx);
        if (*a >= s->t1)
            return 0;
        if (*a < s->covered)
            *a = s->covered;
        if (*b <= *a)
            continue;
        s->covered = *b;
        return 1;
    }
    return 0;
}

// Adds the part of [a, b) inside the window to acc, column by column.
static void add_span(const Window *w, double *acc, double a, double b) {
    if (a < w->t0)
        a = w->t0;
    if (b > w->t1)
        b = w->t1;
    if (b <= a)
        return;
    int c0 = (int)((a - w->t0) / w->dt), c1 = (int)((b - w->t0) / w->dt);
    if (c0 < 0)
        c0 = 0;
    if (c1 > w->ncols - 1)
        c1 = w->ncols - 1;
    for (int c = c0; c <= c1; c++) {
        double lo = w->t0 + c * w->dt, hi = lo + w->dt;
        lo = lo > a ? lo : a;
        hi = hi < b ? hi : b;
        if (hi > lo)
            acc[c] += hi - lo;
    }
}

static VizCellKind compute_kind(const VizModel *m, int r, uint32_t idx) {
    int known;
    VizPhase ph = viz_marker_phase(m, r, idx, &known);
    if (!known)
        ph = viz_op_phase(m->t->ev[idx].name);
    switch (ph) {
    case VIZ_PHASE_FORWARD: return VIZ_CELL_FORWARD;
    case VIZ_PHASE_BACKWARD: return VIZ_CELL_BACKWARD;
    case VIZ_PHASE_OPTIMIZER: return VIZ_CELL_OPTIMIZER;
    default: return VIZ_CELL_OTHER;
    }
}

enum { ACC_FWD, ACC_BWD, ACC_OPT, ACC_OTHER, ACC_COMM, ACC_OVER, ACC_HOST, ACC_COUNT };

// The lane cells of rank r into compute[] and comm[]; returns the exposed
// communication time in the window.
static double rank_cells(const VizModel *m, int r, const Window *w, int wall, double *acc,
                         uint8_t *compute, uint8_t *comm) {
    int n = w->ncols;
    memset(acc, 0, (size_t)ACC_COUNT * (size_t)n * sizeof *acc);
    LaneView cv = {m, viz_lane(m, r, VIZ_LANE_COMPUTE), wall};
    LaneView mv = {m, viz_lane(m, r, VIZ_LANE_COMM), wall};
    LaneView hv = {m, viz_lane(m, r, VIZ_LANE_HOST), wall};
    double a, b;
    uint32_t idx;
    size_t c_first = lv_first(&cv, w->t0);
    for (SpanWalk s = span_walk(&cv, c_first, w->t1); span_next(&s, &a, &b, &idx);) {
        static const int acc_of[VIZ_CELL_KIND_COUNT] = {
            [VIZ_CELL_FORWARD] = ACC_FWD, [VIZ_CELL_BACKWARD] = ACC_BWD,
            [VIZ_CELL_OPTIMIZER] = ACC_OPT, [VIZ_CELL_OTHER] = ACC_OTHER};
        add_span(w, acc + (size_t)acc_of[compute_kind(m, r, idx)] * (size_t)n, a, b);
    }
    size_t kc = c_first;
    for (SpanWalk s = span_walk(&mv, lv_first(&mv, w->t0), w->t1); span_next(&s, &a, &b, &idx);) {
        add_span(w, acc + (size_t)ACC_COMM * (size_t)n, a, b);
        // the compute that overlaps [a, b)
        double ca, cb;
        uint32_t ci;
        while (kc < lv_n(&cv)) {
            lv_get(&cv, kc, &ca, &cb, &ci);
            if (cb > a)
                break;
            kc++;
        }
        for (size_t q = kc; q < lv_n(&cv); q++) {
            lv_get(&cv, q, &ca, &cb, &ci);
            if (ca >= b)
                break;
            double lo = ca > a ? ca : a, hi = cb < b ? cb : b;
            if (hi > lo)
                add_span(w, acc + (size_t)ACC_OVER * (size_t)n, lo, hi);
        }
    }
    for (SpanWalk s = span_walk(&hv, lv_first(&hv, w->t0), w->t1); span_next(&s, &a, &b, &idx);)
        add_span(w, acc + (size_t)ACC_HOST * (size_t)n, a, b);
    double exposed = 0;
    for (int c = 0; c < n; c++) {
        double f = acc[ACC_FWD * n + c], bw = acc[ACC_BWD * n + c];
        double o = acc[ACC_OPT * n + c], x = acc[ACC_OTHER * n + c];
        double busy = f + bw + o + x;
        VizCellKind k = VIZ_CELL_IDLE;
        if (busy > 0 && busy >= w->dt - busy) {
            k = VIZ_CELL_FORWARD;
            double best = f;
            if (bw > best)
                best = bw, k = VIZ_CELL_BACKWARD;
            if (o > best)
                best = o, k = VIZ_CELL_OPTIMIZER;
            if (x > best)
                k = VIZ_CELL_OTHER;
        }
        compute[c] = (uint8_t)k;
        double cm = acc[ACC_COMM * n + c], ov = acc[ACC_OVER * n + c];
        double h = acc[ACC_HOST * n + c];
        if (ov > cm)
            ov = cm;
        double ex = cm - ov;
        exposed += ex;
        k = VIZ_CELL_IDLE;
        if (cm + h > 0 && cm + h >= w->dt - (cm + h))
            k = h > cm ? VIZ_CELL_HOST : ex > ov ? VIZ_CELL_EXPOSED : VIZ_CELL_COMM;
        comm[c] = (uint8_t)k;
    }
    return exposed;
}

// The window: o->window seconds around the cursor, or the cursor's whole
// iteration (before the first: from the trace's start to it).
static void pick_window(const VizModel *m, size_t i, double now, const VizSceneOpts *o,
                        Window *w) {
    int wall = o->use_wall;
    double lo = wall ? m->w_min : m->t_min, hi = wall ? m->w_max : m->t_max;
    if (!(hi > lo))
        hi = lo + 1e-9;
    if (o->window > 0) {
        double span = o->window;
        w->t0 = now - span / 2;
        if (span < hi - lo) {
            if (w->t0 < lo)
                w->t0 = lo;
            if (w->t0 + span > hi)
                w->t0 = hi - span;
        }
        w->t1 = w->t0 + span;
        return;
    }
    int it = viz_model_iteration_of(m, i), n = viz_model_iterations(m);
    const SimEvent *ev = m->t->ev;
    if (it >= 0) {
        w->t0 = viz_ev_t0(&ev[viz_model_iteration_start(m, it)], wall);
        w->t1 = it + 1 < n ? viz_ev_t0(&ev[viz_model_iteration_start(m, it + 1)], wall) : hi;
    } else {
        w->t0 = lo;
        w->t1 = n > 0 ? viz_ev_t0(&ev[viz_model_iteration_start(m, 0)], wall) : hi;
    }
    if (!(w->t1 > w->t0))
        w->t1 = w->t0 + (hi > w->t0 ? hi - w->t0 : 1e-9);
}

int viz_scene_timeline(VizModel *m, size_t i, double now, const VizSceneOpts *o, VizScene *sc,
                       size_t *cap, double **scratch, size_t *scratch_cap) {
    VizTimeline *tl = &sc->timeline;
    int cols = o->timeline_cols;
    if (cols > VIZ_TIMELINE_MAX_COLS)
        cols = VIZ_TIMELINE_MAX_COLS;
    tl->ncols = 0;
    tl->nranks = 0;
    tl->cursor_col = -1;
    tl->exposed_s = 0;
    tl->t0 = tl->t1 = 0;
    if (cols <= 0)
        return 0;
    int R = m->nranks;
    if (o->ntimeline_ranks > 0) {
        for (int k = 0; k < o->ntimeline_ranks && k < VIZ_TIMELINE_MAX_RANKS; k++)
            if (o->timeline_ranks[k] >= 0 && o->timeline_ranks[k] < R)
                tl->ranks[tl->nranks++] = o->timeline_ranks[k];
    }
    if (tl->nranks == 0) {
        int n = R < 4 ? R : 4, sel = o->selected_rank;
        sel = sel < 0 ? 0 : sel >= R ? R - 1 : sel;
        int first = sel - n / 2;
        first = first > R - n ? R - n : first;
        first = first < 0 ? 0 : first;
        for (int k = 0; k < n; k++)
            tl->ranks[tl->nranks++] = first + k;
    }
    Window w;
    pick_window(m, i, now, o, &w);
    w.ncols = cols;
    w.dt = (w.t1 - w.t0) / cols;
    if (!isfinite(w.dt))
        return 0; // a window wider than a double holds (a loaded trace's times
                  // near -1e308 and 1e308): no columns to divide it into
    size_t cells = (size_t)tl->nranks * (size_t)cols;
    if (cells > *cap) {
        uint8_t *a = realloc(tl->compute, cells);
        if (a == NULL)
            return -1;
        tl->compute = a;
        uint8_t *b = realloc(tl->comm, cells);
        if (b == NULL)
            return -1;
        tl->comm = b;
        *cap = cells;
    }
    if (viz_ensure((void **)scratch, scratch_cap, (size_t)ACC_COUNT * (size_t)cols,
                   sizeof **scratch) != 0)
        return -1;
    for (int k = 0; k < tl->nranks; k++) {
        int r = tl->ranks[k];
        if (o->use_wall && (viz_lane_wall(m, r, VIZ_LANE_COMPUTE) != 0 ||
                            viz_lane_wall(m, r, VIZ_LANE_COMM) != 0 ||
                            viz_lane_wall(m, r, VIZ_LANE_HOST) != 0))
            return -1;
        double ex = rank_cells(m, r, &w, o->use_wall, *scratch, tl->compute + (size_t)k * cols,
                               tl->comm + (size_t)k * cols);
        if (k == 0)
            tl->exposed_s = ex;
    }
    tl->ncols = cols;
    tl->t0 = w.t0;
    tl->t1 = w.t1;
    if (now >= w.t0 && now < w.t1)
        tl->cursor_col = (int)((now - w.t0) / w.dt);
    else if (now == w.t1)
        tl->cursor_col = cols - 1;
    if (tl->cursor_col >= cols)
        tl->cursor_col = cols - 1;
    return 0;
}
