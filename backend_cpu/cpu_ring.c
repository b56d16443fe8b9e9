// backend_cpu/cpu_ring.c: the ring all_reduce's reduce-scatter with the
// initial copy folded into it.
//
// As scheduled (sim/coll/schedule.h), an all_reduce first copies the send
// buffer into the recv buffer (the work buffer), and then, at reduce-scatter
// step s, rank q adds chunk (q-2-s) mod R of its left neighbour's work
// buffer into its own. Made as written, the copy moves the whole buffer once
// more than the steps do: per rank S bytes read and S written, where the
// steps read 3(R-1)/R S (the peer's chunk and its own) and write 2(R-1)/R S.
//
// Until rank q first writes chunk c of its work buffer, the chunk holds
// send[c]. So the copy can be left out and its bytes taken where they still
// are:
//   - every reduce-scatter transfer is the first write of its chunk on the
//     receiver (q receives a different chunk at each of its R-1 steps), so
//     it computes work[c] = send[c] (op) peer[c] from its own send buffer:
//     the same two operands, in the same order, as the copy followed by
//     work[c] = work[c] (op) peer[c], hence the same bits in every dtype;
//   - at step 0 the chunk a rank sends, (q-1) mod R, is the one it never
//     receives in the reduce-scatter, so its receiver reads it from the
//     sender's send buffer; from step 1 on every chunk read was written by
//     the sender's previous step;
//   - that chunk, (q-1) mod R, is the first one q receives in the
//     all-gather, so every element of the recv buffer is written by a step.
// Out of place, when the buffers outgrow the last-level cache (all ranks'
// send and recv buffers together hold one and a half times it), every
// step's writes bypass the caches (cpu_stream.c): a cached store would first
// read the recv line it overwrites, 7 S/R of traffic per reduce-scatter and
// all-gather step pair where 5 S/R are needed, and the line would be gone
// from the cache before its reader comes anyway. In fp32 the sum is stored
// to memory as it is made; other dtypes pass through an L1-sized block.
// In place, send and work are one buffer and nothing changes. Readers of a
// send buffer never race with a writer: nothing writes a send buffer
// out of place, and in place the schedule's ordering contract already
// covers the work buffer it is.
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu_internal.h"

// Bytes of the block a streamed reduction is summed into (L1-resident).
#define CPU_RING_BLOCK_BYTES (16 * 1024)

int cpu_ring_folds_copy(const SimCollCall *call) {
    return call->args.kind == SIM_COLL_ALL_REDUCE && call->sched.algo == SIM_ALGO_RING &&
           call->sched.nsteps > 0;
}

const void *cpu_ring_source(const SimCollCall *call, const CpuSlot *from, int step) {
    return cpu_ring_folds_copy(call) && step == 0 ? from->send : from->work;
}

int cpu_ring_streams(const CpuCtx *c, const SimCollCall *call) {
    const SimCollArgs *a = &call->args;
    double set_bytes = 2.0 * (double)call->sched.nranks * (double)a->count *
                       (double)sim_dtype_size(a->dtype);
    return cpu_ring_folds_copy(call) && a->sendbuf != a->recvbuf &&
           set_bytes >= 1.5 * c->llc_bytes;
}

// out[i] = a[i] + b[i]: the fp32 sum as the copy and sim_reduce_inplace
// compute it (one addition, a first). Fixed-width groups: vectorised at -O2.
static void add_f32(float *restrict out, const float *restrict a, const float *restrict b,
                    size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++)
            out[i + k] = a[i + k] + b[i + k];
    for (; i < n; i++)
        out[i] = a[i] + b[i];
}

void cpu_acc_f32(float *restrict out, const float *restrict b, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++)
            out[i + k] += b[i + k];
    for (; i < n; i++)
        out[i] += b[i];
}

void cpu_ring_reduce(void *out, const void *own, const void *peer, size_t n, SimDtype dt,
                     SimRedOp op) {
    if (dt == SIM_FP32 && (op == SIM_SUM || op == SIM_AVG)) {
        if (out == own)
            cpu_acc_f32(out, peer, n);
        else
            add_f32(out, own, peer, n);
        return;
    }
    const void *srcs[2] = {own, peer};
    sim_reduce_multi(out, srcs, 2, n, dt, op);
}

#if defined(__SSE2__)
// out[i] = a[i] + b[i] as add_f32, with the sums stored straight to memory:
// the same additions, without a pass through a cached block.
static void add_stream_f32(float *out, const float *a, const float *b, size_t n) {
    size_t i = 0;
    for (; i < n && ((uintptr_t)(out + i) & 15) != 0; i++)
        out[i] = a[i] + b[i];
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k += 4)
            _mm_stream_ps(out + i + k, _mm_add_ps(_mm_loadu_ps(a + i + k),
                                                  _mm_loadu_ps(b + i + k)));
    for (; i < n; i++)
        out[i] = a[i] + b[i];
}
#endif

void cpu_ring_reduce_stream(void *out, const void *own, const void *peer, size_t n,
                            SimDtype dt, SimRedOp op) {
#if defined(__SSE2__)
    if (dt == SIM_FP32 && (op == SIM_SUM || op == SIM_AVG) && out != own) {
        add_stream_f32(out, own, peer, n);
        return;
    }
#endif
    // Reduced into an L1-sized block, then streamed out: the same operations
    // element by element, so the same bits, for every dtype.
    _Alignas(CPU_CACHE_LINE) unsigned char tmp[CPU_RING_BLOCK_BYTES];
    size_t esz = sim_dtype_size(dt), blk = sizeof tmp / esz;
    for (size_t i = 0; i < n; i += blk) {
        size_t k = n - i < blk ? n - i : blk;
        cpu_ring_reduce(tmp, (const char *)own + i * esz, (const char *)peer + i * esz, k, dt,
                        op);
        cpu_stream_copy((char *)out + i * esz, tmp, k * esz, 1);
    }
}
