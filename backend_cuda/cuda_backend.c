// backend_cuda/cuda_backend.c: the CUDA backend's ops table and everything in
// it but the collectives (cuda_coll.c): creating the world, running the rank
// threads, device memory and copies.
//
// A world is one process with one rank per visible GPU: rank r drives device
// r from its own host thread, owns a compute and a communication stream, a
// cuBLAS handle and an NCCL communicator (all created here, in init, by
// ncclCommInitAll). Multi-process and multi-node worlds (a rank per process,
// ncclCommInitRank after a rendezvous) are cuda_proc.c's business; this file
// only hands over to it when SimBackendConfig.opt.rendezvous is set.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_backend.h"  // defines: cuda_backend_ops
#include "cuda_internal.h" // defines: CudaCtx, CudaRank, CUDA_CHECK
#include "cuda_launch.h"   // defines: cuda_ctx_stream, cuda_ctx_scratch, ...
#include "cuda_math.h"     // defines: cuda_math_ops
#include "cuda_plugin.h"   // defines: CUDA_BACKEND_NAME, CUDA_BACKEND_DESCRIPTION

// ----------------------------------------------------------------------------
// Per-rank resources

static SimStatus rank_open(CudaCtx *ctx, int rank) {
    CudaRank *r = &ctx->ranks[rank];
    CUDA_CHECK(cudaSetDevice(r->device));
    // Non-blocking streams: ordering between them is explicit (events), never
    // an accident of the legacy default stream.
    CUDA_CHECK(cudaStreamCreateWithFlags(&r->compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&r->comm, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&r->ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreate(&r->ref)); // with timing
    CUDA_CHECK(cudaEventCreate(&r->op_ev[0]));
    CUDA_CHECK(cudaEventCreate(&r->op_ev[1]));
    CUDA_CHECK(cudaEventRecord(r->ref, r->compute));
    CUDA_CHECK(cudaEventSynchronize(r->ref));
    r->ref_wall = sim_wall_now();
    CUBLAS_CHECK(cublasCreate(&r->cublas));
    CUBLAS_CHECK(cublasSetStream(r->cublas, r->compute));
    // Default math is full fp32 for fp32 products; TF32 only when asked for.
    CUBLAS_CHECK(cublasSetMathMode(r->cublas, ctx->cfg.opt.allow_tf32
                                                  ? CUBLAS_TF32_TENSOR_OP_MATH
                                                  : CUBLAS_DEFAULT_MATH));
    return SIM_OK;
}

SimStatus cuda_ctx_open_rank(CudaCtx *ctx, int rank) {
    return rank_open(ctx, rank);
}

// Best effort: called on teardown, when a failure can only be reported.
static void rank_close(CudaCtx *ctx, int rank) {
    CudaRank *r = &ctx->ranks[rank];
    if (cudaSetDevice(r->device) != cudaSuccess)
        return;
    if (r->compute)
        (void)cudaStreamSynchronize(r->compute);
    if (r->comm)
        (void)cudaStreamSynchronize(r->comm);
    if (r->cublas)
        (void)cublasDestroy(r->cublas);
    if (r->scratch)
        (void)cudaFree(r->scratch);
    if (r->ready)
        (void)cudaEventDestroy(r->ready);
    if (r->ref)
        (void)cudaEventDestroy(r->ref);
    for (int i = 0; i < 2; i++)
        if (r->op_ev[i])
            (void)cudaEventDestroy(r->op_ev[i]);
    if (r->comm)
        (void)cudaStreamDestroy(r->comm);
    if (r->compute)
        (void)cudaStreamDestroy(r->compute);
    memset(r, 0, sizeof *r);
}

// One communicator per GPU, all made by this thread in one call.
static SimStatus open_nccl(CudaCtx *ctx) {
    const int rank = -1;
    ncclComm_t *comms = calloc((size_t)ctx->nranks, sizeof *comms);
    int *devs = calloc((size_t)ctx->nranks, sizeof *devs);
    SimStatus st = SIM_OK;
    if (comms == NULL || devs == NULL) {
        st = SIM_ENOMEM;
        goto done;
    }
    for (int r = 0; r < ctx->nranks; r++)
        devs[r] = ctx->ranks[r].device;
    if (cuda_world_nccl_algo(sim_algo_nccl_name(ctx->cfg.algo)) != 0) {
        st = SIM_ENOMEM;
        goto done;
    }
    NCCL_CHECK_GOTO(ncclCommInitAll(comms, ctx->nranks, devs), st, done);
    for (int r = 0; r < ctx->nranks; r++)
        ctx->ranks[r].nccl = comms[r];
done:
    free(comms);
    free(devs);
    return st;
}

// Communicators from one ncclCommInitAll are finalised together, in one
// group (one thread drives them all). After an abort, the others may hold
// operations that will never be matched, so they are aborted too instead.
static void close_nccl(CudaCtx *ctx) {
    int broken = atomic_load(&ctx->broken);
    if (!broken) {
        (void)ncclGroupStart();
        for (int r = 0; r < ctx->nranks; r++)
            if (ctx->ranks[r].nccl)
                (void)ncclCommFinalize(ctx->ranks[r].nccl);
        (void)ncclGroupEnd();
    }
    for (int r = 0; r < ctx->nranks; r++) {
        CudaRank *rk = &ctx->ranks[r];
        if (rk->nccl && !rk->nccl_aborted)
            (void)(broken ? ncclCommAbort(rk->nccl) : ncclCommDestroy(rk->nccl));
        rk->nccl = NULL;
    }
}

// ----------------------------------------------------------------------------
// Lifecycle

static void cuda_finalize(void *vctx) {
    CudaCtx *ctx = vctx;
    if (ctx == NULL)
        return;
    if (ctx->ranks) {
        close_nccl(ctx);
        cuda_devcoll_close(ctx); // before rank_close forgets the devices
        for (int r = 0; r < ctx->nranks; r++)
            rank_close(ctx, r);
        free(ctx->ranks);
    }
    cuda_proc_free(ctx); // after NCCL: its kernels may still use the barrier's buffer
    cuda_meet_destroy(&ctx->meet);
    pthread_mutex_destroy(&ctx->err_mu);
    free(ctx);
}

// How many GPUs this process sees; a one-line reason when none is usable.
static SimStatus count_devices(int *ndev, char *err, size_t errlen) {
    *ndev = 0;
    cudaError_t e = cudaGetDeviceCount(ndev);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "no CUDA device: cudaGetDeviceCount failed: %s (%s)",
                 cudaGetErrorString(e), e == cudaErrorNoDevice
                                            ? "check nvidia-smi and CUDA_VISIBLE_DEVICES"
                                            : "is the NVIDIA driver installed?");
        return SIM_ENODEV;
    }
    if (*ndev == 0) {
        snprintf(err, errlen, "no CUDA device: cudaGetDeviceCount found 0 devices (check "
                 "nvidia-smi and CUDA_VISIBLE_DEVICES)");
        return SIM_ENODEV;
    }
    return SIM_OK;
}

static SimStatus cuda_init(const SimBackendConfig *cfg, void **out, char *err,
                           size_t errlen) {
    *out = NULL;
    if (cfg->phantom || cfg->represent) {
        snprintf(err, errlen, "a phantom world (shapes only%s) runs on the cpu or sym "
                 "backend; the cuda backend computes on real data",
                 cfg->represent ? ", rank 0 standing for all" : "");
        return SIM_EINVAL;
    }
    int ndev = 0;
    SIM_CHECK(count_devices(&ndev, err, errlen));
    if (cfg->opt.rendezvous) // one rank of a world of processes (cuda_proc.c)
        return cuda_proc_init(cfg, ndev, out, err, errlen);
    CudaWorldPlan plan;
    if (cuda_world_plan(cfg->nranks, ndev, cfg->opt.coll_impl, &plan, err, errlen) != 0)
        return SIM_EINVAL;
    CudaCtx *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return SIM_ENOMEM;
    pthread_mutex_init(&ctx->err_mu, NULL);
    ctx->cfg = *cfg;
    ctx->nranks = cfg->nranks;
    ctx->plan = plan;
    SimStatus st = cuda_meet_init(&ctx->meet, ctx->nranks, cfg->watchdog_s);
    ctx->ranks = st == SIM_OK ? calloc((size_t)ctx->nranks, sizeof *ctx->ranks) : NULL;
    if (ctx->ranks == NULL)
        st = SIM_ENOMEM;
    for (int r = 0; st == SIM_OK && r < ctx->nranks; r++) {
        ctx->ranks[r].device = cuda_world_device(&plan, r);
        st = rank_open(ctx, r);
    }
    if (st == SIM_OK)
        st = plan.impl == CUDA_IMPL_NCCL ? open_nccl(ctx) : cuda_devcoll_open(ctx);
    if (st != SIM_OK) {
        snprintf(err, errlen, "%s", ctx->last_error[0] ? ctx->last_error : sim_strerror(st));
        cuda_finalize(ctx);
        return st;
    }
    snprintf(ctx->describe, sizeof ctx->describe, "%d rank%s on %d GPU%s, collectives: %s%s",
             ctx->nranks, ctx->nranks == 1 ? "" : "s", plan.ngpus, plan.ngpus == 1 ? "" : "s",
             cuda_world_impl_name(plan.impl), cfg->opt.allow_tf32 ? ", TF32 on" : "");
    *out = ctx;
    return SIM_OK;
}

static const char *cuda_last_error(void *vctx) {
    CudaCtx *ctx = vctx;
    return ctx ? ctx->last_error : "";
}

// ----------------------------------------------------------------------------
// Rank threads

typedef struct {
    pthread_mutex_t mu;
    SimStatus first; // the run's failure (run_failed), or SIM_OK
} RunResult;

typedef struct {
    CudaCtx *ctx;
    int rank;
    SimRankEntry entry;
    void *arg;
    RunResult *result;
    pthread_t tid;
} RankThread;

static SimStatus bind_device(CudaCtx *ctx, int rank) {
    CUDA_CHECK(cudaSetDevice(ctx->ranks[rank].device));
    return SIM_OK;
}

// The run's status is the first failure in time, but a rank that was only
// aborted because another failed gives way to that one's own reason: the
// peer whose watchdog fired can return after the ranks it woke (a crashed
// rank's peers), and the run is then a timeout, with its diagnosis.
static void run_failed(CudaCtx *ctx, RunResult *res, SimStatus st) {
    pthread_mutex_lock(&res->mu);
    if (res->first == SIM_OK || (res->first == SIM_EABORTED && st != SIM_EABORTED))
        res->first = st;
    pthread_mutex_unlock(&res->mu);
    cuda_meet_abort(&ctx->meet); // nobody waits for a rank that has stopped
    cuda_devcoll_abort(ctx);
}

// With device collectives the rank has an enqueuer thread (cuda_enqueue.c)
// for the run; it stops after the peers were told of a failure, so that
// none of them waits for it in a step's barrier.
static void *rank_thread(void *p) {
    RankThread *t = p;
    CudaCtx *ctx = t->ctx;
    SimStatus st = bind_device(ctx, t->rank);
    if (st == SIM_OK && ctx->dc)
        st = cuda_enq_start(ctx, t->rank);
    if (st == SIM_OK)
        st = t->entry(t->rank, t->arg);
    atomic_store(&ctx->ranks[t->rank].exited, 1);
    if (st != SIM_OK)
        run_failed(ctx, t->result, st);
    cuda_enq_stop(ctx, t->rank);
    return NULL;
}

static SimStatus cuda_run_ranks(void *vctx, SimRankEntry entry, void *arg) {
    CudaCtx *ctx = vctx;
    if (ctx->proc) // this process runs one rank (cuda_proc.c)
        return cuda_proc_run(ctx, entry, arg);
    if (atomic_load(&ctx->broken)) {
        cuda_ctx_set_error(ctx, SIM_EABORTED, "the cuda backend stopped after an aborted "
                           "collective; create a new world to run again");
        return SIM_EABORTED;
    }
    cuda_ctx_clear_error(ctx);
    cuda_meet_reset(&ctx->meet);
    cuda_devcoll_reset(ctx);
    for (int r = 0; r < ctx->nranks; r++)
        atomic_store(&ctx->ranks[r].exited, 0);
    RankThread *t = calloc((size_t)ctx->nranks, sizeof *t);
    if (t == NULL)
        return SIM_ENOMEM;
    RunResult res = {.first = SIM_OK};
    pthread_mutex_init(&res.mu, NULL);
    int started = 0;
    for (; started < ctx->nranks; started++) {
        t[started] = (RankThread){ctx, started, entry, arg, &res, 0};
        if (pthread_create(&t[started].tid, NULL, rank_thread, &t[started]) != 0) {
            cuda_ctx_set_error(ctx, SIM_ENOMEM, "cannot start a rank thread");
            run_failed(ctx, &res, SIM_ENOMEM);
            break;
        }
    }
    for (int r = 0; r < started; r++)
        pthread_join(t[r].tid, NULL);
    pthread_mutex_destroy(&res.mu);
    free(t);
    return res.first;
}

// ----------------------------------------------------------------------------
// Memory and copies

static int rank_ok(const CudaCtx *ctx, int rank) {
    return ctx != NULL && rank >= 0 && rank < ctx->nranks && cuda_proc_owns(ctx, rank);
}

// Out of device memory: one line with what was asked and what is left.
static SimStatus out_of_memory(CudaCtx *ctx, int rank, size_t bytes) {
    (void)cudaGetLastError(); // clear the sticky-free error state of this thread
    size_t free_b = 0, total_b = 0;
    (void)cudaMemGetInfo(&free_b, &total_b);
    char msg[512];
    snprintf(msg, sizeof msg, "out of GPU memory: rank %d (device %d) asked cudaMalloc for "
             "%.1f MiB with %.1f MiB free of %.1f MiB; lower --batch, shard with --strategy "
             "fsdp, or put fewer ranks on each GPU", rank, ctx->ranks[rank].device,
             bytes / 1048576.0, free_b / 1048576.0, total_b / 1048576.0);
    fprintf(stderr, "ddplab cuda: %s\n", msg);
    cuda_ctx_set_error(ctx, SIM_ENOMEM, msg);
    return SIM_ENOMEM;
}

static SimStatus alloc_on(CudaCtx *ctx, int rank, size_t bytes, void **p) {
    CUDA_CHECK(cudaSetDevice(ctx->ranks[rank].device));
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1); // distinct pointers even for 0 bytes
    if (e == cudaErrorMemoryAllocation)
        return out_of_memory(ctx, rank, bytes);
    CUDA_CHECK(e);
    return SIM_OK;
}

static void *cuda_alloc(void *vctx, int rank, size_t bytes) {
    void *p = NULL;
    if (!rank_ok(vctx, rank) || alloc_on(vctx, rank, bytes, &p) != SIM_OK)
        return NULL;
    return p;
}

// A buffer is freed only once no queued collective can still name it.
static SimStatus free_on(CudaCtx *ctx, int rank, void *p) {
    cuda_enq_drain(ctx, rank);
    CUDA_CHECK(cudaSetDevice(ctx->ranks[rank].device));
    CUDA_CHECK(cudaFree(p));
    return SIM_OK;
}

static void cuda_free(void *vctx, int rank, void *p) {
    if (p != NULL && rank_ok(vctx, rank))
        (void)free_on(vctx, rank, p); // a failure is reported by free_on
}

// Copies run on the rank's compute stream, which every later collective waits
// for, and return when the bytes have arrived.
static SimStatus copy_on(CudaCtx *ctx, int rank, void *dst, const void *src, size_t bytes,
                         enum cudaMemcpyKind kind) {
    if (!rank_ok(ctx, rank))
        return SIM_EINVAL;
    if (bytes == 0)
        return SIM_OK;
    CudaRank *r = &ctx->ranks[rank];
    CUDA_CHECK(cudaSetDevice(r->device));
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, r->compute));
    CUDA_CHECK(cudaStreamSynchronize(r->compute));
    return SIM_OK;
}

static SimStatus cuda_copy_to_device(void *vctx, int rank, void *dst, const void *src,
                                     size_t bytes) {
    return copy_on(vctx, rank, dst, src, bytes, cudaMemcpyHostToDevice);
}

static SimStatus cuda_copy_to_host(void *vctx, int rank, void *dst, const void *src,
                                   size_t bytes) {
    return copy_on(vctx, rank, dst, src, bytes, cudaMemcpyDeviceToHost);
}

static SimStatus cuda_synchronize(void *vctx, int rank) {
    CudaCtx *ctx = vctx;
    if (!rank_ok(ctx, rank))
        return SIM_EINVAL;
    CudaRank *r = &ctx->ranks[rank];
    cuda_enq_drain(ctx, rank); // the comm stream holds everything launched
    CUDA_CHECK(cudaSetDevice(r->device));
    CUDA_CHECK(cudaStreamSynchronize(r->compute));
    CUDA_CHECK(cudaStreamSynchronize(r->comm));
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// What the math kernels see of the context (cuda_launch.h)

cudaStream_t cuda_ctx_stream(void *vctx, int rank) {
    return ((CudaCtx *)vctx)->ranks[rank].compute;
}

cublasHandle_t cuda_ctx_cublas(void *vctx, int rank) {
    return ((CudaCtx *)vctx)->ranks[rank].cublas;
}

int cuda_ctx_tf32(void *vctx) {
    return ((CudaCtx *)vctx)->cfg.opt.allow_tf32 != 0;
}

static SimStatus grow_scratch(CudaCtx *ctx, int rank, size_t bytes) {
    CudaRank *r = &ctx->ranks[rank];
    if (r->scratch) {
        // The old buffer may still be read by work on the stream.
        CUDA_CHECK(cudaStreamSynchronize(r->compute));
        CUDA_CHECK(cudaFree(r->scratch));
        r->scratch = NULL;
        r->scratch_bytes = 0;
    }
    CUDA_CHECK(cudaMalloc(&r->scratch, bytes));
    r->scratch_bytes = bytes;
    return SIM_OK;
}

void *cuda_ctx_scratch(void *vctx, int rank, size_t bytes) {
    CudaCtx *ctx = vctx;
    CudaRank *r = &ctx->ranks[rank];
    if (bytes > r->scratch_bytes) {
        size_t want = bytes < 2 * r->scratch_bytes ? 2 * r->scratch_bytes : bytes;
        if (grow_scratch(ctx, rank, want) != SIM_OK)
            return NULL;
    }
    return r->scratch;
}

SimStatus cuda_ctx_op_done(void *vctx, int rank, const char *func, const char *file,
                           int line) {
    CudaCtx *ctx = vctx;
    CudaRank *r = &ctx->ranks[rank];
    cudaError_t e = cudaGetLastError();
    int timing = r->op_started && e == cudaSuccess &&
                 cudaEventRecord(r->op_ev[1], r->compute) == cudaSuccess;
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(r->compute);
    if (e != cudaSuccess)
        return cuda_fail_cuda(ctx, rank, e, func, file, line, "a kernel of this op");
    // An op of several kernel calls ends at its last one: op_ev[0] stays.
    if (timing)
        r->op_timed =
            cuda_event_wall(ctx, rank, r->op_ev[0], &r->op_wall[0]) == SIM_OK &&
            cuda_event_next(ctx, rank, r->op_ev[0], r->op_wall[0], r->op_ev[1], &r->op_wall[1]) ==
                SIM_OK;
    return SIM_OK;
}

// Device timing of math ops (sim/engine/backend.h: op_begin, op_times). A failed
// record only costs the op its device times: the trace keeps the host's.
static void cuda_op_begin(void *vctx, int rank) {
    CudaCtx *ctx = vctx;
    if (!rank_ok(ctx, rank))
        return;
    CudaRank *r = &ctx->ranks[rank];
    r->op_timed = 0;
    r->op_started = r->op_ev[0] != NULL && cudaEventRecord(r->op_ev[0], r->compute) == cudaSuccess;
}

static int cuda_op_times(void *vctx, int rank, double *wall_start, double *wall_end) {
    CudaCtx *ctx = vctx;
    if (!rank_ok(ctx, rank))
        return 0;
    CudaRank *r = &ctx->ranks[rank];
    int ok = r->op_timed;
    if (ok) {
        *wall_start = r->op_wall[0];
        *wall_end = r->op_wall[1];
    }
    r->op_started = r->op_timed = 0;
    return ok;
}

SimStatus cuda_event_wall(CudaCtx *ctx, int rank, cudaEvent_t ev, double *wall) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ctx->ranks[rank].ref, ev));
    *wall = ctx->ranks[rank].ref_wall + (double)ms * 1e-3;
    return SIM_OK;
}

SimStatus cuda_event_next(CudaCtx *ctx, int rank, cudaEvent_t ev0, double w0, cudaEvent_t ev1,
                          double *w1) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
    *w1 = w0 + (double)ms * 1e-3;
    return SIM_OK;
}

static SimStatus cuda_mem_info(void *vctx, int rank, int *device, uint64_t *used,
                               uint64_t *total) {
    CudaCtx *ctx = vctx;
    if (!rank_ok(ctx, rank))
        return SIM_EINVAL;
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaSetDevice(ctx->ranks[rank].device));
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    *device = ctx->ranks[rank].device;
    *used = (uint64_t)(total_b - free_b);
    *total = (uint64_t)total_b;
    return SIM_OK;
}

// An injected crash (`--fault crash:...`, sim/engine/comm_fault.c) on the rank's
// own thread: from here on the rank takes part in nothing, as a dead process
// would, so its peers wait for it at their next meeting until the watchdog
// names it (the world is then aborted), or finish without it. Its buffers
// stay valid until then. In a world of processes the process simply goes
// on to exit: the other processes' watchdogs see it gone.
static SimStatus cuda_rank_crash(void *vctx, int rank) {
    CudaCtx *ctx = vctx;
    if (ctx == NULL || ctx->proc)
        return SIM_OK;
    struct timespec nap = {0, 1000000L}; // 1 ms: a crash is rare, the wait long
    for (;;) {
        if (cuda_meet_aborted(&ctx->meet) || atomic_load(&ctx->broken) ||
            atomic_load(&ctx->cancelled) == 2)
            return SIM_OK;
        int others = 0;
        for (int r = 0; r < ctx->nranks; r++)
            others += r != rank && atomic_load(&ctx->ranks[r].exited);
        if (others == ctx->nranks - 1)
            return SIM_OK;
        nanosleep(&nap, NULL);
    }
}

// Ctrl-C and the like (sim_world_cancel, from the run's signal watcher):
// ranks waiting for each other at a meeting or in ddplab's device
// collectives are woken, a collective already on the GPU is given up by its
// wait (cuda_coll.c, which aborts the rank's NCCL communicator), and every
// later collective is refused. Compute ops run on to the next collective,
// as on the cpu backend. The world stays cancelled.
static void cuda_cancel(void *vctx, const char *why) {
    CudaCtx *ctx = vctx;
    int none = 0;
    if (ctx == NULL || !atomic_compare_exchange_strong(&ctx->cancelled, &none, 1))
        return; // once: the first caller writes the reason
    snprintf(ctx->cancel_why, sizeof ctx->cancel_why, "%s", why && why[0] ? why : "cancelled");
    atomic_store(&ctx->cancelled, 2);
    cuda_ctx_set_error(ctx, SIM_EABORTED, ctx->cancel_why);
    cuda_meet_abort(&ctx->meet);
    cuda_devcoll_abort(ctx);
}

static SimStatus cuda_device_name(void *vctx, int rank, char *buf, size_t len) {
    CudaCtx *ctx = vctx;
    if (!rank_ok(ctx, rank) || len == 0)
        return SIM_EINVAL;
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, ctx->ranks[rank].device));
    snprintf(buf, len, "%s", prop.name);
    return SIM_OK;
}

static const char *cuda_describe(void *vctx) {
    CudaCtx *ctx = vctx;
    return ctx ? ctx->describe : "";
}

// ----------------------------------------------------------------------------
// The table

const SimBackendOps cuda_backend_ops = {
    .name = CUDA_BACKEND_NAME,
    .version = SIM_BACKEND_VERSION,
    // the program lists the backend with the same words, without the plugin
    .description = CUDA_BACKEND_DESCRIPTION,
    .init = cuda_init,
    .finalize = cuda_finalize,
    .last_error = cuda_last_error,
    .run_ranks = cuda_run_ranks,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .copy_to_device = cuda_copy_to_device,
    .copy_to_host = cuda_copy_to_host,
    .coll_launch = cuda_coll_launch,
    .coll_wait = cuda_coll_wait,
    .synchronize = cuda_synchronize,
    .math = &cuda_math_ops,
    .rank_crash = cuda_rank_crash,
    .cancel = cuda_cancel,
    .describe = cuda_describe,
    .mem_info = cuda_mem_info,
    .device_name = cuda_device_name,
    .op_begin = cuda_op_begin,
    .op_times = cuda_op_times,
};
