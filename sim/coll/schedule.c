// sim/coll/schedule.c: every collective algorithm written as a schedule of pull
// transfers (see sched.h for the model and the ordering contract).
//
// Legend: R = ranks, q = the rank asking, s = step within a phase,
// v = rank relative to the root, (v - root) mod R, chunk c = balanced part c.
#include "coll/schedule.h"

#include <string.h>

#include "coll/schedule_internal.h" // defines: sim_sched_put, sim_sched_dbtree

// ----------------------------------------------------------------------------
// small helpers

static int mod(int a, int n) {
    int m = a % n;
    return m < 0 ? m + n : m;
}

static int ceil_log2(int n) {
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

void sim_sched_put(SimXfer *out, int max, int *n, int src, int dst, int chunk,
                   size_t src_off, size_t dst_off, size_t count, SimXferOp op) {
    if (out && *n < max) {
        SimXfer x = {src, dst, chunk, src_off, dst_off, count, op};
        out[*n] = x;
    }
    (*n)++;
}

// Elements per chunk and offsets: per-rank blocks for the collectives whose
// buffers hold R blocks of `count`, balanced parts of `count` otherwise.
static int blocks_of_count(const SimSched *s) {
    return s->kind == SIM_COLL_REDUCE_SCATTER || s->kind == SIM_COLL_ALL_GATHER ||
           s->kind == SIM_COLL_GATHER || s->kind == SIM_COLL_SCATTER;
}

static size_t chunk_off(const SimSched *s, int c) {
    if (blocks_of_count(s))
        return (size_t)c * s->count;
    return sim_part_begin(s->count, s->nchunks, c);
}

static size_t chunk_len(const SimSched *s, int c) {
    if (blocks_of_count(s))
        return s->count;
    return sim_part_size(s->count, s->nchunks, c);
}

// Adds the transfer of chunk c from src to dst, same offsets on both sides.
static void put_chunk(const SimSched *s, SimXfer *out, int max, int *n, int src,
                      int dst, int c, SimXferOp op) {
    size_t off = chunk_off(s, c);
    sim_sched_put(out, max, n, src, dst, c, off, off, chunk_len(s, c), op);
}

static void put_whole(const SimSched *s, SimXfer *out, int max, int *n, int src,
                      int dst, SimXferOp op) {
    size_t len = blocks_of_count(s) ? (size_t)s->nranks * s->count : s->count;
    sim_sched_put(out, max, n, src, dst, -1, 0, 0, len, op);
}

// ----------------------------------------------------------------------------
// init

int sim_sched_init(SimSched *s, SimCollKind kind, SimAlgo algo, int nranks,
                   size_t count, int root) {
    memset(s, 0, sizeof *s);
    algo = sim_coll_resolve_algo(kind, algo);
    if (nranks < 1 || !sim_coll_supports(kind, algo))
        return -1;
    int R = nranks, L = ceil_log2(nranks);
    s->kind = kind;
    s->algo = algo;
    s->nranks = R;
    s->root = sim_coll_has_root(kind) ? root : 0;
    s->count = count;
    s->nchunks = R;
    s->nphases = 1;
    int p0 = 0, p1 = 0;
    switch (kind) {
    case SIM_COLL_ALL_REDUCE:
        s->nphases = 2;
        if (algo == SIM_ALGO_DBTREE) { // one phase: chunks go up and down at once
            s->nphases = 1;
            s->nchunks = 2 * sim_dbtree_chunks(count);
            p0 = R > 1 ? s->nchunks / 2 + 2 * sim_dbtree_height(R) - 1 : 0;
        } else if (algo == SIM_ALGO_RING)
            p0 = p1 = R - 1;
        else if (algo == SIM_ALGO_TREE)
            p0 = p1 = L;
        else
            p0 = p1 = R > 1 ? 1 : 0; // naive: reduce at root, broadcast
        if (algo == SIM_ALGO_TREE || algo == SIM_ALGO_NAIVE)
            s->nchunks = 1;
        break;
    case SIM_COLL_REDUCE_SCATTER:
    case SIM_COLL_ALL_GATHER:
        if (algo == SIM_ALGO_RING)
            p0 = R - 1;
        else if (algo == SIM_ALGO_NAIVE) {
            s->nphases = 2;
            p0 = p1 = R > 1 ? 1 : 0;
        } else
            p0 = R > 1 ? 1 : 0;
        break;
    case SIM_COLL_BROADCAST:
    case SIM_COLL_REDUCE:
        if (algo == SIM_ALGO_RING)
            p0 = R > 1 ? s->nchunks + R - 2 : 0; // pipelined chain
        else if (algo == SIM_ALGO_TREE) {
            p0 = L;
            s->nchunks = 1;
        } else {
            p0 = R > 1 ? 1 : 0;
            s->nchunks = 1;
        }
        break;
    case SIM_COLL_GATHER:
    case SIM_COLL_SCATTER:
        p0 = R > 1 ? 1 : 0;
        break;
    default: // send, recv, barrier: no schedule
        s->nchunks = 1;
        break;
    }
    s->phase_steps[0] = p0;
    s->phase_steps[1] = s->nphases == 2 ? p1 : 0;
    s->nsteps = p0 + s->phase_steps[1];
    return 0;
}

// ----------------------------------------------------------------------------
// buffers

SimWorkKind sim_sched_work(const SimSched *s, int rank, size_t *work_count) {
    size_t R = (size_t)s->nranks;
    switch (s->kind) {
    case SIM_COLL_REDUCE_SCATTER:
        *work_count = R * s->count;
        return SIM_WORK_SCRATCH;
    case SIM_COLL_ALL_GATHER:
        *work_count = R * s->count;
        return SIM_WORK_RECV;
    case SIM_COLL_REDUCE:
        *work_count = s->count;
        return rank == s->root ? SIM_WORK_RECV : SIM_WORK_SCRATCH;
    case SIM_COLL_GATHER:
        *work_count = rank == s->root ? R * s->count : s->count;
        return rank == s->root ? SIM_WORK_RECV : SIM_WORK_SEND;
    case SIM_COLL_SCATTER:
        *work_count = rank == s->root ? R * s->count : s->count;
        return rank == s->root ? SIM_WORK_SEND : SIM_WORK_RECV;
    case SIM_COLL_SEND:
    case SIM_COLL_RECV:
    case SIM_COLL_BARRIER:
        *work_count = 0;
        return SIM_WORK_RECV;
    default: // all_reduce, broadcast
        *work_count = s->count;
        return SIM_WORK_RECV;
    }
}

int sim_sched_init_copy(const SimSched *s, int rank, size_t *src_off, size_t *dst_off,
                        size_t *count) {
    *src_off = *dst_off = *count = 0;
    switch (s->kind) {
    case SIM_COLL_ALL_REDUCE:
    case SIM_COLL_REDUCE:
        *count = s->count;
        break;
    case SIM_COLL_REDUCE_SCATTER:
        *count = (size_t)s->nranks * s->count;
        break;
    case SIM_COLL_ALL_GATHER:
        *dst_off = (size_t)rank * s->count;
        *count = s->count;
        break;
    case SIM_COLL_BROADCAST:
        *count = rank == s->root ? s->count : 0;
        break;
    case SIM_COLL_GATHER:
        *dst_off = (size_t)rank * s->count;
        *count = rank == s->root ? s->count : 0;
        break;
    default:
        break;
    }
    return *count > 0;
}

int sim_sched_final_copy(const SimSched *s, int rank, size_t *work_off, size_t *recv_off,
                         size_t *count) {
    *work_off = *recv_off = *count = 0;
    if (s->kind == SIM_COLL_REDUCE_SCATTER) {
        *work_off = (size_t)rank * s->count;
        *count = s->count;
    } else if (s->kind == SIM_COLL_SCATTER && rank == s->root) {
        *work_off = (size_t)rank * s->count;
        *count = s->count;
    }
    return *count > 0;
}

// ----------------------------------------------------------------------------
// ring: reduce-scatter and all-gather phases, and the pipelined chain

// Reduce-scatter step s: q receives chunk (q-2-s) from q-1 and adds it.
static void ring_rs(const SimSched *s, int q, int st, int in, SimXfer *out, int max, int *n) {
    int R = s->nranks;
    if (in)
        put_chunk(s, out, max, n, mod(q - 1, R), q, mod(q - 2 - st, R), SIM_XFER_REDUCE);
    else
        put_chunk(s, out, max, n, q, mod(q + 1, R), mod(q - 1 - st, R), SIM_XFER_REDUCE);
}

// All-gather step s: q receives chunk (q-1-s) from q-1 and copies it.
static void ring_ag(const SimSched *s, int q, int st, int in, SimXfer *out, int max, int *n) {
    int R = s->nranks;
    if (in)
        put_chunk(s, out, max, n, mod(q - 1, R), q, mod(q - 1 - st, R), SIM_XFER_COPY);
    else
        put_chunk(s, out, max, n, q, mod(q + 1, R), mod(q - st, R), SIM_XFER_COPY);
}

// Pipelined chain: position p receives chunk (t - (p-1)) from position p-1.
// Broadcast runs root -> root+1 -> ...; reduce runs root+1 -> ... -> root.
static void chain(const SimSched *s, int q, int t, int in, SimXfer *out, int max, int *n) {
    int R = s->nranks;
    int reduce = s->kind == SIM_COLL_REDUCE;
    int first = reduce ? mod(s->root + 1, R) : s->root;
    int p = mod(q - first, R);
    SimXferOp op = reduce ? SIM_XFER_REDUCE : SIM_XFER_COPY;
    if (in && p >= 1) {
        int c = t - (p - 1);
        if (c >= 0 && c < s->nchunks)
            put_chunk(s, out, max, n, mod(q - 1, R), q, c, op);
    } else if (!in && p <= R - 2) {
        int c = t - p;
        if (c >= 0 && c < s->nchunks)
            put_chunk(s, out, max, n, q, mod(q + 1, R), c, op);
    }
}

// ----------------------------------------------------------------------------
// binomial tree on ranks relative to the root

// Reduce level k: v (v % 2^(k+1) == 0) adds in v + 2^k.
static void tree_up(const SimSched *s, int q, int k, int in, SimXfer *out, int max, int *n) {
    int R = s->nranks, v = mod(q - s->root, R), h = 1 << k;
    if (in && v % (2 * h) == 0 && v + h < R)
        put_whole(s, out, max, n, mod(q + h, R), q, SIM_XFER_REDUCE);
    else if (!in && v % (2 * h) == h)
        put_whole(s, out, max, n, q, mod(q - h, R), SIM_XFER_REDUCE);
}

// Broadcast level k: v (v % 2^(k+1) == 2^k) copies from v - 2^k.
static void tree_down(const SimSched *s, int q, int k, int in, SimXfer *out, int max, int *n) {
    int R = s->nranks, v = mod(q - s->root, R), h = 1 << k;
    if (in && v % (2 * h) == h)
        put_whole(s, out, max, n, mod(q - h, R), q, SIM_XFER_COPY);
    else if (!in && v % (2 * h) == 0 && v + h < R)
        put_whole(s, out, max, n, q, mod(q + h, R), SIM_XFER_COPY);
}

// ----------------------------------------------------------------------------
// star through a root (naive) and all-to-all (direct)

// Every other rank -> root (whole buffer, or one chunk each for gathers).
static void star_in(const SimSched *s, int q, int root, int in, int per_chunk, SimXferOp op,
                    SimXfer *out, int max, int *n) {
    if (in && q == root) {
        for (int j = 0; j < s->nranks; j++) {
            if (j == root)
                continue;
            if (per_chunk)
                put_chunk(s, out, max, n, j, q, j, op);
            else
                put_whole(s, out, max, n, j, q, op);
        }
    } else if (!in && q != root) {
        if (per_chunk)
            put_chunk(s, out, max, n, q, root, q, op);
        else
            put_whole(s, out, max, n, q, root, op);
    }
}

// Root -> every other rank: the whole buffer, one chunk each (scatter), or
// every chunk but the receiver's own (all-gather / reduce-scatter results).
typedef enum { STAR_WHOLE, STAR_OWN_CHUNK, STAR_OTHER_CHUNKS } StarOut;

static void star_out_one(const SimSched *s, int root, int j, StarOut how, SimXfer *out,
                         int max, int *n) {
    if (how == STAR_WHOLE) {
        put_whole(s, out, max, n, root, j, SIM_XFER_COPY);
    } else if (how == STAR_OWN_CHUNK) {
        if (s->kind == SIM_COLL_SCATTER) // root's send block j -> j's recv at 0
            sim_sched_put(out, max, n, root, j, j, (size_t)j * s->count, 0, s->count, SIM_XFER_COPY);
        else
            put_chunk(s, out, max, n, root, j, j, SIM_XFER_COPY);
    } else {
        for (int c = 0; c < s->nranks; c++)
            if (c != j)
                put_chunk(s, out, max, n, root, j, c, SIM_XFER_COPY);
    }
}

static void star_out(const SimSched *s, int q, int root, int in, StarOut how, SimXfer *out,
                     int max, int *n) {
    if (in && q != root) {
        star_out_one(s, root, q, how, out, max, n);
    } else if (!in && q == root) {
        for (int j = 0; j < s->nranks; j++)
            if (j != root)
                star_out_one(s, root, j, how, out, max, n);
    }
}

// Direct reduce-scatter: q adds chunk q from every peer (in rank order).
// Direct all-gather: q copies chunk j from every peer j.
static void direct(const SimSched *s, int q, int gather, int in, SimXfer *out, int max, int *n) {
    for (int j = 0; j < s->nranks; j++) {
        if (j == q)
            continue;
        if (gather && in)
            put_chunk(s, out, max, n, j, q, j, SIM_XFER_COPY);
        else if (gather)
            put_chunk(s, out, max, n, q, j, q, SIM_XFER_COPY);
        else if (in)
            put_chunk(s, out, max, n, j, q, q, SIM_XFER_REDUCE);
        else
            put_chunk(s, out, max, n, q, j, j, SIM_XFER_REDUCE);
    }
}

// ----------------------------------------------------------------------------
// dispatch

static void transfers(const SimSched *s, int q, int t, int in, SimXfer *out, int max, int *n) {
    int ph = sim_sched_phase(s, t);
    int st = ph == 0 ? t : t - s->phase_steps[0];
    int L = s->phase_steps[0];
    switch (s->kind) {
    case SIM_COLL_ALL_REDUCE:
        if (s->algo == SIM_ALGO_RING)
            (ph == 0 ? ring_rs : ring_ag)(s, q, st, in, out, max, n);
        else if (s->algo == SIM_ALGO_DBTREE)
            sim_sched_dbtree(s, q, t, in, out, max, n);
        else if (s->algo == SIM_ALGO_TREE)
            ph == 0 ? tree_up(s, q, st, in, out, max, n) : tree_down(s, q, L - 1 - st, in, out, max, n);
        else if (s->algo == SIM_ALGO_NAIVE)
            ph == 0 ? star_in(s, q, 0, in, 0, SIM_XFER_REDUCE, out, max, n)
                    : star_out(s, q, 0, in, STAR_WHOLE, out, max, n);
        else
            direct(s, q, ph == 1, in, out, max, n);
        break;
    case SIM_COLL_REDUCE_SCATTER:
    case SIM_COLL_ALL_GATHER: {
        int gather = s->kind == SIM_COLL_ALL_GATHER;
        if (s->algo == SIM_ALGO_RING)
            (gather ? ring_ag : ring_rs)(s, q, st, in, out, max, n);
        else if (s->algo == SIM_ALGO_DIRECT)
            direct(s, q, gather, in, out, max, n);
        else if (ph == 0)
            star_in(s, q, 0, in, gather, gather ? SIM_XFER_COPY : SIM_XFER_REDUCE, out, max, n);
        else
            star_out(s, q, 0, in, gather ? STAR_OTHER_CHUNKS : STAR_OWN_CHUNK, out, max, n);
        break;
    }
    case SIM_COLL_BROADCAST:
        if (s->algo == SIM_ALGO_RING)
            chain(s, q, t, in, out, max, n);
        else if (s->algo == SIM_ALGO_TREE)
            tree_down(s, q, L - 1 - t, in, out, max, n);
        else
            star_out(s, q, s->root, in, STAR_WHOLE, out, max, n);
        break;
    case SIM_COLL_REDUCE:
        if (s->algo == SIM_ALGO_RING)
            chain(s, q, t, in, out, max, n);
        else if (s->algo == SIM_ALGO_TREE)
            tree_up(s, q, t, in, out, max, n);
        else
            star_in(s, q, s->root, in, 0, SIM_XFER_REDUCE, out, max, n);
        break;
    case SIM_COLL_GATHER:
        if (in && q == s->root) {
            for (int j = 0; j < s->nranks; j++)
                if (j != q)
                    sim_sched_put(out, max, n, j, q, j, 0, (size_t)j * s->count, s->count, SIM_XFER_COPY);
        } else if (!in && q != s->root) {
            sim_sched_put(out, max, n, q, s->root, q, 0, (size_t)q * s->count, s->count, SIM_XFER_COPY);
        }
        break;
    case SIM_COLL_SCATTER:
        star_out(s, q, s->root, in, STAR_OWN_CHUNK, out, max, n);
        break;
    default:
        break;
    }
}

int sim_sched_incoming(const SimSched *s, int rank, int step, SimXfer *out, int max) {
    int n = 0;
    if (step >= 0 && step < s->nsteps && rank >= 0 && rank < s->nranks)
        transfers(s, rank, step, 1, out, max, &n);
    return n;
}

int sim_sched_outgoing(const SimSched *s, int rank, int step, SimXfer *out, int max) {
    int n = 0;
    if (step >= 0 && step < s->nsteps && rank >= 0 && rank < s->nranks)
        transfers(s, rank, step, 0, out, max, &n);
    return n;
}

int sim_sched_phase(const SimSched *s, int step) {
    return s->nphases == 2 && step >= s->phase_steps[0] ? 1 : 0;
}

const char *sim_sched_phase_label(const SimSched *s, int step) {
    int ph = sim_sched_phase(s, step);
    switch (s->kind) {
    case SIM_COLL_ALL_REDUCE:
        if (s->algo == SIM_ALGO_RING || s->algo == SIM_ALGO_DIRECT)
            return ph == 0 ? "reduce-scatter" : "all-gather";
        if (s->algo == SIM_ALGO_DBTREE)
            return "reduce+broadcast";
        return ph == 0 ? "reduce" : "broadcast";
    case SIM_COLL_REDUCE_SCATTER:
        return s->algo == SIM_ALGO_NAIVE && ph == 1 ? "scatter" : "reduce-scatter";
    case SIM_COLL_ALL_GATHER:
        return s->algo == SIM_ALGO_NAIVE && ph == 0 ? "gather" : "all-gather";
    case SIM_COLL_BROADCAST: return "broadcast";
    case SIM_COLL_REDUCE: return "reduce";
    case SIM_COLL_GATHER: return "gather";
    case SIM_COLL_SCATTER: return "scatter";
    default: return sim_coll_name(s->kind);
    }
}
