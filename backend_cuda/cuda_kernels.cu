// backend_cuda/cuda_kernels.cu: the kernels declared in cuda_kernels.h, one
// template per operation instantiated for each element type. Grid-stride
// loops, so one launch of at most 4096 blocks of 256 threads covers any count.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda_kernels.h" // defines: cuda_kernel_fill_pattern, cuda_kernel_div

namespace {

const unsigned kThreads = 256;
const size_t kMaxBlocks = 4096;

unsigned blocks_for(size_t n) {
    size_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < kMaxBlocks ? b : kMaxBlocks);
}

// ----------------------------------------------------------------------------
// Per-type element operations

__device__ void put_int(float *p, int v) { *p = (float)v; }
__device__ void put_int(__half *p, int v) { *p = __int2half_rn(v); }
__device__ void put_int(__nv_bfloat16 *p, int v) { *p = __int2bfloat16_rn(v); }
__device__ void put_int(int32_t *p, int v) { *p = v; }
__device__ void put_int(int64_t *p, int v) { *p = v; }

__device__ float div_by(float x, int d) { return x / (float)d; }
__device__ __half div_by(__half x, int d) {
    return __float2half_rn(__half2float(x) / (float)d);
}
__device__ __nv_bfloat16 div_by(__nv_bfloat16 x, int d) {
    return __float2bfloat16_rn(__bfloat162float(x) / (float)d);
}
__device__ int32_t div_by(int32_t x, int d) { return x / d; }
__device__ int64_t div_by(int64_t x, int d) { return x / d; }

// ----------------------------------------------------------------------------
// Kernels

template <typename T>
__global__ void fill_pattern_kernel(T *buf, size_t n, int rank, uint32_t seed) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        put_int(&buf[i], cuda_pattern_value(i, rank, seed));
}

template <typename T>
__global__ void div_kernel(T *buf, size_t n, int divisor) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        buf[i] = div_by(buf[i], divisor);
}

template <typename T>
cudaError_t launch_fill(void *buf, size_t n, int rank, uint32_t seed, cudaStream_t s) {
    fill_pattern_kernel<T><<<blocks_for(n), kThreads, 0, s>>>((T *)buf, n, rank, seed);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_div(void *buf, size_t n, int divisor, cudaStream_t s) {
    div_kernel<T><<<blocks_for(n), kThreads, 0, s>>>((T *)buf, n, divisor);
    return cudaGetLastError();
}

} // namespace

// ----------------------------------------------------------------------------
// The C entry points

extern "C" cudaError_t cuda_kernel_fill_pattern(void *buf, size_t count, SimDtype dt,
                                                int rank, uint32_t seed,
                                                cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    switch (dt) {
    case SIM_FP32: return launch_fill<float>(buf, count, rank, seed, stream);
    case SIM_FP16: return launch_fill<__half>(buf, count, rank, seed, stream);
    case SIM_BF16: return launch_fill<__nv_bfloat16>(buf, count, rank, seed, stream);
    case SIM_INT32: return launch_fill<int32_t>(buf, count, rank, seed, stream);
    case SIM_INT64: return launch_fill<int64_t>(buf, count, rank, seed, stream);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t cuda_kernel_div(void *buf, size_t count, SimDtype dt, int divisor,
                                       cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    if (divisor == 0)
        return cudaErrorInvalidValue;
    switch (dt) {
    case SIM_FP32: return launch_div<float>(buf, count, divisor, stream);
    case SIM_FP16: return launch_div<__half>(buf, count, divisor, stream);
    case SIM_BF16: return launch_div<__nv_bfloat16>(buf, count, divisor, stream);
    case SIM_INT32: return launch_div<int32_t>(buf, count, divisor, stream);
    case SIM_INT64: return launch_div<int64_t>(buf, count, divisor, stream);
    default: return cudaErrorInvalidValue;
    }
}
