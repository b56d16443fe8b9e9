// backend_cuda/cuda_enqueue.c: one enqueuer thread per rank in a world of
// ddplab's device collectives (ranks sharing GPUs), as NCCL has its own
// host threads: the rank's launch hands a collective to it and returns.
//
// Why: a device collective is enqueued step by step, with a host barrier of
// all ranks between steps (cuda_devcoll.h), and the ranks share one CUDA
// context per GPU. On the rank's own thread that took as long as the GPU
// took to run the steps, and the rank's next op was only launched after
// them, so a DDP bucket's all-reduce could not run under the backward pass
// that follows it. Here the rank thread goes on at once with its compute
// stream while this thread puts the steps on the comm stream.
//
// Order: jobs are enqueued in the order launched (a FIFO per rank), so every
// rank's enqueuer reaches the steps' barriers in the same collective order
// as the host meeting did. Anything else the rank puts on its comm stream
// (point-to-point messages, a stream synchronisation) first drains the
// queue (cuda_enq_drain). A job's `done` event is recorded by this thread,
// so a wait first waits for the job to be enqueued (cuda_enq_wait): an event
// not yet recorded would read as complete.
#include <stdlib.h>

#include "cuda_internal.h" // defines: CudaCtx, CudaEnqJob, cuda_devcoll_enqueue

struct CudaEnq {
    CudaCtx *ctx;
    int rank;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;   // a job arrived, a job finished, or stop
    CudaEnqJob *head;    // FIFO of jobs not yet taken
    CudaEnqJob *tail;
    int busy;            // a job is being enqueued
    int stop;
};

static void finish_job(struct CudaEnq *q, CudaEnqJob *j, SimStatus st) {
    pthread_mutex_lock(&q->mu);
    j->st = st;
    j->finished = 1;
    q->busy = 0;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

static void *enq_main(void *arg) {
    struct CudaEnq *q = arg;
    CudaCtx *ctx = q->ctx;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (q->head == NULL && !q->stop)
            pthread_cond_wait(&q->cv, &q->mu);
        CudaEnqJob *j = q->head;
        if (j == NULL) { // stop, and nothing left
            pthread_mutex_unlock(&q->mu);
            return NULL;
        }
        q->head = j->next;
        if (q->head == NULL)
            q->tail = NULL;
        q->busy = 1;
        pthread_mutex_unlock(&q->mu);
        // Jobs still queued at stop are enqueued too: every rank submitted
        // them (they met), so the peers' enqueuers expect this one in their
        // barriers; after a failure those barriers return at once (aborted).
        SimStatus st = cuda_devcoll_enqueue(ctx, q->rank, j->call, j->ready, j->done, j->tev);
        if (st != SIM_OK)
            cuda_meet_abort(&ctx->meet); // peers must not start anything more
        finish_job(q, j, st);
    }
}

SimStatus cuda_enq_start(CudaCtx *ctx, int rank) {
    struct CudaEnq *q = calloc(1, sizeof *q);
    if (q == NULL)
        return SIM_ENOMEM;
    q->ctx = ctx;
    q->rank = rank;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    if (pthread_create(&q->tid, NULL, enq_main, q) != 0) {
        pthread_cond_destroy(&q->cv);
        pthread_mutex_destroy(&q->mu);
        free(q);
        cuda_ctx_set_error(ctx, SIM_ENOMEM, "cannot start a rank's enqueuer thread");
        return SIM_ENOMEM;
    }
    ctx->ranks[rank].enq = q;
    return SIM_OK;
}

void cuda_enq_stop(CudaCtx *ctx, int rank) {
    struct CudaEnq *q = ctx->ranks[rank].enq;
    if (q == NULL)
        return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->tid, NULL);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q);
    ctx->ranks[rank].enq = NULL;
}

void cuda_enq_submit(CudaCtx *ctx, int rank, CudaEnqJob *j) {
    struct CudaEnq *q = ctx->ranks[rank].enq;
    j->next = NULL;
    j->finished = 0;
    j->st = SIM_OK;
    pthread_mutex_lock(&q->mu);
    if (q->tail)
        q->tail->next = j;
    else
        q->head = j;
    q->tail = j;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

// The enqueuer's own barriers are under the watchdog and released by an
// abort, so these waits end.
SimStatus cuda_enq_wait(CudaCtx *ctx, int rank, CudaEnqJob *j) {
    struct CudaEnq *q = ctx->ranks[rank].enq;
    pthread_mutex_lock(&q->mu);
    while (!j->finished)
        pthread_cond_wait(&q->cv, &q->mu);
    SimStatus st = j->st;
    pthread_mutex_unlock(&q->mu);
    return st;
}

void cuda_enq_drain(CudaCtx *ctx, int rank) {
    struct CudaEnq *q = ctx->ranks[rank].enq;
    if (q == NULL)
        return;
    pthread_mutex_lock(&q->mu);
    while (q->head != NULL || q->busy)
        pthread_cond_wait(&q->cv, &q->mu);
    pthread_mutex_unlock(&q->mu);
}
