// sim/engine/group.c: collectives over process groups (see group.h): argument
// checks, the world and single-member shortcuts, and the ring over the
// members built from point-to-point sends and receives.
//
// Legend: n = members, me = this rank's member index, chunk c = balanced part
// c of n (sim_part_begin), left/right = the members me-1 and me+1 (mod n).
#include "engine/group.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll/schedule.h" // defines: sim_sched_init (step counts for the trace)
#include "engine/memory.h" // defines: SIM_MEM_COMM
#include "engine/ops.h"    // defines: sim_tensor_alloc, sim_tensor_free

// Host blocks through which local copies and reductions pass (two of them on
// the stack of the calling rank).
#define GROUP_STAGE_BYTES 4096

static int mod(int a, int n) {
    int m = a % n;
    return m < 0 ? m + n : m;
}

// buf + bytes, keeping NULL (a phantom world's buffers) as NULL.
static void *byte_at(const void *buf, size_t bytes) {
    return buf ? (char *)buf + bytes : NULL;
}

// A phantom world (SimWorldConfig.phantom) holds no data: the ring runs its
// sends and receives (the clocks, the trace) and skips the local copies and
// reductions; buffers may be NULL.
static int phantom(const SimRank *r) {
    return r->world->cfg.phantom;
}

// ----------------------------------------------------------------------------
// groups

void sim_group_init(SimGroup *g, const SimRank *r, int first, int stride, int n,
                    const char *name) {
    g->n = n;
    g->first = first;
    g->stride = n == 1 && stride < 1 ? 1 : stride;
    g->name = name;
    g->me = -1;
    int d = r->rank - first;
    if (n >= 1 && g->stride >= 1 && d >= 0 && d % g->stride == 0 && d / g->stride < n)
        g->me = d / g->stride;
}

void sim_group_node(SimGroup *g, const SimRank *r) {
    int rpn = r->world->ranks_per_node;
    sim_group_init(g, r, r->rank / rpn * rpn, 1, rpn, "intra-node");
}

void sim_group_cross(SimGroup *g, const SimRank *r) {
    int rpn = r->world->ranks_per_node;
    sim_group_init(g, r, r->rank % rpn, rpn, r->world->cfg.nranks / rpn, "inter-node");
}

void sim_group_world(SimGroup *g, const SimRank *r) {
    sim_group_init(g, r, 0, 1, r->world->cfg.nranks, "world");
}

int sim_group_rank(const SimGroup *g, int i) {
    return g->first + i * g->stride;
}

int sim_group_is_world(const SimGroup *g, const SimRank *r) {
    return g->n == r->world->cfg.nranks && g->first == 0 && (g->stride == 1 || g->n == 1);
}

// ----------------------------------------------------------------------------
// errors

static const char *group_name(const SimGroup *g) {
    return g->name ? g->name : "(unnamed)";
}

// "ranks 4..7", "ranks 1, 3, .., 7 (stride 2)", "rank 5".
static const char *group_members(const SimGroup *g, char *buf, size_t len) {
    long long first = g->first, last = first + (long long)(g->n - 1) * g->stride;
    if (g->n == 1)
        snprintf(buf, len, "rank %lld", first);
    else if (g->stride == 1)
        snprintf(buf, len, "ranks %lld..%lld", first, last);
    else if (g->n == 2)
        snprintf(buf, len, "ranks %lld, %lld", first, last);
    else
        snprintf(buf, len, "ranks %lld, %lld, .., %lld (stride %d)", first, first + g->stride,
                 last, g->stride);
    return buf;
}

// Writes "<Title> on group <name> (<members>): <why>" into r->error.
static SimStatus group_fail(SimRank *r, const SimGroup *g, SimCollKind k, SimStatus st,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static SimStatus group_fail(SimRank *r, const SimGroup *g, SimCollKind k, SimStatus st,
                            const char *fmt, ...) {
    char why[sizeof r->error], members[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    // why may be longer than what is left after the prefix: let it be cut.
    int len = g == NULL ? snprintf(r->error, sizeof r->error, "%s on a group: ",
                                   sim_coll_title(k))
                        : snprintf(r->error, sizeof r->error, "%s on group %s (%s): ",
                                   sim_coll_title(k), group_name(g),
                                   group_members(g, members, sizeof members));
    if (len >= 0 && (size_t)len < sizeof r->error)
        snprintf(r->error + len, sizeof r->error - (size_t)len, "%s", why);
    return st;
}

// The checks one member can make alone. `root` is a member index (broadcast).
static SimStatus group_check(SimRank *r, const SimGroup *g, SimCollKind k, const void *send,
                             const void *recv, size_t count, SimDtype dt, SimRedOp op,
                             int root) {
    int R = r->world->cfg.nranks;
    if (g == NULL)
        return group_fail(r, g, k, SIM_EINVAL, "the group is NULL");
    if (g->n < 1)
        return group_fail(r, g, k, SIM_EINVAL, "%d members; a group has at least 1", g->n);
    if (g->n > 1 && g->stride < 1)
        return group_fail(r, g, k, SIM_EINVAL, "stride %d; allowed: 1 or more", g->stride);
    long long last = g->first + (long long)(g->n - 1) * g->stride;
    if (g->first < 0 || last >= R)
        return group_fail(r, g, k, SIM_EINVAL, "members outside the world of %d ranks", R);
    if (g->me < 0 || g->me >= g->n)
        return group_fail(r, g, k, SIM_EINVAL, "rank %d is not a member (member index %d)",
                          r->rank, g->me);
    if (sim_group_rank(g, g->me) != r->rank)
        return group_fail(r, g, k, SIM_EINVAL, "rank %d called as member %d, which is rank %d",
                          r->rank, g->me, sim_group_rank(g, g->me));
    if ((unsigned)dt >= SIM_DTYPE_COUNT)
        return group_fail(r, g, k, SIM_EINVAL, "invalid dtype %d", (int)dt);
    if (sim_coll_is_reduction(k) && (unsigned)op >= SIM_REDOP_COUNT)
        return group_fail(r, g, k, SIM_EINVAL, "invalid reduction op %d", (int)op);
    if (sim_coll_has_root(k) && (root < 0 || root >= g->n))
        return group_fail(r, g, k, SIM_EINVAL, "root index %d out of range [0, %d)", root,
                          g->n);
    size_t esz = sim_dtype_size(dt);
    if (count > SIZE_MAX / esz / (size_t)g->n)
        return group_fail(r, g, k, SIM_EINVAL, "count %zu x %d members overflows", count,
                          g->n);
    size_t ns = sim_coll_send_count(k, count, g->n, g->me, root);
    size_t nr = sim_coll_recv_count(k, count, g->n, g->me, root);
    if (phantom(r)) // no data, and buffers may be NULL: only their absence is let pass
        send = recv = g;
    if (ns > 0 && send == NULL)
        return group_fail(r, g, k, SIM_EINVAL, "rank %d (member %d): send buffer is NULL "
                          "for %zu elements", r->rank, g->me, ns);
    if (nr > 0 && recv == NULL)
        return group_fail(r, g, k, SIM_EINVAL, "rank %d (member %d): recv buffer is NULL "
                          "for %zu elements", r->rank, g->me, nr);
    // The generic checks as well, in member terms (dtype/op combinations).
    SimCollArgs a = {k, SIM_ALGO_RING, dt, op, send, (void *)recv, count, root, -1};
    char why[256];
    if (!sim_coll_args_valid(&a, g->n, g->me, why, sizeof why))
        return group_fail(r, g, k, SIM_EINVAL, "%s", why);
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// local work on backend memory, staged through host blocks

static SimStatus local_copy(SimRank *r, void *dst, const void *src, size_t bytes) {
    if (bytes == 0 || dst == src || phantom(r))
        return SIM_OK;
    SimWorld *w = r->world;
    _Alignas(64) unsigned char h[GROUP_STAGE_BYTES];
    for (size_t off = 0; off < bytes; off += GROUP_STAGE_BYTES) {
        size_t m = bytes - off < GROUP_STAGE_BYTES ? bytes - off : GROUP_STAGE_BYTES;
        SIM_CHECK(w->ops->copy_to_host(w->ctx, r->rank, h, (const char *)src + off, m));
        SIM_CHECK(w->ops->copy_to_device(w->ctx, r->rank, (char *)dst + off, h, m));
    }
    return SIM_OK;
}

// out[i] = a[i] (op) b[i] for i in [0, n), with sim_reduce_inplace(a, b): the
// executor of the world ring combines "own (op) incoming" the same way. out
// may be a (or b).
static SimStatus local_combine(SimRank *r, void *out, const void *a, const void *b, size_t n,
                               SimDtype dt, SimRedOp op) {
    SimWorld *w = r->world;
    if (phantom(r))
        return SIM_OK;
    size_t esz = sim_dtype_size(dt), per = GROUP_STAGE_BYTES / esz;
    _Alignas(64) unsigned char ha[GROUP_STAGE_BYTES], hb[GROUP_STAGE_BYTES];
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per, off = i * esz;
        SIM_CHECK(w->ops->copy_to_host(w->ctx, r->rank, ha, (const char *)a + off, m * esz));
        SIM_CHECK(w->ops->copy_to_host(w->ctx, r->rank, hb, (const char *)b + off, m * esz));
        sim_reduce_inplace(ha, hb, m, dt, op);
        SIM_CHECK(w->ops->copy_to_device(w->ctx, r->rank, (char *)out + off, ha, m * esz));
    }
    return SIM_OK;
}

// buf[i] /= n: the end of an AVG reduction.
static SimStatus local_avg(SimRank *r, void *buf, size_t count, SimDtype dt, int n) {
    SimWorld *w = r->world;
    if (phantom(r))
        return SIM_OK;
    size_t esz = sim_dtype_size(dt), per = GROUP_STAGE_BYTES / esz;
    _Alignas(64) unsigned char h[GROUP_STAGE_BYTES];
    for (size_t i = 0; i < count; i += per) {
        size_t m = count - i < per ? count - i : per, off = i * esz;
        SIM_CHECK(w->ops->copy_to_host(w->ctx, r->rank, h, (const char *)buf + off, m * esz));
        sim_scale_avg(h, m, dt, n);
        SIM_CHECK(w->ops->copy_to_device(w->ctx, r->rank, (char *)buf + off, h, m * esz));
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// one call: its ring state, scratch, trace event

typedef struct {
    SimRank *r;
    const SimGroup *g;
    SimCollKind kind;
    SimDtype dt;
    SimRedOp op;
    size_t count;     // as the caller gave it (NCCL conventions)
    size_t esz;
    int left, right;  // world ranks of the neighbours
    int nsteps;       // steps of the world schedule for n members (the trace)
    int step;         // the exchange running now (error messages)
    double sim0;      // simulated arrival of this rank
    double wall0;     // sim_wall_now() at entry
    SimTensor scratch;
} GroupCall;

static void call_begin(GroupCall *c, SimRank *r, const SimGroup *g, SimCollKind k,
                       SimDtype dt, SimRedOp op, size_t count, int root) {
    memset(c, 0, sizeof *c);
    c->r = r;
    c->g = g;
    c->kind = k;
    c->dt = dt;
    c->op = op;
    c->count = count;
    c->esz = sim_dtype_size(dt);
    c->left = sim_group_rank(g, mod(g->me - 1, g->n));
    c->right = sim_group_rank(g, mod(g->me + 1, g->n));
    SimSched s;
    c->nsteps = sim_sched_init(&s, k, SIM_ALGO_RING, g->n, count, root) == 0 ? s.nsteps : 0;
    double comm = r->clock[SIM_STREAM_COMM], compute = r->clock[SIM_STREAM_COMPUTE];
    c->sim0 = comm > compute ? comm : compute;
    c->wall0 = sim_wall_now();
}

// Scratch of n elements in backend memory, charged as a communication buffer.
static SimStatus call_scratch(GroupCall *c, size_t n) {
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(&c->scratch, "group scratch", c->dt, 1, shape);
    c->scratch.mem_cat = SIM_MEM_COMM;
    if (n == 0)
        return SIM_OK; // nothing to hold: zero-element messages need no buffer
    SimStatus st = sim_tensor_alloc(c->r, &c->scratch, 0);
    if (st != SIM_OK) {
        char why[sizeof c->r->error];
        snprintf(why, sizeof why, "%s", c->r->error);
        return group_fail(c->r, c->g, c->kind, st, "scratch of %zu x %s: %s", n,
                          sim_dtype_name(c->dt), why);
    }
    return SIM_OK;
}

// The group collective as one event on the communication stream, from this
// rank's arrival to the end of its last step.
static void call_trace(const GroupCall *c) {
    SimRank *r = c->r;
    SimWorld *w = r->world;
    if (w->trace == NULL)
        return;
    SimEvent ev;
    sim_rank_event(&ev, r, SIM_EV_COLL, SIM_STREAM_COMM, sim_coll_title(c->kind),
                   group_name(c->g), c->sim0);
    ev.coll = (int16_t)c->kind;
    ev.algo = SIM_ALGO_RING;
    ev.dtype = (int16_t)c->dt;
    ev.redop = (int16_t)c->op;
    ev.count = c->count;
    ev.bytes = c->count * c->esz;
    ev.nsteps = c->nsteps;
    ev.sim_end = r->clock[SIM_STREAM_COMM] > c->sim0 ? r->clock[SIM_STREAM_COMM] : c->sim0;
    ev.wall_start = c->wall0 - w->wall_epoch;
    ev.wall_end = sim_wall_now() - w->wall_epoch;
    sim_rank_trace(r, &ev);
}

// Frees the scratch; on success traces the call. Returns st.
static SimStatus call_end(GroupCall *c, SimStatus st) {
    sim_tensor_free(c->r, &c->scratch);
    if (st == SIM_OK)
        call_trace(c);
    return st;
}

// Prefixes the failure of a step (already described in r->error by the
// point-to-point layer or a backend copy) with the group and the step.
static SimStatus step_fail(GroupCall *c, SimStatus st) {
    char why[sizeof c->r->error];
    snprintf(why, sizeof why, "%s", c->r->error[0] ? c->r->error : sim_strerror(st));
    if (c->kind == SIM_COLL_BROADCAST) // the chain counts chunks, not ring steps
        return group_fail(c->r, c->g, c->kind, st, "rank %d (member %d), chunk %d of %d: %s",
                          c->r->rank, c->g->me, c->step, c->g->n, why);
    return group_fail(c->r, c->g, c->kind, st, "rank %d (member %d), step %d of %d: %s",
                      c->r->rank, c->g->me, c->step, c->nsteps, why);
}

// One ring step: send scount elements to the right neighbour and receive
// rcount from the left one, both posted before either is waited for. Odd
// members post the receive first, even members the send: the ring then
// makes progress even where posting a send waits for its receive (and the
// sender's buffer is the receiver's to read until the send completes, so it
// is never written during the step). Links are full duplex: both transfers
// start from the step's start on the communication stream, which is busy
// until the later of the two ends.
static SimStatus exchange(GroupCall *c, const void *sbuf, size_t scount, void *rbuf,
                          size_t rcount) {
    SimRank *r = c->r;
    SimCollArgs send = {SIM_COLL_SEND, SIM_ALGO_AUTO, c->dt, SIM_SUM, sbuf, NULL, scount, 0,
                        c->right};
    SimCollArgs recv = {SIM_COLL_RECV, SIM_ALGO_AUTO, c->dt, SIM_SUM, NULL, rbuf, rcount, 0,
                        c->left};
    const SimCollArgs *order[2] = {&send, &recv};
    if (c->g->me % 2 != 0) {
        order[0] = &recv;
        order[1] = &send;
    }
    SimCollHandle h[2];
    double t0 = r->clock[SIM_STREAM_COMM];
    SimStatus st = sim_coll_launch(r, order[0], &h[0]);
    if (st != SIM_OK)
        return step_fail(c, st);
    double end0 = r->clock[SIM_STREAM_COMM];
    r->clock[SIM_STREAM_COMM] = t0;
    st = sim_coll_launch(r, order[1], &h[1]);
    if (r->clock[SIM_STREAM_COMM] < end0)
        r->clock[SIM_STREAM_COMM] = end0;
    // Wait for every posted transfer even after a failure (that withdraws a
    // message); keep the first failure's explanation.
    char first[sizeof r->error];
    snprintf(first, sizeof first, "%s", r->error);
    for (int i = 0; i < 2; i++) {
        if (i == 1 && st != SIM_OK && !h[1].launched)
            break;
        SimStatus ws = sim_coll_wait(r, &h[i]);
        if (st == SIM_OK && ws != SIM_OK) {
            st = ws;
            snprintf(first, sizeof first, "%s", r->error);
        }
    }
    if (st != SIM_OK) {
        snprintf(r->error, sizeof r->error, "%s", first);
        return step_fail(c, st);
    }
    c->step++;
    return SIM_OK;
}

// A local copy or reduction failed inside the ring (a backend copy error).
static SimStatus local_fail(GroupCall *c, SimStatus st, const char *what) {
    snprintf(c->r->error, sizeof c->r->error, "%s failed: %s", what, sim_strerror(st));
    return step_fail(c, st);
}

// ----------------------------------------------------------------------------
// the ring algorithms (n >= 2)

// Elements of chunk q of count, and a pointer to it in buf.
static size_t part_len(const GroupCall *c, size_t count, int q) {
    return sim_part_size(count, c->g->n, q);
}

static char *part_at(const GroupCall *c, const void *buf, size_t count, int q) {
    return byte_at(buf, sim_part_begin(count, c->g->n, q) * c->esz);
}

// all_reduce: recv is the work buffer. Reduce-scatter step s: send chunk
// (me-1-s) right, receive chunk (me-2-s) into scratch and add it to the own
// chunk; after n-1 steps member me holds the reduced chunk me. All-gather
// step s: send chunk (me-s), receive chunk (me-1-s) straight into place.
static SimStatus ring_all_reduce(GroupCall *c, const void *send, void *recv) {
    int n = c->g->n, me = c->g->me;
    size_t count = c->count;
    SimStatus st = local_copy(c->r, recv, send, count * c->esz);
    if (st != SIM_OK)
        return local_fail(c, st, "the copy of send into recv");
    SIM_CHECK(call_scratch(c, (count + (size_t)n - 1) / (size_t)n));
    void *tmp = c->scratch.data;
    for (int s = 0; s < n - 1; s++) {
        int out = mod(me - 1 - s, n), in = mod(me - 2 - s, n);
        size_t len = part_len(c, count, in);
        SIM_CHECK(exchange(c, part_at(c, recv, count, out), part_len(c, count, out), tmp, len));
        char *own = part_at(c, recv, count, in);
        if ((st = local_combine(c->r, own, own, tmp, len, c->dt, c->op)) != SIM_OK)
            return local_fail(c, st, "the reduction of a chunk");
    }
    for (int s = 0; s < n - 1; s++) {
        int out = mod(me - s, n), in = mod(me - 1 - s, n);
        SIM_CHECK(exchange(c, part_at(c, recv, count, out), part_len(c, count, out),
                           part_at(c, recv, count, in), part_len(c, count, in)));
    }
    if (c->op == SIM_AVG && (st = local_avg(c->r, recv, count, c->dt, n)) != SIM_OK)
        return local_fail(c, st, "the AVG division");
    return SIM_OK;
}

// reduce_scatter: the blocks of send stay untouched. Step s sends block
// (me-1-s) (step 0: straight from send; later: the partial sum received
// and combined in the previous step) and receives the partial of block
// (me-2-s), which is combined with the own block into one of two scratch
// halves, alternately; the last step (block me) combines into recv.
static SimStatus ring_reduce_scatter(GroupCall *c, const void *send, void *recv) {
    int n = c->g->n, me = c->g->me;
    size_t count = c->count, bytes = count * c->esz;
    SIM_CHECK(call_scratch(c, (n > 2 ? 2 : 1) * count));
    char *half[2] = {c->scratch.data, byte_at(c->scratch.data, n > 2 ? bytes : 0)};
    for (int s = 0; s < n - 1; s++) {
        int out = mod(me - 1 - s, n), in = mod(me - 2 - s, n);
        const char *sbuf = s == 0 ? byte_at(send, (size_t)out * bytes) : half[(s - 1) % 2];
        char *rbuf = half[s % 2];
        SIM_CHECK(exchange(c, sbuf, count, rbuf, count));
        char *dst = s == n - 2 ? (char *)recv : rbuf;
        SimStatus st = local_combine(c->r, dst, byte_at(send, (size_t)in * bytes), rbuf,
                                     count, c->dt, c->op);
        if (st != SIM_OK)
            return local_fail(c, st, "the reduction of a block");
    }
    if (c->op == SIM_AVG) {
        SimStatus st = local_avg(c->r, recv, count, c->dt, n);
        if (st != SIM_OK)
            return local_fail(c, st, "the AVG division");
    }
    return SIM_OK;
}

// all_gather: own block into place, then step s sends block (me-s) and
// receives block (me-1-s).
static SimStatus ring_all_gather(GroupCall *c, const void *send, void *recv) {
    int n = c->g->n, me = c->g->me;
    size_t bytes = c->count * c->esz;
    SimStatus st = local_copy(c->r, byte_at(recv, (size_t)me * bytes), send, bytes);
    if (st != SIM_OK)
        return local_fail(c, st, "the copy of send into recv");
    for (int s = 0; s < n - 1; s++) {
        int out = mod(me - s, n), in = mod(me - 1 - s, n);
        SIM_CHECK(exchange(c, byte_at(recv, (size_t)out * bytes), c->count,
                           byte_at(recv, (size_t)in * bytes), c->count));
    }
    return SIM_OK;
}

// broadcast: the pipelined chain root -> root+1 -> ... -> root-1 on n
// chunks; each member receives chunk q from its left, then passes it on.
// The chain has no cycle, so plain blocking sends and receives are enough.
static SimStatus chain_broadcast(GroupCall *c, const void *send, void *recv, int root) {
    int n = c->g->n, pos = mod(c->g->me - root, n);
    size_t count = c->count;
    if (pos == 0) {
        SimStatus st = local_copy(c->r, recv, send, count * c->esz);
        if (st != SIM_OK)
            return local_fail(c, st, "the copy of send into recv");
    }
    for (int q = 0; q < n; q++) {
        char *p = part_at(c, recv, count, q);
        size_t len = part_len(c, count, q);
        SimStatus st = SIM_OK;
        if (pos > 0)
            st = sim_recv(c->r, p, len, c->dt, c->left);
        if (st == SIM_OK && pos < n - 1)
            st = sim_send(c->r, p, len, c->dt, c->right);
        if (st != SIM_OK)
            return step_fail(c, st);
        c->step++;
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// entry points

// The single-member group: copy (AVG divides by 1, the identity), and one
// event of zero duration.
static SimStatus solo(GroupCall *c, const void *send, void *recv) {
    SimStatus st = local_copy(c->r, recv, send, c->count * c->esz);
    if (st != SIM_OK)
        st = local_fail(c, st, "the copy of send into recv");
    return call_end(c, st);
}

SimStatus sim_group_all_reduce(SimRank *r, const SimGroup *g, const void *send, void *recv,
                               size_t count, SimDtype dt, SimRedOp op) {
    SimCollKind k = SIM_COLL_ALL_REDUCE;
    SIM_CHECK(group_check(r, g, k, send, recv, count, dt, op, 0));
    if (sim_group_is_world(g, r) && g->n > 1)
        return sim_all_reduce(r, send, recv, count, dt, op, SIM_ALGO_RING);
    GroupCall c;
    call_begin(&c, r, g, k, dt, op, count, 0);
    if (g->n == 1)
        return solo(&c, send, recv);
    return call_end(&c, ring_all_reduce(&c, send, recv));
}

SimStatus sim_group_reduce_scatter(SimRank *r, const SimGroup *g, const void *send, void *recv,
                                   size_t recvcount, SimDtype dt, SimRedOp op) {
    SimCollKind k = SIM_COLL_REDUCE_SCATTER;
    SIM_CHECK(group_check(r, g, k, send, recv, recvcount, dt, op, 0));
    if (sim_group_is_world(g, r) && g->n > 1)
        return sim_reduce_scatter(r, send, recv, recvcount, dt, op, SIM_ALGO_RING);
    GroupCall c;
    call_begin(&c, r, g, k, dt, op, recvcount, 0);
    if (g->n == 1)
        return solo(&c, send, recv);
    return call_end(&c, ring_reduce_scatter(&c, send, recv));
}

SimStatus sim_group_all_gather(SimRank *r, const SimGroup *g, const void *send, void *recv,
                               size_t sendcount, SimDtype dt) {
    SimCollKind k = SIM_COLL_ALL_GATHER;
    SIM_CHECK(group_check(r, g, k, send, recv, sendcount, dt, SIM_SUM, 0));
    if (sim_group_is_world(g, r) && g->n > 1)
        return sim_all_gather(r, send, recv, sendcount, dt, SIM_ALGO_RING);
    GroupCall c;
    call_begin(&c, r, g, k, dt, SIM_SUM, sendcount, 0);
    if (g->n == 1)
        return solo(&c, send, recv);
    return call_end(&c, ring_all_gather(&c, send, recv));
}

SimStatus sim_group_broadcast(SimRank *r, const SimGroup *g, const void *send, void *recv,
                              size_t count, SimDtype dt, int root_index) {
    SimCollKind k = SIM_COLL_BROADCAST;
    SIM_CHECK(group_check(r, g, k, send, recv, count, dt, SIM_SUM, root_index));
    if (sim_group_is_world(g, r) && g->n > 1)
        return sim_broadcast(r, send, recv, count, dt, sim_group_rank(g, root_index),
                             SIM_ALGO_RING);
    GroupCall c;
    call_begin(&c, r, g, k, dt, SIM_SUM, count, root_index);
    if (g->n == 1)
        return solo(&c, send, recv);
    return call_end(&c, chain_broadcast(&c, send, recv, root_index));
}
