// backend_cuda/cuda_math_attention.cu: causal multi-head self-attention on the
// GPU (sim/kernels.h), with cuda_arith_nn.h's arithmetic (the cpu backend's
// cpu_math_attention.c loops).
//
// Forward: one thread per (b, t, head); each writes only its own rows of
// preatt, att and out. Backward: one thread per (b, head), walking t in
// order, because a head's keys and values get gradient from every later
// query: one owner per head keeps the sums race-free and in the cpu order.
// Its two row buffers (T floats each) are the thread's slice of scratch.
#include "cuda_arith_nn.h" // defines: cuda_attention_row, cuda_attention_back_head
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

__global__ void attn_backward_kernel(float *dqkv, float *dpreatt, float *datt,
                                     const float *dout, const float *qkv, const float *att,
                                     float *rows, int B, int T, int C, int NH) {
    size_t n = (size_t)B * NH;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        int h = (int)(j % NH);
        int b = (int)(j / NH);
        float *g_att = rows + j * 2 * (size_t)T;
        cuda_attention_back_head(dqkv, dpreatt, datt, dout, qkv, att, g_att, g_att + T, T, C,
                                 NH, b, h);
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
    size_t n = (size_t)B * NH;
    if (T == 0 || n == 0)
        return SIM_OK;
    float *rows = (float *)cuda_ctx_scratch(ctx, rank, n * 2 * (size_t)T * sizeof(float));
    if (rows == NULL)
        return SIM_ENOMEM;
    attn_backward_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, cuda_ctx_stream(ctx, rank)>>>(
        dqkv, dpreatt, datt, dout, qkv, att, rows, B, T, C, NH);
    CUDA_OP_DONE();
}
