// viz/scene.c: viz_scene_at: the running state at event i (the keyframe
// at or before it plus at most one keyframe interval of replay, or the
// previous scene's state when the cursor moved forward a little), turned
// into the plain data the views draw, with what the lanes say about each
// rank at that moment.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

static const char *const phase_names[VIZ_PHASE_COUNT] = {
    "idle", "forward", "backward", "optimizer", "eval", "comm", "waiting"};
static const char *const bucket_names[VIZ_BUCKET_STATE_COUNT] = {
    "empty", "filling", "waiting", "reducing", "done"};
static const char *const shard_names[VIZ_SHARD_STATE_COUNT] = {
    "sharded", "gathering", "gathered", "reducing", "reduced"};

const char *viz_phase_name(VizPhase p) {
    return p >= 0 && p < VIZ_PHASE_COUNT ? phase_names[p] : "?";
}

const char *viz_bucket_state_name(VizBucketState s) {
    return s >= 0 && s < VIZ_BUCKET_STATE_COUNT ? bucket_names[s] : "?";
}

const char *viz_shard_state_name(VizShardState s) {
    return s >= 0 && s < VIZ_SHARD_STATE_COUNT ? shard_names[s] : "?";
}

const char *viz_shards_whole(const VizScene *s) {
    if (s->info && strcmp(s->info->strategy, "fsdp2") == 0)
        return "each parameter's rows (dim 0) in ";
    return "each unit's flat parameter in ";
}

int viz_shards_unit(const VizShards *sh, int col) {
    return sh->per_param && sh->units && sh->units[col].unit >= 0 ? sh->units[col].unit : col;
}

int viz_shards_is_current(const VizShards *sh, int col) {
    return sh->current >= 0 && viz_shards_unit(sh, col) == viz_shards_unit(sh, sh->current);
}

VizSceneOpts viz_scene_opts_default(void) {
    VizSceneOpts o;
    memset(&o, 0, sizeof o);
    return o;
}

// The scene with the capacities of its arrays (the public struct has none).
typedef struct {
    VizScene s; // first: a VizScene * is a SceneBox *
    int ranks_cap, params_cap, buckets_cap, units_cap;
    size_t shard_cap, held_cap, tl_cap, scratch_cap;
    double *scratch;
} SceneBox;

VizScene *viz_scene_new(const VizModel *m) {
    SceneBox *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    int R = m ? m->nranks : 1;
    b->s.ranks = calloc((size_t)R, sizeof *b->s.ranks);
    if (b->s.ranks == NULL) {
        free(b);
        return NULL;
    }
    b->ranks_cap = R;
    b->s.loss = NAN;
    b->s.coll.step = b->s.coll.root = b->s.coll.bucket = b->s.coll.unit = -1;
    b->s.shards.current = -1;
    b->s.timeline.cursor_col = -1;
    b->s.plan_iteration = -1;
    return &b->s;
}

void viz_scene_free(VizScene *s) {
    if (s == NULL)
        return;
    SceneBox *b = (SceneBox *)s;
    free(s->ranks);
    free(s->params);
    free(s->buckets);
    free(s->coll.held);
    free(s->coll.nheld);
    free(s->shards.units);
    free(s->shards.state);
    free(s->timeline.compute);
    free(s->timeline.comm);
    free(b->scratch);
    free(b);
}

static int grow(void **p, int *cap, int need, size_t size) {
    if (need <= *cap)
        return 0;
    void *q = realloc(*p, (size_t)need * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = need;
    return 0;
}

// ----------------------------------------------------------------------------
// ranks

static void rank_box(const VizModel *m, const VizState *st, int r, size_t i, double now, int wall,
                     VizRankBox *b) {
    const VizRankState *rs = &st->rank[r];
    memset(b, 0, sizeof *b);
    memcpy(b->mem, rs->mem, sizeof b->mem);
    b->mem[SIM_MEM_BACKING] = 0;
    b->mem_total = rs->total;
    b->mem_peak = rs->peak;
    b->host_total = rs->host_total;
    b->clock = rs->clock;
    const SimEvent *ev = m->t->ev;
    const VizLane *lc = viz_lane(m, r, VIZ_LANE_COMPUTE), *lm = viz_lane(m, r, VIZ_LANE_COMM);
    size_t pc = viz_lane_last(lc, i), pm = viz_lane_last(lm, i);
    int running = 0, just_ended = 0;
    if (pc != (size_t)-1) {
        const SimEvent *ce = &ev[lc->ev.v[pc]];
        b->op = ce->name;
        double a = viz_ev_t0(ce, wall), z = viz_ev_t1(ce, wall);
        running = a <= now && now < z;
        just_ended = z == now; // between two ops, or the op took no time
    }
    double comm_end = 0;
    if (pm != (size_t)-1) {
        const SimEvent *me = &ev[lm->ev.v[pm]];
        if (viz_ev_t1(me, wall) > now) {
            b->coll = me->name;
            comm_end = viz_ev_t1(me, wall);
        }
    }
    // At this rank's bucket launch its all_reduce is in flight, though the
    // trace lists the collective's own event just after the launch.
    const SimEvent *e = &ev[i];
    if (b->coll == NULL && e->rank == r && e->kind == SIM_EV_BUCKET &&
        e->label && strcmp(e->label, "launch") == 0 && pm + 1 < lm->ev.n) {
        const SimEvent *me = &ev[lm->ev.v[pm + 1]];
        if (viz_ev_t0(me, wall) <= now && viz_ev_t1(me, wall) > now) {
            b->coll = me->name;
            comm_end = viz_ev_t1(me, wall);
        }
    }
    // between two back-to-back ops the rank computes on
    int resumes = pc != (size_t)-1 && pc + 1 < lc->ev.n &&
                  viz_ev_t0(&ev[lc->ev.v[pc + 1]], wall) <= now;
    if (running || (just_ended && (b->coll == NULL || resumes))) {
        int known;
        VizPhase ph = viz_marker_phase(m, r, i, &known);
        b->phase = known ? ph : viz_op_phase(b->op);
    } else if (b->coll) {
        // waiting when compute resumes only once the collective is over
        b->phase = VIZ_PHASE_WAIT;
        if (pc + 1 < lc->ev.n && viz_ev_t0(&ev[lc->ev.v[pc + 1]], wall) < comm_end)
            b->phase = VIZ_PHASE_COMM;
    } else {
        b->phase = VIZ_PHASE_IDLE;
    }
}

// ----------------------------------------------------------------------------
// DDP buckets

static int ready_at(const VizState *st, int index, int r) {
    if (index < 0 || index >= st->ready_cap)
        return 0;
    return st->ready[(size_t)index * (size_t)st->nranks + (size_t)r];
}

static VizBucketState bucket_on(const VizState *st, const VizPlan *p, int b, int r, int *nready) {
    int ph = b < st->nb_cap ? st->bphase[(size_t)b * (size_t)st->nranks + (size_t)r] : 0;
    int k = 0, n = b < p->nbuckets ? p->bucket_n[b] : 0;
    for (int q = 0; q < n; q++)
        k += ready_at(st, p->params[p->bucket_first[b] + q].index, r);
    *nready = k;
    if (ph == 2)
        return VIZ_BUCKET_DONE;
    if (ph == 1)
        return VIZ_BUCKET_REDUCING;
    if (k > 0 && k == n && !p->synthetic)
        return VIZ_BUCKET_WAITING;
    return k > 0 ? VIZ_BUCKET_FILLING : VIZ_BUCKET_EMPTY;
}

static double coll_progress(const VizModel *m, uint64_t seq1, double now, int wall) {
    if (seq1 == 0)
        return 0;
    const VizCollRec *c = viz_coll_rec(m, seq1 - 1);
    if (c == NULL)
        return 0;
    double t0 = wall ? c->w0 : c->t0, t1 = wall ? c->w1 : c->t1;
    if (now >= t1)
        return 1;
    return t1 > t0 && now > t0 ? (now - t0) / (t1 - t0) : 0;
}

// How far a rank is with a bucket: its state, then its ready gradients.
static int bucket_ahead(VizBucketState x, int xr, VizBucketState y, int yr) {
    return x != y ? x > y : xr > yr;
}

// Rank r's state of bucket b when r is elsewhere than the view rank with it
// (another state or count) in the same iteration; -1 otherwise (a rank yet
// to begin the view rank's iteration still holds the last one's buckets).
static int bucket_elsewhere(const VizState *st, const VizPlan *p, int b, int view,
                            const VizBucket *v, int r, int *nr) {
    if (r == view || st->rank[r].iter != st->rank[view].iter)
        return -1;
    VizBucketState x = bucket_on(st, p, b, r, nr);
    return x == v->state && *nr == v->nready ? -1 : (int)x;
}

// v's state on rank `view`, and the ranks that are elsewhere with it.
static void bucket_ranks(const VizState *st, const VizPlan *p, int b, int view, VizBucket *v) {
    v->state = bucket_on(st, p, b, view, &v->nready);
    v->ndiffer = v->other_n = v->behind = 0;
    v->other_lo = v->other_hi = -1;
    int lo = -1, hi = -1, lo_n = 0, hi_n = 0, nr, x;
    VizBucketState lo_s = v->state, hi_s = v->state;
    for (int r = 0; r < st->nranks; r++) {
        if ((x = bucket_elsewhere(st, p, b, view, v, r, &nr)) < 0)
            continue;
        v->ndiffer++;
        if (lo < 0 || bucket_ahead(lo_s, lo_n, (VizBucketState)x, nr))
            lo = r, lo_s = (VizBucketState)x, lo_n = nr;
        if (hi < 0 || bucket_ahead((VizBucketState)x, nr, hi_s, hi_n))
            hi = r, hi_s = (VizBucketState)x, hi_n = nr;
    }
    if (v->ndiffer == 0)
        return;
    // a rank behind matters more (everyone waits for it) than one ahead
    v->behind = bucket_ahead(v->state, v->nready, lo_s, lo_n);
    v->other_state = v->behind ? lo_s : hi_s;
    v->other_ready = v->behind ? lo_n : hi_n;
    for (int r = 0; r < st->nranks; r++) {
        if ((x = bucket_elsewhere(st, p, b, view, v, r, &nr)) != (int)v->other_state ||
            nr != v->other_ready)
            continue;
        if (v->other_lo < 0)
            v->other_lo = r;
        v->other_hi = r;
        v->other_n++;
    }
}

// The order of p's parameters: definition order, buckets in reverse
// definition order, or neither.
static VizPlanOrder plan_order(const VizPlan *p) {
    int up = 1, buckets_down = 1;
    for (int k = 1; k < p->filled; k++) {
        const VizPlanParam *a = &p->params[k - 1], *b = &p->params[k];
        if (b->index < a->index)
            up = 0;
        // inside a bucket rising, and each bucket below the one before
        if (a->bucket == b->bucket ? b->index < a->index : b->index > a->index)
            buckets_down = 0;
    }
    if (up)
        return VIZ_ORDER_PARAMS;
    return buckets_down ? VIZ_ORDER_REVERSED : VIZ_ORDER_OTHER;
}

// What kind of plan p is, in what order, made in which iteration.
static void scene_plan(const VizModel *m, const VizPlan *p, VizScene *s) {
    int earlier = 0;
    for (int k = 0; k < m->nplans && &m->plans[k] != p; k++)
        earlier |= !m->plans[k].synthetic;
    s->plan_kind = p->synthetic ? VIZ_PLAN_INFERRED : earlier ? VIZ_PLAN_REBUILT : VIZ_PLAN_INITIAL;
    s->plan_order = s->plan_kind == VIZ_PLAN_INITIAL ? plan_order(p) : VIZ_ORDER_READY;
    s->plan_iteration = viz_model_iteration_of(m, p->begin);
}

static int scene_buckets(const VizModel *m, const VizState *st, double now, int wall, int view,
                         SceneBox *box) {
    VizScene *s = &box->s;
    const VizPlan *p = viz_plan_for(m, st);
    s->nparams = s->nbuckets = 0;
    s->bucket_rank = view;
    if (p == NULL)
        return 0;
    if (grow((void **)&s->params, &box->params_cap, p->filled, sizeof *s->params) != 0 ||
        grow((void **)&s->buckets, &box->buckets_cap, p->nbuckets, sizeof *s->buckets) != 0)
        return -1;
    int R = st->nranks;
    for (int k = 0; k < p->filled; k++) {
        const VizPlanParam *q = &p->params[k];
        VizParam *v = &s->params[k];
        v->name = q->name;
        v->bucket = q->bucket;
        v->bytes = q->bytes;
        v->ready = 0;
        for (int r = 0; r < R; r++)
            v->ready += ready_at(st, q->index, r);
    }
    for (int b = 0; b < p->nbuckets; b++) {
        VizBucket *v = &s->buckets[b];
        memset(v, 0, sizeof *v);
        v->first = p->bucket_first[b];
        v->nparams = p->bucket_n[b];
        v->bytes = p->bucket_bytes[b];
        bucket_ranks(st, p, b, view, v);
        if (v->state == VIZ_BUCKET_DONE)
            v->progress = 1;
        else if (v->state == VIZ_BUCKET_REDUCING && b < st->nb_cap)
            v->progress = coll_progress(m, st->bseq[b], now, wall);
    }
    s->nparams = p->filled;
    s->nbuckets = p->nbuckets;
    scene_plan(m, p, s);
    return 0;
}

// ----------------------------------------------------------------------------
// FSDP shards

// A column of the ownership grid: unit u as a whole (FSDP1, ZeRO), or, for
// FSDP2, its parameter j with the unit's state.
static void shard_column(const VizModel *m, const VizState *st, VizShards *sh, int col, int u,
                         const VizParamShard *ps, int R) {
    VizUnit *c = &sh->units[col];
    c->name = ps ? ps->name : m->units[u].name;
    c->bytes = ps ? ps->bytes : m->units[u].bytes;
    c->numel = ps ? ps->rows : m->units[u].numel;
    c->unit = ps ? u : -1;
    c->held = 0;
    if (ps && ps->rows_per_rank > 0)
        c->held = (int)((ps->rows + (uint64_t)ps->rows_per_rank - 1) / (uint64_t)ps->rows_per_rank);
    for (int r = 0; r < R; r++)
        sh->state[(size_t)col * (size_t)R + (size_t)r] =
            u < st->nu_cap ? st->shard[(size_t)u * (size_t)R + (size_t)r]
                           : (uint8_t)VIZ_SHARD_SHARDED;
}

// The first column of unit u (FSDP2: its first parameter's), -1 when none.
static int unit_column(const VizShards *sh, int u) {
    if (!sh->per_param)
        return u < sh->nunits ? u : -1;
    for (int k = 0; k < sh->nunits; k++)
        if (sh->units[k].unit == u)
            return k;
    return -1;
}

static int scene_shards(const VizModel *m, const VizState *st, size_t i, SceneBox *box) {
    VizShards *sh = &box->s.shards;
    sh->nunits = 0;
    sh->current = -1;
    if (!m->has_shards || m->nunits == 0)
        return 0;
    int R = st->nranks, U = m->nunits;
    // FSDP2, every parameter announced in a known unit: a column per parameter
    int per_param = m->npshards > 0;
    for (int k = 0; k < m->npshards; k++)
        per_param &= m->pshards[k].unit >= 0 && m->pshards[k].unit < U;
    int ncol = per_param ? m->npshards : U;
    if (grow((void **)&sh->units, &box->units_cap, ncol, sizeof *sh->units) != 0)
        return -1;
    size_t cells = (size_t)ncol * (size_t)R;
    if (cells > box->shard_cap) {
        uint8_t *p = realloc(sh->state, cells);
        if (p == NULL)
            return -1;
        sh->state = p;
        box->shard_cap = cells;
    }
    for (int c = 0; c < ncol; c++) {
        const VizParamShard *ps = per_param ? &m->pshards[c] : NULL;
        shard_column(m, st, sh, c, ps ? ps->unit : c, ps, R);
    }
    sh->nunits = ncol;
    sh->per_param = per_param;
    sh->group = m->shard_group > 0 ? m->shard_group : m->shard_chunks > 0 ? m->shard_chunks : R;
    const SimEvent *e = &m->t->ev[i];
    if (e->kind == SIM_EV_SHARD && e->step >= 0 && e->step < U) {
        sh->current = unit_column(sh, e->step);
    } else if (viz_is_world_coll(e)) {
        const VizCollRec *c = viz_coll_rec(m, e->seq);
        if (c && c->unit >= 0 && c->unit < U)
            sh->current = unit_column(sh, c->unit);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// the scene

// The running state after event i, in m->work.
static int state_at(VizModel *m, size_t i) {
    VizState *w = &m->work;
    size_t k = i / VIZ_KEYFRAME_EVERY;
    if (k >= m->nkey)
        return -1;
    size_t key_next = k * VIZ_KEYFRAME_EVERY;
    if (!(m->work_valid && w->nranks == m->nranks && w->next <= i + 1 && w->next >= key_next)) {
        m->work_valid = 0;
        if (w->rank == NULL && viz_state_init(w, m->nranks) != 0)
            return -1;
        if (viz_state_copy(w, &m->key[k]) != 0)
            return -1;
    }
    for (size_t j = w->next; j <= i; j++)
        if (viz_state_apply(m, w, j) != 0)
            return -1;
    m->work_valid = 1;
    return 0;
}

SimStatus viz_scene_at(VizModel *m, size_t i, const VizSceneOpts *o, VizScene *s) {
    if (m == NULL || s == NULL || i >= m->n)
        return SIM_EINVAL;
    VizSceneOpts def = viz_scene_opts_default();
    if (o == NULL)
        o = &def;
    SceneBox *box = (SceneBox *)s;
    if (state_at(m, i) != 0) {
        m->work_valid = 0;
        return SIM_ENOMEM;
    }
    const VizState *st = &m->work;
    const SimEvent *e = &m->t->ev[i];
    int wall = o->use_wall != 0;
    double now = viz_ev_t0(e, wall);
    s->index = i;
    s->count = m->n;
    s->iteration = viz_model_iteration_of(m, i);
    s->iterations = viz_model_iterations(m);
    s->now = now;
    s->nranks = m->nranks;
    s->info = &m->t->info;
    s->event = e;
    s->loss = st->loss;
    viz_caption(m, i, s->caption, sizeof s->caption);
    s->detail = viz_detail(m, i);
    if (grow((void **)&s->ranks, &box->ranks_cap, m->nranks, sizeof *s->ranks) != 0)
        return SIM_ENOMEM;
    for (int r = 0; r < m->nranks; r++)
        rank_box(m, st, r, i, now, wall, &s->ranks[r]);
    int view = o->selected_rank >= 0 && o->selected_rank < m->nranks ? o->selected_rank : 0;
    if (scene_buckets(m, st, now, wall, view, box) != 0 ||
        viz_scene_coll(m, st, i, now, wall, s, &box->held_cap) != 0 ||
        scene_shards(m, st, i, box) != 0)
        return SIM_ENOMEM;
    s->hub.active = m->has_dp || strcmp(m->t->info.strategy, "dp") == 0;
    s->hub.step = st->hub_step;
    if (viz_scene_timeline(m, i, now, o, s, &box->tl_cap, &box->scratch, &box->scratch_cap) != 0)
        return SIM_ENOMEM;
    return SIM_OK;
}
