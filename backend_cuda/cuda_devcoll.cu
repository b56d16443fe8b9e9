// backend_cuda/cuda_devcoll.cu: the reduction kernel of ddplab's device
// collectives (cuda_devcoll.h); the arithmetic is cuda_arith_coll.h's.
#include "cuda_arith_coll.h" // defines: cuda_reduce_elem
#include "cuda_devcoll.h"    // defines: cuda_kernel_reduce
#include "cuda_launch.h"     // defines: cuda_blocks_for, CUDA_THREADS

namespace {

__global__ void reduce_kernel(void *dst, const void *src, size_t n, SimDtype dt, SimRedOp op) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        cuda_reduce_elem(dst, src, i, dt, op);
}

} // namespace

cudaError_t cuda_kernel_reduce(void *dst, const void *src, size_t n, SimDtype dt, SimRedOp op,
                               cudaStream_t stream) {
    if (n == 0)
        return cudaSuccess;
    reduce_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, stream>>>(dst, src, n, dt, op);
    return cudaGetLastError();
}
