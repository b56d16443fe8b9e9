// tests/test_model_checks.c: the models' gradients against finite
// differences of their own loss, phantom mode (GPT-2 and GPT-3 sized models
// run forward and backward with no storage at all), and every kind of bad
// batch or spec a caller can hand them.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "model/model.h"
#include "test_model_util.h"

static SimModel *make(SimRank *r, const char *text, int max_batch, int phantom) {
    SimModelSpec spec;
    char err[512];
    SimModel *m = NULL;
    if (sim_model_parse(text, &spec, err, sizeof err) != SIM_OK ||
        sim_model_create(r, &spec, max_batch, phantom, &m) != SIM_OK ||
        sim_model_init(r, m, 7) != SIM_OK) {
        fprintf(stderr, "%s: %s %s\n", text, err, r->error);
        sim_model_destroy(r, m);
        return NULL;
    }
    return m;
}

// ---------------------------------------------------------------------------
// finite differences: (L(p + e) - L(p - e)) / 2e against backward, for three
// entries of every parameter (fp32 losses, so e is large and the tolerance
// loose; test_model_torch holds the gradients to 1e-5 against PyTorch)

static int fd_model(SimRank *r, const char *spec, int n, int seq) {
    SimModel *m = make(r, spec, n, 0);
    CHECK(m);
    TModelData d;
    CHECK(tmodel_data(&d, m, n, seq, 5) == 0);
    float loss, lp, lm;
    CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP32, &loss) == SIM_OK);
    CHECK(sim_model_backward(r, m, 1.0f, NULL, NULL) == SIM_OK);
    float *g = tmodel_download(r, &m->grad), *p = tmodel_download(r, &m->param);
    CHECK(g && p);
    const float eps = 1e-2f;
    int checked = 0;
    for (int i = 0; i < m->nparams; i++) {
        const SimParamInfo *pi = &m->params[i];
        size_t at[3] = {0, pi->numel / 2, pi->numel - 1};
        for (int j = 0; j < 3; j++) {
            size_t k = pi->offset + at[j];
            float keep = p[k];
            p[k] = keep + eps;
            CHECK(sim_tensor_upload(r, &m->param, p) == SIM_OK);
            CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP32, &lp) == SIM_OK);
            p[k] = keep - eps;
            CHECK(sim_tensor_upload(r, &m->param, p) == SIM_OK);
            CHECK(sim_model_forward(r, m, &d.batch, 0, SIM_FP32, &lm) == SIM_OK);
            p[k] = keep;
            double fd = ((double)lp - (double)lm) / (2.0 * eps);
            double tol = 2e-3 + 3e-2 * fabs(g[k]);
            if (!(fabs(fd - g[k]) <= tol))
                fprintf(stderr, "%s: %s[%zu]: backward %.6g, finite difference %.6g\n", spec,
                        pi->name, at[j], g[k], fd);
            CHECK(fabs(fd - g[k]) <= tol);
            checked++;
        }
    }
    CHECK_EQ_INT(checked, 3 * m->nparams);
    free(g);
    free(p);
    tmodel_data_free(&d);
    sim_model_destroy(r, m);
    return 0;
}

static int finite_differences(SimRank *r) {
    CHECK(fd_model(r, "mlp:5,7,3,act=gelu", 4, 0) == 0);
    CHECK(fd_model(r, "mlp:5,7,6,3,act=gelu,bn", 6, 0) == 0);
    CHECK(fd_model(r, "mlp:5,7,4,act=gelu,mse", 4, 0) == 0);
    CHECK(fd_model(r, "mlp:5,7,3,act=gelu,unused", 4, 0) == 0);
    CHECK(fd_model(r, "gpt:layers=1,embd=8,heads=2,ctx=5,vocab=6", 2, 4) == 0);
    return 0;
}

// ---------------------------------------------------------------------------
// phantom mode

static int phantom_run(SimRank *r, const char *spec, int n, int seq, size_t want_params,
                       int want_hooks) {
    SimModel *m = make(r, spec, n, 1);
    CHECK(m);
    if (want_params)
        CHECK_EQ_INT(m->param_count, want_params);
    CHECK(m->param.data == NULL && m->grad.data == NULL && m->buffer.data == NULL);
    SimBatch b;
    memset(&b, 0, sizeof b); // sizes only: a phantom model reads no data
    b.n = n;
    b.seq = seq;
    if (m->spec.kind == SIM_MODEL_MLP) {
        b.features = m->spec.widths[0];
        b.target_dim = m->spec.mse ? m->spec.widths[m->spec.nwidths - 1] : 0;
    }
    double t0 = r->clock[SIM_STREAM_COMPUTE];
    float loss = -1;
    TModelOrder o = {0};
    CHECK(sim_model_forward(r, m, &b, 0, SIM_BF16, &loss) == SIM_OK);
    CHECK_EQ_INT(loss, 0);
    double t1 = r->clock[SIM_STREAM_COMPUTE];
    CHECK(t1 > t0); // the math is priced even though it is skipped
    CHECK(sim_model_backward(r, m, 65536.0f, tmodel_record, &o) == SIM_OK);
    CHECK(r->clock[SIM_STREAM_COMPUTE] > t1 + (t1 - t0)); // backward costs about 2x forward
    CHECK_EQ_INT(o.n, want_hooks);
    const SimTensor *out = sim_model_output(m);
    CHECK(out && out->data == NULL);
    CHECK(sim_model_zero_grad(r, m) == SIM_OK);
    sim_model_destroy(r, m);
    return 0;
}

static int phantom(SimRank *r) {
    // GPT-2 small's shapes (MiniGPT has no biases in attention and head).
    size_t C = 768, L = 12, V = 50257, T = 1024;
    size_t gpt2 = V * C + T * C + L * (12 * C * C + 9 * C) + 2 * C + V * C;
    CHECK(phantom_run(r, "gpt:layers=12,embd=768,heads=12,ctx=1024,vocab=50257", 8, 1024, gpt2,
                      (int)(10 * L + 5)) == 0);
    // GPT-3 175B's shapes: far beyond this machine's memory.
    C = 12288, L = 96, V = 50257, T = 2048;
    size_t gpt3 = V * C + T * C + L * (12 * C * C + 9 * C) + 2 * C + V * C;
    CHECK(gpt3 > (size_t)174e9);
    CHECK(phantom_run(r, "gpt:layers=96,embd=12288,heads=96,ctx=2048,vocab=50257", 1, 2048, gpt3,
                      (int)(10 * L + 5)) == 0);
    CHECK(phantom_run(r, "mlp:65536,65536,65536,10,bn,unused", 512, 0, 0, 12) == 0);
    CHECK(phantom_run(r, "mlp:1024,4096,1000,mse", 64, 0, 0, 4) == 0);
    // The trace has the skipped ops, marked as phantom.
    const SimTrace *t = r->world->trace;
    size_t ne = sim_trace_rank_count(t, 0), phantoms = 0;
    const SimEvent *ev = sim_trace_rank_events(t, 0);
    for (size_t i = 0; i < ne; i++)
        phantoms += ev[i].kind == SIM_EV_COMPUTE && ev[i].label &&
                    strcmp(ev[i].label, "phantom") == 0;
    CHECK(phantoms > 100);
    return 0;
}

// ---------------------------------------------------------------------------
// bad batches and specs

static int expect(SimRank *r, SimModel *m, const SimBatch *b, const char *message) {
    float loss;
    SimStatus st = sim_model_forward(r, m, b, 0, SIM_FP32, &loss);
    if (st != SIM_EINVAL)
        fprintf(stderr, "accepted a batch that should fail with \"%s\"\n", message);
    CHECK_EQ_INT(st, SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, message);
    CHECK_EQ_INT(sim_model_backward(r, m, 1.0f, NULL, NULL), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "no successful forward");
    return 0;
}

static int bad_mlp_batches(SimRank *r) {
    SimModel *m = make(r, "mlp:5,8,10", 4, 0);
    CHECK(m);
    TModelData d;
    CHECK(tmodel_data(&d, m, 4, 0, 1) == 0);
    SimBatch b = d.batch;
    b.features = 7;
    CHECK(expect(r, m, &b, "the batch has 7 features per sample but the model's input width "
                           "is 5") == 0);
    b = d.batch;
    b.x = NULL;
    CHECK(expect(r, m, &b, "and no feature data") == 0);
    b = d.batch;
    b.n = 5;
    CHECK(expect(r, m, &b, "batch of 5 samples (allowed: 1..4, the size the model was created "
                           "for)") == 0);
    b.n = 0;
    CHECK(expect(r, m, &b, "batch of 0 samples") == 0);
    b = d.batch;
    b.labels = NULL;
    CHECK(expect(r, m, &b, "cross-entropy needs labels and the batch has none") == 0);
    d.labels[2] = 10;
    b = d.batch;
    CHECK(expect(r, m, &b, "label 10 at batch sample 2 (dataset index 102) is out of range "
                           "0..9") == 0);
    d.labels[2] = -1;
    CHECK(expect(r, m, &b, "label -1 at batch sample 2") == 0);
    d.labels[2] = 3;
    float loss;
    CHECK_EQ_INT(sim_model_forward(r, m, &b, 0, SIM_INT32, &loss), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "amp must be fp32 (off), fp16 or bf16, not int32");
    CHECK_EQ_INT(sim_model_forward(r, m, &b, 0, SIM_FP32, &loss), SIM_OK); // still usable
    CHECK_EQ_INT(sim_model_backward(r, m, 1.0f, NULL, NULL), SIM_OK);
    tmodel_data_free(&d);
    sim_model_destroy(r, m);

    m = make(r, "mlp:5,8,3,mse", 4, 0);
    CHECK(m);
    CHECK(tmodel_data(&d, m, 4, 0, 1) == 0);
    b = d.batch;
    b.target_dim = 2;
    CHECK(expect(r, m, &b, "the batch has 2 targets per sample but the model's output width "
                           "is 3") == 0);
    b = d.batch;
    b.targets = NULL;
    CHECK(expect(r, m, &b, "the batch has 0 targets per sample") == 0);
    tmodel_data_free(&d);
    sim_model_destroy(r, m);
    return 0;
}

static int bad_gpt_batches(SimRank *r) {
    SimModel *m = make(r, "gpt:layers=1,embd=8,heads=2,ctx=6,vocab=9", 2, 0);
    CHECK(m);
    TModelData d;
    CHECK(tmodel_data(&d, m, 2, 6, 1) == 0);
    SimBatch b = d.batch;
    b.seq = 7;
    CHECK(expect(r, m, &b, "sequences of 7 tokens (allowed: 1..6, the model's ctx)") == 0);
    b.seq = 0;
    CHECK(expect(r, m, &b, "sequences of 0 tokens") == 0);
    b = d.batch;
    b.tokens = NULL;
    CHECK(expect(r, m, &b, "the batch has no token ids") == 0);
    b = d.batch;
    b.labels = NULL;
    CHECK(expect(r, m, &b, "the batch has no targets") == 0);
    b = d.batch;
    d.tokens[6 + 2] = 9;
    CHECK(expect(r, m, &b, "token 9 at batch sample 1 (dataset index 101), position 2 is out of "
                           "range 0..8") == 0);
    d.tokens[6 + 2] = 0;
    d.labels[5] = 42;
    CHECK(expect(r, m, &b, "target 42 at batch sample 0 (dataset index 100), position 5") == 0);
    tmodel_data_free(&d);
    sim_model_destroy(r, m);
    return 0;
}

static int bad_create(SimRank *r) {
    SimModelSpec s;
    char err[256];
    SimModel *m = (SimModel *)&s; // must be reset to NULL on failure
    CHECK_EQ_INT(sim_model_parse("mlp:4,3", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_model_create(r, &s, 0, 0, &m), SIM_EINVAL);
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(r->error, "max_batch 0 must be at least 1");
    s.nwidths = 1;
    CHECK_EQ_INT(sim_model_create(r, &s, 4, 0, &m), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "invalid spec");
    s.nwidths = 2;
    s.widths[1] = 0;
    CHECK_EQ_INT(sim_model_create(r, &s, 4, 0, &m), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "width 2 \"0\" is not an integer");
    CHECK_EQ_INT(sim_model_parse("gpt:layers=1,embd=8,heads=2,ctx=6,vocab=9", &s, err, sizeof err),
                 SIM_OK);
    s.heads = 3;
    CHECK_EQ_INT(sim_model_create(r, &s, 4, 0, &m), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "embd=8 is not divisible by heads=3");
    s.kind = (SimModelKind)7;
    CHECK_EQ_INT(sim_model_create(r, &s, 4, 0, &m), SIM_EINVAL);
    CHECK(m == NULL);
    sim_model_destroy(r, NULL);
    return 0;
}

int main(void) {
    int failures = 0;
    TModelRun runs[] = {
        {"finite_differences", finite_differences},
        {"phantom", phantom},
        {"bad_mlp_batches", bad_mlp_batches},
        {"bad_gpt_batches", bad_gpt_batches},
        {"bad_create", bad_create},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        int rc = tmodel_run(&runs[i]);
        printf("%s %s\n", rc == 0 ? "ok    " : "FAILED", runs[i].name);
        failures += rc != 0;
    }
    return failures != 0;
}
