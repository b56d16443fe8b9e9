// viz/scene_lookup.c: what the model's indexes answer: small shared
// helpers (growing arrays, sorted index lists, an event's span on either
// clock), the lanes (last event at or before i; the wall-clock copy sorted
// on demand), markers (a rank's phase at event i), records by key, the
// iterations and the plots.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "scene_internal.h"

// ----------------------------------------------------------------------------
// small helpers shared by the scene files

int viz_ensure(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

int viz_idx_push(VizIdxList *l, uint32_t i) {
    if (viz_ensure((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0)
        return -1;
    l->v[l->n++] = i;
    return 0;
}

size_t viz_idx_lower(const VizIdxList *l, uint32_t i) {
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void viz_idx_truncate(VizIdxList *l, uint32_t below) {
    l->n = viz_idx_lower(l, below);
}

double viz_ev_t0(const SimEvent *e, int wall) {
    return wall ? e->wall_start : e->sim_start;
}

double viz_ev_t1(const SimEvent *e, int wall) {
    double t0 = wall ? e->wall_start : e->sim_start, t1 = wall ? e->wall_end : e->sim_end;
    return t1 > t0 ? t1 : t0;
}

int viz_is_coll_kind(int kind) {
    return kind == SIM_EV_COLL || kind == SIM_EV_COLL_STEP || kind == SIM_EV_XFER;
}

// World collectives: everything but point-to-point messages and the whole-
// call events of group collectives (those carry the group's name as label
// and seq 0, outside the world's sequence).
int viz_is_world_coll(const SimEvent *e) {
    if (!viz_is_coll_kind(e->kind))
        return 0;
    if (e->coll == SIM_COLL_SEND || e->coll == SIM_COLL_RECV || e->coll < 0 ||
        e->coll >= SIM_COLL_COUNT)
        return 0;
    return e->kind != SIM_EV_COLL || e->label == NULL;
}

VizPhase viz_op_phase(const char *name) {
    if (name == NULL)
        return VIZ_PHASE_IDLE;
    size_t n = strlen(name);
    if (n >= 4 && strcmp(name + n - 4, "_fwd") == 0)
        return VIZ_PHASE_FORWARD;
    if (n >= 4 && strcmp(name + n - 4, "_bwd") == 0)
        return VIZ_PHASE_BACKWARD;
    if ((n >= 5 && strcmp(name + n - 5, "_step") == 0) || strncmp(name, "sgd", 3) == 0 ||
        strncmp(name, "adam", 4) == 0 || strncmp(name, "optim", 5) == 0)
        return VIZ_PHASE_OPTIMIZER;
    return VIZ_PHASE_IDLE;
}

static int streq(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

VizPhase viz_marker_phase(const VizModel *m, int r, size_t i, int *known) {
    *known = 0;
    if (r < 0 || r >= m->nranks)
        return VIZ_PHASE_IDLE;
    const VizIdxList *l = &m->marks[r];
    size_t k = viz_idx_lower(l, (uint32_t)(i + 1 > UINT32_MAX ? UINT32_MAX : i + 1));
    if (k == 0)
        return VIZ_PHASE_IDLE;
    const SimEvent *e = &m->t->ev[l->v[k - 1]];
    if (!streq(e->name, "phase"))
        return VIZ_PHASE_IDLE; // an iteration marker: between phases
    *known = 1;
    if (streq(e->label, "forward"))
        return VIZ_PHASE_FORWARD;
    if (streq(e->label, "backward"))
        return VIZ_PHASE_BACKWARD;
    if (streq(e->label, "optimizer"))
        return VIZ_PHASE_OPTIMIZER;
    if (streq(e->label, "eval"))
        return VIZ_PHASE_EVAL;
    *known = 0;
    return VIZ_PHASE_IDLE;
}

const VizLane *viz_lane(const VizModel *m, int rank, int lane) {
    return &m->lane[(size_t)rank * VIZ_LANE_COUNT + (size_t)lane];
}

size_t viz_lane_last(const VizLane *l, size_t i) {
    uint32_t key = i + 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(i + 1);
    size_t k = viz_idx_lower(&l->ev, key);
    return k == 0 ? (size_t)-1 : k - 1;
}

static int span_cmp(const void *a, const void *b) {
    const VizSpan *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int viz_lane_wall(VizModel *m, int rank, int lane) {
    VizLane *l = &m->lane[(size_t)rank * VIZ_LANE_COUNT + (size_t)lane];
    if (l->wall_built == l->ev.n && (l->wall || l->ev.n == 0))
        return 0;
    size_t cap = l->wall_cap;
    if (viz_ensure((void **)&l->wall, &cap, l->ev.n, sizeof *l->wall) != 0)
        return -1;
    size_t cap2 = l->wall_cap;
    if (viz_ensure((void **)&l->wall_pmax, &cap2, l->ev.n, sizeof *l->wall_pmax) != 0)
        return -1;
    l->wall_cap = cap < cap2 ? cap : cap2;
    for (size_t k = 0; k < l->ev.n; k++) {
        const SimEvent *e = &m->t->ev[l->ev.v[k]];
        l->wall[k] = (VizSpan){viz_ev_t0(e, 1), viz_ev_t1(e, 1), l->ev.v[k]};
    }
    qsort(l->wall, l->ev.n, sizeof *l->wall, span_cmp);
    double mx = -INFINITY;
    for (size_t k = 0; k < l->ev.n; k++) {
        if (l->wall[k].t1 > mx)
            mx = l->wall[k].t1;
        l->wall_pmax[k] = mx;
    }
    l->nwall = l->ev.n;
    l->wall_built = l->ev.n;
    return 0;
}

int viz_lane_push(VizLane *l, uint32_t i, double end) {
    size_t cap = l->ev.cap;
    if (viz_idx_push(&l->ev, i) != 0)
        return -1;
    if (l->ev.cap != cap || l->pmax == NULL) {
        double *p = realloc(l->pmax, l->ev.cap * sizeof *p);
        if (p == NULL) {
            l->ev.n--;
            return -1;
        }
        l->pmax = p;
    }
    size_t k = l->ev.n - 1;
    l->pmax[k] = k > 0 && l->pmax[k - 1] > end ? l->pmax[k - 1] : end;
    return 0;
}

const VizCollRec *viz_coll_rec(const VizModel *m, uint64_t seq) {
    if (seq >= m->ncoll || m->coll[seq].first == VIZ_NONE)
        return NULL;
    return &m->coll[seq];
}

int viz_plan_at(const VizModel *m, uint32_t i) {
    int lo = 0, hi = m->nplans;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->plans[mid].begin < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nplans && m->plans[lo].begin == i ? lo : -1;
}

const VizPlan *viz_plan_for(const VizModel *m, const VizState *s) {
    if (s->plan >= 0 && s->plan < m->nplans)
        return &m->plans[s->plan];
    return m->nplans > 0 ? &m->plans[0] : NULL;
}

// ----------------------------------------------------------------------------
// iterations and plots

static const VizIdxList *iter_list(const VizModel *m) {
    return m->it_mark.n > 0 ? &m->it_mark : &m->it_coll;
}

int viz_model_iterations(const VizModel *m) {
    return (int)iter_list(m)->n;
}

size_t viz_model_iteration_start(const VizModel *m, int it) {
    const VizIdxList *l = iter_list(m);
    if (it < 0 || (size_t)it >= l->n)
        return SIZE_MAX;
    return l->v[it];
}

int viz_model_iteration_of(const VizModel *m, size_t i) {
    const VizIdxList *l = iter_list(m);
    uint32_t key = i + 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(i + 1);
    return (int)viz_idx_lower(l, key) - 1;
}

size_t viz_model_loss(const VizModel *m, const double **x, const double **y) {
    if (x)
        *x = m->loss_x;
    if (y)
        *y = m->loss_y;
    return m->nloss;
}

size_t viz_model_memory(const VizModel *m, int rank, const double **x, const double **y) {
    if (rank < 0 || rank >= m->nranks) {
        if (x)
            *x = NULL;
        if (y)
            *y = NULL;
        return 0;
    }
    if (x)
        *x = m->mem_x[rank];
    if (y)
        *y = m->mem_y[rank];
    return m->nmem[rank];
}

