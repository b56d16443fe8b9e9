// tests/test_model.c: the models on the CPU backend, without PyTorch:
// parameter tables (names, shapes, counts, offsets), initialisation, the
// grad-ready order (as measured in PyTorch 1.13, see docs/training.md, "Models"),
// gradient accumulation and loss scaling, the unused branch, batches shorter
// than max_batch, BatchNorm's buffers and eval mode, finite differences,
// phantom mode, and bad batches.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "model/model.h"
#include "test_model_util.h"
#include "test_world.h"

static SimModel *make(SimRank *r, const char *text, int max_batch, int phantom) {
    SimModelSpec spec;
    char err[512];
    SimModel *m = NULL;
    if (sim_model_parse(text, &spec, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    if (sim_model_create(r, &spec, max_batch, phantom, &m) != SIM_OK) {
        fprintf(stderr, "create %s: %s\n", text, r->error);
        return NULL;
    }
    if (sim_model_init(r, m, 1234) != SIM_OK) {
        fprintf(stderr, "init %s: %s\n", text, r->error);
        sim_model_destroy(r, m);
        return NULL;
    }
    return m;
}

// ---------------------------------------------------------------------------
// tables

static int check_names(const SimModel *m, const char *const *names, int n) {
    CHECK_EQ_INT(m->nparams, n);
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(m->params[i].name, names[i]) != 0)
            fprintf(stderr, "param %d: %s, expected %s\n", i, m->params[i].name, names[i]);
        CHECK(strcmp(m->params[i].name, names[i]) == 0);
        CHECK_EQ_INT(m->params[i].offset, off); // back to back, in order
        off += m->params[i].numel;
    }
    CHECK_EQ_INT(off, m->param_count);
    return 0;
}

static int tables(SimRank *r) {
    SimModel *m = make(r, "mlp:128,512,10", 4, 0);
    CHECK(m);
    static const char *const mlp[] = {"0.weight", "0.bias", "2.weight", "2.bias"};
    CHECK(check_names(m, mlp, 4) == 0);
    CHECK_EQ_INT(m->param_count, 71178); // the seeds' MLP
    CHECK_EQ_INT(m->params[0].ndim, 2);
    CHECK_EQ_INT(m->params[0].shape[0], 512);
    CHECK_EQ_INT(m->params[0].shape[1], 128);
    CHECK_EQ_INT(m->nbuffers, 0);
    CHECK_EQ_INT(sim_model_find_param(m, "2.bias"), 3);
    CHECK_EQ_INT(sim_model_find_param(m, "1.bias"), -1);
    sim_model_destroy(r, m);

    m = make(r, "mlp:784,256,256,10,bn", 4, 0);
    CHECK(m);
    static const char *const bn[] = {"0.weight", "0.bias", "1.weight", "1.bias", "3.weight",
                                     "3.bias",   "4.weight", "4.bias", "6.weight", "6.bias"};
    CHECK(check_names(m, bn, 10) == 0);
    CHECK_EQ_INT(m->param_count, 784 * 256 + 256 + 2 * 256 + 256 * 256 + 256 + 2 * 256 + 2570);
    CHECK_EQ_INT(m->nbuffers, 6);
    static const char *const bufs[] = {"1.running_mean", "1.running_var", "1.num_batches_tracked",
                                       "4.running_mean", "4.running_var",
                                       "4.num_batches_tracked"};
    for (int i = 0; i < 6; i++) {
        CHECK(strcmp(m->buffers[i].name, bufs[i]) == 0);
        CHECK_EQ_INT(m->buffers[i].torch_dtype, i % 3 == 2 ? SIM_INT64 : SIM_FP32);
        CHECK_EQ_INT(m->buffers[i].ndim, i % 3 == 2 ? 0 : 1);
        CHECK_EQ_INT(m->buffers[i].numel, i % 3 == 2 ? 1 : 256);
    }
    CHECK_EQ_INT(m->buffer_count, 4 * 256 + 2);
    CHECK_EQ_INT(sim_model_find_buffer(m, "4.num_batches_tracked"), 5);
    sim_model_destroy(r, m);

    m = make(r, "mlp:8,16,4,unused", 4, 0);
    CHECK(m);
    static const char *const un[] = {"0.weight", "0.bias", "2.weight", "2.bias", "3.weight",
                                     "3.bias"};
    CHECK(check_names(m, un, 6) == 0);
    CHECK_EQ_INT(m->params[4].shape[0], 4);
    CHECK_EQ_INT(m->params[4].shape[1], 16);
    sim_model_destroy(r, m);

    m = make(r, "gpt:layers=2,embd=16,heads=2,ctx=8,vocab=11", 2, 0);
    CHECK(m);
    const char *const *gn = tmodel_gpt2_names();
    CHECK(check_names(m, gn, 25) == 0);
    int64_t V = 11, C = 16, T = 8, L = 2;
    CHECK_EQ_INT(m->param_count, V * C + T * C + L * (12 * C * C + 9 * C) + 2 * C + V * C);
    CHECK_EQ_INT(m->nbuffers, 2);
    CHECK(strcmp(m->buffers[1].name, "blocks.1.attn.mask") == 0);
    CHECK_EQ_INT(m->buffers[1].ndim, 4);
    CHECK_EQ_INT(m->buffers[1].shape[2], 8);
    CHECK_EQ_INT(m->buffers[1].numel, 64);
    sim_model_destroy(r, m);
    return 0;
}

// ---------------------------------------------------------------------------
// initialisation

static int init_values(SimRank *r) {
    SimModel *m = make(r, "mlp:64,32,10,bn", 4, 0);
    CHECK(m);
    float *p = tmodel_download(r, &m->param);
    float *b = tmodel_download(r, &m->buffer);
    CHECK(p && b);
    double bound = 1.0 / sqrt(64.0), mx = 0, sum = 0;
    for (size_t k = 0; k < m->params[0].numel + m->params[1].numel; k++) {
        CHECK(fabs(p[k]) <= bound);
        mx = fmax(mx, fabs(p[k]));
        sum += p[k];
    }
    CHECK(mx > 0.9 * bound);                      // spans the interval
    CHECK(fabs(sum / (64 * 32 + 32)) < 0.1 * bound); // centred
    for (size_t k = 0; k < 32; k++) {
        CHECK_EQ_INT(p[m->params[2].offset + k], 1); // BatchNorm weight
        CHECK_EQ_INT(p[m->params[3].offset + k], 0); // and bias
        CHECK_EQ_INT(b[m->buffers[0].offset + k], 0);
        CHECK_EQ_INT(b[m->buffers[1].offset + k], 1);
    }
    CHECK_EQ_INT(b[m->buffers[2].offset], 0);
    for (size_t k = m->params[4].offset; k < m->param_count; k++)
        CHECK(fabs(p[k]) <= 1.0 / sqrt(32.0));
    // The same seed gives the same values; another seed others.
    float *again = NULL;
    CHECK(sim_model_init(r, m, 1234) == SIM_OK);
    CHECK((again = tmodel_download(r, &m->param)) != NULL);
    CHECK(memcmp(p, again, m->param_count * sizeof *p) == 0);
    free(again);
    CHECK(sim_model_init(r, m, 99) == SIM_OK);
    CHECK((again = tmodel_download(r, &m->param)) != NULL);
    CHECK(memcmp(p, again, m->params[0].numel * sizeof *p) != 0);
    free(again);
    free(p);
    free(b);
    sim_model_destroy(r, m);

    m = make(r, "gpt:layers=1,embd=32,heads=4,ctx=16,vocab=300", 1, 0);
    CHECK(m);
    p = tmodel_download(r, &m->param);
    b = tmodel_download(r, &m->buffer);
    CHECK(p && b);
    double s1 = 0, s2 = 0;
    size_t n = m->params[0].numel; // tok_emb: N(0, 1)
    for (size_t k = 0; k < n; k++)
        s1 += p[k], s2 += (double)p[k] * p[k];
    CHECK(fabs(s1 / n) < 0.05);
    CHECK(fabs(sqrt(s2 / n - (s1 / n) * (s1 / n)) - 1.0) < 0.05);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            CHECK_EQ_INT(b[i * 16 + j], j <= i);
    int ln = sim_model_find_param(m, "blocks.0.ln2.weight");
    CHECK_EQ_INT(p[m->params[ln].offset + 5], 1);
    CHECK_EQ_INT(p[m->params[ln + 1].offset + 5], 0);
    int fp = sim_model_find_param(m, "blocks.0.mlp.2.weight"); // fan_in 4C = 128
    for (size_t k = 0; k < m->params[fp].numel; k++)
        CHECK(fabs(p[m->params[fp].offset + k]) <= 1.0 / sqrt(128.0));
    free(p);
    free(b);
    sim_model_destroy(r, m);
    return 0;
}

// ---------------------------------------------------------------------------
// grad-ready order (PyTorch 1.13's autograd, measured with hooks on the
// AccumulateGrad nodes; test_model_torch checks it against torch directly)

static int order_is(SimRank *r, const char *spec, int n, int step, const char *const *want,
                    int nwant, int phantom) {
    SimModel *m = make(r, spec, n, phantom);
    CHECK(m);
    TModelData d;
    CHECK(tmodel_data(&d, m, n, 0, 5) == 0);
    TModelOrder o = {0};
    float loss;
    CHECK(sim_model_forward(r, m, &d.batch, step, SIM_FP32, &loss) == SIM_OK);
    CHECK(sim_model_backward(r, m, 1.0f, tmodel_record, &o) == SIM_OK);
    CHECK_EQ_INT(o.n, nwant);
    for (int i = 0; i < nwant; i++) {
        if (strcmp(m->params[o.idx[i]].name, want[i]) != 0)
            fprintf(stderr, "%s: hook %d is %s, expected %s\n", spec, i,
                    m->params[o.idx[i]].name, want[i]);
        CHECK(strcmp(m->params[o.idx[i]].name, want[i]) == 0);
    }
    tmodel_data_free(&d);
    sim_model_destroy(r, m);
    return 0;
}

static int ready_order(SimRank *r) {
    static const char *const relu[] = {"4.bias", "4.weight", "2.bias", "2.weight", "0.bias",
                                       "0.weight"};
    CHECK(order_is(r, "mlp:8,16,16,4", 5, 0, relu, 6, 0) == 0);
    static const char *const bn[] = {"6.bias",   "6.weight", "4.weight", "4.bias", "3.bias",
                                     "3.weight", "1.weight", "1.bias",   "0.bias", "0.weight"};
    CHECK(order_is(r, "mlp:8,16,16,4,act=gelu,bn", 5, 0, bn, 10, 0) == 0);
    static const char *const even[] = {"5.bias", "5.weight", "4.bias",   "4.weight",
                                       "2.bias", "2.weight", "0.bias", "0.weight"};
    CHECK(order_is(r, "mlp:8,16,16,4,unused", 5, 0, even, 8, 0) == 0);
    CHECK(order_is(r, "mlp:8,16,16,4,unused", 5, 1, even + 2, 6, 0) == 0);
    const char *const *gpt = tmodel_gpt2_order();
    CHECK(order_is(r, "gpt:layers=2,embd=16,heads=2,ctx=8,vocab=11", 2, 0, gpt, 25, 0) == 0);
    // Phantom mode reports the same order.
    CHECK(order_is(r, "gpt:layers=2,embd=16,heads=2,ctx=8,vocab=11", 2, 0, gpt, 25, 1) == 0);
    CHECK(order_is(r, "mlp:8,16,16,4,unused", 5, 1, even + 2, 6, 1) == 0);
    return 0;
}

// ---------------------------------------------------------------------------
// accumulation, scaling, the unused branch

static int accumulation(SimRank *r) {
    const char *specs[] = {"mlp:6,12,12,3,act=gelu,bn", "mlp:6,12,4,mse",
                           "gpt:layers=1,embd=8,heads=2,ctx=6,vocab=7"};
    for (int s = 0; s < 3; s++) {
        SimModel *m = make(r, specs[s], 4, 0);
        CHECK(m);
        TModelData d;
        CHECK(tmodel_data(&d, m, 4, 0, 11) == 0);
        float l1, l2;
        CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP32, &l1) == SIM_OK);
        CHECK(sim_model_backward(r, m, 1.0f, NULL, NULL) == SIM_OK);
        float *g1 = tmodel_download(r, &m->grad);
        CHECK(sim_model_backward(r, m, 1.0f, NULL, NULL) == SIM_OK); // accumulates
        float *g2 = tmodel_download(r, &m->grad);
        CHECK(sim_model_zero_grad(r, m) == SIM_OK);
        CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP32, &l2) == SIM_OK);
        CHECK(sim_model_backward(r, m, 2.0f, NULL, NULL) == SIM_OK); // one factor
        float *g3 = tmodel_download(r, &m->grad);
        CHECK(g1 && g2 && g3);
        double nz = 0;
        for (size_t k = 0; k < m->param_count; k++) {
            // BLAS adds into the existing gradient in its own order: not bit
            // for bit, but within a few ulps.
            CHECK_NEAR(g2[k], 2.0 * g1[k], 1e-5 * fabs(g1[k]) + 1e-9);
            CHECK_NEAR(g3[k], 2.0 * g1[k], 1e-5 * fabs(g1[k]) + 1e-9);
            nz += g1[k] != 0;
        }
        CHECK(nz > 0.5 * (double)m->param_count);
        CHECK(l1 > 0);
        // BatchNorm updated its running statistics on both forwards.
        CHECK(s != 0 || fabs(l2 - l1) < 1e-6);
        free(g1);
        free(g2);
        free(g3);
        tmodel_data_free(&d);
        sim_model_destroy(r, m);
    }
    return 0;
}

static int unused_branch(SimRank *r) {
    SimModel *m = make(r, "mlp:8,16,4,unused", 6, 0);
    CHECK(m);
    TModelData d;
    CHECK(tmodel_data(&d, m, 6, 0, 3) == 0);
    int aw = sim_model_find_param(m, "3.weight"), ab = aw + 1;
    float l0, l1;
    for (int step = 1; step >= 0; step--) {
        CHECK(sim_model_zero_grad(r, m) == SIM_OK);
        CHECK(sim_model_forward(r, m, &d.batch, step, SIM_FP32, step ? &l1 : &l0) == SIM_OK);
        CHECK_EQ_INT(sim_model_param_used(m, aw), step == 0);
        CHECK_EQ_INT(sim_model_param_used(m, ab), step == 0);
        CHECK_EQ_INT(sim_model_param_used(m, 0), 1);
        CHECK(sim_model_backward(r, m, 1.0f, NULL, NULL) == SIM_OK);
        float *g = tmodel_download(r, &m->grad);
        CHECK(g);
        double aux = 0;
        for (size_t k = m->params[aw].offset; k < m->param_count; k++)
            aux += fabs(g[k]);
        CHECK(step ? aux == 0 : aux > 0);
        free(g);
    }
    CHECK(l0 != l1); // the extra head changes the output on even steps
    tmodel_data_free(&d);
    sim_model_destroy(r, m);
    return 0;
}

// A short batch on a model made for more gives what a model made for that
// batch gives, bit for bit.
static int short_batch(SimRank *r) {
    const char *specs[] = {"mlp:5,9,3,bn", "gpt:layers=2,embd=8,heads=2,ctx=6,vocab=9"};
    for (int s = 0; s < 2; s++) {
        SimModel *big = make(r, specs[s], 7, 0), *small = make(r, specs[s], 3, 0);
        CHECK(big && small);
        TModelData d;
        CHECK(tmodel_data(&d, big, 3, s ? 4 : 0, 8) == 0); // gpt: 4 of 6 tokens
        float lb, ls;
        CHECK(sim_model_forward(r, big, &d.batch, 0, SIM_FP32, &lb) == SIM_OK);
        CHECK(sim_model_forward(r, small, &d.batch, 0, SIM_FP32, &ls) == SIM_OK);
        CHECK(sim_model_backward(r, big, 1.0f, NULL, NULL) == SIM_OK);
        CHECK(sim_model_backward(r, small, 1.0f, NULL, NULL) == SIM_OK);
        CHECK(lb == ls);
        float *gb = tmodel_download(r, &big->grad), *gs = tmodel_download(r, &small->grad);
        CHECK(gb && gs);
        CHECK(memcmp(gb, gs, big->param_count * sizeof *gb) == 0);
        if (s == 1) { // positions past the sequence get no gradient
            int pe = sim_model_find_param(big, "pos_emb.weight");
            for (size_t k = 4 * 8; k < 6 * 8; k++)
                CHECK_EQ_INT(gb[big->params[pe].offset + k], 0);
            CHECK(gb[big->params[pe].offset] != 0);
        }
        const SimTensor *out = sim_model_output(big);
        CHECK(out && out->shape[0] == 3);
        free(gb);
        free(gs);
        tmodel_data_free(&d);
        sim_model_destroy(r, big);
        sim_model_destroy(r, small);
    }
    return 0;
}

// BatchNorm: training updates running stats and the counter; eval uses them.
static int batchnorm_modes(SimRank *r) {
    SimModel *m = make(r, "mlp:4,6,3,bn", 8, 0);
    CHECK(m);
    TModelData d;
    CHECK(tmodel_data(&d, m, 8, 0, 21) == 0);
    float lt, le, le2;
    CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP32, &lt) == SIM_OK);
    CHECK(sim_model_forward(r, m, &d.batch, 1, SIM_FP32, &lt) == SIM_OK);
    float *b = tmodel_download(r, &m->buffer);
    CHECK(b);
    CHECK_EQ_INT(b[m->buffers[2].offset], 2); // num_batches_tracked
    CHECK(b[m->buffers[0].offset] != 0);      // running_mean moved
    free(b);
    sim_model_set_training(m, 0);
    CHECK(sim_model_forward(r, m, &d.batch, 2, SIM_FP32, &le) == SIM_OK);
    CHECK(le != lt);
    CHECK((b = tmodel_download(r, &m->buffer)) != NULL);
    CHECK_EQ_INT(b[m->buffers[2].offset], 2); // eval leaves the buffers alone
    free(b);
    // Eval with one sample works (running statistics need no batch).
    d.batch.n = 1;
    CHECK(sim_model_forward(r, m, &d.batch, 3, SIM_FP32, &le2) == SIM_OK);
    CHECK(sim_model_backward(r, m, 1.0f, NULL, NULL) == SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "eval-mode forward is not supported");
    sim_model_set_training(m, 1);
    CHECK(sim_model_forward(r, m, &d.batch, 3, SIM_FP32, &le2) == SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "more than 1 value per channel");
    tmodel_data_free(&d);
    sim_model_destroy(r, m);
    return 0;
}

// Autocast: matrix products read rounded inputs, so losses move by about
// the rounding of the type (bf16: 8 bits, fp16: 11 bits) and no more.
static int amp_rounding(SimRank *r) {
    const char *specs[] = {"mlp:16,32,32,5,act=gelu,bn", "gpt:layers=1,embd=16,heads=2,ctx=6,"
                                                          "vocab=7"};
    for (int s = 0; s < 2; s++) {
        SimModel *m = make(r, specs[s], 8, 0);
        CHECK(m);
        TModelData d;
        CHECK(tmodel_data(&d, m, 8, 0, 4) == 0);
        float l32, l16, lb16;
        CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP32, &l32) == SIM_OK);
        CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP16, &l16) == SIM_OK);
        CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_BF16, &lb16) == SIM_OK);
        CHECK(sim_model_backward(r, m, 1.0f, NULL, NULL) == SIM_OK); // through bf16 products
        CHECK(l16 != l32 && lb16 != l32);
        CHECK(fabs(l16 - l32) < 2e-3 * l32);
        CHECK(fabs(lb16 - l32) < 3e-2 * l32);
        CHECK(fabs(lb16 - l32) > fabs(l16 - l32)); // bf16 keeps fewer bits
        tmodel_data_free(&d);
        sim_model_destroy(r, m);
    }
    return 0;
}

int main(void) {
    int failures = 0;
    TModelRun runs[] = {
        {"tables", tables},
        {"init_values", init_values},
        {"ready_order", ready_order},
        {"accumulation", accumulation},
        {"unused_branch", unused_branch},
        {"short_batch", short_batch},
        {"batchnorm_modes", batchnorm_modes},
        {"amp_rounding", amp_rounding},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        int rc = tmodel_run(&runs[i]);
        printf("%s %s\n", rc == 0 ? "ok    " : "FAILED", runs[i].name);
        failures += rc != 0;
    }
    return failures != 0;
}
