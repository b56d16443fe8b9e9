// sim/engine/comm.h: what code running on a rank calls. Every collective goes through
// these wrappers, which (a) validate the arguments, (b) compute the simulated
// start from the rank's stream clocks, (c) hand the call to the backend, which
// executes it and reports its steps, and (d) trace the whole collective.
//
// Streams: a collective runs on the rank's communication stream. It starts
// (simulated) when the comm stream is free and the compute stream has reached
// the launch point, and when every participant has arrived. sim_coll_wait joins
// the compute stream to the collective's end, as a CUDA event wait does.
//
// In a phantom world (SimWorldConfig.phantom) the buffers may be NULL: the
// backend runs the collective's rendezvous, schedule, clocks and trace and
// moves no data.
#ifndef DDPLAB_SIM_COMM_H
#define DDPLAB_SIM_COMM_H

#include "engine/world.h" // defines: SimRank, SimCollHandle

// Asynchronous form: launch, then wait. h must stay at the same address until
// sim_coll_wait returns.
SimStatus sim_coll_launch(SimRank *r, const SimCollArgs *a, SimCollHandle *h);
SimStatus sim_coll_wait(SimRank *r, SimCollHandle *h);

// Blocking forms (launch + wait).
SimStatus sim_all_reduce(SimRank *r, const void *send, void *recv, size_t count,
                         SimDtype dt, SimRedOp op, SimAlgo algo);
SimStatus sim_reduce_scatter(SimRank *r, const void *send, void *recv, size_t recvcount,
                             SimDtype dt, SimRedOp op, SimAlgo algo);
SimStatus sim_all_gather(SimRank *r, const void *send, void *recv, size_t sendcount,
                         SimDtype dt, SimAlgo algo);
SimStatus sim_broadcast(SimRank *r, const void *send, void *recv, size_t count,
                        SimDtype dt, int root, SimAlgo algo);
SimStatus sim_reduce(SimRank *r, const void *send, void *recv, size_t count,
                     SimDtype dt, SimRedOp op, int root, SimAlgo algo);
SimStatus sim_gather(SimRank *r, const void *send, void *recv, size_t sendcount,
                     SimDtype dt, int root);
SimStatus sim_scatter(SimRank *r, const void *send, void *recv, size_t recvcount,
                      SimDtype dt, int root);
SimStatus sim_send(SimRank *r, const void *buf, size_t count, SimDtype dt, int peer);
SimStatus sim_recv(SimRank *r, void *buf, size_t count, SimDtype dt, int peer);
SimStatus sim_barrier(SimRank *r);

// Gathers `bytes` of host data from every rank into recv on every rank
// (rank k's at recv + k * bytes) through the backend, leaving no mark on
// the modelled run: no simulated time on any stream, no trace event, no
// sequence number, no injected fault, no charge to the memory ledger. For
// the simulator's own bookkeeping (a checkpoint's record of every rank's
// timeline, sim/train/train_timeline.c), never for what the modelled
// program does. Every rank calls it at the same point. SIM_ENOTSUP in a
// phantom world (no storage), SIM_ENOMEM, or the backend's failure.
SimStatus sim_all_gather_untimed(SimRank *r, const void *send, void *recv, size_t bytes);
// The same to rank 0 alone: only its recv is written (others may pass NULL).
SimStatus sim_gather_untimed(SimRank *r, const void *send, void *recv, size_t bytes);

// Advances the rank's compute stream by `seconds` of simulated time and traces
// it as a compute op named `name` (a static string).
void sim_rank_compute(SimRank *r, const char *name, double seconds);

#endif
