// tests/test_kernels_ops.c: the op wrappers (sim/engine/ops.h) and what is not
// about numerics: tensors, shape and dtype errors and their messages,
// phantom mode (no math, but the clock advances and the trace has the op
// with its FLOPs), a backend without kernels, the compute cost model, the
// range ops, and mixed precision: a product of values that fp16 or bf16
// cannot represent gives the rounded result, and an fp16 gradient of 1e-8
// underflows to zero unless it is scaled. And device timing: a backend's
// own times for an op (op_begin/op_times) or a collective (gpu_wall_*)
// replace the host's in the trace.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"
#include "engine/comm.h" // defines: sim_all_reduce
#include "test_kernels_util.h"
#include "test_world.h"

static float r16(float x) { return sim_f16_to_f32(sim_f32_to_f16(x)); }
static float rbf(float x) { return sim_bf16_to_f32(sim_f32_to_bf16(x)); }

// ----------------------------------------------------------------------------
// tensors

static int test_tensor(void) {
    SimTensor t;
    sim_tensor_init(&t, "0.weight", SIM_FP16, 3, (int64_t[]){2, 3, 4});
    CHECK(t.data == NULL);
    CHECK_EQ_INT(sim_tensor_numel(&t), 24);
    CHECK_EQ_INT(sim_tensor_bytes(&t), 48);
    char buf[64];
    CHECK(strcmp(sim_tensor_shape_str(&t, buf, sizeof buf), "[2, 3, 4]") == 0);
    SimTensor s;
    sim_tensor_init(&s, "scalar", SIM_FP32, 0, NULL);
    CHECK_EQ_INT(sim_tensor_numel(&s), 1);
    CHECK(strcmp(sim_tensor_shape_str(&s, buf, sizeof buf), "[]") == 0);
    CHECK(!sim_tensor_same_shape(&t, &s));
    SimTensor u = t;
    CHECK(sim_tensor_same_shape(&t, &u));
    u.shape[2] = 5;
    CHECK(!sim_tensor_same_shape(&t, &u));
    CHECK(strcmp(sim_tensor_shape_str(&t, buf, 6), "[2, 3") == 0); // truncated, terminated
    return 0;
}

// ----------------------------------------------------------------------------
// the compute cost model

static int test_cost_compute(void) {
    SimCost c;
    memset(&c, 0, sizeof c); // a zero device means the default, H100 SXM
    const SimDeviceProfile *d = sim_device_default();
    CHECK_NEAR(d->peak_fp32_flops, 67e12, 1);
    CHECK_NEAR(d->peak_lowp_flops, 989e12, 1);
    CHECK_NEAR(d->mem_bw_Bps, 3.35e12, 1);
    CHECK_NEAR(d->efficiency, 0.8, 1e-12);
    // compute-bound: 67e12 * 0.8 FLOPs in fp32 take one second, plus the launch
    CHECK_NEAR(sim_cost_compute(&c, 67e12 * 0.8, 1, 0), 1.0 + 5e-6, 1e-12);
    // the same FLOPs on tensor cores
    CHECK_NEAR(sim_cost_compute(&c, 67e12 * 0.8, 1, 1), 67.0 / 989.0 + 5e-6, 1e-12);
    // memory-bound: 3.35e12 * 0.8 bytes
    CHECK_NEAR(sim_cost_compute(&c, 1, 3.35e12 * 0.8, 0), 1.0 + 5e-6, 1e-12);
    CHECK_NEAR(sim_cost_compute(&c, 0, 0, 0), 5e-6, 1e-15);
    // an explicit device is used as given
    c.device = *d;
    c.device.efficiency = 0.5;
    c.device.launch_s = 0;
    CHECK_NEAR(sim_cost_compute(&c, 67e12, 0, 0), 2.0, 1e-12);
    return 0;
}

// ----------------------------------------------------------------------------
// mixed precision

// Linear forward of values fp16/bf16 cannot hold: the result is the product
// of the rounded values (each product is exact in fp32 and two of them add
// with one rounding, whatever order the BLAS uses).
static int amp_small(SimRank *r, SimDtype amp) {
    TkList l = {0};
    SimTensor inp, w, out;
    int rc = tk_make(r, &l, &inp, SIM_FP32, 2, (int64_t[]){1, 2}) ||
             tk_make(r, &l, &w, SIM_FP32, 2, (int64_t[]){1, 2}) ||
             tk_make(r, &l, &out, SIM_FP32, 2, (int64_t[]){1, 1});
    if (rc)
        return rc;
    float x[2] = {1.0001f, 2.0003f}, wt[2] = {3.0002f, 0.33333f};
    memcpy(inp.data, x, sizeof x);
    memcpy(w.data, wt, sizeof wt);
    float (*rnd)(float) = amp == SIM_FP16 ? r16 : rbf;
    for (int i = 0; i < 2; i++)
        CHECK(rnd(x[i]) != x[i] && rnd(wt[i]) != wt[i]); // really not representable
    float expect = rnd(x[0]) * rnd(wt[0]) + rnd(x[1]) * rnd(wt[1]);
    float exact32 = x[0] * wt[0] + x[1] * wt[1];
    CHECK(expect != exact32);
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, NULL, amp), SIM_OK);
    CHECK(tk_f(&out)[0] == expect);
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, NULL, SIM_FP32), SIM_OK);
    CHECK(tk_f(&out)[0] == exact32);
    // the gemm kernel rounds its operands the same way: C = A @ B^T
    const SimMathOps *m = r->world->ops->math;
    float cval = 0;
    CHECK_EQ_INT(m->gemm(r->world->ctx, r->rank, 0, 1, 1, 1, 2, 1.0f, x, wt, 0.0f, &cval, amp),
                 SIM_OK);
    CHECK(cval == expect);
    tk_free(r, &l);
    return 0;
}

// A larger product against a double-precision reference on the rounded
// inputs, forward and backward; the fp32 result is farther from it.
static int amp_large(SimRank *r, SimDtype amp) {
    TkRng g;
    tk_seed(&g, 7);
    TkList l = {0};
    int64_t N = 8, C = 64, OC = 16;
    SimTensor inp, w, b, out, dout, dinp, dw, db;
    int rc = tk_make(r, &l, &inp, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &w, SIM_FP32, 2, (int64_t[]){OC, C}) ||
             tk_make(r, &l, &b, SIM_FP32, 1, &OC) ||
             tk_make(r, &l, &out, SIM_FP32, 2, (int64_t[]){N, OC}) ||
             tk_make(r, &l, &dout, SIM_FP32, 2, (int64_t[]){N, OC}) ||
             tk_make(r, &l, &dinp, SIM_FP32, 2, (int64_t[]){N, C}) ||
             tk_make(r, &l, &dw, SIM_FP32, 2, (int64_t[]){OC, C}) ||
             tk_make(r, &l, &db, SIM_FP32, 1, &OC);
    if (rc)
        return rc;
    float (*rnd)(float) = amp == SIM_FP16 ? r16 : rbf;
    tk_fill_normal(&g, tk_f(&inp), N * C, 1);
    tk_fill_normal(&g, tk_f(&w), OC * C, 1);
    tk_fill_normal(&g, tk_f(&b), OC, 1);
    tk_fill_normal(&g, tk_f(&dout), N * OC, 1);
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, &b, amp), SIM_OK);
    CHECK_EQ_INT(sim_op_linear_backward(r, &dinp, &dw, &db, &dout, &inp, &w, amp), SIM_OK);
    double err = 0, err32 = 0, errd = 0, errw = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t o = 0; o < OC; o++) {
            double s = tk_f(&b)[o], s32 = s;
            for (int64_t c = 0; c < C; c++) {
                s += (double)rnd(tk_f(&inp)[n * C + c]) * rnd(tk_f(&w)[o * C + c]);
                s32 += (double)tk_f(&inp)[n * C + c] * tk_f(&w)[o * C + c];
            }
            err = fmax(err, fabs(tk_f(&out)[n * OC + o] - s));
            err32 = fmax(err32, fabs(s32 - s));
        }
    for (int64_t n = 0; n < N; n++) // dinp = rnd(dout) @ rnd(w)
        for (int64_t c = 0; c < C; c++) {
            double s = 0;
            for (int64_t o = 0; o < OC; o++)
                s += (double)rnd(tk_f(&dout)[n * OC + o]) * rnd(tk_f(&w)[o * C + c]);
            errd = fmax(errd, fabs(tk_f(&dinp)[n * C + c] - s));
        }
    for (int64_t o = 0; o < OC; o++) // dw = rnd(dout)^T @ rnd(inp)
        for (int64_t c = 0; c < C; c++) {
            double s = 0;
            for (int64_t n = 0; n < N; n++)
                s += (double)rnd(tk_f(&dout)[n * OC + o]) * rnd(tk_f(&inp)[n * C + c]);
            errw = fmax(errw, fabs(tk_f(&dw)[o * C + c] - s));
        }
    printf("  amp %s: |out - rounded ref| %.2e (fp32 inputs would be %.2e off), dinp %.2e, "
           "dweight %.2e\n",
           sim_dtype_name(amp), err, err32, errd, errw);
    CHECK(err <= 1e-5 && errd <= 1e-5 && errw <= 1e-5);
    CHECK(err32 > 100 * err);
    tk_free(r, &l);
    return 0;
}

// An fp16 gradient of 1e-8 is below fp16's smallest subnormal (6e-8): it
// rounds to zero and the weight gradient vanishes; scaled by 65536 (the
// GradScaler's initial scale) it survives.
static int amp_underflow(SimRank *r) {
    TkList l = {0};
    SimTensor inp, w, dout, dw;
    int rc = tk_make(r, &l, &inp, SIM_FP32, 2, (int64_t[]){1, 1}) ||
             tk_make(r, &l, &w, SIM_FP32, 2, (int64_t[]){1, 1}) ||
             tk_make(r, &l, &dout, SIM_FP32, 2, (int64_t[]){1, 1}) ||
             tk_make(r, &l, &dw, SIM_FP32, 2, (int64_t[]){1, 1});
    if (rc)
        return rc;
    tk_f(&inp)[0] = 1.0f;
    tk_f(&w)[0] = 1.0f;
    tk_f(&dout)[0] = 1e-8f;
    CHECK_EQ_INT(sim_op_linear_backward(r, NULL, &dw, NULL, &dout, &inp, &w, SIM_FP16), SIM_OK);
    CHECK(tk_f(&dw)[0] == 0.0f);
    CHECK_EQ_INT(sim_op_linear_backward(r, NULL, &dw, NULL, &dout, &inp, &w, SIM_FP32), SIM_OK);
    CHECK(tk_f(&dw)[0] == 1e-8f);
    tk_f(&dw)[0] = 0;
    tk_f(&dout)[0] = 1e-8f * 65536.0f;
    CHECK_EQ_INT(sim_op_linear_backward(r, NULL, &dw, NULL, &dout, &inp, &w, SIM_FP16), SIM_OK);
    CHECK(tk_f(&dw)[0] == r16(1e-8f * 65536.0f));
    CHECK_NEAR(tk_f(&dw)[0] / 65536.0, 1e-8, 1e-11);
    tk_free(r, &l);
    return 0;
}

static int test_amp(SimRank *r) {
    return amp_small(r, SIM_FP16) || amp_small(r, SIM_BF16) || amp_large(r, SIM_FP16) ||
           amp_large(r, SIM_BF16) || amp_underflow(r);
}

// ----------------------------------------------------------------------------
// the gemm kernel: C = alpha op(A) op(B) + beta C for every transposition

static int test_gemm(SimRank *r) {
    TkRng g;
    tk_seed(&g, 3);
    enum { M = 5, N = 4, K = 3 };
    float a[M * K], b[K * N], c[M * N], c0[M * N];
    tk_fill_normal(&g, a, M * K, 1);
    tk_fill_normal(&g, b, K * N, 1);
    tk_fill_normal(&g, c0, M * N, 1);
    const SimMathOps *m = r->world->ops->math;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            memcpy(c, c0, sizeof c);
            CHECK_EQ_INT(m->gemm(r->world->ctx, r->rank, ta, tb, M, N, K, 0.5f, a, b, 2.0f, c,
                                 SIM_FP32),
                         SIM_OK);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double s = 0;
                    for (int k = 0; k < K; k++) // A is [M,K] or, transposed, [K,M]
                        s += (double)(ta ? a[k * M + i] : a[i * K + k]) *
                             (tb ? b[j * K + k] : b[k * N + j]);
                    CHECK_NEAR(c[i * N + j], 0.5 * s + 2.0 * c0[i * N + j], 1e-5);
                }
        }
    // an empty product scales C by beta
    memcpy(c, c0, sizeof c);
    CHECK_EQ_INT(m->gemm(r->world->ctx, r->rank, 0, 0, M, N, 0, 1.0f, a, b, 3.0f, c, SIM_FP32),
                 SIM_OK);
    CHECK(c[7] == 3.0f * c0[7]);
    return 0;
}

// A [B, T, C] input is a [B*T, C] matrix to Linear.
static int test_linear_3d(SimRank *r) {
    TkRng g;
    tk_seed(&g, 4);
    TkList l = {0};
    SimTensor x3, x2, w, o3, o2;
    int rc = tk_make(r, &l, &x3, SIM_FP32, 3, (int64_t[]){2, 3, 4}) ||
             tk_make(r, &l, &x2, SIM_FP32, 2, (int64_t[]){6, 4}) ||
             tk_make(r, &l, &w, SIM_FP32, 2, (int64_t[]){5, 4}) ||
             tk_make(r, &l, &o3, SIM_FP32, 3, (int64_t[]){2, 3, 5}) ||
             tk_make(r, &l, &o2, SIM_FP32, 2, (int64_t[]){6, 5});
    if (rc)
        return rc;
    tk_fill_normal(&g, tk_f(&x3), 24, 1);
    memcpy(x2.data, x3.data, 24 * sizeof(float));
    tk_fill_normal(&g, tk_f(&w), 20, 1);
    CHECK_EQ_INT(sim_op_linear_forward(r, &o3, &x3, &w, NULL, SIM_FP32), SIM_OK);
    CHECK_EQ_INT(sim_op_linear_forward(r, &o2, &x2, &w, NULL, SIM_FP32), SIM_OK);
    CHECK(memcmp(o3.data, o2.data, 30 * sizeof(float)) == 0);
    o3.shape[1] = 2; // [2, 2, 5]: 4 rows for 6
    CHECK_EQ_INT(sim_op_linear_forward(r, &o3, &x3, &w, NULL, SIM_FP32), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "out [2, 2, 5] and inp [2, 3, 4] disagree on N");
    tk_free(r, &l);
    return 0;
}

// ----------------------------------------------------------------------------
// errors

static int test_errors(SimRank *r) {
    TkList l = {0};
    SimTensor inp, w, out, idx, i32, x, tg, logits, losses, bn_in, bn_out;
    int rc = tk_make(r, &l, &inp, SIM_FP32, 2, (int64_t[]){32, 784}) ||
             tk_make(r, &l, &w, SIM_FP32, 2, (int64_t[]){256, 100}) ||
             tk_make(r, &l, &out, SIM_FP32, 2, (int64_t[]){32, 256}) ||
             tk_make(r, &l, &idx, SIM_INT32, 2, (int64_t[]){1, 3}) ||
             tk_make(r, &l, &i32, SIM_INT32, 2, (int64_t[]){32, 784}) ||
             tk_make(r, &l, &x, SIM_FP32, 1, (int64_t[]){10}) ||
             tk_make(r, &l, &tg, SIM_INT32, 1, (int64_t[]){3}) ||
             tk_make(r, &l, &logits, SIM_FP32, 2, (int64_t[]){3, 10}) ||
             tk_make(r, &l, &losses, SIM_FP32, 1, (int64_t[]){3}) ||
             tk_make(r, &l, &bn_in, SIM_FP32, 2, (int64_t[]){1, 4}) ||
             tk_make(r, &l, &bn_out, SIM_FP32, 2, (int64_t[]){1, 4});
    if (rc)
        return rc;
    // shapes
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, NULL, SIM_FP32), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error,
                       "linear_forward: inp [32, 784] and weight [256, 100] disagree on C");
    w.shape[1] = 784;
    out.shape[1] = 255;
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, NULL, SIM_FP32), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "linear_forward: out [32, 255] and weight [256, 784] disagree on OC");
    out.shape[1] = 256;
    // dtypes and missing tensors
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &i32, &w, NULL, SIM_FP32), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "linear_forward: inp is int32; expected fp32");
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, NULL, &w, NULL, SIM_FP32), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "linear_forward: inp is missing");
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, NULL, SIM_INT32), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "amp int32");
    // real and phantom mixed
    SimTensor ph = inp;
    ph.data = NULL;
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &ph, &w, NULL, SIM_FP32), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "linear_forward: inp has no storage (phantom)");
    // ids out of range, caught before any kernel reads memory with them
    int32_t bad_t[3] = {0, 9, 10};
    memcpy(tg.data, bad_t, sizeof bad_t);
    CHECK_EQ_INT(sim_op_xent_forward(r, &losses, NULL, &logits, &tg), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "xent_forward: targets[2] = 10 is out of range [0, 10)");
    SimTensor wte, wpe, emb;
    CHECK(tk_make(r, &l, &wte, SIM_FP32, 2, (int64_t[]){5, 2}) == 0);
    CHECK(tk_make(r, &l, &wpe, SIM_FP32, 2, (int64_t[]){2, 2}) == 0);
    CHECK(tk_make(r, &l, &emb, SIM_FP32, 3, (int64_t[]){1, 3, 2}) == 0);
    CHECK_EQ_INT(sim_op_embedding_forward(r, &emb, &idx, &wte, &wpe), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "embedding_forward: idx has 3 positions but wpe has 2");
    wpe.shape[0] = 2;
    idx.shape[1] = 2;
    emb.shape[1] = 2;
    int32_t bad_i[2] = {4, -1};
    memcpy(idx.data, bad_i, sizeof bad_i);
    CHECK_EQ_INT(sim_op_embedding_forward(r, &emb, &idx, &wte, &wpe), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "embedding_forward: idx[1] = -1 is out of range [0, 5)");
    // BatchNorm1d training needs two rows, as torch says
    CHECK_EQ_INT(sim_op_batchnorm_forward(r, &bn_out, NULL, NULL, NULL, NULL, &bn_in, NULL, NULL,
                                          0.1f, 1e-5f, 1),
                 SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "more than 1 value per channel when training, got inp [1, 4]");
    // ranges
    CHECK_EQ_INT(sim_op_scale(r, &x, 4, 7, 2.0f), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "scale: range [4, 11) is outside x (10 elements)");
    CHECK_EQ_INT(sim_op_fill(r, &x, 11, 0, 1.0f), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "fill: offset 11 is beyond the end of x (10 elements)");
    // attention heads
    SimTensor qkv, ao, pre, att;
    CHECK(tk_make(r, &l, &qkv, SIM_FP32, 3, (int64_t[]){1, 2, 12}) == 0);
    CHECK(tk_make(r, &l, &ao, SIM_FP32, 3, (int64_t[]){1, 2, 4}) == 0);
    CHECK(tk_make(r, &l, &pre, SIM_FP32, 4, (int64_t[]){1, 3, 2, 2}) == 0);
    CHECK(tk_make(r, &l, &att, SIM_FP32, 4, (int64_t[]){1, 3, 2, 2}) == 0);
    CHECK_EQ_INT(sim_op_attention_forward(r, &ao, &pre, &att, &qkv, 3), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "attention_forward: 3 heads do not divide C = 4");
    // optimizers
    SimSgdHyper sh = {.lr = 0.1, .momentum = 0.9};
    CHECK_EQ_INT(sim_op_sgd_step(r, &x, &x, NULL, 0, 0, &sh), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "sgd_step: momentum_buf is missing");
    sh.momentum = 0;
    CHECK_EQ_INT(sim_op_sgd_step(r, &x, &x, NULL, 0, 0, &sh), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "sgd_step: p and g share storage");
    SimAdamHyper ah = {.lr = 0.1, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 0};
    CHECK_EQ_INT(sim_op_adam_step(r, &x, &x, &x, &x, 0, 0, &ah), SIM_EINVAL);
    CHECK_STR_CONTAINS(r->error, "adam_step: step 0; the first step is 1");
    tk_free(r, &l);
    return 0;
}

// ----------------------------------------------------------------------------
// the small ops

static int test_vec_ops(SimRank *r) {
    TkList l = {0};
    SimTensor x, y, z, h;
    int64_t n = 6;
    int rc = tk_make(r, &l, &x, SIM_FP32, 1, &n) || tk_make(r, &l, &y, SIM_FP32, 1, &n) ||
             tk_make(r, &l, &z, SIM_FP32, 1, &n) || tk_make(r, &l, &h, SIM_FP16, 1, &n);
    if (rc)
        return rc;
    float xv[6] = {1, -2, 3, 0.5f, 1.0001f, 4};
    memcpy(x.data, xv, sizeof xv);
    CHECK_EQ_INT(sim_op_fill(r, &y, 0, 0, 2.0f), SIM_OK);
    CHECK_EQ_INT(sim_op_add(r, &z, &x, &y), SIM_OK);
    CHECK(tk_f(&z)[1] == 0.0f && tk_f(&z)[5] == 6.0f);
    CHECK_EQ_INT(sim_op_axpy(r, &z, -0.5f, &y), SIM_OK); // z = x + 2 - 1
    CHECK(tk_f(&z)[0] == 2.0f && tk_f(&z)[1] == -1.0f);
    CHECK_EQ_INT(sim_op_scale(r, &z, 2, 2, 10.0f), SIM_OK); // only z[2], z[3]
    float z4 = (xv[4] + 2.0f) - 1.0f;
    CHECK(tk_f(&z)[1] == -1.0f && tk_f(&z)[2] == 40.0f && tk_f(&z)[3] == 15.0f &&
          tk_f(&z)[4] == z4);
    double ss = 0;
    CHECK_EQ_INT(sim_op_sumsq(r, &x, 1, 2, &ss), SIM_OK);
    CHECK(ss == 13.0);
    int bad = -1;
    CHECK_EQ_INT(sim_op_nonfinite(r, &x, 0, 0, &bad), SIM_OK);
    CHECK_EQ_INT(bad, 0);
    tk_f(&x)[5] = NAN;
    CHECK_EQ_INT(sim_op_nonfinite(r, &x, 0, 5, &bad), SIM_OK);
    CHECK_EQ_INT(bad, 0); // the NaN is outside the range
    CHECK_EQ_INT(sim_op_nonfinite(r, &x, 3, 0, &bad), SIM_OK);
    CHECK_EQ_INT(bad, 1);
    tk_f(&x)[5] = INFINITY;
    CHECK_EQ_INT(sim_op_nonfinite(r, &x, 5, 1, &bad), SIM_OK);
    CHECK_EQ_INT(bad, 1);
    tk_f(&x)[5] = 4;
    CHECK_EQ_INT(sim_op_cast(r, &h, &x), SIM_OK);
    CHECK_EQ_INT(sim_op_cast(r, &y, &h), SIM_OK);
    for (int i = 0; i < 6; i++)
        CHECK(tk_f(&y)[i] == r16(xv[i]));
    CHECK(tk_f(&y)[4] == 1.0f); // 1.0001 is not an fp16 value
    tk_free(r, &l);
    return 0;
}

// ----------------------------------------------------------------------------
// phantom mode: no storage anywhere, shapes of a large layer

static int test_phantom(SimRank *r) {
    int64_t N = 4096, C = 8192, OC = 16384;
    SimTensor inp, w, b, out;
    sim_tensor_init(&inp, "inp", SIM_FP32, 2, (int64_t[]){N, C});
    sim_tensor_init(&w, "w", SIM_FP32, 2, (int64_t[]){OC, C});
    sim_tensor_init(&b, "b", SIM_FP32, 1, &OC);
    sim_tensor_init(&out, "out", SIM_FP32, 2, (int64_t[]){N, OC});
    CHECK_EQ_INT(sim_tensor_alloc(r, &w, 1), SIM_OK); // phantom: no storage
    CHECK(w.data == NULL);
    SimTrace *tr = r->world->trace;
    size_t before = sim_trace_rank_count(tr, r->rank);
    double t0 = r->clock[SIM_STREAM_COMPUTE];
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, &b, SIM_FP32), SIM_OK);
    double flops = 2.0 * N * C * OC;
    double bytes = 4.0 * ((double)N * C + (double)OC * C + (double)N * OC + OC);
    // priced by its shape (sim_cost_gemm_on): 32 x 64 = 2048 output tiles of
    // 128x256 on the H100's 132 SMs take 16 waves (15.5 full), each a
    // tile's 2 x 128 x 256 x 8192 FLOPs at a 132nd of 0.8 x 67e12 FLOP/s
    const SimCostGemm g = {(double)N, (double)OC, (double)C, bytes};
    double dur = sim_cost_gemm(&r->world->cost, &g, 0);
    CHECK_NEAR(r->clock[SIM_STREAM_COMPUTE] - t0, dur, 1e-12);
    CHECK_NEAR(dur, 16 * 2.0 * 128 * 256 * 8192 / (67e12 / 132) / 0.8 + 5e-6, 1e-12);
    CHECK(dur > flops / (0.8 * 67e12)); // wave quantization: above the plain roofline
    CHECK_EQ_INT(sim_trace_rank_count(tr, r->rank), before + 1);
    const SimEvent *ev = &sim_trace_rank_events(tr, r->rank)[before];
    CHECK_EQ_INT(ev->kind, SIM_EV_COMPUTE);
    CHECK_EQ_INT(ev->stream, SIM_STREAM_COMPUTE);
    CHECK(strcmp(ev->name, "linear_fwd") == 0);
    CHECK(ev->label && strcmp(ev->label, "phantom") == 0);
    CHECK_EQ_INT(ev->count, 2ull * 4096 * 8192 * 16384);
    CHECK_NEAR(ev->bytes, bytes, 1);
    CHECK_NEAR(ev->sim_start, t0, 0);
    CHECK_NEAR(ev->sim_end, t0 + dur, 1e-12);
    CHECK(ev->wall_end >= ev->wall_start);
    // amp prices the product on tensor cores
    t0 = r->clock[SIM_STREAM_COMPUTE];
    CHECK_EQ_INT(sim_op_linear_forward(r, &out, &inp, &w, &b, SIM_BF16), SIM_OK);
    CHECK(r->clock[SIM_STREAM_COMPUTE] - t0 < dur / 5);
    // host scalars of phantom reductions read 0
    double ss = -1;
    CHECK_EQ_INT(sim_op_sumsq(r, &w, 0, 0, &ss), SIM_OK);
    CHECK(ss == 0.0);
    // a real op is traced too, without the label
    TkList l = {0};
    SimTensor x;
    CHECK(tk_make(r, &l, &x, SIM_FP32, 1, (int64_t[]){100}) == 0);
    CHECK_EQ_INT(sim_op_fill(r, &x, 0, 0, 1.0f), SIM_OK);
    ev = &sim_trace_rank_events(tr, r->rank)[sim_trace_rank_count(tr, r->rank) - 1];
    CHECK(strcmp(ev->name, "fill") == 0 && ev->label == NULL && ev->bytes == 400);
    tk_free(r, &l);
    return 0;
}

// ----------------------------------------------------------------------------

static SimStatus rank_main(SimRank *r, void *arg) {
    int *failures = arg;
#define RUN_R(fn)                                                                                  \
    do {                                                                                           \
        r->error[0] = '\0';                                                                        \
        int run_rc_ = fn(r);                                                                       \
        if (run_rc_ && r->error[0])                                                                \
            fprintf(stderr, "  last error: %s\n", r->error);                                       \
        printf("%s %s\n", run_rc_ == 0 ? "ok    " : "FAILED", #fn);                                \
        *failures += run_rc_ != 0;                                                                 \
    } while (0)
    RUN_R(test_gemm);
    RUN_R(test_linear_3d);
    RUN_R(test_amp);
    RUN_R(test_errors);
    RUN_R(test_vec_ops);
    RUN_R(test_phantom);
    return SIM_OK;
}

// A backend without kernels (or without one kernel) refuses numeric ops
// with ENOTSUP, and still accounts for phantom ones.
static SimStatus notsup_main(SimRank *r, void *arg) {
    int *failures = arg;
    TkList l = {0};
    SimTensor x;
    if (tk_make(r, &l, &x, SIM_FP32, 1, (int64_t[]){4}))
        return SIM_ENOMEM;
    SimStatus st = sim_op_fill(r, &x, 0, 0, 1.0f);
    const char *want = r->world->ops->math ? "fill: not supported by backend cpu-no-fill"
                                           : "fill: not supported by backend cpu-no-math";
    if (st != SIM_ENOTSUP || strstr(r->error, want) == NULL) {
        fprintf(stderr, "expected ENOTSUP \"%s\", got %s \"%s\"\n", want, sim_status_name(st),
                r->error);
        (*failures)++;
    }
    SimTensor ph = x;
    ph.data = NULL;
    if (sim_op_fill(r, &ph, 0, 0, 1.0f) != SIM_OK || !(r->clock[SIM_STREAM_COMPUTE] > 0))
        (*failures)++;
    tk_free(r, &l);
    return SIM_OK;
}

// Runs fn on one rank of a world on the backend variant ops (with a trace);
// the run's status.
static SimStatus run_variant(const SimBackendOps *ops, SimRankMain fn, int *failures) {
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = 1;
    cfg.trace = 1;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &cfg, ops);
    if (st == SIM_OK)
        st = sim_world_run(&w, fn, failures);
    sim_world_free(&w);
    return st;
}

static int test_notsup(void) {
    int failures = 0;
    SimBackendOps no_math = cpu_backend_ops;
    no_math.name = "cpu-no-math";
    no_math.math = NULL;
    SimMathOps math = *cpu_backend_ops.math;
    math.fill = NULL;
    SimBackendOps no_fill = cpu_backend_ops;
    no_fill.name = "cpu-no-fill";
    no_fill.math = &math;
    const SimBackendOps *variants[2] = {&no_math, &no_fill};
    for (int i = 0; i < 2; i++)
        CHECK_EQ_INT(run_variant(variants[i], notsup_main, &failures), SIM_OK);
    return failures;
}

// ----------------------------------------------------------------------------
// device timing (SimBackendOps.op_begin / op_times): a backend that times its
// kernels itself gives the trace its times instead of the host's. The fake
// below stands in for the CUDA backend's events: op k "ran" from 1000 + k to
// 1000 + k + 0.25 s on the sim_wall_now() clock, and op 2 has no times.

typedef struct {
    int begins, times; // calls of each hook
} FakeTiming;

static FakeTiming fake_timing; // this test's only world runs one rank

static void fake_op_begin(void *ctx, int rank) {
    (void)ctx, (void)rank;
    fake_timing.begins++;
}

static int fake_op_times(void *ctx, int rank, double *s, double *e) {
    (void)ctx, (void)rank;
    int k = fake_timing.times++;
    if (k == 2)
        return 0;
    *s = 1000.0 + k;
    *e = 1000.0 + k + 0.25;
    return 1;
}

static SimStatus timing_main(SimRank *r, void *arg) {
    int *failures = arg;
    TkList l = {0};
    SimTensor x, ph;
    if (tk_make(r, &l, &x, SIM_FP32, 1, (int64_t[]){64}))
        return SIM_ENOMEM;
    SimTrace *tr = r->world->trace;
    double epoch = r->world->wall_epoch;
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        double host0 = sim_wall_now() - epoch;
        bad |= sim_op_fill(r, &x, 0, 0, (float)k) != SIM_OK;
        double host1 = sim_wall_now() - epoch;
        const SimEvent *ev = &sim_trace_rank_events(tr, r->rank)[sim_trace_rank_count(tr, 0) - 1];
        if (k == 2) // no device times: the host's, around the call
            bad |= !(ev->wall_start >= host0 && ev->wall_end <= host1 &&
                     ev->wall_end >= ev->wall_start);
        else
            bad |= fabs(ev->wall_start - (1000.0 + k - epoch)) > 1e-9 ||
                   fabs(ev->wall_end - (1000.0 + k + 0.25 - epoch)) > 1e-9;
        bad |= x.data == NULL || ((float *)x.data)[63] != (float)k; // the math still ran
    }
    // neither a phantom op nor a refused one starts device timing
    ph = x;
    ph.data = NULL;
    bad |= sim_op_fill(r, &ph, 0, 0, 1.0f) != SIM_OK;
    bad |= sim_op_fill(r, &x, 0, 65, 1.0f) == SIM_OK;
    bad |= fake_timing.begins != 4 || fake_timing.times != 4;
    if (bad)
        fprintf(stderr, "device timing: begins %d, times %d\n", fake_timing.begins,
                fake_timing.times);
    *failures += bad;
    tk_free(r, &l);
    return SIM_OK;
}

static int test_device_timing(void) {
    int failures = 0;
    SimBackendOps timed = cpu_backend_ops;
    timed.name = "cpu-timed";
    timed.op_begin = fake_op_begin;
    timed.op_times = fake_op_times;
    CHECK_EQ_INT(run_variant(&timed, timing_main, &failures), SIM_OK);
    return failures;
}

// A backend that times its collectives on the device (SimCollCall's
// gpu_wall_start/end, set by the time it is waited for; the cpu backend
// finishes a collective at launch): the collective's trace event keeps
// those times; left at 0, the host's launch-to-wait. The fake says the
// first all-reduce ran from 2000 to 2000.5 s and leaves the second alone.
static int coll_waits;

static SimStatus fake_coll_launch(void *ctx, int rank, SimCollHandle *h) {
    SimStatus st = cpu_backend_ops.coll_launch(ctx, rank, h);
    if (coll_waits++ == 0) {
        h->call.gpu_wall_start = 2000.0;
        h->call.gpu_wall_end = 2000.5;
    }
    return st;
}

static SimStatus coll_timing_main(SimRank *r, void *arg) {
    int *failures = arg;
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
    SimTrace *tr = r->world->trace;
    double epoch = r->world->wall_epoch;
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        double host0 = sim_wall_now() - epoch;
        bad |= sim_all_reduce(r, x, y, 8, SIM_FP32, SIM_SUM, SIM_ALGO_RING) != SIM_OK;
        double host1 = sim_wall_now() - epoch;
        const SimEvent *ev = NULL, *all = sim_trace_rank_events(tr, r->rank);
        for (size_t i = 0; i < sim_trace_rank_count(tr, r->rank); i++)
            ev = all[i].kind == SIM_EV_COLL ? &all[i] : ev; // the latest
        bad |= ev == NULL;
        if (ev && k == 0)
            bad |= fabs(ev->wall_start - (2000.0 - epoch)) > 1e-9 ||
                   fabs(ev->wall_end - (2000.5 - epoch)) > 1e-9;
        else if (ev)
            bad |= !(ev->wall_start >= host0 && ev->wall_end <= host1);
        bad |= y[7] != 8.0f; // one rank: the sum is the input
    }
    if (bad)
        fprintf(stderr, "collective timing: the trace did not keep the device's times\n");
    *failures += bad;
    return SIM_OK;
}

static int test_device_coll_timing(void) {
    int failures = 0;
    SimBackendOps timed = cpu_backend_ops;
    timed.name = "cpu-coll-timed";
    timed.coll_launch = fake_coll_launch;
    CHECK_EQ_INT(run_variant(&timed, coll_timing_main, &failures), SIM_OK);
    CHECK_EQ_INT(coll_waits, 2);
    return failures;
}

int main(void) {
    int failures = 0;
    RUN(test_device_coll_timing);
    RUN(test_tensor);
    RUN(test_cost_compute);
    RUN(test_notsup);
    RUN(test_device_timing);
    if (tworld_run_cpu(1, 1, rank_main, &failures) != SIM_OK)
        return 1;
    return failures != 0;
}
