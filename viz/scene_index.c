// viz/scene_index.c: building the model: one pass over the events that
// fills the iteration index, the per-rank lanes (sorted by time), the
// collective table, the DDP plans and FSDP units, the jump lists and the
// plots, and stores a keyframe of the running state every
// VIZ_KEYFRAME_EVERY events. viz_model_sync continues the pass over new
// events; an event inserted before indexed ones (a live trace arrives nearly
// sorted) rolls the index back to the keyframe before it and goes on from
// there.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

// ----------------------------------------------------------------------------
// the pass, keyframes, rollback

static int store_keyframe(VizModel *m, size_t k) {
    if (k >= m->key_cap) {
        size_t c = m->key_cap ? 2 * m->key_cap : 16;
        while (c <= k)
            c *= 2;
        VizState *p = realloc(m->key, c * sizeof *p);
        if (p == NULL)
            return -1;
        memset(p + m->key_cap, 0, (c - m->key_cap) * sizeof *p);
        m->key = p;
        m->key_cap = c;
    }
    if (m->key[k].rank == NULL && viz_state_init(&m->key[k], m->nranks) != 0)
        return -1;
    if (viz_state_copy(&m->key[k], &m->cur) != 0)
        return -1;
    m->nkey = k + 1;
    return 0;
}

static int index_range(VizModel *m) {
    const VizTrace *t = m->t;
    if (t->n >= UINT32_MAX)
        return -1;
    if (viz_ensure((void **)&m->sig, &m->sig_cap, t->n, sizeof *m->sig) != 0)
        return -1;
    for (size_t i = m->n; i < t->n; i++) {
        if (i % VIZ_KEYFRAME_EVERY == 0 && store_keyframe(m, i / VIZ_KEYFRAME_EVERY) != 0)
            return -1;
        m->sig[i] = viz_event_sig(&t->ev[i]);
        if (viz_index_event(m, (uint32_t)i) != 0 || viz_state_apply(m, &m->cur, i) != 0)
            return -1;
        m->n = i + 1;
    }
    return 0;
}

static void lists_truncate(VizModel *m, uint32_t cut) {
    viz_idx_truncate(&m->it_mark, cut);
    viz_idx_truncate(&m->it_coll, cut);
    viz_idx_truncate(&m->phase_mark, cut);
    viz_idx_truncate(&m->phase_ops, cut);
    for (int k = 0; k < VIZ_JUMP_COUNT; k++)
        viz_idx_truncate(&m->jump[k], cut);
    for (int r = 0; r < m->nranks; r++) {
        viz_idx_truncate(&m->marks[r], cut);
        for (int l = 0; l < VIZ_LANE_COUNT; l++) {
            VizLane *ln = &m->lane[(size_t)r * VIZ_LANE_COUNT + (size_t)l];
            viz_idx_truncate(&ln->ev, cut);
            ln->wall_built = (size_t)-1;
        }
        while (m->nmem[r] > 0 && m->mem_i[r][m->nmem[r] - 1] >= cut)
            m->nmem[r]--;
    }
    while (m->nloss > 0 && m->loss_i[m->nloss - 1] >= cut)
        m->nloss--;
}

// Rolls the index back so that events from p on are indexed again: to the
// keyframe at or before p. Records that later events only widened (spans,
// flags) keep what those events set; the same events come again.
static void rollback(VizModel *m, size_t p) {
    size_t k = p / VIZ_KEYFRAME_EVERY;
    if (k >= m->nkey)
        k = m->nkey ? m->nkey - 1 : 0;
    uint32_t cut = (uint32_t)(k * VIZ_KEYFRAME_EVERY);
    lists_truncate(m, cut);
    for (size_t s = 0; s < m->ncoll; s++) {
        VizCollRec *c = &m->coll[s];
        if (c->first != VIZ_NONE && c->first >= cut) {
            c->first = c->first_coll = c->last = VIZ_NONE;
            c->has_xfers = 0;
            c->unit = c->root = -1;
        } else if (c->first_coll != VIZ_NONE && c->first_coll >= cut) {
            c->first_coll = VIZ_NONE;
        }
    }
    while (m->nplans > 0 && m->plans[m->nplans - 1].begin >= cut)
        viz_plan_free(&m->plans[--m->nplans]);
    m->synth_plan = -1;
    for (int q = 0; q < m->nplans; q++)
        if (m->plans[q].synthetic)
            m->synth_plan = q;
    for (int q = 0; q < m->nplans; q++)
        viz_plan_truncate(&m->plans[q], cut);
    if (m->nplans == 0)
        m->plan_rank = -1;
    if (m->nkey > 0)
        (void)viz_state_copy(&m->cur, &m->key[k]);
    m->nkey = k + 1 < m->nkey ? k + 1 : m->nkey;
    m->n = cut;
    m->work_valid = 0;
}

static void model_clear(VizModel *m) {
    free(m->sig);
    free(m->it_mark.v), free(m->it_coll.v), free(m->phase_mark.v), free(m->phase_ops.v);
    for (int k = 0; k < VIZ_JUMP_COUNT; k++)
        free(m->jump[k].v);
    if (m->lane)
        for (size_t l = 0; l < (size_t)m->nranks * VIZ_LANE_COUNT; l++) {
            free(m->lane[l].ev.v), free(m->lane[l].pmax);
            free(m->lane[l].wall), free(m->lane[l].wall_pmax);
        }
    free(m->lane);
    if (m->marks)
        for (int r = 0; r < m->nranks; r++)
            free(m->marks[r].v);
    free(m->marks);
    free(m->coll);
    for (int q = 0; q < m->nplans; q++)
        viz_plan_free(&m->plans[q]);
    free(m->plans);
    free(m->units);
    free(m->pshards);
    free(m->loss_x), free(m->loss_y), free(m->loss_i);
    if (m->nmem)
        for (int r = 0; r < m->nranks; r++)
            free(m->mem_x[r]), free(m->mem_y[r]), free(m->mem_i[r]);
    free(m->mem_x), free(m->mem_y), free(m->mem_i), free(m->nmem), free(m->mem_cap);
    viz_state_free(&m->cur);
    for (size_t k = 0; k < m->key_cap; k++)
        viz_state_free(&m->key[k]);
    free(m->key);
    viz_state_free(&m->work);
    const VizTrace *t = m->t;
    memset(m, 0, sizeof *m);
    m->t = t;
}

static int model_setup(VizModel *m) {
    const VizTrace *t = m->t;
    int R = t->nranks;
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].rank >= R && t->ev[i].rank < 1 << 20)
            R = t->ev[i].rank + 1;
    m->nranks = R < 1 ? 1 : R;
    R = m->nranks;
    m->lane = calloc((size_t)R * VIZ_LANE_COUNT, sizeof *m->lane);
    m->marks = calloc((size_t)R, sizeof *m->marks);
    m->mem_x = calloc((size_t)R, sizeof *m->mem_x);
    m->mem_y = calloc((size_t)R, sizeof *m->mem_y);
    m->mem_i = calloc((size_t)R, sizeof *m->mem_i);
    m->nmem = calloc((size_t)R, sizeof *m->nmem);
    m->mem_cap = calloc((size_t)R, sizeof *m->mem_cap);
    if (!m->lane || !m->marks || !m->mem_x || !m->mem_y || !m->mem_i || !m->nmem || !m->mem_cap)
        return -1;
    m->plan_rank = m->synth_plan = -1;
    m->t_min = m->w_min = INFINITY;
    m->t_max = m->w_max = -INFINITY;
    if (viz_state_init(&m->cur, R) != 0 || viz_state_init(&m->work, R) != 0)
        return -1;
    return index_range(m);
}

VizModel *viz_model_new(const VizTrace *t, char *err, size_t errlen) {
    if (err && errlen)
        err[0] = '\0';
    if (t == NULL || t->n == 0 || t->ev == NULL) {
        if (err)
            snprintf(err, errlen, "the trace has no events to show");
        return NULL;
    }
    if (t->n >= UINT32_MAX) {
        if (err)
            snprintf(err, errlen, "the trace has %zu events; at most %u can be shown", t->n,
                     UINT32_MAX - 1);
        return NULL;
    }
    VizModel *m = calloc(1, sizeof *m);
    if (m == NULL) {
        if (err)
            snprintf(err, errlen, "out of memory for the scene model");
        return NULL;
    }
    m->t = t;
    if (model_setup(m) != 0) {
        if (err)
            snprintf(err, errlen, "out of memory indexing %zu events", t->n);
        viz_model_free(m);
        return NULL;
    }
    return m;
}

SimStatus viz_model_sync(VizModel *m) {
    if (m == NULL)
        return SIM_EINVAL;
    const VizTrace *t = m->t;
    if (t->nranks > m->nranks || t->n >= UINT32_MAX) {
        // more ranks than the per-rank indexes hold: build again
        model_clear(m);
        if (t->n >= UINT32_MAX)
            return SIM_EINVAL;
        return model_setup(m) == 0 ? SIM_OK : SIM_ENOMEM;
    }
    for (size_t i = m->n; i < t->n; i++)
        if (t->ev[i].rank >= m->nranks) {
            model_clear(m);
            return model_setup(m) == 0 ? SIM_OK : SIM_ENOMEM;
        }
    size_t p = m->n < t->n ? m->n : t->n;
    while (p > 0 && m->sig[p - 1] != viz_event_sig(&t->ev[p - 1]))
        p--;
    if (p < m->n)
        rollback(m, p);
    return index_range(m) == 0 ? SIM_OK : SIM_ENOMEM;
}

void viz_model_free(VizModel *m) {
    if (m == NULL)
        return;
    model_clear(m);
    free(m);
}

const VizTrace *viz_model_trace(const VizModel *m) {
    return m->t;
}

size_t viz_model_count(const VizModel *m) {
    return m ? m->n : 0;
}

