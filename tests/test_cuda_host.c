// tests/test_cuda_host.c: host-side pieces of the CUDA backend, on a context
// built by hand, which need no GPU (the host side of a world of two ranks,
// with no communicators and no device collectives):
//   cancel (Ctrl-C, SIGTERM: sim_world_cancel from the run's signal
//   watcher): a rank waiting at the meeting for a peer that never comes (a
//   hung run) is released at once, though its watchdog is 10 s away; every
//   later collective is refused before anything reaches the GPU; the run's
//   error is the cancel's reason, and a second cancel does not replace it;
//   an injected crash: the crashed rank waits, as a dead process would,
//   until its peer's watchdog names it at the meeting and the world is
//   aborted, or until every other rank has returned;
//   the enqueuer threads of device collectives: order, failures, drain, stop;
//   error lines: a failed CUDA, NCCL or cuBLAS call gives one line with the
//   library, the error's text and name, the rank and its device, the call
//   and, for the failures a learner meets, a hint; the status follows the
//   code (out of memory, no device, bad usage, other).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_backend.h"  // defines: cuda_backend_ops
#include "cuda_internal.h" // defines: CudaCtx
#include "engine/comm.h"   // defines: sim_wall_now

typedef struct {
    CudaCtx *ctx;
    SimStatus st;
    double waited;
    char why[512];
} Waiter;

// Rank 0 at an all_reduce that rank 1 never enters.
static void *wait_alone(void *p) {
    Waiter *w = p;
    CudaArrival a = {CUDA_MEET_NONE, 0, 1024, 0.0, SIM_COLL_ALL_REDUCE, SIM_FP32, SIM_SUM, 0, -1};
    double start = 0, t0 = sim_wall_now();
    w->st = cuda_meet_all(&w->ctx->meet, 0, &a, &start, w->why, sizeof w->why);
    w->waited = sim_wall_now() - t0;
    return NULL;
}

static CudaCtx *host_ctx(int nranks) {
    CudaCtx *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return NULL;
    pthread_mutex_init(&ctx->err_mu, NULL);
    ctx->nranks = nranks;
    ctx->cfg.watchdog_s = 10;
    ctx->ranks = calloc((size_t)nranks, sizeof *ctx->ranks);
    if (ctx->ranks == NULL || cuda_meet_init(&ctx->meet, nranks, 10.0) != SIM_OK) {
        free(ctx->ranks);
        free(ctx);
        return NULL;
    }
    return ctx;
}

static void host_ctx_free(CudaCtx *ctx) {
    cuda_meet_destroy(&ctx->meet);
    pthread_mutex_destroy(&ctx->err_mu);
    free(ctx->ranks);
    free(ctx);
}

static int test_cancel_releases_and_refuses(void) {
    CudaCtx *ctx = host_ctx(2);
    CHECK(ctx != NULL);
    Waiter w = {ctx, SIM_OK, 0, ""};
    pthread_t tid;
    CHECK(pthread_create(&tid, NULL, wait_alone, &w) == 0);
    // Let rank 0 reach the meeting (it waits there in any case: an early
    // cancel must release it all the same).
    struct timespec nap = {0, 50 * 1000000L};
    nanosleep(&nap, NULL);
    cuda_backend_ops.cancel(ctx, "interrupted by SIGINT");
    pthread_join(tid, NULL);
    CHECK_EQ_INT(w.st, SIM_EABORTED);
    CHECK(w.waited < 5.0); // the watchdog is 10 s away
    CHECK_STR_CONTAINS(cuda_backend_ops.last_error(ctx), "interrupted by SIGINT");

    // A later collective is refused before anything is enqueued.
    SimCollHandle h;
    memset(&h, 0, sizeof h);
    h.call.args.kind = SIM_COLL_ALL_REDUCE;
    h.call.args.count = 4;
    h.call.args.dtype = SIM_FP32;
    CHECK_EQ_INT(cuda_backend_ops.coll_launch(ctx, 1, &h), SIM_EABORTED);
    CHECK(h.impl == NULL);

    // The first reason stays.
    cuda_backend_ops.cancel(ctx, "interrupted by SIGTERM");
    CHECK(strcmp(ctx->cancel_why, "interrupted by SIGINT") == 0);
    CHECK_EQ_INT(cuda_backend_ops.coll_launch(ctx, 0, &h), SIM_EABORTED);
    CHECK(strstr(cuda_backend_ops.last_error(ctx), "SIGTERM") == NULL);
    host_ctx_free(ctx);
    return 0;
}

// An injected crash: the crashed rank stays (its buffers valid) while its
// peer waits for it at the meeting, until the peer's watchdog names it and
// the world is aborted; with the peer already gone it returns at once.
typedef struct {
    CudaCtx *ctx;
    double returned_at;
} Crasher;

static void *crash_rank0(void *p) {
    Crasher *c = p;
    (void)cuda_backend_ops.rank_crash(c->ctx, 0);
    c->returned_at = sim_wall_now();
    return NULL;
}

static int test_crash_waits_for_the_watchdog(void) {
    CudaCtx *ctx = host_ctx(2);
    CHECK(ctx != NULL);
    cuda_meet_destroy(&ctx->meet);
    CHECK_EQ_INT(cuda_meet_init(&ctx->meet, 2, 0.3), SIM_OK); // a short watchdog
    Crasher c = {ctx, 0};
    pthread_t tid;
    CHECK(pthread_create(&tid, NULL, crash_rank0, &c) == 0);
    CudaArrival a = {CUDA_MEET_NONE, 0, 64, 0.0, SIM_COLL_ALL_REDUCE, SIM_FP32, SIM_SUM, 0, -1};
    double start = 0;
    char why[512];
    SimStatus st = cuda_meet_all(&ctx->meet, 1, &a, &start, why, sizeof why);
    double timed_out = sim_wall_now();
    CHECK_EQ_INT(st, SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(why, "rank 0");
    cuda_meet_abort(&ctx->meet); // what the peer's failed run does (run_failed)
    pthread_join(tid, NULL);
    CHECK(c.returned_at >= timed_out);

    // The peer returned without waiting: the crashed rank does not wait either.
    cuda_meet_reset(&ctx->meet);
    atomic_store(&ctx->ranks[1].exited, 1);
    CHECK_EQ_INT(cuda_backend_ops.rank_crash(ctx, 0), SIM_OK);
    host_ctx_free(ctx);
    return 0;
}

// One failure through each reporter: the line kept as the last error.
static int test_error_lines(void) {
    CudaCtx *ctx = host_ctx(2);
    CHECK(ctx != NULL);
    ctx->ranks[1].device = 3;
    CHECK_EQ_INT(cuda_fail_cuda(ctx, 1, cudaErrorNoKernelImageForDevice, "f", "/x/backend_cuda/k.cu",
                                7, "launch(k)"),
                 SIM_EBACKEND);
    const char *m = cuda_backend_ops.last_error(ctx);
    CHECK_STR_CONTAINS(m, "CUDA error: ");
    CHECK_STR_CONTAINS(m, "(cudaErrorNoKernelImageForDevice) on rank 1 (device 3) in f at "
                          "backend_cuda/k.cu:7: launch(k); hint: this build has no code for "
                          "this GPU: rebuild with -DCMAKE_CUDA_ARCHITECTURES");

    // Each run's first failure is its cause: clear between the cases.
    cuda_ctx_clear_error(ctx);
    CHECK_EQ_INT(cuda_fail_cuda(ctx, 0, cudaErrorMemoryAllocation, "f", "a.c", 1, "cudaMalloc"),
                 SIM_ENOMEM);
    CHECK_STR_CONTAINS(cuda_backend_ops.last_error(ctx),
                       "on rank 0 (device 0) in f at a.c:1: cudaMalloc; hint: lower --batch");
    cuda_ctx_clear_error(ctx);
    CHECK_EQ_INT(cuda_fail_cuda(ctx, 0, cudaErrorInsufficientDriver, "f", "a.c", 1, "init"),
                 SIM_ENODEV);
    CHECK_STR_CONTAINS(cuda_backend_ops.last_error(ctx), "hint: check that nvidia-smi lists");

    cuda_ctx_clear_error(ctx);
    CHECK_EQ_INT(cuda_fail_nccl(ctx, 1, ncclInvalidUsage, "g", "b.c", 2, "ncclAllReduce(...)"),
                 SIM_EINVAL);
    m = cuda_backend_ops.last_error(ctx);
    CHECK_STR_CONTAINS(m, "NCCL error: ");
    CHECK_STR_CONTAINS(m, "(ncclResult 5) on rank 1 (device 3) in g at b.c:2: "
                          "ncclAllReduce(...); hint: every rank must call the same collectives");
    cuda_ctx_clear_error(ctx);
    CHECK_EQ_INT(cuda_fail_nccl(ctx, 0, ncclSystemError, "g", "b.c", 2, "x"), SIM_EBACKEND);
    CHECK_STR_CONTAINS(cuda_backend_ops.last_error(ctx), "/dev/shm");

    cuda_ctx_clear_error(ctx);
    CHECK_EQ_INT(cuda_fail_cublas(ctx, 0, CUBLAS_STATUS_ALLOC_FAILED, "h", "c.c", 3, "sgemm"),
                 SIM_ENOMEM);
    m = cuda_backend_ops.last_error(ctx);
    CHECK_STR_CONTAINS(m, "cuBLAS error: ");
    CHECK_STR_CONTAINS(m, "(CUBLAS_STATUS_ALLOC_FAILED) on rank 0 (device 0) in h at c.c:3: "
                          "sgemm; hint: lower --batch");

    // A code without a hint of its own: the line ends with the call.
    cuda_ctx_clear_error(ctx);
    CHECK_EQ_INT(cuda_fail_cuda(ctx, -1, cudaErrorInvalidValue, "f", "a.c", 9, "cudaMemcpy"),
                 SIM_EBACKEND);
    m = cuda_backend_ops.last_error(ctx);
    CHECK_STR_CONTAINS(m, "(cudaErrorInvalidValue) on the host thread in f at a.c:9: cudaMemcpy");
    CHECK(strstr(m, "hint") == NULL);
    host_ctx_free(ctx);
    return 0;
}

// The enqueuer threads of device collectives (cuda_enqueue.c): jobs are
// taken in the order submitted, a wait returns the enqueue's status, drain
// and stop return. Each job fails at its first CUDA call here (device -1
// exists on no machine), which must reach its wait, abort the host
// meeting (peers start nothing more), and leave no thread behind.
static int test_enqueuer_order_and_failure(void) {
    CudaCtx *ctx = host_ctx(2);
    CHECK(ctx != NULL);
    for (int r = 0; r < 2; r++) {
        ctx->ranks[r].device = -1;
        CHECK(cuda_enq_start(ctx, r) == SIM_OK);
        CHECK(ctx->ranks[r].enq != NULL);
    }
    SimCollCall call;
    memset(&call, 0, sizeof call);
    call.args.kind = SIM_COLL_ALL_REDUCE;
    CudaEnqJob jobs[2][3];
    memset(jobs, 0, sizeof jobs);
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 3; i++) {
            jobs[r][i].call = &call;
            cuda_enq_submit(ctx, r, &jobs[r][i]);
        }
    // the last job's wait: the earlier ones of the rank are finished too
    CHECK(cuda_enq_wait(ctx, 0, &jobs[0][2]) != SIM_OK);
    CHECK(jobs[0][0].finished && jobs[0][1].finished);
    for (int i = 0; i < 3; i++)
        CHECK(cuda_enq_wait(ctx, 1, &jobs[1][i]) == SIM_ENODEV); // no device -1
    cuda_enq_drain(ctx, 0);
    cuda_enq_drain(ctx, 1);
    CHECK(cuda_meet_aborted(&ctx->meet));
    CHECK_STR_CONTAINS(cuda_backend_ops.last_error(ctx), "cudaSetDevice");
    for (int r = 0; r < 2; r++) {
        cuda_enq_stop(ctx, r);
        CHECK(ctx->ranks[r].enq == NULL);
    }
    cuda_enq_drain(ctx, 0); // without an enqueuer: nothing to wait for
    host_ctx_free(ctx);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_cancel_releases_and_refuses);
    RUN(test_crash_waits_for_the_watchdog);
    RUN(test_error_lines);
    RUN(test_enqueuer_order_and_failure);
    return failures != 0;
}
