// sim/engine/comm.c: the wrappers every collective goes through (validate, clock,
// backend, trace) and the step reporting that backends call.
#include "engine/comm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm_fault.h" // defines: sim_comm_start, sim_comm_fault_launch
#include "engine/comm_price.h" // defines: sim_price_algo, sim_price_coll

static double max2(double a, double b) {
    return a > b ? a : b;
}

static void rank_error(SimRank *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
}

// ----------------------------------------------------------------------------
// trace helpers

static void trace_put(SimRank *r, const SimEvent *ev) {
    if (r->world->trace)
        (void)sim_trace_append(r->world->trace, ev); // a full trace counts drops
}

static void event_from_call(SimEvent *ev, const SimCollCall *call, SimEventKind kind) {
    memset(ev, 0, sizeof *ev);
    ev->rank = call->rank->rank;
    ev->stream = SIM_STREAM_COMM;
    ev->kind = (int16_t)kind;
    ev->name = sim_coll_title(call->args.kind);
    ev->coll = (int16_t)call->args.kind;
    ev->algo = (int16_t)call->args.algo;
    ev->dtype = (int16_t)call->args.dtype;
    ev->redop = (int16_t)call->args.op;
    ev->seq = call->seq;
    ev->count = call->args.count;
    ev->step = ev->nsteps = ev->chunk = ev->src = ev->dst = -1;
}

// Emits the step event and one event per incoming transfer of that step.
static void trace_step(SimCollCall *call, int step, double sim0, double sim1,
                       double wall0, double wall1) {
    SimRank *r = call->rank;
    const SimSched *s = &call->sched;
    size_t esize = sim_dtype_size(call->args.dtype);
    SimXfer local[64], *x = local;
    int n = sim_sched_incoming(s, r->rank, step, NULL, 0);
    if (n > 64 && (x = malloc((size_t)n * sizeof *x)) == NULL)
        n = 64, x = local; // out of memory: trace the first transfers only
    n = sim_sched_incoming(s, r->rank, step, x, n < 64 ? 64 : n);
    if (n > 64 && x == local)
        n = 64;

    SimEvent ev;
    event_from_call(&ev, call, SIM_EV_COLL_STEP);
    ev.label = sim_sched_phase_label(s, step);
    ev.step = step;
    ev.nsteps = s->nsteps;
    ev.sim_start = sim0, ev.sim_end = sim1;
    ev.wall_start = wall0 - r->world->wall_epoch;
    ev.wall_end = wall1 - r->world->wall_epoch;
    for (int i = 0; i < n; i++)
        ev.bytes += x[i].count * esize;
    trace_put(r, &ev);

    for (int i = 0; i < n; i++) {
        SimEvent xe = ev;
        xe.kind = SIM_EV_XFER;
        xe.chunk = x[i].chunk;
        xe.src = x[i].src;
        xe.dst = x[i].dst;
        xe.count = x[i].count;
        xe.bytes = x[i].count * esize;
        xe.label = x[i].op == SIM_XFER_REDUCE ? "reduce" : "copy";
        trace_put(r, &xe);
    }
    if (x != local)
        free(x);
}

void sim_coll_report_step(SimCollCall *call, int step, double wall_start, double wall_end) {
    if (call->rank->untimed) // the simulator's own exchange: not part of the run
        return;
    if (call->steps_reported == 0)
        call->step_cursor = call->start_sim;
    SimWorld *w = call->rank->world;
    double dur = sim_cost_step(&w->cost, &call->sched, step, sim_dtype_size(call->args.dtype));
    dur = sim_comm_fault_step_cost(call, step, dur); // --fault slow-link
    double t0 = call->step_cursor;
    call->step_cursor = t0 + dur;
    call->steps_reported++;
    if (w->trace)
        trace_step(call, step, t0, t0 + dur, wall_start, wall_end);
}

// ----------------------------------------------------------------------------
// launch and wait

static uint64_t *p2p_counter(SimRank *r, const SimCollArgs *a) {
    int R = r->world->cfg.nranks;
    if (r->p2p_seq == NULL && (r->p2p_seq = calloc(2 * (size_t)R, sizeof(uint64_t))) == NULL)
        return NULL;
    return &r->p2p_seq[(a->kind == SIM_COLL_SEND ? 0 : R) + a->peer];
}

// Simulated duration of a call once its start is known.
static double call_cost(SimRank *r, const SimCollCall *call) {
    const SimCost *c = &r->world->cost;
    const SimCollArgs *a = &call->args;
    if (a->kind == SIM_COLL_SEND || a->kind == SIM_COLL_RECV) {
        int src = a->kind == SIM_COLL_SEND ? r->rank : a->peer;
        int dst = a->kind == SIM_COLL_SEND ? a->peer : r->rank;
        double t = sim_cost_p2p(c, src, dst, a->count * sim_dtype_size(a->dtype));
        return sim_comm_fault_p2p_cost(r, call, src, dst, t); // --fault slow-link
    }
    double t = sim_price_coll(r, &call->sched, sim_dtype_size(a->dtype));
    return sim_comm_fault_coll_cost(r, call, t); // --fault slow-link
}

// sim_coll_args_valid, except that a phantom world's buffers may be NULL
// (it holds no data, and its backend moves none): they are left out of the
// check, everything else (dtype, op, root, peer, algorithm) is checked.
static int args_valid(SimWorld *w, const SimCollArgs *a, int rank, char *why, size_t len) {
    if (!w->cfg.phantom)
        return sim_coll_args_valid(a, w->cfg.nranks, rank, why, len);
    SimCollArgs shape = *a;
    shape.sendbuf = shape.recvbuf = w; // any address but NULL; only checked, never used
    return sim_coll_args_valid(&shape, w->cfg.nranks, rank, why, len);
}

// A failed collective as a FAULT event (sim/trace/trace.h): the collective's fields,
// the rank's message as its name (interned) and the status as its label, at
// the simulated time the rank entered the collective.
static void trace_fault(SimRank *r, const SimCollHandle *h, SimStatus st) {
    SimWorld *w = r->world;
    if (w->trace == NULL)
        return;
    SimEvent ev;
    event_from_call(&ev, &h->call, SIM_EV_FAULT);
    ev.stream = SIM_STREAM_COMM;
    const char *msg = sim_trace_intern(w->trace, r->error);
    ev.name = msg ? msg : sim_coll_title(h->call.args.kind);
    ev.label = sim_strerror(st);
    ev.sim_start = ev.sim_end = h->call.start_sim;
    ev.wall_start = h->wall_start - w->wall_epoch;
    ev.wall_end = sim_wall_now() - w->wall_epoch;
    ev.bytes = h->call.args.count * sim_dtype_size(h->call.args.dtype);
    trace_put(r, &ev);
}

SimStatus sim_coll_launch(SimRank *r, const SimCollArgs *a, SimCollHandle *h) {
    SimWorld *w = r->world;
    memset(h, 0, sizeof *h);
    char why[256];
    if (!args_valid(w, a, r->rank, why, sizeof why)) {
        rank_error(r, "%s", why);
        return SIM_EINVAL;
    }
    SimCollCall *call = &h->call;
    call->args = *a;
    call->args.algo = sim_price_algo(r, a->kind, a->algo, w->cfg.nranks, a->count,
                                     sim_dtype_size(a->dtype));
    call->rank = r;
    sim_sched_init(&call->sched, a->kind, call->args.algo, w->cfg.nranks, a->count, a->root);
    // the step's collectives as --fault counts them (sim/engine/fault.h), p2p aside
    if (a->kind != SIM_COLL_SEND && a->kind != SIM_COLL_RECV && r->step > 0) {
        int k = r->coll_in_step++;
        if (w->cfg.faults)
            return sim_comm_fault_launch(r, h, k);
    }
    return sim_comm_start(r, h);
}

SimStatus sim_comm_start(SimRank *r, SimCollHandle *h) {
    SimWorld *w = r->world;
    SimCollCall *call = &h->call;
    const SimCollArgs *a = &call->args;
    if (a->kind == SIM_COLL_SEND || a->kind == SIM_COLL_RECV) {
        uint64_t *ctr = p2p_counter(r, a);
        if (ctr == NULL) {
            rank_error(r, "out of memory for point-to-point counters");
            return SIM_ENOMEM;
        }
        call->seq = (*ctr)++;
    } else {
        call->seq = r->coll_seq++;
    }
    call->arrive_sim = max2(r->clock[SIM_STREAM_COMM], r->clock[SIM_STREAM_COMPUTE]);
    call->start_sim = call->arrive_sim;
    h->wall_start = sim_wall_now();
    SimStatus st = w->ops->coll_launch(w->ctx, r->rank, h);
    if (st != SIM_OK) {
        rank_error(r, "%s #%llu failed: %s", sim_coll_title(a->kind),
                   (unsigned long long)call->seq, sim_strerror(st));
        if (st == SIM_ETIMEDOUT || st == SIM_EPROTO) // diagnosed, not a rank torn down
            trace_fault(r, h, st);
        return st;
    }
    h->launched = 1;
    h->sim_end = call->start_sim + call_cost(r, call);
    r->clock[SIM_STREAM_COMM] = h->sim_end;
    // On a device whose own cores run the collective (a CPU rank's thread
    // moves every chunk itself) nothing else computes meanwhile: the compute
    // stream is held until the collective ends.
    if (sim_cost_device(&w->cost)->coll_on_compute)
        r->clock[SIM_STREAM_COMPUTE] = max2(r->clock[SIM_STREAM_COMPUTE], h->sim_end);
    return SIM_OK;
}

SimStatus sim_coll_wait(SimRank *r, SimCollHandle *h) {
    SimWorld *w = r->world;
    if (!h->launched)
        return SIM_EINVAL;
    if (h->injected) { // --fault skip or reorder (sim/engine/comm_fault.h)
        SimStatus fs = sim_comm_fault_wait(r, h);
        if (fs != SIM_OK || !h->launched)
            return fs;
    }
    SimStatus st = h->done ? SIM_OK : w->ops->coll_wait(w->ctx, r->rank, h);
    h->launched = 0;
    if (st != SIM_OK) {
        rank_error(r, "waiting for %s #%llu failed: %s", sim_coll_title(h->call.args.kind),
                   (unsigned long long)h->call.seq, sim_strerror(st));
        if (st == SIM_ETIMEDOUT || st == SIM_EPROTO) // diagnosed, not a rank torn down
            trace_fault(r, h, st);
        return st;
    }
    h->done = 1;
    r->clock[SIM_STREAM_COMPUTE] = max2(r->clock[SIM_STREAM_COMPUTE], h->sim_end);
    if (w->trace) {
        SimEvent ev;
        event_from_call(&ev, &h->call, SIM_EV_COLL);
        ev.sim_start = h->call.start_sim;
        ev.sim_end = h->sim_end;
        ev.wall_start = h->wall_start - w->wall_epoch;
        ev.wall_end = sim_wall_now() - w->wall_epoch;
        if (h->call.gpu_wall_end > 0.0) { // measured on the device (CUDA events)
            ev.wall_start = h->call.gpu_wall_start - w->wall_epoch;
            ev.wall_end = h->call.gpu_wall_end - w->wall_epoch;
        }
        ev.nsteps = h->call.sched.nsteps;
        ev.bytes = h->call.args.count * sim_dtype_size(h->call.args.dtype);
        if (h->call.args.kind == SIM_COLL_SEND || h->call.args.kind == SIM_COLL_RECV) {
            ev.src = h->call.args.kind == SIM_COLL_SEND ? r->rank : h->call.args.peer;
            ev.dst = h->call.args.kind == SIM_COLL_SEND ? h->call.args.peer : r->rank;
        }
        trace_put(r, &ev);
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// blocking forms

static SimStatus run_blocking(SimRank *r, const SimCollArgs *a) {
    SimCollHandle h;
    SIM_CHECK(sim_coll_launch(r, a, &h));
    return sim_coll_wait(r, &h);
}

SimStatus sim_all_reduce(SimRank *r, const void *send, void *recv, size_t count,
                         SimDtype dt, SimRedOp op, SimAlgo algo) {
    SimCollArgs a = {SIM_COLL_ALL_REDUCE, algo, dt, op, send, recv, count, 0, -1};
    return run_blocking(r, &a);
}

SimStatus sim_reduce_scatter(SimRank *r, const void *send, void *recv, size_t recvcount,
                             SimDtype dt, SimRedOp op, SimAlgo algo) {
    SimCollArgs a = {SIM_COLL_REDUCE_SCATTER, algo, dt, op, send, recv, recvcount, 0, -1};
    return run_blocking(r, &a);
}

SimStatus sim_all_gather(SimRank *r, const void *send, void *recv, size_t sendcount,
                         SimDtype dt, SimAlgo algo) {
    SimCollArgs a = {SIM_COLL_ALL_GATHER, algo, dt, SIM_SUM, send, recv, sendcount, 0, -1};
    return run_blocking(r, &a);
}

SimStatus sim_broadcast(SimRank *r, const void *send, void *recv, size_t count,
                        SimDtype dt, int root, SimAlgo algo) {
    SimCollArgs a = {SIM_COLL_BROADCAST, algo, dt, SIM_SUM, send, recv, count, root, -1};
    return run_blocking(r, &a);
}

SimStatus sim_reduce(SimRank *r, const void *send, void *recv, size_t count,
                     SimDtype dt, SimRedOp op, int root, SimAlgo algo) {
    SimCollArgs a = {SIM_COLL_REDUCE, algo, dt, op, send, recv, count, root, -1};
    return run_blocking(r, &a);
}

SimStatus sim_gather(SimRank *r, const void *send, void *recv, size_t sendcount,
                     SimDtype dt, int root) {
    SimCollArgs a = {SIM_COLL_GATHER, SIM_ALGO_AUTO, dt, SIM_SUM, send, recv, sendcount, root, -1};
    return run_blocking(r, &a);
}

SimStatus sim_scatter(SimRank *r, const void *send, void *recv, size_t recvcount,
                      SimDtype dt, int root) {
    SimCollArgs a = {SIM_COLL_SCATTER, SIM_ALGO_AUTO, dt, SIM_SUM, send, recv, recvcount, root, -1};
    return run_blocking(r, &a);
}

SimStatus sim_send(SimRank *r, const void *buf, size_t count, SimDtype dt, int peer) {
    SimCollArgs a = {SIM_COLL_SEND, SIM_ALGO_AUTO, dt, SIM_SUM, buf, NULL, count, 0, peer};
    return run_blocking(r, &a);
}

SimStatus sim_recv(SimRank *r, void *buf, size_t count, SimDtype dt, int peer) {
    SimCollArgs a = {SIM_COLL_RECV, SIM_ALGO_AUTO, dt, SIM_SUM, NULL, buf, count, 0, peer};
    return run_blocking(r, &a);
}

SimStatus sim_barrier(SimRank *r) {
    SimCollArgs a = {SIM_COLL_BARRIER, SIM_ALGO_AUTO, SIM_FP32, SIM_SUM, NULL, NULL, 0, 0, -1};
    return run_blocking(r, &a);
}

// ----------------------------------------------------------------------------
// the simulator's own exchange

// An all-gather (every rank gets everything) or a gather to rank 0 (only
// its recv is written) of `bytes` per rank, run by the backend on buffers of
// its own, off the clocks, the trace and the collectives' numbering.
static SimStatus untimed(SimRank *r, SimCollKind kind, const void *send, void *recv,
                         size_t bytes) {
    SimWorld *w = r->world;
    int R = w->cfg.nranks;
    int gets = kind == SIM_COLL_ALL_GATHER || r->rank == 0;
    if (R == 1 || w->cfg.represent) { // every rank is this one
        for (int k = 0; gets && k < R; k++)
            memcpy((char *)recv + (size_t)k * bytes, send, bytes);
        return SIM_OK;
    }
    if (w->cfg.phantom) {
        rank_error(r, "an exchange of host data needs storage; a phantom world has none");
        return SIM_ENOTSUP;
    }
    // whole int64 words, in the backend's memory (device memory on a GPU)
    size_t count = (bytes + 7) / 8, sz = count * 8, all = gets ? sz * (size_t)R : 0;
    void *dsend = w->ops->alloc(w->ctx, r->rank, sz + 8);
    void *drecv = gets ? w->ops->alloc(w->ctx, r->rank, all + 8) : NULL;
    char *host = calloc((all > sz ? all : sz) + 8, 1);
    SimStatus st = dsend && (drecv || !gets) && host ? SIM_OK : SIM_ENOMEM;
    if (st == SIM_OK) {
        memcpy(host, send, bytes);
        st = w->ops->copy_to_device(w->ctx, r->rank, dsend, host, sz);
    }
    SimCollHandle h;
    memset(&h, 0, sizeof h);
    SimCollCall *call = &h.call;
    call->args = (SimCollArgs){kind, SIM_ALGO_AUTO, SIM_INT64, SIM_SUM, dsend, drecv, count, 0,
                               -1};
    call->args.algo = sim_cost_resolve_algo(&w->cost, kind, SIM_ALGO_AUTO, R, count, 8);
    call->rank = r;
    sim_sched_init(&call->sched, kind, call->args.algo, R, count, 0);
    // Not counted: the run's next collective keeps the number it would have
    // had. Every rank uses the same one, which is all the protocol check asks.
    call->seq = r->coll_seq;
    call->arrive_sim = call->start_sim = sim_rank_now(r);
    if (st == SIM_OK) {
        r->untimed = 1; // its steps leave no trace event
        st = w->ops->coll_launch(w->ctx, r->rank, &h);
        if (st == SIM_OK && !h.done)
            st = w->ops->coll_wait(w->ctx, r->rank, &h);
        r->untimed = 0;
    }
    if (st == SIM_OK && gets)
        st = w->ops->copy_to_host(w->ctx, r->rank, host, drecv, all);
    for (int k = 0; st == SIM_OK && gets && k < R; k++)
        memcpy((char *)recv + (size_t)k * bytes, host + (size_t)k * sz, bytes);
    if (st != SIM_OK && r->error[0] == '\0')
        rank_error(r, "exchanging host data between the ranks failed: %s", sim_strerror(st));
    if (dsend)
        w->ops->free(w->ctx, r->rank, dsend);
    if (drecv)
        w->ops->free(w->ctx, r->rank, drecv);
    free(host);
    return st;
}

SimStatus sim_all_gather_untimed(SimRank *r, const void *send, void *recv, size_t bytes) {
    return untimed(r, SIM_COLL_ALL_GATHER, send, recv, bytes);
}

SimStatus sim_gather_untimed(SimRank *r, const void *send, void *recv, size_t bytes) {
    return untimed(r, SIM_COLL_GATHER, send, recv, bytes);
}

void sim_rank_compute(SimRank *r, const char *name, double seconds) {
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_COMPUTE, SIM_STREAM_COMPUTE, name, NULL,
                   r->clock[SIM_STREAM_COMPUTE]);
    seconds = sim_comm_fault_compute(r, seconds); // --fault slow-rank
    ev.sim_end = ev.sim_start + (seconds > 0 ? seconds : 0);
    r->clock[SIM_STREAM_COMPUTE] = ev.sim_end;
    trace_put(r, &ev);
}
