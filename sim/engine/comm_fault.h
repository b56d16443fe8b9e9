// sim/engine/comm_fault.h: the collective-level faults of `--fault` (sim/engine/fault.h)
// where the comm layer applies them: skip, mismatch, reorder and crash at a
// launch, slow-link in the price of every transfer, slow-rank in the price
// of every compute op. Private to sim/ (comm.c and ops.c call it).
//
// Each fault leaves one SIM_EV_FAULT event, label "injected", on the rank
// where it happens, named "fault SPEC: what it does" (interned).
#ifndef DDPLAB_SIM_COMM_FAULT_H
#define DDPLAB_SIM_COMM_FAULT_H

#include <stddef.h>

#include "engine/world.h" // defines: SimRank, SimCollHandle, SimCollCall

// SimCollHandle.injected
enum {
    SIM_COMM_FAULT_NONE = 0,
    SIM_COMM_FAULT_SKIPPED, // skip: never given to the backend, no sequence
                            // number; done, and its wait traces nothing
    SIM_COMM_FAULT_HELD,    // reorder: pending, given to the backend after the
                            // next collective's launch, or at its own wait
};

// (comm.c) Gives a call that sim_coll_launch has prepared (h->call: args
// with the algorithm resolved, rank, schedule) to the backend: takes its
// sequence number, its simulated arrival and end, traces a failure. h is
// not cleared.
SimStatus sim_comm_start(SimRank *r, SimCollHandle *h);

// sim_coll_launch of the rank's k-th collective of its step (0-based; p2p
// not counted) in a world with a fault plan: the fault aimed at it, if any,
// else sim_comm_start.
SimStatus sim_comm_fault_launch(SimRank *r, SimCollHandle *h, int k);
// sim_coll_wait of a handle with h->injected set: a skipped call ends here
// (SIM_OK, h->launched cleared); a held one is launched now, in order
// (h->launched stays set on success and the normal wait follows).
SimStatus sim_comm_fault_wait(SimRank *r, SimCollHandle *h);

// slow-link: the simulated seconds of the whole collective (base: its
// fault-free price), of its step `step`, and of a message src -> dst, with
// every transfer touching a slow rank priced F times its latency and
// bytes / bandwidth. Return base when the plan has no slow-link.
double sim_comm_fault_coll_cost(SimRank *r, const SimCollCall *call, double base);
double sim_comm_fault_step_cost(const SimCollCall *call, int step, double base);
double sim_comm_fault_p2p_cost(SimRank *r, const SimCollCall *call, int src, int dst,
                               double base);

// slow-rank: the simulated seconds of a compute op of the rank (base: its
// fault-free price), times sim_fault_compute_factor at the rank's step.
double sim_comm_fault_compute(SimRank *r, double base);

#endif
