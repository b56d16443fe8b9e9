// backend_cuda/cuda_coll.c: collectives on the CUDA backend, through NCCL.
//
// Launch, on the rank's own thread:
//   1. meet the other participants on the host (cuda_meet.c): the simulated
//      start is the latest arrival, and a mismatched or missing rank is
//      diagnosed here, before any GPU work could hang on it;
//   2. make the comm stream wait for everything already on the compute stream
//      (the buffers' contents), as PyTorch DDP's communication stream does;
//   3. enqueue the NCCL call on the comm stream (gather and scatter are
//      grouped sends and receives; NCCL has no such collectives), then the
//      AVG division, then record a `done` event.
// Wait polls `done` under the watchdog: a collective that never finishes on
// the GPU aborts the rank's communicator instead of hanging the program.
//
// NCCL is a black box: it reports no steps, so the trace holds one event per
// collective on this backend (the steps of the schedule are a CPU-side view).
// Two timing events bracket the NCCL work on the comm stream (after the wait
// for the compute stream, after the AVG division): the collective's event in
// the trace carries those GPU times, not the host's launch-to-wait.
// Rounding: NCCL adds fp16 and bf16 in their own precision along its ring,
// while the CPU backend widens to fp32; fp32 and integer results agree.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_internal.h" // defines: CudaCtx, NCCL_CHECK, cuda_meet_*
#include "cuda_kernels.h"  // defines: cuda_kernel_div

// What a launched collective leaves for its wait (SimCollHandle.impl).
typedef struct {
    cudaEvent_t done; // recorded on the comm stream after the last kernel
    cudaEvent_t *tev; // device collectives: [ntev] timing events of the steps
    int ntev;         // (cuda_devcoll.c); NCCL: [2], its start and end
    int whole;        // 1: tev brackets the whole collective (NCCL), not steps
    cudaEvent_t ready; // recorded on the compute stream at launch
    int queued;       // 1: handed to the rank's enqueuer (cuda_enqueue.c) as job,
    CudaEnqJob job;   // which enqueues this copy of the call
    SimCollCall call;
} CudaPending;

// ----------------------------------------------------------------------------
// Type and operator mapping

static ncclDataType_t nccl_dtype(SimDtype dt) {
    switch (dt) {
    case SIM_FP16: return ncclFloat16;
    case SIM_BF16: return ncclBfloat16;
    case SIM_INT32: return ncclInt32;
    case SIM_INT64: return ncclInt64;
    default: return ncclFloat32;
    }
}

// AVG is an exact sum divided once afterwards (cuda_kernel_div), as on the CPU
// backend; ncclAvg would scale every input before adding.
static ncclRedOp_t nccl_op(SimRedOp op) {
    switch (op) {
    case SIM_MAX: return ncclMax;
    case SIM_MIN: return ncclMin;
    case SIM_PROD: return ncclProd;
    default: return ncclSum;
    }
}

// ----------------------------------------------------------------------------
// Enqueueing

// Gather: every rank sends its block to the root, which receives R-1 blocks
// in one NCCL group and copies its own block locally.
static SimStatus enqueue_gather(CudaCtx *ctx, int rank, const SimCollArgs *a) {
    CudaRank *r = &ctx->ranks[rank];
    ncclDataType_t dt = nccl_dtype(a->dtype);
    if (rank != a->root) {
        NCCL_CHECK(ncclSend(a->sendbuf, a->count, dt, a->root, r->nccl, r->comm));
        return SIM_OK;
    }
    size_t block = a->count * sim_dtype_size(a->dtype); // bytes per rank
    char *recv = a->recvbuf;
    if (block > 0 && recv + (size_t)rank * block != (const char *)a->sendbuf)
        CUDA_CHECK(cudaMemcpyAsync(recv + (size_t)rank * block, a->sendbuf, block,
                                   cudaMemcpyDeviceToDevice, r->comm));
    SimStatus st = SIM_OK;
    NCCL_CHECK(ncclGroupStart());
    for (int p = 0; p < ctx->nranks; p++)
        if (p != rank)
            NCCL_CHECK_GOTO(ncclRecv(recv + (size_t)p * block, a->count, dt, p, r->nccl,
                                     r->comm), st, end);
end:
    NCCL_CHECK(ncclGroupEnd());
    return st;
}

// Scatter: the root sends block p of its send buffer to rank p, in one group,
// and copies its own block locally.
static SimStatus enqueue_scatter(CudaCtx *ctx, int rank, const SimCollArgs *a) {
    CudaRank *r = &ctx->ranks[rank];
    ncclDataType_t dt = nccl_dtype(a->dtype);
    if (rank != a->root) {
        NCCL_CHECK(ncclRecv(a->recvbuf, a->count, dt, a->root, r->nccl, r->comm));
        return SIM_OK;
    }
    size_t block = a->count * sim_dtype_size(a->dtype);
    const char *send = a->sendbuf;
    if (block > 0 && send + (size_t)rank * block != (const char *)a->recvbuf)
        CUDA_CHECK(cudaMemcpyAsync(a->recvbuf, send + (size_t)rank * block, block,
                                   cudaMemcpyDeviceToDevice, r->comm));
    SimStatus st = SIM_OK;
    NCCL_CHECK(ncclGroupStart());
    for (int p = 0; p < ctx->nranks; p++)
        if (p != rank)
            NCCL_CHECK_GOTO(ncclSend(send + (size_t)p * block, a->count, dt, p, r->nccl,
                                     r->comm), st, end);
end:
    NCCL_CHECK(ncclGroupEnd());
    return st;
}

static SimStatus enqueue_nccl(CudaCtx *ctx, int rank, const SimCollArgs *a) {
    CudaRank *r = &ctx->ranks[rank];
    ncclDataType_t dt = nccl_dtype(a->dtype);
    ncclRedOp_t op = nccl_op(a->op);
    switch (a->kind) {
    case SIM_COLL_ALL_REDUCE:
        NCCL_CHECK(ncclAllReduce(a->sendbuf, a->recvbuf, a->count, dt, op, r->nccl, r->comm));
        return SIM_OK;
    case SIM_COLL_REDUCE_SCATTER:
        NCCL_CHECK(ncclReduceScatter(a->sendbuf, a->recvbuf, a->count, dt, op, r->nccl,
                                     r->comm));
        return SIM_OK;
    case SIM_COLL_ALL_GATHER:
        NCCL_CHECK(ncclAllGather(a->sendbuf, a->recvbuf, a->count, dt, r->nccl, r->comm));
        return SIM_OK;
    case SIM_COLL_BROADCAST:
        NCCL_CHECK(ncclBroadcast(a->sendbuf, a->recvbuf, a->count, dt, a->root, r->nccl,
                                 r->comm));
        return SIM_OK;
    case SIM_COLL_REDUCE:
        NCCL_CHECK(ncclReduce(a->sendbuf, a->recvbuf, a->count, dt, op, a->root, r->nccl,
                              r->comm));
        return SIM_OK;
    case SIM_COLL_GATHER:
        return enqueue_gather(ctx, rank, a);
    case SIM_COLL_SCATTER:
        return enqueue_scatter(ctx, rank, a);
    case SIM_COLL_SEND:
        NCCL_CHECK(ncclSend(a->sendbuf, a->count, dt, a->peer, r->nccl, r->comm));
        return SIM_OK;
    case SIM_COLL_RECV:
        NCCL_CHECK(ncclRecv(a->recvbuf, a->count, dt, a->peer, r->nccl, r->comm));
        return SIM_OK;
    case SIM_COLL_BARRIER:
        // the host meeting was the barrier: every rank has arrived (between
        // processes there is no meeting: a barrier of their own on the GPU)
        return ctx->proc ? cuda_proc_barrier(ctx, rank) : SIM_OK;
    default:
        return SIM_ENOTSUP;
    }
}

// Elements of this rank's result that AVG must divide (0: none here).
static size_t avg_count(const SimCollArgs *a, int rank) {
    if (a->op != SIM_AVG)
        return 0;
    switch (a->kind) {
    case SIM_COLL_ALL_REDUCE:
    case SIM_COLL_REDUCE_SCATTER: return a->count;
    case SIM_COLL_REDUCE: return rank == a->root ? a->count : 0;
    default: return 0;
    }
}

// tev: NULL, or [2] timing events recorded before and after the NCCL work.
static SimStatus enqueue(CudaCtx *ctx, int rank, const SimCollArgs *a, cudaEvent_t done,
                         cudaEvent_t *tev) {
    CudaRank *r = &ctx->ranks[rank];
    CUDA_CHECK(cudaSetDevice(r->device));
    CUDA_CHECK(cudaEventRecord(r->ready, r->compute));
    CUDA_CHECK(cudaStreamWaitEvent(r->comm, r->ready, 0));
    if (tev)
        CUDA_CHECK(cudaEventRecord(tev[0], r->comm));
    SIM_CHECK(enqueue_nccl(ctx, rank, a));
    size_t n = avg_count(a, rank);
    if (n > 0)
        CUDA_CHECK(cuda_kernel_div(a->recvbuf, n, a->dtype, ctx->nranks, r->comm));
    if (tev)
        CUDA_CHECK(cudaEventRecord(tev[1], r->comm));
    CUDA_CHECK(cudaEventRecord(done, r->comm));
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// Launch

static CudaArrival arrival_of(const SimCollCall *call) {
    const SimCollArgs *a = &call->args;
    CudaArrival v = {CUDA_MEET_NONE, call->seq, a->count, call->arrive_sim, (int)a->kind,
                     (int)a->dtype, (int)a->op, a->root, a->peer};
    return v;
}

static SimStatus new_pending(CudaCtx *ctx, int rank, CudaPending **out) {
    CudaPending *p = calloc(1, sizeof *p);
    if (p == NULL)
        return SIM_ENOMEM;
    SimStatus st = SIM_OK;
    CUDA_CHECK_GOTO(cudaSetDevice(ctx->ranks[rank].device), st, fail);
    CUDA_CHECK_GOTO(cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming), st, fail);
    *out = p;
    return SIM_OK;
fail:
    free(p);
    return st;
}

// n timing events: the bounds of a device collective's steps (nsteps + 1),
// or of an NCCL call (2).
static SimStatus add_timers(CudaCtx *ctx, int rank, CudaPending *p, int n) {
    p->tev = calloc((size_t)n, sizeof *p->tev);
    if (p->tev == NULL)
        return SIM_ENOMEM;
    for (; p->ntev < n; p->ntev++)
        CUDA_CHECK(cudaEventCreate(&p->tev[p->ntev]));
    return SIM_OK;
}

// Reports each step of a finished device collective with its GPU times, or
// an NCCL call's GPU start and end; either way the call's GPU span, which
// the trace keeps as the collective's wall times.
static SimStatus report_steps(CudaCtx *ctx, int rank, SimCollCall *call, const CudaPending *p) {
    double w0 = 0.0, w1 = 0.0;
    if (p->ntev < 2)
        return SIM_OK;
    SIM_CHECK(cuda_event_wall(ctx, rank, p->tev[0], &w0));
    double start = w0;
    // each event from the one before it (cuda_event_next: exact intervals)
    for (int t = 0; t + 1 < p->ntev; t++) {
        SIM_CHECK(cuda_event_next(ctx, rank, p->tev[t], w0, p->tev[t + 1], &w1));
        if (!p->whole)
            sim_coll_report_step(call, t, w0, w1);
        w0 = w1;
    }
    // the collective's own GPU span: its first step's start to its last one's end
    call->gpu_wall_start = start;
    call->gpu_wall_end = w1;
    return SIM_OK;
}

static void free_pending(CudaPending *p) {
    for (int i = 0; i < p->ntev; i++)
        (void)cudaEventDestroy(p->tev[i]);
    free(p->tev);
    if (p->done)
        (void)cudaEventDestroy(p->done);
    if (p->ready)
        (void)cudaEventDestroy(p->ready);
    free(p);
}

// A device collective (all but send and recv): the compute stream's point
// is marked here, on the rank's thread, and the rank's enqueuer (started
// with the rank's thread, cuda_backend.c) puts the steps on the comm stream
// while this thread goes on.
static SimStatus submit(CudaCtx *ctx, int rank, const SimCollCall *call, CudaPending *p) {
    CudaRank *cr = &ctx->ranks[rank];
    CUDA_CHECK(cudaSetDevice(cr->device));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(p->ready, cr->compute));
    p->call = *call;
    p->job = (CudaEnqJob){.call = &p->call, .ready = p->ready, .done = p->done,
                          .tev = p->ntev ? p->tev : NULL};
    cuda_enq_submit(ctx, rank, &p->job);
    p->queued = 1;
    return SIM_OK;
}

// Send and receive, whose halves meet in pairs, on the rank's own thread
// (they mark the compute stream's point themselves: cuda_devcoll.c).
static SimStatus enqueue_p2p(CudaCtx *ctx, int rank, const SimCollCall *call, CudaPending *p) {
    return cuda_devcoll_enqueue(ctx, rank, call, NULL, p->done, NULL);
}

SimStatus cuda_coll_launch(void *vctx, int rank, SimCollHandle *h) {
    CudaCtx *ctx = vctx;
    SimCollCall *call = &h->call;
    const SimCollArgs *a = &call->args;
    char why[512];
    h->impl = NULL;
    if (atomic_load(&ctx->cancelled) == 2) {
        cuda_ctx_set_error(ctx, SIM_EABORTED, ctx->cancel_why);
        return SIM_EABORTED;
    }
    if (atomic_load(&ctx->broken)) {
        cuda_ctx_set_error(ctx, SIM_EABORTED, "the cuda backend stopped after an aborted "
                           "collective; create a new world to run again");
        return SIM_EABORTED;
    }
    if ((int)a->kind < 0 || a->kind >= SIM_COLL_COUNT) {
        snprintf(why, sizeof why, "cuda backend: collective kind %d is not supported",
                 (int)a->kind);
        cuda_ctx_set_error(ctx, SIM_ENOTSUP, why);
        return SIM_ENOTSUP;
    }
    // Everything that can fail alone is done before the meeting: after it,
    // the peers will enqueue their half of the collective.
    CudaPending *p = NULL;
    SIM_CHECK(new_pending(ctx, rank, &p));
    int scheduled = a->kind != SIM_COLL_BARRIER && a->kind != SIM_COLL_SEND &&
                    a->kind != SIM_COLL_RECV; // the kinds with a schedule
    if (ctx->dc ? scheduled : 1) {
        p->whole = !ctx->dc;
        SimStatus ts = add_timers(ctx, rank, p, p->whole ? 2 : call->sched.nsteps + 1);
        if (ts != SIM_OK) {
            free_pending(p);
            return ts;
        }
    }
    int p2p = a->kind == SIM_COLL_SEND || a->kind == SIM_COLL_RECV;
    if (ctx->dc && p2p) // its messages go on the comm stream after the queued collectives
        cuda_enq_drain(ctx, rank);
    if (ctx->dc && a->kind == SIM_COLL_SEND) {
        SimStatus ps = cuda_devcoll_post(ctx, rank, call);
        if (ps != SIM_OK) {
            free_pending(p);
            return ps;
        }
    }
    CudaArrival arr = arrival_of(call);
    double start = call->arrive_sim;
    SimStatus st = ctx->proc ? cuda_proc_meet(ctx, rank, call, &start, why, sizeof why)
                   : p2p     ? cuda_meet_pair(&ctx->meet, rank, &arr, &start, why, sizeof why)
                             : cuda_meet_all(&ctx->meet, rank, &arr, &start, why, sizeof why);
    if (st != SIM_OK) {
        cuda_ctx_set_error(ctx, st, why);
        free_pending(p);
        return st;
    }
    call->start_sim = start;
    st = !ctx->dc ? enqueue(ctx, rank, a, p->done, p->whole ? p->tev : NULL)
         : p2p    ? enqueue_p2p(ctx, rank, call, p)
                  : submit(ctx, rank, call, p);
    if (st != SIM_OK) {
        cuda_meet_abort(&ctx->meet); // peers must not start anything more
        free_pending(p);
        return st;
    }
    h->impl = p;
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// Wait

static void sleep_ns(long ns) {
    struct timespec t = {0, ns};
    nanosleep(&t, NULL);
}

// Gives up on the rank's communicator: NCCL stops its kernels, and the
// backend refuses further collectives (the other ranks' communicators are
// now unmatched).
static SimStatus give_up(CudaCtx *ctx, int rank, const SimCollCall *call, SimStatus st,
                         const char *what) {
    CudaRank *r = &ctx->ranks[rank];
    char msg[512];
    snprintf(msg, sizeof msg, "%s: rank %d (device %d): %s (collective #%llu, %zu %s) %s; "
             "%s",
             st == SIM_ETIMEDOUT ? "watchdog" : st == SIM_EABORTED ? "aborted" : "NCCL",
             rank, r->device, sim_coll_title(call->args.kind),
             (unsigned long long)call->seq, call->args.count,
             sim_dtype_name(call->args.dtype), what,
             ctx->dc ? "the world's device collectives were stopped"
                     : "its NCCL communicator was aborted");
    fprintf(stderr, "ddplab cuda: %s\n", msg);
    cuda_ctx_set_error(ctx, st, msg);
    atomic_store(&ctx->broken, 1);
    cuda_meet_abort(&ctx->meet);
    cuda_devcoll_abort(ctx);
    if (r->nccl && !r->nccl_aborted) {
        (void)ncclCommAbort(r->nccl);
        r->nccl_aborted = 1;
    }
    return st;
}

// Polls `done`: spins for the first 200 microseconds (small collectives end
// within that), then sleeps that grow to a millisecond, so that a long wait
// leaves the CPU to others. The watchdog counts from the start of the wait.
// (<sched.h> and sched_yield are out of reach: sim/coll/schedule.h shadows it.)
static SimStatus wait_done(CudaCtx *ctx, int rank, const SimCollCall *call, cudaEvent_t done) {
    CudaRank *r = &ctx->ranks[rank];
    if (r->nccl_aborted) { // an earlier wait of this rank gave up
        cuda_ctx_set_error(ctx, SIM_EABORTED, "collective abandoned: this rank's NCCL "
                           "communicator was aborted");
        return SIM_EABORTED;
    }
    double t0 = sim_wall_now();
    long nap = 1000;
    for (;;) {
        cudaError_t e = cudaEventQuery(done);
        if (e == cudaSuccess)
            return SIM_OK;
        if (e != cudaErrorNotReady)
            return cuda_fail_cuda(ctx, rank, e, __func__, __FILE__, __LINE__,
                                  "cudaEventQuery(done)");
        double waited = sim_wall_now() - t0;
        if (waited < 200e-6)
            continue;
        ncclResult_t async = ncclSuccess;
        if (r->nccl && ncclCommGetAsyncError(r->nccl, &async) == ncclSuccess && async != ncclSuccess &&
            async != ncclInProgress)
            return give_up(ctx, rank, call, SIM_EBACKEND, ncclGetErrorString(async));
        if (atomic_load(&ctx->cancelled) == 2) {
            char what[160];
            snprintf(what, sizeof what, "was given up: %s", ctx->cancel_why);
            return give_up(ctx, rank, call, SIM_EABORTED, what);
        }
        // Another rank gave up: whatever waited on its communicator will
        // not finish. A short grace lets unrelated work (p2p) complete.
        if (atomic_load(&ctx->broken) && waited > 0.1)
            return give_up(ctx, rank, call, SIM_EABORTED,
                           "was abandoned after another rank's communicator was aborted");
        if (ctx->cfg.watchdog_s > 0 && waited > ctx->cfg.watchdog_s) {
            char what[96];
            snprintf(what, sizeof what, "did not finish on the GPU within %.1f s",
                     ctx->cfg.watchdog_s);
            return give_up(ctx, rank, call, SIM_ETIMEDOUT, what);
        }
        sleep_ns(nap);
        nap = nap < 1000000 ? nap * 2 : 1000000;
    }
}

static SimStatus wait_pending(CudaCtx *ctx, int rank, const SimCollCall *call,
                              const CudaPending *p) {
    CUDA_CHECK(cudaSetDevice(ctx->ranks[rank].device));
    return wait_done(ctx, rank, call, p->done);
}

SimStatus cuda_coll_wait(void *vctx, int rank, SimCollHandle *h) {
    CudaPending *p = h->impl;
    if (p == NULL)
        return SIM_OK; // nothing was enqueued
    SimStatus st = p->queued ? cuda_enq_wait(vctx, rank, &p->job) : SIM_OK;
    if (st == SIM_OK)
        st = wait_pending(vctx, rank, &h->call, p);
    if (st == SIM_OK && p->ntev > 0)
        st = report_steps(vctx, rank, &h->call, p);
    free_pending(p);
    h->impl = NULL;
    return st;
}
