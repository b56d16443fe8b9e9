// tests/test_viz_paint_util.h: traces for the painted panels' tests: short
// training runs of the real engine on CPU ranks under each strategy, and
// hand-made FSDP shard traces of many units and ranks (the engine would
// take long to run those on threads).
#ifndef DDPLAB_TESTS_VIZ_PAINT_UTIL_H
#define DDPLAB_TESTS_VIZ_PAINT_UTIL_H

#include "vtrace.h" // defines: VizTrace

enum { TPAINT_MAX_RANKS = 16 };

// `steps` iterations of model (an mlp spec, e.g. "mlp:16,32,32,4") on R
// ranks (<= TPAINT_MAX_RANKS) under strategy: "ddp" (buckets of about
// 1 KiB, so that there are several), "dp", "fsdp" (FULL_SHARD, a unit per
// layer), "fsdp-offload" (the same with its shards in host memory),
// "zero1", "zero2" or "zero3". The trace's info names the strategy
// and gives each device capacity bytes (0: none). SIM_OK, or the engine's
// failure (printed).
SimStatus tpaint_run(VizTrace *t, const char *strategy, int R, const char *model, int steps,
                     uint64_t capacity);

// An FSDP FULL_SHARD trace by hand: U units ("blocks.0", ...) on R ranks in
// one group, announced, then a forward over every unit (gather, gathered,
// free) and a backward from the last unit down to unit `stop`, which ends
// gathered; the units after it are reduced, the one before it (the
// prefetch) is being gathered. Ends with unit stop's gathered event on
// rank R-1. SIM_OK or SIM_ENOMEM.
SimStatus tpaint_shard_trace(VizTrace *t, int R, int U, int stop);

// The index of the last event of t with kind, name (NULL: any) and label
// (NULL: any) on rank (-1: any), or SIZE_MAX.
size_t tpaint_find_last(const VizTrace *t, int kind, const char *name, const char *label,
                        int rank);
// The first such event at or after `from`, or SIZE_MAX.
size_t tpaint_find_from(const VizTrace *t, size_t from, int kind, const char *name,
                        const char *label, int rank);

#endif
