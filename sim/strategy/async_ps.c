// sim/strategy/async_ps.c: the parameter-server schedule (sim/strategy/async_ps.h), event by
// event on one thread: the order comes from simulated time alone.
#include "strategy/async_ps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"   // defines: SimCollKind, sim_coll_title
#include "cost/cost.h"   // defines: sim_cost_p2p
#include "trace/trace.h" // defines: SimEvent

typedef enum { EV_APPLY = 0, EV_PUSH, EV_PULL } EvKind; // tie order at equal times

typedef struct {
    double t;
    EvKind kind;
    int worker, server;
    int live;
} PsEvent;

typedef struct {
    SimWorld *w;
    const SimPsConfig *c;
    int S, W;
    int64_t steps;
    SimTrainConfig srv_cfg, wrk_cfg;
    SimTrainer srv;            // the servers' parameters and optimizer (all shards)
    SimTrainer *wrk;           // [W]
    uint8_t **mask;            // [S][nparams]: parameters server s owns
    size_t *shard_bytes;       // [S]
    size_t count;              // parameter elements
    float **gbuf;              // [W][count]: the gradient each worker pushed
    float *acc;                // [count]: the round's sum (bulk synchronous)
    int *round_n;              // [S]: gradients summed in the round so far
    int64_t *version;          // [S]
    int64_t *pulled;           // [W*S]: version each worker pulled from each server
    int64_t *applied;          // [W*S]: pushes applied per worker and server
    int64_t *sent;             // [W]
    double *in_free, *out_free; // [S]: the servers' links busy until
    int *blocked;              // [W]: 1 while in ps.wait
    double *blocked_at;        // [W]
    double *hook_t;            // [W]: compute clock at the end of backward
    double t0;                 // the schedule's start
    int cur;                   // the worker whose step is running (the hook's)
    PsEvent *ev;               // pending events
    int nev, cap;
    SimPsResult *out;
    int64_t *push_of;          // [W]: index in out->pushes of each worker's last push
    char *err;
    size_t errlen;
} Ps;

static SimStatus fail(Ps *p, SimStatus st, const char *what, const char *why) {
    snprintf(p->err, p->errlen, "async-ps: %s: %s", what, why);
    return st;
}

static SimStatus add_event(Ps *p, double t, EvKind k, int worker, int server) {
    for (int i = 0; i < p->nev; i++)
        if (!p->ev[i].live) {
            p->ev[i] = (PsEvent){t, k, worker, server, 1};
            return SIM_OK;
        }
    if (p->nev == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        PsEvent *e = realloc(p->ev, (size_t)cap * sizeof *e);
        if (e == NULL)
            return SIM_ENOMEM;
        p->ev = e, p->cap = cap;
    }
    p->ev[p->nev++] = (PsEvent){t, k, worker, server, 1};
    return SIM_OK;
}

static int before(const PsEvent *a, const PsEvent *b) {
    if (a->t != b->t)
        return a->t < b->t;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    if (a->worker != b->worker)
        return a->worker < b->worker;
    return a->server < b->server;
}

static PsEvent *next_event(Ps *p) {
    PsEvent *best = NULL;
    for (int i = 0; i < p->nev; i++)
        if (p->ev[i].live && (best == NULL || before(&p->ev[i], best)))
            best = &p->ev[i];
    return best;
}

static SimRank *rank_of(Ps *p, int r) { return &p->w->ranks[r]; }

// A marker "ps" on rank r at t (value: staleness on apply).
static void marker(Ps *p, int r, const char *label, double t, int64_t step, double value) {
    SimRank *rk = rank_of(p, r);
    if (p->w->trace == NULL)
        return;
    SimEvent e;
    sim_rank_event(&e, rk, SIM_EV_MARKER, SIM_STREAM_COMPUTE, "ps", label, t);
    e.step = (int32_t)step;
    e.value = value;
    sim_rank_trace(rk, &e);
}

// A transfer src -> dst over [t0, t1]: a Send on src and a Recv on dst,
// both on the communication stream (label "pull" or "push").
static void xfer(Ps *p, const char *label, int src, int dst, size_t bytes, double t0, double t1,
                 int64_t step) {
    if (p->w->trace == NULL)
        return;
    for (int side = 0; side < 2; side++) {
        SimCollKind k = side == 0 ? SIM_COLL_SEND : SIM_COLL_RECV;
        SimRank *rk = rank_of(p, side == 0 ? src : dst);
        SimEvent e;
        sim_rank_event(&e, rk, SIM_EV_COLL, SIM_STREAM_COMM, sim_coll_title(k), label, t0);
        e.sim_end = t1;
        e.coll = (int16_t)k;
        e.dtype = (int16_t)SIM_FP32;
        e.bytes = bytes;
        e.count = bytes / sizeof(float);
        e.src = src, e.dst = dst;
        e.nsteps = 1;
        e.step = (int32_t)step;
        sim_rank_trace(rk, &e);
    }
}

static void wait_event(Ps *p, int r, double t0, double t1, int64_t step) {
    SimRank *rk = rank_of(p, r);
    if (p->w->trace == NULL || t1 <= t0)
        return;
    SimEvent e;
    sim_rank_event(&e, rk, SIM_EV_COMPUTE, SIM_STREAM_COMPUTE, "ps.wait", NULL, t0);
    e.sim_end = t1;
    e.step = (int32_t)step;
    sim_rank_trace(rk, &e);
}

static int64_t completed(const Ps *p, int w) {
    int64_t m = p->applied[(size_t)w * (size_t)p->S];
    for (int s = 1; s < p->S; s++)
        if (p->applied[(size_t)w * (size_t)p->S + (size_t)s] < m)
            m = p->applied[(size_t)w * (size_t)p->S + (size_t)s];
    return m;
}

static int64_t slowest(const Ps *p) {
    int64_t m = completed(p, 0);
    for (int w = 1; w < p->W; w++)
        if (completed(p, w) < m)
            m = completed(p, w);
    return m;
}

// The sync hook of the workers' trainers: the gradient is copied out, the
// worker's own optimizer step skipped (its parameters are replaced at the
// next pull), the end of backward noted.
static SimStatus grab(void *arg, SimRank *r, SimModel *m, uint8_t *has_grad) {
    Ps *p = arg;
    memcpy(p->gbuf[p->cur], m->grad.data, p->count * sizeof(float));
    memset(has_grad, 0, (size_t)m->nparams);
    p->hook_t[p->cur] = r->clock[SIM_STREAM_COMPUTE];
    return SIM_OK;
}

static void set_clocks(SimRank *r, double t) {
    for (int i = 0; i < SIM_STREAM_COUNT; i++)
        if (r->clock[i] < t)
            r->clock[i] = t;
}

// Copies the parameters of server s's shard from the servers' model into
// worker w's model.
static void copy_shard(Ps *p, int s, int w) {
    const SimModel *src = p->srv.model;
    SimModel *dst = p->wrk[w].model;
    const float *a = src->param.data;
    float *b = dst->param.data;
    for (int i = 0; i < src->nparams; i++)
        if (p->mask[s][i])
            memcpy(b + src->params[i].offset, a + src->params[i].offset,
                   src->params[i].numel * sizeof(float));
}

// Forward and backward of worker w's next batch at simulated time t (its
// parameters already in place). Returns the compute's end time.
static SimStatus compute(Ps *p, int w, double t, float *loss, double *end) {
    SimRank *r = rank_of(p, p->S + w);
    set_clocks(r, t);
    p->cur = w;
    SimStepStats st;
    SimStatus rc = sim_train_step(&p->wrk[w], r, &st);
    if (rc != SIM_OK)
        return fail(p, rc, "worker step", p->wrk[w].error);
    *loss = st.loss;
    *end = p->hook_t[w];
    return SIM_OK;
}

// Server s applies grad (already in the servers' gradient buffer for its
// shard) at time t.
static SimStatus apply_step(Ps *p, int s, double t) {
    SimRank *r = rank_of(p, s);
    set_clocks(r, t);
    double lr = sim_lr_at(&p->srv.sched, p->version[s]);
    SimStatus st = sim_optim_step(&p->srv.optim, r, lr, p->mask[s]);
    if (st != SIM_OK)
        return fail(p, st, "server step", r->error);
    p->version[s]++;
    return SIM_OK;
}

static void put_grad(Ps *p, int s, const float *g, float scale) {
    SimModel *m = p->srv.model;
    float *d = m->grad.data;
    for (int i = 0; i < m->nparams; i++)
        if (p->mask[s][i])
            for (size_t j = m->params[i].offset; j < m->params[i].offset + m->params[i].numel; j++)
                d[j] = g[j] * scale;
}

static void record_push(Ps *p, int w, double t_pull, double t_push, double wait_s, float loss) {
    SimPsResult *o = p->out;
    int64_t i = o->npushes++;
    o->pushes[i] = (SimPsPush){w, p->sent[w] + 1, t_pull, t_push, 0, wait_s, loss, 0};
    p->push_of[w] = i;
}

static SimStatus do_pull(Ps *p, int w, double t, double wait_s) {
    int r = p->S + w;
    int64_t k = p->sent[w] + 1;
    marker(p, r, "pull", t, k, 0);
    double ready = t;
    for (int s = 0; s < p->S; s++) {
        copy_shard(p, s, w);
        p->pulled[(size_t)w * (size_t)p->S + (size_t)s] = p->version[s];
        double t0 = t > p->out_free[s] ? t : p->out_free[s];
        double t1 = t0 + sim_cost_p2p(&p->w->cost, s, r, p->shard_bytes[s]);
        p->out_free[s] = t1;
        xfer(p, "pull", s, r, p->shard_bytes[s], t0, t1, k);
        if (t1 > ready)
            ready = t1;
    }
    float loss;
    double end;
    SimStatus st = compute(p, w, ready, &loss, &end);
    if (st != SIM_OK)
        return st;
    record_push(p, w, t, end, wait_s, loss);
    return add_event(p, end, EV_PUSH, w, -1);
}

static SimStatus on_push(Ps *p, int w, double t) {
    int r = p->S + w;
    int64_t k = p->sent[w] + 1;
    marker(p, r, "push", t, k, 0);
    for (int s = 0; s < p->S; s++) {
        double t0 = t > p->in_free[s] ? t : p->in_free[s];
        double t1 = t0 + sim_cost_p2p(&p->w->cost, r, s, p->shard_bytes[s]);
        p->in_free[s] = t1;
        xfer(p, "push", r, s, p->shard_bytes[s], t0, t1, k);
        SimStatus st = add_event(p, t1, EV_APPLY, w, s);
        if (st != SIM_OK)
            return st;
    }
    p->sent[w]++;
    return SIM_OK;
}

static SimStatus on_apply(Ps *p, int s, int w, double t) {
    size_t ws = (size_t)w * (size_t)p->S + (size_t)s;
    int stale = (int)(p->version[s] - p->pulled[ws]);
    SimPsResult *o = p->out;
    SimPsPush *pu = &o->pushes[p->push_of[w]];
    if (stale > pu->staleness)
        pu->staleness = stale;
    o->applies[o->napplies++] = (SimPsApply){s, w, p->sent[w], t, stale};
    marker(p, s, "apply", t, p->sent[w], stale);
    SimStatus st = SIM_OK;
    if (p->c->max_staleness == 0) {
        // bulk synchronous: the round's mean as one update
        SimModel *m = p->srv.model;
        for (int i = 0; i < m->nparams; i++)
            if (p->mask[s][i])
                for (size_t j = m->params[i].offset; j < m->params[i].offset + m->params[i].numel;
                     j++)
                    p->acc[j] += p->gbuf[w][j];
        if (++p->round_n[s] < p->W)
            return SIM_OK;
        put_grad(p, s, p->acc, 1.0f / (float)p->W);
        for (int i = 0; i < m->nparams; i++)
            if (p->mask[s][i])
                memset(p->acc + m->params[i].offset, 0, m->params[i].numel * sizeof(float));
        p->round_n[s] = 0;
        st = apply_step(p, s, t);
        for (int v = 0; v < p->W; v++)
            p->applied[(size_t)v * (size_t)p->S + (size_t)s]++;
    } else {
        put_grad(p, s, p->gbuf[w], 1.0f);
        st = apply_step(p, s, t);
        p->applied[ws]++;
    }
    return st;
}

// After an apply: pushes now complete on every server, and workers released.
static SimStatus after_apply(Ps *p, double t) {
    for (int w = 0; w < p->W; w++) {
        if (p->push_of[w] < 0)
            continue;
        SimPsPush *pu = &p->out->pushes[p->push_of[w]];
        if (pu->t_done == 0 && completed(p, w) >= pu->k) {
            pu->t_done = t;
            if (pu->k == p->steps)
                p->out->finish[w] = t;
        }
    }
    if (p->c->max_staleness < 0)
        return SIM_OK;
    int64_t low = slowest(p);
    for (int w = 0; w < p->W; w++)
        if (p->blocked[w] && p->sent[w] - low <= p->c->max_staleness) {
            p->blocked[w] = 0;
            wait_event(p, p->S + w, p->blocked_at[w], t, p->sent[w] + 1);
            SimStatus st = do_pull(p, w, t, t - p->blocked_at[w]);
            if (st != SIM_OK)
                return st;
        }
    return SIM_OK;
}

static SimStatus on_pull(Ps *p, int w, double t) {
    if (p->c->max_staleness >= 0 && p->sent[w] - slowest(p) > p->c->max_staleness) {
        p->blocked[w] = 1;
        p->blocked_at[w] = t;
        return SIM_OK;
    }
    return do_pull(p, w, t, 0);
}

// The asynchronous (or stale-synchronous) schedule.
static SimStatus run_ps(Ps *p) {
    for (int w = 0; w < p->W; w++) {
        SimStatus st = add_event(p, p->t0, EV_PULL, w, -1);
        if (st != SIM_OK)
            return st;
    }
    PsEvent *e;
    while ((e = next_event(p)) != NULL) {
        PsEvent ev = *e;
        e->live = 0;
        SimStatus st = SIM_OK;
        if (ev.kind == EV_APPLY) {
            st = on_apply(p, ev.server, ev.worker, ev.t);
            if (st == SIM_OK)
                st = after_apply(p, ev.t);
            // the worker asks for its next pull once its push has landed everywhere
            int last = 1;
            for (int i = 0; i < p->nev; i++)
                if (p->ev[i].live && p->ev[i].kind == EV_APPLY && p->ev[i].worker == ev.worker)
                    last = 0;
            if (st == SIM_OK && last && p->sent[ev.worker] < p->steps)
                st = add_event(p, ev.t, EV_PULL, ev.worker, -1);
        } else if (ev.kind == EV_PUSH) {
            st = on_push(p, ev.worker, ev.t);
        } else {
            st = on_pull(p, ev.worker, ev.t);
        }
        if (st != SIM_OK)
            return st;
    }
    for (int w = 0; w < p->W; w++)
        if (p->sent[w] < p->steps)
            return fail(p, SIM_EINVAL, "schedule", "a worker never finished (internal)");
    return SIM_OK;
}

// Synchronous DDP among the workers (the comparison): rounds of W gradients
// averaged; a round ends at the slowest compute plus a ring all_reduce.
static SimStatus run_ddp_clock(Ps *p) {
    double T = p->t0;
    size_t bytes = p->count * sizeof(float);
    double ar = 0;
    if (p->W > 1)
        ar = 2.0 * (p->W - 1) *
             sim_cost_p2p(&p->w->cost, p->S, p->S + 1, (bytes + (size_t)p->W - 1) / (size_t)p->W);
    for (int64_t k = 1; k <= p->steps; k++) {
        double end = T;
        for (int w = 0; w < p->W; w++) {
            for (int s = 0; s < p->S; s++)
                copy_shard(p, s, w);
            float loss;
            double e;
            SimStatus st = compute(p, w, T, &loss, &e);
            if (st != SIM_OK)
                return st;
            record_push(p, w, T, e, 0, loss);
            p->sent[w]++;
            if (e > end)
                end = e;
            for (size_t j = 0; j < p->count; j++)
                p->acc[j] += p->gbuf[w][j];
        }
        end += ar;
        for (int s = 0; s < p->S; s++) {
            put_grad(p, s, p->acc, 1.0f / (float)p->W);
            SimStatus st = apply_step(p, s, end);
            if (st != SIM_OK)
                return st;
        }
        memset(p->acc, 0, p->count * sizeof(float));
        for (int w = 0; w < p->W; w++) {
            p->out->pushes[p->push_of[w]].t_done = end;
            p->out->applies[p->out->napplies++] = (SimPsApply){0, w, k, end, 0};
            if (k == p->steps)
                p->out->finish[w] = end;
        }
        T = end;
    }
    return SIM_OK;
}

static void ps_free(Ps *p) {
    if (p->wrk)
        for (int w = 0; w < p->W; w++)
            sim_train_free(&p->wrk[w], rank_of(p, p->S + w));
    free(p->wrk);
    sim_train_free(&p->srv, rank_of(p, 0));
    if (p->mask)
        for (int s = 0; s < p->S; s++)
            free(p->mask[s]);
    free(p->mask);
    if (p->gbuf)
        for (int w = 0; w < p->W; w++)
            free(p->gbuf[w]);
    free(p->gbuf);
    free(p->shard_bytes), free(p->acc), free(p->round_n), free(p->version), free(p->pulled);
    free(p->applied), free(p->sent), free(p->in_free), free(p->out_free), free(p->blocked);
    free(p->blocked_at), free(p->hook_t), free(p->ev), free(p->push_of);
}

SimStatus sim_ps_run(SimWorld *w, const SimPsConfig *c, SimPsResult *out, char *err,
                     size_t errlen) {
    memset(out, 0, sizeof *out);
    Ps p;
    memset(&p, 0, sizeof p);
    p.w = w, p.c = c, p.S = c->servers, p.W = c->workers, p.steps = c->train->loop.steps;
    p.out = out, p.err = err, p.errlen = errlen;
    if (p.S < 1 || p.W < 1 || w->cfg.nranks != p.S + p.W)
        return fail(&p, SIM_EINVAL, "world", "needs servers + workers ranks");
    int64_t updates = c->mode == SIM_PS_DDP_CLOCK || c->max_staleness == 0
                          ? p.steps
                          : p.steps * p.W;
    p.srv_cfg = *c->train;
    p.srv_cfg.loop.steps = updates; // the schedule spans the servers' updates
    p.srv_cfg.data.sampler_replicas = 1;
    p.srv_cfg.ckpt.save_path = NULL;
    p.srv_cfg.hooks.on_step = NULL, p.srv_cfg.hooks.on_ready = NULL, p.srv_cfg.hooks.on_eval = NULL;
    p.srv_cfg.hooks.sync = NULL;
    p.wrk_cfg = p.srv_cfg;
    p.wrk_cfg.loop.steps = p.steps;
    p.wrk_cfg.data.sampler_replicas = p.W; // rank S+w reads share (S+w) mod W
    p.wrk_cfg.hooks.sync = grab;
    p.wrk_cfg.hooks.sync_arg = &p;
    p.wrk_cfg.ckpt.resume_path = NULL;
    p.srv.cfg = &p.srv_cfg;
    SimStatus st = sim_train_setup(&p.srv, rank_of(&p, 0), &p.srv_cfg);
    if (st != SIM_OK) {
        fail(&p, st, "server set-up", p.srv.error);
        ps_free(&p);
        return st;
    }
    p.wrk = calloc((size_t)p.W, sizeof *p.wrk);
    p.count = (size_t)p.srv.model->param.shape[0];
    int np = p.srv.model->nparams;
    p.mask = calloc((size_t)p.S, sizeof *p.mask);
    p.gbuf = calloc((size_t)p.W, sizeof *p.gbuf);
    p.shard_bytes = calloc((size_t)p.S, sizeof *p.shard_bytes);
    p.acc = calloc(p.count, sizeof *p.acc);
    p.round_n = calloc((size_t)p.S, sizeof *p.round_n);
    p.version = calloc((size_t)p.S, sizeof *p.version);
    p.pulled = calloc((size_t)p.S * (size_t)p.W, sizeof *p.pulled);
    p.applied = calloc((size_t)p.S * (size_t)p.W, sizeof *p.applied);
    p.sent = calloc((size_t)p.W, sizeof *p.sent);
    p.in_free = calloc((size_t)p.S, sizeof *p.in_free);
    p.out_free = calloc((size_t)p.S, sizeof *p.out_free);
    p.blocked = calloc((size_t)p.W, sizeof *p.blocked);
    p.blocked_at = calloc((size_t)p.W, sizeof *p.blocked_at);
    p.hook_t = calloc((size_t)p.W, sizeof *p.hook_t);
    p.push_of = calloc((size_t)p.W, sizeof *p.push_of);
    int64_t total = p.steps * p.W;
    out->pushes = calloc((size_t)total, sizeof *out->pushes);
    out->applies = calloc((size_t)(total * p.S), sizeof *out->applies);
    out->finish = calloc((size_t)p.W, sizeof *out->finish);
    out->params = calloc(p.count, sizeof *out->params);
    int bad = !p.wrk || !p.mask || !p.gbuf || !p.shard_bytes || !p.acc || !p.round_n ||
              !p.version || !p.pulled || !p.applied || !p.sent || !p.in_free || !p.out_free ||
              !p.blocked || !p.blocked_at || !p.hook_t || !p.push_of || !out->pushes ||
              !out->applies || !out->finish || !out->params;
    for (int s = 0; !bad && s < p.S; s++) {
        p.mask[s] = calloc((size_t)np, 1);
        bad = p.mask[s] == NULL;
        for (int i = 0; !bad && i < np; i++)
            if (i % p.S == s) {
                p.mask[s][i] = 1;
                p.shard_bytes[s] += p.srv.model->params[i].numel * sizeof(float);
            }
    }
    for (int v = 0; !bad && v < p.W; v++) {
        p.gbuf[v] = calloc(p.count, sizeof(float));
        p.push_of[v] = -1;
        bad = p.gbuf[v] == NULL;
    }
    if (bad) {
        ps_free(&p);
        sim_ps_result_free(out);
        return fail(&p, SIM_ENOMEM, "set-up", "out of memory");
    }
    for (int v = 0; v < p.W; v++) {
        p.wrk[v].cfg = &p.wrk_cfg;
        st = sim_train_setup(&p.wrk[v], rank_of(&p, p.S + v), &p.wrk_cfg);
        if (st != SIM_OK) {
            fail(&p, st, "worker set-up", p.wrk[v].error);
            ps_free(&p);
            sim_ps_result_free(out);
            return st;
        }
    }
    // set-up (initial weights, buffers) has advanced the clocks: the
    // schedule starts when every rank is ready
    double t0 = 0;
    for (int r = 0; r < p.S + p.W; r++)
        if (sim_rank_now(rank_of(&p, r)) > t0)
            t0 = sim_rank_now(rank_of(&p, r));
    for (int r = 0; r < p.S + p.W; r++)
        set_clocks(rank_of(&p, r), t0);
    p.t0 = t0;
    st = c->mode == SIM_PS_DDP_CLOCK ? run_ddp_clock(&p) : run_ps(&p);
    if (st == SIM_OK) {
        out->count = p.count;
        memcpy(out->params, p.srv.model->param.data, p.count * sizeof(float));
        out->updates = p.version[0];
        for (int v = 0; v < p.W; v++)
            if (out->finish[v] > out->end)
                out->end = out->finish[v];
        if (c->train->ckpt.save_path) {
            p.srv.step = p.version[0];
            st = sim_train_save(&p.srv, rank_of(&p, 0), c->train->ckpt.save_path);
            if (st != SIM_OK)
                fail(&p, st, "--save", p.srv.error);
        }
    }
    ps_free(&p);
    if (st != SIM_OK)
        sim_ps_result_free(out);
    return st;
}

void sim_ps_result_free(SimPsResult *r) {
    free(r->pushes), free(r->applies), free(r->finish), free(r->params);
    memset(r, 0, sizeof *r);
}
