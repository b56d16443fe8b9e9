// sim/engine/group.h: collectives over a subset of the ranks (process groups), as
// HYBRID_SHARD needs them: the ranks of one node, and the ranks with the same
// local rank across nodes.
//
// A group is an arithmetic progression of world ranks: member i is world rank
// first + i*stride, for i in [0, n). Every group ddplab builds is one (a node
// is a run of consecutive ranks, the same local rank across nodes is a stride
// of ranks_per_node), and the progression has no cap on the group's size.
//
// Semantics are those of the world collectives (sim/coll/coll.h) with R replaced
// by the group's size n and the rank by the member index `me`: NCCL's count
// conventions, in-place calls as NCCL allows them (reduce_scatter: recv ==
// send + me*recvcount; all_gather: send == recv + me*sendcount; all_reduce
// and broadcast: recv == send), every reduction op and dtype of the world
// collectives, AVG divided once by n at the end.
//
// How a call runs:
//   n == world size  the world collective itself (ring algorithm), so the
//                    trace shows the real collective;
//   n == 1           a local copy (AVG is the identity);
//   otherwise        a ring over the members made of sim_send / sim_recv:
//                    all_reduce = (n-1) reduce-scatter steps then (n-1)
//                    all-gather steps on the balanced parts of count, with
//                    the chunk mapping of the world ring (sim/coll/schedule.h),
//                    so every element is combined in the same order as the
//                    world ring over those members would combine it and the
//                    result is identical on every member; reduce_scatter and
//                    all_gather are one phase each; broadcast is the
//                    pipelined chain root -> root+1 -> ... on n chunks.
// Each ring step is an exchange with the neighbours: members with an even
// index post their send to the right and then receive from the left, members
// with an odd index receive first, so the ring cannot deadlock on a backend
// whose send waits for the matching receive.
//
// Simulated time and the trace come from the point-to-point layer (one
// Send/Recv event pair per step, priced on the link between the two ranks:
// intra-node for a node group, inter-node across nodes). Around them every
// member appends one SIM_EV_COLL event per call (name "AllReduce", ...;
// label = the group's name; bytes and count as the world collectives' events;
// nsteps = the world ring schedule's steps for n ranks; seq 0, as group calls
// have no place in the world's collective sequence; simulated start and end
// spanning the steps), so a view can draw the group collective as one block.
// Links are full duplex: a ring step's send and receive both start at the
// step's start on the communication stream, and the step ends at the later
// of their ends (group.c, exchange).
//
// Errors: bad arguments (a rank that is not the member it claims to be, a
// group that does not fit the world, NULL buffers, counts that overflow)
// return SIM_EINVAL with r->error naming the group. Members that disagree
// about count or dtype are caught by the point-to-point layer's size check
// (SIM_EPROTO); a member that never makes the call, or fails before its
// first step (bad arguments, scratch refused by the memory ledger), leaves
// its neighbours waiting until the watchdog stops the world. Members that
// disagree only about the reduction op are not detected (the messages carry
// no op).
//
// Phantom worlds (SimWorldConfig.phantom): buffers may be NULL; the ring
// runs every send and receive (clocks, trace, ledger) and skips the local
// copies and reductions.
//
// Memory: the ring's scratch buffers come from sim_tensor_alloc (category
// "comm buffers") and are freed before the call returns: all_reduce holds
// ceil(count/n) elements, reduce_scatter 2*recvcount (recvcount when n = 2),
// broadcast and all_gather none.
//
// Backends: local copies and reductions (sim_reduce_inplace, the CPU
// executor's own kernel) run on host blocks that pass through the backend's
// copy_to_host / copy_to_device, so nothing here dereferences a backend
// pointer: on the CPU backend those copies are memmove, on the CUDA backend
// they are cudaMemcpy to and from device memory, and the sends and receives
// are NCCL's (whose host-side pairing waits for the matching call, hence the
// even/odd order above). The tests run on the CPU backend only.
#ifndef DDPLAB_SIM_GROUP_H
#define DDPLAB_SIM_GROUP_H

#include <stddef.h>

#include "engine/comm.h" // defines: SimRank, SimDtype, SimRedOp, SimStatus

typedef struct {
    int n;            // ranks in the group (>= 1)
    int me;           // this rank's index in the group, or -1 if it is not a member
    int first;        // world rank of member 0
    int stride;       // world-rank distance between consecutive members (>= 1)
    const char *name; // static string for traces and errors: "intra-node", ...
} SimGroup;

// The group of r's node: ranks node*rpn .. node*rpn + rpn-1 (rpn = ranks per
// node), named "intra-node".
void sim_group_node(SimGroup *g, const SimRank *r);
// The ranks with r's local rank on every node: local, local+rpn, ...; named
// "inter-node".
void sim_group_cross(SimGroup *g, const SimRank *r);
// Every rank, in rank order; named "world".
void sim_group_world(SimGroup *g, const SimRank *r);
// Any progression first, first+stride, ... (n members); g->me is r's index,
// or -1 when r is not among them. `name` must be a static string.
void sim_group_init(SimGroup *g, const SimRank *r, int first, int stride, int n,
                    const char *name);

// World rank of member i (0 <= i < g->n).
int sim_group_rank(const SimGroup *g, int i);
// 1 if the group is every rank of r's world in rank order.
int sim_group_is_world(const SimGroup *g, const SimRank *r);

SimStatus sim_group_all_reduce(SimRank *r, const SimGroup *g, const void *send, void *recv,
                               size_t count, SimDtype dt, SimRedOp op);
SimStatus sim_group_reduce_scatter(SimRank *r, const SimGroup *g, const void *send, void *recv,
                                   size_t recvcount, SimDtype dt, SimRedOp op);
SimStatus sim_group_all_gather(SimRank *r, const SimGroup *g, const void *send, void *recv,
                               size_t sendcount, SimDtype dt);
// root_index is the member index of the root (its world rank is
// sim_group_rank(g, root_index)); only the root's send buffer is read.
SimStatus sim_group_broadcast(SimRank *r, const SimGroup *g, const void *send, void *recv,
                              size_t count, SimDtype dt, int root_index);

#endif
