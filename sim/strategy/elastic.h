// sim/strategy/elastic.h: elastic training's plain parts, testable without a world:
//
// 1. The rendezvous of torch.distributed.elastic's dynamic rendezvous, one
//    round at a time, in simulated seconds:
//
//      JOINABLE --(MAX joined, or MIN joined and the last call ran out)--> FROZEN
//      FROZEN   --(training ended)--> FINAL
//      FROZEN   --(a member failed, left, or others wait to join)--> JOINABLE
//                                      (the next round: sim_rdzv_open)
//
//    Ranks are given in join order: the n-th participant admitted to a
//    round is rank n - 1. The agent (cli/run/run_elastic.c) joins the survivors
//    of the last round first, in their old rank order, then the waiting
//    joiners in the order they arrived, so survivors keep their relative
//    order and joiners come after them. A participant that arrives while
//    the round is frozen or full waits for the next round.
//
// 2. Membership changes (`--membership leave:rank=R,step=S` and
//    `join:step=S[,ranks=K]`), parsed.
//
// 3. The fault plan of the first world carried into a later one: faults
//    follow their participant (the process of first-world rank R) to its
//    new rank; a participant that is gone takes its faults with it; a crash
//    that has fired never fires again.
#ifndef DDPLAB_SIM_ELASTIC_H
#define DDPLAB_SIM_ELASTIC_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"  // defines: SimStatus
#include "engine/fault.h" // defines: SimFaultPlan

#define SIM_ELASTIC_MAX 256   // participants in one round (ranks of a world)
#define SIM_ELASTIC_EVENTS 16 // --membership specs

typedef enum {
    SIM_RDZV_JOINABLE = 0, // participants are joining
    SIM_RDZV_FROZEN,       // the round's members and ranks are fixed; training runs
    SIM_RDZV_FINAL,        // training ended; no further round
} SimRdzvState;

typedef struct {
    int min, max;          // --elastic MIN:MAX
    double last_call_s;    // after MIN joined, how long others may still join
    SimRdzvState state;
    int round;             // 0 for the first round, +1 for each sim_rdzv_open after it
    int n;                 // participants admitted to this round
    int id[SIM_ELASTIC_MAX]; // their ids, in rank order
    double opened_s;       // when this round opened
    double deadline_s;     // MIN reached: when the last call ends (-1 before)
    double frozen_s;       // when it froze (-1 before)
} SimRdzv;

// A rendezvous before its first round (state JOINABLE, round 0, nobody in).
// min in 1..max, max in 1..SIM_ELASTIC_MAX; last_call_s >= 0.
void sim_rdzv_init(SimRdzv *z, int min, int max, double last_call_s, double now);
// Starts the next round (from FROZEN): JOINABLE, nobody in, round + 1.
// SIM_EINVAL from JOINABLE or FINAL.
SimStatus sim_rdzv_open(SimRdzv *z, double now);
// Participant id asks to join at `now`. 1: admitted (its rank is n - 1; the
// round froze if it was the MAX-th); 0: the round is frozen or full, it
// waits for the next; -1: already a member, or FINAL.
int sim_rdzv_join(SimRdzv *z, int id, double now);
// Time passes: a JOINABLE round with MIN members freezes when the last
// call has run out (at its deadline). Returns the state.
SimRdzvState sim_rdzv_advance(SimRdzv *z, double now);
// Nobody else is coming: a JOINABLE round with at least MIN members waits
// out its last call and freezes (SIM_OK; frozen_s = the deadline, or now if
// later); with fewer than MIN it cannot form: SIM_EINVAL, and the round
// stays JOINABLE.
SimStatus sim_rdzv_settle(SimRdzv *z, double now);
// Training ended: FROZEN -> FINAL (SIM_EINVAL from another state).
SimStatus sim_rdzv_finish(SimRdzv *z);
// Rank of participant id in this round, or -1.
int sim_rdzv_rank(const SimRdzv *z, int id);
const char *sim_rdzv_state_name(SimRdzvState s); // "joinable", "frozen", "final"

// A membership change.
typedef enum { SIM_MEMBER_LEAVE = 0, SIM_MEMBER_JOIN } SimMemberKind;

typedef struct {
    SimMemberKind kind;
    int rank;        // leave: the first world's rank that goes away
    int64_t step;    // the optimizer step (1-based) at which it happens
    int ranks;       // join: how many ranks ask to join [1]
    char text[96];   // the spec as given
} SimMemberEvent;

// Parses "leave:rank=R,step=S" or "join:step=S[,ranks=K]" (R >= 0, S >= 1,
// K >= 1). SIM_EINVAL with one line in err (what is wrong, what is
// allowed).
SimStatus sim_member_parse(const char *spec, SimMemberEvent *ev, char *err, size_t errlen);

// The fault plan for a new round. `orig`: the plan as given (ranks of the
// first world = participant ids 0..R-1); fired[i] nonzero: orig->f[i] has
// fired and is dropped (crash faults fire once); z: the new round. Every
// fault with a rank follows its participant to its rank in z, or is
// dropped when that participant is not in z; faults without a rank stay.
void sim_elastic_remap_faults(const SimFaultPlan *orig, const uint8_t *fired, const SimRdzv *z,
                              SimFaultPlan *out);

#endif
