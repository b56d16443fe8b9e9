// sim/data/sampler.h: which samples each rank sees, epoch by epoch, and how they
// are cut into mini-batches.
//
// The distributed sampler has the semantics of PyTorch's
// torch.utils.data.DistributedSampler, then batches like
// DataLoader(batch_size, drop_last). Legend: N = dataset size, R =
// num_replicas (world size), r = rank, B = batch size.
//
//   num_samples = drop_last && N % R != 0 ? ceil((N - R) / R)   (= N / R)
//                                          : ceil(N / R)
//   total_size  = num_samples * R
//   order       = shuffle ? a permutation of 0..N-1 seeded by seed + epoch
//                         : 0, 1, ..., N-1
//   drop_last false: order is padded to total_size by repeating it from the
//                    start (as many times as needed when N < R): element j
//                    of the padded order is order[j % N];
//   drop_last true:  order is cut to its first total_size elements;
//   rank r takes     order[r], order[r + R], order[r + 2R], ... (num_samples)
//   batches          consecutive runs of B of those; the last may be short,
//                    and is dropped when the loader's drop_last is set.
//
// With shuffle off the indices and batches are exactly PyTorch's. With
// shuffle on the permutation comes from ddplab's own generator (below), or,
// with rng SIM_RNG_TORCH, from torch.randperm(N, generator=g) after
// g.manual_seed(seed + epoch), as DistributedSampler.__iter__ draws it
// (base/torch_gen.h): then every index is PyTorch's too. Like PyTorch, the
// order only changes when set_epoch is called: forgetting it repeats epoch
// 0's order.
//
// The permutation: a Fisher-Yates shuffle driven by splitmix64 seeded with
// (uint64)(seed + epoch): start from 0..N-1, then for i = N-1 down to 1 swap
// element i with element j, j uniform in 0..i drawn by rejection (no modulo
// bias). Every rank computes the same permutation from the same seed.
//
// Without a distributed sampler (distributed = 0) every rank iterates the
// whole dataset, shuffled the same way on every rank: the classic mistake
// where R ranks train on the same data. With R = 1 both modes are a plain
// single-process sampler.
#ifndef DDPLAB_SIM_SAMPLER_H
#define DDPLAB_SIM_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"    // defines: SimStatus
#include "base/torch_gen.h" // defines: SimRngKind, SimTorchGen

// ----------------------------------------------------------------------------
// the generator behind shuffles and synthetic data: splitmix64

typedef struct {
    uint64_t state;
} SimSplitMix;

// Seeds g: the first output is splitmix64 of seed + golden gamma.
void sim_splitmix_seed(SimSplitMix *g, uint64_t seed);
uint64_t sim_splitmix_next(SimSplitMix *g);
// Uniform in 0..bound-1 (bound >= 1), without modulo bias.
uint64_t sim_splitmix_below(SimSplitMix *g, uint64_t bound);
// Uniform double in [0, 1) with 53 random bits.
double sim_splitmix_unit(SimSplitMix *g);

// Writes the permutation of 0..n-1 for `seed` (the sampler passes seed +
// epoch) into out[n], by the algorithm described above.
void sim_sampler_permutation(int64_t n, uint64_t seed, int64_t *out);

// ----------------------------------------------------------------------------
// the sampler and its batches

typedef struct {
    int64_t n;          // dataset size N (>= 0)
    int num_replicas;   // R >= 1
    int rank;           // 0 .. R-1
    int distributed;    // 1: DistributedSampler; 0: every rank sees every index
    int shuffle;        // PyTorch's default is 1
    int64_t seed;       // shared by all ranks (PyTorch's default 0)
    int drop_last;      // the sampler's: drop the tail instead of padding
    int batch_size;     // B >= 1
    int drop_last_batch; // the loader's: drop a short last batch
    SimRngKind rng;     // the shuffle's generator (SIM_RNG_DDPLAB by default)
} SimSamplerConfig;

typedef struct {
    SimSamplerConfig cfg;
    int64_t epoch;       // set by sim_sampler_set_epoch, 0 at first
    int64_t num_samples; // indices this rank gets per epoch
    int64_t total_size;  // num_samples * R (distributed), or N
    int64_t num_batches; // batches per epoch
    int64_t *order;      // [num_samples] this rank's indices for the epoch (heap)
    int64_t *perm;       // [N] scratch for the permutation (heap, NULL without shuffle)
    SimTorchGen *gen;    // PyTorch's generator (heap; only with shuffle and rng torch)
} SimSampler;

// Fills cfg with PyTorch's defaults for a dataset of n samples: one replica,
// rank 0, distributed, shuffle on, seed 0, no drop_last, batch size 1
// (and ddplab's generator).
void sim_sampler_defaults(SimSamplerConfig *cfg, int64_t n);

// Checks cfg and prepares epoch 0. SIM_EINVAL with a message naming the
// field (rank out of range, n < 0, batch_size < 1, ...), SIM_ENOMEM. On
// failure s holds nothing to release.
SimStatus sim_sampler_init(SimSampler *s, const SimSamplerConfig *cfg, char *err,
                           size_t errlen);
// Recomputes this rank's order for `epoch` (PyTorch's set_epoch followed by
// iterating the sampler).
void sim_sampler_set_epoch(SimSampler *s, int64_t epoch);
// Batch b (0 .. num_batches-1) of the current epoch: *idx points into the
// sampler's order (valid until the next set_epoch or free); returns its size
// (B, or less for the last batch), or 0 if b is out of range.
int sim_sampler_batch(const SimSampler *s, int64_t b, const int64_t **idx);
// num_samples for a DistributedSampler over n samples and r replicas, and
// the number of batches of size b out of m samples (pure formulas).
int64_t sim_sampler_num_samples(int64_t n, int r, int drop_last);
int64_t sim_sampler_batches_of(int64_t m, int b, int drop_last_batch);
void sim_sampler_free(SimSampler *s);

#endif
