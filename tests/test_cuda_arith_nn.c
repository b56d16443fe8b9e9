// tests/test_cuda_arith_nn.c: the per-row arithmetic of the CUDA backend's
// neural-network kernels (backend_cuda/cuda_arith_nn.h), run on the host in
// the loops the kernels run (one call per row, column, (b,t,h) or (b,h)),
// against the cpu backend's kernels on the same seeded inputs. The two are
// the same statements in the same order, built by the same compiler, so the
// results must agree bit for bit. Runs in every build, GPU or not.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"   // defines: cpu_backend_ops
#include "cuda_arith_nn.h" // defines: cuda_layernorm_row, ...

static const SimMathOps *cpu;
static void *cctx;

static unsigned long long rng = 88172645463325252ULL;

static float uni(float lo, float hi) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (float)((rng >> 11) * (1.0 / 9007199254740992.0));
}

static float *randv(size_t n, float lo, float hi) {
    float *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = uni(lo, hi);
    return x;
}

static float *copyv(const float *x, size_t n) {
    float *y = malloc((n ? n : 1) * sizeof *y);
    memcpy(y, x, n * sizeof *y);
    return y;
}

// Bit for bit, naming the first differing element.
static int same(const char *what, const float *got, const float *want, size_t n) {
    if (memcmp(got, want, n * sizeof *got) == 0)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i]) != 0) {
            fprintf(stderr, "%s: element %zu of %zu: cuda_arith %.9g, cpu %.9g\n", what, i, n,
                    got[i], want[i]);
            break;
        }
    return 0;
}

static int test_amp_round(void) {
    float x[] = {1.0f, 1.0009765625f, 1.00048828125f, 65504.0f, 65520.0f, 3.0e-8f, -2.5f,
                 1.00390625f, 1.001953125f, 0.0f};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) { // 65520 rounds to inf in fp16
        float g[3] = {cuda_amp_round(x[i], SIM_FP16), cuda_amp_round(x[i], SIM_BF16),
                      cuda_amp_round(x[i], SIM_FP32)};
        float w[3] = {sim_f16_to_f32(sim_f32_to_f16(x[i])),
                      sim_bf16_to_f32(sim_f32_to_bf16(x[i])), x[i]};
        CHECK(same("amp round (fp16, bf16, fp32)", g, w, 3));
    }
    return 0;
}

static int test_bias_grad(void) {
    int N = 37, OC = 19;
    float *dout = randv((size_t)N * OC, -2, 2), *inp = randv((size_t)N * 3, -1, 1);
    float *w = randv((size_t)OC * 3, -1, 1);
    float *want = randv((size_t)OC, -1, 1), *got = copyv(want, (size_t)OC);
    CHECK_EQ_INT(cpu->linear_backward(cctx, 0, NULL, NULL, want, dout, inp, w, N, 3, OC,
                                      SIM_FP32), SIM_OK);
    for (int o = 0; o < OC; o++)
        cuda_bias_grad_col(got, dout, N, OC, o);
    CHECK(same("dbias", got, want, (size_t)OC));
    free(dout), free(inp), free(w), free(want), free(got);
    return 0;
}

static int test_layernorm(void) {
    int N = 13, C = 48;
    size_t n = (size_t)N * C;
    float *x = randv(n, -3, 3), *w = randv((size_t)C, 0.5f, 1.5f), *b = randv((size_t)C, -1, 1);
    float *o1 = randv(n, 0, 1), *o2 = randv(n, 0, 1), m1[13], r1[13], m2[13], r2[13];
    CHECK_EQ_INT(cpu->layernorm_forward(cctx, 0, o1, m1, r1, x, w, b, N, C, 1e-5f), SIM_OK);
    for (int i = 0; i < N; i++)
        cuda_layernorm_row(o2, m2, r2, x, w, b, C, 1e-5f, i);
    CHECK(same("layernorm out", o2, o1, n) && same("layernorm mean", m2, m1, (size_t)N) &&
          same("layernorm rstd", r2, r1, (size_t)N));
    float *dy = randv(n, -1, 1), *di1 = randv(n, -1, 1), *di2 = copyv(di1, n);
    float *dw1 = randv((size_t)C, -1, 1), *dw2 = copyv(dw1, (size_t)C);
    float *db1 = randv((size_t)C, -1, 1), *db2 = copyv(db1, (size_t)C);
    CHECK_EQ_INT(cpu->layernorm_backward(cctx, 0, di1, dw1, db1, dy, x, w, m1, r1, N, C), SIM_OK);
    for (int c = 0; c < C; c++)
        cuda_layernorm_back_col(dw2, db2, dy, x, m1, r1, N, C, c);
    for (int i = 0; i < N; i++)
        cuda_layernorm_back_row(di2, dy, x, w, m1, r1, C, i);
    CHECK(same("layernorm dinp", di2, di1, n) && same("layernorm dweight", dw2, dw1, (size_t)C) &&
          same("layernorm dbias", db2, db1, (size_t)C));
    free(x), free(w), free(b), free(o1), free(o2), free(dy), free(di1), free(di2);
    free(dw1), free(dw2), free(db1), free(db2);
    return 0;
}

static int test_batchnorm(void) {
    int N = 21, C = 10;
    size_t n = (size_t)N * C;
    float *x = randv(n, -2, 4), *w = randv((size_t)C, 0.5f, 1.5f), *b = randv((size_t)C, -1, 1);
    float *rm1 = randv((size_t)C, -1, 1), *rv1 = randv((size_t)C, 0.5f, 2);
    float *rm2 = copyv(rm1, (size_t)C), *rv2 = copyv(rv1, (size_t)C);
    float *o1 = randv(n, 0, 1), *o2 = randv(n, 0, 1), m1[10], s1[10], m2[10], s2[10];
    float shift[10], scale[10];
    for (int training = 1; training >= 0; training--) {
        CHECK_EQ_INT(cpu->batchnorm_forward(cctx, 0, o1, m1, s1, rm1, rv1, x, w, b, N, C, 0.1f,
                                            1e-5f, training), SIM_OK);
        for (int c = 0; c < C; c++) {
            if (training)
                cuda_batchnorm_stats_col(shift, scale, m2, s2, rm2, rv2, x, N, C, 0.1f, 1e-5f, c);
            else
                cuda_batchnorm_eval_col(shift, scale, rm2, rv2, 1e-5f, c);
        }
        for (size_t k = 0; k < n; k++)
            o2[k] = cuda_batchnorm_elem(x[k], shift[k % C], scale[k % C], w, b, (int)(k % C));
        CHECK(same("batchnorm out", o2, o1, n) && same("running mean", rm2, rm1, (size_t)C) &&
              same("running var", rv2, rv1, (size_t)C));
        if (training)
            CHECK(same("batchnorm mean", m2, m1, (size_t)C) &&
                  same("batchnorm invstd", s2, s1, (size_t)C));
    }
    float *dy = randv(n, -1, 1), *di1 = randv(n, -1, 1), *di2 = copyv(di1, n);
    float *dw1 = randv((size_t)C, -1, 1), *dw2 = copyv(dw1, (size_t)C);
    float *db1 = randv((size_t)C, -1, 1), *db2 = copyv(db1, (size_t)C);
    double sd[10], sdx[10];
    CHECK_EQ_INT(cpu->batchnorm_backward(cctx, 0, di1, dw1, db1, dy, x, w, m1, s1, N, C), SIM_OK);
    for (int c = 0; c < C; c++)
        cuda_batchnorm_back_col(sd, sdx, dw2, db2, dy, x, m1, s1, N, C, c);
    for (size_t k = 0; k < n; k++)
        di2[k] = cuda_batchnorm_back_elem(di2[k], dy[k], x[k], w, m1, s1, sd, sdx, N,
                                          (int)(k % C));
    CHECK(same("batchnorm dinp", di2, di1, n) && same("batchnorm dweight", dw2, dw1, (size_t)C) &&
          same("batchnorm dbias", db2, db1, (size_t)C));
    free(x), free(w), free(b), free(rm1), free(rv1), free(rm2), free(rv2), free(o1), free(o2);
    free(dy), free(di1), free(di2), free(dw1), free(dw2), free(db1), free(db2);
    return 0;
}

// SyncBatchNorm's pieces on two "ranks" of 8 and 13 rows: stats, their
// combination, the normalisation, the backward sums and the input gradient.
static int test_syncbn(void) {
    enum { R = 2, C = 10, ROW = 2 * C + 1 };
    const int rows[R] = {8, 13};
    int N = rows[0] + rows[1];
    size_t n = (size_t)N * C;
    float *x = randv(n, -2, 4), *w = randv((size_t)C, 0.5f, 1.5f), *b = randv((size_t)C, -1, 1);
    float *dy = randv(n, -1, 1), *o1 = randv(n, 0, 1), *o2 = copyv(o1, n);
    float *di1 = randv(n, -1, 1), *di2 = copyv(di1, n);
    float all1[R * ROW], all2[R * ROW], rm1[C], rv1[C], rm2[C], rv2[C];
    float m1[C], s1[C], m2[C], s2[C], cnt1, cnt2, sums1[2 * C], sums2[2 * C];
    float dw1[C] = {0}, db1[C] = {0}, dw2[C] = {0}, db2[C] = {0};
    for (int c = 0; c < C; c++)
        rm1[c] = rm2[c] = 0.0f, rv1[c] = rv2[c] = 1.0f;
    for (int q = 0, at = 0; q < R; at += rows[q++]) {
        const float *xq = x + (size_t)at * C;
        CHECK_EQ_INT(cpu->batchnorm_stats(cctx, 0, all1 + q * ROW, xq, rows[q], C), SIM_OK);
        for (int c = 0; c < C; c++)
            cuda_syncbn_stats_col(all2 + q * ROW, xq, rows[q], C, c);
        all2[q * ROW + 2 * C] = (float)rows[q];
    }
    CHECK(same("syncbn stats", all2, all1, R * ROW));
    CHECK_EQ_INT(cpu->batchnorm_gather_stats(cctx, 0, m1, s1, rm1, rv1, &cnt1, all1, R, C, 0.1f,
                                             1e-5f), SIM_OK);
    for (int c = 0; c < C; c++)
        cuda_syncbn_gather_col(m2, s2, rm2, rv2, all2, R, C, 0.1f, 1e-5f, c);
    cnt2 = (float)N;
    CHECK(same("syncbn mean", m2, m1, C) && same("syncbn invstd", s2, s1, C) &&
          same("syncbn running mean", rm2, rm1, C) && same("syncbn running var", rv2, rv1, C) &&
          same("syncbn count", &cnt2, &cnt1, 1));
    CHECK_EQ_INT(cpu->batchnorm_elemt(cctx, 0, o1, x, m1, s1, w, b, N, C), SIM_OK);
    for (size_t k = 0; k < n; k++)
        o2[k] = cuda_batchnorm_elem(x[k], m2[k % C], s2[k % C], w, b, (int)(k % C));
    CHECK(same("syncbn out", o2, o1, n));
    CHECK_EQ_INT(cpu->batchnorm_backward_reduce(cctx, 0, sums1, dw1, db1, dy, x, m1, s1, N, C),
                 SIM_OK);
    for (int c = 0; c < C; c++)
        cuda_syncbn_back_reduce_col(sums2, dw2, db2, dy, x, m2, s2, N, C, c);
    CHECK(same("syncbn sums", sums2, sums1, 2 * C) && same("syncbn dweight", dw2, dw1, C) &&
          same("syncbn dbias", db2, db1, C));
    CHECK_EQ_INT(cpu->batchnorm_backward_elemt(cctx, 0, di1, dy, x, w, m1, s1, sums1, &cnt1, N,
                                               C), SIM_OK);
    for (size_t k = 0; k < n; k++)
        di2[k] = cuda_syncbn_back_elem(di2[k], dy[k], x[k], w, m2, s2, sums2, cnt2, C,
                                       (int)(k % C));
    CHECK(same("syncbn dinp", di2, di1, n));
    free(x), free(w), free(b), free(dy), free(o1), free(o2), free(di1), free(di2);
    return 0;
}

static int test_attention(void) {
    int B = 2, T = 7, C = 12, NH = 3;
    size_t nq = (size_t)B * T * 3 * C, no = (size_t)B * T * C, na = (size_t)B * NH * T * T;
    float *qkv = randv(nq, -1, 1);
    float *o1 = randv(no, 0, 1), *o2 = randv(no, 0, 1), *p1 = randv(na, 0, 1);
    float *p2 = randv(na, 0, 1), *a1 = randv(na, 0, 1), *a2 = randv(na, 0, 1);
    CHECK_EQ_INT(cpu->attention_forward(cctx, 0, o1, p1, a1, qkv, B, T, C, NH), SIM_OK);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < NH; h++)
                cuda_attention_row(o2, p2, a2, qkv, T, C, NH, b, t, h);
    CHECK(same("attention out", o2, o1, no) && same("attention preatt", p2, p1, na) &&
          same("attention att", a2, a1, na));
    float *dout = randv(no, -1, 1), *dq1 = randv(nq, -1, 1), *dq2 = copyv(dq1, nq);
    float *dp1 = randv(na, -1, 1), *dp2 = copyv(dp1, na), *da1 = randv(na, -1, 1);
    float *da2 = copyv(da1, na), row[7], *g_pre = randv(na, 0, 1);
    CHECK_EQ_INT(cpu->attention_backward(cctx, 0, dq1, dp1, da1, dout, qkv, a1, B, T, C, NH),
                 SIM_OK);
    // the kernels' three phases (cuda_math_attention.cu), in any order of threads
    for (int b = B - 1; b >= 0; b--)
        for (int h = 0; h < NH; h++)
            for (int t = T - 1; t >= 0; t--)
                cuda_attention_back_row(g_pre, row, dp2, da2, dout, qkv, a1, T, C, NH, b, t, h);
    for (int b = 0; b < B; b++)
        for (int t = T - 1; t >= 0; t--)
            for (int c = 0; c < C; c++) {
                cuda_attention_back_dq(dq2, qkv, g_pre, T, C, NH, b, t, c / (C / NH), c % (C / NH));
                cuda_attention_back_dkv(dq2, qkv, a1, dout, g_pre, T, C, NH, b, t, c / (C / NH),
                                        c % (C / NH));
            }
    CHECK(same("attention dqkv", dq2, dq1, nq) && same("attention dpreatt", dp2, dp1, na) &&
          same("attention datt", da2, da1, na));
    free(qkv), free(o1), free(o2), free(p1), free(p2), free(a1), free(a2), free(dout);
    free(dq1), free(dq2), free(dp1), free(dp2), free(da1), free(da2), free(g_pre);
    return 0;
}

static int test_xent(void) {
    int N = 9, V = 17;
    size_t n = (size_t)N * V;
    float *logits = randv(n, -6, 6), *p1 = randv(n, 0, 1), *p2 = randv(n, 0, 1);
    float l1[9], l2[9], dl[9];
    int32_t tg[9];
    for (int i = 0; i < N; i++) {
        tg[i] = (int32_t)((i * 7) % V);
        dl[i] = uni(0.05f, 0.2f);
    }
    CHECK_EQ_INT(cpu->xent_forward(cctx, 0, l1, p1, logits, tg, N, V), SIM_OK);
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(cuda_xent_row(l2, p2, logits, tg, V, i), 0);
    CHECK(same("xent losses", l2, l1, (size_t)N) && same("xent probs", p2, p1, n));
    float *d1 = randv(n, -1, 1), *d2 = copyv(d1, n);
    CHECK_EQ_INT(cpu->xent_backward(cctx, 0, d1, p1, tg, dl, N, V), SIM_OK);
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(cuda_xent_back_row(d2, p1, tg, dl, V, i), 0);
    CHECK(same("xent dlogits", d2, d1, n));
    // A target outside [0, V) is refused, as on the cpu.
    tg[3] = V;
    CHECK_EQ_INT(cuda_xent_row(l2, NULL, logits, tg, V, 3), -1);
    CHECK_EQ_INT(cuda_xent_back_row(d2, p1, tg, dl, V, 3), -1);
    free(logits), free(p1), free(p2), free(d1), free(d2);
    return 0;
}

int main(void) {
    SimBackendConfig bc = {1, 1, 1, 5.0, 0, 0, {0}, SIM_ALGO_AUTO};
    char err[256] = "";
    if (cpu_backend_ops.init(&bc, &cctx, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "cpu backend: %s\n", err);
        return 1;
    }
    cpu = cpu_backend_ops.math;
    int failures = 0;
    RUN(test_amp_round);
    RUN(test_bias_grad);
    RUN(test_layernorm);
    RUN(test_batchnorm);
    RUN(test_syncbn);
    RUN(test_attention);
    RUN(test_xent);
    cpu_backend_ops.finalize(cctx);
    return failures ? 1 : 0;
}
