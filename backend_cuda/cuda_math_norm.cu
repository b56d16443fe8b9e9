// backend_cuda/cuda_math_norm.cu: LayerNorm and BatchNorm1d on the GPU
// (sim/engine/kernels.h), with cuda_arith_nn.h's arithmetic, which is the cpu
// backend's (cpu_math_norm.c) statement by statement.
//
// LayerNorm: one thread per row for the normalisation and dinp, one thread
// per channel for dweight/dbias (a column sum over the rows, in order).
// BatchNorm1d: one thread per channel for the statistics (mean, biased
// variance, running statistics) and the backward sums, then one thread per
// element. Scratch (the rank's): BatchNorm's shift/scale (2C floats) or its
// backward sums (2C doubles).
#include "cuda_arith_nn.h" // defines: cuda_layernorm_*, cuda_batchnorm_*
#include "cuda_launch.h"   // defines: cuda_blocks_for, CUDA_OP_*, cuda_ctx_*
#include "cuda_math.h"     // defines: cuda_math_layernorm_forward, ...

namespace {

unsigned blocks_of(int n) {
    return (unsigned)((n + CUDA_THREADS - 1) / CUDA_THREADS);
}

__global__ void ln_forward_kernel(float *out, float *mean, float *rstd, const float *inp,
                                  const float *weight, const float *bias, int N, int C,
                                  float eps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        cuda_layernorm_row(out, mean, rstd, inp, weight, bias, C, eps, i);
}

__global__ void ln_back_row_kernel(float *dinp, const float *dout, const float *inp,
                                   const float *weight, const float *mean, const float *rstd,
                                   int N, int C) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        cuda_layernorm_back_row(dinp, dout, inp, weight, mean, rstd, C, i);
}

__global__ void ln_back_col_kernel(float *dweight, float *dbias, const float *dout,
                                   const float *inp, const float *mean, const float *rstd,
                                   int N, int C) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < C)
        cuda_layernorm_back_col(dweight, dbias, dout, inp, mean, rstd, N, C, c);
}

__global__ void bn_stats_kernel(float *shift, float *scale, float *mean, float *invstd,
                                float *running_mean, float *running_var, const float *inp,
                                int N, int C, float momentum, float eps, int training) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C)
        return;
    if (training)
        cuda_batchnorm_stats_col(shift, scale, mean, invstd, running_mean, running_var, inp, N,
                                 C, momentum, eps, c);
    else
        cuda_batchnorm_eval_col(shift, scale, running_mean, running_var, eps, c);
}

__global__ void bn_apply_kernel(float *out, const float *inp, const float *shift,
                                const float *scale, const float *weight, const float *bias,
                                size_t n, int C) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        int c = (int)(k % (size_t)C);
        out[k] = cuda_batchnorm_elem(inp[k], shift[c], scale[c], weight, bias, c);
    }
}

__global__ void bn_back_col_kernel(double *sum_dy, double *sum_dy_xhat, float *dweight,
                                   float *dbias, const float *dout, const float *inp,
                                   const float *mean, const float *invstd, int N, int C) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < C)
        cuda_batchnorm_back_col(sum_dy, sum_dy_xhat, dweight, dbias, dout, inp, mean, invstd,
                                N, C, c);
}

__global__ void bn_back_elem_kernel(float *dinp, const float *dout, const float *inp,
                                    const float *weight, const float *mean,
                                    const float *invstd, const double *sum_dy,
                                    const double *sum_dy_xhat, size_t n, int N, int C) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        int c = (int)(k % (size_t)C);
        dinp[k] = cuda_batchnorm_back_elem(dinp[k], dout[k], inp[k], weight, mean, invstd,
                                           sum_dy, sum_dy_xhat, N, c);
    }
}

} // namespace

SimStatus cuda_math_layernorm_forward(void *ctx, int rank, float *out, float *mean,
                                      float *rstd, const float *inp, const float *weight,
                                      const float *bias, int N, int C, float eps) {
    if (N < 0 || C <= 0)
        return N == 0 || C == 0 ? SIM_OK : SIM_EINVAL;
    if (N == 0)
        return SIM_OK;
    ln_forward_kernel<<<blocks_of(N), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        out, mean, rstd, inp, weight, bias, N, C, eps);
    CUDA_OP_DONE();
}

SimStatus cuda_math_layernorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                       float *dbias, const float *dout, const float *inp,
                                       const float *weight, const float *mean,
                                       const float *rstd, int N, int C) {
    if (N < 0 || C <= 0)
        return N == 0 || C == 0 ? SIM_OK : SIM_EINVAL;
    if (N == 0)
        return SIM_OK;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    if (dweight || dbias) {
        ln_back_col_kernel<<<blocks_of(C), CUDA_THREADS, 0, s>>>(dweight, dbias, dout, inp,
                                                                 mean, rstd, N, C);
        CUDA_OP_CHECK(cudaGetLastError());
    }
    if (dinp)
        ln_back_row_kernel<<<blocks_of(N), CUDA_THREADS, 0, s>>>(dinp, dout, inp, weight, mean,
                                                                 rstd, N, C);
    CUDA_OP_DONE();
}

SimStatus cuda_math_batchnorm_forward(void *ctx, int rank, float *out, float *mean,
                                      float *invstd, float *running_mean, float *running_var,
                                      const float *inp, const float *weight, const float *bias,
                                      int N, int C, float momentum, float eps, int training) {
    if (N < 0 || C < 0 || (training && N < 2 && C > 0))
        return SIM_EINVAL; // torch: "Expected more than 1 value per channel when training"
    if (N == 0 || C == 0)
        return SIM_OK;
    if (!training && (running_mean == NULL || running_var == NULL))
        return SIM_EINVAL;
    float *shift = (float *)cuda_ctx_scratch(ctx, rank, 2 * (size_t)C * sizeof(float));
    if (shift == NULL)
        return SIM_ENOMEM;
    float *scale = shift + C;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    bn_stats_kernel<<<blocks_of(C), CUDA_THREADS, 0, s>>>(shift, scale, mean, invstd,
                                                          running_mean, running_var, inp, N, C,
                                                          momentum, eps, training);
    CUDA_OP_CHECK(cudaGetLastError());
    size_t n = (size_t)N * C;
    bn_apply_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(out, inp, shift, scale, weight,
                                                               bias, n, C);
    CUDA_OP_DONE();
}

SimStatus cuda_math_batchnorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                       float *dbias, const float *dout, const float *inp,
                                       const float *weight, const float *mean,
                                       const float *invstd, int N, int C) {
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    if (N == 0 || C == 0)
        return SIM_OK;
    double *sum_dy = (double *)cuda_ctx_scratch(ctx, rank, 2 * (size_t)C * sizeof(double));
    if (sum_dy == NULL)
        return SIM_ENOMEM;
    double *sum_dy_xhat = sum_dy + C;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    bn_back_col_kernel<<<blocks_of(C), CUDA_THREADS, 0, s>>>(sum_dy, sum_dy_xhat, dweight, dbias,
                                                             dout, inp, mean, invstd, N, C);
    CUDA_OP_CHECK(cudaGetLastError());
    if (dinp) {
        size_t n = (size_t)N * C;
        bn_back_elem_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(
            dinp, dout, inp, weight, mean, invstd, sum_dy, sum_dy_xhat, n, N, C);
    }
    CUDA_OP_DONE();
}
