// backend_cuda/cuda_math_attention.cu: causal multi-head self-attention on the
// GPU (sim/engine/kernels.h), with cuda_arith_nn.h's arithmetic (the cpu backend's
// cpu_math_attention.c loops).
//
// Forward: one thread per (b, t, head); each writes only its own rows of
// preatt, att and out. Backward: the three phases of cuda_arith_nn.h, one
// thread per (b, head, t) row, then one per (b, t, channel) of the query,
// key and value gradients: every gradient element has one owner, which adds
// in the cpu backend's order (no atomics, results repeat bit for bit).
#include "cuda_arith_nn.h" // defines: cuda_attention_row, cuda_attention_back_*
#include "cuda_launch.h"   // defines: CUDA_THREADS, CUDA_OP_*, cuda_ctx_*
#include "cuda_math.h"     // defines: cuda_math_attention_forward, ...

namespace {

__global__ void attn_forward_kernel(float *out, float *preatt, float *att, const float *qkv,
                                    int B, int T, int C, int NH) {
    size_t n = (size_t)B * T * NH;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        int h = (int)(j % NH);
        int t = (int)((j / NH) % T);
        int b = (int)(j / ((size_t)NH * T));
        cuda_attention_row(out, preatt, att, qkv, T, C, NH, b, t, h);
    }
}

// Phase 1: one thread per (b, h, t); its g_att row is its slice of `rows`.
__global__ void attn_back_row_kernel(float *g_pre_all, float *rows, float *dpreatt, float *datt,
                                     const float *dout, const float *qkv, const float *att,
                                     int B, int T, int C, int NH) {
    size_t n = (size_t)B * NH * T;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        int t = (int)(j % T);
        int h = (int)((j / T) % NH);
        int b = (int)(j / ((size_t)T * NH));
        cuda_attention_back_row(g_pre_all, rows + j * (size_t)T, dpreatt, datt, dout, qkv, att,
                                T, C, NH, b, t, h);
    }
}

// Phases 2 and 3: one thread per (b, t, h, i) of the query, key and value
// gradients; adjacent threads take adjacent channels i.
__global__ void attn_back_qkv_kernel(float *dqkv, const float *qkv, const float *att,
                                     const float *dout, const float *g_pre_all, int B, int T,
                                     int C, int NH) {
    int hs = C / NH;
    size_t n = (size_t)B * T * C;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        int c = (int)(j % C);
        int t = (int)((j / C) % T);
        int b = (int)(j / ((size_t)C * T));
        int h = c / hs, i = c % hs;
        cuda_attention_back_dq(dqkv, qkv, g_pre_all, T, C, NH, b, t, h, i);
        cuda_attention_back_dkv(dqkv, qkv, att, dout, g_pre_all, T, C, NH, b, t, h, i);
    }
}

} // namespace

SimStatus cuda_math_attention_forward(void *ctx, int rank, float *out, float *preatt,
                                      float *att, const float *qkv, int B, int T, int C,
                                      int NH) {
    if (B < 0 || T < 0 || C < 0 || NH <= 0 || C % NH != 0)
        return SIM_EINVAL;
    size_t n = (size_t)B * T * NH;
    if (n == 0)
        return SIM_OK;
    attn_forward_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        out, preatt, att, qkv, B, T, C, NH);
    CUDA_OP_DONE();
}

SimStatus cuda_math_attention_backward(void *ctx, int rank, float *dqkv, float *dpreatt,
                                       float *datt, const float *dout, const float *qkv,
                                       const float *att, int B, int T, int C, int NH) {
    if (B < 0 || T < 0 || C < 0 || NH <= 0 || C % NH != 0)
        return SIM_EINVAL;
    size_t rows = (size_t)B * NH * T;
    if (rows == 0 || C == 0)
        return SIM_OK;
    // scratch: g_pre_all [B, NH, T, T], then each phase-1 thread's g_att row [T]
    float *g_pre_all = (float *)cuda_ctx_scratch(ctx, rank, 2 * rows * (size_t)T * sizeof(float));
    if (g_pre_all == NULL)
        return SIM_ENOMEM;
    float *g_att = g_pre_all + rows * (size_t)T;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    attn_back_row_kernel<<<cuda_blocks_for(rows), CUDA_THREADS, 0, s>>>(
        g_pre_all, g_att, dpreatt, datt, dout, qkv, att, B, T, C, NH);
    CUDA_OP_CHECK(cudaGetLastError());
    size_t n = (size_t)B * T * C;
    attn_back_qkv_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(dqkv, qkv, att, dout,
                                                                    g_pre_all, B, T, C, NH);
    CUDA_OP_DONE();
}
