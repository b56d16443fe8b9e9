// backend_cuda/cuda_meet.c: the host-side rendezvous of the CUDA backend's
// rank threads, one per collective (all ranks) or per message (a sender and
// its receiver).
//
// Why the GPU backend needs a host rendezvous at all: NCCL itself would
// synchronise the ranks on the device, but (1) the simulated clock needs the
// latest arrival among the participants before the collective may report
// anything, (2) a rank that calls the wrong collective, or none, would leave
// its peers' NCCL kernels spinning forever, with nothing to diagnose it. So
// every rank posts what it is calling, the last one to arrive compares the
// posts, and only when they agree does any rank enqueue NCCL work. A rank
// that never arrives is reported by the watchdog, naming who is missing and
// where each missing rank is waiting instead.
//
// One mutex and one condition variable serve the whole world: there are at
// most a few GPUs per process and a meeting is a handful of instructions.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/dtype.h" // defines: sim_dtype_name, sim_redop_name
#include "coll/coll.h"  // defines: SimCollKind, sim_coll_title
#include "cuda_meet.h"  // defines: CudaMeet, CudaArrival, CudaPair

static void arrival_clear(CudaArrival *a) {
    memset(a, 0, sizeof *a);
    a->gen = CUDA_MEET_NONE;
    a->kind = -1;
}

SimStatus cuda_meet_init(CudaMeet *m, int nranks, double watchdog_s) {
    memset(m, 0, sizeof *m);
    m->nranks = nranks;
    m->watchdog_s = watchdog_s;
    m->slots = calloc((size_t)nranks, sizeof *m->slots);
    m->waiting = calloc((size_t)nranks, sizeof *m->waiting);
    m->pairs = calloc((size_t)nranks * (size_t)nranks, sizeof *m->pairs);
    if (m->slots == NULL || m->waiting == NULL || m->pairs == NULL) {
        cuda_meet_destroy(m);
        return SIM_ENOMEM;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&m->mu, NULL);
    m->ready = 1;
    cuda_meet_reset(m);
    return SIM_OK;
}

void cuda_meet_destroy(CudaMeet *m) {
    if (m->ready) {
        pthread_cond_destroy(&m->cv);
        pthread_mutex_destroy(&m->mu);
    }
    free(m->slots);
    free(m->waiting);
    free(m->pairs);
    memset(m, 0, sizeof *m);
}

void cuda_meet_reset(CudaMeet *m) {
    pthread_mutex_lock(&m->mu);
    m->arrived = 0;
    m->aborted = 0;
    m->why[0] = '\0';
    for (int r = 0; r < m->nranks; r++) {
        arrival_clear(&m->slots[r]);
        arrival_clear(&m->waiting[r]);
    }
    for (int i = 0; i < m->nranks * m->nranks; i++) {
        arrival_clear(&m->pairs[i].send);
        arrival_clear(&m->pairs[i].recv);
    }
    pthread_mutex_unlock(&m->mu);
}

void cuda_meet_abort(CudaMeet *m) {
    pthread_mutex_lock(&m->mu);
    m->aborted = 1;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

int cuda_meet_aborted(CudaMeet *m) {
    pthread_mutex_lock(&m->mu);
    int aborted = m->aborted;
    pthread_mutex_unlock(&m->mu);
    return aborted;
}

// ----------------------------------------------------------------------------
// Waiting with a watchdog

static struct timespec deadline_after(double s) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double whole = (double)(long long)s;
    t.tv_sec += (time_t)whole;
    t.tv_nsec += (long)((s - whole) * 1e9);
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec += 1;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

// One wait on the condition; returns 1 when the deadline has passed.
static int wait_once(CudaMeet *m, const struct timespec *deadline) {
    if (m->watchdog_s <= 0) {
        pthread_cond_wait(&m->cv, &m->mu);
        return 0;
    }
    return pthread_cond_timedwait(&m->cv, &m->mu, deadline) == ETIMEDOUT;
}

// "waiting in Send to rank 3 (message #0)", or "not in any collective".
static void describe_waiting(const CudaArrival *w, char *buf, size_t len) {
    if (w->kind < 0)
        snprintf(buf, len, "not in any collective");
    else if (w->kind == SIM_COLL_SEND)
        snprintf(buf, len, "waiting in Send to rank %d (message #%llu)", w->peer,
                 (unsigned long long)w->seq);
    else if (w->kind == SIM_COLL_RECV)
        snprintf(buf, len, "waiting in Recv from rank %d (message #%llu)", w->peer,
                 (unsigned long long)w->seq);
    else
        snprintf(buf, len, "waiting in %s (collective #%llu)",
                 sim_coll_title((SimCollKind)w->kind), (unsigned long long)w->seq);
}

// ----------------------------------------------------------------------------
// All ranks

// Compares every rank's post with rank 0's, in NCCL's argcheck phrasing.
static SimStatus check_all(const CudaMeet *m, char *why, size_t len) {
    const CudaArrival *z = &m->slots[0];
    const char *t = sim_coll_title((SimCollKind)z->kind);
    for (int r = 1; r < m->nranks; r++) {
        const CudaArrival *x = &m->slots[r];
        // The cpu backend's wording (cpu_rendezvous.c), so that a diagnosis
        // reads the same on both backends.
        unsigned long long seq = (unsigned long long)z->seq;
        if (x->kind != z->kind)
            snprintf(why, len, "collective #%llu: rank %d called %s, rank 0 called %s", seq, r,
                     sim_coll_title((SimCollKind)x->kind), t);
        else if (x->seq != z->seq)
            snprintf(why, len, "%s: rank %d is at #%llu, rank 0 at #%llu", t, r,
                     (unsigned long long)x->seq, seq);
        else if (x->count != z->count)
            snprintf(why, len, "%s #%llu: rank %d count %zu != rank 0 count %zu", t, seq, r,
                     x->count, z->count);
        else if (x->dtype != z->dtype)
            snprintf(why, len, "%s #%llu: rank %d dtype %s != rank 0 dtype %s", t, seq, r,
                     sim_dtype_name((SimDtype)x->dtype), sim_dtype_name((SimDtype)z->dtype));
        else if (sim_coll_is_reduction((SimCollKind)z->kind) && x->op != z->op)
            snprintf(why, len, "%s #%llu: rank %d op %s != rank 0 op %s", t, seq, r,
                     sim_redop_name((SimRedOp)x->op), sim_redop_name((SimRedOp)z->op));
        else if (sim_coll_has_root((SimCollKind)z->kind) && x->root != z->root)
            snprintf(why, len, "%s #%llu: rank %d root %d != rank 0 root %d", t, seq, r,
                     x->root, z->root);
        else
            continue;
        return SIM_EPROTO;
    }
    return SIM_OK;
}

static void describe_all_timeout(const CudaMeet *m, int rank, uint64_t gen, char *why,
                                 size_t len) {
    const CudaArrival *a = &m->slots[rank];
    int n = snprintf(why, len, "watchdog: rank %d waited %.1f s in %s (collective #%llu, "
                     "%zu %s); missing:", rank, m->watchdog_s,
                     sim_coll_title((SimCollKind)a->kind), (unsigned long long)a->seq,
                     a->count, sim_dtype_name((SimDtype)a->dtype));
    for (int r = 0; r < m->nranks && n > 0 && (size_t)n < len; r++) {
        if (m->slots[r].gen == gen)
            continue;
        char what[96];
        describe_waiting(&m->waiting[r], what, sizeof what);
        n += snprintf(why + n, len - (size_t)n, " rank %d (%s)", r, what);
    }
}

SimStatus cuda_meet_all(CudaMeet *m, int rank, const CudaArrival *a, double *start_sim,
                        char *why, size_t whylen) {
    pthread_mutex_lock(&m->mu);
    if (m->aborted) {
        pthread_mutex_unlock(&m->mu);
        snprintf(why, whylen, "rank %d: %s not started: another rank failed", rank,
                 sim_coll_title((SimCollKind)a->kind));
        return SIM_EABORTED;
    }
    uint64_t gen = m->gen;
    m->slots[rank] = *a;
    m->slots[rank].gen = gen;
    m->waiting[rank] = m->slots[rank];
    if (++m->arrived == m->nranks) {
        // Last to arrive: compare, and release everyone with the result.
        m->met_status = check_all(m, m->why, sizeof m->why);
        m->met_start = m->slots[0].arrive_sim;
        for (int r = 1; r < m->nranks; r++)
            if (m->slots[r].arrive_sim > m->met_start)
                m->met_start = m->slots[r].arrive_sim;
        if (m->met_status != SIM_OK)
            m->aborted = 1; // a violation stops every later collective too
        m->arrived = 0;
        m->gen++;
        pthread_cond_broadcast(&m->cv);
    } else {
        struct timespec dl = deadline_after(m->watchdog_s);
        while (m->gen == gen && !m->aborted) {
            if (wait_once(m, &dl) && m->gen == gen && !m->aborted) {
                describe_all_timeout(m, rank, gen, m->why, sizeof m->why);
                snprintf(why, whylen, "%s", m->why);
                m->aborted = 1;
                arrival_clear(&m->waiting[rank]);
                pthread_cond_broadcast(&m->cv);
                pthread_mutex_unlock(&m->mu);
                return SIM_ETIMEDOUT;
            }
        }
        if (m->gen == gen) { // released by an abort, not by the last arrival
            arrival_clear(&m->waiting[rank]);
            pthread_mutex_unlock(&m->mu);
            snprintf(why, whylen, "rank %d: %s (collective #%llu) aborted: another rank "
                     "failed", rank, sim_coll_title((SimCollKind)a->kind),
                     (unsigned long long)a->seq);
            return SIM_EABORTED;
        }
    }
    // The next meeting cannot complete before this rank posts again, so the
    // result of this one is still in place.
    arrival_clear(&m->waiting[rank]);
    SimStatus st = (SimStatus)m->met_status;
    *start_sim = m->met_start;
    if (st != SIM_OK)
        snprintf(why, whylen, "%s", m->why);
    pthread_mutex_unlock(&m->mu);
    return st;
}

// ----------------------------------------------------------------------------
// A sender and its receiver

static SimStatus check_pair(const CudaPair *p, int src, int dst, char *why, size_t len) {
    const CudaArrival *s = &p->send, *r = &p->recv;
    if (s->seq != r->seq)
        snprintf(why, len, "Send/Recv : rank %d sends message #%llu to rank %d, but rank %d "
                 "receives message #%llu from rank %d", src, (unsigned long long)s->seq, dst,
                 dst, (unsigned long long)r->seq, src);
    else if (s->count != r->count || s->dtype != r->dtype)
        snprintf(why, len, "Send/Recv : rank %d sends %zu %s to rank %d, but rank %d "
                 "receives %zu %s", src, s->count, sim_dtype_name((SimDtype)s->dtype), dst,
                 dst, r->count, sim_dtype_name((SimDtype)r->dtype));
    else
        return SIM_OK;
    return SIM_EPROTO;
}

static void describe_pair_timeout(const CudaMeet *m, int rank, const CudaArrival *a,
                                  char *why, size_t len) {
    int send = a->kind == SIM_COLL_SEND;
    char what[96];
    describe_waiting(&m->waiting[a->peer], what, sizeof what);
    snprintf(why, len, "watchdog: rank %d waited %.1f s in %s %s rank %d (message #%llu, "
             "%zu %s); rank %d never posted the matching %s: it is %s", rank,
             m->watchdog_s, send ? "Send" : "Recv", send ? "to" : "from", a->peer,
             (unsigned long long)a->seq, a->count, sim_dtype_name((SimDtype)a->dtype),
             a->peer, send ? "Recv" : "Send", what);
}

SimStatus cuda_meet_pair(CudaMeet *m, int rank, const CudaArrival *a, double *start_sim,
                         char *why, size_t whylen) {
    int send = a->kind == SIM_COLL_SEND;
    int src = send ? rank : a->peer, dst = send ? a->peer : rank;
    CudaPair *p = &m->pairs[(size_t)src * (size_t)m->nranks + (size_t)dst];
    CudaArrival *mine = send ? &p->send : &p->recv;
    const CudaArrival *other = send ? &p->recv : &p->send;

    pthread_mutex_lock(&m->mu);
    if (m->aborted) {
        pthread_mutex_unlock(&m->mu);
        snprintf(why, whylen, "rank %d: %s not started: another rank failed", rank,
                 send ? "Send" : "Recv");
        return SIM_EABORTED;
    }
    *mine = *a;
    mine->gen = 0; // posted
    m->waiting[rank] = *a;
    if (other->gen != CUDA_MEET_NONE) {
        p->met_status = check_pair(p, src, dst, p->why, sizeof p->why);
        p->met_start = p->send.arrive_sim > p->recv.arrive_sim ? p->send.arrive_sim
                                                               : p->recv.arrive_sim;
        if (p->met_status != SIM_OK)
            m->aborted = 1;
        arrival_clear(&p->send);
        arrival_clear(&p->recv);
        p->meetings++;
        pthread_cond_broadcast(&m->cv);
    } else {
        uint64_t k = p->meetings;
        struct timespec dl = deadline_after(m->watchdog_s);
        while (p->meetings == k && !m->aborted) {
            if (wait_once(m, &dl) && p->meetings == k && !m->aborted) {
                describe_pair_timeout(m, rank, a, why, whylen);
                snprintf(m->why, sizeof m->why, "%s", why);
                m->aborted = 1;
                arrival_clear(mine);
                arrival_clear(&m->waiting[rank]);
                pthread_cond_broadcast(&m->cv);
                pthread_mutex_unlock(&m->mu);
                return SIM_ETIMEDOUT;
            }
        }
        if (p->meetings == k) {
            arrival_clear(mine);
            arrival_clear(&m->waiting[rank]);
            pthread_mutex_unlock(&m->mu);
            snprintf(why, whylen, "rank %d: %s (message #%llu) aborted: another rank failed",
                     rank, send ? "Send" : "Recv", (unsigned long long)a->seq);
            return SIM_EABORTED;
        }
    }
    arrival_clear(&m->waiting[rank]);
    SimStatus st = (SimStatus)p->met_status;
    *start_sim = p->met_start;
    if (st != SIM_OK)
        snprintf(why, whylen, "%s", p->why);
    pthread_mutex_unlock(&m->mu);
    return st;
}
