// sim/engine/comm_fault.c: the collective-level faults of `--fault` (sim/engine/fault.h),
// applied where every collective passes (sim_coll_launch / sim_coll_wait)
// and where every transfer and compute op is priced.
//
//   skip      the call never reaches the backend and takes no sequence
//             number: the handle is done, its wait returns at once and
//             traces no collective. The rank's later calls pair with the
//             peers' earlier ones, as with NCCL: the CPU backend's protocol
//             check names the first pair whose sizes differ, or the peers
//             wait in their last collective until the watchdog.
//   mismatch  the call goes to the backend with count - 1 elements (the
//             buffers stay large enough) or as a broadcast from rank 0 with
//             the same count and buffers (a barrier, or a call of 0
//             elements, always so; a broadcast from rank 0 becomes one from
//             rank 1). Where the broadcast's buffers would not be valid (a
//             reduce's NULL recvbuf off the root) it falls back to count.
//   reorder   the K-th call is held back (pending, no sequence number) and
//             given to the backend right after the (K+1)-th. If the rank
//             waits for the K-th first (a blocking call), it is launched at
//             that wait: nothing to swap, and the event says so.
//   crash     the rank dies as it reaches the call: SimBackendOps.rank_crash,
//             then SIM_ECRASHED with a message naming the rank and the call.
//   slow-link every transfer touching the rank costs F times its latency and
//             its bytes / bandwidth; a step costs the most any rank needs
//             for its transfers in it (sim/cost/cost.h), so a ring step is as
//             slow as its slowest transfer.
//   slow-rank every compute op of the rank costs F times as much.
#include "engine/comm_fault.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/fault.h" // defines: SimFaultPlan, sim_fault_at_coll, sim_fault_link_factor

static const SimFaultPlan *plan_of(const SimRank *r) {
    return r->world->cfg.faults;
}

static double max2(double a, double b) {
    return a > b ? a : b;
}

// "AllReduce #5 (4608 x fp32)", "Barrier #2": the call as it is (or would
// be) numbered seq.
static void call_text(const SimCollCall *c, uint64_t seq, char *buf, size_t n) {
    const SimCollArgs *a = &c->args;
    if (a->kind == SIM_COLL_BARRIER)
        snprintf(buf, n, "%s #%llu", sim_coll_title(a->kind), (unsigned long long)seq);
    else
        snprintf(buf, n, "%s #%llu (%zu x %s)", sim_coll_title(a->kind), (unsigned long long)seq,
                 a->count, sim_dtype_name(a->dtype));
}

// ----------------------------------------------------------------------------
// the "injected" event

// Fault f's one event on rank r (later calls for the same fault do nothing):
// SIM_EV_FAULT, label "injected", name "fault SPEC: " + the description
// (interned), at simulated time `at`; with the call's fields when call is
// not NULL (on the comm stream), else on the compute stream.
static void injected(SimRank *r, const SimFault *f, const SimCollCall *call, double at,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void injected(SimRank *r, const SimFault *f, const SimCollCall *call, double at,
                     const char *fmt, ...) {
    uint32_t bit = 1u << (unsigned)(f - plan_of(r)->f);
    if (r->fault_shown & bit)
        return;
    r->fault_shown |= bit;
    SimTrace *tr = r->world->trace;
    if (tr == NULL)
        return;
    char text[512];
    int n = snprintf(text, sizeof text, "fault %s: ", f->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    const char *name = sim_trace_intern(tr, text);
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_FAULT, call ? SIM_STREAM_COMM : SIM_STREAM_COMPUTE,
                   name ? name : f->text, "injected", at);
    ev.step = (int32_t)r->step;
    ev.coll = ev.algo = ev.redop = -1;
    if (call) {
        const SimCollArgs *a = &call->args;
        ev.coll = (int16_t)a->kind;
        ev.algo = (int16_t)a->algo;
        ev.dtype = (int16_t)a->dtype;
        ev.redop = (int16_t)a->op;
        ev.seq = call->seq;
        ev.count = a->count;
        ev.bytes = a->count * sim_dtype_size(a->dtype);
    }
    sim_rank_trace(r, &ev);
}

// ----------------------------------------------------------------------------
// skip, mismatch, reorder, crash

// A call that does not reach the backend now: its handle looks launched,
// with the sequence number it would take and an empty span at the rank's
// arrival.
static void park(SimRank *r, SimCollHandle *h, int how) {
    SimCollCall *c = &h->call;
    c->seq = r->coll_seq;
    c->arrive_sim = c->start_sim = sim_rank_now(r);
    h->sim_end = c->start_sim;
    h->wall_start = sim_wall_now();
    h->launched = 1;
    h->done = how == SIM_COMM_FAULT_SKIPPED;
    h->injected = how;
}

static SimStatus skip(SimRank *r, SimCollHandle *h, const SimFault *f, int k) {
    park(r, h, SIM_COMM_FAULT_SKIPPED);
    char what[128];
    call_text(&h->call, h->call.seq, what, sizeof what);
    injected(r, f, &h->call, h->call.start_sim,
             "rank %d skips %s (step %lld, collective %d): its later collectives pair with "
             "the others' earlier ones", r->rank, what, (long long)r->step, k);
    return SIM_OK;
}

// sim_coll_args_valid, buffers left out in a phantom world (they are NULL).
static int shape_valid(const SimWorld *w, const SimCollArgs *a, int rank) {
    SimCollArgs s = *a;
    char any, why[256];
    if (w->cfg.phantom)
        s.sendbuf = s.recvbuf = &any; // only checked, never used
    return sim_coll_args_valid(&s, w->cfg.nranks, rank, why, sizeof why);
}

static void mismatch(SimRank *r, SimCollHandle *h, const SimFault *f, int k) {
    SimWorld *w = r->world;
    SimCollCall *c = &h->call;
    SimCollArgs was = c->args, a = was;
    int R = w->cfg.nranks;
    int as_op = f->as == SIM_FAULT_AS_OP || was.kind == SIM_COLL_BARRIER || was.count == 0;
    if (as_op) {
        a.kind = SIM_COLL_BROADCAST;
        a.root = was.kind == SIM_COLL_BROADCAST ? (was.root + 1) % R : 0;
        a.op = SIM_SUM;
        a.algo = sim_coll_resolve_algo(SIM_COLL_BROADCAST, SIM_ALGO_AUTO);
        if (!shape_valid(w, &a, r->rank)) {
            a = was;
            as_op = 0;
        }
    }
    if (!as_op)
        a.count = was.count - 1; // was.count > 0 here: a count of 0 always goes as_op
    char what[128];
    call_text(c, r->coll_seq, what, sizeof what);
    if (as_op)
        injected(r, f, c, sim_rank_now(r),
                 "rank %d calls %s as a %s from rank %d (step %lld, collective %d)", r->rank,
                 what, sim_coll_title(a.kind), a.root, (long long)r->step, k);
    else
        injected(r, f, c, sim_rank_now(r),
                 "rank %d calls %s with %zu elements instead of %zu (step %lld, collective %d)",
                 r->rank, what, a.count, was.count, (long long)r->step, k);
    c->args = a;
    sim_sched_init(&c->sched, a.kind, a.algo, R, a.count, a.root);
}

static SimStatus hold(SimRank *r, SimCollHandle *h) {
    if (r->fault_held != NULL) // another call is held already: one at a time
        return sim_comm_start(r, h);
    park(r, h, SIM_COMM_FAULT_HELD);
    r->fault_held = h;
    return SIM_OK;
}

// The held call, given to the backend now.
static SimStatus release(SimRank *r, SimCollHandle *held) {
    if (r->fault_held == held)
        r->fault_held = NULL;
    held->injected = SIM_COMM_FAULT_NONE;
    held->launched = 0; // set again by a launch that succeeds
    return sim_comm_start(r, held);
}

// The (K+1)-th call of a reorder: launched first, then the held K-th.
static SimStatus reorder(SimRank *r, SimCollHandle *h, const SimFault *f, int k) {
    SimCollHandle *held = r->fault_held;
    if (held == NULL) // the K-th was waited for (and launched) already
        return sim_comm_start(r, h);
    r->fault_held = NULL;
    char first[128], second[128];
    call_text(&h->call, r->coll_seq, first, sizeof first);
    held->call.seq = r->coll_seq + 1;
    call_text(&held->call, held->call.seq, second, sizeof second);
    injected(r, f, &held->call, sim_rank_now(r),
             "rank %d launches collective %d of step %lld, %s, before collective %d, %s: "
             "each pairs with the others' other one", r->rank, k, (long long)r->step, first,
             k - 1, second);
    SimStatus st = sim_comm_start(r, h);
    if (st != SIM_OK) { // the world has failed: the held call never starts
        held->injected = SIM_COMM_FAULT_NONE;
        held->launched = 0;
        return st;
    }
    return release(r, held);
}

static SimStatus crash(SimRank *r, SimCollHandle *h, const SimFault *f, int k) {
    SimWorld *w = r->world;
    h->call.seq = r->coll_seq;
    char what[128];
    call_text(&h->call, h->call.seq, what, sizeof what);
    injected(r, f, &h->call, sim_rank_now(r),
             "rank %d crashed as it was about to launch %s (step %lld, collective %d): it "
             "takes part in nothing more, and the others wait for it there until the watchdog",
             r->rank, what, (long long)r->step, k);
    snprintf(r->error, sizeof r->error,
             "rank %d crashed (injected fault %s) as it was about to launch %s #%llu in step %lld",
             r->rank, f->text, sim_coll_title(h->call.args.kind),
             (unsigned long long)h->call.seq, (long long)r->step);
    h->launched = 0;
    if (w->ops->rank_crash)
        (void)w->ops->rank_crash(w->ctx, r->rank);
    return SIM_ECRASHED;
}

SimStatus sim_comm_fault_launch(SimRank *r, SimCollHandle *h, int k) {
    const SimFault *f = sim_fault_at_coll(plan_of(r), r->rank, r->step, k);
    if (f == NULL)
        return sim_comm_start(r, h);
    switch (f->kind) {
    case SIM_FAULT_SKIP:
        return skip(r, h, f, k);
    case SIM_FAULT_MISMATCH:
        mismatch(r, h, f, k);
        return sim_comm_start(r, h);
    case SIM_FAULT_REORDER:
        return f->coll == k ? hold(r, h) : reorder(r, h, f, k);
    case SIM_FAULT_CRASH:
        return crash(r, h, f, k);
    default:
        return sim_comm_start(r, h);
    }
}

// The reorder fault that held h: the rank's, in its current step.
static const SimFault *holder(const SimRank *r) {
    const SimFaultPlan *p = plan_of(r);
    for (int i = 0; p && i < p->n; i++)
        if (p->f[i].kind == SIM_FAULT_REORDER && p->f[i].rank == r->rank &&
            p->f[i].step == r->step)
            return &p->f[i];
    return NULL;
}

SimStatus sim_comm_fault_wait(SimRank *r, SimCollHandle *h) {
    if (h->injected == SIM_COMM_FAULT_SKIPPED) {
        h->injected = SIM_COMM_FAULT_NONE;
        h->launched = 0;
        return SIM_OK;
    }
    if (h->injected != SIM_COMM_FAULT_HELD)
        return SIM_OK;
    const SimFault *f = holder(r);
    if (f) {
        char what[128];
        call_text(&h->call, r->coll_seq, what, sizeof what);
        injected(r, f, &h->call, sim_rank_now(r),
                 "rank %d waited for collective %d of step %lld, %s, before launching "
                 "collective %d: no reorder possible, it is launched now, in order", r->rank,
                 f->coll, (long long)r->step, what, f->coll + 1);
    }
    return release(r, h);
}

// ----------------------------------------------------------------------------
// slow-link

static int has_slow_link(const SimFaultPlan *p) {
    return sim_fault_find(p, SIM_FAULT_SLOW_LINK, -1) != NULL;
}

// The slow rank's own event, at its first collective.
static void note_slow_link(SimRank *r, const SimCollCall *call) {
    const SimFaultPlan *p = plan_of(r);
    for (int i = 0; i < p->n; i++) {
        const SimFault *f = &p->f[i];
        if (f->kind != SIM_FAULT_SLOW_LINK || f->rank != r->rank ||
            (r->fault_shown & (1u << (unsigned)i)))
            continue;
        char what[128];
        call_text(call, call->seq, what, sizeof what);
        injected(r, f, call, call->start_sim,
                 "transfers to and from rank %d take %g times as long (from its first "
                 "collective, %s): every collective step it takes part in waits for them",
                 r->rank, f->factor, what);
    }
}

// Rank q's transfers at `step`, incoming (in = 1) or outgoing: into local
// (cap entries) or, when there are more, a heap array the caller frees
// (*out != local). Out of memory: the first cap only.
static int list_xfers(const SimSched *s, int q, int step, int in, SimXfer *local, int cap,
                      SimXfer **out) {
    int n = in ? sim_sched_incoming(s, q, step, local, cap)
               : sim_sched_outgoing(s, q, step, local, cap);
    *out = local;
    if (n <= cap)
        return n;
    SimXfer *x = malloc((size_t)n * sizeof *x);
    if (x == NULL)
        return cap;
    *out = x;
    return in ? sim_sched_incoming(s, q, step, x, n) : sim_sched_outgoing(s, q, step, x, n);
}

// The cost model's time of rank q at `step` (sim/cost/cost.h: the latency the
// step pays plus the larger of its incoming and outgoing bytes / bandwidth),
// with each transfer's latency and bytes / bandwidth times its link factor.
static double rank_time(const SimWorld *w, const SimSched *s, int q, int step, size_t es) {
    const SimFaultPlan *p = w->cfg.faults;
    SimAlphaMode md = sim_cost_step_alpha(&w->cost, s, step);
    double alpha = 0.0, t[2] = {0.0, 0.0};
    int used = 0;
    for (int in = 0; in < 2; in++) {
        SimXfer local[32], *x;
        int n = list_xfers(s, q, step, in, local, 32, &x);
        for (int i = 0; i < n; i++) {
            if (x[i].src == x[i].dst || x[i].count == 0)
                continue; // a local copy is not a message
            const SimLinkProfile *l = sim_cost_link(&w->cost, x[i].src, x[i].dst);
            double f = sim_fault_link_factor(p, x[i].src, x[i].dst);
            used = 1;
            alpha = max2(alpha, f * sim_cost_alpha(&w->cost, l->alpha_s, md));
            t[in] += f * (double)(x[i].count * es) / l->bw_Bps;
        }
        if (x != local)
            free(x);
    }
    return used ? alpha + max2(t[0], t[1]) : 0.0;
}

// Step `step` of s: the fault-free price, or more where a slow rank (or a
// peer it sends to or receives from) now needs longer.
static double step_cost(const SimWorld *w, const SimSched *s, int step, size_t es, double base) {
    const SimFaultPlan *p = w->cfg.faults;
    double worst = base;
    if (s->nranks < 2 || step < 0 || step >= s->nsteps)
        return base;
    for (int i = 0; i < p->n; i++) {
        int slow = p->f[i].rank;
        if (p->f[i].kind != SIM_FAULT_SLOW_LINK || slow < 0 || slow >= s->nranks)
            continue;
        worst = max2(worst, rank_time(w, s, slow, step, es));
        for (int in = 0; in < 2; in++) {
            SimXfer local[32], *x;
            int n = list_xfers(s, slow, step, in, local, 32, &x);
            for (int j = 0; j < n; j++) {
                int peer = in ? x[j].src : x[j].dst;
                if (peer != slow && x[j].count > 0)
                    worst = max2(worst, rank_time(w, s, peer, step, es));
            }
            if (x != local)
                free(x);
        }
    }
    return worst;
}

double sim_comm_fault_coll_cost(SimRank *r, const SimCollCall *call, double base) {
    const SimFaultPlan *p = plan_of(r);
    if (!has_slow_link(p))
        return base;
    note_slow_link(r, call);
    const SimWorld *w = r->world;
    const SimSched *s = &call->sched;
    // a barrier: every rank signals in each round, which waits for the slowest
    if (call->args.kind == SIM_COLL_BARRIER) {
        double f = 1.0;
        for (int i = 0; i < p->n; i++)
            if (p->f[i].kind == SIM_FAULT_SLOW_LINK && p->f[i].rank < w->cfg.nranks)
                f = max2(f, p->f[i].factor);
        return base * f;
    }
    size_t es = sim_dtype_size(call->args.dtype);
    double total = 0.0;
    for (int t = 0; t < s->nsteps; t++)
        total += step_cost(w, s, t, es, sim_cost_step(&w->cost, s, t, es));
    return total;
}

double sim_comm_fault_step_cost(const SimCollCall *call, int step, double base) {
    const SimWorld *w = call->rank->world;
    if (!has_slow_link(w->cfg.faults))
        return base;
    return step_cost(w, &call->sched, step, sim_dtype_size(call->args.dtype), base);
}

double sim_comm_fault_p2p_cost(SimRank *r, const SimCollCall *call, int src, int dst,
                               double base) {
    const SimFaultPlan *p = plan_of(r);
    if (!has_slow_link(p))
        return base;
    note_slow_link(r, call);
    return base * sim_fault_link_factor(p, src, dst);
}

// ----------------------------------------------------------------------------
// slow-rank

double sim_comm_fault_compute(SimRank *r, double base) {
    const SimFaultPlan *p = plan_of(r);
    if (p == NULL || r->step < 1)
        return base;
    double x = sim_fault_compute_factor(p, r->rank, r->step);
    if (x == 1.0)
        return base;
    for (int i = 0; i < p->n; i++) {
        const SimFault *f = &p->f[i];
        if (f->kind == SIM_FAULT_SLOW_RANK && f->rank == r->rank &&
            r->step >= (f->step ? f->step : 1))
            injected(r, f, NULL, r->clock[SIM_STREAM_COMPUTE],
                     "rank %d computes %g times slower from step %lld on: every op on its "
                     "compute stream takes %g times as long, and the others wait for it at "
                     "each collective (a straggler)", r->rank, f->factor, (long long)r->step,
                     f->factor);
    }
    return base * x;
}
