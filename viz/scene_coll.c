// viz/scene_coll.c: the collective at the cursor.
//
// Folded (part of the running state): which rank holds whose contribution
// in each chunk. A world collective starts from what its kind means (an
// all_reduce: every rank holds its own contribution in every chunk; an
// all_gather: rank r holds only chunk r), and each transfer replays what
// the schedule does: "reduce" ORs the sender's set into the receiver's
// chunk, "copy" replaces it. A sender that holds nothing of a chunk it
// sends is its origin (a broadcast's root), so it sends its own
// contribution.
//
// At scene time: the collective's record (kind, algorithm, size, span, the
// DDP bucket or FSDP unit behind it), the step in flight and all of that
// step's transfers (every rank's, found among the events that start when
// the step starts), and the bitmasks.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/schedule.h"
#include "scene_internal.h"

static uint64_t bit(int r) {
    return r >= 0 && r < 64 ? (uint64_t)1 << r : 0;
}

static int popcount64(uint64_t x) {
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

VizTopo viz_topo_of(int coll, int algo, int world) {
    if (!world)
        return coll == SIM_COLL_SEND || coll == SIM_COLL_RECV ? VIZ_TOPO_DIRECT : VIZ_TOPO_RING;
    switch (algo) {
    case SIM_ALGO_RING:
        return coll == SIM_COLL_BROADCAST || coll == SIM_COLL_REDUCE ? VIZ_TOPO_CHAIN
                                                                     : VIZ_TOPO_RING;
    case SIM_ALGO_TREE:
    case SIM_ALGO_DBTREE: return VIZ_TOPO_TREE;
    case SIM_ALGO_NAIVE: return VIZ_TOPO_STAR;
    case SIM_ALGO_DIRECT: return VIZ_TOPO_DIRECT;
    default: return VIZ_TOPO_RING;
    }
}

int viz_coll_begin(const VizModel *m, VizState *s, const SimEvent *e) {
    (void)m;
    s->cw_active = 1;
    s->cw_seq = e->seq;
    s->cw_coll = e->coll;
    s->cw_algo = e->algo;
    s->cw_step_ev = VIZ_NONE;
    int R = s->nranks, nch = 0;
    SimSched sc;
    if (e->coll >= 0 && e->coll <= SIM_COLL_SCATTER && e->algo >= 0 && e->algo < SIM_ALGO_COUNT &&
        sim_sched_init(&sc, (SimCollKind)e->coll, (SimAlgo)e->algo, R,
                       e->count ? (size_t)e->count : 1, 0) == 0)
        nch = sc.nchunks;
    if (nch < 0 || (size_t)R * (size_t)nch > VIZ_HELD_MAX_CELLS)
        nch = 0;
    size_t cells = (size_t)R * (size_t)nch;
    if (cells > s->held_cap) {
        uint64_t *h = realloc(s->held, cells * sizeof *h);
        if (h == NULL)
            return -1;
        s->held = h;
        int *n = realloc(s->nheld, cells * sizeof *n);
        if (n == NULL)
            return -1;
        s->nheld = n;
        s->held_cap = cells;
    }
    s->nchunks = nch;
    int own_all = e->coll == SIM_COLL_ALL_REDUCE || e->coll == SIM_COLL_REDUCE_SCATTER ||
                  e->coll == SIM_COLL_REDUCE;
    int own_one = e->coll == SIM_COLL_ALL_GATHER || e->coll == SIM_COLL_GATHER;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < nch; c++) {
            size_t k = (size_t)r * (size_t)nch + (size_t)c;
            int has = own_all || (own_one && c == r);
            s->held[k] = has ? bit(r) : 0;
            s->nheld[k] = has;
        }
    return 0;
}

static void xfer_chunk(VizState *s, int src, int dst, int c, int reduce) {
    size_t nch = (size_t)s->nchunks;
    size_t si = (size_t)src * nch + (size_t)c, di = (size_t)dst * nch + (size_t)c;
    uint64_t hs = s->held[si];
    int ns = s->nheld[si];
    if (hs == 0 && ns == 0)
        hs = bit(src), ns = 1; // sending what it never received: its own data
    if (reduce) {
        s->held[di] |= hs;
        s->nheld[di] = s->nranks <= 64 ? popcount64(s->held[di]) : s->nheld[di] + ns;
    } else {
        s->held[di] = hs;
        s->nheld[di] = ns;
    }
}

void viz_coll_xfer(VizState *s, const SimEvent *e) {
    if (!s->cw_active || e->seq != s->cw_seq || s->nchunks == 0)
        return;
    if (e->src < 0 || e->src >= s->nranks || e->dst < 0 || e->dst >= s->nranks)
        return;
    int reduce = e->label != NULL && strcmp(e->label, "reduce") == 0;
    if (e->chunk < 0) {
        for (int c = 0; c < s->nchunks; c++)
            xfer_chunk(s, e->src, e->dst, c, reduce);
    } else if (e->chunk < s->nchunks) {
        xfer_chunk(s, e->src, e->dst, e->chunk, reduce);
    }
}

// ----------------------------------------------------------------------------
// scene time

static double progress(double t0, double t1, double now) {
    if (now >= t1)
        return 1.0;
    if (t1 <= t0 || now <= t0)
        return 0.0;
    return (now - t0) / (t1 - t0);
}

// First event whose simulated start is >= t (the trace is in time order).
static size_t lower_time(const VizModel *m, double t) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->t->ev[mid].sim_start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Every rank's transfers of step `step` of collective seq: they start
// together with the step (the ranks enter a step at the same simulated time).
static void step_xfers(const VizModel *m, uint64_t seq, const SimEvent *se, VizColl *c) {
    double T = se->sim_start, tol = 1e-9 * fabs(T) + 1e-15;
    size_t k = lower_time(m, T - tol);
    for (size_t scanned = 0; k < m->n && scanned < (1u << 16); k++, scanned++) {
        const SimEvent *x = &m->t->ev[k];
        if (x->sim_start > T + tol)
            break;
        if (x->kind != SIM_EV_XFER || x->seq != seq || x->step != se->step ||
            !viz_is_world_coll(x))
            continue;
        if (c->nxfer < VIZ_MAX_XFERS) {
            VizXfer *v = &c->xfer[c->nxfer++];
            v->src = x->src;
            v->dst = x->dst;
            v->chunk = x->chunk;
            v->reduce = x->label != NULL && strcmp(x->label, "reduce") == 0;
        }
    }
}

int viz_step_in_phase(const VizModel *m, const SimEvent *e, int *k, int *n) {
    SimSched sc;
    const VizCollRec *c = viz_coll_rec(m, e->seq);
    if (e->coll < 0 || e->coll >= SIM_COLL_COUNT || e->algo < 0 || e->algo >= SIM_ALGO_COUNT ||
        sim_sched_init(&sc, (SimCollKind)e->coll, (SimAlgo)e->algo, m->nranks,
                       e->count ? (size_t)e->count : 1, c && c->root >= 0 ? c->root : 0) != 0 ||
        sc.nsteps != e->nsteps || e->step < 0 || e->step >= sc.nsteps)
        return -1;
    int ph = sim_sched_phase(&sc, e->step);
    *k = ph == 0 ? e->step : e->step - sc.phase_steps[0];
    *n = sc.phase_steps[ph];
    return 0;
}

static void coll_clear(VizColl *c) {
    uint64_t *held = c->held;
    int *nheld = c->nheld;
    memset(c, 0, sizeof *c);
    c->held = held;
    c->nheld = nheld;
    c->root = c->step = c->bucket = c->unit = c->phase_step = -1;
}

static void non_world(const VizModel *m, uint32_t ev, double now, int wall, VizColl *c) {
    const SimEvent *e = &m->t->ev[ev];
    c->active = 1;
    c->name = e->name;
    c->coll = e->coll;
    c->algo = e->algo;
    c->topo = viz_topo_of(e->coll, e->algo, 0);
    c->bytes = e->bytes;
    c->seq = e->seq;
    c->nsteps = e->nsteps > 0 ? e->nsteps : 0;
    c->t0 = viz_ev_t0(e, wall);
    c->t1 = viz_ev_t1(e, wall);
    c->running = now >= c->t0 && now < c->t1;
    c->progress = progress(c->t0, c->t1, now);
    if ((e->coll == SIM_COLL_SEND || e->coll == SIM_COLL_RECV) && e->src >= 0 && e->dst >= 0) {
        c->nxfer = 1;
        c->xfer[0] = (VizXfer){e->src, e->dst, -1, 0};
    }
}

int viz_scene_coll(const VizModel *m, const VizState *s, size_t i, double now, int wall,
                   VizScene *sc, size_t *held_cap) {
    (void)i;
    VizColl *c = &sc->coll;
    coll_clear(c);
    if (!s->coll_world && s->coll_ev != VIZ_NONE) {
        non_world(m, s->coll_ev, now, wall, c);
        return 0;
    }
    if (!s->cw_active)
        return 0;
    const VizCollRec *rec = viz_coll_rec(m, s->cw_seq);
    c->active = 1;
    c->coll = s->cw_coll;
    c->algo = s->cw_algo;
    c->seq = s->cw_seq;
    c->topo = viz_topo_of(c->coll, c->algo, 1);
    if (rec) {
        c->name = rec->name;
        c->bytes = rec->bytes;
        c->nsteps = rec->nsteps;
        c->root = rec->root;
        c->bucket = rec->bucket;
        c->unit = rec->unit;
        c->t0 = wall ? rec->w0 : rec->t0;
        c->t1 = wall ? rec->w1 : rec->t1;
    }
    c->running = now >= c->t0 && now < c->t1;
    c->progress = progress(c->t0, c->t1, now);
    if (s->cw_step_ev != VIZ_NONE && s->cw_step_ev < m->n) {
        const SimEvent *se = &m->t->ev[s->cw_step_ev];
        double a = viz_ev_t0(se, wall), b = viz_ev_t1(se, wall);
        if (now < b || (now == a && a == b)) {
            c->step = se->step;
            c->step_t0 = a;
            c->step_t1 = b;
            c->step_label = se->label;
            if (viz_step_in_phase(m, se, &c->phase_step, &c->phase_steps) != 0)
                c->phase_step = -1, c->phase_steps = 0;
            step_xfers(m, s->cw_seq, se, c);
        }
    }
    if (rec && rec->has_xfers && s->nchunks > 0) {
        size_t cells = (size_t)s->nranks * (size_t)s->nchunks;
        if (cells > *held_cap) {
            uint64_t *h = realloc(c->held, cells * sizeof *h);
            if (h == NULL)
                return -1;
            c->held = h;
            int *n = realloc(c->nheld, cells * sizeof *n);
            if (n == NULL)
                return -1;
            c->nheld = n;
            *held_cap = cells;
        }
        memcpy(c->held, s->held, cells * sizeof *c->held);
        memcpy(c->nheld, s->nheld, cells * sizeof *c->nheld);
        c->nchunks = s->nchunks;
        // The root of a broadcast or scatter holds its own data throughout.
        if ((c->coll == SIM_COLL_BROADCAST || c->coll == SIM_COLL_SCATTER) && c->root >= 0 &&
            c->root < s->nranks)
            for (int k = 0; k < s->nchunks; k++) {
                size_t x = (size_t)c->root * (size_t)s->nchunks + (size_t)k;
                c->held[x] = bit(c->root);
                c->nheld[x] = 1;
            }
    }
    return 0;
}
