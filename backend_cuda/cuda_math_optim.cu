// backend_cuda/cuda_math_optim.cu: one step of torch.optim.SGD and
// torch.optim.Adam / AdamW on the GPU (sim/engine/kernels.h sgd_step / adam_step),
// one thread per parameter. The coefficients are derived here on the host,
// in double, and rounded to fp32 where the cpu backend rounds them
// (cuda_sgd_coef, cuda_adam_coef); the per-element updates are
// cuda_arith_vec.h's, the cpu backend's operation by operation. With
// --fmad=false (see cuda_arith_vec.h) and IEEE sqrtf and division (nvcc's
// defaults), every update is the cpu backend's (and torch.optim's) bit for
// bit.
#include "cuda_arith_vec.h" // defines: cuda_sgd_*, cuda_adam_*
#include "cuda_launch.h"    // defines: cuda_blocks_for, CUDA_THREADS, CUDA_OP_*
#include "cuda_math.h"      // defines: cuda_math_sgd_step, cuda_math_adam_step

namespace {

__global__ void sgd_kernel(float *p, const float *g, size_t n, CudaSgdCoef k) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        cuda_sgd_elem(p, g, i, k);
}

__global__ void sgd_momentum_kernel(float *p, const float *g, float *buf, size_t n,
                                    CudaSgdCoef k) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        cuda_sgd_momentum_elem(p, g, buf, i, k);
}

__global__ void adam_kernel(float *p, const float *g, float *m, float *v, size_t n,
                            CudaAdamCoef k) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        cuda_adam_elem(p, g, m, v, i, k);
}

} // namespace

extern "C" SimStatus cuda_math_sgd_step(void *ctx, int rank, float *p, const float *g,
                                        float *momentum_buf, size_t n, const SimSgdHyper *h) {
    if (h->momentum != 0.0 && momentum_buf == NULL)
        return SIM_EINVAL;
    CudaSgdCoef k = cuda_sgd_coef(h);
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    if (h->momentum != 0.0)
        sgd_momentum_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(p, g, momentum_buf, n,
                                                                        k);
    else
        sgd_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(p, g, n, k);
    CUDA_OP_DONE();
}

extern "C" SimStatus cuda_math_adam_step(void *ctx, int rank, float *p, const float *g,
                                         float *m, float *v, size_t n, const SimAdamHyper *h) {
    if (h->step < 1)
        return SIM_EINVAL;
    CudaAdamCoef k = cuda_adam_coef(h);
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    adam_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(p, g, m, v, n, k);
    CUDA_OP_DONE();
}
