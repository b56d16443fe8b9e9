// backend_cpu/cpu_math_linear.c: matrix products on the CPU: the general
// gemm and the Linear layer (PyTorch layout, weight [OC, C]), through CBLAS.
//
// Mixed precision (amp = SIM_FP16 or SIM_BF16) works as torch.autocast does
// for a matmul: the operands are rounded to the low-precision type (round to
// nearest even) and the product is accumulated in fp32. Here the rounded
// operands are fp32 copies in the rank's scratch, which gives the same
// numbers as a half-precision GEMM with fp32 accumulation.
#include <cblas.h>
#include <stddef.h>
#include <string.h>

#include "base/dtype.h"
#include "cpu_math.h"

// ----------------------------------------------------------------------------
// amp: rounded copies of the operands

// dst[n] = src[n] rounded to amp and widened back to fp32.
static void round_copy(float *dst, const float *src, size_t n, SimDtype amp) {
    if (amp == SIM_FP16) {
        for (size_t i = 0; i < n; i++)
            dst[i] = sim_f16_to_f32(sim_f32_to_f16(src[i]));
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = sim_bf16_to_f32(sim_f32_to_bf16(src[i]));
    }
}

static int amp_on(SimDtype amp) {
    return amp == SIM_FP16 || amp == SIM_BF16;
}

static int amp_valid(SimDtype amp) {
    return amp == SIM_FP32 || amp_on(amp);
}

// Operands of one product: the originals, or rounded copies in scratch.
// ops[i] points at src[i] (n[i] elements) rounded when amp is on.
static SimStatus amp_operands(void *ctx, int rank, SimDtype amp, int count,
                              const float *const *src, const size_t *n, const float **ops) {
    if (!amp_on(amp)) {
        for (int i = 0; i < count; i++)
            ops[i] = src[i];
        return SIM_OK;
    }
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += src[i] ? n[i] : 0;
    float *scratch = cpu_math_scratch(ctx, rank, total * sizeof(float));
    if (scratch == NULL && total > 0)
        return SIM_ENOMEM;
    for (int i = 0; i < count; i++) {
        if (src[i] == NULL) {
            ops[i] = NULL;
            continue;
        }
        round_copy(scratch, src[i], n[i], amp);
        ops[i] = scratch;
        scratch += n[i];
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// the one call into BLAS

// C = alpha op(A) op(B) + beta C, row-major, through the BLAS gate
// (cpu_math.c): waits while too many ranks are inside the library, then
// makes the same call as without the gate.
static void gated_sgemm(int trans_a, int trans_b, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc) {
    cpu_math_blas_enter();
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c,
                ldc);
    cpu_math_blas_leave();
}

// ----------------------------------------------------------------------------
// gemm

SimStatus cpu_math_gemm(void *ctx, int rank, int trans_a, int trans_b, int m, int n, int k,
                        float alpha, const float *a, const float *b, float beta, float *c,
                        SimDtype amp) {
    if (m < 0 || n < 0 || k < 0 || !amp_valid(amp))
        return SIM_EINVAL;
    if (m == 0 || n == 0)
        return SIM_OK;
    if (k == 0) { // empty product: C = beta * C (BLAS rejects lda = 0)
        for (size_t i = 0; i < (size_t)m * n; i++)
            c[i] = beta == 0.0f ? 0.0f : beta * c[i];
        return SIM_OK;
    }
    const float *src[2] = {a, b}, *op[2];
    size_t cnt[2] = {(size_t)m * k, (size_t)k * n};
    SIM_CHECK(amp_operands(ctx, rank, amp, 2, src, cnt, op));
    // Row-major: A is [m,k] (lda k) or, transposed, stored [k,m] (lda m).
    int lda = trans_a ? m : k;
    int ldb = trans_b ? k : n;
    gated_sgemm(trans_a, trans_b, m, n, k, alpha, op[0], lda, op[1], ldb, beta, c, n);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// Linear

SimStatus cpu_math_linear_forward(void *ctx, int rank, float *out, const float *inp,
                                  const float *weight, const float *bias, int N, int C, int OC,
                                  SimDtype amp) {
    // out (N,OC) = inp (N,C) @ weight (OC,C)^T + bias (OC)
    if (N < 0 || C < 0 || OC < 0 || !amp_valid(amp))
        return SIM_EINVAL;
    if (N == 0 || OC == 0)
        return SIM_OK;
    // Start from the bias (or zero) and let the GEMM add the product, as
    // torch's addmm does.
    for (int i = 0; i < N; i++) {
        float *out_i = out + (size_t)i * OC;
        if (bias)
            memcpy(out_i, bias, (size_t)OC * sizeof(float));
        else
            memset(out_i, 0, (size_t)OC * sizeof(float));
    }
    if (C == 0)
        return SIM_OK;
    const float *src[2] = {inp, weight}, *op[2];
    size_t cnt[2] = {(size_t)N * C, (size_t)OC * C};
    SIM_CHECK(amp_operands(ctx, rank, amp, 2, src, cnt, op));
    gated_sgemm(0, 1, N, OC, C, 1.0f, op[0], C, op[1], C, 1.0f, out, OC);
    return SIM_OK;
}

// dbias (OC) += sum over rows of dout (N,OC), each column summed in double.
static void bias_grad(float *dbias, const float *dout, int N, int OC) {
    enum { BLOCK = 256 };
    double acc[BLOCK];
    for (int o0 = 0; o0 < OC; o0 += BLOCK) {
        int width = OC - o0 < BLOCK ? OC - o0 : BLOCK;
        for (int j = 0; j < width; j++)
            acc[j] = 0.0;
        for (int i = 0; i < N; i++) {
            const float *row = dout + (size_t)i * OC + o0;
            for (int j = 0; j < width; j++)
                acc[j] += row[j];
        }
        for (int j = 0; j < width; j++)
            dbias[o0 + j] = (float)((double)dbias[o0 + j] + acc[j]);
    }
}

SimStatus cpu_math_linear_backward(void *ctx, int rank, float *dinp, float *dweight,
                                   float *dbias, const float *dout, const float *inp,
                                   const float *weight, int N, int C, int OC, SimDtype amp) {
    if (N < 0 || C < 0 || OC < 0 || !amp_valid(amp))
        return SIM_EINVAL;
    if (N == 0 || OC == 0)
        return SIM_OK;
    if (dbias)
        bias_grad(dbias, dout, N, OC); // the bias is added in fp32: no rounding
    if (C == 0)
        return SIM_OK;
    const float *src[3] = {dout, inp, dinp ? weight : NULL}, *op[3];
    size_t cnt[3] = {(size_t)N * OC, (size_t)N * C, (size_t)OC * C};
    SIM_CHECK(amp_operands(ctx, rank, amp, 3, src, cnt, op));
    // dinp (N,C) += dout (N,OC) @ weight (OC,C)
    if (dinp)
        gated_sgemm(0, 0, N, C, OC, 1.0f, op[0], OC, op[2], C, 1.0f, dinp, C);
    // dweight (OC,C) += dout^T (OC,N) @ inp (N,C)
    if (dweight)
        gated_sgemm(1, 0, OC, C, N, 1.0f, op[0], OC, op[1], C, 1.0f, dweight, C);
    return SIM_OK;
}
