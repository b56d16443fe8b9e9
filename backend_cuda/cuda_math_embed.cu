// backend_cuda/cuda_math_embed.cu: token + position embedding on the GPU
// (sim/engine/kernels.h embedding_forward / embedding_backward), with
// cuda_arith_vec.h's arithmetic. Built with --fmad=false (see
// cuda_arith_vec.h).
//
// Forward: one thread per element of out [B,T,C].
// Backward accumulates without atomics, in the cpu backend's order, so the
// result is the cpu backend's bit for bit and repeats from run to run:
// - dwpe [T,C]: one thread per element, adding the B positions' gradients
//   in batch order;
// - dwte [V,C]: V is not passed, so the rows are dealt out by token id
//   modulo EMBED_LANES: a thread owns channel c of the rows in one lane and
//   walks all B*T positions in order (cuda_embed_dwte_lane). C x EMBED_LANES
//   threads; a warp holds consecutive channels of one lane, so the id it
//   reads is one broadcast load and its branch is uniform.
// (atomicAdd on dwte would add in whatever order the threads arrive: faster
// for large C*B*T, but neither deterministic nor the cpu backend's result.)
//
// Token ids were checked against the vocabulary by the wrapper; a negative id
// is still never used as an index: its position is skipped and the op
// returns SIM_EINVAL (the cpu backend stops at it; positions after it are
// written here).
#include "cuda_arith_vec.h" // defines: cuda_embed_*
#include "cuda_launch.h"    // defines: cuda_blocks_for, CUDA_THREADS, CUDA_OP_*
#include "cuda_math.h"      // defines: cuda_math_embedding_*

#define EMBED_LANES 32

namespace {

__global__ void embed_forward_kernel(int *bad, float *out, const int32_t *idx,
                                     const float *wte, const float *wpe, int T, int C,
                                     size_t n) {
    int mine = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        mine |= cuda_embed_forward_elem(out, idx, wte, wpe, T, C, i);
    if (mine)
        atomicOr(bad, 1);
}

__global__ void embed_ids_kernel(int *bad, const int32_t *idx, size_t BT) {
    int mine = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < BT; i += stride)
        mine |= cuda_embed_id_bad(idx, i);
    if (mine)
        atomicOr(bad, 1);
}

// Thread j < C * EMBED_LANES: channel j % C of lane j / C.
__global__ void embed_dwte_kernel(float *dwte, const float *dout, const int32_t *idx,
                                  size_t BT, int C) {
    size_t n = (size_t)C * EMBED_LANES;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        cuda_embed_dwte_lane(dwte, dout, idx, BT, C, (int)(j % (size_t)C),
                             (int)(j / (size_t)C), EMBED_LANES);
}

__global__ void embed_dwpe_kernel(float *dwpe, const float *dout, int B, int T, int C) {
    size_t n = (size_t)T * C;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t tc = (size_t)blockIdx.x * blockDim.x + threadIdx.x; tc < n; tc += stride)
        cuda_embed_dwpe_elem(dwpe, dout, B, T, C, tc);
}

} // namespace

// The ends of both ops: waits for the stream, then reports a negative id.
#define EMBED_DONE(bad_host)                                                   \
    do {                                                                       \
        SimStatus embed_st_ = cuda_ctx_op_done(ctx, rank, __func__, __FILE__,  \
                                               __LINE__);                      \
        return embed_st_ != SIM_OK ? embed_st_ : (bad_host) ? SIM_EINVAL       \
                                                            : SIM_OK;          \
    } while (0)

extern "C" SimStatus cuda_math_embedding_forward(void *ctx, int rank, float *out,
                                                 const int32_t *idx, const float *wte,
                                                 const float *wpe, int B, int T, int C) {
    // out (B,T,C); idx (B,T); wte (V,C); wpe (maxT,C)
    if (B < 0 || T < 0 || C < 0)
        return SIM_EINVAL;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    int *bad = (int *)cuda_ctx_scratch(ctx, rank, sizeof(int));
    if (bad == NULL)
        return SIM_ENOMEM;
    size_t n = (size_t)B * T * C;
    int bad_host = 0;
    CUDA_OP_CHECK(cudaMemsetAsync(bad, 0, sizeof *bad, s));
    embed_forward_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(bad, out, idx, wte, wpe,
                                                                     T, C, n);
    CUDA_OP_CHECK(cudaGetLastError());
    CUDA_OP_CHECK(cudaMemcpyAsync(&bad_host, bad, sizeof bad_host, cudaMemcpyDeviceToHost, s));
    EMBED_DONE(bad_host);
}

extern "C" SimStatus cuda_math_embedding_backward(void *ctx, int rank, float *dwte,
                                                  float *dwpe, const float *dout,
                                                  const int32_t *idx, int B, int T, int C) {
    // dwte (V,C) += dout rows by token; dwpe (maxT,C) += dout rows by position
    if (B < 0 || T < 0 || C < 0)
        return SIM_EINVAL;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    int *bad = (int *)cuda_ctx_scratch(ctx, rank, sizeof(int));
    if (bad == NULL)
        return SIM_ENOMEM;
    size_t BT = (size_t)B * T;
    int bad_host = 0;
    CUDA_OP_CHECK(cudaMemsetAsync(bad, 0, sizeof *bad, s));
    embed_ids_kernel<<<cuda_blocks_for(BT), CUDA_THREADS, 0, s>>>(bad, idx, BT);
    CUDA_OP_CHECK(cudaGetLastError());
    if (dwte != NULL && C > 0) {
        size_t threads = (size_t)C * EMBED_LANES;
        embed_dwte_kernel<<<cuda_blocks_for(threads), CUDA_THREADS, 0, s>>>(dwte, dout, idx,
                                                                           BT, C);
        CUDA_OP_CHECK(cudaGetLastError());
    }
    if (dwpe != NULL) {
        size_t n = (size_t)T * C;
        embed_dwpe_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(dwpe, dout, B, T, C);
        CUDA_OP_CHECK(cudaGetLastError());
    }
    CUDA_OP_CHECK(cudaMemcpyAsync(&bad_host, bad, sizeof bad_host, cudaMemcpyDeviceToHost, s));
    EMBED_DONE(bad_host);
}
