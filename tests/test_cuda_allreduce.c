// tests/test_cuda_allreduce.c: all_reduce on real GPUs through the whole
// stack (sim_world on the cuda backend, NCCL underneath), one rank per
// visible GPU, checked element by element against sums computed on the host.
//
// Without a GPU (or without a driver) the backend's init fails with
// SIM_ENODEV: the test checks that the reason says so, prints
// "SKIP: <reason>" and exits 77, which ctest reports as skipped.
//
// With GPUs it checks, for SUM and AVG, out-of-place and in-place, counts
// 0, 7 and 2^20+3 (fp32): every element exactly (the inputs are small
// integers, see cuda_pattern_value, so sums are exact in any order); that a
// world with more ranks than GPUs refuses --coll-impl nccl and shares GPUs by default;
// and that every rank's collective starts at the latest simulated arrival.
// Then it times a large all_reduce and prints time, algbw and busbw.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "cuda_backend.h" // defines: cuda_backend_ops
#include "cuda_kernels.h" // defines: cuda_kernel_fill_pattern, cuda_pattern_value
#include "engine/comm.h"  // defines: sim_all_reduce, sim_rank_compute
#include "test_env.h"     // defines: tenv_quick

#define SEED 12345u

typedef struct {
    size_t count;     // elements per rank
    SimRedOp op;
    int inplace;
    int timed_iters;  // 0: check only
    long *wrong;      // [nranks]: mismatching elements seen by each rank
    double *secs;     // [nranks]: seconds per timed all_reduce
} Job;

// ----------------------------------------------------------------------------
// Expected values, computed on the host

static double expected(size_t i, int nranks, SimRedOp op) {
    double sum = 0;
    for (int q = 0; q < nranks; q++)
        sum += cuda_pattern_value(i, q, SEED);
    return op == SIM_AVG ? (double)((float)sum / (float)nranks) : sum;
}

static long count_wrong(const float *got, size_t n, int nranks, SimRedOp op) {
    long wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += (double)got[i] != expected(i, nranks, op);
    return wrong;
}

// ----------------------------------------------------------------------------
// What every rank runs

// Fills buf with this rank's pattern, with the backend's own kernel.
static SimStatus fill(void *buf, size_t count, int rank) {
    if (cuda_kernel_fill_pattern(buf, count, SIM_FP32, rank, SEED, 0) != cudaSuccess ||
        cudaStreamSynchronize(0) != cudaSuccess)
        return SIM_EBACKEND;
    return SIM_OK;
}

static SimStatus run_job(SimRank *r, Job *j, float *send, float *recv, float *host) {
    SimWorld *w = r->world;
    const void *src = j->inplace ? recv : send;
    SIM_CHECK(fill(j->inplace ? recv : send, j->count, r->rank));
    SIM_CHECK(sim_all_reduce(r, src, recv, j->count, SIM_FP32, j->op, SIM_ALGO_AUTO));
    SIM_CHECK(w->ops->copy_to_host(w->ctx, r->rank, host, recv, j->count * sizeof(float)));
    j->wrong[r->rank] = count_wrong(host, j->count, w->cfg.nranks, j->op);
    if (j->timed_iters > 0) {
        double t0 = sim_wall_now();
        for (int k = 0; k < j->timed_iters; k++)
            SIM_CHECK(sim_all_reduce(r, send, recv, j->count, SIM_FP32, SIM_SUM,
                                     SIM_ALGO_AUTO));
        j->secs[r->rank] = (sim_wall_now() - t0) / j->timed_iters;
    }
    return SIM_OK;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    Job *j = arg;
    SimWorld *w = r->world;
    size_t bytes = j->count * sizeof(float);
    float *send = w->ops->alloc(w->ctx, r->rank, bytes);
    float *recv = w->ops->alloc(w->ctx, r->rank, bytes);
    float *host = malloc(bytes ? bytes : 1);
    SimStatus st = send && recv && host ? run_job(r, j, send, recv, host) : SIM_ENOMEM;
    w->ops->free(w->ctx, r->rank, send);
    w->ops->free(w->ctx, r->rank, recv);
    free(host);
    return st;
}

// Rank r reaches its first collective r milliseconds late (simulated).
static SimStatus skewed_rank(SimRank *r, void *arg) {
    (void)arg;
    sim_rank_compute(r, "skew", 1e-3 * r->rank);
    return sim_barrier(r);
}

// ----------------------------------------------------------------------------

static int run(SimWorld *w, Job *j) {
    int R = w->cfg.nranks;
    for (int q = 0; q < R; q++)
        j->wrong[q] = -1, j->secs[q] = 0;
    SimStatus st = sim_world_run(w, rank_main, j);
    if (st != SIM_OK)
        fprintf(stderr, "run failed: %s: %s\n", sim_status_name(st), sim_world_error(w));
    CHECK_EQ_INT(st, SIM_OK);
    for (int q = 0; q < R; q++)
        CHECK_EQ_INT(j->wrong[q], 0);
    return 0;
}

static int test_correct(SimWorld *w, long *wrong, double *secs) {
    const size_t counts[] = {0, 7, ((size_t)1 << 20) + 3};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (int op = 0; op < 2; op++)
            for (int inplace = 0; inplace < 2; inplace++) {
                Job j = {counts[c], op ? SIM_AVG : SIM_SUM, inplace, 0, wrong, secs};
                if (run(w, &j) != 0) {
                    fprintf(stderr, "  (count %zu, %s, %s)\n", counts[c],
                            op ? "avg" : "sum", inplace ? "in-place" : "out-of-place");
                    return 1;
                }
            }
    return 0;
}

// Every rank's collective starts at the latest arrival: ms, in a
// fresh world whose clocks start at 0.
static int test_start_is_latest_arrival(SimWorld *w) {
    CHECK_EQ_INT(sim_world_run(w, skewed_rank, NULL), SIM_OK);
    int R = w->cfg.nranks;
    for (int q = 0; q < R; q++) {
        const SimEvent *ev = sim_trace_rank_events(w->trace, q);
        size_t n = sim_trace_rank_count(w->trace, q), colls = 0;
        for (size_t i = 0; i < n; i++) {
            if (ev[i].kind != SIM_EV_COLL)
                continue;
            CHECK_NEAR(ev[i].sim_start, 1e-3 * (R - 1), 1e-12);
            colls++;
        }
        CHECK_EQ_INT(colls, 1);
    }
    return 0;
}

// More ranks than GPUs: NCCL cannot hold two ranks of one communicator on a
// GPU, so asking for it is refused with the reason; auto shares the GPUs.
static int test_shared_gpu_needs_device_impl(int ndev) {
    SimBackendConfig bc = {ndev + 1, 1, ndev + 1, 5.0, 0, 0, {0, "nccl", NULL}, SIM_ALGO_AUTO};
    void *ctx = NULL;
    char err[512] = "";
    CHECK_EQ_INT(cuda_backend_ops.init(&bc, &ctx, err, sizeof err), SIM_EINVAL);
    CHECK(ctx == NULL);
    CHECK_STR_CONTAINS(err, "NCCL refuses two ranks");
    bc.opt.coll_impl = NULL;
    CHECK_EQ_INT(cuda_backend_ops.init(&bc, &ctx, err, sizeof err), SIM_OK);
    cuda_backend_ops.finalize(ctx);
    return 0;
}

static int bench(SimWorld *w, long *wrong, double *secs) {
    size_t count = tenv_quick() ? (size_t)4 << 20 : (size_t)16 << 20;
    Job j = {count, SIM_SUM, 0, 20, wrong, secs};
    if (run(w, &j) != 0)
        return 1;
    int R = w->cfg.nranks;
    double t = 0;
    for (int q = 0; q < R; q++)
        t = secs[q] > t ? secs[q] : t;
    double bytes = (double)count * sizeof(float);
    double algbw = bytes / t / 1e9;
    printf("all_reduce fp32 sum, %d GPU%s, %.0f MiB: %.1f us, algbw %.2f GB/s, busbw %.2f "
           "GB/s\n", R, R == 1 ? "" : "s", bytes / (1 << 20), t * 1e6, algbw,
           algbw * 2.0 * (R - 1) / R);
    return 0;
}

int main(void) {
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1)
        ndev = 1; // init will say why there is no device
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = ndev;
    cfg.watchdog_s = 30.0; // the first NCCL call also sets up connections
    SimWorld w;
    SimStatus st = sim_world_init(&w, &cfg, &cuda_backend_ops);
    if (st == SIM_ENODEV) {
        CHECK_STR_CONTAINS(sim_world_error(&w), "no CUDA device: cudaGetDeviceCount");
        printf("SKIP: %s\n", sim_world_error(&w));
        sim_world_free(&w);
        return 77;
    }
    if (st != SIM_OK) {
        fprintf(stderr, "init failed: %s: %s\n", sim_status_name(st), sim_world_error(&w));
        sim_world_free(&w);
        return 1;
    }
    long *wrong = calloc((size_t)ndev, sizeof *wrong);
    double *secs = calloc((size_t)ndev, sizeof *secs);
    int failures = 0;
    if (wrong == NULL || secs == NULL) {
        failures = 1;
    } else {
        // First, while every simulated clock is still at 0.
        failures += test_start_is_latest_arrival(&w) != 0;
        failures += test_correct(&w, wrong, secs) != 0;
        failures += test_shared_gpu_needs_device_impl(ndev) != 0;
        failures += failures == 0 && bench(&w, wrong, secs) != 0;
    }
    printf("%s test_cuda_allreduce (%d GPU%s)\n", failures ? "FAILED" : "ok    ", ndev,
           ndev == 1 ? "" : "s");
    free(wrong);
    free(secs);
    sim_world_free(&w);
    return failures != 0;
}
