// sim/engine/timeline.h: the part of a rank's simulated timeline that no
// tensor holds, as a record a checkpoint can carry (sim/base/record.h): each
// stream's clock, the end of the last step run on the host (CPU offload),
// the sequence numbers of its collectives and point-to-point messages, the
// memory ledger's peaks, and which injected faults have shown their event.
// Resuming with it, a rank's clocks, the `seq` of its trace events and the
// peak its metrics report go on exactly where the saved run's were; without
// it they would start again from the one time the checkpoint's rank 0 had,
// from 0 and from what set-up allocated.
//
// The ledger's current charges are not in it: the resumed run's set-up
// allocates the same live state again (its model, buckets, shards), so
// they come out equal by construction.
#ifndef DDPLAB_SIM_TIMELINE_H
#define DDPLAB_SIM_TIMELINE_H

#include "base/record.h"  // defines: SimRecOut, SimRecIn
#include "engine/world.h" // defines: SimRank

typedef struct {
    double clock[SIM_STREAM_COUNT];
    double host_step_end;
    uint64_t coll_seq;
    uint64_t *p2p_seq;  // [2 * nranks] as SimRank.p2p_seq; NULL: all zero
    int64_t peak[SIM_MEM_SPACE_COUNT];
    int64_t at_peak[SIM_MEM_SPACE_COUNT][SIM_MEM_CAT_COUNT];
    double peak_sim;
    uint32_t fault_shown; // as SimRank.fault_shown: which injected faults have
                          // left their event (a fault shows it once per run)
} SimRankTimeline;

// Appends r's timeline to o, as fields "clock", "host_step_end", "coll_seq",
// "p2p" (pairs of index and count, for the counters that are not 0),
// "mem_peak", "mem_at_peak", "mem_peak_sim" and "fault_shown".
void sim_rank_timeline_write(const SimRank *r, SimRecOut *o);
// Reads what sim_rank_timeline_write wrote, for a world of nranks, into tl
// (heap inside: sim_rank_timeline_free). 0, or -1 when in is bad or a
// value is out of range (in->bad is then set) or memory ran out.
int sim_rank_timeline_read(SimRankTimeline *tl, SimRecIn *in, int nranks);
// Puts tl on rank r (which takes over tl->p2p_seq). The ledger keeps its
// current charges; its peaks become tl's.
void sim_rank_timeline_apply(SimRank *r, SimRankTimeline *tl);
void sim_rank_timeline_free(SimRankTimeline *tl);

#endif
