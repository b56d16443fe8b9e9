// viz/scene_state.c: the running state, folded event by event: each rank's
// memory by category and its peak, DDP gradient readiness and bucket phases
// per rank, FSDP shard states per unit and rank, the collective last seen
// (its contribution bitmasks live in scene_coll.c), the loss and the
// DataParallel hub. Keyframes are copies of it.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

int viz_state_init(VizState *s, int nranks) {
    memset(s, 0, sizeof *s);
    s->nranks = nranks;
    s->rank = calloc((size_t)nranks, sizeof *s->rank);
    if (s->rank == NULL)
        return -1;
    for (int r = 0; r < nranks; r++)
        s->rank[r].pending_unit = -1;
    s->plan = -1;
    s->coll_ev = VIZ_NONE;
    s->cw_step_ev = VIZ_NONE;
    s->loss = NAN;
    s->loss_step = -1;
    return 0;
}

void viz_state_free(VizState *s) {
    free(s->rank);
    free(s->ready);
    free(s->bphase);
    free(s->bseq);
    free(s->shard);
    free(s->held);
    free(s->nheld);
    memset(s, 0, sizeof *s);
}

// dst's array *p holds exactly n elements of `size` from src (NULL when 0).
static int copy_array(void **p, const void *src, size_t n, size_t size) {
    if (n == 0)
        return 0;
    void *q = realloc(*p, n * size);
    if (q == NULL)
        return -1;
    memcpy(q, src, n * size);
    *p = q;
    return 0;
}

int viz_state_copy(VizState *dst, const VizState *src) {
    if (dst == src)
        return 0;
    VizState keep = *dst;
    *dst = *src;
    dst->rank = keep.rank;
    dst->ready = keep.ready;
    dst->bphase = keep.bphase;
    dst->bseq = keep.bseq;
    dst->shard = keep.shard;
    dst->held = keep.held;
    dst->nheld = keep.nheld;
    dst->held_cap = 0;
    size_t R = (size_t)src->nranks, cells = R * (size_t)src->nchunks;
    if (keep.nranks != src->nranks) {
        free(dst->rank);
        dst->rank = NULL;
    }
    if (copy_array((void **)&dst->rank, src->rank, R, sizeof *src->rank) != 0 ||
        copy_array((void **)&dst->ready, src->ready, (size_t)src->ready_cap * R, 1) != 0 ||
        copy_array((void **)&dst->bphase, src->bphase, (size_t)src->nb_cap * R, 1) != 0 ||
        copy_array((void **)&dst->bseq, src->bseq, (size_t)src->nb_cap, sizeof *src->bseq) != 0 ||
        copy_array((void **)&dst->shard, src->shard, (size_t)src->nu_cap * R, 1) != 0 ||
        copy_array((void **)&dst->held, src->held, cells, sizeof *src->held) != 0 ||
        copy_array((void **)&dst->nheld, src->nheld, cells, sizeof *src->nheld) != 0) {
        // leave dst consistent (empty) rather than half copied
        dst->ready_cap = dst->nb_cap = dst->nu_cap = dst->nchunks = 0;
        return -1;
    }
    dst->held_cap = cells;
    return 0;
}

// Grows the per-parameter and per-bucket arrays to cover index k (zeroed).
static int grow_u8(uint8_t **p, int *cap, int k, int R) {
    if (k < *cap)
        return 0;
    // not tracked: a corrupt index (a 27 KB trace naming unit 2^24-2 of 256
    // ranks took 9 GB and 19 s)
    if (k >= 1 << 20 || (size_t)k * (size_t)R >= (size_t)1 << 26)
        return 1;
    int c = *cap ? *cap : 8;
    while (c <= k)
        c *= 2;
    uint8_t *q = realloc(*p, (size_t)c * (size_t)R);
    if (q == NULL)
        return -1;
    memset(q + (size_t)*cap * (size_t)R, 0, (size_t)(c - *cap) * (size_t)R);
    *p = q;
    *cap = c;
    return 0;
}

static int grow_buckets(VizState *s, int b) {
    int old = s->nb_cap;
    int st = grow_u8(&s->bphase, &s->nb_cap, b, s->nranks);
    if (st != 0 || s->nb_cap == old)
        return st;
    uint64_t *q = realloc(s->bseq, (size_t)s->nb_cap * sizeof *q);
    if (q == NULL) {
        s->nb_cap = old; // bphase keeps its larger block; only old entries count
        return -1;
    }
    memset(q + old, 0, (size_t)(s->nb_cap - old) * sizeof *q);
    s->bseq = q;
    return 0;
}

// A new iteration on rank r: no gradient ready, no bucket launched, reduced
// FSDP units back to their shards.
static void reset_rank(VizState *s, int r) {
    size_t R = (size_t)s->nranks;
    for (int p = 0; p < s->ready_cap; p++)
        s->ready[(size_t)p * R + (size_t)r] = 0;
    for (int b = 0; b < s->nb_cap; b++)
        s->bphase[(size_t)b * R + (size_t)r] = 0;
    for (int u = 0; u < s->nu_cap; u++)
        if (s->shard[(size_t)u * R + (size_t)r] == VIZ_SHARD_REDUCED)
            s->shard[(size_t)u * R + (size_t)r] = VIZ_SHARD_SHARDED;
}

static int streq(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

// a + b held at the int64 range: a loaded trace's byte counts are any
// uint64, and a corrupt one's summed past 2^63.
static int64_t add_sat(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static void apply_memory(VizRankState *rs, const SimEvent *e) {
    if (streq(e->label, "peak-reset")) { // sim_rank_mem_reset_peak
        rs->peak = rs->total;
        return;
    }
    int freeing = streq(e->label ? e->label : e->name, "free");
    int64_t d = e->bytes > INT64_MAX ? INT64_MAX : (int64_t)e->bytes;
    d = freeing ? -d : d;
    int cat = e->mem_cat >= 0 && e->mem_cat < SIM_MEM_CAT_COUNT ? e->mem_cat : SIM_MEM_OTHER;
    if (e->mem_space == SIM_MEM_HOST) {
        if (cat != SIM_MEM_BACKING)
            rs->host_total = add_sat(rs->host_total, d);
        return;
    }
    rs->mem[cat] = add_sat(rs->mem[cat], d);
    if (cat == SIM_MEM_BACKING)
        return;
    rs->total = add_sat(rs->total, d);
    if (rs->total > rs->peak)
        rs->peak = rs->total;
}

static void apply_marker(VizState *s, const SimEvent *e, int r) {
    if (streq(e->name, "iteration")) {
        if (streq(e->label, "begin")) {
            reset_rank(s, r);
            s->rank[r].iter = (int64_t)e->step + 1;
            if (!s->has_it_step || e->step > s->it_max_step)
                s->it_max_step = e->step, s->has_it_step = 1;
        } else if (streq(e->label, "end")) {
            if (!s->has_loss_step || e->step > s->loss_max_step) {
                s->loss_max_step = e->step, s->has_loss_step = 1;
                s->loss = e->value;
                s->loss_step = e->step;
            }
        }
    } else if (e->name && strncmp(e->name, "dp.", 3) == 0) {
        s->hub_step = e->name;
    }
}

static int apply_bucket(const VizModel *m, VizState *s, const SimEvent *e, size_t i, int r) {
    size_t R = (size_t)s->nranks;
    const char *l = e->label;
    if (streq(l, "plan-begin")) {
        reset_rank(s, r);
        if (r == m->plan_rank) {
            int p = viz_plan_at(m, (uint32_t)i);
            if (p >= 0)
                s->plan = p;
        }
        return 0;
    }
    int b = e->step;
    if (b < 0)
        return 0;
    if (streq(l, "ready")) {
        int made_up = viz_plan_at(m, (uint32_t)i); // a plan made up from ready events
        if (made_up >= 0 && m->plans[made_up].synthetic)
            s->plan = made_up;
        int st = grow_buckets(s, b);
        if (st != 0)
            return st < 0 ? -1 : 0;
        if (s->bphase[(size_t)b * R + (size_t)r] == 2)
            reset_rank(s, r); // no iteration markers: a done bucket filling again
        int p = e->chunk;
        if (p < 0)
            return 0;
        st = grow_u8(&s->ready, &s->ready_cap, p, s->nranks);
        if (st != 0)
            return st < 0 ? -1 : 0;
        s->ready[(size_t)p * R + (size_t)r] = 1;
        return 0;
    }
    if (streq(l, "launch") || streq(l, "done")) {
        int st = grow_buckets(s, b);
        if (st != 0)
            return st < 0 ? -1 : 0;
        int launch = l[0] == 'l';
        s->bphase[(size_t)b * R + (size_t)r] = launch ? 1 : 2;
        if (launch)
            s->bseq[b] = e->seq + 1;
    }
    return 0;
}

static int apply_shard(VizState *s, const SimEvent *e, int r) {
    int u = e->step;
    if (u < 0 || u >= 1 << 20 || streq(e->label, "plan") || streq(e->label, "plan-param"))
        return 0;
    int need = e->nsteps > u + 1 ? e->nsteps - 1 : u;
    int st = grow_u8(&s->shard, &s->nu_cap, need, s->nranks);
    if (st != 0)
        return st < 0 ? -1 : 0;
    uint8_t *x = &s->shard[(size_t)u * (size_t)s->nranks + (size_t)r];
    VizRankState *rs = &s->rank[r];
    const char *l = e->label;
    if (streq(l, "gather")) {
        *x = VIZ_SHARD_GATHERING;
        rs->pending_unit = u, rs->pending_reduce = 0;
    } else if (streq(l, "gathered")) {
        *x = VIZ_SHARD_GATHERED;
    } else if (streq(l, "free")) {
        // a unit freed while its gradient is reduced stays "reducing"
        if (*x != VIZ_SHARD_REDUCING && *x != VIZ_SHARD_REDUCED)
            *x = VIZ_SHARD_SHARDED;
    } else if (streq(l, "reduce")) {
        *x = VIZ_SHARD_REDUCING;
        rs->pending_unit = u, rs->pending_reduce = 1;
    } else if (streq(l, "reduced")) {
        *x = VIZ_SHARD_REDUCED;
    }
    return 0;
}

static int apply_coll(const VizModel *m, VizState *s, const SimEvent *e, size_t i, int r) {
    if (!viz_is_world_coll(e)) {
        if (e->kind == SIM_EV_COLL) {
            s->coll_world = 0;
            s->coll_ev = (uint32_t)i;
        }
        return 0;
    }
    VizRankState *rs = &s->rank[r];
    if (rs->last_seq != e->seq + 1) {
        rs->last_seq = e->seq + 1;
        rs->pending_unit = -1;
    }
    if (!s->cw_active || e->seq > s->cw_seq) {
        if (viz_coll_begin(m, s, e) != 0)
            return -1;
    } else if (e->seq < s->cw_seq) {
        return 0; // a late event of an earlier collective
    }
    s->coll_world = 1;
    if (e->kind == SIM_EV_COLL_STEP)
        s->cw_step_ev = (uint32_t)i;
    else if (e->kind == SIM_EV_XFER)
        viz_coll_xfer(s, e);
    return 0;
}

int viz_state_apply(const VizModel *m, VizState *s, size_t i) {
    const SimEvent *e = &m->t->ev[i];
    s->next = (uint32_t)(i + 1);
    int r = e->rank;
    if (r < 0 || r >= s->nranks)
        return 0;
    VizRankState *rs = &s->rank[r];
    if (e->sim_start > rs->clock)
        rs->clock = e->sim_start;
    switch (e->kind) {
    case SIM_EV_MEMORY:
        apply_memory(rs, e);
        return 0;
    case SIM_EV_MARKER:
        apply_marker(s, e, r);
        return 0;
    case SIM_EV_COMPUTE:
        if (e->stream == SIM_STREAM_COMPUTE) {
            VizPhase ph = viz_op_phase(e->name);
            if (ph != VIZ_PHASE_IDLE)
                rs->phase0 = (int)ph;
        }
        return 0;
    case SIM_EV_BUCKET:
        return apply_bucket(m, s, e, i, r);
    case SIM_EV_SHARD:
        return apply_shard(s, e, r);
    case SIM_EV_COLL:
    case SIM_EV_COLL_STEP:
    case SIM_EV_XFER:
        return apply_coll(m, s, e, i, r);
    default:
        return 0;
    }
}
