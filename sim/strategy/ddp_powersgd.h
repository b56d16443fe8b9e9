// sim/strategy/ddp_powersgd.h: `--comm-hook powersgd`, the PowerSGD
// communication hook of PyTorch 1.13 (ddp_comm_hooks/powerSGD_hook.py:
// PowerSGDState and powerSGD_hook; Vogels, Karimireddy and Jaggi, "PowerSGD:
// Practical Low-Rank Gradient Compression for Distributed Optimization",
// 2019) with torch's defaults: error feedback and warm start on,
// min_compression_rate 2, orthogonalization_epsilon 0, random_seed 0.
//
// What the hook does with one bucket (a flat fp32 buffer of the bucket's
// gradients, not divided by the world size R):
//   iterations before start_iter: divide by R, all_reduce SUM (plain)
//   afterwards:
//     error feedback  the bucket += the error this bucket kept last time
//                     (zeros the first time); a copy of the sum is kept
//     split           each gradient viewed as a matrix M of n = dim 0 rows
//                     and m = the rest columns, with r = min(n, m, rank):
//                     compressed when (n + m) r x min_compression_rate < n m,
//                     so never a 1-D tensor (m = 1); the others travel whole
//     uncompressed    concatenated, all_reduced SUM, divided by R, back
//     P = M Q         Q [m x r] from the last iteration (warm start),
//                     orthogonalised; the first time drawn from torch's
//                     generator seeded by numpy's RandomState(random_seed)
//     all_reduce P    (SUM; no division: P is orthogonalised next)
//     orthogonalise P Gram-Schmidt over its r columns
//     Q = M^T P       all_reduce Q (SUM), divided by R
//     M <- P Q^T      the bucket's approximation of the mean gradient
//     error           the kept copy minus the result, for the next iteration
// The iteration counter moves on when the bucket of the highest index has
// been handled, as PowerSGDState.maybe_increase_iter does.
//
// The traffic of a compressed matrix is (n + m) r elements instead of n m.
// Not modelled: torch.linalg.qr, which torch uses for r > 2 in fp32 instead
// of Gram-Schmidt. Both give an orthonormal basis of the same column space
// (columns equal up to sign), so M's approximation P P^T M is the same up
// to rounding.
#ifndef DDPLAB_SIM_DDP_POWERSGD_H
#define DDPLAB_SIM_DDP_POWERSGD_H

#include <stddef.h>
#include <stdint.h>

#include "base/tensor.h"    // defines: SimTensor
#include "base/torch_gen.h" // defines: SimTorchGen
#include "engine/world.h"   // defines: SimRank, SimCollHandle

typedef struct {
    int rank;                   // matrix_approximation_rank, >= 1 (default 1)
    int start_iter;             // start_powerSGD_iter, >= 2 (default 10; torch's 1000)
    double min_compression_rate; // default 2
    float epsilon;              // orthogonalization_epsilon, default 0
    uint32_t seed;              // random_seed, default 0
} SimDdpPowersgdOptions;

void sim_ddp_powersgd_options_default(SimDdpPowersgdOptions *o);

// PowerSGDState's check, word for word: start_iter must exceed 1 with
// error feedback or warm start. 0, or -1 with the message in err.
int sim_ddp_powersgd_options_check(const SimDdpPowersgdOptions *o, char *err, size_t len);

// One gradient of a bucket: where it starts in the bucket's buffer and
// the matrix it is viewed as (rows = dim 0, cols = numel / rows).
typedef struct {
    size_t offset;
    int64_t rows, cols;
} SimDdpPowersgdTensor;

// --- the arithmetic, on host floats (row-major matrices) ---

// Whether an n x m matrix is worth compressing at rank r (already
// min(n, m, rank)): (n + m) r x rate < n m.
int sim_ddp_powersgd_should_compress(int64_t n, int64_t m, int r, double rate);

// Gram-Schmidt over the r columns of a[n x r], in place: each column
// divided by its 2-norm (plus eps), then removed from the columns after
// it. A zero column with eps 0 becomes zeros: torch's code means to fill
// it with zeros when the division fails, but a tensor divided by a zero
// norm never raises, so torch gets NaN there.
void sim_ddp_powersgd_orthogonalize(float *a, int64_t n, int r, float eps);

// c[n x k] = a[n x m] b[m x k]; with trans_a, c[m x k] = a^T b for a[n x m]
// and b[n x k]. Sums in fp32, in index order.
void sim_ddp_powersgd_matmul(float *c, const float *a, const float *b, int64_t n, int64_t m,
                             int64_t k, int trans_a);
// m[n x m] = p[n x r] q[m x r]^T.
void sim_ddp_powersgd_outer(float *m, const float *p, const float *q, int64_t n, int64_t cols,
                            int r);

// numpy's RandomState(seed).randint(1000000000): the seed torch.manual_seed
// gets before a bucket's first Qs are drawn. np_rng is seeded as numpy's
// legacy seeding does (the same mt19937 init as torch's).
uint32_t sim_ddp_powersgd_draw_seed(SimTorchGen *np_rng);

// --- the hook on one rank ---

typedef struct SimDdpPowersgd SimDdpPowersgd;

// The state (PowerSGDState) for a plan of nbuckets; NULL when out of memory.
SimDdpPowersgd *sim_ddp_powersgd_new(const SimDdpPowersgdOptions *o, int world, int nbuckets);
// Every bucket's buffers, then the state.
void sim_ddp_powersgd_free(SimDdpPowersgd *p, SimRank *r);
// A new bucket plan (DDP's rebuild): the buckets' states dropped, to be
// made again for the new buckets (nbuckets of them) when next compressed.
SimStatus sim_ddp_powersgd_replan(SimDdpPowersgd *p, SimRank *r, int nbuckets);

// The hook on bucket `bucket` (buf: its flat fp32 buffer, the gradients
// not divided; t[nt]: its gradients in bucket order). Plain iterations
// divide and launch the all_reduce into *h. Compressed ones run the
// uncompressed and P all_reduces to the end and launch Q's into *h; then
// sim_ddp_powersgd_finish must follow. *compressed tells which.
SimStatus sim_ddp_powersgd_launch(SimDdpPowersgd *p, SimRank *r, int bucket, SimTensor *buf,
                                  const SimDdpPowersgdTensor *t, int nt, SimCollHandle *h,
                                  int *compressed);
// After Q's all_reduce was waited for: the approximation into buf, the
// new error kept.
SimStatus sim_ddp_powersgd_finish(SimDdpPowersgd *p, SimRank *r, int bucket, SimTensor *buf);

// What rank 0 saw over the run: elements all_reduced (sent) and elements
// a plain all_reduce would have moved (plain), the plain iterations'
// included; the iteration counter.
typedef struct {
    uint64_t sent, plain;
    int64_t iter;
    int start_iter, rank;
} SimDdpPowersgdTraffic;

void sim_ddp_powersgd_traffic(const SimDdpPowersgd *p, SimDdpPowersgdTraffic *out);

// The error bucket `bucket` keeps on this rank ([its numel] host floats), or
// NULL before its first compressed iteration or under --phantom.
const float *sim_ddp_powersgd_error(const SimDdpPowersgd *p, int bucket);

#endif
