// backend_cuda/cuda_kernels.h: the backend's own CUDA kernels
// (cuda_kernels.cu, compiled by nvcc), callable from C.
//
// NCCL does the communication; these kernels do the little around it that
// NCCL does not: the division of an AVG reduction (NCCL's ncclAvg scales
// before summing, ddplab divides the exact sum once, as the CPU backend does)
// and the verifiable test pattern the GPU tests and benchmarks fill buffers
// with, so that inputs are made where they live instead of being copied in.
#ifndef DDPLAB_BACKEND_CUDA_KERNELS_H
#define DDPLAB_BACKEND_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "base/dtype.h" // defines: SimDtype

#ifdef __CUDACC__
#define CUDA_HOST_DEVICE __host__ __device__
#else
#define CUDA_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

// The verifiable pattern: element i of rank's buffer is a small integer in
// [-11, 11]. A sum over up to 16 ranks stays within +-176, which fp32, fp16
// (integers exact to 2048) and bf16 (exact to 256) all hold exactly, so the
// expected result of a reduction does not depend on the order of additions.
static inline CUDA_HOST_DEVICE int cuda_pattern_value(size_t i, int rank, uint32_t seed) {
    uint64_t h = (uint64_t)i * 2654435761u + (uint64_t)rank * 40503u + seed;
    return (int)(h % 23u) - 11;
}

// buf[i] = cuda_pattern_value(i, rank, seed) for i in [0, count), stored as
// dt. Enqueued on stream; returns the launch status.
cudaError_t cuda_kernel_fill_pattern(void *buf, size_t count, SimDtype dt, int rank,
                                     uint32_t seed, cudaStream_t stream);

// buf[i] /= divisor for i in [0, count): floats are divided in fp32 and
// rounded back to dt (round to nearest even), integers with C's truncating
// division. Enqueued on stream; returns the launch status.
cudaError_t cuda_kernel_div(void *buf, size_t count, SimDtype dt, int divisor,
                            cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
