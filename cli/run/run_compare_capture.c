// cli/run/run_compare_capture.c: what one side of a comparison records, through
// the trainer's stage hook (sim/train/train.h). Each rank writes only its own rows,
// so the ranks record without a lock; the arrays are made once, under the
// side's lock, by the first rank to reach INIT (the model's shape is known
// only then).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops.h"    // defines: sim_tensor_download
#include "run/run_compare.h"
#include "strategy/fsdp.h" // defines: sim_fsdp_shards

// FNV-1a over the bytes of n floats: equal hashes for equal bits (a
// collision could hide a difference with odds of 2^-64).
static uint64_t hash_floats(const float *x, int64_t n) {
    const unsigned char *p = (const unsigned char *)x;
    uint64_t h = 1469598103934665603ULL;
    for (int64_t i = 0; i < n * (int64_t)sizeof(float); i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

uint64_t *run_compare_hash_at(const RunCompareSide *s, int64_t step, int stage, int rank,
                              int param) {
    size_t i = (((size_t)step * RUN_CMP_STAGES + (size_t)stage) * (size_t)s->nranks +
                (size_t)rank) * (size_t)s->nparams + (size_t)param;
    return &s->hash[i];
}

static float *row(float *base, const RunCompareSide *s, int rank) {
    return base + (size_t)rank * (size_t)s->total;
}

static SimStatus fail(RunCompareSide *s, SimRank *r, const char *msg) {
    snprintf(r->error, sizeof r->error, "comparison: %s", msg);
    pthread_mutex_lock(&s->lock);
    if (!s->error[0])
        snprintf(s->error, sizeof s->error, "%s", msg);
    pthread_mutex_unlock(&s->lock);
    return SIM_EINVAL;
}

// The arrays, sized from the first rank's model (every rank builds the same).
static int setup(RunCompareSide *s, const SimTrainer *t) {
    const SimModel *m = t->model;
    int64_t steps = t->cfg->loop.steps < RUN_CMP_MAX_STEPS ? t->cfg->loop.steps : RUN_CMP_MAX_STEPS;
    s->nparams = m->nparams;
    s->total = (int64_t)sim_tensor_numel(&m->param);
    s->steps_cap = steps;
    size_t rows = (size_t)s->nranks * (size_t)s->total;
    s->names = calloc((size_t)s->nparams, sizeof *s->names);
    s->offset = calloc((size_t)s->nparams, sizeof *s->offset);
    s->numel = calloc((size_t)s->nparams, sizeof *s->numel);
    s->steps_done = calloc((size_t)s->nranks, sizeof *s->steps_done);
    s->hash = calloc((size_t)(steps + 1) * RUN_CMP_STAGES * (size_t)s->nranks *
                         (size_t)s->nparams, sizeof *s->hash);
    s->step1 = calloc(RUN_CMP_STAGES * rows, sizeof *s->step1);
    s->last = calloc(rows, sizeof *s->last);
    s->local = calloc(rows, sizeof *s->local);
    s->layout = calloc((size_t)s->nranks, sizeof *s->layout);
    if (!s->names || !s->offset || !s->numel || !s->steps_done || !s->hash || !s->step1 ||
        !s->last || !s->local || !s->layout)
        return 0;
    for (int i = 0; i < s->nparams; i++) {
        snprintf(s->names[i], sizeof s->names[i], "%s", m->params[i].name);
        s->offset[i] = (int64_t)m->params[i].offset;
        s->numel[i] = (int64_t)m->params[i].numel;
    }
    s->ready = 1;
    return 1;
}

static SimStatus ensure_ready(RunCompareSide *s, const SimTrainer *t) {
    const SimModel *m = t->model;
    if (m->param.dtype != SIM_FP32 || m->grad.dtype != SIM_FP32)
        return fail(s, t->rank, "the parameters and gradients must be fp32");
    if (m->param.data == NULL)
        return fail(s, t->rank, "the run holds no values (--phantom)");
    pthread_mutex_lock(&s->lock);
    int ok = s->ready || setup(s, t);
    pthread_mutex_unlock(&s->lock);
    if (!ok)
        return fail(s, t->rank, "out of memory for the recorded tensors");
    if (m->nparams != s->nparams || (int64_t)sim_tensor_numel(&m->param) != s->total)
        return fail(s, t->rank, "the ranks built models of different shapes");
    return SIM_OK;
}

// Copies elements [off, off + n) of a flat device buffer to host memory.
static SimStatus download(SimRank *r, const SimTensor *flat, int64_t off, int64_t n,
                          float *dst) {
    SimTensor v = *flat;
    v.data = (float *)flat->data + off;
    v.ndim = 1;
    v.shape[0] = n;
    v.charged = 0;
    return sim_tensor_download(r, &v, dst);
}

// FSDP and the ZeRO stages hold the parameters and the synchronised
// gradients in shards: each rank's shard of a flat fp32 tensor (master or
// grad, sim/strategy/fsdp.h) placed at its elements of the full layout, zero
// elsewhere (on both sides alike, so only the shards can differ).
static SimStatus download_shards(SimRank *r, const RunCompareSide *s, const SimTrainer *t,
                                 const SimFsdpShards *sh, const SimTensor *flat, float *dst) {
    memset(dst, 0, (size_t)s->total * sizeof *dst);
    for (int i = 0; i < s->nparams; i++) {
        const SimParamInfo *sl = &sh->slice[i];
        if (sl->numel > 0)
            SIM_CHECK(download(r, flat, (int64_t)sl->offset, (int64_t)sl->numel,
                               dst + t->model->params[i].offset + sh->src[i]));
    }
    return SIM_OK;
}

// The rank's parameters (grads: 0) or synchronised gradients (grads: 1) in
// the full layout, from the model's buffers or, sharded, from the shards.
static SimStatus read_state(SimRank *r, const RunCompareSide *s, const SimTrainer *t, int grads,
                            float *dst) {
    SimFsdpShards sh;
    if (sim_fsdp_shards(t, &sh) == SIM_OK)
        return download_shards(r, s, t, &sh, grads ? sh.grad : sh.master, dst);
    return download(r, grads ? &t->model->grad : &t->model->param, 0, s->total, dst);
}

// FNV-1a over each parameter's shard placement (0 when not sharded): two
// sides compare only when every rank holds the same elements on both.
static uint64_t layout_of(const SimTrainer *t) {
    SimFsdpShards sh;
    if (sim_fsdp_shards(t, &sh) != SIM_OK)
        return 0;
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < t->model->nparams; i++) {
        const uint64_t v[3] = {sh.src[i], sh.slice[i].offset, sh.slice[i].numel};
        for (int k = 0; k < 3; k++)
            for (int b = 0; b < 64; b += 8) {
                h ^= (v[k] >> b) & 0xff;
                h *= 1099511628211ULL;
            }
    }
    return h;
}

// Hashes every parameter's slice of a rank's row at (step, stage).
static void hash_row(RunCompareSide *s, int64_t step, int stage, int rank, const float *x) {
    if (step > s->steps_cap)
        return;
    for (int i = 0; i < s->nparams; i++)
        *run_compare_hash_at(s, step, stage, rank, i) = hash_floats(x + s->offset[i],
                                                                     s->numel[i]);
}

// Keeps step 1's (and INIT's) values whole, for the stage-by-stage table.
static void keep_step1(RunCompareSide *s, int64_t step, int stage, int rank, const float *x) {
    if (step <= 1)
        memcpy(row(s->step1 + (size_t)stage * (size_t)s->nranks * (size_t)s->total, s, rank),
               x, (size_t)s->total * sizeof *x);
}

static SimStatus record(void *arg, const SimTrainer *t, SimTrainStage stage, int param) {
    RunCompareSide *s = arg;
    SimRank *r = t->rank;
    const SimModel *m = t->model;
    if (stage == SIM_STAGE_INIT)
        SIM_CHECK(ensure_ready(s, t));
    int rk = r->rank;
    int64_t step = stage == SIM_STAGE_INIT ? 0 : t->step + 1;
    float *local = row(s->local, s, rk), *last = row(s->last, s, rk);
    switch (stage) {
    case SIM_STAGE_INIT:
        s->layout[rk] = layout_of(t);
        SIM_CHECK(read_state(r, s, t, 0, last));
        hash_row(s, 0, 0, rk, last);
        keep_step1(s, 0, 0, rk, last);
        return SIM_OK;
    case SIM_STAGE_GRAD_LOCAL: {
        const SimParamInfo *p = &m->params[param];
        return download(r, &m->grad, (int64_t)p->offset, (int64_t)p->numel,
                        local + p->offset);
    }
    case SIM_STAGE_GRAD_SYNCED: {
        hash_row(s, step, 1, rk, local);
        keep_step1(s, step, 1, rk, local);
        memset(local, 0, (size_t)s->total * sizeof *local); // the next step's zero_grad
        float *synced = row(s->step1 + 2 * (size_t)s->nranks * (size_t)s->total, s, rk);
        float *dst = step <= 1 ? synced : last; // last is rewritten at UPDATED
        SIM_CHECK(read_state(r, s, t, 1, dst));
        hash_row(s, step, 2, rk, dst);
        return SIM_OK;
    }
    case SIM_STAGE_UPDATED:
        SIM_CHECK(read_state(r, s, t, 0, last));
        hash_row(s, step, 3, rk, last);
        keep_step1(s, step, 3, rk, last);
        s->steps_done[rk] = step;
        return SIM_OK;
    }
    return SIM_OK;
}

void run_compare_side_begin(RunCompareSide *s, SimTrainConfig *c, SimWorld *w) {
    c->hooks.on_stage = record;
    c->hooks.on_stage_arg = s;
    const char *d = w->ops->describe ? w->ops->describe(w->ctx) : NULL;
    snprintf(s->describe, sizeof s->describe, "%s", d ? d : "");
}

void run_compare_side_free(RunCompareSide *s) {
    free(s->names);
    free(s->offset);
    free(s->numel);
    free(s->steps_done);
    free(s->hash);
    free(s->step1);
    free(s->last);
    free(s->local);
    free(s->layout);
    pthread_mutex_destroy(&s->lock);
    memset(s, 0, sizeof *s);
}
