// backend_cuda/cuda_internal.h: private to backend_cuda/. The backend's
// context, the host-side rendezvous its rank threads meet in, and the
// CUDA_CHECK / NCCL_CHECK / CUBLAS_CHECK macros.
//
// Threading model: one host thread per GPU (rank r drives device r). Each rank
// owns two streams: `compute` (copies, and later the math kernels) and `comm`
// (collectives, in launch order). A collective first meets its peers on the
// host (cuda_meet.c): that gives every rank the simulated start time (the
// latest arrival), checks that all ranks called the same collective, and makes
// sure no rank enqueues an NCCL kernel that its peers will never match, which
// would hang the GPU. Only then is the NCCL call enqueued on `comm`.
//
// Errors: every CUDA, NCCL and cuBLAS call goes through a CHECK macro, which
// prints the library's error string, the rank and device, the function,
// file:line and the failing statement, keeps the message as the backend's
// last error, and turns the failure into a SimStatus.
#ifndef DDPLAB_BACKEND_CUDA_INTERNAL_H
#define DDPLAB_BACKEND_CUDA_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "backend.h" // defines: SimBackendOps, SimBackendConfig, SimCollHandle

// ----------------------------------------------------------------------------
// Host-side rendezvous (cuda_meet.c)

#define CUDA_MEET_NONE UINT64_MAX

// What one rank brings to a collective; compared across the participants.
typedef struct {
    uint64_t gen;      // rendezvous this arrival belongs to; CUDA_MEET_NONE: none
    uint64_t seq;      // the rank's collective (or per-peer message) number
    size_t count;
    double arrive_sim; // simulated time the rank reached the call
    int kind;          // SimCollKind; -1 while the rank waits in nothing
    int dtype, op, root, peer;
} CudaArrival;

// Mailbox of one ordered (sender, receiver) pair for send/recv.
typedef struct {
    CudaArrival send, recv; // posted halves (gen != CUDA_MEET_NONE when posted)
    uint64_t meetings;      // completed meetings, so a waiter sees its own end
    double met_start;       // latest arrival of the last meeting
    int met_status;         // SimStatus of the last meeting
    char why[256];          // its protocol error, if any
} CudaPair;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;      // timed on CLOCK_MONOTONIC, for the watchdog
    int ready;              // mu and cv exist (destroy is safe on a zeroed struct)
    int nranks;
    double watchdog_s;      // <= 0: wait forever
    uint64_t gen;           // all-rank rendezvous completed so far
    int arrived;            // ranks waiting in the current one
    CudaArrival *slots;     // [nranks]: arrivals at the current rendezvous
    CudaArrival *waiting;   // [nranks]: what each rank waits in now (for diagnoses)
    double met_start;       // result of the last completed rendezvous
    int met_status;
    CudaPair *pairs;        // [nranks * nranks], index sender*nranks + receiver
    int aborted;            // set when a rank failed: every wait returns at once
    char why[512];          // diagnosis of the last failed rendezvous
} CudaMeet;

SimStatus cuda_meet_init(CudaMeet *m, int nranks, double watchdog_s);
void cuda_meet_destroy(CudaMeet *m);
// Forgets half-finished meetings and clears the abort flag (between runs).
void cuda_meet_reset(CudaMeet *m);
// Releases every waiting rank with SIM_EABORTED, now and until the next reset.
void cuda_meet_abort(CudaMeet *m);
// Every rank meets: *start_sim = latest arrival. SIM_EPROTO when the ranks did
// not call the same collective, SIM_ETIMEDOUT when one never came; the reason
// is written into why.
SimStatus cuda_meet_all(CudaMeet *m, int rank, const CudaArrival *a, double *start_sim,
                        char *why, size_t whylen);
// The sender and the receiver of one message meet (a->kind SEND or RECV).
SimStatus cuda_meet_pair(CudaMeet *m, int rank, const CudaArrival *a, double *start_sim,
                         char *why, size_t whylen);

// ----------------------------------------------------------------------------
// The context

typedef struct {
    int device;             // CUDA device ordinal driven by this rank
    cudaStream_t compute;   // copies and math; collectives wait on it
    cudaStream_t comm;      // collectives, in launch order
    cudaEvent_t ready;      // recorded on compute at each launch
    ncclComm_t nccl;        // this rank's communicator (ncclCommInitAll)
    cublasHandle_t cublas;  // bound to `compute`
    int nccl_aborted;       // after ncclCommAbort the communicator is gone
} CudaRank;

typedef struct {
    SimBackendConfig cfg;
    int nranks;
    CudaRank *ranks;        // [nranks]
    CudaMeet meet;
    int broken;             // a communicator was aborted: no more collectives
    pthread_mutex_t err_mu; // guards last_error
    char last_error[2048];  // first diagnosis of the current run, or ""
    int last_error_weak;    // 1 while last_error only says "aborted"
} CudaCtx;

// Keeps msg as the context's last error unless the run already has a more
// specific one (an "aborted" follow-up never hides the root cause).
void cuda_ctx_set_error(CudaCtx *c, SimStatus st, const char *msg);
void cuda_ctx_clear_error(CudaCtx *c);

// Collectives (cuda_coll.c): the ops table's coll_launch / coll_wait.
SimStatus cuda_coll_launch(void *ctx, int rank, SimCollHandle *h);
SimStatus cuda_coll_wait(void *ctx, int rank, SimCollHandle *h);

// ----------------------------------------------------------------------------
// Failure reports (cuda_errors.c). Each prints one line to stderr, keeps it
// as the last error (c may be NULL during init; rank -1 when no rank applies)
// and returns the SimStatus the failure maps to.

SimStatus cuda_fail_cuda(CudaCtx *c, int rank, cudaError_t e, const char *func,
                         const char *file, int line, const char *stmt);
SimStatus cuda_fail_nccl(CudaCtx *c, int rank, ncclResult_t e, const char *func,
                         const char *file, int line, const char *stmt);
SimStatus cuda_fail_cublas(CudaCtx *c, int rank, cublasStatus_t e, const char *func,
                           const char *file, int line, const char *stmt);

// `ctx` and `rank` must be in scope where these are used. The _GOTO forms
// store the status in rc and jump to a cleanup label.
#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t cuda_e_ = (call);                                          \
        if (cuda_e_ != cudaSuccess)                                            \
            return cuda_fail_cuda(ctx, rank, cuda_e_, __func__, __FILE__,      \
                                  __LINE__, #call);                            \
    } while (0)

#define CUDA_CHECK_GOTO(call, rc, label)                                       \
    do {                                                                       \
        cudaError_t cuda_e_ = (call);                                          \
        if (cuda_e_ != cudaSuccess) {                                          \
            (rc) = cuda_fail_cuda(ctx, rank, cuda_e_, __func__, __FILE__,      \
                                  __LINE__, #call);                            \
            goto label;                                                        \
        }                                                                      \
    } while (0)

#define NCCL_CHECK(call)                                                       \
    do {                                                                       \
        ncclResult_t nccl_e_ = (call);                                         \
        if (nccl_e_ != ncclSuccess)                                            \
            return cuda_fail_nccl(ctx, rank, nccl_e_, __func__, __FILE__,      \
                                  __LINE__, #call);                            \
    } while (0)

#define NCCL_CHECK_GOTO(call, rc, label)                                       \
    do {                                                                       \
        ncclResult_t nccl_e_ = (call);                                         \
        if (nccl_e_ != ncclSuccess) {                                          \
            (rc) = cuda_fail_nccl(ctx, rank, nccl_e_, __func__, __FILE__,      \
                                  __LINE__, #call);                            \
            goto label;                                                        \
        }                                                                      \
    } while (0)

#define CUBLAS_CHECK(call)                                                     \
    do {                                                                       \
        cublasStatus_t cublas_e_ = (call);                                     \
        if (cublas_e_ != CUBLAS_STATUS_SUCCESS)                                \
            return cuda_fail_cublas(ctx, rank, cublas_e_, __func__, __FILE__,  \
                                    __LINE__, #call);                          \
    } while (0)

#endif
