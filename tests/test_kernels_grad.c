// tests/test_kernels_grad.c: finite-difference checks of every backward
// kernel against its own forward, through the op wrappers on one CPU rank.
//
// For an op with output `out`, the test takes L = sum(out * R) for a random
// R, gets the analytic gradient of L from the backward kernel with dout = R,
// and compares it with central differences (L(x+h) - L(x-h)) / 2h of the
// fp32 forward, L summed in double. With h = 1e-2 on inputs of order one,
// truncation error (~h^2 times the third derivative) and fp32 noise (~1e-7
// |L| / h) stay near 1e-5 of the gradient, so the stated tolerance is: the
// largest difference over the checked elements is below 5e-4 of the largest
// gradient element.
// ReLU inputs are kept at least 0.1 away from the kink at 0.
//
// Every backward also runs twice into the same buffers, which must double
// the gradients: the kernels accumulate.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_kernels_util.h"
#include "test_world.h"

#define FD_H 1e-2f
#define FD_TOL 5e-4

typedef double (*LossFn)(SimRank *r, void *op);

static double dot(const SimTensor *a, const SimTensor *b) {
    double s = 0;
    size_t n = sim_tensor_numel(a);
    for (size_t i = 0; i < n; i++)
        s += (double)tk_f(a)[i] * tk_f(b)[i];
    return s;
}

// Compares the analytic gradient g (n) of L with respect to x with central
// differences; checks up to 48 elements spread over x.
static int fd_check(SimRank *r, const char *what, float *x, const float *g, size_t n, LossFn f,
                    void *op) {
    double gmax = 0, worst = 0;
    for (size_t i = 0; i < n; i++)
        gmax = fmax(gmax, fabs(g[i]));
    size_t stride = n > 48 ? n / 48 : 1;
    for (size_t i = 0; i < n; i += stride) {
        float x0 = x[i];
        float xp = x0 + FD_H, xm = x0 - FD_H;
        x[i] = xp;
        double lp = f(r, op);
        x[i] = xm;
        double lm = f(r, op);
        x[i] = x0;
        double fd = (lp - lm) / ((double)xp - (double)xm);
        double err = fabs(fd - g[i]);
        if (!(err <= worst))
            worst = isnan(err) ? INFINITY : err;
    }
    double rel = worst / (gmax > 1e-6 ? gmax : 1e-6);
    printf("  %-28s max |fd - grad| / max |grad| = %.2e (max |grad| %.3g)\n", what, rel, gmax);
    CHECK(gmax > 0);
    CHECK(rel <= FD_TOL);
    return 0;
}

// After a second backward into the same buffers, g2 must be 2 * g1.
static int doubled(const char *what, const float *g2, const float *g1, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(g1[i]));
    for (size_t i = 0; i < n; i++)
        if (!(fabs(g2[i] - 2.0 * g1[i]) <= 1e-6 * m + 1e-30)) {
            fprintf(stderr, "%s: backward does not accumulate at %zu: %g vs 2 x %g\n", what, i,
                    g2[i], g1[i]);
            return 1;
        }
    return 0;
}

static float *copy(const SimTensor *t) {
    size_t b = sim_tensor_bytes(t);
    float *p = malloc(b ? b : 1);
    if (p)
        memcpy(p, t->data, b);
    return p;
}

// ----------------------------------------------------------------------------
// Linear

typedef struct {
    SimTensor out, inp, w, b, R, dinp, dw, db;
    int bias;
} LinOp;

static double lin_loss(SimRank *r, void *p) {
    LinOp *o = p;
    if (sim_op_linear_forward(r, &o->out, &o->inp, &o->w, o->bias ? &o->b : NULL, SIM_FP32))
        return NAN;
    return dot(&o->out, &o->R);
}

static SimStatus lin_bwd(SimRank *r, LinOp *o) {
    return sim_op_linear_backward(r, &o->dinp, &o->dw, o->bias ? &o->db : NULL, &o->R, &o->inp,
                                  &o->w, SIM_FP32);
}

static int test_linear(SimRank *r, int bias) {
    TkRng g;
    tk_seed(&g, 11 + bias);
    TkList l = {0};
    LinOp o = {.bias = bias};
    int64_t N = 4, C = 5, OC = 3;
    int rc = tk_make(r, &l, &o.inp, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &o.dinp, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &o.w, SIM_FP32, 2, (int64_t[]){OC, C}) ||
             tk_make(r, &l, &o.dw, SIM_FP32, 2, (int64_t[]){OC, C}) ||
             tk_make(r, &l, &o.b, SIM_FP32, 1, (int64_t[]){OC}) ||
             tk_make(r, &l, &o.db, SIM_FP32, 1, (int64_t[]){OC}) ||
             tk_make(r, &l, &o.out, SIM_FP32, 2, (int64_t[]){N, OC}) ||
             tk_make(r, &l, &o.R, SIM_FP32, 2, (int64_t[]){N, OC});
    float *g1 = NULL;
    if (rc == 0) {
        tk_fill_normal(&g, tk_f(&o.inp), N * C, 1);
        tk_fill_normal(&g, tk_f(&o.w), OC * C, 1);
        tk_fill_normal(&g, tk_f(&o.b), OC, 1);
        tk_fill_normal(&g, tk_f(&o.R), N * OC, 1);
        rc = lin_bwd(r, &o) != SIM_OK;
        rc = rc || fd_check(r, "linear dinp", tk_f(&o.inp), tk_f(&o.dinp), N * C, lin_loss, &o);
        rc = rc || fd_check(r, "linear dweight", tk_f(&o.w), tk_f(&o.dw), OC * C, lin_loss, &o);
        if (bias)
            rc = rc || fd_check(r, "linear dbias", tk_f(&o.b), tk_f(&o.db), OC, lin_loss, &o);
        g1 = copy(&o.dw);
        rc = rc || g1 == NULL || lin_bwd(r, &o) != SIM_OK ||
             doubled("linear dweight", tk_f(&o.dw), g1, OC * C);
    }
    free(g1);
    tk_free(r, &l);
    return rc;
}

static int test_linear_bias(SimRank *r) { return test_linear(r, 1); }
static int test_linear_nobias(SimRank *r) { return test_linear(r, 0); }

// ----------------------------------------------------------------------------
// activations

typedef struct {
    SimTensor out, inp, R, dinp;
    SimAct act;
} ActOp;

static double act_loss(SimRank *r, void *p) {
    ActOp *o = p;
    if (sim_op_act_forward(r, o->act, &o->out, &o->inp))
        return NAN;
    return dot(&o->out, &o->R);
}

static int test_act(SimRank *r, SimAct act, const char *name) {
    TkRng g;
    tk_seed(&g, 20 + act);
    TkList l = {0};
    ActOp o = {.act = act};
    int64_t n = 40;
    int rc = tk_make(r, &l, &o.inp, SIM_FP32, 1, &n) || tk_make(r, &l, &o.out, SIM_FP32, 1, &n) ||
             tk_make(r, &l, &o.R, SIM_FP32, 1, &n) || tk_make(r, &l, &o.dinp, SIM_FP32, 1, &n);
    float *g1 = NULL;
    if (rc == 0) {
        for (int64_t i = 0; i < n; i++) { // |x| in [0.1, 3]: away from ReLU's kink
            float m = tk_uniform(&g, 0.1f, 3.0f);
            tk_f(&o.inp)[i] = i % 2 ? m : -m;
        }
        tk_fill_normal(&g, tk_f(&o.R), n, 1);
        rc = sim_op_act_backward(r, act, &o.dinp, &o.inp, &o.R) != SIM_OK;
        rc = rc || fd_check(r, name, tk_f(&o.inp), tk_f(&o.dinp), n, act_loss, &o);
        g1 = copy(&o.dinp);
        rc = rc || g1 == NULL || sim_op_act_backward(r, act, &o.dinp, &o.inp, &o.R) != SIM_OK ||
             doubled(name, tk_f(&o.dinp), g1, n);
    }
    free(g1);
    tk_free(r, &l);
    return rc;
}

static int test_relu(SimRank *r) { return test_act(r, SIM_ACT_RELU, "relu dinp"); }
static int test_gelu(SimRank *r) { return test_act(r, SIM_ACT_GELU, "gelu dinp"); }
static int test_gelu_tanh(SimRank *r) { return test_act(r, SIM_ACT_GELU_TANH, "gelu_tanh dinp"); }

// ----------------------------------------------------------------------------
// LayerNorm and BatchNorm1d (training), which share a layout: inp [N, C],
// weight and bias [C], two saved statistics.

typedef struct {
    SimTensor out, inp, w, b, R, s1, s2, rm, rv, dinp, dw, db;
    int batchnorm;
} NormOp;

static double norm_loss(SimRank *r, void *p) {
    NormOp *o = p;
    SimStatus st = o->batchnorm ? sim_op_batchnorm_forward(r, &o->out, &o->s1, &o->s2, &o->rm,
                                                           &o->rv, &o->inp, &o->w, &o->b, 0.1f,
                                                           1e-5f, 1)
                                : sim_op_layernorm_forward(r, &o->out, &o->s1, &o->s2, &o->inp,
                                                           &o->w, &o->b, 1e-5f);
    return st == SIM_OK ? dot(&o->out, &o->R) : NAN;
}

static SimStatus norm_bwd(SimRank *r, NormOp *o) {
    if (o->batchnorm)
        return sim_op_batchnorm_backward(r, &o->dinp, &o->dw, &o->db, &o->R, &o->inp, &o->w,
                                         &o->s1, &o->s2);
    return sim_op_layernorm_backward(r, &o->dinp, &o->dw, &o->db, &o->R, &o->inp, &o->w, &o->s1,
                                     &o->s2);
}

static int test_norm(SimRank *r, int batchnorm) {
    TkRng g;
    tk_seed(&g, 30 + batchnorm);
    TkList l = {0};
    NormOp o = {.batchnorm = batchnorm};
    int64_t N = batchnorm ? 6 : 3, C = batchnorm ? 4 : 8;
    int64_t nstat = batchnorm ? C : N;
    int rc = tk_make(r, &l, &o.inp, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &o.out, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &o.R, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &o.dinp, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &o.w, SIM_FP32, 1, &C) || tk_make(r, &l, &o.b, SIM_FP32, 1, &C) ||
             tk_make(r, &l, &o.dw, SIM_FP32, 1, &C) || tk_make(r, &l, &o.db, SIM_FP32, 1, &C) ||
             tk_make(r, &l, &o.rm, SIM_FP32, 1, &C) || tk_make(r, &l, &o.rv, SIM_FP32, 1, &C) ||
             tk_make(r, &l, &o.s1, SIM_FP32, 1, &nstat) ||
             tk_make(r, &l, &o.s2, SIM_FP32, 1, &nstat);
    const char *name = batchnorm ? "batchnorm" : "layernorm";
    char what[64];
    float *g1 = NULL;
    if (rc == 0) {
        tk_fill_normal(&g, tk_f(&o.inp), N * C, 1);
        tk_fill_uniform(&g, tk_f(&o.w), C, 0.5f, 1.5f);
        tk_fill_normal(&g, tk_f(&o.b), C, 1);
        tk_fill_normal(&g, tk_f(&o.R), N * C, 1);
        rc = !(norm_loss(r, &o) == norm_loss(r, &o)) || norm_bwd(r, &o) != SIM_OK;
        snprintf(what, sizeof what, "%s dinp", name);
        rc = rc || fd_check(r, what, tk_f(&o.inp), tk_f(&o.dinp), N * C, norm_loss, &o);
        snprintf(what, sizeof what, "%s dweight", name);
        rc = rc || fd_check(r, what, tk_f(&o.w), tk_f(&o.dw), C, norm_loss, &o);
        snprintf(what, sizeof what, "%s dbias", name);
        rc = rc || fd_check(r, what, tk_f(&o.b), tk_f(&o.db), C, norm_loss, &o);
        // the saved statistics are those of the unperturbed input again
        rc = rc || !(norm_loss(r, &o) == norm_loss(r, &o));
        g1 = copy(&o.dinp);
        rc = rc || g1 == NULL || norm_bwd(r, &o) != SIM_OK ||
             doubled(name, tk_f(&o.dinp), g1, N * C);
    }
    free(g1);
    tk_free(r, &l);
    return rc;
}

static int test_layernorm(SimRank *r) { return test_norm(r, 0); }
static int test_batchnorm(SimRank *r) { return test_norm(r, 1); }

// ----------------------------------------------------------------------------
// embedding

typedef struct {
    SimTensor out, idx, wte, wpe, R, dwte, dwpe;
} EmbOp;

static double emb_loss(SimRank *r, void *p) {
    EmbOp *o = p;
    if (sim_op_embedding_forward(r, &o->out, &o->idx, &o->wte, &o->wpe))
        return NAN;
    return dot(&o->out, &o->R);
}

static int test_embedding(SimRank *r) {
    TkRng g;
    tk_seed(&g, 40);
    TkList l = {0};
    EmbOp o;
    int64_t B = 2, T = 3, C = 4, V = 5, maxT = 4;
    int rc = tk_make(r, &l, &o.out, SIM_FP32, 3, (int64_t[]){B, T, C}) ||
             tk_make(r, &l, &o.R, SIM_FP32, 3, (int64_t[]){B, T, C}) ||
             tk_make(r, &l, &o.idx, SIM_INT32, 2, (int64_t[]){B, T}) ||
             tk_make(r, &l, &o.wte, SIM_FP32, 2, (int64_t[]){V, C}) ||
             tk_make(r, &l, &o.dwte, SIM_FP32, 2, (int64_t[]){V, C}) ||
             tk_make(r, &l, &o.wpe, SIM_FP32, 2, (int64_t[]){maxT, C}) ||
             tk_make(r, &l, &o.dwpe, SIM_FP32, 2, (int64_t[]){maxT, C});
    if (rc == 0) {
        int32_t ids[6] = {1, 4, 1, 0, 3, 1}; // token 1 repeats: its gradient sums
        memcpy(o.idx.data, ids, sizeof ids);
        tk_fill_normal(&g, tk_f(&o.wte), V * C, 1);
        tk_fill_normal(&g, tk_f(&o.wpe), maxT * C, 1);
        tk_fill_normal(&g, tk_f(&o.R), B * T * C, 1);
        rc = sim_op_embedding_backward(r, &o.dwte, &o.dwpe, &o.R, &o.idx) != SIM_OK;
        rc = rc || fd_check(r, "embedding dwte", tk_f(&o.wte), tk_f(&o.dwte), V * C, emb_loss, &o);
        rc = rc || fd_check(r, "embedding dwpe", tk_f(&o.wpe), tk_f(&o.dwpe), maxT * C, emb_loss,
                            &o);
    }
    tk_free(r, &l);
    return rc;
}

// ----------------------------------------------------------------------------
// attention

typedef struct {
    SimTensor out, qkv, pre, att, R, dqkv, dpre, datt;
    int heads;
} AttnOp;

static double attn_loss(SimRank *r, void *p) {
    AttnOp *o = p;
    if (sim_op_attention_forward(r, &o->out, &o->pre, &o->att, &o->qkv, o->heads))
        return NAN;
    return dot(&o->out, &o->R);
}

static int test_attention(SimRank *r) {
    TkRng g;
    tk_seed(&g, 50);
    TkList l = {0};
    AttnOp o = {.heads = 2};
    int64_t B = 2, T = 4, C = 8, NH = 2;
    int rc = tk_make(r, &l, &o.qkv, SIM_FP32, 3, (int64_t[]){B, T, 3 * C}) ||
             tk_make(r, &l, &o.dqkv, SIM_FP32, 3, (int64_t[]){B, T, 3 * C}) ||
             tk_make(r, &l, &o.out, SIM_FP32, 3, (int64_t[]){B, T, C}) ||
             tk_make(r, &l, &o.R, SIM_FP32, 3, (int64_t[]){B, T, C}) ||
             tk_make(r, &l, &o.pre, SIM_FP32, 4, (int64_t[]){B, NH, T, T}) ||
             tk_make(r, &l, &o.att, SIM_FP32, 4, (int64_t[]){B, NH, T, T}) ||
             tk_make(r, &l, &o.dpre, SIM_FP32, 4, (int64_t[]){B, NH, T, T}) ||
             tk_make(r, &l, &o.datt, SIM_FP32, 4, (int64_t[]){B, NH, T, T});
    float *g1 = NULL;
    if (rc == 0) {
        tk_fill_normal(&g, tk_f(&o.qkv), B * T * 3 * C, 1);
        tk_fill_normal(&g, tk_f(&o.R), B * T * C, 1);
        rc = !(attn_loss(r, &o) == attn_loss(r, &o)) ||
             sim_op_attention_backward(r, &o.dqkv, &o.dpre, &o.datt, &o.R, &o.qkv, &o.att,
                                       o.heads) != SIM_OK;
        rc = rc || fd_check(r, "attention dqkv", tk_f(&o.qkv), tk_f(&o.dqkv), B * T * 3 * C,
                            attn_loss, &o);
        rc = rc || !(attn_loss(r, &o) == attn_loss(r, &o));
        g1 = copy(&o.dqkv);
        rc = rc || g1 == NULL ||
             sim_op_attention_backward(r, &o.dqkv, &o.dpre, &o.datt, &o.R, &o.qkv, &o.att,
                                       o.heads) != SIM_OK ||
             doubled("attention dqkv", tk_f(&o.dqkv), g1, B * T * 3 * C);
    }
    free(g1);
    tk_free(r, &l);
    return rc;
}

// ----------------------------------------------------------------------------
// cross-entropy: L = sum(losses * R), so dlosses = R

typedef struct {
    SimTensor losses, probs, logits, targets, R, dlogits;
} XentOp;

static double xent_loss(SimRank *r, void *p) {
    XentOp *o = p;
    if (sim_op_xent_forward(r, &o->losses, &o->probs, &o->logits, &o->targets))
        return NAN;
    return dot(&o->losses, &o->R);
}

static int test_xent(SimRank *r) {
    TkRng g;
    tk_seed(&g, 60);
    TkList l = {0};
    XentOp o;
    int64_t N = 4, V = 6;
    int rc = tk_make(r, &l, &o.logits, SIM_FP32, 2, (int64_t[]){N, V}) ||
             tk_make(r, &l, &o.probs, SIM_FP32, 2, (int64_t[]){N, V}) ||
             tk_make(r, &l, &o.dlogits, SIM_FP32, 2, (int64_t[]){N, V}) ||
             tk_make(r, &l, &o.targets, SIM_INT32, 1, &N) ||
             tk_make(r, &l, &o.losses, SIM_FP32, 1, &N) || tk_make(r, &l, &o.R, SIM_FP32, 1, &N);
    float *g1 = NULL;
    if (rc == 0) {
        int32_t tg[4] = {0, 5, 2, 2};
        memcpy(o.targets.data, tg, sizeof tg);
        tk_fill_normal(&g, tk_f(&o.logits), N * V, 2);
        tk_fill_uniform(&g, tk_f(&o.R), N, 0.5f, 1.5f);
        rc = !(xent_loss(r, &o) == xent_loss(r, &o)) ||
             sim_op_xent_backward(r, &o.dlogits, &o.probs, &o.targets, &o.R) != SIM_OK;
        rc = rc || fd_check(r, "xent dlogits", tk_f(&o.logits), tk_f(&o.dlogits), N * V,
                            xent_loss, &o);
        rc = rc || !(xent_loss(r, &o) == xent_loss(r, &o));
        g1 = copy(&o.dlogits);
        rc = rc || g1 == NULL ||
             sim_op_xent_backward(r, &o.dlogits, &o.probs, &o.targets, &o.R) != SIM_OK ||
             doubled("xent dlogits", tk_f(&o.dlogits), g1, N * V);
    }
    free(g1);
    tk_free(r, &l);
    return rc;
}

// ----------------------------------------------------------------------------

typedef struct {
    const char *name;
    int (*fn)(SimRank *r);
} Case;

static const Case cases[] = {
    {"linear_bias", test_linear_bias}, {"linear_nobias", test_linear_nobias},
    {"relu", test_relu},               {"gelu", test_gelu},
    {"gelu_tanh", test_gelu_tanh},     {"layernorm", test_layernorm},
    {"batchnorm_train", test_batchnorm}, {"embedding", test_embedding},
    {"attention", test_attention},     {"xent", test_xent},
};

static SimStatus rank_main(SimRank *r, void *arg) {
    int *failures = arg;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = cases[i].fn(r);
        if (rc && r->error[0])
            fprintf(stderr, "  last error: %s\n", r->error);
        printf("%s %s\n", rc == 0 ? "ok    " : "FAILED", cases[i].name);
        *failures += rc != 0;
    }
    return SIM_OK;
}

int main(void) {
    int failures = 0;
    if (tworld_run_cpu(1, 0, rank_main, &failures) != SIM_OK)
        return 1;
    return failures != 0;
}
