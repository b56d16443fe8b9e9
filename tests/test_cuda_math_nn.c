// tests/test_cuda_math_nn.c: the CUDA backend's matrix products, norms,
// attention and cross-entropy (backend_cuda/cuda_math_{linear,norm,attention,
// loss}.cu) on a GPU, each against the cpu backend's kernel on the same host
// data. One rank (device 0), ops called from the main thread after init.
//
// Bound, per output tensor: max |gpu - cpu| / max(1, max |cpu|) <= 1e-5.
// Products: cuBLAS (TF32 off) and OpenBLAS add the k terms in different
// orders, which moves fp32 results by a few ulps of the largest partial sum
// (k <= 96 here: ~1e-6). Norms, attention and cross-entropy run the cpu's
// statements in its order (cuda_arith_nn.h, --fmad=false), so only CUDA's
// expf/sqrt differ from glibc's (an ulp or two); the bound leaves room for
// both. amp products see the same rounded operands on both sides.
//
// Without a GPU init fails with SIM_ENODEV: "SKIP: <reason>", exit 77.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"  // defines: cpu_backend_ops
#include "cuda_backend.h" // defines: cuda_backend_ops

#define BOUND 1e-5

static const SimBackendOps *be = &cuda_backend_ops;
static const SimMathOps *gpu, *cpu;
static void *gctx, *cctx;
static unsigned long long rng = 0x9E3779B97F4A7C15ULL;

static float uni(float lo, float hi) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (float)((rng >> 11) * (1.0 / 9007199254740992.0));
}

// Host tensors and their device twins, freed together.
typedef struct {
    float *h[24];
    void *d[24];
    size_t n[24];
    int count;
} Pool;

// A host tensor of n values in [lo, hi) with a device copy; returns its index.
static int tensor(Pool *p, size_t n, float lo, float hi) {
    int i = p->count++;
    p->n[i] = n;
    p->h[i] = malloc((n ? n : 1) * sizeof(float));
    for (size_t k = 0; k < n; k++)
        p->h[i][k] = uni(lo, hi);
    p->d[i] = be->alloc(gctx, 0, (n ? n : 1) * sizeof(float));
    if (p->d[i] == NULL || be->copy_to_device(gctx, 0, p->d[i], p->h[i], n * sizeof(float)))
        fprintf(stderr, "device tensor of %zu floats: %s\n", n, be->last_error(gctx));
    return i;
}

static void pool_free(Pool *p) {
    for (int i = 0; i < p->count; i++) {
        free(p->h[i]);
        be->free(gctx, 0, p->d[i]);
    }
    p->count = 0;
}

#define H(i) (p.h[i])
#define D(i) ((float *)p.d[i])

// Downloads tensor i and compares it with the host result.
static int close_enough(Pool *p, int i, const char *what) {
    size_t n = p->n[i];
    float *g = malloc((n ? n : 1) * sizeof *g);
    if (be->copy_to_host(gctx, 0, g, p->d[i], n * sizeof *g) != SIM_OK) {
        fprintf(stderr, "%s: copy_to_host: %s\n", what, be->last_error(gctx));
        free(g);
        return 0;
    }
    double maxref = 1.0, maxerr = 0.0;
    size_t worst = 0;
    for (size_t k = 0; k < n; k++)
        if (fabs(p->h[i][k]) > maxref)
            maxref = fabs(p->h[i][k]);
    for (size_t k = 0; k < n; k++) {
        double e = fabs((double)g[k] - p->h[i][k]);
        if (!(e <= maxerr)) { // NaN counts as worst
            maxerr = isnan(e) ? INFINITY : e;
            worst = k;
        }
    }
    double rel = maxerr / maxref;
    int ok = rel <= BOUND;
    printf("%-40s n=%-7zu max error %.3g (bound %g)%s\n", what, n, rel, BOUND,
           ok ? "" : "  FAILED");
    if (!ok)
        fprintf(stderr, "%s: element %zu: gpu %.9g, cpu %.9g\n", what, worst, g[worst],
                p->h[i][worst]);
    free(g);
    return ok;
}

static int both_ok(const char *op, SimStatus g, SimStatus c) {
    if (g == SIM_OK && c == SIM_OK)
        return 1;
    fprintf(stderr, "%s: gpu %s (%s), cpu %s\n", op, sim_status_name(g), be->last_error(gctx),
            sim_status_name(c));
    return 0;
}

static int test_gemm(void) {
    const SimDtype amps[] = {SIM_FP32, SIM_FP16, SIM_BF16};
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int a = 0; a < 3; a++) {
                int m = 33, n = 47, k = 65;
                Pool p = {0};
                int A = tensor(&p, (size_t)m * k, -1, 1), B = tensor(&p, (size_t)k * n, -1, 1);
                int C = tensor(&p, (size_t)m * n, -1, 1);
                char what[64];
                snprintf(what, sizeof what, "gemm ta=%d tb=%d amp=%s", ta, tb,
                         sim_dtype_name(amps[a]));
                SimStatus g = gpu->gemm(gctx, 0, ta, tb, m, n, k, 0.7f, D(A), D(B), 0.3f, D(C),
                                        amps[a]);
                SimStatus c = cpu->gemm(cctx, 0, ta, tb, m, n, k, 0.7f, H(A), H(B), 0.3f, H(C),
                                        amps[a]);
                int ok = both_ok(what, g, c) && close_enough(&p, C, what);
                pool_free(&p);
                CHECK(ok);
            }
    return 0;
}

static int test_linear(void) {
    for (int with_bias = 0; with_bias < 2; with_bias++)
        for (int amp = 0; amp < 2; amp++) {
            int N = 29, C = 70, OC = 41;
            SimDtype dt = amp ? SIM_BF16 : SIM_FP32;
            Pool p = {0};
            int x = tensor(&p, (size_t)N * C, -1, 1), w = tensor(&p, (size_t)OC * C, -1, 1);
            int b = tensor(&p, (size_t)OC, -1, 1), o = tensor(&p, (size_t)N * OC, 0, 1);
            int dy = tensor(&p, (size_t)N * OC, -1, 1), dx = tensor(&p, (size_t)N * C, -1, 1);
            int dw = tensor(&p, (size_t)OC * C, -1, 1), db = tensor(&p, (size_t)OC, -1, 1);
            const float *gb = with_bias ? D(b) : NULL, *cb = with_bias ? H(b) : NULL;
            char what[64];
            snprintf(what, sizeof what, "linear bias=%d amp=%s", with_bias, sim_dtype_name(dt));
            int ok = both_ok(what,
                             gpu->linear_forward(gctx, 0, D(o), D(x), D(w), gb, N, C, OC, dt),
                             cpu->linear_forward(cctx, 0, H(o), H(x), H(w), cb, N, C, OC, dt)) &&
                     close_enough(&p, o, what);
            ok = ok && both_ok(what,
                               gpu->linear_backward(gctx, 0, D(dx), D(dw), with_bias ? D(db) : NULL,
                                                    D(dy), D(x), D(w), N, C, OC, dt),
                               cpu->linear_backward(cctx, 0, H(dx), H(dw), with_bias ? H(db) : NULL,
                                                    H(dy), H(x), H(w), N, C, OC, dt));
            ok = ok && close_enough(&p, dx, "  dinp") && close_enough(&p, dw, "  dweight") &&
                 close_enough(&p, db, "  dbias");
            pool_free(&p);
            CHECK(ok);
        }
    return 0;
}

static int test_layernorm(void) {
    int N = 37, C = 96;
    Pool p = {0};
    int x = tensor(&p, (size_t)N * C, -3, 3), w = tensor(&p, (size_t)C, 0.5f, 1.5f);
    int b = tensor(&p, (size_t)C, -1, 1), o = tensor(&p, (size_t)N * C, 0, 1);
    int m = tensor(&p, (size_t)N, 0, 1), r = tensor(&p, (size_t)N, 0, 1);
    int dy = tensor(&p, (size_t)N * C, -1, 1), dx = tensor(&p, (size_t)N * C, -1, 1);
    int dw = tensor(&p, (size_t)C, -1, 1), db = tensor(&p, (size_t)C, -1, 1);
    int ok = both_ok("layernorm",
                     gpu->layernorm_forward(gctx, 0, D(o), D(m), D(r), D(x), D(w), D(b), N, C,
                                            1e-5f),
                     cpu->layernorm_forward(cctx, 0, H(o), H(m), H(r), H(x), H(w), H(b), N, C,
                                            1e-5f)) &&
             close_enough(&p, o, "layernorm out") && close_enough(&p, m, "  mean") &&
             close_enough(&p, r, "  rstd");
    // backward from the cpu's saved statistics on both sides
    ok = ok && be->copy_to_device(gctx, 0, D(m), H(m), (size_t)N * 4) == SIM_OK &&
         be->copy_to_device(gctx, 0, D(r), H(r), (size_t)N * 4) == SIM_OK;
    ok = ok && both_ok("layernorm backward",
                       gpu->layernorm_backward(gctx, 0, D(dx), D(dw), D(db), D(dy), D(x), D(w),
                                               D(m), D(r), N, C),
                       cpu->layernorm_backward(cctx, 0, H(dx), H(dw), H(db), H(dy), H(x), H(w),
                                               H(m), H(r), N, C)) &&
         close_enough(&p, dx, "layernorm dinp") && close_enough(&p, dw, "  dweight") &&
         close_enough(&p, db, "  dbias");
    pool_free(&p);
    CHECK(ok);
    return 0;
}

static int test_batchnorm(void) {
    int N = 45, C = 24;
    Pool p = {0};
    int x = tensor(&p, (size_t)N * C, -2, 4), w = tensor(&p, (size_t)C, 0.5f, 1.5f);
    int b = tensor(&p, (size_t)C, -1, 1), o = tensor(&p, (size_t)N * C, 0, 1);
    int m = tensor(&p, (size_t)C, 0, 1), s = tensor(&p, (size_t)C, 0, 1);
    int rm = tensor(&p, (size_t)C, -1, 1), rv = tensor(&p, (size_t)C, 0.5f, 2);
    int dy = tensor(&p, (size_t)N * C, -1, 1), dx = tensor(&p, (size_t)N * C, -1, 1);
    int dw = tensor(&p, (size_t)C, -1, 1), db = tensor(&p, (size_t)C, -1, 1);
    int ok = 1;
    for (int training = 1; ok && training >= 0; training--) {
        const char *what = training ? "batchnorm train" : "batchnorm eval";
        ok = both_ok(what,
                     gpu->batchnorm_forward(gctx, 0, D(o), D(m), D(s), D(rm), D(rv), D(x), D(w),
                                            D(b), N, C, 0.1f, 1e-5f, training),
                     cpu->batchnorm_forward(cctx, 0, H(o), H(m), H(s), H(rm), H(rv), H(x), H(w),
                                            H(b), N, C, 0.1f, 1e-5f, training)) &&
             close_enough(&p, o, what) && close_enough(&p, rm, "  running mean") &&
             close_enough(&p, rv, "  running var");
        if (training)
            ok = ok && close_enough(&p, m, "  mean") && close_enough(&p, s, "  invstd");
    }
    ok = ok && be->copy_to_device(gctx, 0, D(m), H(m), (size_t)C * 4) == SIM_OK &&
         be->copy_to_device(gctx, 0, D(s), H(s), (size_t)C * 4) == SIM_OK;
    ok = ok && both_ok("batchnorm backward",
                       gpu->batchnorm_backward(gctx, 0, D(dx), D(dw), D(db), D(dy), D(x), D(w),
                                               D(m), D(s), N, C),
                       cpu->batchnorm_backward(cctx, 0, H(dx), H(dw), H(db), H(dy), H(x), H(w),
                                               H(m), H(s), N, C)) &&
         close_enough(&p, dx, "batchnorm dinp") && close_enough(&p, dw, "  dweight") &&
         close_enough(&p, db, "  dbias");
    pool_free(&p);
    CHECK(ok);
    return 0;
}

static int test_attention(void) {
    int B = 3, T = 16, C = 48, NH = 4;
    size_t nq = (size_t)B * T * 3 * C, no = (size_t)B * T * C, na = (size_t)B * NH * T * T;
    Pool p = {0};
    int qkv = tensor(&p, nq, -1, 1), o = tensor(&p, no, 0, 1), pre = tensor(&p, na, 0, 1);
    int att = tensor(&p, na, 0, 1), dout = tensor(&p, no, -1, 1), dq = tensor(&p, nq, -1, 1);
    int dpre = tensor(&p, na, -1, 1), datt = tensor(&p, na, -1, 1);
    int ok = both_ok("attention",
                     gpu->attention_forward(gctx, 0, D(o), D(pre), D(att), D(qkv), B, T, C, NH),
                     cpu->attention_forward(cctx, 0, H(o), H(pre), H(att), H(qkv), B, T, C, NH)) &&
             close_enough(&p, o, "attention out") && close_enough(&p, pre, "  preatt") &&
             close_enough(&p, att, "  att");
    ok = ok && be->copy_to_device(gctx, 0, D(att), H(att), na * 4) == SIM_OK;
    ok = ok && both_ok("attention backward",
                       gpu->attention_backward(gctx, 0, D(dq), D(dpre), D(datt), D(dout), D(qkv),
                                               D(att), B, T, C, NH),
                       cpu->attention_backward(cctx, 0, H(dq), H(dpre), H(datt), H(dout), H(qkv),
                                               H(att), B, T, C, NH)) &&
         close_enough(&p, dq, "attention dqkv") && close_enough(&p, dpre, "  dpreatt") &&
         close_enough(&p, datt, "  datt");
    pool_free(&p);
    CHECK(ok);
    return 0;
}

static int test_xent(void) {
    int N = 50, V = 33;
    Pool p = {0};
    int logits = tensor(&p, (size_t)N * V, -6, 6), probs = tensor(&p, (size_t)N * V, 0, 1);
    int loss = tensor(&p, (size_t)N, 0, 1), dl = tensor(&p, (size_t)N, 0.01f, 0.03f);
    int dlog = tensor(&p, (size_t)N * V, -1, 1);
    int32_t *tg = malloc((size_t)N * sizeof *tg);
    for (int i = 0; i < N; i++)
        tg[i] = (int32_t)((i * 13) % V);
    int32_t *dtg = be->alloc(gctx, 0, (size_t)N * sizeof *tg);
    int ok = dtg && be->copy_to_device(gctx, 0, dtg, tg, (size_t)N * sizeof *tg) == SIM_OK;
    ok = ok && both_ok("xent",
                       gpu->xent_forward(gctx, 0, D(loss), D(probs), D(logits), dtg, N, V),
                       cpu->xent_forward(cctx, 0, H(loss), H(probs), H(logits), tg, N, V)) &&
         close_enough(&p, loss, "xent losses") && close_enough(&p, probs, "  probs");
    ok = ok && be->copy_to_device(gctx, 0, D(probs), H(probs), (size_t)N * V * 4) == SIM_OK;
    ok = ok && both_ok("xent backward",
                       gpu->xent_backward(gctx, 0, D(dlog), D(probs), dtg, D(dl), N, V),
                       cpu->xent_backward(cctx, 0, H(dlog), H(probs), tg, H(dl), N, V)) &&
         close_enough(&p, dlog, "xent dlogits");
    // a target outside [0, V) is refused, as on the cpu
    tg[7] = V;
    ok = ok && be->copy_to_device(gctx, 0, dtg, tg, (size_t)N * sizeof *tg) == SIM_OK &&
         gpu->xent_forward(gctx, 0, D(loss), NULL, D(logits), dtg, N, V) == SIM_EINVAL;
    be->free(gctx, 0, dtg);
    free(tg);
    pool_free(&p);
    CHECK(ok);
    return 0;
}

// An impossible allocation fails with one line saying what was asked and
// what is free, and the backend stays usable.
static int test_out_of_memory(void) {
    void *p = be->alloc(gctx, 0, (size_t)1 << 50); // 1 PiB
    CHECK(p == NULL);
    CHECK_STR_CONTAINS(be->last_error(gctx), "out of GPU memory: rank 0 (device 0) asked");
    CHECK_STR_CONTAINS(be->last_error(gctx), "lower --batch");
    void *q = be->alloc(gctx, 0, 4096);
    CHECK(q != NULL);
    be->free(gctx, 0, q);
    return 0;
}

int main(void) {
    if (getenv("CUDA_VISIBLE_DEVICES") == NULL)
        setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    SimBackendConfig bc = {1, 1, 1, 5.0, 0, 0, {0}, SIM_ALGO_AUTO};
    char err[512] = "";
    SimStatus st = be->init(&bc, &gctx, err, sizeof err);
    if (st == SIM_ENODEV) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    if (st != SIM_OK) {
        fprintf(stderr, "cuda backend init failed: %s: %s\n", sim_status_name(st), err);
        return 1;
    }
    if (cpu_backend_ops.init(&bc, &cctx, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "cpu backend: %s\n", err);
        return 1;
    }
    gpu = be->math;
    cpu = cpu_backend_ops.math;
    int failures = 0;
    RUN(test_gemm);
    RUN(test_linear);
    RUN(test_layernorm);
    RUN(test_batchnorm);
    RUN(test_attention);
    RUN(test_xent);
    RUN(test_out_of_memory);
    cpu_backend_ops.finalize(cctx);
    be->finalize(gctx);
    return failures ? 1 : 0;
}
