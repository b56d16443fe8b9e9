// tests/test_viz_hand.h: scenes built by hand (VizScene is plain data), so
// the layout and the panel drawers are tested without a trace or a model.
#ifndef DDPLAB_TESTS_VIZ_HAND_H
#define DDPLAB_TESTS_VIZ_HAND_H

#include "scene.h"

enum { THAND_MAX_R = 64, THAND_COLS = 120 };

typedef struct {
    VizScene s;
    SimTraceInfo info;
    VizRankBox ranks[THAND_MAX_R];
    VizParam params[8];
    VizBucket buckets[4];
    uint64_t held[THAND_MAX_R * THAND_MAX_R];
    int nheld[THAND_MAX_R * THAND_MAX_R];
    VizUnit units[5];
    uint8_t state[5 * THAND_MAX_R];
    uint8_t compute[VIZ_TIMELINE_MAX_RANKS * THAND_COLS];
    uint8_t comm[VIZ_TIMELINE_MAX_RANKS * THAND_COLS];
} THand;

// DDP, iteration 1 of 0-2, every rank in backward, buckets as rank 0 sees
// them (the plan rebuilt in iteration 1): #0 done, #1 reducing (ring
// all_reduce, reduce-scatter step 3 of 6 at R = 4), #2 launched on rank 0
// while rank R-1 is still filling it. Capacity 1 GiB.
void thand_ddp(THand *h, int R);
// FSDP FULL_SHARD, forward of unit 2 of 5: unit 2 gathered everywhere,
// unit 1 being gathered, unit 0's gradient reduced; a ring all-gather of
// unit 2 in flight.
void thand_fsdp(THand *h, int R);
// DataParallel during dp.scatter; no collective.
void thand_dp(THand *h, int R);
// Turns the collective into topology topo with transfers from the root
// (star / tree) or all pairs (direct).
void thand_topo(THand *h, VizTopo topo);

#endif
