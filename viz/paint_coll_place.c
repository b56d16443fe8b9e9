// viz/paint_coll_place.c: where the collective's diagram puts things: the
// nodes by topology (a ring round clockwise, on an ellipse or, in a wide
// panel, in two rows; a direct exchange on an ellipse; the binomial tree in
// levels, root on top; a star round its root; a chain in a row), the
// topology's links, the edges transfers travel along, and where a
// transfer's block stands at a fraction of its step. Pure geometry: the
// painter (paint_coll.c), the window's mouse and the tests share it.
#include "paint.h"

#include <math.h>

enum { MAX_NODES = VIZ_PAINT_MAX_NODES };
static const double PI = 3.14159265358979323846;

// Rank k's place in a tree rooted at `root`, counted from the root.
static int rel(int k, int root, int n) {
    return root >= 0 ? ((k - root) % n + n) % n : k;
}

static VizBox box_at(double cx, double cy, double w, double h) {
    return (VizBox){cx - w / 2, cy - h / 2, w, h};
}

// The side of a node for n ranks on a line or circle of length len.
static void node_size(int n, double len, double maxh, double *w, double *h) {
    double room = len / (n > 0 ? n : 1);
    *w = room * 0.72;
    *w = *w > 118 ? 118 : *w < 14 ? 14 : *w;
    *h = *w * 0.62;
    if (*h > maxh)
        *h = maxh;
    *h = *h < 14 ? 14 : *h;
}

// A wide, short panel: the ring as two rows, clockwise as the terminal
// draws it: the top row left to right, the bottom row right to left.
static int ring_rows(int n, VizBox b, VizBox *node) {
    int top = (n + 1) / 2, bottom = n - top;
    double w, h;
    node_size(top, b.w, b.h / 2.6, &w, &h);
    if (h < w * 0.95 && h < b.h / 2.6) // room to spare above and below: taller
        h = w * 0.95 < b.h / 2.6 ? w * 0.95 : b.h / 2.6; // buffers
    double y0 = b.y + b.h * 0.22, y1 = b.y + b.h * 0.78;
    for (int k = 0; k < top; k++)
        node[k] = box_at(b.x + b.w * (k + 0.5) / top, y0, w, h);
    for (int k = 0; k < bottom; k++) // right to left, under the top row's nodes
        node[top + k] = box_at(b.x + b.w * (bottom - 0.5 - k) / bottom, y1, w, h);
    return n;
}

// The ranks on an ellipse that fills b, the first on top, clockwise; a
// node at most b.h / hdiv tall.
static int ellipse_nodes(int n, VizBox b, VizBox *node, double hdiv) {
    double cx = b.x + b.w / 2, cy = b.y + b.h / 2;
    double w, h;
    // the ellipse's perimeter (Ramanujan's first approximation is plenty)
    double ea = b.w / 2 * 0.8, eb = b.h / 2 * 0.8;
    node_size(n, PI * (3 * (ea + eb) - sqrt((3 * ea + eb) * (ea + 3 * eb))), b.h / hdiv, &w, &h);
    // an ellipse that uses the panel's width, leaving room for the boxes
    double rx = b.w / 2 - w / 2 - 4, ry = b.h / 2 - h / 2 - 4;
    if (rx < 0)
        rx = 0;
    if (ry < 0)
        ry = 0;
    for (int k = 0; k < n; k++) {
        double a = -PI / 2 + 2 * PI * k / n;
        node[k] = box_at(cx + rx * cos(a), cy + ry * sin(a), w, h);
    }
    return n;
}

// The binomial tree the tree algorithm runs (counted from the root): rank
// j's parent is j without its lowest set bit, so its depth is the number of
// bits set; each level is a row, the root's on top.
static int tree_parent(int j) {
    return j & (j - 1);
}

static int popcount(int j) {
    int c = 0;
    for (; j; j &= j - 1)
        c++;
    return c;
}

static int tree_nodes(int n, int root, VizBox b, VizBox *node) {
    int levels = 1, count[32] = {0};
    for (int j = 0; j < n; j++) {
        int d = popcount(j);
        count[d]++;
        levels = d + 1 > levels ? d + 1 : levels;
    }
    int widest = 1;
    for (int d = 0; d < levels; d++)
        widest = count[d] > widest ? count[d] : widest;
    double lh = b.h / levels, w, h;
    node_size(widest, b.w, lh * 0.72, &w, &h);
    int seen[32] = {0};
    for (int j = 0; j < n; j++) { // j in increasing order: left to right in its row
        int d = popcount(j), at = seen[d]++;
        int k = root >= 0 ? (j + root) % n : j;
        node[k] = box_at(b.x + b.w * (at + 0.5) / count[d], b.y + lh * (d + 0.5), w, h);
    }
    return n;
}

static int ring_ellipse(int n, VizBox b, VizBox *node) {
    return ellipse_nodes(n, b, node, 3.4);
}

static int ring_nodes(int n, VizBox b, VizBox *node) {
    if (n >= 4 && b.w > b.h * 1.8)
        return ring_rows(n, b, node);
    return ring_ellipse(n, b, node);
}

// The root in the middle, the others round it on an ellipse.
static int star_nodes(int n, int root, VizBox b, VizBox *node) {
    if (n == 1)
        return ring_ellipse(n, b, node);
    int others = n - 1;
    VizBox tmp[MAX_NODES];
    ellipse_nodes(others, b, tmp, 4.8); // smaller: the root needs the middle
    int j = 0;
    for (int k = 0; k < n; k++) {
        if (k == (root >= 0 ? root : 0))
            node[k] = box_at(b.x + b.w / 2, b.y + b.h / 2, tmp[0].w, tmp[0].h);
        else
            node[k] = tmp[j++];
    }
    return n;
}

static int chain_nodes(int n, VizBox b, VizBox *node) {
    double w, h;
    node_size(n, b.w, b.h * 0.6, &w, &h);
    for (int k = 0; k < n; k++)
        node[k] = box_at(b.x + b.w * (k + 0.5) / n, b.y + b.h / 2, w, h);
    return n;
}

int viz_paint_coll_nodes(const VizScene *s, VizBox b, VizBox *node, int max) {
    const VizColl *k = &s->coll;
    int n = s->nranks < max ? s->nranks : max;
    if (!k->active || n <= 0 || b.w <= 0 || b.h <= 0)
        return 0;
    if (n > MAX_NODES)
        n = MAX_NODES;
    switch (k->topo) {
    case VIZ_TOPO_TREE: return tree_nodes(n, k->root, b, node);
    case VIZ_TOPO_STAR: return star_nodes(n, k->root, b, node);
    case VIZ_TOPO_CHAIN: return chain_nodes(n, b, node);
    case VIZ_TOPO_DIRECT: return ring_ellipse(n, b, node); // every pair: no rows
    default: return ring_nodes(n, b, node);
    }
}

double viz_paint_step_fraction(const VizPaint *p, const VizScene *s) {
    const VizColl *k = &s->coll;
    if (!k->running || k->step < 0 || !(k->step_t1 > k->step_t0))
        return 0;
    double f = (viz_paint_now(p, s) - k->step_t0) / (k->step_t1 - k->step_t0);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

// Where the segment from the centre of a towards the centre of b leaves a.
static double leave_box(VizBox a, double dx, double dy) {
    double tx = dx != 0 ? (a.w / 2) / fabs(dx) : INFINITY;
    double ty = dy != 0 ? (a.h / 2) / fabs(dy) : INFINITY;
    double t = tx < ty ? tx : ty;
    return t > 1 ? 1 : t;
}

int viz_paint_coll_edge(const VizBox *node, int n, int src, int dst, double *x0, double *y0,
                        double *x1, double *y1) {
    if (src < 0 || dst < 0 || src >= n || dst >= n || src == dst)
        return 0;
    VizBox a = node[src], b = node[dst];
    double ax = a.x + a.w / 2, ay = a.y + a.h / 2, bx = b.x + b.w / 2, by = b.y + b.h / 2;
    double dx = bx - ax, dy = by - ay, len = hypot(dx, dy);
    if (len <= 0)
        return 0;
    double ta = leave_box(a, dx, dy), tb = leave_box(b, -dx, -dy);
    double off = (a.h < 30 ? a.h : 30) * 0.16; // sideways, to the sender's right
    double ox = -dy / len * off, oy = dx / len * off;
    *x0 = ax + dx * ta + ox;
    *y0 = ay + dy * ta + oy;
    *x1 = bx - dx * tb + ox;
    *y1 = by - dy * tb + oy;
    return 1;
}

int viz_paint_chunk_at(const VizBox *node, int n, const VizXfer *x, double f, double *cx,
                       double *cy) {
    double x0, y0, x1, y1;
    if (!viz_paint_coll_edge(node, n, x->src, x->dst, &x0, &y0, &x1, &y1))
        return 0;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    // ease in and out: the block starts and lands softly, and still moves
    // monotonically from sender to receiver
    double e = f * f * (3 - 2 * f);
    *cx = x0 + (x1 - x0) * e;
    *cy = y0 + (y1 - y0) * e;
    return 1;
}

int viz_paint_coll_link(const VizColl *k, int q, int n) {
    int root = k->root >= 0 && k->root < n ? k->root : 0;
    switch (k->topo) {
    case VIZ_TOPO_RING: return n > 1 ? (q + 1) % n : -1;
    case VIZ_TOPO_CHAIN: return q + 1 < n ? q + 1 : -1;
    case VIZ_TOPO_TREE: {
        int j = rel(q, root, n);
        return j > 0 ? (tree_parent(j) + root) % n : -1;
    }
    case VIZ_TOPO_STAR: return q != root ? root : -1;
    default: return -1; // direct: every pair, too many to draw
    }
}
