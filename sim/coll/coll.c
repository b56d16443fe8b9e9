// sim/coll/coll.c: names, buffer sizes, bandwidth conventions and argument checks
// of the collectives (the table of conventions is in coll.h).
#include "coll/coll.h"

#include <stdio.h>
#include <string.h>

static const char *const coll_names[SIM_COLL_COUNT] = {
    "all_reduce", "reduce_scatter", "all_gather", "broadcast", "reduce",
    "gather", "scatter", "send", "recv", "barrier"};
static const char *const coll_titles[SIM_COLL_COUNT] = {
    "AllReduce", "ReduceScatter", "AllGather", "Broadcast", "Reduce",
    "Gather", "Scatter", "Send", "Recv", "Barrier"};
static const char *const algo_names[SIM_ALGO_COUNT] = {"auto", "ring", "tree", "naive", "direct",
                                                      "dbtree", "nccl"};

const char *sim_coll_name(SimCollKind k) {
    return (unsigned)k < SIM_COLL_COUNT ? coll_names[k] : "?";
}

const char *sim_coll_title(SimCollKind k) {
    return (unsigned)k < SIM_COLL_COUNT ? coll_titles[k] : "?";
}

int sim_coll_parse(const char *s, SimCollKind *out) {
    for (int i = 0; s && i < SIM_COLL_COUNT; i++) {
        if (strcmp(s, coll_names[i]) == 0 || strcmp(s, coll_titles[i]) == 0) {
            *out = (SimCollKind)i;
            return 0;
        }
    }
    return -1;
}

const char *sim_algo_name(SimAlgo a) {
    return (unsigned)a < SIM_ALGO_COUNT ? algo_names[a] : "?";
}

const char *sim_algo_nccl_name(SimAlgo a) {
    return a == SIM_ALGO_RING ? "Ring" : a == SIM_ALGO_DBTREE ? "Tree" : NULL;
}

int sim_algo_parse(const char *s, SimAlgo *out) {
    for (int i = 0; s && i < SIM_ALGO_COUNT; i++) {
        if (strcmp(s, algo_names[i]) == 0) {
            *out = (SimAlgo)i;
            return 0;
        }
    }
    return -1;
}

int sim_coll_is_reduction(SimCollKind k) {
    return k == SIM_COLL_ALL_REDUCE || k == SIM_COLL_REDUCE_SCATTER || k == SIM_COLL_REDUCE;
}

int sim_coll_has_root(SimCollKind k) {
    return k == SIM_COLL_BROADCAST || k == SIM_COLL_REDUCE || k == SIM_COLL_GATHER ||
           k == SIM_COLL_SCATTER;
}

int sim_coll_supports(SimCollKind k, SimAlgo a) {
    if (a == SIM_ALGO_AUTO || a == SIM_ALGO_NCCL)
        return 1;
    if (a == SIM_ALGO_DBTREE) // NCCL's trees serve all_reduce; the rest runs its ring
        a = SIM_ALGO_RING;
    switch (k) {
    case SIM_COLL_ALL_REDUCE:
    case SIM_COLL_BROADCAST:
    case SIM_COLL_REDUCE:
        return a == SIM_ALGO_RING || a == SIM_ALGO_TREE || a == SIM_ALGO_NAIVE ||
               a == SIM_ALGO_DIRECT;
    case SIM_COLL_REDUCE_SCATTER:
    case SIM_COLL_ALL_GATHER:
        return a == SIM_ALGO_RING || a == SIM_ALGO_NAIVE || a == SIM_ALGO_DIRECT;
    case SIM_COLL_GATHER:
    case SIM_COLL_SCATTER:
        return a == SIM_ALGO_NAIVE || a == SIM_ALGO_DIRECT;
    default: // send, recv, barrier have a single protocol
        return 0;
    }
}

// AUTO picks the one-shot direct algorithm: on ranks that share memory it
// moves each byte the fewest times. NCCL without a cost to weigh is the
// ring (sim_cost_resolve_algo weighs it); DBTREE outside all_reduce is the
// ring. Point-to-point and barrier have no algorithm choice.
SimAlgo sim_coll_resolve_algo(SimCollKind k, SimAlgo a) {
    if (a == SIM_ALGO_DBTREE && k != SIM_COLL_ALL_REDUCE)
        return sim_coll_supports(k, a) ? SIM_ALGO_RING : a;
    if (a != SIM_ALGO_AUTO && a != SIM_ALGO_NCCL)
        return a;
    if (k == SIM_COLL_SEND || k == SIM_COLL_RECV || k == SIM_COLL_BARRIER)
        return SIM_ALGO_AUTO;
    if (a == SIM_ALGO_NCCL && k != SIM_COLL_GATHER && k != SIM_COLL_SCATTER)
        return SIM_ALGO_RING;
    return SIM_ALGO_DIRECT;
}

size_t sim_coll_send_count(SimCollKind k, size_t count, int nranks, int rank, int root) {
    switch (k) {
    case SIM_COLL_REDUCE_SCATTER: return (size_t)nranks * count;
    case SIM_COLL_SCATTER: return rank == root ? (size_t)nranks * count : 0;
    case SIM_COLL_BROADCAST: return rank == root ? count : 0;
    case SIM_COLL_RECV:
    case SIM_COLL_BARRIER: return 0;
    default: return count;
    }
}

size_t sim_coll_recv_count(SimCollKind k, size_t count, int nranks, int rank, int root) {
    switch (k) {
    case SIM_COLL_ALL_GATHER: return (size_t)nranks * count;
    case SIM_COLL_GATHER: return rank == root ? (size_t)nranks * count : 0;
    case SIM_COLL_REDUCE: return rank == root ? count : 0;
    case SIM_COLL_SEND:
    case SIM_COLL_BARRIER: return 0;
    default: return count;
    }
}

double sim_coll_algbw_bytes(SimCollKind k, size_t count, SimDtype dt, int nranks) {
    double bytes = (double)count * (double)sim_dtype_size(dt);
    switch (k) {
    case SIM_COLL_REDUCE_SCATTER:
    case SIM_COLL_ALL_GATHER:
    case SIM_COLL_GATHER:
    case SIM_COLL_SCATTER:
        return bytes * nranks;
    default:
        return bytes;
    }
}

double sim_coll_busbw_factor(SimCollKind k, int nranks) {
    double n = nranks;
    switch (k) {
    case SIM_COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
    case SIM_COLL_REDUCE_SCATTER:
    case SIM_COLL_ALL_GATHER:
    case SIM_COLL_GATHER:
    case SIM_COLL_SCATTER: return (n - 1) / n;
    default: return 1.0;
    }
}

int sim_coll_args_valid(const SimCollArgs *a, int nranks, int rank, char *err, size_t errlen) {
    const char *title = sim_coll_title(a->kind);
    if ((unsigned)a->kind >= SIM_COLL_COUNT) {
        snprintf(err, errlen, "unknown collective %d", (int)a->kind);
        return 0;
    }
    if ((unsigned)a->dtype >= SIM_DTYPE_COUNT) {
        snprintf(err, errlen, "%s : invalid dtype %d", title, (int)a->dtype);
        return 0;
    }
    if (sim_coll_is_reduction(a->kind) && (unsigned)a->op >= SIM_REDOP_COUNT) {
        snprintf(err, errlen, "%s : invalid reduction op %d", title, (int)a->op);
        return 0;
    }
    if ((unsigned)a->algo >= SIM_ALGO_COUNT || !sim_coll_supports(a->kind, a->algo)) {
        snprintf(err, errlen, "%s : algorithm %s is not supported", title, sim_algo_name(a->algo));
        return 0;
    }
    if (sim_coll_has_root(a->kind) && (a->root < 0 || a->root >= nranks)) {
        snprintf(err, errlen, "%s : root %d out of range [0, %d)", title, a->root, nranks);
        return 0;
    }
    if (a->kind == SIM_COLL_SEND || a->kind == SIM_COLL_RECV) {
        if (a->peer < 0 || a->peer >= nranks || a->peer == rank) {
            snprintf(err, errlen, "%s : peer %d invalid for rank %d of %d", title, a->peer,
                     rank, nranks);
            return 0;
        }
    }
    if (sim_coll_send_count(a->kind, a->count, nranks, rank, a->root) > 0 && !a->sendbuf) {
        snprintf(err, errlen, "%s : rank %d sendbuf is NULL", title, rank);
        return 0;
    }
    if (sim_coll_recv_count(a->kind, a->count, nranks, rank, a->root) > 0 && !a->recvbuf) {
        snprintf(err, errlen, "%s : rank %d recvbuf is NULL", title, rank);
        return 0;
    }
    return 1;
}

size_t sim_part_begin(size_t n, int parts, int i) {
    // (i * n) / parts without overflow for n up to 2^64 / parts.
    return (size_t)(((unsigned __int128)n * (unsigned)i) / (unsigned)parts);
}

size_t sim_part_size(size_t n, int parts, int i) {
    return sim_part_begin(n, parts, i + 1) - sim_part_begin(n, parts, i);
}
