// tests/test_checkpoint_model.c: checkpoints of a real model on a CPU rank:
// parameters, buffers (BatchNorm's running statistics and its int64
// num_batches_tracked), optimizer-state views, host tensors and metadata
// round-trip exactly; a file for another model (other shapes, a missing or
// extra tensor, another dtype), a damaged file and a foreign file are
// rejected with a message naming the file, the tensor and both shapes, and
// the model they were offered to keeps every value it had.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "formats/checkpoint.h"
#include "test_files.h"
#include "test_world.h"

static char dir[512];

// The model's parameters and buffers, downloaded (heap; caller frees).
static float *snapshot(SimRank *r, const SimModel *m) {
    float *h = malloc((m->param_count + m->buffer_count) * sizeof(float));
    if (h == NULL || sim_tensor_download(r, &m->param, h) != SIM_OK ||
        sim_tensor_download(r, &m->buffer, h + m->param_count) != SIM_OK) {
        free(h);
        return NULL;
    }
    return h;
}

// 1 if m holds exactly the values of snapshot s.
static int same_as(SimRank *r, const SimModel *m, const float *s) {
    float *now = snapshot(r, m);
    int same = now && memcmp(now, s, (m->param_count + m->buffer_count) * sizeof(float)) == 0;
    free(now);
    return same;
}

static SimModel *make_model(SimRank *r, const char *spec_text, uint64_t seed) {
    SimModelSpec spec;
    char err[256];
    SimModel *m = NULL;
    if (sim_model_parse(spec_text, &spec, err, sizeof err) != SIM_OK ||
        sim_model_create(r, &spec, 4, 0, &m) != SIM_OK || sim_model_init(r, m, seed) != SIM_OK) {
        fprintf(stderr, "model %s: %s %s\n", spec_text, err, r->error);
        sim_model_destroy(r, m);
        return NULL;
    }
    return m;
}

// Buffers with values a fresh model would not have: every running
// statistic i * 0.25, num_batches_tracked 7.
static int set_buffers(SimRank *r, SimModel *m) {
    float *h = calloc(m->buffer_count + 1, sizeof(float));
    CHECK(h != NULL && m->nbuffers >= 3);
    for (int b = 0; b < m->nbuffers; b++)
        for (size_t k = 0; k < m->buffers[b].numel; k++)
            h[m->buffers[b].offset + k] =
                m->buffers[b].torch_dtype == SIM_INT64 ? 7.0f : 0.25f * (float)(k + 1);
    SimStatus st = sim_tensor_upload(r, &m->buffer, h);
    free(h);
    CHECK_EQ_INT(st, SIM_OK);
    return 0;
}

typedef struct {
    SimTensor state;       // [param_count], an optimizer-like flat state
    SimCkptView views[2];  // two parameters' ranges of it
    int64_t counter;
    SimStTensor host[1];
    SimStMeta meta[2];
} Extra;

static int make_extra(SimRank *r, const SimModel *m, Extra *x, float base) {
    int64_t n = (int64_t)m->param_count;
    sim_tensor_init(&x->state, "state", SIM_FP32, 1, &n);
    CHECK_EQ_INT(sim_tensor_alloc(r, &x->state, 0), SIM_OK);
    float *h = malloc(m->param_count * sizeof(float));
    CHECK(h != NULL);
    for (size_t i = 0; i < m->param_count; i++)
        h[i] = base * (float)i;
    CHECK_EQ_INT(sim_tensor_upload(r, &x->state, h), SIM_OK);
    free(h);
    int pick[2] = {0, m->nparams - 1};
    for (int k = 0; k < 2; k++) {
        const SimParamInfo *p = &m->params[pick[k]];
        SimCkptView *v = &x->views[k];
        snprintf(v->name, sizeof v->name, "optimizer/state.%d.exp_avg", pick[k]);
        v->flat = &x->state;
        v->offset = p->offset;
        v->numel = p->numel;
        v->ndim = p->ndim;
        memcpy(v->shape, p->shape, sizeof v->shape);
    }
    x->counter = 12345678901LL;
    x->host[0] = (SimStTensor){"optimizer/counter", SIM_INT64, 0, {0}, &x->counter};
    x->meta[0] = (SimStMeta){"step", "12"};
    x->meta[1] = (SimStMeta){"scaler.scale", "32768"};
    return 0;
}

static int round_trip(SimRank *r, const char *path) {
    char err[900];
    SimModel *a = make_model(r, "mlp:6,10,3,bn", 1), *b = make_model(r, "mlp:6,10,3,bn", 2);
    CHECK(a != NULL && b != NULL);
    CHECK(set_buffers(r, a) == 0);
    Extra xa, xb;
    CHECK(make_extra(r, a, &xa, 0.5f) == 0 && make_extra(r, b, &xb, 0.0f) == 0);
    SimCkptExtra extra = {2, xa.views, 1, xa.host, 2, xa.meta};
    CHECK_EQ_INT(sim_ckpt_save(r, a, &extra, path, err, sizeof err), SIM_OK);

    SimCkpt c;
    CHECK_EQ_INT(sim_ckpt_open(&c, path, b, 1, err, sizeof err), SIM_OK);
    CHECK(strcmp(sim_ckpt_meta(&c, "step"), "12") == 0);
    CHECK(strcmp(sim_ckpt_meta(&c, "format"), SIM_CKPT_FORMAT) == 0);
    CHECK(strcmp(sim_ckpt_meta(&c, "model"), "mlp:6,10,3,bn") == 0);
    double scale = 0;
    int64_t step = 0;
    CHECK(sim_ckpt_meta_f64(&c, "scaler.scale", &scale) == 0 && scale == 32768.0);
    CHECK(sim_ckpt_meta_i64(&c, "step", &step) == 0 && step == 12);
    CHECK(sim_ckpt_meta_i64(&c, "format", &step) == -1);
    for (int k = 0; k < 2; k++)
        CHECK_EQ_INT(sim_ckpt_expect(&c, xb.views[k].name, SIM_FP32, xb.views[k].ndim,
                                     xb.views[k].shape, err, sizeof err), SIM_OK);
    const SimStTensor *counter = sim_ckpt_tensor(&c, "optimizer/counter");
    CHECK(counter && counter->dtype == SIM_INT64 &&
          memcmp(counter->data, &xa.counter, 8) == 0);
    // num_batches_tracked is stored as torch stores it: int64.
    for (int i = 0; i < b->nbuffers; i++) {
        const SimStTensor *t = sim_ckpt_tensor(&c, b->buffers[i].name);
        CHECK(t != NULL && t->dtype == (b->buffers[i].torch_dtype == SIM_INT64 ? SIM_INT64
                                                                                 : SIM_FP32));
    }
    CHECK_EQ_INT(sim_ckpt_apply_model(r, &c, b), SIM_OK);
    CHECK_EQ_INT(sim_ckpt_apply_views(r, &c, xb.views, 2), SIM_OK);
    sim_ckpt_close(&c);

    float *sa = snapshot(r, a);
    CHECK(sa != NULL && same_as(r, b, sa));
    free(sa);
    // The views' ranges came back; the rest of the flat state kept its zeros.
    float *st = malloc(b->param_count * sizeof(float));
    CHECK(st != NULL && sim_tensor_download(r, &xb.state, st) == SIM_OK);
    for (size_t i = 0; i < b->param_count; i++) {
        int in_view = 0;
        for (int k = 0; k < 2; k++)
            in_view |= i >= xb.views[k].offset && i < xb.views[k].offset + xb.views[k].numel;
        CHECK(st[i] == (in_view ? 0.5f * (float)i : 0.0f));
    }
    free(st);
    sim_tensor_free(r, &xa.state);
    sim_tensor_free(r, &xb.state);
    sim_model_destroy(r, a);
    sim_model_destroy(r, b);
    return 0;
}

// Opening path for m fails with `status` and `words`, and m keeps its values.
static int expect_refused(SimRank *r, SimModel *m, const char *path, int full, SimStatus status,
                          const char *words) {
    float *before = snapshot(r, m);
    CHECK(before != NULL);
    SimCkpt c;
    char err[900] = "";
    SimStatus st = sim_ckpt_open(&c, path, m, full, err, sizeof err);
    if (st != status || strstr(err, words) == NULL || strstr(err, path) == NULL) {
        fprintf(stderr, "%s: got %d '%s', expected %d with '%s'\n", path, (int)st, err,
                (int)status, words);
        free(before);
        return 1;
    }
    CHECK(c.file.bytes == NULL); // nothing left open
    CHECK(same_as(r, m, before));
    free(before);
    return 0;
}

// A safetensors file with m's tensors (all F32), except `skip`, plus `extra`.
static int write_like(const SimModel *m, const char *path, const char *skip, const char *extra,
                      const SimStMeta *meta, int nmeta) {
    int n = m->nparams + m->nbuffers;
    SimStTensor *t = calloc((size_t)n + 1, sizeof *t);
    float *zeros = calloc(m->param_count + m->buffer_count + 1, sizeof(float));
    CHECK(t && zeros);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const char *name = i < m->nparams ? m->params[i].name : m->buffers[i - m->nparams].name;
        int ndim = i < m->nparams ? m->params[i].ndim : m->buffers[i - m->nparams].ndim;
        const int64_t *shape = i < m->nparams ? m->params[i].shape
                                              : m->buffers[i - m->nparams].shape;
        if (skip && strcmp(name, skip) == 0)
            continue;
        t[k] = (SimStTensor){name, SIM_FP32, ndim, {0}, zeros};
        memcpy(t[k].shape, shape, sizeof t[k].shape);
        k++;
    }
    if (extra)
        t[k++] = (SimStTensor){extra, SIM_FP32, 1, {1}, zeros};
    char err[512];
    SimStatus st = sim_stfile_save(path, t, k, meta, nmeta, err, sizeof err);
    free(t);
    free(zeros);
    CHECK_EQ_INT(st, SIM_OK);
    return 0;
}

static int rejections(SimRank *r, const char *good) {
    char path[600];
    SimModel *m = make_model(r, "mlp:6,10,3,bn", 3), *wide = make_model(r, "mlp:6,12,3,bn", 4);
    SimModel *plain = make_model(r, "mlp:6,10,3", 5);
    CHECK(m && wide && plain);
    // Another model's shapes: the tensor, both shapes, and both specs.
    CHECK(expect_refused(r, wide, good, 1, SIM_EINVAL,
                         "tensor '0.weight' has shape [10, 6] in the file, the model expects "
                         "[12, 6] (the file was saved for model mlp:6,10,3,bn; this run's model "
                         "is mlp:6,12,3,bn)") == 0);
    // A model without BatchNorm numbers its layers differently.
    CHECK(expect_refused(r, plain, good, 0, SIM_EINVAL,
                         "tensor '2.weight' is missing (the file was saved for model "
                         "mlp:6,10,3,bn") == 0);
    // A missing tensor, an extra one, a buffer with the wrong dtype.
    snprintf(path, sizeof path, "%s/missing.safetensors", dir);
    CHECK(write_like(plain, path, "2.bias", NULL, NULL, 0) == 0);
    CHECK(expect_refused(r, plain, path, 0, SIM_EINVAL, "tensor '2.bias' is missing") == 0);
    snprintf(path, sizeof path, "%s/extra.safetensors", dir);
    CHECK(write_like(plain, path, NULL, "9.weight", NULL, 0) == 0);
    CHECK(expect_refused(r, plain, path, 0, SIM_EINVAL, "tensor '9.weight' is not part") == 0);
    snprintf(path, sizeof path, "%s/dtype.safetensors", dir);
    CHECK(write_like(m, path, NULL, NULL, NULL, 0) == 0);
    CHECK(expect_refused(r, m, path, 0, SIM_EINVAL, "is F32 in the file, the model expects I64")
          == 0);
    // A file with every tensor right but no ddplab metadata: --init takes it
    // (weights from elsewhere), --resume does not.
    snprintf(path, sizeof path, "%s/foreign.safetensors", dir);
    CHECK(write_like(plain, path, NULL, "optimizer/x", NULL, 0) == 0);
    CHECK(expect_refused(r, plain, path, 1, SIM_EFORMAT, "not a ddplab checkpoint") == 0);
    SimCkpt c;
    char err[900];
    CHECK_EQ_INT(sim_ckpt_open(&c, path, plain, 0, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_ckpt_apply_model(r, &c, plain), SIM_OK);
    sim_ckpt_close(&c);
    float *z = snapshot(r, plain);
    CHECK(z != NULL);
    for (size_t i = 0; i < plain->param_count; i++)
        CHECK(z[i] == 0.0f); // the file's zeros
    free(z);
    // Damage: a flipped data byte, a truncated copy.
    size_t len = 0;
    char *raw = tfile_read(good, &len);
    CHECK(raw != NULL);
    raw[len - 5] ^= 1;
    snprintf(path, sizeof path, "%s/flipped.safetensors", dir);
    CHECK(tfile_write(path, raw, len) == 0);
    CHECK(expect_refused(r, m, path, 1, SIM_EFORMAT, "checksum mismatch") == 0);
    CHECK(tfile_write(path, raw, len / 2) == 0);
    CHECK(expect_refused(r, m, path, 1, SIM_EFORMAT, "truncated") == 0);
    free(raw);
    snprintf(path, sizeof path, "%s/none.safetensors", dir);
    CHECK(expect_refused(r, m, path, 1, SIM_EIO, "cannot open") == 0);
    sim_model_destroy(r, m);
    sim_model_destroy(r, wide);
    sim_model_destroy(r, plain);
    return 0;
}

// The tests run on the one rank's thread; RUN takes functions without arguments.
static SimRank *the_rank;
static char good[600];

static int test_round_trip(void) {
    return round_trip(the_rank, good);
}

static int test_rejections(void) {
    return rejections(the_rank, good);
}

static SimStatus rank_main(SimRank *r, void *arg) {
    int *failures_out = arg, failures = 0;
    the_rank = r;
    snprintf(good, sizeof good, "%s/a.safetensors", dir);
    RUN(test_round_trip);
    RUN(test_rejections); // uses the file the round trip wrote
    *failures_out = failures;
    return SIM_OK;
}

int main(void) {
    if (tfile_mkdtemp(dir, sizeof dir, "ckptmodel") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    SimStatus st = tworld_run_cpu(1, 0, rank_main, &failures);
    tfile_rmtree(dir);
    return st == SIM_OK && failures == 0 ? 0 : 1;
}
