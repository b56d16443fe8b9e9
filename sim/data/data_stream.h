// sim/data/data_stream.h: a streaming loader's batches, drawn at random from the
// dataset step after step without a sampler, as a script's get_batch does
// (MiniGPT-style: `ix = torch.randint(len(data) - block, (B,), generator=g)`).
//
// Each rank owns one generator. The loop draws B indices uniform in 0..N-1,
// with replacement, per micro-batch, and the stream never restarts: batch k
// is the generator's draws k*B .. k*B+B-1. What makes the ranks read
// different data is the seed alone:
//
//   SIM_STREAM_RANK_SEEDS   rank r seeds its generator with seed + r
//                           (torch.Generator().manual_seed(base + rank)): the
//                           ranks' draws are independent, and R ranks read
//                           R x B samples per step, up to chance repeats;
//   SIM_STREAM_SHARED_SEED  every rank seeds it with seed, the script that
//                           forgot the rank: all ranks draw the same batch,
//                           so a step learns from B samples, not R x B.
//
// There is no epoch: the trainer's epochs still count batches as the
// sampler's would, but the indices no longer cover the dataset.
#ifndef DDPLAB_SIM_STREAM_H
#define DDPLAB_SIM_STREAM_H

#include <stdint.h>

#include "base/status.h"  // defines: SimStatus
#include "data/sampler.h" // defines: SimSplitMix

typedef enum {
    SIM_STREAM_OFF = 0,     // the distributed sampler reads the data
    SIM_STREAM_RANK_SEEDS,  // seed + rank on rank r
    SIM_STREAM_SHARED_SEED, // seed on every rank
} SimStreamSeeds;

typedef struct {
    SimSplitMix gen; // this rank's generator
    int64_t n;       // dataset size N >= 1
    int batch;       // B >= 1
    int64_t *idx;    // [B] the last batch drawn (heap)
} SimDataStream;

// The seed rank r's generator starts from.
uint64_t sim_data_stream_seed_of(SimStreamSeeds seeds, uint64_t seed, int rank);
// Prepares rank `rank`'s stream over n samples in batches of `batch`.
// SIM_EINVAL for n < 1, batch < 1 or seeds OFF; SIM_ENOMEM. On failure s
// holds nothing to release.
SimStatus sim_data_stream_init(SimDataStream *s, SimStreamSeeds seeds, uint64_t seed, int rank, int64_t n,
                          int batch);
// Draws the next batch: returns s->idx[B], valid until the next draw.
const int64_t *sim_data_stream_next(SimDataStream *s);
void sim_data_stream_free(SimDataStream *s);

// How much the ranks' draws repeat: over `batches` micro-batches of R ranks
// (the same stream positions on every rank), the number of distinct indices
// among each micro-batch's R x B draws, summed over the batches. Divided by
// batches x R x B it is the share of the global batch that is new data:
// near 1 with rank seeds (repeats by chance only), exactly 1/R with a shared
// seed. -1 when out of memory.
int64_t sim_data_stream_distinct(SimStreamSeeds seeds, uint64_t seed, int nranks, int64_t n, int batch,
                            int64_t batches);

#endif
