// backend_cpu/cpu_direct.c: the direct all_reduce as one fused pass, the
// CPU backend's fast path (and AUTO's choice).
//
// The direct schedule is a reduce-scatter (rank r sums slice r from every
// peer) then an all-gather (every rank copies slice r from rank r). Since all
// ranks share one address space, rank r can do both in one pass without
// touching its own buffer in between: for each cache-sized block of slice r
// it reduces the block from every rank's send buffer (in rank order, so the
// result does not depend on who computes it) into a local block, and writes
// that block into every rank's recv buffer. Each input byte is read once and
// each output byte written once, the least memory traffic an all_reduce can
// have. In-place works too: only rank r ever reads or writes slice r, and it
// reads a block from every rank before writing it anywhere.
//
// In fp16 and bf16 the pass adds each element's terms in the order gloo's
// ring all_reduce adds them, rounding to the element type after every
// addition (sim/coll/gloo_order.h): what dist.all_reduce of a half tensor
// gives a PyTorch script on CPU, bit for bit. (In fp32 it keeps rank order:
// an fp32 sum's order moves its last bits only, where a half sum rounded at
// every hop can lose a whole small term.)
//
// A rendezvous before (every rank's buffers are ready and published) and a
// barrier after (every slice of my recv buffer has been written) bound the
// pass. The trace shows the schedule's steps, each with the pass's wall time.
#include <stdlib.h>
#include <string.h>

#include "coll/gloo_order.h" // defines: sim_gloo_chunk_elems, sim_gloo_chunk_rank
#include "cpu_internal.h"

// Bytes of one block: sources and result stay in L1/L2 while it is reduced.
#define CPU_DIRECT_BLOCK_BYTES (16 * 1024)

// out[i] = src[0][i] + ... + src[nsrc-1][i], summed in rank order exactly as
// sim_reduce_multi does, with cpu_acc_f32's vectorised additions.
static void sum_f32(float *restrict out, const void *const *src, int nsrc, size_t n) {
    memcpy(out, src[0], n * sizeof(float));
    for (int j = 1; j < nsrc; j++)
        cpu_acc_f32(out, src[j], n);
}

static void reduce_block(void *out, const void *const *src, int nsrc, size_t n,
                         SimDtype dt, SimRedOp op) {
    if (dt == SIM_FP32 && (op == SIM_SUM || op == SIM_AVG))
        sum_f32(out, src, nsrc, n);
    else
        sim_reduce_multi(out, src, nsrc, n, dt, op);
}

// A half-precision block of n elements from element `first`: split where
// gloo's ring chunks (of `chunk` elements) begin, each piece summed in its
// chunk's order with rounding at every hop.
static void reduce_half_block(CpuCtx *c, int parity, const SimCollArgs *a, size_t first,
                              size_t n, size_t chunk, const void **srcs, unsigned char *out) {
    int R = c->nranks;
    size_t esz = sim_dtype_size(a->dtype);
    for (size_t i = 0; i < n;) {
        size_t e = first + i, g = e / chunk, piece = (g + 1) * chunk - e;
        piece = piece < n - i ? piece : n - i;
        for (int k = 0; k < R; k++)
            srcs[k] = (const char *)cpu_slot(c, sim_gloo_chunk_rank(R, (int)g, k), parity)->send +
                      e * esz;
        sim_reduce_chain(out + i * esz, srcs, R, piece, a->dtype, a->op);
        i += piece;
    }
}

// Rank me's share of the pass: slice me of every buffer, block by block.
static void fused_pass(CpuCtx *c, int me, const SimCollArgs *a, int parity) {
    const void **srcs = c->ranks[me].srcs;
    int R = c->nranks;
    size_t esz = sim_dtype_size(a->dtype);
    size_t begin = sim_part_begin(a->count, R, me), len = sim_part_size(a->count, R, me);
    size_t blk = CPU_DIRECT_BLOCK_BYTES / esz;
    _Alignas(CPU_CACHE_LINE) unsigned char tmp[CPU_DIRECT_BLOCK_BYTES];
    // Stream the results out when all ranks' buffers together outgrow the
    // last-level cache: then every destination line would be fetched only to
    // be overwritten. In place, the destination was just read: keep caching.
    double set_bytes = 2.0 * R * (double)a->count * (double)esz;
    int stream = set_bytes >= c->llc_bytes && a->sendbuf != a->recvbuf;
    int half = a->dtype == SIM_FP16 || a->dtype == SIM_BF16;
    size_t chunk = half ? sim_gloo_chunk_elems(a->count, esz, R) : 0;
    for (size_t off = 0; off < len; off += blk) {
        size_t n = len - off < blk ? len - off : blk;
        size_t at = (begin + off) * esz;
        if (half) {
            reduce_half_block(c, parity, a, begin + off, n, chunk, srcs, tmp);
        } else {
            for (int j = 0; j < R; j++)
                srcs[j] = (const char *)cpu_slot(c, j, parity)->send + at;
            reduce_block(tmp, srcs, R, n, a->dtype, a->op);
        }
        if (a->op == SIM_AVG)
            sim_scale_avg(tmp, n, a->dtype, R);
        for (int j = 0; j < R; j++)
            cpu_stream_copy((char *)cpu_slot(c, j, parity)->recv + at, tmp, n * esz, stream);
    }
    cpu_stream_fence(stream); // drain the streaming stores before the barrier
}

SimStatus cpu_direct_all_reduce(CpuCtx *c, int me, SimCollCall *call) {
    CpuRank *r = &c->ranks[me];
    const SimCollArgs *a = &call->args;
    CpuSlot mine = {.seq = call->seq, .kind = a->kind, .algo = a->algo, .dtype = a->dtype,
                    .op = a->op, .count = a->count, .root = a->root,
                    .arrive_sim = call->arrive_sim, .send = a->sendbuf, .recv = a->recvbuf,
                    .work = a->recvbuf, .local_status = SIM_OK};
    if (r->srcs == NULL)
        r->srcs = malloc((size_t)c->nranks * sizeof *r->srcs);
    if (r->srcs == NULL) {
        mine.local_status = SIM_ENOMEM;
        strcpy(mine.local_err, "out of memory for the direct pass");
    }
    int parity;
    SIM_CHECK(cpu_rendezvous(c, me, call, &mine, &parity));

    double w0 = sim_wall_now();
    if (a->count > 0 && !c->phantom) { // phantom: the meeting and the steps, no data
        if (!cpu_touch_begin(c, me))
            return SIM_EABORTED;
        fused_pass(c, me, a, parity);
        cpu_touch_end(c, me);
    }
    SIM_CHECK(cpu_barrier(c, me));
    double w1 = sim_wall_now();
    cpu_fr_set(r, CPU_FR_RUNNING, -1, -1);

    // Keep the step counters in line with the other algorithms' (every rank
    // runs the same number of steps per collective).
    int nsteps = call->sched.nsteps;
    uint32_t base = atomic_load_explicit(&r->step.value, memory_order_relaxed);
    cpu_word_store(&r->step, base + (uint32_t)nsteps);
    for (int t = 0; t < nsteps; t++)
        sim_coll_report_step(call, t, w0, w1);
    return SIM_OK;
}
