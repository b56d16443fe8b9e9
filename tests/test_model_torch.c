// tests/test_model_torch.c: ddplab's models against the same modules in
// PyTorch (tests/conformance/model_ref.py). For each case the C side builds
// and initialises the model, runs forward and backward on a batch, and
// writes its weights (by name), buffers and batch; torch loads them with
// load_state_dict, runs the same step, and the two are compared: parameter
// and buffer names, shapes and count (torch's own numbers), the loss, every
// gradient, BatchNorm's running statistics after the step, which
// parameters got no gradient, and the order in which autograd completed the
// gradients (hooks on the AccumulateGrad nodes, as DDP's reducer uses).
// Exits 77 (skipped) when torch cannot be imported.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "model/model.h"
#include "test_model_util.h"
#include "torch_ref.h"

#define TOL 1e-5 // fp32 against fp32: relative to the largest value of a tensor

typedef struct {
    const char *spec;
    int n, seq, step, training;
    int max_batch;
    int warm;        // 1: one training forward first, so BatchNorm's statistics move
    int names_only;  // 1: compare the tables only (the model is phantom here)
} Case;

static const Case cases[] = {
    {"mlp:12,32,24,5", 7, 0, 0, 1, 9, 0, 0},
    {"mlp:12,32,24,5,act=gelu,bn", 9, 0, 0, 1, 9, 0, 0},
    {"mlp:12,32,24,6,mse", 7, 0, 0, 1, 7, 0, 0},
    {"mlp:12,32,16,5,unused", 6, 0, 0, 1, 6, 0, 0},
    {"mlp:12,32,16,5,act=gelu,bn,unused", 6, 0, 1, 1, 6, 0, 0},
    {"mlp:12,32,16,5,act=gelu,bn,unused", 6, 0, 2, 1, 6, 0, 0},
    {"mlp:12,32,24,5,act=gelu,bn", 9, 0, 0, 0, 9, 1, 0},
    {"gpt:layers=2,embd=16,heads=2,ctx=8,vocab=11", 3, 8, 0, 1, 3, 0, 0},
    {"gpt:layers=2,embd=24,heads=3,ctx=8,vocab=13", 2, 5, 0, 1, 4, 0, 0},
    {"mlp:128,512,10", 1, 0, 0, 1, 1, 0, 1},
    {"gpt:layers=6,embd=384,heads=6,ctx=256,vocab=65", 1, 256, 0, 1, 1, 0, 1},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

// What the C side produced, kept for the comparison after torch ran.
typedef struct {
    char dir[512];
    int nparams, nbuffers;
    SimParamInfo *params;
    SimBufferInfo *buffers;
    size_t pcount, bcount;
    float loss;
    float *grad, *buf_after;
    uint8_t *used;
    TModelOrder order;
} Result;

static int write_text(const char *dir, const char *name, const char *text) {
    return torchref_write(dir, name, text, strlen(text));
}

static int write_case(const Case *c, Result *res, const SimModel *m, const TModelData *d,
                      const float *params, const float *bufs) {
    char text[1024];
    snprintf(text, sizeof text, "spec=%s\nn=%d\nseq=%d\nstep=%d\ntraining=%d\nmode=%s\n", c->spec,
             c->n, d ? d->batch.seq : 0, c->step, c->training, c->names_only ? "names" : "run");
    CHECK(write_text(res->dir, "case.txt", text) == 0);
    if (c->names_only)
        return 0;
    size_t cap = (size_t)(m->nparams + m->nbuffers) * (SIM_NAME_MAX + 8) + 1, u = 0;
    char *names = malloc(cap);
    CHECK(names);
    for (int i = 0; i < m->nparams; i++)
        u += (size_t)snprintf(names + u, cap - u, "param %s\n", m->params[i].name);
    for (int i = 0; i < m->nbuffers; i++)
        u += (size_t)snprintf(names + u, cap - u, "buffer %s\n", m->buffers[i].name);
    int rc = write_text(res->dir, "cnames.txt", names);
    free(names);
    CHECK(rc == 0);
    CHECK(torchref_write(res->dir, "params.f32", params, m->param_count * 4) == 0);
    CHECK(torchref_write(res->dir, "buffers.f32", bufs, m->buffer_count * 4) == 0);
    const SimBatch *b = &d->batch;
    if (m->spec.kind == SIM_MODEL_GPT) {
        size_t nt = (size_t)b->n * (size_t)b->seq * 4;
        CHECK(torchref_write(res->dir, "tokens.i32", b->tokens, nt) == 0);
        CHECK(torchref_write(res->dir, "labels.i32", b->labels, nt) == 0);
        return 0;
    }
    CHECK(torchref_write(res->dir, "x.f32", b->x, (size_t)b->n * (size_t)b->features * 4) == 0);
    if (m->spec.mse)
        CHECK(torchref_write(res->dir, "targets.f32", b->targets,
                             (size_t)b->n * (size_t)b->target_dim * 4) == 0);
    else
        CHECK(torchref_write(res->dir, "labels.i32", b->labels, (size_t)b->n * 4) == 0);
    return 0;
}

static int keep_tables(Result *res, const SimModel *m) {
    res->nparams = m->nparams;
    res->nbuffers = m->nbuffers;
    res->pcount = m->param_count;
    res->bcount = m->buffer_count;
    res->params = malloc((size_t)m->nparams * sizeof *res->params);
    res->buffers = malloc(((size_t)m->nbuffers + 1) * sizeof *res->buffers);
    res->used = malloc((size_t)m->nparams);
    CHECK(res->params && res->buffers && res->used);
    memcpy(res->params, m->params, (size_t)m->nparams * sizeof *res->params);
    if (m->nbuffers)
        memcpy(res->buffers, m->buffers, (size_t)m->nbuffers * sizeof *res->buffers);
    for (int i = 0; i < m->nparams; i++)
        res->used[i] = (uint8_t)sim_model_param_used(m, i);
    return 0;
}

static int run_case(SimRank *r, const Case *c, Result *res) {
    SimModelSpec spec;
    char err[256];
    SimModel *m = NULL;
    CHECK(sim_model_parse(c->spec, &spec, err, sizeof err) == SIM_OK);
    CHECK(sim_model_create(r, &spec, c->max_batch, c->names_only, &m) == SIM_OK);
    CHECK(sim_model_init(r, m, 2024) == SIM_OK);
    if (c->names_only) {
        CHECK(keep_tables(res, m) == 0);
        CHECK(write_case(c, res, m, NULL, NULL, NULL) == 0);
        sim_model_destroy(r, m);
        return 0;
    }
    TModelData d;
    CHECK(tmodel_data(&d, m, c->n, c->seq, 77) == 0);
    float loss;
    if (c->warm)
        CHECK(sim_model_forward(r, m, &d.batch, 1, SIM_FP32, &loss) == SIM_OK);
    float *p = tmodel_download(r, &m->param), *b = tmodel_download(r, &m->buffer);
    CHECK(p && b);
    sim_model_set_training(m, c->training);
    CHECK(sim_model_forward(r, m, &d.batch, c->step, SIM_FP32, &res->loss) == SIM_OK);
    if (c->training)
        CHECK(sim_model_backward(r, m, 1.0f, tmodel_record, &res->order) == SIM_OK);
    res->grad = tmodel_download(r, &m->grad);
    res->buf_after = tmodel_download(r, &m->buffer);
    CHECK(res->grad && res->buf_after);
    CHECK(keep_tables(res, m) == 0);
    int rc = write_case(c, res, m, &d, p, b);
    free(p);
    free(b);
    tmodel_data_free(&d);
    sim_model_destroy(r, m);
    return rc;
}

static Result results[NCASES];

static int all_cases(SimRank *r) {
    for (int i = 0; i < NCASES; i++) {
        if (run_case(r, &cases[i], &results[i]) != 0) {
            fprintf(stderr, "case %s failed on the C side\n", cases[i].spec);
            return 1;
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------
// comparison

static char *read_text(const char *dir, const char *name) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

static int shape_is(const char *dims, int ndim, const int64_t *shape) {
    char want[128] = "";
    size_t u = 0;
    for (int d = 0; d < ndim; d++)
        u += (size_t)snprintf(want + u, sizeof want - u, "%s%lld", d ? " " : "",
                              (long long)shape[d]);
    return strcmp(dims, want) == 0;
}

// names.txt: torch's parameters, buffers, count and state_dict keys.
static int compare_names(const Case *c, const Result *res) {
    char *text = read_text(res->dir, "names.txt");
    CHECK(text);
    int np = 0, nb = 0, nstate = 0, rc = 1;
    long long count = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[SIM_NAME_MAX], dt[16];
        int k = 0;
        if (sscanf(line, "param %95s %n", name, &k) == 1) {
            if (np >= res->nparams || strcmp(name, res->params[np].name) != 0 ||
                !shape_is(line + k, res->params[np].ndim, res->params[np].shape)) {
                fprintf(stderr, "%s: torch has \"%s\" as parameter %d\n", c->spec, line, np);
                goto out;
            }
            np++;
        } else if (sscanf(line, "buffer %95s %15s %n", name, dt, &k) == 2) {
            const SimBufferInfo *b = nb < res->nbuffers ? &res->buffers[nb] : NULL;
            SimDtype want = strcmp(dt, "int64") == 0 ? SIM_INT64 : SIM_FP32;
            if (!b || strcmp(name, b->name) != 0 || b->torch_dtype != want ||
                !shape_is(k ? line + k : "", b->ndim, b->shape)) {
                fprintf(stderr, "%s: torch has \"%s\" as buffer %d\n", c->spec, line, nb);
                goto out;
            }
            nb++;
        } else if (sscanf(line, "count %lld", &count) == 1) {
            continue;
        } else if (sscanf(line, "state %95s", name) == 1) {
            int found = 0;
            for (int i = 0; i < res->nparams; i++)
                found |= strcmp(res->params[i].name, name) == 0;
            for (int i = 0; i < res->nbuffers; i++)
                found |= strcmp(res->buffers[i].name, name) == 0;
            if (!found) {
                fprintf(stderr, "%s: state_dict key %s is not in ddplab's tables\n", c->spec,
                        name);
                goto out;
            }
            nstate++;
        }
    }
    if (np != res->nparams || nb != res->nbuffers || nstate != np + nb ||
        count != (long long)res->pcount) {
        fprintf(stderr, "%s: torch has %d parameters, %d buffers, %d state keys, %lld values; "
                "ddplab %d, %d, %zu values\n", c->spec, np, nb, nstate, count, res->nparams,
                res->nbuffers, res->pcount);
        goto out;
    }
    printf("  %-48s %2d parameters, %d buffers, %lld values: as torch\n", c->spec, np, nb,
           count);
    rc = 0;
out:
    free(text);
    return rc;
}

// 1 if text has a line that is exactly `name`.
static int has_line(const char *text, const char *name) {
    size_t len = strlen(name);
    for (const char *s = text; *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] != '\0'))
        if (strncmp(s, name, len) == 0 && (s[len] == '\n' || s[len] == '\0'))
            return 1;
    return 0;
}

static double max_abs(const float *a, size_t n) {
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs((double)a[k]));
    return m;
}

// Largest |a - b| over the largest |b| of a tensor.
static double rel_err(const float *a, const float *b, size_t n) {
    double num = 0, den = 1e-30;
    for (size_t k = 0; k < n; k++) {
        double e = fabs((double)a[k] - (double)b[k]);
        num = isnan(e) ? INFINITY : fmax(num, e);
        den = fmax(den, fabs((double)b[k]));
    }
    return num / den;
}

static int compare_run(const Case *c, const Result *res) {
    float tloss;
    CHECK(torchref_read(res->dir, "loss.f32", &tloss, 4) == 0);
    double lerr = fabs((double)res->loss - tloss) / fabs((double)tloss);
    if (!(lerr <= TOL))
        fprintf(stderr, "%s: loss %.9g, torch %.9g\n", c->spec, res->loss, tloss);
    CHECK(lerr <= TOL);
    double worst = 0;
    if (c->training) {
        float *tg = malloc(res->pcount * 4 + 1);
        CHECK(tg && torchref_read(res->dir, "grads.f32", tg, res->pcount * 4) == 0);
        double scale = max_abs(tg, res->pcount);
        for (int i = 0; i < res->nparams; i++) {
            const SimParamInfo *p = &res->params[i];
            const float *a = res->grad + p->offset, *b = tg + p->offset;
            if (max_abs(b, p->numel) < 1e-6 * scale) {
                // A gradient that is zero in exact arithmetic (a Linear bias
                // right before BatchNorm in training: the batch mean removes
                // it) is rounding noise on both sides: both must be tiny.
                if (!(max_abs(a, p->numel) < 1e-6 * scale))
                    fprintf(stderr, "%s: gradient of %s should vanish: %g (model scale %g)\n",
                            c->spec, p->name, max_abs(a, p->numel), scale);
                CHECK(max_abs(a, p->numel) < 1e-6 * scale);
                continue;
            }
            double e = rel_err(a, b, p->numel);
            if (!(e <= TOL))
                fprintf(stderr, "%s: gradient of %s differs by %.3g (relative)\n", c->spec,
                        p->name, e);
            CHECK(e <= TOL);
            worst = fmax(worst, e);
        }
        free(tg);
        // Which parameters got no gradient, and the grad-ready order.
        char *nograd = read_text(res->dir, "nograd.txt"), *order = read_text(res->dir,
                                                                              "order.txt");
        CHECK(nograd && order);
        for (int i = 0; i < res->nparams; i++)
            CHECK_EQ_INT(has_line(nograd, res->params[i].name), !res->used[i]);
        char *s = order;
        for (int i = 0; i < res->order.n; i++) {
            const char *name = res->params[res->order.idx[i]].name;
            size_t len = strlen(name);
            if (strncmp(s, name, len) != 0 || s[len] != '\n')
                fprintf(stderr, "%s: hook %d is %s, torch's is %.*s\n", c->spec, i, name,
                        (int)strcspn(s, "\n"), s);
            CHECK(strncmp(s, name, len) == 0 && s[len] == '\n');
            s += len + 1;
        }
        CHECK(*s == '\0'); // torch reported no more
        free(nograd);
        free(order);
    }
    if (res->bcount) {
        float *tb = malloc(res->bcount * 4);
        CHECK(tb && torchref_read(res->dir, "buffers_after.f32", tb, res->bcount * 4) == 0);
        for (int i = 0; i < res->nbuffers; i++) {
            const SimBufferInfo *b = &res->buffers[i];
            double e = rel_err(res->buf_after + b->offset, tb + b->offset, b->numel);
            if (!(e <= TOL))
                fprintf(stderr, "%s: buffer %s differs by %.3g\n", c->spec, b->name, e);
            CHECK(e <= TOL);
        }
        free(tb);
    }
    if (c->training)
        printf("  %-48s loss %.7f (torch %.7f), worst gradient error %.2g, %d hooks in "
               "torch's order\n", c->spec, res->loss, tloss, worst, res->order.n);
    else
        printf("  %-48s eval loss %.7f (torch %.7f) with the running statistics\n", c->spec,
               res->loss, tloss);
    return 0;
}

static void free_result(Result *res) {
    free(res->params);
    free(res->buffers);
    free(res->used);
    free(res->grad);
    free(res->buf_after);
    if (res->dir[0])
        torchref_rmdir(res->dir);
}

int main(void) {
    if (!torchref_available())
        return 77;
    int failures = 0;
    const char *args[NCASES + 1];
    for (int i = 0; i < NCASES; i++) {
        if (torchref_tmpdir(results[i].dir, sizeof results[i].dir) != 0) {
            fprintf(stderr, "cannot make a temporary directory\n");
            return 1;
        }
        args[i] = results[i].dir;
    }
    args[NCASES] = NULL;
    TModelRun run = {"all cases", all_cases};
    if (tmodel_run(&run) != 0)
        failures++;
    else if (torchref_run("model_ref.py", args) != 0) {
        fprintf(stderr, "model_ref.py failed\n");
        failures++;
    } else {
        for (int i = 0; i < NCASES; i++) {
            int rc = compare_names(&cases[i], &results[i]);
            if (rc == 0 && !cases[i].names_only)
                rc = compare_run(&cases[i], &results[i]);
            printf("%s %s%s, step %d\n", rc == 0 ? "ok    " : "FAILED", cases[i].spec,
                   cases[i].training ? "" : " (eval)", cases[i].step);
            failures += rc != 0;
        }
    }
    for (int i = 0; i < NCASES; i++)
        free_result(&results[i]);
    return failures != 0;
}
