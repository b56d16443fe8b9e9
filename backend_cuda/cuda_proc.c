// backend_cuda/cuda_proc.c: process mode of the CUDA backend. This process
// runs one rank of a world of processes started by a launcher (torchrun,
// mpirun, srun; possibly on several machines) instead of one thread per GPU.
//
// Init (cuda_proc_init, from the backend's init when
// SimBackendConfig.opt.rendezvous is set):
//   1. who am I: the launcher's variables (cuda_rdzv_identity); the world
//      asked for (-n) must be the launcher's world size;
//   2. which GPU: LOCAL_RANK modulo the visible GPUs (rank modulo them when
//      the launcher gives no local rank), with a warning when two local
//      ranks would land on one GPU (a launcher that gives every process its
//      own CUDA_VISIBLE_DEVICES makes that right, so it is not refused here;
//      NCCL refuses two ranks of one communicator on one GPU itself);
//   3. the rank's streams and cuBLAS handle, as in the threaded backend;
//   4. rank 0 makes an ncclUniqueId, the rendezvous carries it to every rank
//      (cuda_rdzv_bcast), and every rank calls ncclCommInitRank; rank 0 then
//      removes the rendezvous files (NCCL's init needed every rank, so all
//      have read them).
// From then on the context keeps nranks entries (indexed by global rank, so
// that sim/ and the collectives see the same world) but only the own rank's
// are open: run_ranks runs the own rank alone, on the calling thread, and
// memory, copies and collectives for any other rank are refused.
//
// What differs from the threaded backend: the host meeting (cuda_meet.c)
// cannot span processes, so there is none. Each process's simulated clock
// starts a collective at its own arrival (the latest arrival of the world is
// not known here), the protocol is not checked before NCCL runs (a rank that
// calls another collective, or none, shows as the watchdog's timeout on the
// GPU: cuda_coll.c's wait aborts the communicator), and a barrier is a
// one-element all_reduce on the GPU. Every collective goes through NCCL. A
// rank whose run fails marks the context broken, so that teardown aborts
// its communicator instead of finalising it with peers that wait for it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"  // defines: cuda_backend_ops (its finalize)
#include "cuda_internal.h" // defines: CudaCtx, CUDA_CHECK, NCCL_CHECK
#include "cuda_rdzv.h"     // defines: CudaRdzvIdentity, cuda_rdzv_*

typedef struct CudaProc CudaProc;

struct CudaProc {
    CudaRdzvIdentity id;
    CudaRdzvSpec spec;    // resolved (file or tcp)
    int rank;             // the one rank this process runs (id.rank)
    int device;           // its GPU
    int32_t *barrier;     // [1] on the GPU: cuda_proc_barrier's all_reduce
};

// ----------------------------------------------------------------------------
// Init

// The GPU of this process, with a warning when another local rank gets it too.
static int pick_device(const CudaRdzvIdentity *id, int ndev) {
    int local = id->local_rank >= 0 ? id->local_rank : id->rank;
    int lws = id->local_world_size;
    int other = local >= ndev ? local - ndev : lws > 0 && local + ndev < lws ? local + ndev : -1;
    if (other >= 0)
        fprintf(stderr, "ddplab cuda: warning: rank %d (%s %d) takes GPU %d of the %d visible "
                "here, as does %s %d: they share it unless each process sees GPUs of its own "
                "(CUDA_VISIBLE_DEVICES per process), and NCCL refuses two ranks of one world on "
                "one GPU; start at most %d process%s per machine\n", id->rank,
                id->local_rank >= 0 ? "local rank" : "rank", local, local % ndev, ndev,
                id->local_rank >= 0 ? "local rank" : "rank", other, ndev, ndev == 1 ? "" : "es");
    return local % ndev;
}

// Identity, spec and their checks against the world asked for.
static SimStatus proc_setup(CudaProc *p, const SimBackendConfig *cfg, int ndev, char *err,
                            size_t errlen) {
    char why[1024];
    if (cuda_rdzv_parse(cfg->opt.rendezvous, &p->spec, why, sizeof why) != SIM_OK) {
        snprintf(err, errlen, "--rendezvous: %s", why);
        return SIM_EINVAL;
    }
    if (cuda_rdzv_identity(cuda_rdzv_getenv, NULL, &p->id, why, sizeof why) != SIM_OK ||
        cuda_rdzv_resolve(&p->spec, &p->id, why, sizeof why) != SIM_OK) {
        snprintf(err, errlen, "--rendezvous: %s", why);
        return SIM_EINVAL;
    }
    int ws = p->id.world_size;
    if (cfg->nranks != ws) {
        snprintf(err, errlen, "--rendezvous: %s started a world of %d process%s and the run "
                 "asks for %d rank%s; allowed: -n %d (one rank per process)", p->id.launcher, ws,
                 ws == 1 ? "" : "es", cfg->nranks, cfg->nranks == 1 ? "" : "s", ws);
        return SIM_EINVAL;
    }
    if (cfg->opt.coll_impl && strcmp(cfg->opt.coll_impl, "device") == 0) {
        snprintf(err, errlen, "--rendezvous: the device collectives need every rank in one "
                 "process; between processes the collectives are NCCL's (allowed: auto, nccl)");
        return SIM_EINVAL;
    }
    p->rank = p->id.rank;
    p->device = pick_device(&p->id, ndev);
    return SIM_OK;
}

// The barrier's buffer, the id's exchange and the communicator.
static SimStatus open_comm(CudaCtx *ctx, CudaProc *p) {
    const int rank = p->rank;
    CUDA_CHECK(cudaSetDevice(p->device));
    CUDA_CHECK(cudaMalloc((void **)&p->barrier, sizeof *p->barrier));
    CUDA_CHECK(cudaMemset(p->barrier, 0, sizeof *p->barrier));
    CUDA_CHECK(cudaDeviceSynchronize()); // the memset ran on the legacy stream
    ncclUniqueId uid;
    memset(&uid, 0, sizeof uid);
    if (rank == 0)
        NCCL_CHECK(ncclGetUniqueId(&uid));
    char why[1536];
    SimStatus st = cuda_rdzv_bcast(&p->spec, &p->id, &uid, sizeof uid, p->id.timeout_s, why,
                                   sizeof why);
    if (st != SIM_OK) { // the caller says it (init's error): no hang can follow
        cuda_ctx_set_error(ctx, st, why);
        return st;
    }
    if (cuda_world_nccl_algo(sim_algo_nccl_name(ctx->cfg.algo)) != 0)
        return SIM_ENOMEM;
    NCCL_CHECK(ncclCommInitRank(&ctx->ranks[rank].nccl, ctx->nranks, uid, rank));
    cuda_rdzv_finish(&p->spec, &p->id); // every rank has used the id (rank 0 only)
    return SIM_OK;
}

SimStatus cuda_proc_init(const SimBackendConfig *cfg, int ndev, void **out, char *err,
                         size_t errlen) {
    *out = NULL;
    CudaProc *p = calloc(1, sizeof *p);
    if (p == NULL)
        return SIM_ENOMEM;
    SimStatus st = proc_setup(p, cfg, ndev, err, errlen);
    CudaCtx *ctx = st == SIM_OK ? calloc(1, sizeof *ctx) : NULL;
    if (ctx == NULL) {
        free(p);
        if (st == SIM_OK)
            snprintf(err, errlen, "out of memory for the backend's context");
        return st == SIM_OK ? SIM_ENOMEM : st;
    }
    pthread_mutex_init(&ctx->err_mu, NULL);
    ctx->cfg = *cfg;
    ctx->nranks = cfg->nranks;
    ctx->proc = p;
    // No meeting is ever held between processes; a meeting of one keeps
    // cuda_meet_abort, which failures call, valid.
    st = cuda_meet_init(&ctx->meet, 1, cfg->watchdog_s);
    ctx->ranks = st == SIM_OK ? calloc((size_t)ctx->nranks, sizeof *ctx->ranks) : NULL;
    if (ctx->ranks == NULL)
        st = SIM_ENOMEM;
    if (st == SIM_OK) {
        // Every entry names this process's GPU, so that nothing (teardown
        // included) ever touches another GPU; only the own rank is opened.
        for (int r = 0; r < ctx->nranks; r++)
            ctx->ranks[r].device = p->device;
        st = cuda_ctx_open_rank(ctx, p->rank);
    }
    if (st == SIM_OK)
        st = open_comm(ctx, p);
    if (st != SIM_OK) {
        snprintf(err, errlen, "%s", ctx->last_error[0] ? ctx->last_error : sim_strerror(st));
        cuda_backend_ops.finalize(ctx);
        return st;
    }
    char where[1100];
    fprintf(stderr, "ddplab cuda: rank %d of %d (%s, local rank %d) on GPU %d; NCCL met through "
            "%s\n", p->rank, ctx->nranks, p->id.launcher, p->id.local_rank, p->device,
            cuda_rdzv_describe(&p->spec, where, sizeof where));
    *out = ctx;
    return SIM_OK;
}

void cuda_proc_free(CudaCtx *ctx) {
    CudaProc *p = ctx->proc;
    if (p == NULL)
        return;
    if (p->barrier && cudaSetDevice(p->device) == cudaSuccess)
        (void)cudaFree(p->barrier);
    free(p);
    ctx->proc = NULL;
}

// ----------------------------------------------------------------------------
// The rank

int cuda_proc_owns(const CudaCtx *ctx, int rank) {
    if (ctx->proc == NULL || rank == ctx->proc->rank)
        return 1;
    fprintf(stderr, "ddplab cuda: refused: a request for rank %d in the process of rank %d "
            "(with --rendezvous each process runs its own rank only)\n", rank, ctx->proc->rank);
    return 0;
}

SimStatus cuda_proc_run(CudaCtx *ctx, SimRankEntry entry, void *arg) {
    const int rank = ctx->proc->rank;
    if (atomic_load(&ctx->broken)) {
        cuda_ctx_set_error(ctx, SIM_EABORTED, "the cuda backend stopped after an aborted "
                           "collective; create a new world to run again");
        return SIM_EABORTED;
    }
    cuda_ctx_clear_error(ctx);
    cuda_meet_reset(&ctx->meet);
    CUDA_CHECK(cudaSetDevice(ctx->ranks[rank].device));
    SimStatus st = entry(rank, arg);
    // A rank that stopped early leaves its peers' collectives unmatched: its
    // communicator is aborted at teardown (close_nccl), not finalised, which
    // would wait for a quiet world that will not come.
    if (st != SIM_OK)
        atomic_store(&ctx->broken, 1);
    return st;
}

SimStatus cuda_proc_meet(CudaCtx *ctx, int rank, const SimCollCall *call, double *start_sim,
                         char *why, size_t whylen) {
    if (rank != ctx->proc->rank) {
        snprintf(why, whylen, "cuda backend: a collective of rank %d in the process of rank %d "
                 "(with --rendezvous each process runs its own rank only)", rank,
                 ctx->proc->rank);
        return SIM_EINVAL;
    }
    *start_sim = call->arrive_sim;
    return SIM_OK;
}

SimStatus cuda_proc_barrier(CudaCtx *ctx, int rank) {
    CudaRank *r = &ctx->ranks[rank];
    // MAX of zeros: the value never changes, the all_reduce only waits for all
    NCCL_CHECK(ncclAllReduce(ctx->proc->barrier, ctx->proc->barrier, 1, ncclInt32, ncclMax,
                             r->nccl, r->comm));
    return SIM_OK;
}
