// viz/view_sdl_anim.c: the SDL2 view's smooth overlays.
//
// Time between events. Many events share one instant of simulated time (a
// ring step starts on every rank at once, with a transfer event each), so
// the cursor stepping through events at a steady rate would leave the
// picture still for a while and then jump. Instead, while the cursor moves
// through the events [a, b) of one instant t_a, the picture moves from t_a
// towards t_b, the next instant: u = (cursor - a) / (b - a).
//
// Chunks. Each transfer of the running step is a rounded square that
// travels along the arrow the canvas draws for it (found by walking back
// from the arrow's head next to the receiver; a straight line from box to
// box when there is none), at the step's progress t_a + u (t_b - t_a)
// between step_t0 and step_t1. Colour tells
// chunks apart, a white rim marks a copy (the receiver overwrites its
// chunk) against a reduction (the receiver adds it), and the chunk's
// number is written on it.
//
// Bars. A bar (eighth blocks of one style, as viz_canvas_bar draws it) in
// the rank boxes or the bucket rows that is longer or shorter in the next
// instant's frame is redrawn at the length in between: the next frame's
// cells are shown in the pixels between this frame's end of the bar and
// the tweened end.
#include "view_sdl_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// Two times count as one instant within this much (cost-model sums over
// ranks may differ in the last bits).
static double same_instant_tol(double t) {
    return 1e-12 + 1e-9 * fabs(t);
}

VizSdlInstant viz_sdl_instant(const VizModel *m, size_t available, double pos) {
    VizSdlInstant in = {0, 0, 0, 0, 0, 0};
    const VizTrace *t = viz_model_trace(m);
    size_t n = viz_model_count(m);
    n = n < available ? n : available;
    n = n < t->n ? n : t->n;
    if (n == 0)
        return in;
    if (!(pos >= 0))
        pos = 0;
    size_t i = (size_t)pos;
    if (i >= n) {
        i = n - 1;
        pos = (double)i;
    }
    const SimEvent *ev = t->ev;
    double ti = ev[i].sim_start, tol = same_instant_tol(ti);
    // a: the first event of the instant (events are in sim_start order).
    size_t lo = 0, hi = i;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].sim_start < ti - tol)
            lo = mid + 1;
        else
            hi = mid;
    }
    in.a = lo;
    // b: the first event of a later instant.
    lo = i + 1;
    hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].sim_start <= ti + tol)
            lo = mid + 1;
        else
            hi = mid;
    }
    in.b = lo;
    in.t_a = ti;
    in.t_b = ti;
    if (in.b < n) {
        in.next_ok = 1;
        in.t_b = ev[in.b].sim_start;
        in.u = (pos - (double)in.a) / (double)(in.b - in.a);
        in.u = in.u < 0 ? 0 : in.u > 1 ? 1 : in.u;
    }
    return in;
}

double viz_sdl_step_progress(const VizScene *s, const VizSdlInstant *in) {
    const VizColl *c = &s->coll;
    double t = in->t_a + in->u * (in->t_b - in->t_a);
    double d = c->step_t1 - c->step_t0;
    if (!(d > 0))
        return in->u;
    double p = (t - c->step_t0) / d;
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

// ---------------------------------------------------------------------------
// The chunks' ways

// The direction an arrow head points, from its glyph.
static int head_dir(uint32_t ch, int *dx, int *dy) {
    switch (ch) {
    case 0x25BA: case 0x25B6: *dx = 1; *dy = 0; return 1;
    case 0x25C4: case 0x25C0: *dx = -1; *dy = 0; return 1;
    case 0x25B2: *dx = 0; *dy = -1; return 1;
    case 0x25BC: *dx = 0; *dy = 1; return 1;
    default: return 0;
    }
}

static int in_rect(VizRect r, int x, int y) {
    return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}

// An arrow of the canvas, walked back from its head: its tail cell and the
// cells where it turns, tail first.
typedef struct {
    int n;          // cells: tail, corners, head
    int x[VIZ_SDL_PATH_MAX - 2], y[VIZ_SDL_PATH_MAX - 2];
} Arrow;

// Walks from the head at (hx, hy), travelling (dx, dy), back along cells of
// the chunk style: straight through lines and labels, round corners (their
// other arm), until the style ends.
static void walk_back(const VizCanvas *c, VizRect panel, int hx, int hy, int dx, int dy,
                      Arrow *a) {
    int cx[VIZ_SDL_PATH_MAX - 4], cy[VIZ_SDL_PATH_MAX - 4], nc = 0;
    int x = hx, y = hy;
    for (int steps = 0; steps < panel.w * panel.h; steps++) {
        int nx = x - dx, ny = y - dy;
        if (!in_rect(panel, nx, ny))
            break;
        const VizCell *cell = viz_canvas_at(c, nx, ny);
        if (cell == NULL || cell->style != VIZ_STYLE_CHUNK)
            break;
        x = nx;
        y = ny;
        int arms = viz_sdl_box_arms(cell->ch);
        // The arm towards the cell we came from: 1 left, 2 up, 4 right, 8 down.
        int from = dx > 0 ? 4 : dx < 0 ? 1 : dy > 0 ? 8 : 2;
        int other = arms & ~from;
        if ((arms & from) && (other == 1 || other == 2 || other == 4 || other == 8) &&
            (other & (from == 1 || from == 4 ? 10 : 5))) {
            // A corner: leave by its other arm.
            dx = other == 1 ? 1 : other == 4 ? -1 : 0;
            dy = other == 2 ? 1 : other == 8 ? -1 : 0;
            if (nc < VIZ_SDL_PATH_MAX - 4) {
                cx[nc] = x;
                cy[nc] = y;
                nc++;
            }
        }
    }
    a->n = 0;
    a->x[a->n] = x;
    a->y[a->n++] = y;
    for (int k = nc - 1; k >= 0; k--) { // corners were met head first
        a->x[a->n] = cx[k];
        a->y[a->n++] = cy[k];
    }
    a->x[a->n] = hx;
    a->y[a->n++] = hy;
}

// How well cell (x, y) stands for the end of an arrow at node r: 2 beside
// its frame, 1 in its columns (a lane below or above), 0 not at all.
static int end_score(VizRect r, int x, int y) {
    int beside = x >= r.x - 1 && x <= r.x + r.w && y >= r.y - 1 && y <= r.y + r.h &&
                 !in_rect(r, x, y);
    if (beside)
        return 2;
    return x >= r.x && x < r.x + r.w && !in_rect(r, x, y) ? 1 : 0;
}

static void path_add(VizSdlPath *p, double x, double y) {
    if (p->n < VIZ_SDL_PATH_MAX) {
        p->x[p->n] = x;
        p->y[p->n] = y;
        p->n++;
    }
}

// A point on r's frame in column or row of (x, y) px, nearest to it: where a
// lane's way leaves a node box or enters it.
static void frame_point(VizRect r, int cw, int ch, double x, double y, double *fx, double *fy) {
    double x0 = r.x * cw, x1 = (r.x + r.w) * cw, y0 = r.y * ch, y1 = (r.y + r.h) * ch;
    *fx = x < x0 ? x0 : x > x1 ? x1 : x;
    *fy = y < y0 ? y0 : y > y1 ? y1 : y;
}

// Where the segment from the centre of a box (half sizes hx, hy) in
// direction (dx, dy) leaves the box, as a fraction of (dx, dy).
static double exit_fraction(double hx, double hy, double dx, double dy) {
    double fx = fabs(dx) > 1e-9 ? hx / fabs(dx) : 1e9;
    double fy = fabs(dy) > 1e-9 ? hy / fabs(dy) : 1e9;
    return fx < fy ? fx : fy;
}

// Every arrow in the collective panel, walked back from its head; at most
// max of them.
static int find_arrows(const VizSdlView *v, Arrow *out, int max) {
    VizRect panel = v->layout.coll;
    int n = 0;
    for (int y = panel.y; y < panel.y + panel.h; y++)
        for (int x = panel.x; x < panel.x + panel.w && n < max; x++) {
            const VizCell *cell = viz_canvas_at(&v->canvas, x, y);
            int dx, dy;
            if (cell != NULL && cell->style == VIZ_STYLE_CHUNK && head_dir(cell->ch, &dx, &dy))
                walk_back(&v->canvas, panel, x, y, dx, dy, &out[n++]);
        }
    return n;
}

// The way of transfer x: the arrow whose ends fit its ranks best, else a
// straight line.
static int path_for(const VizSdlView *v, const Arrow *arrows, int na, const VizXfer *x,
                    VizSdlPath *p) {
    const VizLayout *l = &v->layout;
    p->n = 0;
    p->drawn = 0;
    int ks = x->src - l->first_node, kd = x->dst - l->first_node;
    if (ks < 0 || kd < 0 || ks >= l->nnodes || kd >= l->nnodes || ks == kd)
        return 0;
    int cw = v->font.cell_w, ch = v->font.cell_h;
    VizRect s = l->node[ks], d = l->node[kd];
    const Arrow *best = NULL;
    int best_score = 0;
    for (int k = 0; k < na; k++) {
        const Arrow *a = &arrows[k];
        int hs = end_score(d, a->x[a->n - 1], a->y[a->n - 1]);
        int ts = end_score(s, a->x[0], a->y[0]);
        if (hs > 0 && ts > 0 && hs + ts > best_score) {
            best = a;
            best_score = hs + ts;
        }
    }
    if (best != NULL) {
        double fx, fy;
        if (end_score(s, best->x[0], best->y[0]) == 1) { // from the box down (or up) to a lane
            frame_point(s, cw, ch, (best->x[0] + 0.5) * cw, (best->y[0] + 0.5) * ch, &fx, &fy);
            path_add(p, fx, fy);
        }
        for (int k = 0; k < best->n; k++)
            path_add(p, (best->x[k] + 0.5) * cw, (best->y[k] + 0.5) * ch);
        int hx = best->x[best->n - 1], hy = best->y[best->n - 1];
        if (end_score(d, hx, hy) == 1) {
            frame_point(d, cw, ch, (hx + 0.5) * cw, (hy + 0.5) * ch, &fx, &fy);
            path_add(p, fx, fy);
        }
        p->drawn = 1;
        return 1;
    }
    double sx = (s.x + s.w / 2.0) * cw, sy = (s.y + s.h / 2.0) * ch;
    double dx = (d.x + d.w / 2.0) * cw, dy = (d.y + d.h / 2.0) * ch;
    double vx = dx - sx, vy = dy - sy;
    double f0 = exit_fraction(s.w * cw / 2.0, s.h * ch / 2.0, vx, vy);
    double f1 = 1 - exit_fraction(d.w * cw / 2.0, d.h * ch / 2.0, vx, vy);
    if (f1 <= f0) { // boxes that touch: centre to centre
        f0 = 0;
        f1 = 1;
    }
    path_add(p, sx + vx * f0, sy + vy * f0);
    path_add(p, sx + vx * f1, sy + vy * f1);
    return 1;
}

int viz_sdl_chunk_path(const VizSdlView *v, const VizXfer *x, VizSdlPath *p) {
    Arrow *a = malloc(VIZ_MAX_XFERS * sizeof *a);
    int na = a ? find_arrows(v, a, VIZ_MAX_XFERS) : 0;
    int ok = path_for(v, a, na, x, p);
    free(a);
    return ok;
}

void viz_sdl_path_at(const VizSdlPath *p, double f, double *x, double *y, double *dx,
                     double *dy) {
    *dx = 1;
    *dy = 0;
    if (p->n <= 0) {
        *x = *y = 0;
        return;
    }
    *x = p->x[0];
    *y = p->y[0];
    double total = 0;
    for (int k = 1; k < p->n; k++)
        total += hypot(p->x[k] - p->x[k - 1], p->y[k] - p->y[k - 1]);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    double want = f * total;
    for (int k = 1; k < p->n; k++) {
        double sx = p->x[k] - p->x[k - 1], sy = p->y[k] - p->y[k - 1];
        double len = hypot(sx, sy);
        if (len <= 0)
            continue;
        *dx = sx / len;
        *dy = sy / len;
        if (want <= len || k == p->n - 1) {
            double t = want < len ? want / len : 1;
            *x = p->x[k - 1] + sx * t;
            *y = p->y[k - 1] + sy * t;
            return;
        }
        want -= len;
    }
}

// The square of transfer x on way p at progress: centre and side.
static void place_on(const VizSdlView *v, const VizXfer *x, const VizSdlPath *p,
                     double progress, int slot, double *cx, double *cy, int *side) {
    const VizLayout *l = &v->layout;
    VizRect s = l->node[x->src - l->first_node], d = l->node[x->dst - l->first_node];
    // As large as the cached texture, no larger than the boxes.
    int sz = v->chunk_px;
    int lim = (s.h < d.h ? s.h : d.h) * v->font.cell_h;
    if (sz > lim)
        sz = lim > 6 ? lim : 6;
    double px, py, dx, dy;
    viz_sdl_path_at(p, progress, &px, &py, &dx, &dy);
    // Transfers on the same way move side by side, left of their direction.
    double off = slot * 0.7 * sz;
    *cx = px + dy * off;
    *cy = py - dx * off;
    *side = sz;
}

int viz_sdl_chunk_place(const VizSdlView *v, const VizXfer *x, double progress, int slot,
                        double *cx, double *cy, int *side) {
    VizSdlPath p;
    if (!viz_sdl_chunk_path(v, x, &p))
        return 0;
    place_on(v, x, &p, progress, slot, cx, cy, side);
    return 1;
}

// The ways of the running step's transfers, found once per canvas: a way
// shared with an earlier transfer (either direction) gets the next slot
// beside it. When the canvas draws arrows, transfers it left out (no room
// for them) are left out here too.
static int update_ways(VizSdlView *v) {
    if (v->ways_gen == v->canvas_gen && v->ways != NULL)
        return 0;
    const VizColl *c = &v->scene->coll;
    int n = c->nxfer < VIZ_MAX_XFERS ? c->nxfer : VIZ_MAX_XFERS;
    if (n > v->ways_cap) {
        VizSdlWay *w = realloc(v->ways, (size_t)n * sizeof *w);
        if (w == NULL)
            return -1;
        v->ways = w;
        v->ways_cap = n;
    }
    Arrow *a = malloc(VIZ_MAX_XFERS * sizeof *a);
    if (a == NULL)
        return -1;
    int na = find_arrows(v, a, VIZ_MAX_XFERS), drawn = 0;
    for (int k = 0; k < n; k++) {
        VizSdlWay *w = &v->ways[k];
        w->ok = path_for(v, a, na, &c->xfer[k], &w->path);
        drawn |= w->ok && w->path.drawn;
        w->slot = 0;
        for (int j = 0; j < k && w->ok; j++) {
            const VizSdlPath *o = &v->ways[j].path, *p = &w->path;
            if (!v->ways[j].ok)
                continue;
            int same = o->x[0] == p->x[0] && o->y[0] == p->y[0] && o->x[o->n - 1] == p->x[p->n - 1] &&
                       o->y[o->n - 1] == p->y[p->n - 1];
            int back = o->x[0] == p->x[p->n - 1] && o->y[0] == p->y[p->n - 1] &&
                       o->x[o->n - 1] == p->x[0] && o->y[o->n - 1] == p->y[0];
            w->slot += same || back;
        }
    }
    for (int k = 0; k < n && drawn; k++)
        v->ways[k].ok &= v->ways[k].path.drawn;
    free(a);
    v->nways = n;
    v->ways_gen = v->canvas_gen;
    return 0;
}

static void draw_text_on(VizSdlView *v, double cx, double cy, int side, const char *s) {
    int n = 0;
    while (s[n])
        n++;
    int cw = v->font.cell_w, ch = v->font.cell_h;
    if (n * cw > side + cw / 2 || ch > side + ch / 3)
        return;
    int x = (int)lround(cx - n * cw / 2.0), y = (int)lround(cy - ch / 2.0);
    for (int k = 0; k < n; k++)
        viz_sdl_draw_glyph(&v->font, x + k * cw, y, (uint32_t)(unsigned char)s[k],
                           VIZ_SDL_STYLE_ON_CHUNK);
}

static void draw_chunks(VizSdlView *v) {
    const VizScene *s = v->scene;
    if (s == NULL)
        return;
    const VizColl *c = &s->coll;
    if (!c->active || !c->running || c->step < 0 || c->nxfer <= 0 || v->layout.nnodes <= 0 ||
        v->layout.coll.w <= 0 || v->layout.coll.h <= 0 || update_ways(v) != 0)
        return;
    double prog = viz_sdl_step_progress(s, &v->instant);
    for (int k = 0; k < v->nways; k++) {
        const VizXfer *x = &c->xfer[k];
        if (!v->ways[k].ok)
            continue;
        double cx, cy;
        int side;
        place_on(v, x, &v->ways[k].path, prog, v->ways[k].slot, &cx, &cy, &side);
        if (!x->reduce) { // a copy: white rim
            int rim = side + 4;
            SDL_Rect r = {(int)lround(cx - rim / 2.0), (int)lround(cy - rim / 2.0), rim, rim};
            SDL_SetTextureColorMod(v->chunk_tex, 255, 255, 255);
            SDL_RenderCopy(v->ren, v->chunk_tex, NULL, &r);
        }
        VizSdlRgb col = viz_sdl_chunk_colour(x->chunk);
        SDL_Rect r = {(int)lround(cx - side / 2.0), (int)lround(cy - side / 2.0), side, side};
        SDL_SetTextureColorMod(v->chunk_tex, col.r, col.g, col.b);
        SDL_RenderCopy(v->ren, v->chunk_tex, NULL, &r);
        char label[16];
        snprintf(label, sizeof label, "%d", x->chunk);
        draw_text_on(v, cx, cy, side, label);
    }
}

// A run of bar cells: eighth blocks of one style, full ones then at most one
// partial one.
typedef struct {
    int x, len, eighths, style;
} BarRun;

enum { MAX_RUNS = 64 };

static int bar_runs(const VizCanvas *c, int y, int x0, int x1, BarRun *out) {
    int n = 0;
    const VizCell *row = c->cells + (size_t)y * (size_t)c->w;
    for (int x = x0; x < x1 && n < MAX_RUNS;) {
        int e = viz_sdl_bar_eighths(row[x].ch);
        if (e == 0) {
            x++;
            continue;
        }
        BarRun r = {x, 1, e, row[x].style};
        x++;
        while (e == 8 && x < x1 && row[x].style == r.style &&
               (e = viz_sdl_bar_eighths(row[x].ch)) > 0) {
            r.len++;
            r.eighths += e;
            x++;
        }
        out[n++] = r;
    }
    return n;
}

static int same_rect(VizRect a, VizRect b) {
    return a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h;
}

// One bar, from this frame's length (fa eighths) towards the next frame's
// (fb) by u: the next frame's cells between the two ends.
static void tween_bar(VizSdlView *v, int y, int x, int len, int fa, int fb, double u) {
    int cw = v->font.cell_w, ch = v->font.cell_h;
    double xa = x * cw + fa * cw / 8.0, xb = x * cw + fb * cw / 8.0;
    double xu = xa + (xb - xa) * u;
    int lo = (int)lround(xa < xu ? xa : xu), hi = (int)lround(xa < xu ? xu : xa);
    if (hi <= lo)
        return;
    SDL_Rect clip = {lo, y * ch, hi - lo, ch};
    SDL_RenderSetClipRect(v->ren, &clip);
    viz_sdl_draw_cells(v, &v->next, y, x, x + len + 1);
    SDL_RenderSetClipRect(v->ren, NULL);
}

static void tween_panel(VizSdlView *v, VizRect a, VizRect b, double u) {
    if (a.w <= 0 || a.h <= 0 || !same_rect(a, b))
        return;
    BarRun ra[MAX_RUNS], rb[MAX_RUNS];
    int x0 = a.x, x1 = a.x + a.w;
    x1 = x1 > v->canvas.w ? v->canvas.w : x1;
    for (int y = a.y; y < a.y + a.h && y < v->canvas.h; y++) {
        int na = bar_runs(&v->canvas, y, x0, x1, ra);
        int nb = bar_runs(&v->next, y, x0, x1, rb);
        const VizCell *rowa = v->canvas.cells + (size_t)y * (size_t)v->canvas.w;
        const VizCell *rowb = v->next.cells + (size_t)y * (size_t)v->next.w;
        // Bars in this frame: matched by start and style, or gone (length 0)
        // where the next frame has no bar cell at their start.
        for (int i = 0; i < na; i++) {
            int fb = -1, len = ra[i].len;
            for (int j = 0; j < nb && fb < 0; j++)
                if (rb[j].x == ra[i].x && rb[j].style == ra[i].style) {
                    fb = rb[j].eighths;
                    len = rb[j].len > len ? rb[j].len : len;
                }
            if (fb < 0 && viz_sdl_bar_eighths(rowb[ra[i].x].ch) == 0)
                fb = 0;
            if (fb >= 0 && fb != ra[i].eighths)
                tween_bar(v, y, ra[i].x, len, ra[i].eighths, fb, u);
        }
        // Bars that appear in the next frame.
        for (int j = 0; j < nb; j++)
            if (viz_sdl_bar_eighths(rowa[rb[j].x].ch) == 0)
                tween_bar(v, y, rb[j].x, rb[j].len, 0, rb[j].eighths, u);
    }
}

void viz_sdl_draw_overlays(VizSdlView *v) {
    if (!v->have_frame || !v->layout.ok)
        return;
    if (v->instant.next_ok && v->have_next && v->next_drawn.index == v->instant.b &&
        v->next_layout.ok && v->instant.u > 0 && v->next.w == v->canvas.w &&
        v->next.h == v->canvas.h) {
        tween_panel(v, v->layout.ranks, v->next_layout.ranks, v->instant.u);
        tween_panel(v, v->layout.buckets, v->next_layout.buckets, v->instant.u);
    }
    draw_chunks(v);
}
