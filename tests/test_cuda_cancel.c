// tests/test_cuda_cancel.c: the CUDA backend's cancel (Ctrl-C, SIGTERM:
// sim_world_cancel from the run's signal watcher) on a context built by hand,
// which needs no GPU: the host side of a world of two ranks, with no
// communicators and no device collectives. A rank waiting at the meeting for
// a peer that never comes (a hung run) is released at once, though its
// watchdog is 10 s away; every later collective is refused before anything
// reaches the GPU; the run's error is the cancel's reason, and a second
// cancel does not replace it.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "comm.h"          // defines: sim_wall_now
#include "cuda_backend.h"  // defines: cuda_backend_ops
#include "cuda_internal.h" // defines: CudaCtx

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

int main(void) {
    int failures = 0;
    RUN(test_cancel_releases_and_refuses);
    return failures != 0;
}
