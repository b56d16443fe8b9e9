// backend_cuda/cuda_internal.h: private to backend_cuda/. The backend's
// context and the CUDA_CHECK / NCCL_CHECK / CUBLAS_CHECK macros.
//
// Threading model: one host thread per GPU (rank r drives device r). Each rank
// owns two streams: `compute` (copies, and later the math kernels) and `comm`
// (collectives, in launch order). A collective first meets its peers on the
// host (cuda_meet.c): that gives every rank the simulated start time (the
// latest arrival), checks that all ranks called the same collective, and makes
// sure no rank enqueues an NCCL kernel that its peers will never match, which
// would hang the GPU. Only then is the NCCL call enqueued on `comm`. When
// ranks share GPUs (ddplab's device collectives) each rank also has an
// enqueuer thread that puts a collective's steps on `comm` after the
// meeting (cuda_enqueue.c), so the rank's thread is back at its compute
// stream at once, as it is after an NCCL call.
//
// Errors: every CUDA, NCCL and cuBLAS call goes through a CHECK macro, which
// prints the library's error string, the rank and device, the function,
// file:line and the failing statement, keeps the message as the backend's
// last error, and turns the failure into a SimStatus.
#ifndef DDPLAB_BACKEND_CUDA_INTERNAL_H
#define DDPLAB_BACKEND_CUDA_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "cuda_meet.h"      // defines: CudaMeet
#include "cuda_world.h"     // defines: CudaWorldPlan
#include "engine/backend.h" // defines: SimBackendOps, SimBackendConfig, SimCollHandle

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
    cudaEvent_t ref;        // timing event recorded at ref_wall (sim_wall_now()):
    double ref_wall;        // a GPU event's host time is ref_wall + elapsed(ref, ev)
    void *scratch;          // cuda_ctx_scratch's buffer (device), or NULL
    size_t scratch_bytes;
    cudaEvent_t op_ev[2];   // timing events around the current math op's kernels:
                            // [0] recorded by op_begin, [1] by each CUDA_OP_DONE
    int op_started;         // op_ev[0] was recorded for the current op
    int op_timed;           // op_wall holds the current op's device times
    double op_wall[2];      // its kernels' start and end, on the sim_wall_now() clock
    atomic_int exited;      // its thread's entry returned in the current run
    struct CudaEnq *enq;    // its enqueuer thread (cuda_enqueue.c) while a run of
                            // device collectives is on; else NULL
} CudaRank;

typedef struct {
    SimBackendConfig cfg;
    int nranks;
    CudaRank *ranks;        // [nranks]
    CudaMeet meet;
    atomic_int broken;      // a communicator was aborted: no more collectives
    atomic_int cancelled;   // cancel(): 1 while its reason is written, then 2
                            // (collectives then fail with cancel_why)
    char cancel_why[96];    // written once, before `cancelled` becomes 2
    pthread_mutex_t err_mu; // guards last_error
    char last_error[2048];  // first diagnosis of the current run, or ""
    int last_error_weak;    // 1 while last_error only says "aborted"
    struct CudaProc *proc;  // process mode (cuda_proc.c): this process runs one
                            // rank of a world of processes; NULL: it runs all
    CudaWorldPlan plan;     // ranks on GPUs and the collective implementation
    char describe[128];     // the ops table's describe line
    struct CudaDevColl *dc; // ddplab's device collectives (cuda_devcoll.c) when
                            // plan.impl is CUDA_IMPL_DEVICE; else NULL
} CudaCtx;

// Keeps msg as the context's last error unless the run already has a more
// specific one (an "aborted" follow-up never hides the root cause).
void cuda_ctx_set_error(CudaCtx *c, SimStatus st, const char *msg);
void cuda_ctx_clear_error(CudaCtx *c);

// ddplab's device collectives (cuda_devcoll.c, cuda_devcoll.h): open/close
// with the world; abort releases ranks waiting in the enqueue barrier, reset
// re-arms it for the next run; enqueue puts one collective (after the host
// meeting) on the rank's comm stream and records `done` after it.
SimStatus cuda_devcoll_open(CudaCtx *ctx);
void cuda_devcoll_close(CudaCtx *ctx);
void cuda_devcoll_abort(CudaCtx *ctx);
void cuda_devcoll_reset(CudaCtx *ctx);
// `ready` was recorded on the rank's compute stream when it launched the
// collective: the comm stream starts after it (send and recv: unused).
SimStatus cuda_devcoll_enqueue(CudaCtx *ctx, int rank, const SimCollCall *call,
                               cudaEvent_t ready, cudaEvent_t done, cudaEvent_t *tev);
// A send's first half, before the pair meets: posts the buffer and an event
// after which its data exist (cuda_devcoll_enqueue does the rest).
SimStatus cuda_devcoll_post(CudaCtx *ctx, int rank, const SimCollCall *call);
// The host clock (sim_wall_now) at which timing event ev completed on the
// rank's GPU, from the rank's reference event (cuda_backend.c). The GPU and
// host clocks drift apart by well under a microsecond per second.
SimStatus cuda_event_wall(CudaCtx *ctx, int rank, cudaEvent_t ev, double *wall);
// The host clock of ev1, given ev0's (w0) and ev1 no earlier on the GPU:
// w0 plus the interval between the two. cudaEventElapsedTime gives float
// milliseconds, so a time measured from the reference event of a run some
// minutes old is only good to tens of microseconds, while a short interval
// keeps its half-microsecond resolution: durations taken this way stay
// exact however long the run.
SimStatus cuda_event_next(CudaCtx *ctx, int rank, cudaEvent_t ev0, double w0, cudaEvent_t ev1,
                          double *w1);

// The enqueuer threads of device collectives (cuda_enqueue.c): start and
// stop one per rank thread; submit hands it a job (a collective after the
// host meeting), wait blocks until that job is on the comm stream (its
// status: the enqueue's), drain until every submitted job is.
typedef struct CudaEnqJob {
    const SimCollCall *call; // in: the collective (stays valid until waited)
    cudaEvent_t ready, done; // in: see cuda_devcoll_enqueue
    cudaEvent_t *tev;
    SimStatus st;            // out, once finished
    int finished;
    struct CudaEnqJob *next; // the queue's
} CudaEnqJob;
SimStatus cuda_enq_start(CudaCtx *ctx, int rank);
void cuda_enq_stop(CudaCtx *ctx, int rank);
void cuda_enq_submit(CudaCtx *ctx, int rank, CudaEnqJob *j);
SimStatus cuda_enq_wait(CudaCtx *ctx, int rank, CudaEnqJob *j);
void cuda_enq_drain(CudaCtx *ctx, int rank);

// Collectives (cuda_coll.c): the ops table's coll_launch / coll_wait.
SimStatus cuda_coll_launch(void *ctx, int rank, SimCollHandle *h);
SimStatus cuda_coll_wait(void *ctx, int rank, SimCollHandle *h);

// ----------------------------------------------------------------------------
// Process mode (cuda_proc.c): SimBackendConfig.opt.rendezvous is set, and
// this process runs one rank of a world of processes (torchrun, mpirun,
// srun), NCCL's communicator made by ncclCommInitRank. ctx->ranks keeps
// nranks entries; only the own rank's are opened, and requests for another
// rank are refused.

// Opens rank's streams, events and cuBLAS handle on ctx->ranks[rank].device
// (cuda_backend.c).
SimStatus cuda_ctx_open_rank(CudaCtx *ctx, int rank);
// init for process mode, called by the backend's init with the devices it
// counted (at least one).
SimStatus cuda_proc_init(const SimBackendConfig *cfg, int ndev, void **out, char *err,
                         size_t errlen);
void cuda_proc_free(CudaCtx *ctx);
// 1 when this process runs rank (always, outside process mode); else 0
// after saying on stderr why the request is refused.
int cuda_proc_owns(const CudaCtx *ctx, int rank);
// run_ranks: entry for the own rank alone, on the calling thread.
SimStatus cuda_proc_run(CudaCtx *ctx, SimRankEntry entry, void *arg);
// Replaces the host meeting, which cannot span processes: the simulated
// start is the rank's own arrival and no protocol check is made (a
// mismatch shows as the watchdog's timeout on the GPU).
SimStatus cuda_proc_meet(CudaCtx *ctx, int rank, const SimCollCall *call, double *start_sim,
                         char *why, size_t whylen);
// A barrier on the GPU: a one-element all_reduce on the comm stream.
SimStatus cuda_proc_barrier(CudaCtx *ctx, int rank);

// ----------------------------------------------------------------------------
// Failure reports (cuda_errors.c). Each prints one line to stderr, keeps it
// as the last error (c may be NULL during init; rank -1 when no rank applies)
// and returns the SimStatus the failure maps to.

// What to try next for a failure code (cuda_hints.c), or NULL.
const char *cuda_hint_cuda(cudaError_t e);
const char *cuda_hint_nccl(ncclResult_t e);
const char *cuda_hint_cublas(cublasStatus_t e);
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
