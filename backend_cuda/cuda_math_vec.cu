// backend_cuda/cuda_math_vec.cu: the small element-wise and reduction ops on
// the GPU (sim/engine/kernels.h add, axpy, scale, fill, sumsq, nonfinite, cast), with
// cuda_arith_vec.h's arithmetic: the cpu backend's (cpu_math_misc.c), bit for
// bit but for the order of sumsq's additions. Built with --fmad=false (see
// cuda_arith_vec.h).
//
// sumsq and nonfinite write a HOST scalar (sim/engine/ops_vec.c passes the address
// of a local): the result is reduced on the device, copied back on the
// rank's compute stream, and valid when the op returns (CUDA_OP_DONE waits
// for the stream).
#include <stdint.h>

#include "cuda_arith_vec.h" // defines: cuda_*_elem, cuda_sumsq_term, cuda_cast_elem
#include "cuda_launch.h"    // defines: cuda_blocks_for, CUDA_THREADS, CUDA_OP_*
#include "cuda_math.h"      // defines: cuda_math_add, ...

namespace {

// ----------------------------------------------------------------------------
// Element-wise

__global__ void add_kernel(float *out, const float *a, const float *b, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = cuda_add_elem(a[i], b[i]);
}

__global__ void axpy_kernel(float *y, float alpha, const float *x, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = cuda_axpy_elem(y[i], alpha, x[i]);
}

__global__ void scale_kernel(float *x, float alpha, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = cuda_scale_elem(x[i], alpha);
}

__global__ void fill_kernel(float *x, float value, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = value;
}

__global__ void cast_kernel(void *dst, SimDtype dst_dt, const void *src, SimDtype src_dt,
                            size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        cuda_cast_elem(dst, dst_dt, src, src_dt, i);
}

// ----------------------------------------------------------------------------
// Reductions. sumsq: each block sums its grid-stride share in double and
// reduces the block's CUDA_THREADS partial sums with a shared-memory tree
// into partial[blockIdx.x]; one block then reduces those the same way. The
// order is fixed by n alone, so a result repeats exactly from run to run.

// Tree sum of sh[0..CUDA_THREADS) into sh[0]; blockDim.x == CUDA_THREADS.
__device__ void block_sum(double *sh) {
    for (unsigned w = CUDA_THREADS / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
}

__global__ void sumsq_partial_kernel(double *partial, const float *x, size_t n) {
    __shared__ double sh[CUDA_THREADS];
    double s = 0.0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s += cuda_sumsq_term(x[i]);
    sh[threadIdx.x] = s;
    __syncthreads();
    block_sum(sh);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sh[0];
}

// One block: out[0] = sum of partial[0..nparts).
__global__ void sumsq_final_kernel(double *out, const double *partial, unsigned nparts) {
    __shared__ double sh[CUDA_THREADS];
    double s = 0.0;
    for (unsigned i = threadIdx.x; i < nparts; i += blockDim.x)
        s += partial[i];
    sh[threadIdx.x] = s;
    __syncthreads();
    block_sum(sh);
    if (threadIdx.x == 0)
        out[0] = sh[0];
}

// *flag = 1 if any x[i] is inf or NaN (*flag is 0 before).
__global__ void nonfinite_kernel(int *flag, const float *x, size_t n) {
    int bad = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        bad |= cuda_is_nonfinite(x[i]);
    if (bad)
        atomicOr(flag, 1);
}

int ranges_overlap(const void *a, size_t abytes, const void *b, size_t bbytes) {
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + bbytes && pb < pa + abytes;
}

} // namespace

// ----------------------------------------------------------------------------

extern "C" SimStatus cuda_math_add(void *ctx, int rank, float *out, const float *a,
                                   const float *b, size_t n) {
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    add_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(out, a, b, n);
    CUDA_OP_DONE();
}

extern "C" SimStatus cuda_math_axpy(void *ctx, int rank, float *y, float alpha,
                                    const float *x, size_t n) {
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    axpy_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(y, alpha, x, n);
    CUDA_OP_DONE();
}

extern "C" SimStatus cuda_math_scale(void *ctx, int rank, float *x, float alpha, size_t n) {
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    scale_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(x, alpha, n);
    CUDA_OP_DONE();
}

extern "C" SimStatus cuda_math_fill(void *ctx, int rank, float *x, float value, size_t n) {
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    if (cuda_f32_bits(value) == 0u) // +0.0f is all-zero bits (-0.0f is not)
        CUDA_OP_CHECK(cudaMemsetAsync(x, 0, n * sizeof *x, s));
    else
        fill_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(x, value, n);
    CUDA_OP_DONE();
}

extern "C" SimStatus cuda_math_sumsq(void *ctx, int rank, double *out, const float *x,
                                     size_t n) {
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    unsigned nb = cuda_blocks_for(n);
    // scratch: partial[nb], then the total
    double *partial = (double *)cuda_ctx_scratch(ctx, rank, ((size_t)nb + 1) * sizeof(double));
    if (partial == NULL)
        return SIM_ENOMEM;
    sumsq_partial_kernel<<<nb, CUDA_THREADS, 0, s>>>(partial, x, n);
    CUDA_OP_CHECK(cudaGetLastError());
    sumsq_final_kernel<<<1, CUDA_THREADS, 0, s>>>(partial + nb, partial, nb);
    CUDA_OP_CHECK(cudaGetLastError());
    CUDA_OP_CHECK(cudaMemcpyAsync(out, partial + nb, sizeof *out, cudaMemcpyDeviceToHost, s));
    CUDA_OP_DONE();
}

extern "C" SimStatus cuda_math_nonfinite(void *ctx, int rank, int *out, const float *x,
                                         size_t n) {
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    int *flag = (int *)cuda_ctx_scratch(ctx, rank, sizeof(int));
    if (flag == NULL)
        return SIM_ENOMEM;
    CUDA_OP_CHECK(cudaMemsetAsync(flag, 0, sizeof *flag, s));
    nonfinite_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(flag, x, n);
    CUDA_OP_CHECK(cudaGetLastError());
    CUDA_OP_CHECK(cudaMemcpyAsync(out, flag, sizeof *out, cudaMemcpyDeviceToHost, s));
    CUDA_OP_DONE();
}

// Overlapping dst and src (memmove on the cpu backend; the wrapper refuses
// the same storage with two dtypes) go through a snapshot of src in scratch
// memory, so every element is read before any is written.
extern "C" SimStatus cuda_math_cast(void *ctx, int rank, void *dst, SimDtype dst_dt,
                                    const void *src, SimDtype src_dt, size_t n) {
    size_t dsz = cuda_dtype_bytes(dst_dt), ssz = cuda_dtype_bytes(src_dt);
    if (dsz == 0 || ssz == 0)
        return SIM_EINVAL;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    if (dst == src && dst_dt == src_dt)
        CUDA_OP_DONE();
    if (n > 0 && ranges_overlap(dst, n * dsz, src, n * ssz)) {
        void *snap = cuda_ctx_scratch(ctx, rank, n * ssz);
        if (snap == NULL)
            return SIM_ENOMEM;
        CUDA_OP_CHECK(cudaMemcpyAsync(snap, src, n * ssz, cudaMemcpyDeviceToDevice, s));
        src = snap;
    }
    if (dst_dt == src_dt)
        CUDA_OP_CHECK(cudaMemcpyAsync(dst, src, n * dsz, cudaMemcpyDeviceToDevice, s));
    else
        cast_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(dst, dst_dt, src, src_dt, n);
    CUDA_OP_DONE();
}
