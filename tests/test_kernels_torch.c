// tests/test_kernels_torch.c: every CPU kernel, forward and backward, and
// the optimizer steps against PyTorch itself (tests/conformance/
// kernels_ref.py), on the same inputs.
//
// The test writes each case's inputs as raw arrays, runs the reference
// script once for all cases, then reads the inputs back, runs ddplab's ops
// through the wrappers on one CPU rank, and compares with torch's outputs.
// Tolerance: |ours - torch| <= 1e-5 * max(|torch|, 1e-2 * max |torch|) per
// element, i.e. 1e-5 relative for every value larger than a hundredth of
// the largest. The optimizers, which mirror torch.optim's operations one by
// one, are held to 1e-6, and the number of bit-identical values is printed.
// Exits 77 (skipped) when torch is not available.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_kernels_util.h"
#include "test_world.h"
#include "torch_ref.h"

#define TOL 1e-5
#define TOL_OPTIM 1e-6

typedef struct {
    char dir[512];
    SimRank *r;
    TkList l;
    int failures;
} Kt;

// ----------------------------------------------------------------------------
// files

static int put(Kt *k, const char *c, const char *what, const void *data, size_t bytes) {
    char name[128];
    snprintf(name, sizeof name, "%s_%s.bin", c, what);
    if (torchref_write(k->dir, name, data, bytes) != 0) {
        fprintf(stderr, "cannot write %s/%s\n", k->dir, name);
        return 1;
    }
    return 0;
}

// Writes n random values (normal, times scale) as input `what` of case c.
static int put_rand(Kt *k, TkRng *g, const char *c, const char *what, size_t n, float scale) {
    float *x = malloc(n * sizeof *x);
    if (x == NULL)
        return 1;
    tk_fill_normal(g, x, n, scale);
    int rc = put(k, c, what, x, n * sizeof *x);
    free(x);
    return rc;
}

static int get(Kt *k, const char *c, const char *what, void *data, size_t bytes) {
    char name[128];
    snprintf(name, sizeof name, "%s_%s.bin", c, what);
    if (torchref_read(k->dir, name, data, bytes) != 0) {
        fprintf(stderr, "cannot read %s/%s (%zu bytes)\n", k->dir, name, bytes);
        return 1;
    }
    return 0;
}

// A tensor on the rank holding input `what` of case c (zeros if what is NULL).
static int load(Kt *k, SimTensor *t, const char *c, const char *what, SimDtype dt, int ndim,
                const int64_t *shape) {
    if (tk_make(k->r, &k->l, t, dt, ndim, shape))
        return 1;
    return what ? get(k, c, what, t->data, sim_tensor_bytes(t)) : 0;
}

// Compares ours (n floats) with torch's output `what` of case c: the
// largest |ours - torch| / max(|torch|, floor_frac * max |torch|).
static int compare_floor(Kt *k, const char *c, const char *what, const float *ours, size_t n,
                         double tol, double floor_frac) {
    float *ref = malloc((n ? n : 1) * sizeof *ref);
    if (ref == NULL || get(k, c, what, ref, n * sizeof *ref)) {
        free(ref);
        return 1;
    }
    double big = 0;
    size_t same = 0, worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        big = fmax(big, fabs(ref[i]));
        same += memcmp(&ours[i], &ref[i], sizeof(float)) == 0;
    }
    double floor = big * floor_frac > 1e-30 ? big * floor_frac : 1e-30;
    double rel = torchref_max_rel(ours, ref, n, floor, &worst_i);
    printf("  %-10s %-9s max rel %.2e  bit-identical %zu/%zu\n", c, what, rel, same, n);
    int bad = !(rel <= tol);
    if (bad)
        fprintf(stderr, "  %s %s: element %zu: ours %.9g torch %.9g\n", c, what, worst_i,
                ours[worst_i], ref[worst_i]);
    free(ref);
    return bad;
}

static int compare(Kt *k, const char *c, const char *what, const float *ours, size_t n,
                   double tol) {
    return compare_floor(k, c, what, ours, n, tol, 1e-2);
}

// ----------------------------------------------------------------------------
// the cases: each has a spec for the script, a writer of its inputs, and a
// checker that runs ddplab's ops

typedef struct {
    const char *name; // file prefix
    const char *spec; // "kind:key=value:..." (the name is prepended)
    int (*prepare)(Kt *k, TkRng *g, const char *c, const char *spec);
    int (*check)(Kt *k, const char *c, const char *spec);
} Case;

// The integer or real value of key in a spec like "linear:N=8:C=5".
static double spec_val(const char *spec, const char *key) {
    char pat[32];
    snprintf(pat, sizeof pat, ":%s=", key);
    const char *p = strstr(spec, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}
#define I(key) ((int64_t)spec_val(spec, key))
#define D(key) spec_val(spec, key)

// -- linear

static int prep_linear(Kt *k, TkRng *g, const char *c, const char *spec) {
    int64_t N = I("N"), C = I("C"), OC = I("OC");
    return put_rand(k, g, c, "inp", N * C, 1) || put_rand(k, g, c, "w", OC * C, 0.1f) ||
           put_rand(k, g, c, "b", OC, 1) || put_rand(k, g, c, "dout", N * OC, 1);
}

static int check_linear(Kt *k, const char *c, const char *spec) {
    int64_t N = I("N"), C = I("C"), OC = I("OC");
    int bias = I("bias") != 0;
    SimTensor inp, w, b, dout, out, dinp, dw, db;
    if (load(k, &inp, c, "inp", SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &w, c, "w", SIM_FP32, 2, (int64_t[]){OC, C}) ||
        load(k, &b, c, "b", SIM_FP32, 1, &OC) ||
        load(k, &dout, c, "dout", SIM_FP32, 2, (int64_t[]){N, OC}) ||
        load(k, &out, c, NULL, SIM_FP32, 2, (int64_t[]){N, OC}) ||
        load(k, &dinp, c, NULL, SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &dw, c, NULL, SIM_FP32, 2, (int64_t[]){OC, C}) ||
        load(k, &db, c, NULL, SIM_FP32, 1, &OC))
        return 1;
    CHECK_EQ_INT(sim_op_linear_forward(k->r, &out, &inp, &w, bias ? &b : NULL, SIM_FP32), SIM_OK);
    CHECK_EQ_INT(sim_op_linear_backward(k->r, &dinp, &dw, bias ? &db : NULL, &dout, &inp, &w,
                                        SIM_FP32),
                 SIM_OK);
    return compare(k, c, "out", tk_f(&out), N * OC, TOL) |
           compare(k, c, "dinp", tk_f(&dinp), N * C, TOL) |
           compare(k, c, "dw", tk_f(&dw), OC * C, TOL) |
           (bias ? compare(k, c, "db", tk_f(&db), OC, TOL) : 0);
}

// -- activations

static int prep_act(Kt *k, TkRng *g, const char *c, const char *spec) {
    int64_t n = I("n");
    float *x = malloc(n * sizeof *x);
    if (x == NULL)
        return 1;
    tk_fill_uniform(g, x, n, -6, 6); // both tails of erf and tanh
    int rc = put(k, c, "x", x, n * sizeof *x) || put_rand(k, g, c, "dout", n, 1);
    free(x);
    return rc;
}

static int check_act(Kt *k, const char *c, const char *spec) {
    int64_t n = I("n");
    SimAct act = strstr(spec, "act=relu")   ? SIM_ACT_RELU
                 : strstr(spec, "act=gelu_tanh") ? SIM_ACT_GELU_TANH
                                                 : SIM_ACT_GELU;
    SimTensor x, dout, out, dinp;
    if (load(k, &x, c, "x", SIM_FP32, 1, &n) || load(k, &dout, c, "dout", SIM_FP32, 1, &n) ||
        load(k, &out, c, NULL, SIM_FP32, 1, &n) || load(k, &dinp, c, NULL, SIM_FP32, 1, &n))
        return 1;
    CHECK_EQ_INT(sim_op_act_forward(k->r, act, &out, &x), SIM_OK);
    CHECK_EQ_INT(sim_op_act_backward(k->r, act, &dinp, &x, &dout), SIM_OK);
    if (act != SIM_ACT_GELU_TANH)
        return compare(k, c, "out", tk_f(&out), n, TOL) |
               compare(k, c, "dinp", tk_f(&dinp), n, TOL);
    // The derivative of tanh-GELU cancels for x < -3, where torch's fp32
    // formula is off by up to ~5e-7 |dout| (its 1 + tanh is a multiple of
    // 6e-8); ddplab computes it in double. So: against torch with an
    // absolute allowance of 1e-6 of the largest value, and against the exact
    // derivative (computed here in double) to 1e-6.
    double worst = 0, big = 0;
    for (int64_t i = 0; i < n; i++) {
        double xv = tk_f(&x)[i], a = 0.7978845608028654, kk = 0.044715;
        double th = tanh(a * (xv + kk * xv * xv * xv));
        double d = 0.5 * (1 + th) + 0.5 * xv * (1 - th * th) * a * (1 + 3 * kk * xv * xv);
        double exact = d * tk_f(&dout)[i];
        worst = fmax(worst, fabs(tk_f(&dinp)[i] - exact));
        big = fmax(big, fabs(exact));
    }
    printf("  %-10s %-9s max |ours - exact| / max |exact| = %.2e\n", c, "dinp", worst / big);
    CHECK(worst <= 1e-6 * big);
    return compare(k, c, "out", tk_f(&out), n, TOL) |
           compare_floor(k, c, "dinp", tk_f(&dinp), n, TOL, 0.1);
}

// -- layernorm

static int prep_norm(Kt *k, TkRng *g, const char *c, const char *spec) {
    int64_t N = I("N"), C = I("C");
    float *w = malloc(C * sizeof *w);
    if (w == NULL)
        return 1;
    tk_fill_uniform(g, w, C, 0.5f, 1.5f);
    int rc = put_rand(k, g, c, "x", N * C, 2) || put(k, c, "w", w, C * sizeof *w) ||
             put_rand(k, g, c, "b", C, 1) || put_rand(k, g, c, "dout", N * C, 1) ||
             put_rand(k, g, c, "rm", C, 0.5f) || put_rand(k, g, c, "x2", N * C, 2);
    tk_fill_uniform(g, w, C, 0.5f, 2.0f); // running_var must be positive
    rc = rc || put(k, c, "rv", w, C * sizeof *w);
    free(w);
    return rc;
}

static int check_layernorm(Kt *k, const char *c, const char *spec) {
    int64_t N = I("N"), C = I("C");
    SimTensor x, w, b, dout, out, mean, rstd, dinp, dw, db;
    if (load(k, &x, c, "x", SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &w, c, "w", SIM_FP32, 1, &C) || load(k, &b, c, "b", SIM_FP32, 1, &C) ||
        load(k, &dout, c, "dout", SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &out, c, NULL, SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &mean, c, NULL, SIM_FP32, 1, &N) || load(k, &rstd, c, NULL, SIM_FP32, 1, &N) ||
        load(k, &dinp, c, NULL, SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &dw, c, NULL, SIM_FP32, 1, &C) || load(k, &db, c, NULL, SIM_FP32, 1, &C))
        return 1;
    CHECK_EQ_INT(sim_op_layernorm_forward(k->r, &out, &mean, &rstd, &x, &w, &b, (float)D("eps")),
                 SIM_OK);
    CHECK_EQ_INT(sim_op_layernorm_backward(k->r, &dinp, &dw, &db, &dout, &x, &w, &mean, &rstd),
                 SIM_OK);
    return compare(k, c, "out", tk_f(&out), N * C, TOL) |
           compare(k, c, "mean", tk_f(&mean), N, TOL) |
           compare(k, c, "rstd", tk_f(&rstd), N, TOL) |
           compare(k, c, "dinp", tk_f(&dinp), N * C, TOL) |
           compare(k, c, "dw", tk_f(&dw), C, TOL) | compare(k, c, "db", tk_f(&db), C, TOL);
}

// -- batchnorm: a training forward and backward, then an eval forward

static int check_batchnorm(Kt *k, const char *c, const char *spec) {
    int64_t N = I("N"), C = I("C");
    float momentum = (float)D("momentum"), eps = (float)D("eps");
    SimTensor x, x2, w, b, rm, rv, dout, out, out_eval, mean, invstd, dinp, dw, db;
    if (load(k, &x, c, "x", SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &x2, c, "x2", SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &w, c, "w", SIM_FP32, 1, &C) || load(k, &b, c, "b", SIM_FP32, 1, &C) ||
        load(k, &rm, c, "rm", SIM_FP32, 1, &C) || load(k, &rv, c, "rv", SIM_FP32, 1, &C) ||
        load(k, &dout, c, "dout", SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &out, c, NULL, SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &out_eval, c, NULL, SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &mean, c, NULL, SIM_FP32, 1, &C) || load(k, &invstd, c, NULL, SIM_FP32, 1, &C) ||
        load(k, &dinp, c, NULL, SIM_FP32, 2, (int64_t[]){N, C}) ||
        load(k, &dw, c, NULL, SIM_FP32, 1, &C) || load(k, &db, c, NULL, SIM_FP32, 1, &C))
        return 1;
    CHECK_EQ_INT(sim_op_batchnorm_forward(k->r, &out, &mean, &invstd, &rm, &rv, &x, &w, &b,
                                          momentum, eps, 1),
                 SIM_OK);
    CHECK_EQ_INT(sim_op_batchnorm_backward(k->r, &dinp, &dw, &db, &dout, &x, &w, &mean, &invstd),
                 SIM_OK);
    CHECK_EQ_INT(sim_op_batchnorm_forward(k->r, &out_eval, NULL, NULL, &rm, &rv, &x2, &w, &b,
                                          momentum, eps, 0),
                 SIM_OK);
    return compare(k, c, "out", tk_f(&out), N * C, TOL) |
           compare(k, c, "mean", tk_f(&mean), C, TOL) |
           compare(k, c, "invstd", tk_f(&invstd), C, TOL) |
           compare(k, c, "dinp", tk_f(&dinp), N * C, TOL) |
           compare(k, c, "dw", tk_f(&dw), C, TOL) | compare(k, c, "db", tk_f(&db), C, TOL) |
           compare(k, c, "rm_out", tk_f(&rm), C, TOL) |
           compare(k, c, "rv_out", tk_f(&rv), C, TOL) |
           compare(k, c, "out_eval", tk_f(&out_eval), N * C, TOL);
}

// -- embedding

static int prep_embedding(Kt *k, TkRng *g, const char *c, const char *spec) {
    int64_t B = I("B"), T = I("T"), C = I("C"), V = I("V"), maxT = I("maxT");
    int32_t idx[256];
    if (B * T > 256)
        return 1;
    for (int64_t i = 0; i < B * T; i++)
        idx[i] = (int32_t)(tk_uniform(g, 0, 1) * V) % (int32_t)V;
    idx[1] = idx[0]; // a repeated token: its gradient rows add up
    return put(k, c, "idx", idx, B * T * sizeof *idx) || put_rand(k, g, c, "wte", V * C, 1) ||
           put_rand(k, g, c, "wpe", maxT * C, 1) || put_rand(k, g, c, "dout", B * T * C, 1);
}

static int check_embedding(Kt *k, const char *c, const char *spec) {
    int64_t B = I("B"), T = I("T"), C = I("C"), V = I("V"), maxT = I("maxT");
    SimTensor idx, wte, wpe, dout, out, dwte, dwpe;
    if (load(k, &idx, c, "idx", SIM_INT32, 2, (int64_t[]){B, T}) ||
        load(k, &wte, c, "wte", SIM_FP32, 2, (int64_t[]){V, C}) ||
        load(k, &wpe, c, "wpe", SIM_FP32, 2, (int64_t[]){maxT, C}) ||
        load(k, &dout, c, "dout", SIM_FP32, 3, (int64_t[]){B, T, C}) ||
        load(k, &out, c, NULL, SIM_FP32, 3, (int64_t[]){B, T, C}) ||
        load(k, &dwte, c, NULL, SIM_FP32, 2, (int64_t[]){V, C}) ||
        load(k, &dwpe, c, NULL, SIM_FP32, 2, (int64_t[]){maxT, C}))
        return 1;
    CHECK_EQ_INT(sim_op_embedding_forward(k->r, &out, &idx, &wte, &wpe), SIM_OK);
    CHECK_EQ_INT(sim_op_embedding_backward(k->r, &dwte, &dwpe, &dout, &idx), SIM_OK);
    return compare(k, c, "out", tk_f(&out), B * T * C, TOL) |
           compare(k, c, "dwte", tk_f(&dwte), V * C, TOL) |
           compare(k, c, "dwpe", tk_f(&dwpe), maxT * C, TOL);
}

// -- attention

static int prep_attention(Kt *k, TkRng *g, const char *c, const char *spec) {
    int64_t B = I("B"), T = I("T"), C = I("C");
    return put_rand(k, g, c, "qkv", B * T * 3 * C, 1) || put_rand(k, g, c, "dout", B * T * C, 1);
}

static int check_attention(Kt *k, const char *c, const char *spec) {
    int64_t B = I("B"), T = I("T"), C = I("C"), NH = I("NH");
    SimTensor qkv, dout, out, pre, att, dqkv, dpre, datt;
    int64_t maps[4] = {B, NH, T, T};
    if (load(k, &qkv, c, "qkv", SIM_FP32, 3, (int64_t[]){B, T, 3 * C}) ||
        load(k, &dout, c, "dout", SIM_FP32, 3, (int64_t[]){B, T, C}) ||
        load(k, &out, c, NULL, SIM_FP32, 3, (int64_t[]){B, T, C}) ||
        load(k, &dqkv, c, NULL, SIM_FP32, 3, (int64_t[]){B, T, 3 * C}) ||
        load(k, &pre, c, NULL, SIM_FP32, 4, maps) || load(k, &att, c, NULL, SIM_FP32, 4, maps) ||
        load(k, &dpre, c, NULL, SIM_FP32, 4, maps) || load(k, &datt, c, NULL, SIM_FP32, 4, maps))
        return 1;
    CHECK_EQ_INT(sim_op_attention_forward(k->r, &out, &pre, &att, &qkv, (int)NH), SIM_OK);
    CHECK_EQ_INT(sim_op_attention_backward(k->r, &dqkv, &dpre, &datt, &dout, &qkv, &att, (int)NH),
                 SIM_OK);
    return compare(k, c, "out", tk_f(&out), B * T * C, TOL) |
           compare(k, c, "att", tk_f(&att), B * NH * T * T, TOL) |
           compare(k, c, "dqkv", tk_f(&dqkv), B * T * 3 * C, TOL);
}

// -- cross-entropy

static int prep_xent(Kt *k, TkRng *g, const char *c, const char *spec) {
    int64_t N = I("N"), V = I("V");
    int32_t t[256];
    float dl[256];
    if (N > 256)
        return 1;
    for (int64_t i = 0; i < N; i++) {
        t[i] = (int32_t)(tk_uniform(g, 0, 1) * V) % (int32_t)V;
        dl[i] = 1.0f / (float)N; // the mean over the batch
    }
    return put_rand(k, g, c, "logits", N * V, 3) || put(k, c, "targets", t, N * sizeof *t) ||
           put(k, c, "dloss", dl, N * sizeof *dl);
}

static int check_xent(Kt *k, const char *c, const char *spec) {
    int64_t N = I("N"), V = I("V");
    SimTensor logits, targets, dloss, losses, probs, dlogits;
    if (load(k, &logits, c, "logits", SIM_FP32, 2, (int64_t[]){N, V}) ||
        load(k, &targets, c, "targets", SIM_INT32, 1, &N) ||
        load(k, &dloss, c, "dloss", SIM_FP32, 1, &N) ||
        load(k, &losses, c, NULL, SIM_FP32, 1, &N) ||
        load(k, &probs, c, NULL, SIM_FP32, 2, (int64_t[]){N, V}) ||
        load(k, &dlogits, c, NULL, SIM_FP32, 2, (int64_t[]){N, V}))
        return 1;
    CHECK_EQ_INT(sim_op_xent_forward(k->r, &losses, &probs, &logits, &targets), SIM_OK);
    CHECK_EQ_INT(sim_op_xent_backward(k->r, &dlogits, &probs, &targets, &dloss), SIM_OK);
    return compare(k, c, "losses", tk_f(&losses), N, TOL) |
           compare(k, c, "probs", tk_f(&probs), N * V, TOL) |
           compare(k, c, "dlogits", tk_f(&dlogits), N * V, TOL);
}

// -- optimizers: `steps` steps with the gradients torch also applies

static int prep_optim(Kt *k, TkRng *g, const char *c, const char *spec) {
    int64_t n = I("n"), steps = I("steps");
    return put_rand(k, g, c, "p0", n, 1) || put_rand(k, g, c, "grads", steps * n, 0.1f);
}

static int check_optim(Kt *k, const char *c, const char *spec) {
    int64_t n = I("n"), steps = I("steps");
    int adam = strncmp(spec, ":adam:", 6) == 0;
    SimTensor p, grads, g, s1, s2;
    if (load(k, &p, c, "p0", SIM_FP32, 1, &n) ||
        load(k, &grads, c, "grads", SIM_FP32, 2, (int64_t[]){steps, n}) ||
        load(k, &g, c, NULL, SIM_FP32, 1, &n) || load(k, &s1, c, NULL, SIM_FP32, 1, &n) ||
        load(k, &s2, c, NULL, SIM_FP32, 1, &n))
        return 1;
    SimSgdHyper sh = {.lr = D("lr"), .momentum = D("momentum"), .dampening = D("dampening"),
                      .weight_decay = D("wd"), .nesterov = (int)I("nesterov")};
    SimAdamHyper ah = {.lr = D("lr"), .beta1 = D("b1"), .beta2 = D("b2"), .eps = D("eps"),
                       .weight_decay = D("wd"), .decoupled = (int)I("decoupled")};
    for (int64_t s = 0; s < steps; s++) {
        memcpy(g.data, tk_f(&grads) + s * n, n * sizeof(float));
        if (adam) {
            ah.step = s + 1;
            CHECK_EQ_INT(sim_op_adam_step(k->r, &p, &g, &s1, &s2, 0, 0, &ah), SIM_OK);
        } else {
            sh.first_step = s == 0;
            CHECK_EQ_INT(sim_op_sgd_step(k->r, &p, &g, &s1, 0, 0, &sh), SIM_OK);
        }
    }
    int rc = compare(k, c, "p", tk_f(&p), n, TOL_OPTIM);
    if (adam)
        rc |= compare(k, c, "m", tk_f(&s1), n, TOL_OPTIM) |
              compare(k, c, "v", tk_f(&s2), n, TOL_OPTIM);
    else
        rc |= compare(k, c, "buf", tk_f(&s1), n, TOL_OPTIM);
    return rc;
}

// n = 1003 elements in the optimizer cases: not a multiple of the vector
// width, so torch's scalar tail loop is covered too.
static const Case cases[] = {
    {"lin", "linear:N=32:C=100:OC=48:bias=1", prep_linear, check_linear},
    {"lin_nb", "linear:N=7:C=33:OC=5:bias=0", prep_linear, check_linear},
    {"relu", "act:n=1000:act=relu", prep_act, check_act},
    {"gelu", "act:n=1000:act=gelu", prep_act, check_act},
    {"gelu_t", "act:n=1000:act=gelu_tanh", prep_act, check_act},
    {"ln", "layernorm:N=16:C=64:eps=1e-5", prep_norm, check_layernorm},
    {"bn", "batchnorm:N=32:C=24:momentum=0.1:eps=1e-5", prep_norm, check_batchnorm},
    {"bn_m", "batchnorm:N=5:C=3:momentum=0.3:eps=1e-3", prep_norm, check_batchnorm},
    {"emb", "embedding:B=3:T=5:C=8:V=11:maxT=7", prep_embedding, check_embedding},
    {"attn", "attention:B=2:T=8:C=16:NH=4", prep_attention, check_attention},
    {"attn1", "attention:B=1:T=5:C=6:NH=1", prep_attention, check_attention},
    {"xent", "xent:N=16:V=10", prep_xent, check_xent},
    {"sgd", "sgd:n=1003:steps=5:lr=0.1:momentum=0:dampening=0:wd=0:nesterov=0", prep_optim,
     check_optim},
    {"sgd_m", "sgd:n=1003:steps=5:lr=0.05:momentum=0.9:dampening=0:wd=0:nesterov=0", prep_optim,
     check_optim},
    {"sgd_dw", "sgd:n=1003:steps=5:lr=0.05:momentum=0.9:dampening=0.1:wd=1e-4:nesterov=0",
     prep_optim, check_optim},
    {"sgd_n", "sgd:n=1003:steps=5:lr=0.01:momentum=0.8:dampening=0:wd=5e-4:nesterov=1",
     prep_optim, check_optim},
    {"adam", "adam:n=1003:steps=6:lr=1e-3:b1=0.9:b2=0.999:eps=1e-8:wd=0:decoupled=0", prep_optim,
     check_optim},
    {"adam_wd", "adam:n=1003:steps=6:lr=2e-3:b1=0.8:b2=0.99:eps=1e-6:wd=0.01:decoupled=0",
     prep_optim, check_optim},
    {"adamw", "adam:n=1003:steps=6:lr=3e-3:b1=0.9:b2=0.95:eps=1e-8:wd=0.1:decoupled=1", prep_optim,
     check_optim},
};
#define NCASES (sizeof cases / sizeof cases[0])

static SimStatus rank_main(SimRank *r, void *arg) {
    Kt *k = arg;
    k->r = r;
    for (size_t i = 0; i < NCASES; i++) {
        char spec[160];
        snprintf(spec, sizeof spec, ":%s", cases[i].spec); // so every key follows a ':'
        int rc = cases[i].check(k, cases[i].name, spec);
        if (rc && r->error[0])
            fprintf(stderr, "  last error: %s\n", r->error);
        printf("%s %s\n", rc == 0 ? "ok    " : "FAILED", cases[i].name);
        k->failures += rc != 0;
        tk_free(r, &k->l);
    }
    return SIM_OK;
}

int main(void) {
    if (!torchref_available())
        return 77;
    static Kt k;
    if (torchref_tmpdir(k.dir, sizeof k.dir) != 0) {
        perror("torchref_tmpdir");
        return 1;
    }
    static char specs[NCASES][200];
    const char *args[NCASES + 2];
    args[0] = k.dir;
    int rc = 0;
    for (size_t i = 0; i < NCASES && rc == 0; i++) {
        TkRng g;
        tk_seed(&g, 1000 + i);
        char spec[160];
        snprintf(spec, sizeof spec, ":%s", cases[i].spec);
        rc = cases[i].prepare(&k, &g, cases[i].name, spec);
        snprintf(specs[i], sizeof specs[i], "%s:%s", cases[i].name, cases[i].spec);
        args[i + 1] = specs[i];
    }
    args[NCASES + 1] = NULL;
    if (rc == 0 && torchref_run("kernels_ref.py", args) != 0) {
        fprintf(stderr, "kernels_ref.py failed\n");
        rc = 1;
    }
    if (rc == 0 && tworld_run_cpu(1, 0, rank_main, &k) != SIM_OK)
        rc = 1;
    torchref_rmdir(k.dir);
    return rc || k.failures;
}
