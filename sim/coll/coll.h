// sim/coll/coll.h: the collectives, their algorithms and their arguments.
//
// Count conventions follow NCCL (R = number of ranks):
//   all_reduce      count = elements in each rank's send and recv buffer
//   reduce_scatter  count = elements each rank receives; send has R*count
//   all_gather      count = elements each rank sends;    recv has R*count
//   broadcast       count = elements; root's send buffer goes to every recv
//   reduce          count = elements; only root's recv buffer is written
//   gather          count = elements each rank sends; root's recv has R*count
//   scatter         count = elements each rank receives; root's send has R*count
//   send / recv     count = elements; peer = the other rank
//   barrier         no buffers
// In-place means recvbuf == sendbuf, except for reduce_scatter (sendbuf +
// rank*count == recvbuf) and all_gather (recvbuf + rank*count == sendbuf), as
// in NCCL.
#ifndef DDPLAB_SIM_COLL_H
#define DDPLAB_SIM_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h" // defines: SimDtype, SimRedOp

typedef enum {
    SIM_COLL_ALL_REDUCE = 0,
    SIM_COLL_REDUCE_SCATTER,
    SIM_COLL_ALL_GATHER,
    SIM_COLL_BROADCAST,
    SIM_COLL_REDUCE,
    SIM_COLL_GATHER,
    SIM_COLL_SCATTER,
    SIM_COLL_SEND,
    SIM_COLL_RECV,
    SIM_COLL_BARRIER,
    SIM_COLL_COUNT
} SimCollKind;

typedef enum {
    SIM_ALGO_AUTO = 0, // resolved by the backend / sim_coll_resolve_algo
    SIM_ALGO_RING,     // ring: reduce-scatter + all-gather, chunk per rank
    SIM_ALGO_TREE,     // binomial tree: reduce to the root, then broadcast
    SIM_ALGO_NAIVE,    // star through the root (DataParallel's device 0)
    SIM_ALGO_DIRECT,   // one shot: every rank reads/writes every peer
    SIM_ALGO_DBTREE,   // NCCL's Tree: for all_reduce two binary trees with the
                       // buffer pipelined through them (schedule.h); as in
                       // NCCL, the other collectives run their ring
    SIM_ALGO_NCCL,     // a policy, not a schedule: NCCL's own choice, ring, or
                       // for all_reduce dbtree where the cost model prices it
                       // lower (sim_cost_resolve_algo); without a cost, ring
    SIM_ALGO_COUNT
} SimAlgo;

typedef struct {
    SimCollKind kind;
    SimAlgo algo;
    SimDtype dtype;
    SimRedOp op;       // reductions only
    const void *sendbuf;
    void *recvbuf;
    size_t count;      // see the table at the top of this file
    int root;          // broadcast, reduce, gather, scatter
    int peer;          // send, recv
} SimCollArgs;

const char *sim_coll_name(SimCollKind k);   // "all_reduce", ...
const char *sim_coll_title(SimCollKind k);  // "AllReduce", ... (NCCL's spelling)
int sim_coll_parse(const char *s, SimCollKind *out); // 0 ok, -1 unknown
const char *sim_algo_name(SimAlgo a);       // "auto", "ring", "tree", "naive", "direct", "dbtree", "nccl"
int sim_algo_parse(const char *s, SimAlgo *out);
// NCCL's name for the algorithm (NCCL_ALGO): "Ring", "Tree" for dbtree;
// NULL for those NCCL does not have and for its own choice (auto, nccl).
const char *sim_algo_nccl_name(SimAlgo a);

int sim_coll_is_reduction(SimCollKind k);
int sim_coll_has_root(SimCollKind k);
// 1 if the collective supports the algorithm (AUTO and NCCL always).
int sim_coll_supports(SimCollKind k, SimAlgo a);
// The schedule an algorithm runs as: DBTREE's for all_reduce, the ring
// elsewhere; AUTO's on a backend that executes the schedule,
// and NCCL's where the size and the links are not known (ring; gather and
// scatter, which NCCL runs as point-to-point sends: direct).
SimAlgo sim_coll_resolve_algo(SimCollKind k, SimAlgo a);

// Elements in the send and recv buffers of `rank` (NCCL conventions above).
size_t sim_coll_send_count(SimCollKind k, size_t count, int nranks, int rank, int root);
size_t sim_coll_recv_count(SimCollKind k, size_t count, int nranks, int rank, int root);

// nccl-tests conventions: bytes used for algbw, and the bus bandwidth factor.
//   all_reduce: bytes = count*size,    busbw = algbw * 2(R-1)/R
//   reduce_scatter / all_gather: bytes = R*count*size, busbw = algbw * (R-1)/R
//   broadcast / reduce: bytes = count*size, busbw = algbw * 1
//   gather / scatter: bytes = R*count*size, busbw = algbw * (R-1)/R
//   send/recv: bytes = count*size, factor 1
double sim_coll_algbw_bytes(SimCollKind k, size_t count, SimDtype dt, int nranks);
double sim_coll_busbw_factor(SimCollKind k, int nranks);

// Checks arguments that one rank can check alone (dtype, op, root and peer
// ranges, AVG/PROD on the types that allow them, algorithm support). Writes a
// one-line reason into err on failure.
int sim_coll_args_valid(const SimCollArgs *a, int nranks, int rank, char *err,
                        size_t errlen);

// Balanced partition of n elements into parts: part i is
// [i*n/parts, (i+1)*n/parts), so sizes differ by at most one element.
size_t sim_part_begin(size_t n, int parts, int i);
size_t sim_part_size(size_t n, int parts, int i);

#endif
