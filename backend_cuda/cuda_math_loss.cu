// backend_cuda/cuda_math_loss.cu: softmax cross-entropy on the GPU
// (sim/engine/kernels.h), one thread per row, with cuda_arith_nn.h's arithmetic
// (the cpu backend's cpu_math_loss.c).
//
// A target outside [0, V) is SIM_EINVAL, as on the cpu backend: the kernel
// raises a flag in the rank's scratch, which is read back after the launch.
#include "cuda_arith_nn.h" // defines: cuda_xent_row, cuda_xent_back_row
#include "cuda_launch.h"   // defines: CUDA_THREADS, CUDA_OP_*, cuda_ctx_*
#include "cuda_math.h"     // defines: cuda_math_xent_forward, ...

namespace {

__global__ void xent_forward_kernel(float *losses, float *probs, const float *logits,
                                    const int32_t *targets, int N, int V, int *bad) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N && cuda_xent_row(losses, probs, logits, targets, V, i) != 0)
        *bad = 1;
}

__global__ void xent_backward_kernel(float *dlogits, const float *probs,
                                     const int32_t *targets, const float *dlosses, int N, int V,
                                     int *bad) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N && cuda_xent_back_row(dlogits, probs, targets, dlosses, V, i) != 0)
        *bad = 1;
}

unsigned blocks_of(int n) {
    return (unsigned)((n + CUDA_THREADS - 1) / CUDA_THREADS);
}

// Clears the flag before a launch; reads it after (waits for the stream).
SimStatus flag_clear(void *ctx, int rank, int **flag) {
    *flag = (int *)cuda_ctx_scratch(ctx, rank, sizeof(int));
    if (*flag == NULL)
        return SIM_ENOMEM;
    CUDA_OP_CHECK(cudaMemsetAsync(*flag, 0, sizeof(int), cuda_ctx_stream(ctx, rank)));
    return SIM_OK;
}

SimStatus flag_read(void *ctx, int rank, const int *flag) {
    int bad = 0;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    CUDA_OP_CHECK(cudaGetLastError());
    CUDA_OP_CHECK(cudaMemcpyAsync(&bad, flag, sizeof bad, cudaMemcpyDeviceToHost, s));
    CUDA_OP_CHECK(cudaStreamSynchronize(s));
    return bad ? SIM_EINVAL : SIM_OK;
}

} // namespace

SimStatus cuda_math_xent_forward(void *ctx, int rank, float *losses, float *probs,
                                 const float *logits, const int32_t *targets, int N, int V) {
    if (N < 0 || V <= 0)
        return N == 0 ? SIM_OK : SIM_EINVAL;
    if (N == 0)
        return SIM_OK;
    int *flag = NULL;
    SIM_CHECK(flag_clear(ctx, rank, &flag));
    xent_forward_kernel<<<blocks_of(N), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        losses, probs, logits, targets, N, V, flag);
    return flag_read(ctx, rank, flag);
}

SimStatus cuda_math_xent_backward(void *ctx, int rank, float *dlogits, const float *probs,
                                  const int32_t *targets, const float *dlosses, int N, int V) {
    if (N < 0 || V <= 0)
        return N == 0 ? SIM_OK : SIM_EINVAL;
    if (N == 0)
        return SIM_OK;
    int *flag = NULL;
    SIM_CHECK(flag_clear(ctx, rank, &flag));
    xent_backward_kernel<<<blocks_of(N), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        dlogits, probs, targets, dlosses, N, V, flag);
    return flag_read(ctx, rank, flag);
}
