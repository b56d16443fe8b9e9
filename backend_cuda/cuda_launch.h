// backend_cuda/cuda_launch.h: what every math kernel file (cuda_math_*.cu,
// compiled by nvcc as C++) shares: launch geometry, the rank's stream, cuBLAS
// handle and scratch memory, and the checks that turn a failed call into a
// SimStatus with the rank, device, call text and a hint.
//
// The .cu files cannot include cuda_internal.h (C11 atomics), so they reach
// the backend's context through the accessors below, implemented in
// cuda_backend.c.
//
// Timing: sim/engine/ops.c calls the backend's op_begin before an op's kernels,
// which records a timing event on the rank's compute stream. Every math op
// ends with CUDA_OP_DONE, which checks the launch, records the end event and
// waits for the compute stream; the two events then give the kernels' own
// start and end (op_times), which the trace keeps as the op's wall times,
// free of launch and wait overheads. Collectives run on the separate comm
// stream and are not waited for here, so bucket all-reduces still overlap
// the backward pass for real.
#ifndef DDPLAB_BACKEND_CUDA_LAUNCH_H
#define DDPLAB_BACKEND_CUDA_LAUNCH_H

#include <stddef.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "base/status.h" // defines: SimStatus

#ifdef __cplusplus
extern "C" {
#endif

// One-dimensional launches: CUDA_THREADS threads per block, grid-stride loops,
// at most CUDA_MAX_BLOCKS blocks (enough to fill any current GPU).
#define CUDA_THREADS 256
#define CUDA_MAX_BLOCKS 4096
static inline unsigned cuda_blocks_for(size_t n) {
    size_t b = (n + CUDA_THREADS - 1) / CUDA_THREADS;
    if (b == 0)
        b = 1;
    return (unsigned)(b < CUDA_MAX_BLOCKS ? b : CUDA_MAX_BLOCKS);
}

// The rank's compute stream (math and copies) and cuBLAS handle (bound to that
// stream, with TF32 as SimBackendOptions.allow_tf32 says).
cudaStream_t cuda_ctx_stream(void *ctx, int rank);
cublasHandle_t cuda_ctx_cublas(void *ctx, int rank);
// 1 when --tf32 allowed TF32 tensor cores for fp32 products.
int cuda_ctx_tf32(void *ctx);
// A device buffer of at least `bytes` owned by the rank, grown on demand and
// freed with the backend (workspace: rounded copies of amp inputs, partial
// sums of reductions). Valid until the next call with the same rank; NULL on
// failure, with the error already reported.
void *cuda_ctx_scratch(void *ctx, int rank, size_t bytes);

// Failure reports (cuda_errors.c), for code that sees ctx as void *.
SimStatus cuda_ctx_fail_cuda(void *ctx, int rank, cudaError_t e, const char *func,
                             const char *file, int line, const char *stmt);
SimStatus cuda_ctx_fail_cublas(void *ctx, int rank, cublasStatus_t e, const char *func,
                               const char *file, int line, const char *stmt);
// After the kernels of one op were enqueued: checks the launches
// (cudaGetLastError) and waits for the compute stream (see Timing above).
SimStatus cuda_ctx_op_done(void *ctx, int rank, const char *func, const char *file, int line);

#ifdef __cplusplus
}
#endif

// `ctx` (void *) and `rank` must be in scope where these are used.
#define CUDA_OP_CHECK(call)                                                    \
    do {                                                                       \
        cudaError_t cuda_e_ = (call);                                          \
        if (cuda_e_ != cudaSuccess)                                            \
            return cuda_ctx_fail_cuda(ctx, rank, cuda_e_, __func__, __FILE__,  \
                                      __LINE__, #call);                        \
    } while (0)

#define CUBLAS_OP_CHECK(call)                                                  \
    do {                                                                       \
        cublasStatus_t cublas_e_ = (call);                                     \
        if (cublas_e_ != CUBLAS_STATUS_SUCCESS)                                \
            return cuda_ctx_fail_cublas(ctx, rank, cublas_e_, __func__,        \
                                        __FILE__, __LINE__, #call);            \
    } while (0)

#define CUDA_OP_DONE() return cuda_ctx_op_done(ctx, rank, __func__, __FILE__, __LINE__)

#endif
