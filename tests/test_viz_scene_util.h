// tests/test_viz_scene_util.h: traces from the real engine for the scene
// model's tests (a ring all_reduce, a DDP or FSDP training run), kept with
// their world (event names point into its trace), and scene digests for
// comparing scenes computed in different orders.
#ifndef DDPLAB_TESTS_VIZ_SCENE_UTIL_H
#define DDPLAB_TESTS_VIZ_SCENE_UTIL_H

#include <stdint.h>

#include "engine/world.h"
#include "scene.h"
#include "vtrace.h"

#define TVS_MAX_RANKS 8

typedef struct {
    SimWorld w;
    int R;
    VizTrace t;                          // the whole trace, in time order
    // Training runs: each rank's trace and ledger when the training loop
    // returned (before the trainer was freed), and the ledger at the end.
    VizTrace prefix;                     // events up to that point (built by hand)
    SimMemLedger at_end[TVS_MAX_RANKS];
    SimMemLedger final_mem[TVS_MAX_RANKS];
    size_t nprefix[TVS_MAX_RANKS];
} TvsRun;

// `colls` ring all_reduces of `count` floats on R ranks. 0, or 1 after
// printing why.
int tvs_ring(TvsRun *run, int R, int colls, size_t count);
// The same with another all_reduce algorithm.
int tvs_all_reduce(TvsRun *run, int R, int colls, size_t count, SimAlgo algo);
// `steps` iterations of mlp:16,32,32,4 on R ranks: DDP (ring all_reduce,
// buckets of about 1 KiB, so there are several) when fsdp = 0, FSDP
// FULL_SHARD when fsdp = 1.
int tvs_train(TvsRun *run, int R, int fsdp, int steps);
// As tvs_train on the simulated clock of a named device ("h100": its
// collectives overlap compute; the default CPU device's do not).
int tvs_train_on(TvsRun *run, int R, int fsdp, int steps, const char *device);
void tvs_free(TvsRun *run);

// A digest of everything the scene holds (strings by content).
uint64_t tvs_scene_hash(const VizScene *s);
// 0 when a and b hold the same; else prints the first part that differs.
int tvs_scene_diff(const VizScene *a, const VizScene *b);

// A VizTrace over ev[0..n) (copied), built by hand: pool NULL, info zeroed.
int tvs_trace_by_hand(VizTrace *t, const SimEvent *ev, size_t n, int nranks);
void tvs_trace_by_hand_free(VizTrace *t);

#endif
