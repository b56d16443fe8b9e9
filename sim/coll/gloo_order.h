// sim/coll/gloo_order.h: the order in which gloo's ring all_reduce adds the
// ranks' values (gloo/allreduce.cc, ring(); the algorithm behind
// dist.all_reduce of a CPU tensor in PyTorch 1.13), as data.
//
// gloo cuts the buffer into numSegments = roundUp(max(ceil(bytes /
// maxSegmentSize), 2R), R) segments of ceil(count / numSegments) elements
// (maxSegmentSize = 1 MiB, a whole number of elements); chunk c is
// segments c*S .. c*S+S-1, S = numSegments / R, so the chunks are
// ceil-sized and the last ones may be short or empty. Rank r sends to rank
// r-1 and receives from rank r+1; each rank adds what it receives to its own
// value and forwards the sum, and chunk c ends, fully reduced, on rank c.
// So an element of chunk c is summed as
//   ((x[c-1] + x[c-2]) + x[c-3]) + ... + x[c]     (ranks mod R),
// each addition done in fp32 and rounded to the element type (gloo's
// float16 operator+: widen, add, round to nearest even). The all-gather that
// follows only copies. With R = 2 the order does not matter (a + b = b + a).
#ifndef DDPLAB_SIM_GLOO_ORDER_H
#define DDPLAB_SIM_GLOO_ORDER_H

#include <stddef.h>

// gloo's AllreduceOptions default maxSegmentSize.
#define SIM_GLOO_MAX_SEGMENT_BYTES ((size_t)1024 * 1024)

// Elements in each of gloo's R ring chunks of a count-element buffer of
// elem_size-byte elements (the last chunks hold what is left, maybe none).
size_t sim_gloo_chunk_elems(size_t count, size_t elem_size, int nranks);

// The k-th rank (k = 0 .. R-1) in the order gloo adds chunk c's values:
// c-1, c-2, ..., and last c itself (mod R).
int sim_gloo_chunk_rank(int nranks, int chunk, int k);

#endif
