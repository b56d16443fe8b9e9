// backend_cuda/cuda_math_syncbn.cu: SyncBatchNorm's kernels on the GPU
// (sim/engine/kernels.h), with cuda_arith_nn.h's arithmetic, which is the
// cpu backend's (cpu_math_syncbn.c) statement by statement. One thread per
// channel for the statistics, their combination and the backward sums (a
// column over the rows, in order); one thread per element for the
// normalisation and the input gradient. The collectives between them are
// the caller's (sim/model/model_syncbn.c), on device memory.
#include "cuda_arith_nn.h" // defines: cuda_syncbn_*, cuda_batchnorm_elem
#include "cuda_launch.h"   // defines: cuda_blocks_for, CUDA_OP_*, cuda_ctx_*
#include "cuda_math.h"     // defines: cuda_math_batchnorm_stats, ...

namespace {

unsigned blocks_of(int n) {
    return (unsigned)((n + CUDA_THREADS - 1) / CUDA_THREADS);
}

__global__ void stats_kernel(float *stats, const float *inp, int N, int C) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < C)
        cuda_syncbn_stats_col(stats, inp, N, C, c);
    if (c == 0)
        stats[2 * C] = (float)N;
}

__global__ void gather_kernel(float *mean, float *invstd, float *running_mean,
                              float *running_var, float *count, const float *all, int R, int C,
                              float momentum, float eps) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < C)
        cuda_syncbn_gather_col(mean, invstd, running_mean, running_var, all, R, C, momentum,
                               eps, c);
    if (c == 0) {
        float total = 0.0f;
        for (int q = 0; q < R; q++)
            total += all[(size_t)q * (2 * (size_t)C + 1) + 2 * (size_t)C];
        count[0] = total;
    }
}

__global__ void elemt_kernel(float *out, const float *inp, const float *mean,
                             const float *invstd, const float *weight, const float *bias,
                             size_t n, int C) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        int c = (int)(k % (size_t)C);
        out[k] = cuda_batchnorm_elem(inp[k], mean[c], invstd[c], weight, bias, c);
    }
}

__global__ void back_reduce_kernel(float *sums, float *dweight, float *dbias, const float *dout,
                                   const float *inp, const float *mean, const float *invstd,
                                   int N, int C) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < C)
        cuda_syncbn_back_reduce_col(sums, dweight, dbias, dout, inp, mean, invstd, N, C, c);
}

__global__ void back_elemt_kernel(float *dinp, const float *dout, const float *inp,
                                  const float *weight, const float *mean, const float *invstd,
                                  const float *sums, const float *count, size_t n, int C) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        int c = (int)(k % (size_t)C);
        dinp[k] = cuda_syncbn_back_elem(dinp[k], dout[k], inp[k], weight, mean, invstd, sums,
                                        count[0], C, c);
    }
}

} // namespace

SimStatus cuda_math_batchnorm_stats(void *ctx, int rank, float *stats, const float *inp, int N,
                                    int C) {
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    stats_kernel<<<blocks_of(C > 0 ? C : 1), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        stats, inp, N, C);
    CUDA_OP_DONE();
}

SimStatus cuda_math_batchnorm_gather_stats(void *ctx, int rank, float *mean, float *invstd,
                                           float *running_mean, float *running_var,
                                           float *count, const float *all, int R, int C,
                                           float momentum, float eps) {
    if (R < 1 || C < 0)
        return SIM_EINVAL;
    gather_kernel<<<blocks_of(C > 0 ? C : 1), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        mean, invstd, running_mean, running_var, count, all, R, C, momentum, eps);
    CUDA_OP_DONE();
}

SimStatus cuda_math_batchnorm_elemt(void *ctx, int rank, float *out, const float *inp,
                                    const float *mean, const float *invstd, const float *weight,
                                    const float *bias, int N, int C) {
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    size_t n = (size_t)N * C;
    if (n == 0)
        return SIM_OK;
    elemt_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        out, inp, mean, invstd, weight, bias, n, C);
    CUDA_OP_DONE();
}

SimStatus cuda_math_batchnorm_backward_reduce(void *ctx, int rank, float *sums, float *dweight,
                                              float *dbias, const float *dout, const float *inp,
                                              const float *mean, const float *invstd, int N,
                                              int C) {
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    if (C == 0)
        return SIM_OK;
    back_reduce_kernel<<<blocks_of(C), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        sums, dweight, dbias, dout, inp, mean, invstd, N, C);
    CUDA_OP_DONE();
}

SimStatus cuda_math_batchnorm_backward_elemt(void *ctx, int rank, float *dinp, const float *dout,
                                             const float *inp, const float *weight,
                                             const float *mean, const float *invstd,
                                             const float *sums, const float *count, int N,
                                             int C) {
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    size_t n = (size_t)N * C;
    if (n == 0)
        return SIM_OK;
    back_elemt_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        dinp, dout, inp, weight, mean, invstd, sums, count, n, C);
    CUDA_OP_DONE();
}
