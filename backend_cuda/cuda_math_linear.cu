// backend_cuda/cuda_math_linear.cu: matrix products on the GPU (sim/engine/kernels.h
// gemm, linear_forward, linear_backward) through cuBLAS, plus the bias
// kernels around them.
//
// cuBLAS is column-major and ddplab row-major. A row-major [r, c] matrix with
// leading dimension ld is, read column-major, its transpose [c, r] with the
// same ld. So the row-major C[m,n] = op(A) @ op(B) is computed as the
// column-major C^T[n,m] = op(B)^T @ op(A)^T: the operands swap places, keep
// their own transpose flags, and nothing is copied (sgemm_rm below).
//
// amp (fp16/bf16): the operands are rounded into fp32 copies in the rank's
// scratch (cuda_amp_round, round to nearest even) and multiplied in fp32, as
// the cpu backend and torch.autocast's fp32 accumulation do. fp32 products
// use full fp32 unless --tf32 set the handle's math mode (cuda_backend.c).
#include "cuda_arith_nn.h" // defines: cuda_amp_round, cuda_bias_grad_col
#include "cuda_launch.h"   // defines: cuda_blocks_for, CUDA_OP_*, cuda_ctx_*
#include "cuda_math.h"     // defines: cuda_math_gemm, ...

namespace {

__global__ void amp_round_kernel(float *dst, const float *src, size_t n, SimDtype amp) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = cuda_amp_round(src[i], amp);
}

// c[i] = beta * c[i] (beta 0: exactly 0, as BLAS does), for an empty product.
__global__ void beta_kernel(float *c, size_t n, float beta) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = beta == 0.0f ? 0.0f : beta * c[i];
}

// out[N, OC]: every row starts as the bias, or zero (then the product adds).
__global__ void bias_rows_kernel(float *out, const float *bias, int N, int OC) {
    size_t n = (size_t)N * OC;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = bias ? bias[i % (size_t)OC] : 0.0f;
}

// One thread per output channel: dbias[o] += column sum of dout[N, OC].
__global__ void bias_grad_kernel(float *dbias, const float *dout, int N, int OC) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o < OC)
        cuda_bias_grad_col(dbias, dout, N, OC, o);
}

int amp_on(SimDtype amp) {
    return amp == SIM_FP16 || amp == SIM_BF16;
}

int amp_valid(SimDtype amp) {
    return amp == SIM_FP32 || amp_on(amp);
}

// The operands of one product: src[i] itself, or (amp) a rounded copy of its
// n[i] elements in the rank's scratch. NULL sources stay NULL.
SimStatus amp_operands(void *ctx, int rank, SimDtype amp, int count, const float *const *src,
                       const size_t *n, const float **ops) {
    if (!amp_on(amp)) {
        for (int i = 0; i < count; i++)
            ops[i] = src[i];
        return SIM_OK;
    }
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += src[i] ? n[i] : 0;
    float *scratch = (float *)cuda_ctx_scratch(ctx, rank, total * sizeof(float) + 1);
    if (scratch == NULL)
        return SIM_ENOMEM;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    for (int i = 0; i < count; i++) {
        ops[i] = NULL;
        if (src[i] == NULL || n[i] == 0)
            continue;
        amp_round_kernel<<<cuda_blocks_for(n[i]), CUDA_THREADS, 0, s>>>(scratch, src[i], n[i],
                                                                         amp);
        CUDA_OP_CHECK(cudaGetLastError());
        ops[i] = scratch;
        scratch += n[i];
    }
    return SIM_OK;
}

// Row-major C[m,n] = alpha op(A) op(B) + beta C, A [m,k] (ta: stored [k,m]),
// B [k,n] (tb: stored [n,k]); m, n, k > 0. See the top of the file.
SimStatus sgemm_rm(void *ctx, int rank, int ta, int tb, int m, int n, int k, float alpha,
                   const float *a, const float *b, float beta, float *c) {
    int lda = ta ? m : k; // row-major leading dimensions of the stored matrices
    int ldb = tb ? k : n;
    CUBLAS_OP_CHECK(cublasSgemm(cuda_ctx_cublas(ctx, rank), tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                                ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb, a, lda,
                                &beta, c, n));
    return SIM_OK;
}

} // namespace

SimStatus cuda_math_gemm(void *ctx, int rank, int trans_a, int trans_b, int m, int n, int k,
                         float alpha, const float *a, const float *b, float beta, float *c,
                         SimDtype amp) {
    if (m < 0 || n < 0 || k < 0 || !amp_valid(amp))
        return SIM_EINVAL;
    if (m == 0 || n == 0)
        return SIM_OK;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    if (k == 0) { // empty product: C = beta C
        size_t mn = (size_t)m * n;
        beta_kernel<<<cuda_blocks_for(mn), CUDA_THREADS, 0, s>>>(c, mn, beta);
        CUDA_OP_DONE();
    }
    const float *src[2] = {a, b}, *op[2];
    size_t cnt[2] = {(size_t)m * k, (size_t)k * n};
    SIM_CHECK(amp_operands(ctx, rank, amp, 2, src, cnt, op));
    SIM_CHECK(sgemm_rm(ctx, rank, trans_a, trans_b, m, n, k, alpha, op[0], op[1], beta, c));
    CUDA_OP_DONE();
}

SimStatus cuda_math_linear_forward(void *ctx, int rank, float *out, const float *inp,
                                   const float *weight, const float *bias, int N, int C, int OC,
                                   SimDtype amp) {
    // out (N,OC) = inp (N,C) @ weight (OC,C)^T + bias (OC)
    if (N < 0 || C < 0 || OC < 0 || !amp_valid(amp))
        return SIM_EINVAL;
    if (N == 0 || OC == 0)
        return SIM_OK;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    size_t n_out = (size_t)N * OC;
    bias_rows_kernel<<<cuda_blocks_for(n_out), CUDA_THREADS, 0, s>>>(out, bias, N, OC);
    CUDA_OP_CHECK(cudaGetLastError());
    if (C > 0) {
        const float *src[2] = {inp, weight}, *op[2];
        size_t cnt[2] = {(size_t)N * C, (size_t)OC * C};
        SIM_CHECK(amp_operands(ctx, rank, amp, 2, src, cnt, op));
        SIM_CHECK(sgemm_rm(ctx, rank, 0, 1, N, OC, C, 1.0f, op[0], op[1], 1.0f, out));
    }
    CUDA_OP_DONE();
}

SimStatus cuda_math_linear_backward(void *ctx, int rank, float *dinp, float *dweight,
                                    float *dbias, const float *dout, const float *inp,
                                    const float *weight, int N, int C, int OC, SimDtype amp) {
    if (N < 0 || C < 0 || OC < 0 || !amp_valid(amp))
        return SIM_EINVAL;
    if (N == 0 || OC == 0)
        return SIM_OK;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    if (dbias) { // the bias is added in fp32: no rounding
        bias_grad_kernel<<<(OC + CUDA_THREADS - 1) / CUDA_THREADS, CUDA_THREADS, 0, s>>>(
            dbias, dout, N, OC);
        CUDA_OP_CHECK(cudaGetLastError());
    }
    if (C > 0) {
        const float *src[3] = {dout, inp, dinp ? weight : NULL}, *op[3];
        size_t cnt[3] = {(size_t)N * OC, (size_t)N * C, (size_t)OC * C};
        SIM_CHECK(amp_operands(ctx, rank, amp, 3, src, cnt, op));
        // dinp (N,C) += dout (N,OC) @ weight (OC,C)
        if (dinp)
            SIM_CHECK(sgemm_rm(ctx, rank, 0, 0, N, C, OC, 1.0f, op[0], op[2], 1.0f, dinp));
        // dweight (OC,C) += dout^T (OC,N) @ inp (N,C)
        if (dweight)
            SIM_CHECK(sgemm_rm(ctx, rank, 1, 0, OC, C, N, 1.0f, op[0], op[1], 1.0f, dweight));
    }
    CUDA_OP_DONE();
}
