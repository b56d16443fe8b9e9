// viz/scene_record.c: indexing one event, before the running state
// applies it: its lane, the collective table (span, the DDP bucket or FSDP
// unit behind a collective, the root of a rooted one), DDP plans (from the
// "plan-begin" / "plan" events, or made up from "ready" events in a trace
// without them), FSDP units, the jump lists, the iteration and loss
// markers, the memory plots.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "scene_internal.h"

static int streq(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

// ----------------------------------------------------------------------------
// records

// Sequence numbers count a rank's collectives from 0, each with an event in
// the trace, so none reaches the trace's length: a larger one is corrupt and
// not tracked (a 10 KB trace naming collective 2^24-1 asked for 1.7 GB).
static int seq_tracked(const VizModel *m, uint64_t seq) {
    return seq < VIZ_SEQ_MAX && seq < m->t->n;
}

static VizCollRec *coll_get(VizModel *m, uint64_t seq) {
    if (!seq_tracked(m, seq))
        return NULL;
    if (seq >= m->ncoll) {
        if (viz_ensure((void **)&m->coll, &m->coll_cap, (size_t)seq + 1, sizeof *m->coll) != 0)
            return NULL;
        for (size_t k = m->ncoll; k <= seq; k++) {
            memset(&m->coll[k], 0, sizeof m->coll[k]);
            m->coll[k].first = m->coll[k].first_coll = m->coll[k].last = VIZ_NONE;
            m->coll[k].bucket = m->coll[k].unit = m->coll[k].root = -1;
        }
        m->ncoll = (size_t)seq + 1;
    }
    return &m->coll[seq];
}

static VizPlan *plan_new(VizModel *m, uint32_t begin, int rank, int nparams, int nbuckets) {
    if (m->nplans == m->plans_cap) {
        int c = m->plans_cap ? 2 * m->plans_cap : 4;
        VizPlan *p = realloc(m->plans, (size_t)c * sizeof *p);
        if (p == NULL)
            return NULL;
        m->plans = p;
        m->plans_cap = c;
    }
    VizPlan *p = &m->plans[m->nplans];
    memset(p, 0, sizeof *p);
    p->begin = begin;
    p->rank = rank;
    nparams = nparams < 0 ? 0 : nparams;
    nbuckets = nbuckets < 0 ? 0 : nbuckets;
    p->params = calloc((size_t)nparams + 1, sizeof *p->params);
    p->bucket_first = calloc((size_t)nbuckets + 1, sizeof *p->bucket_first);
    p->bucket_n = calloc((size_t)nbuckets + 1, sizeof *p->bucket_n);
    p->bucket_bytes = calloc((size_t)nbuckets + 1, sizeof *p->bucket_bytes);
    if (!p->params || !p->bucket_first || !p->bucket_n || !p->bucket_bytes) {
        free(p->params), free(p->bucket_first), free(p->bucket_n), free(p->bucket_bytes);
        return NULL;
    }
    p->nparams = nparams;
    p->nbuckets = nbuckets;
    m->nplans++;
    return p;
}

void viz_plan_free(VizPlan *p) {
    for (int k = 0; k < p->filled; k++)
        free(p->params[k].owned);
    free(p->params);
    free(p->bucket_first);
    free(p->bucket_n);
    free(p->bucket_bytes);
}

// Recomputes a plan's buckets from its parameters (in bucket order). A
// made-up plan keeps the bucket sizes its events stated.
void viz_plan_buckets(VizPlan *p) {
    for (int b = 0; b < p->nbuckets; b++) {
        p->bucket_first[b] = p->bucket_n[b] = 0;
        if (!p->synthetic)
            p->bucket_bytes[b] = 0;
    }
    for (int k = p->filled - 1; k >= 0; k--) {
        int b = p->params[k].bucket;
        if (b < 0 || b >= p->nbuckets)
            continue;
        p->bucket_first[b] = k;
        p->bucket_n[b]++;
        if (!p->synthetic)
            p->bucket_bytes[b] += p->params[k].bytes;
    }
}

void viz_plan_truncate(VizPlan *p, uint32_t cut) {
    int n = 0;
    for (int k = 0; k < p->filled; k++) {
        if (p->params[k].ev >= cut) {
            free(p->params[k].owned);
            continue;
        }
        p->params[n++] = p->params[k];
    }
    p->filled = n;
    if (p->synthetic)
        p->nparams = n;
    viz_plan_buckets(p);
}

// A "plan" event of the plan's rank: the next parameter in bucket order.
static int plan_add(VizPlan *p, const SimEvent *e, uint32_t i) {
    if (p->filled >= p->nparams)
        return 0;
    VizPlanParam *q = &p->params[p->filled];
    q->name = e->name;
    q->index = e->chunk;
    q->bucket = e->step;
    q->bytes = e->bytes;
    q->numel = e->count;
    q->ev = i;
    q->owned = NULL;
    p->filled++;
    if (e->step >= p->nbuckets)
        return 0; // outside the announced buckets: listed, not bucketed
    viz_plan_buckets(p);
    return 0;
}

// Without plan events (an older trace): a plan made of what "ready" events
// show, parameters grouped by bucket in order of first appearance. A
// parameter that turns up in another bucket starts a new plan (DDP rebuilt
// its buckets).
static int plan_synth_add(VizModel *m, const SimEvent *e, uint32_t i) {
    if (e->chunk < 0 || e->step < 0 || e->step > 65535)
        return 0;
    VizPlan *p = m->synth_plan >= 0 ? &m->plans[m->synth_plan] : NULL;
    for (int k = 0; p && k < p->filled; k++)
        if (p->params[k].index == e->chunk) {
            if (p->params[k].bucket == e->step)
                return 0;
            p = NULL; // rebuilt
            break;
        }
    if (p == NULL) {
        p = plan_new(m, i, e->rank, 0, 0);
        if (p == NULL)
            return -1;
        p->synthetic = 1;
        m->synth_plan = m->nplans - 1;
    }
    if (e->step >= p->nbuckets) {
        int nb = e->step + 1;
        int *f = realloc(p->bucket_first, (size_t)nb * sizeof *f);
        if (f)
            p->bucket_first = f;
        int *c = realloc(p->bucket_n, (size_t)nb * sizeof *c);
        if (c)
            p->bucket_n = c;
        uint64_t *by = realloc(p->bucket_bytes, (size_t)nb * sizeof *by);
        if (by)
            p->bucket_bytes = by;
        if (!f || !c || !by)
            return -1;
        for (int b = p->nbuckets; b < nb; b++)
            p->bucket_bytes[b] = 0;
        p->nbuckets = nb;
    }
    VizPlanParam *q = realloc(p->params, (size_t)(p->filled + 1) * sizeof *q);
    if (q == NULL)
        return -1;
    p->params = q;
    char *name = malloc(24);
    if (name == NULL)
        return -1;
    snprintf(name, 24, "param %d", e->chunk);
    // insert after the last parameter of a bucket <= this one
    int at = p->filled;
    while (at > 0 && p->params[at - 1].bucket > e->step)
        at--;
    memmove(&p->params[at + 1], &p->params[at], (size_t)(p->filled - at) * sizeof *q);
    p->params[at] = (VizPlanParam){name, e->chunk, e->step, 0, 0, i, name};
    p->filled++;
    p->nparams = p->filled;
    p->bucket_bytes[e->step] = e->bytes; // a ready event states its bucket's size
    viz_plan_buckets(p);
    return 0;
}

static int unit_touch(VizModel *m, int u, int nunits) {
    if (u < 0 || u >= 1 << 20) // before u + 1: a loaded trace's unit is any int32
        return -1;
    int need = u + 1 > nunits ? u + 1 : nunits;
    if (need > 1 << 20)
        return -1;
    // A real trace announces each unit with an event, and every rank
    // gathers and frees it: more units than events, or a unit x rank grid
    // far larger than the trace, come from a damaged file, whose grid
    // would cost every scene that much to copy.
    size_t cells = (size_t)need * (size_t)(m->t->nranks > 0 ? m->t->nranks : 1);
    if ((size_t)need > m->t->n || cells > 4 * m->t->n + 4096)
        return -1;
    if (need > m->units_cap) {
        int c = m->units_cap ? m->units_cap : 8;
        while (c < need)
            c *= 2;
        VizUnitInfo *p = realloc(m->units, (size_t)c * sizeof *p);
        if (p == NULL)
            return -1;
        m->units = p;
        m->units_cap = c;
    }
    for (int k = m->nunits; k < need; k++)
        memset(&m->units[k], 0, sizeof m->units[k]);
    if (need > m->nunits)
        m->nunits = need;
    return 0;
}

// ----------------------------------------------------------------------------
// indexing one event (before the running state applies it)

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

uint64_t viz_event_sig(const SimEvent *e) {
    uint64_t a, b;
    memcpy(&a, &e->sim_start, sizeof a);
    memcpy(&b, &e->wall_start, sizeof b);
    uint64_t h = mix(a, b);
    h = mix(h, (uint64_t)(uint32_t)e->rank << 32 | (uint64_t)(uint16_t)e->kind << 16 |
                   (uint16_t)e->stream);
    h = mix(h, e->seq);
    h = mix(h, e->bytes);
    h = mix(h, (uint64_t)(uint32_t)e->step << 32 | (uint32_t)e->chunk);
    return h;
}

static int index_coll(VizModel *m, const SimEvent *e, uint32_t i) {
    VizCollRec *c = coll_get(m, e->seq);
    if (c == NULL)
        return seq_tracked(m, e->seq) ? -1 : 0;
    double t0 = viz_ev_t0(e, 0), t1 = viz_ev_t1(e, 0);
    double w0 = viz_ev_t0(e, 1), w1 = viz_ev_t1(e, 1);
    if (c->first == VIZ_NONE) {
        c->first = i;
        c->coll = e->coll;
        c->algo = e->algo;
        c->redop = e->redop;
        c->dtype = e->dtype;
        c->name = e->name;
        c->t0 = t0, c->t1 = t1, c->w0 = w0, c->w1 = w1;
        if (e->coll == SIM_COLL_ALL_REDUCE && (e->algo == SIM_ALGO_TREE || e->algo == SIM_ALGO_NAIVE))
            c->root = 0;
        if (viz_idx_push(&m->it_coll, i) != 0)
            return -1;
    }
    c->last = i;
    if (t0 < c->t0)
        c->t0 = t0;
    if (t1 > c->t1)
        c->t1 = t1;
    if (w0 < c->w0)
        c->w0 = w0;
    if (w1 > c->w1)
        c->w1 = w1;
    if (e->kind != SIM_EV_XFER)
        c->count = e->count;
    if (e->nsteps > c->nsteps)
        c->nsteps = e->nsteps;
    if (e->kind == SIM_EV_COLL) {
        c->bytes = e->bytes;
        if (c->first_coll == VIZ_NONE) {
            c->first_coll = i;
            if (viz_idx_push(&m->jump[VIZ_JUMP_COLL], i) != 0)
                return -1;
        }
    }
    if (e->kind == SIM_EV_XFER) {
        c->has_xfers = 1;
        if (c->root < 0 && e->step == 0 &&
            (e->coll == SIM_COLL_BROADCAST || e->coll == SIM_COLL_SCATTER))
            c->root = e->src;
        if (c->root < 0 && e->nsteps > 0 && e->step == e->nsteps - 1 &&
            (e->coll == SIM_COLL_REDUCE || e->coll == SIM_COLL_GATHER))
            c->root = e->dst;
    }
    // FSDP: the rank's first event of this collective, right after its
    // gather or reduce was issued, names the unit.
    if (e->rank >= 0 && e->rank < m->nranks) {
        const VizRankState *rs = &m->cur.rank[e->rank];
        if (rs->last_seq != e->seq + 1 && rs->pending_unit >= 0) {
            int red = e->coll == SIM_COLL_REDUCE_SCATTER || e->coll == SIM_COLL_ALL_REDUCE;
            int gat = e->coll == SIM_COLL_ALL_GATHER;
            if ((rs->pending_reduce && red) || (!rs->pending_reduce && gat))
                c->unit = rs->pending_unit;
        }
    }
    return 0;
}

// Three parallel arrays of one capacity (a plot's x, y and event index).
static int ensure3(double **x, double **y, uint32_t **ix, size_t *cap, size_t need) {
    if (need <= *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    while (c < need)
        c *= 2;
    double *nx = realloc(*x, c * sizeof *nx);
    if (nx == NULL)
        return -1;
    *x = nx;
    double *ny = realloc(*y, c * sizeof *ny);
    if (ny == NULL)
        return -1;
    *y = ny;
    uint32_t *ni = realloc(*ix, c * sizeof *ni);
    if (ni == NULL)
        return -1;
    *ix = ni;
    *cap = c;
    return 0;
}

static int index_marker(VizModel *m, const SimEvent *e, uint32_t i, int r) {
    const VizState *s = &m->cur;
    if (streq(e->name, "iteration") || streq(e->name, "phase")) {
        if (r >= 0 && viz_idx_push(&m->marks[r], i) != 0)
            return -1;
        if (streq(e->name, "phase"))
            return r == 0 ? viz_idx_push(&m->phase_mark, i) : 0;
        if (streq(e->label, "begin") && (!s->has_it_step || e->step > s->it_max_step))
            return viz_idx_push(&m->it_mark, i);
        if (streq(e->label, "end") && (!s->has_loss_step || e->step > s->loss_max_step)) {
            if (ensure3(&m->loss_x, &m->loss_y, &m->loss_i, &m->loss_cap, m->nloss + 1) != 0)
                return -1;
            size_t c = m->nloss;
            m->loss_x[c] = (double)e->step;
            m->loss_y[c] = e->value;
            m->loss_i[c] = i;
            m->nloss++;
        }
        return 0;
    }
    if (e->name && strncmp(e->name, "dp.", 3) == 0)
        m->has_dp = 1;
    return viz_idx_push(&m->jump[VIZ_JUMP_MARKER], i);
}

static int index_memory(VizModel *m, const SimEvent *e, uint32_t i, int r) {
    if (r < 0 || e->mem_space != SIM_MEM_DEVICE || streq(e->label, "peak-reset"))
        return 0;
    const VizRankState *rs = &m->cur.rank[r];
    int freeing = streq(e->label ? e->label : e->name, "free");
    // in double: a loaded trace's bytes are any uint64 (exact below 2^53)
    if (!freeing && e->mem_cat != SIM_MEM_BACKING &&
        (double)rs->total + (double)e->bytes > (double)rs->peak &&
        viz_idx_push(&m->jump[VIZ_JUMP_MEMORY_PEAK], i) != 0)
        return -1;
    size_t n = m->nmem[r];
    if (ensure3(&m->mem_x[r], &m->mem_y[r], &m->mem_i[r], &m->mem_cap[r], n + 1) != 0)
        return -1;
    m->mem_x[r][n] = e->sim_start;
    m->mem_y[r][n] = (double)e->count;
    m->mem_i[r][n] = i;
    m->nmem[r] = n + 1;
    return 0;
}

static int index_bucket(VizModel *m, const SimEvent *e, uint32_t i, int r) {
    const char *l = e->label;
    if (streq(l, "launch")) {
        VizCollRec *c = coll_get(m, e->seq);
        if (c)
            c->bucket = e->step;
        return viz_idx_push(&m->jump[VIZ_JUMP_BUCKET_LAUNCH], i);
    }
    if (streq(l, "done"))
        return viz_idx_push(&m->jump[VIZ_JUMP_BUCKET_DONE], i);
    if (streq(l, "plan-begin")) {
        if (m->plan_rank < 0)
            m->plan_rank = r;
        if (r != m->plan_rank)
            return 0;
        int np = e->count > 1 << 24 ? 1 << 24 : (int)e->count;
        int nb = e->nsteps > 1 << 20 ? 1 << 20 : e->nsteps;
        return plan_new(m, i, r, np, nb) ? 0 : -1;
    }
    if (streq(l, "plan")) {
        if (r != m->plan_rank || m->nplans == 0)
            return 0;
        VizPlan *p = &m->plans[m->nplans - 1];
        return p->synthetic ? 0 : plan_add(p, e, i);
    }
    if (streq(l, "ready") && m->plan_rank < 0)
        return plan_synth_add(m, e, i);
    return 0;
}

// FSDP2's parameter of a unit, once (rank 0's announcement).
static int push_pshard(VizModel *m, const SimEvent *e) {
    if (m->npshards >= 1 << 20 || (size_t)m->npshards >= m->t->n)
        return 0; // more parameters than events: a damaged file, the rest ignored
    if (m->npshards == m->pshards_cap) {
        int c = m->pshards_cap ? 2 * m->pshards_cap : 16;
        VizParamShard *p = realloc(m->pshards, (size_t)c * sizeof *p);
        if (p == NULL)
            return -1;
        m->pshards = p;
        m->pshards_cap = c;
    }
    VizParamShard *p = &m->pshards[m->npshards++];
    p->name = e->name;
    p->unit = e->step;
    p->rows = e->count;
    p->bytes = e->bytes;
    p->rows_per_rank = e->src > 0 ? e->src : 0;
    return 0;
}

static int index_shard(VizModel *m, const SimEvent *e, uint32_t i, int r) {
    m->has_shards = 1;
    if (streq(e->label, "plan-param"))
        return r == 0 && e->step >= 0 && e->step < 1 << 20 && push_pshard(m, e) != 0 ? -1 : 0;
    if (unit_touch(m, e->step, e->nsteps) == 0) {
        VizUnitInfo *u = &m->units[e->step];
        if (u->bytes == 0)
            u->bytes = e->bytes;
        if (streq(e->label, "plan")) {
            if (u->name == NULL)
                u->name = e->name;
            u->numel = e->count;
            u->bytes = e->bytes;
            if (e->src > 0)
                m->shard_group = e->src;
        } else if (u->numel == 0) {
            u->numel = e->count;
        }
    }
    if (e->chunk >= 0 && e->chunk < 1 << 20 && e->chunk + 1 > m->shard_chunks)
        m->shard_chunks = e->chunk + 1;
    if (r != 0)
        return 0;
    if (streq(e->label, "gather"))
        return viz_idx_push(&m->jump[VIZ_JUMP_GATHER], i);
    if (streq(e->label, "free"))
        return viz_idx_push(&m->jump[VIZ_JUMP_FREE], i);
    if (streq(e->label, "reduce"))
        return viz_idx_push(&m->jump[VIZ_JUMP_REDUCE], i);
    return 0;
}

int viz_index_event(VizModel *m, uint32_t i) {
    const SimEvent *e = &m->t->ev[i];
    int r = e->rank >= 0 && e->rank < m->nranks ? e->rank : -1;
    double t0 = viz_ev_t0(e, 0), t1 = viz_ev_t1(e, 0);
    double w0 = viz_ev_t0(e, 1), w1 = viz_ev_t1(e, 1);
    if (t0 < m->t_min)
        m->t_min = t0;
    if (t1 > m->t_max)
        m->t_max = t1;
    if (w0 < m->w_min)
        m->w_min = w0;
    if (w1 > m->w_max)
        m->w_max = w1;
    switch (e->kind) {
    case SIM_EV_COMPUTE: {
        if (r < 0)
            return 0;
        int lane = e->stream == SIM_STREAM_HOST   ? VIZ_LANE_HOST
                   : e->stream == SIM_STREAM_COMM ? VIZ_LANE_COMM
                                                  : VIZ_LANE_COMPUTE;
        if (viz_lane_push(&m->lane[(size_t)r * VIZ_LANE_COUNT + (size_t)lane], i, t1) != 0)
            return -1;
        if (r == 0 && lane == VIZ_LANE_COMPUTE) {
            VizPhase ph = viz_op_phase(e->name);
            if (ph != VIZ_PHASE_IDLE && (int)ph != m->cur.rank[0].phase0 &&
                viz_idx_push(&m->phase_ops, i) != 0)
                return -1;
        }
        return 0;
    }
    case SIM_EV_COLL:
    case SIM_EV_COLL_STEP:
    case SIM_EV_XFER:
        if (e->kind == SIM_EV_COLL && r >= 0 &&
            viz_lane_push(&m->lane[(size_t)r * VIZ_LANE_COUNT + VIZ_LANE_COMM], i, t1) != 0)
            return -1;
        if (e->kind == SIM_EV_COLL_STEP && r == 0 &&
            viz_idx_push(&m->jump[VIZ_JUMP_COLL_STEP], i) != 0)
            return -1;
        if (viz_is_world_coll(e))
            return index_coll(m, e, i);
        if (e->kind == SIM_EV_COLL && r == 0)
            return viz_idx_push(&m->jump[VIZ_JUMP_COLL], i);
        return 0;
    case SIM_EV_MARKER:
        return index_marker(m, e, i, r);
    case SIM_EV_FAULT:
        return viz_idx_push(&m->jump[VIZ_JUMP_FAULT], i);
    case SIM_EV_MEMORY:
        return index_memory(m, e, i, r);
    case SIM_EV_BUCKET:
        return r < 0 ? 0 : index_bucket(m, e, i, r);
    case SIM_EV_SHARD:
        return index_shard(m, e, i, r);
    default:
        return 0;
    }
}

