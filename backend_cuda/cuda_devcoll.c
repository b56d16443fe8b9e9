// backend_cuda/cuda_devcoll.c: the host side of ddplab's device collectives
// (see cuda_devcoll.h for the design): per rank, the work buffer it exposes
// to its peers, one event per step, a staging buffer for sources on another
// GPU and a scratch work buffer; and the barrier that keeps the ranks'
// enqueueing in step.
//
// Events of rank q: ev[0] is recorded after q's initial local copy ("step
// -1" of schedule.h), ev[t + 1] after q's step t. A rank about to run step t
// makes its comm stream wait for ev[t] of each source (the source has
// finished step t-1) and of each rank that read its buffer at step t-1
// (contract (b)); after the last step, for ev[nsteps] of the last readers,
// so the caller gets its buffers back only when nobody reads them.
//
// Timing: with tev (nsteps + 1 timing events, from cuda_coll.c), tev[0] is
// recorded when the comm stream starts the collective and tev[t + 1] when
// it finishes step t; the wait reports each step to the trace with these
// GPU times (sim_coll_report_step), so a trace of a GPU run holds the
// measured transfers of every step, as one of the cpu backend does.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_devcoll.h"  // defines: cuda_kernel_reduce
#include "cuda_internal.h" // defines: CudaCtx, CUDA_CHECK, cuda_devcoll_*
#include "cuda_kernels.h"  // defines: cuda_kernel_div

typedef struct {
    void *work;            // this collective's work buffer (device), published
    cudaEvent_t *ev;       // [nev] step events, on the rank's device
    int nev;
    SimXfer *xf;           // transfers of one step (host)
    int xf_cap;
    void *stage;           // copies of sources on other GPUs (device)
    size_t stage_bytes;
    void *scratch;         // SIM_WORK_SCRATCH work buffers (device)
    size_t scratch_bytes;
} DcRank;

// One ordered (sender, receiver) pair of send/recv: the sender posts its
// buffer and an event after which the data exist, the receiver copies and
// records `copied`, and the sender's stream waits for that before the
// sender may reuse its buffer. At most one message per pair is in flight:
// the sender's launch returns only after the receiver has enqueued its copy.
typedef struct {
    const void *buf;
    cudaEvent_t sent, copied; // on the sender's / the receiver's GPU
    unsigned long posted, copies;
} DcMail;

struct CudaDevColl {
    int nranks;
    DcRank *r;             // [nranks]
    DcMail *mail;          // [nranks * nranks], index sender * nranks + receiver
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    unsigned long gen;
    int aborted;
};

// ----------------------------------------------------------------------------
// Lifecycle

SimStatus cuda_devcoll_open(CudaCtx *ctx) {
    struct CudaDevColl *d = calloc(1, sizeof *d);
    if (d == NULL)
        return SIM_ENOMEM;
    d->nranks = ctx->nranks;
    d->r = calloc((size_t)ctx->nranks, sizeof *d->r);
    d->mail = calloc((size_t)ctx->nranks * (size_t)ctx->nranks, sizeof *d->mail);
    if (d->r == NULL || d->mail == NULL) {
        free(d->r);
        free(d->mail);
        free(d);
        return SIM_ENOMEM;
    }
    pthread_mutex_init(&d->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&d->cv, &ca);
    pthread_condattr_destroy(&ca);
    ctx->dc = d;
    return SIM_OK;
}

// At finalize: drains each rank's comm stream, then frees.
void cuda_devcoll_close(CudaCtx *ctx) {
    struct CudaDevColl *d = ctx->dc;
    if (d == NULL)
        return;
    for (int q = 0; q < d->nranks; q++) {
        DcRank *r = &d->r[q];
        if (cudaSetDevice(ctx->ranks[q].device) == cudaSuccess) {
            if (ctx->ranks[q].comm)
                (void)cudaStreamSynchronize(ctx->ranks[q].comm);
            for (int i = 0; i < r->nev; i++)
                (void)cudaEventDestroy(r->ev[i]);
            if (r->stage)
                (void)cudaFree(r->stage);
            if (r->scratch)
                (void)cudaFree(r->scratch);
        }
        free(r->ev);
        free(r->xf);
    }
    for (int s = 0; s < d->nranks; s++)
        for (int q = 0; q < d->nranks; q++) {
            DcMail *m = &d->mail[s * d->nranks + q];
            if (m->sent && cudaSetDevice(ctx->ranks[s].device) == cudaSuccess)
                (void)cudaEventDestroy(m->sent);
            if (m->copied && cudaSetDevice(ctx->ranks[q].device) == cudaSuccess)
                (void)cudaEventDestroy(m->copied);
        }
    free(d->mail);
    free(d->r);
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    free(d);
    ctx->dc = NULL;
}

void cuda_devcoll_abort(CudaCtx *ctx) {
    struct CudaDevColl *d = ctx->dc;
    if (d == NULL)
        return;
    pthread_mutex_lock(&d->mu);
    d->aborted = 1;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

void cuda_devcoll_reset(CudaCtx *ctx) {
    struct CudaDevColl *d = ctx->dc;
    if (d == NULL)
        return;
    pthread_mutex_lock(&d->mu);
    d->aborted = 0;
    d->arrived = 0;
    for (int i = 0; i < d->nranks * d->nranks; i++) // a run stopped mid-message
        d->mail[i].posted = d->mail[i].copies = 0;
    pthread_mutex_unlock(&d->mu);
}

// ----------------------------------------------------------------------------
// The enqueue barrier: every rank of the world, under the watchdog.

static SimStatus barrier(CudaCtx *ctx, int rank, const SimCollCall *call, int step) {
    struct CudaDevColl *d = ctx->dc;
    pthread_mutex_lock(&d->mu);
    unsigned long gen = d->gen;
    if (++d->arrived == d->nranks) {
        d->arrived = 0;
        d->gen++;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);
        return SIM_OK;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    double wd = ctx->cfg.watchdog_s > 0 ? ctx->cfg.watchdog_s : 1e9;
    until.tv_sec += (time_t)wd;
    until.tv_nsec += (long)((wd - (double)(time_t)wd) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int rc = 0;
    while (d->gen == gen && !d->aborted && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&d->cv, &d->mu, &until);
    int ok = d->gen != gen;
    int aborted = d->aborted;
    pthread_mutex_unlock(&d->mu);
    if (ok)
        return SIM_OK;
    char msg[256];
    SimStatus st = aborted ? SIM_EABORTED : SIM_ETIMEDOUT;
    snprintf(msg, sizeof msg, "%s: rank %d: %s (collective #%llu) step %d: %s",
             aborted ? "aborted" : "watchdog", rank, sim_coll_title(call->args.kind),
             (unsigned long long)call->seq, step,
             aborted ? "another rank stopped" : "the other ranks did not enqueue their part");
    cuda_ctx_set_error(ctx, st, msg);
    if (!aborted)
        cuda_devcoll_abort(ctx);
    return st;
}

// ----------------------------------------------------------------------------
// Per-rank buffers

static SimStatus ensure_events(CudaCtx *ctx, int rank, int n) {
    DcRank *r = &ctx->dc->r[rank];
    if (n <= r->nev)
        return SIM_OK;
    cudaEvent_t *ev = realloc(r->ev, (size_t)n * sizeof *ev);
    if (ev == NULL)
        return SIM_ENOMEM;
    r->ev = ev;
    while (r->nev < n) {
        CUDA_CHECK(cudaEventCreateWithFlags(&r->ev[r->nev], cudaEventDisableTiming));
        r->nev++;
    }
    return SIM_OK;
}

// A device buffer of at least `bytes` in *buf, grown after the comm stream
// has drained (earlier collectives may still use the old one).
static SimStatus ensure_device(CudaCtx *ctx, int rank, void **buf, size_t *have, size_t bytes) {
    if (bytes <= *have)
        return SIM_OK;
    CudaRank *cr = &ctx->ranks[rank];
    CUDA_CHECK(cudaStreamSynchronize(cr->comm));
    if (*buf) {
        CUDA_CHECK(cudaFree(*buf));
        *buf = NULL;
        *have = 0;
    }
    CUDA_CHECK(cudaMalloc(buf, bytes));
    *have = bytes;
    return SIM_OK;
}

// The transfers of `rank` at step t, into r->xf; the count, or -1.
static int step_xfers(DcRank *r, const SimSched *s, int rank, int t, int incoming) {
    for (;;) {
        int n = incoming ? sim_sched_incoming(s, rank, t, r->xf, r->xf_cap)
                         : sim_sched_outgoing(s, rank, t, r->xf, r->xf_cap);
        if (n <= r->xf_cap)
            return n;
        SimXfer *x = realloc(r->xf, (size_t)n * sizeof *x);
        if (x == NULL)
            return -1;
        r->xf = x;
        r->xf_cap = n;
    }
}

// Makes the rank's comm stream wait for ev[t] of every rank that read its
// buffer at step t-1 (t >= 1).
static SimStatus wait_readers(CudaCtx *ctx, int rank, const SimSched *s, int t) {
    DcRank *r = &ctx->dc->r[rank];
    int n = step_xfers(r, s, rank, t - 1, 0);
    if (n < 0)
        return SIM_ENOMEM;
    for (int i = 0; i < n; i++)
        CUDA_CHECK(cudaStreamWaitEvent(ctx->ranks[rank].comm, ctx->dc->r[r->xf[i].dst].ev[t], 0));
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// One collective

static SimStatus prepare(CudaCtx *ctx, int rank, const SimCollCall *call) {
    const SimCollArgs *a = &call->args;
    const SimSched *s = &call->sched;
    DcRank *r = &ctx->dc->r[rank];
    CudaRank *cr = &ctx->ranks[rank];
    size_t esz = sim_dtype_size(a->dtype), wcount = 0;
    SimWorkKind kind = sim_sched_work(s, rank, &wcount);
    r->work = kind == SIM_WORK_SEND ? (void *)a->sendbuf : a->recvbuf;
    if (kind == SIM_WORK_SCRATCH) {
        SIM_CHECK(ensure_device(ctx, rank, &r->scratch, &r->scratch_bytes, wcount * esz + 1));
        r->work = r->scratch;
    }
    size_t so, wo, n;
    if (sim_sched_init_copy(s, rank, &so, &wo, &n) && n > 0) {
        char *dst = (char *)r->work + wo * esz;
        const char *src = (const char *)a->sendbuf + so * esz;
        if (dst != src)
            CUDA_CHECK(cudaMemcpyAsync(dst, src, n * esz, cudaMemcpyDeviceToDevice, cr->comm));
    }
    CUDA_CHECK(cudaEventRecord(r->ev[0], cr->comm));
    return SIM_OK;
}

// The incoming transfers of step t, after their sources' previous steps.
static SimStatus run_step(CudaCtx *ctx, int rank, const SimCollCall *call, int t,
                          cudaEvent_t *tev) {
    const SimCollArgs *a = &call->args;
    DcRank *r = &ctx->dc->r[rank];
    CudaRank *cr = &ctx->ranks[rank];
    size_t esz = sim_dtype_size(a->dtype);
    if (t > 0)
        SIM_CHECK(wait_readers(ctx, rank, &call->sched, t));
    int n = step_xfers(r, &call->sched, rank, t, 1);
    if (n < 0)
        return SIM_ENOMEM;
    for (int i = 0; i < n; i++) {
        const SimXfer *x = &r->xf[i];
        CUDA_CHECK(cudaStreamWaitEvent(cr->comm, ctx->dc->r[x->src].ev[t], 0));
        if (x->count == 0)
            continue;
        const char *src = (const char *)ctx->dc->r[x->src].work + x->src_off * esz;
        char *dst = (char *)r->work + x->dst_off * esz;
        size_t bytes = x->count * esz;
        if (x->op == SIM_XFER_COPY) { // cudaMemcpyDefault: any GPU to this one (UVA)
            CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cr->comm));
            continue;
        }
        if (ctx->ranks[x->src].device != cr->device) { // a reduction reads locally
            SIM_CHECK(ensure_device(ctx, rank, &r->stage, &r->stage_bytes, bytes));
            CUDA_CHECK(cudaMemcpyAsync(r->stage, src, bytes, cudaMemcpyDefault, cr->comm));
            src = r->stage;
        }
        CUDA_CHECK(cuda_kernel_reduce(dst, src, x->count, a->dtype, a->op, cr->comm));
    }
    CUDA_CHECK(cudaEventRecord(r->ev[t + 1], cr->comm));
    if (tev)
        CUDA_CHECK(cudaEventRecord(tev[t + 1], cr->comm));
    return SIM_OK;
}

// After the steps: wait for the last readers, copy out, divide for AVG.
static SimStatus finish(CudaCtx *ctx, int rank, const SimCollCall *call) {
    const SimCollArgs *a = &call->args;
    const SimSched *s = &call->sched;
    DcRank *r = &ctx->dc->r[rank];
    CudaRank *cr = &ctx->ranks[rank];
    size_t esz = sim_dtype_size(a->dtype), wo, ro, n;
    if (s->nsteps > 0)
        SIM_CHECK(wait_readers(ctx, rank, s, s->nsteps));
    if (sim_sched_final_copy(s, rank, &wo, &ro, &n) && n > 0) {
        char *dst = (char *)a->recvbuf + ro * esz;
        const char *src = (const char *)r->work + wo * esz;
        if (dst != src)
            CUDA_CHECK(cudaMemcpyAsync(dst, src, n * esz, cudaMemcpyDeviceToDevice, cr->comm));
    }
    if (a->op == SIM_AVG && sim_coll_is_reduction(a->kind) && ctx->nranks > 1) {
        size_t rn = sim_coll_recv_count(a->kind, a->count, ctx->nranks, rank, s->root);
        if (rn > 0)
            CUDA_CHECK(cuda_kernel_div(a->recvbuf, rn, a->dtype, ctx->nranks, cr->comm));
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// send / recv

SimStatus cuda_devcoll_post(CudaCtx *ctx, int rank, const SimCollCall *call) {
    struct CudaDevColl *d = ctx->dc;
    CudaRank *cr = &ctx->ranks[rank];
    DcMail *m = &d->mail[rank * d->nranks + call->args.peer];
    CUDA_CHECK(cudaSetDevice(cr->device));
    CUDA_CHECK(cudaEventRecord(cr->ready, cr->compute));
    CUDA_CHECK(cudaStreamWaitEvent(cr->comm, cr->ready, 0));
    pthread_mutex_lock(&d->mu);
    cudaError_t e = m->sent ? cudaSuccess : cudaEventCreateWithFlags(&m->sent,
                                                                      cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventRecord(m->sent, cr->comm);
    m->buf = call->args.sendbuf;
    pthread_mutex_unlock(&d->mu);
    CUDA_CHECK(e);
    return SIM_OK;
}

// The receiver, after the pair met: copy from the sender's posted buffer.
static SimStatus recv_copy(CudaCtx *ctx, int rank, const SimCollArgs *a) {
    struct CudaDevColl *d = ctx->dc;
    CudaRank *cr = &ctx->ranks[rank];
    DcMail *m = &d->mail[a->peer * d->nranks + rank];
    CUDA_CHECK(cudaEventRecord(cr->ready, cr->compute)); // the receive buffer is free
    CUDA_CHECK(cudaStreamWaitEvent(cr->comm, cr->ready, 0));
    pthread_mutex_lock(&d->mu);
    const void *src = m->buf;
    cudaEvent_t sent = m->sent;
    pthread_mutex_unlock(&d->mu);
    CUDA_CHECK(cudaStreamWaitEvent(cr->comm, sent, 0));
    size_t bytes = a->count * sim_dtype_size(a->dtype);
    if (bytes > 0)
        CUDA_CHECK(cudaMemcpyAsync(a->recvbuf, src, bytes, cudaMemcpyDefault, cr->comm));
    if (m->copied == NULL)
        CUDA_CHECK(cudaEventCreateWithFlags(&m->copied, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(m->copied, cr->comm));
    pthread_mutex_lock(&d->mu);
    m->copies++;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return SIM_OK;
}

// The sender, after the pair met: its buffer is free once the copy is done.
static SimStatus send_wait(CudaCtx *ctx, int rank, const SimCollCall *call) {
    struct CudaDevColl *d = ctx->dc;
    DcMail *m = &d->mail[rank * d->nranks + call->args.peer];
    double t0 = sim_wall_now(), wd = ctx->cfg.watchdog_s > 0 ? ctx->cfg.watchdog_s : 1e9;
    pthread_mutex_lock(&d->mu);
    unsigned long want = ++m->posted;
    while (m->copies < want && !d->aborted && sim_wall_now() - t0 < wd) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += 1000000L; // re-check the clock every millisecond
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&d->cv, &d->mu, &until);
    }
    int ok = m->copies >= want, aborted = d->aborted;
    cudaEvent_t copied = m->copied;
    pthread_mutex_unlock(&d->mu);
    if (!ok) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: rank %d: Send to rank %d (message #%llu): the receiver "
                 "did not take the message", aborted ? "aborted" : "watchdog", rank,
                 call->args.peer, (unsigned long long)call->seq);
        cuda_ctx_set_error(ctx, aborted ? SIM_EABORTED : SIM_ETIMEDOUT, msg);
        return aborted ? SIM_EABORTED : SIM_ETIMEDOUT;
    }
    CUDA_CHECK(cudaStreamWaitEvent(ctx->ranks[rank].comm, copied, 0));
    return SIM_OK;
}

SimStatus cuda_devcoll_enqueue(CudaCtx *ctx, int rank, const SimCollCall *call,
                               cudaEvent_t ready, cudaEvent_t done, cudaEvent_t *tev) {
    CudaRank *cr = &ctx->ranks[rank];
    CUDA_CHECK(cudaSetDevice(cr->device));
    if (call->args.kind == SIM_COLL_SEND || call->args.kind == SIM_COLL_RECV) {
        SIM_CHECK(call->args.kind == SIM_COLL_SEND ? send_wait(ctx, rank, call)
                                                   : recv_copy(ctx, rank, &call->args));
        CUDA_CHECK(cudaEventRecord(done, cr->comm));
        return SIM_OK;
    }
    if (call->args.kind != SIM_COLL_BARRIER) { // a barrier is the host meeting alone
        const SimSched *s = &call->sched;
        // The comm stream starts when the compute stream has produced the data.
        CUDA_CHECK(cudaStreamWaitEvent(cr->comm, ready, 0));
        if (tev) // when the GPU starts the collective: its data exist
            CUDA_CHECK(cudaEventRecord(tev[0], cr->comm));
        SimStatus st = ensure_events(ctx, rank, s->nsteps + 1);
        if (st == SIM_OK)
            st = prepare(ctx, rank, call);
        if (st != SIM_OK) {
            cuda_devcoll_abort(ctx);
            return st;
        }
        SIM_CHECK(barrier(ctx, rank, call, -1)); // work buffers published, ev[0] recorded
        for (int t = 0; t < s->nsteps; t++) {
            st = run_step(ctx, rank, call, t, tev);
            if (st != SIM_OK) {
                cuda_devcoll_abort(ctx);
                return st;
            }
            SIM_CHECK(barrier(ctx, rank, call, t));
        }
        st = finish(ctx, rank, call);
        if (st != SIM_OK)
            return st;
    }
    CUDA_CHECK(cudaEventRecord(done, cr->comm));
    return SIM_OK;
}
