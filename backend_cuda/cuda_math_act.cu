// backend_cuda/cuda_math_act.cu: element-wise activations and their
// derivatives on the GPU (sim/engine/kernels.h act_forward / act_backward), one
// thread per element in grid-stride loops; the arithmetic is
// cuda_arith_vec.h's (relu, GELU with erf, GELU with tanh), the cpu
// backend's formulas. Built with --fmad=false (see cuda_arith_vec.h).
//
// Backward ACCUMULATES: dinp[i] += act'(inp[i]) * dout[i].
#include "cuda_arith_vec.h" // defines: cuda_act_forward_elem, cuda_act_backward_elem
#include "cuda_launch.h"    // defines: cuda_blocks_for, CUDA_THREADS, CUDA_OP_*
#include "cuda_math.h"      // defines: cuda_math_act_*

namespace {

__global__ void act_forward_kernel(SimAct act, float *out, const float *inp, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = cuda_act_forward_elem(act, inp[i]);
}

__global__ void act_backward_kernel(SimAct act, float *dinp, const float *inp,
                                    const float *dout, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dinp[i] = cuda_act_backward_elem(act, dinp[i], inp[i], dout[i]);
}

int act_known(SimAct act) {
    return act == SIM_ACT_RELU || act == SIM_ACT_GELU || act == SIM_ACT_GELU_TANH;
}

} // namespace

extern "C" SimStatus cuda_math_act_forward(void *ctx, int rank, SimAct act, float *out,
                                           const float *inp, size_t n) {
    if (!act_known(act))
        return SIM_EINVAL;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    act_forward_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(act, out, inp, n);
    CUDA_OP_DONE();
}

extern "C" SimStatus cuda_math_act_backward(void *ctx, int rank, SimAct act, float *dinp,
                                            const float *inp, const float *dout, size_t n) {
    if (!act_known(act))
        return SIM_EINVAL;
    cudaStream_t s = cuda_ctx_stream(ctx, rank);
    act_backward_kernel<<<cuda_blocks_for(n), CUDA_THREADS, 0, s>>>(act, dinp, inp, dout, n);
    CUDA_OP_DONE();
}
