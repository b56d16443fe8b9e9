// backend_cpu/cpu_p2p.c: point-to-point send and recv between two ranks.
//
// A send is posted at launch: a message naming the sender's buffer goes into
// the receiver's inbox, and the launch returns (so a rank can post a send and
// then receive, as in an exchange with a neighbour). The receiver takes the
// oldest message from that sender (messages between a pair never overtake
// each other), checks that count and dtype agree, and copies straight out of
// the sender's buffer. The sender's wait returns when the receiver is done
// with the buffer, which then belongs to the caller again. A mismatch fails
// both sides with SIM_EPROTO; waits are timed by the watchdog like any other.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

// ----------------------------------------------------------------------------
// the inbox (callers hold inbox_lock)

static void inbox_append(CpuRank *r, CpuMsg *m) {
    m->next = NULL;
    if (r->inbox_tail)
        r->inbox_tail->next = m;
    else
        r->inbox_head = m;
    r->inbox_tail = m;
}

// Unlinks and returns the oldest message from src, or NULL.
static CpuMsg *inbox_take(CpuRank *r, int src) {
    CpuMsg *prev = NULL;
    for (CpuMsg *m = r->inbox_head; m; prev = m, m = m->next) {
        if (m->src != src)
            continue;
        if (prev)
            prev->next = m->next;
        else
            r->inbox_head = m->next;
        if (r->inbox_tail == m)
            r->inbox_tail = prev;
        m->taken = 1;
        return m;
    }
    return NULL;
}

static void inbox_remove(CpuRank *r, CpuMsg *m) {
    CpuMsg *prev = NULL;
    for (CpuMsg *q = r->inbox_head; q; prev = q, q = q->next) {
        if (q != m)
            continue;
        if (prev)
            prev->next = q->next;
        else
            r->inbox_head = q->next;
        if (r->inbox_tail == q)
            r->inbox_tail = prev;
        return;
    }
}

// ----------------------------------------------------------------------------
// send

SimStatus cpu_p2p_send_post(CpuCtx *c, int me, SimCollHandle *h) {
    SimCollCall *call = &h->call;
    const SimCollArgs *a = &call->args;
    if (cpu_is_aborted(c))
        return SIM_EABORTED;
    CpuMsg *m = calloc(1, sizeof *m);
    if (m == NULL)
        return SIM_ENOMEM;
    m->src = me;
    m->seq = call->seq;
    m->count = a->count;
    m->dtype = a->dtype;
    m->buf = a->sendbuf;
    m->arrive_sim = call->arrive_sim;
    CpuRank *dst = &c->ranks[a->peer];
    pthread_mutex_lock(&dst->inbox_lock);
    inbox_append(dst, m);
    pthread_mutex_unlock(&dst->inbox_lock);
    cpu_word_bump(&dst->inbox_posts);
    cpu_fr_enter(&c->ranks[me], call);
    call->start_sim = call->arrive_sim;
    h->impl = m;
    return SIM_OK;
}

// Waits until the receiver has set m->done, ignoring aborts (used only once
// the receiver has taken the message, when it is a memcpy away from done).
static void wait_done_plain(CpuRank *r, CpuMsg *m) {
    for (;;) {
        uint32_t seen = atomic_load_explicit(&r->p2p_acks.value, memory_order_acquire);
        if (atomic_load_explicit(&m->done, memory_order_acquire))
            return;
        cpu_wait_reach_plain(&r->p2p_acks, seen + 1);
    }
}

SimStatus cpu_p2p_send_wait(CpuCtx *c, int me, SimCollHandle *h) {
    CpuMsg *m = h->impl;
    CpuRank *r = &c->ranks[me];
    SimCollCall *call = &h->call;
    if (m == NULL)
        return SIM_EINVAL; // never posted
    cpu_fr_enter(r, call);
    cpu_fr_set(r, CPU_FR_P2P_WAIT, -1, call->args.peer);
    SimStatus st = SIM_OK;
    for (;;) {
        uint32_t seen = atomic_load_explicit(&r->p2p_acks.value, memory_order_acquire);
        if (atomic_load_explicit(&m->done, memory_order_acquire))
            break;
        st = cpu_wait_reach(c, me, &r->p2p_acks, seen + 1);
        if (st != SIM_OK)
            break;
    }
    if (st != SIM_OK) {
        // The receiver may be copying from our buffer right now: if it took
        // the message, let it finish; otherwise withdraw the message.
        CpuRank *dst = &c->ranks[call->args.peer];
        pthread_mutex_lock(&dst->inbox_lock);
        int taken = m->taken;
        if (!taken)
            inbox_remove(dst, m);
        pthread_mutex_unlock(&dst->inbox_lock);
        if (taken)
            wait_done_plain(r, m);
    } else {
        st = m->status;
        if (m->recv_arrive_sim > call->start_sim)
            call->start_sim = m->recv_arrive_sim;
        cpu_fr_done(r, call);
    }
    free(m);
    h->impl = NULL;
    return st;
}

// ----------------------------------------------------------------------------
// recv

// Finishes with m: records the outcome, then hands it back to its sender.
// After the store of done the sender may free m at any moment.
static void msg_finish(CpuCtx *c, CpuMsg *m, SimStatus st, double recv_arrive) {
    int src = m->src;
    m->status = st;
    m->recv_arrive_sim = recv_arrive;
    atomic_store_explicit(&m->done, 1, memory_order_release);
    cpu_word_bump(&c->ranks[src].p2p_acks);
}

SimStatus cpu_p2p_recv(CpuCtx *c, int me, SimCollHandle *h) {
    SimCollCall *call = &h->call;
    const SimCollArgs *a = &call->args;
    CpuRank *r = &c->ranks[me];
    if (cpu_is_aborted(c))
        return SIM_EABORTED;
    cpu_fr_enter(r, call);
    CpuMsg *m;
    for (;;) {
        uint32_t seen = atomic_load_explicit(&r->inbox_posts.value, memory_order_acquire);
        pthread_mutex_lock(&r->inbox_lock);
        m = inbox_take(r, a->peer);
        pthread_mutex_unlock(&r->inbox_lock);
        if (m)
            break;
        cpu_fr_set(r, CPU_FR_P2P_WAIT, -1, a->peer);
        SIM_CHECK(cpu_wait_reach(c, me, &r->inbox_posts, seen + 1));
    }
    call->start_sim = m->arrive_sim > call->arrive_sim ? m->arrive_sim : call->arrive_sim;
    if (m->count != a->count || m->dtype != a->dtype) {
        char msg[256];
        unsigned long long seq = (unsigned long long)m->seq;
        if (m->count != a->count)
            snprintf(msg, sizeof msg,
                     "Send/Recv #%llu from rank %d to rank %d: recv count %zu != send count %zu",
                     seq, m->src, me, a->count, m->count);
        else
            snprintf(msg, sizeof msg,
                     "Send/Recv #%llu from rank %d to rank %d: recv dtype %s != send dtype %s",
                     seq, m->src, me, sim_dtype_name(a->dtype), sim_dtype_name(m->dtype));
        cpu_error_record(c, msg);
        msg_finish(c, m, SIM_EPROTO, call->arrive_sim);
        cpu_abort_raise(c);
        return SIM_EPROTO;
    }
    if (a->count > 0 && !c->phantom) // a phantom world moves no data
        memcpy(a->recvbuf, m->buf, a->count * sim_dtype_size(a->dtype));
    msg_finish(c, m, SIM_OK, call->arrive_sim);
    cpu_fr_done(r, call);
    return SIM_OK;
}
