// backend_cuda/cuda_errors.c: turns a failed CUDA, NCCL or cuBLAS call into
// one readable line and a SimStatus.
//
// The line names everything needed to find the failure without a debugger:
//   CUDA error: out of memory (cudaErrorMemoryAllocation) on rank 2 (device 2)
//     in cuda_alloc at backend_cuda/cuda_backend.c:140: cudaMalloc(&p, bytes);
//     hint: lower --batch, shard with --strategy fsdp, or put fewer ranks on
//     each GPU
// (on one line; the hint, from cuda_hints.c, where the code has one). It goes to stderr at once, because a GPU failure can be
// followed by a hang or an abort, and it is kept as the backend's last error
// so that the program can repeat it when the run stops.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h" // defines: CudaCtx, cuda_fail_*
#include "cuda_launch.h"   // defines: cuda_ctx_fail_cuda, cuda_ctx_fail_cublas

// ----------------------------------------------------------------------------
// The last error

void cuda_ctx_clear_error(CudaCtx *c) {
    pthread_mutex_lock(&c->err_mu);
    c->last_error[0] = '\0';
    c->last_error_weak = 0;
    pthread_mutex_unlock(&c->err_mu);
}

void cuda_ctx_set_error(CudaCtx *c, SimStatus st, const char *msg) {
    if (c == NULL)
        return;
    pthread_mutex_lock(&c->err_mu);
    // The first failure of a run is the cause; later ones are usually ranks
    // giving up because of it. Only an empty slot takes an "aborted" report.
    if (c->last_error[0] == '\0' || (c->last_error_weak && st != SIM_EABORTED)) {
        snprintf(c->last_error, sizeof c->last_error, "%s", msg);
        c->last_error_weak = st == SIM_EABORTED;
    }
    pthread_mutex_unlock(&c->err_mu);
}

// ----------------------------------------------------------------------------
// One line per failure

// "backend_cuda/cuda_coll.c" rather than the absolute path the build passes.
static const char *short_path(const char *file) {
    const char *p = strstr(file, "backend_cuda/");
    return p ? p : file;
}

static SimStatus report(CudaCtx *c, int rank, SimStatus st, const char *lib,
                        const char *desc, const char *code, const char *hint,
                        const char *func, const char *file, int line, const char *stmt) {
    char where[64];
    if (rank >= 0 && c != NULL && rank < c->nranks)
        snprintf(where, sizeof where, "rank %d (device %d)", rank, c->ranks[rank].device);
    else
        snprintf(where, sizeof where, "the host thread");
    char msg[1024];
    snprintf(msg, sizeof msg, "%s error: %s (%s) on %s in %s at %s:%d: %s%s%s", lib, desc,
             code, where, func, short_path(file), line, stmt, hint ? "; hint: " : "",
             hint ? hint : "");
    fprintf(stderr, "ddplab cuda: %s\n", msg);
    cuda_ctx_set_error(c, st, msg);
    return st;
}

SimStatus cuda_fail_cuda(CudaCtx *c, int rank, cudaError_t e, const char *func,
                         const char *file, int line, const char *stmt) {
    SimStatus st = SIM_EBACKEND;
    if (e == cudaErrorMemoryAllocation)
        st = SIM_ENOMEM;
    else if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
             e == cudaErrorInvalidDevice)
        st = SIM_ENODEV;
    return report(c, rank, st, "CUDA", cudaGetErrorString(e), cudaGetErrorName(e),
                  cuda_hint_cuda(e), func, file, line, stmt);
}

SimStatus cuda_fail_nccl(CudaCtx *c, int rank, ncclResult_t e, const char *func,
                         const char *file, int line, const char *stmt) {
    // ncclGetLastError holds NCCL's own, more specific explanation.
    const char *detail = ncclGetLastError(NULL);
    char desc[512];
    if (detail != NULL && detail[0] != '\0')
        snprintf(desc, sizeof desc, "%s: %s", ncclGetErrorString(e), detail);
    else
        snprintf(desc, sizeof desc, "%s", ncclGetErrorString(e));
    char code[32];
    snprintf(code, sizeof code, "ncclResult %d", (int)e);
    SimStatus st = e == ncclInvalidArgument || e == ncclInvalidUsage ? SIM_EINVAL
                                                                      : SIM_EBACKEND;
    return report(c, rank, st, "NCCL", desc, code, cuda_hint_nccl(e), func, file, line, stmt);
}

SimStatus cuda_fail_cublas(CudaCtx *c, int rank, cublasStatus_t e, const char *func,
                           const char *file, int line, const char *stmt) {
    SimStatus st = e == CUBLAS_STATUS_ALLOC_FAILED ? SIM_ENOMEM : SIM_EBACKEND;
    return report(c, rank, st, "cuBLAS", cublasGetStatusString(e), cublasGetStatusName(e),
                  cuda_hint_cublas(e), func, file, line, stmt);
}

SimStatus cuda_ctx_fail_cuda(void *ctx, int rank, cudaError_t e, const char *func,
                             const char *file, int line, const char *stmt) {
    return cuda_fail_cuda(ctx, rank, e, func, file, line, stmt);
}

SimStatus cuda_ctx_fail_cublas(void *ctx, int rank, cublasStatus_t e, const char *func,
                               const char *file, int line, const char *stmt) {
    return cuda_fail_cublas(ctx, rank, e, func, file, line, stmt);
}
