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
// Pairs: causal attention computes the T(T+1)/2 query-key pairs at or
// below the diagonal (tiles above it are skipped), bidirectional all T^2.
// FLOPs per pair, besides the products: the softmax's ~5 (scale, max,
// exp, sum, rescale) forward and ~8 backward (its recomputation and dS).
// Under amp the kernel is priced at the device's attn_efficiency of the
// 16-bit peak (sim/cost/cost_device_data.h: what such kernels measure).
#include "model/model_impl.h"

// Query-key pairs of the core.
static double pairs_of(const SimModelFlash *f) {
    double per = f->causal ? f->T * (f->T + 1) / 2 : f->T * f->T;
    return f->B * f->H * per;
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
                       f->lowp ? SIM_COST_ATTN : 0, f->lowp ? SIM_BF16 : SIM_FP32, t, 2);
}

SimStatus sim_model_flash_backward(SimRank *r, const SimModelFlash *f, const SimTensor *dqkv,
                                   const SimTensor *dout) {
    double pairs = pairs_of(f), hs = f->C / f->H, q, kv, rows;
    sizes(f, &q, &kv, &rows);
    const SimTensor *t[2] = {dqkv, dout};
    // read Q, K, V, O, dO, the log-sum-exp; write dQ, dK, dV; D written and read
    double bytes = 3 * q + kv + rows + q + kv + 2 * rows;
    return sim_op_cost(r, "flash_attention_bwd", pairs * (10 * hs + 8), bytes,
                       f->lowp ? SIM_COST_ATTN : 0, f->lowp ? SIM_BF16 : SIM_FP32, t, 2);
}
