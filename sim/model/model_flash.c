// sim/model/model_flash.c: the attention core as a fused, IO-aware kernel
// prices it (FlashAttention-2, Dao 2023, arXiv 2307.08691; PyTorch's
// scaled_dot_product_attention picks such a kernel for 16-bit CUDA
// tensors). Phantom mode only: cost-only ops, no values.
//
// Forward: for each query tile, the key/value tiles stream through on-chip
// memory; the T x T scores never reach device memory. What it reads and
// writes is Q [B, T, C], K and V [B, T, Ckv] each (grouped-query attention:
// their real size, heads/kv_heads query heads share one), the output O
// [B, T, C], and per row and head one fp32 statistic, the log-sum-exp
// [B, H, T], which is all backward keeps of the softmax.
//
// Backward recomputes the scores S = Q K^T tile by tile from Q, K and the
// log-sum-exp, then computes dV = P^T dO, dP = dO V^T, dQ = dS K and
// dK = dS^T Q: five products of 2 hs FLOPs per query-key pair where the
// unfused backward has four; the fifth is the recomputation, time the
// kernel spends that the model FLOPs do not count. It reads Q, K, V, O,
// dO, the log-sum-exp and writes dQ, dK, dV, plus the row sums D =
// rowsum(dO * O) [B, H, T] in fp32 (FlashAttention-2, Algorithm 2).
//
// Pairs: the kernel computes whole tiles of query-key pairs. A causal
// kernel skips the tiles above the diagonal but computes the ones across it
// whole, masking their upper half: with query blocks of Bm rows and key
// blocks of Bn, query block i computes its Bm rows against the first
// ceil((i+1) Bm / Bn) Bn keys. Both kernels modelled here run 128-row query
// blocks on head dimension 128 (FlashAttention-2's sm80/sm90 forward
// kBlockM = 128, kBlockN = 64, Flash_fwd_kernel_traits in
// flash_fwd_launch_template.h; flash_attn_triton's BLOCK = 128 both ways),
// so at T = 512 a causal core computes 1.25x the T(T+1)/2 pairs it needs,
// at 2048 1.06x, at 32768 1.004x. Bidirectional: all T^2, tails padded.
// FLOPs per pair, besides the products: the softmax's ~5 (scale, max,
// exp, sum, rescale) forward and ~8 backward (its recomputation and dS).
// Under amp the kernel is priced at the device's attn_efficiency of the
// 16-bit peak (sim/cost/cost_device_data.h: what such kernels measure), the
// Triton kernel (attn=triton) at half of it (sim/cost/cost.h,
// SIM_COST_ATTN_TRITON).
#include <math.h>

#include "model/model_impl.h"

#define FLASH_BLOCK_M 128.0
#define FLASH_BLOCK_N 64.0

// Query-key pairs the core computes, whole tiles.
static double pairs_of(const SimModelFlash *f) {
    double T = f->T, nb = ceil(T / FLASH_BLOCK_M);
    double keys_all = ceil(T / FLASH_BLOCK_N) * FLASH_BLOCK_N;
    double per = 0;
    if (!f->causal)
        per = nb * FLASH_BLOCK_M * keys_all;
    else
        for (double i = 0; i < nb; i++) {
            double keys = ceil((i + 1) * FLASH_BLOCK_M / FLASH_BLOCK_N) * FLASH_BLOCK_N;
            per += FLASH_BLOCK_M * (keys < keys_all ? keys : keys_all);
        }
    return f->B * f->H * per;
}

// The cost kind: FlashAttention-2's rate, or the Triton kernel's.
static int kind_of(const SimModelFlash *f) {
    return !f->lowp ? 0 : f->triton ? SIM_COST_ATTN_TRITON : SIM_COST_ATTN;
}

// Bytes of Q and O ([B, T, C] each), of K and V ([B, T, Ckv] each) at p
// bytes per element, and of one fp32 value per row and head.
static void sizes(const SimModelFlash *f, double *q, double *kv, double *rows) {
    *q = f->B * f->T * f->C * f->p;
    *kv = 2 * f->B * f->T * f->Ckv * f->p;
    *rows = 4 * f->B * f->H * f->T;
}

SimStatus sim_model_flash_forward(SimRank *r, const SimModelFlash *f, const SimTensor *out,
                                  const SimTensor *qkv) {
    double pairs = pairs_of(f), hs = f->C / f->H, q, kv, rows;
    sizes(f, &q, &kv, &rows);
    const SimTensor *t[2] = {out, qkv};
    // read Q, K, V; write O and the log-sum-exp
    return sim_op_cost(r, "flash_attention_fwd", pairs * (4 * hs + 5), 2 * q + kv + rows,
                       kind_of(f), f->lowp ? SIM_BF16 : SIM_FP32, t, 2);
}

SimStatus sim_model_flash_backward(SimRank *r, const SimModelFlash *f, const SimTensor *dqkv,
                                   const SimTensor *dout) {
    double pairs = pairs_of(f), hs = f->C / f->H, q, kv, rows;
    sizes(f, &q, &kv, &rows);
    const SimTensor *t[2] = {dqkv, dout};
    // read Q, K, V, O, dO, the log-sum-exp; write dQ, dK, dV; D written and read
    double bytes = 3 * q + kv + rows + q + kv + 2 * rows;
    return sim_op_cost(r, "flash_attention_bwd", pairs * (10 * hs + 8), bytes,
                       kind_of(f), f->lowp ? SIM_BF16 : SIM_FP32, t, 2);
}
