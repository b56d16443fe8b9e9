// backend_cuda/cuda_math_table.c: the CUDA backend's math table (sim/engine/kernels.h).
#include <stddef.h>

#include "cuda_math.h" // defines: cuda_math_*

const SimMathOps cuda_math_ops = {
    // cuda_math_linear.cu
    .gemm = cuda_math_gemm,
    .linear_forward = cuda_math_linear_forward,
    .linear_backward = cuda_math_linear_backward,
    // cuda_math_norm.cu, cuda_math_attention.cu, cuda_math_loss.cu
    .layernorm_forward = cuda_math_layernorm_forward,
    .layernorm_backward = cuda_math_layernorm_backward,
    .batchnorm_forward = cuda_math_batchnorm_forward,
    .batchnorm_backward = cuda_math_batchnorm_backward,
    .batchnorm_stats = cuda_math_batchnorm_stats,
    .batchnorm_gather_stats = cuda_math_batchnorm_gather_stats,
    .batchnorm_elemt = cuda_math_batchnorm_elemt,
    .batchnorm_backward_reduce = cuda_math_batchnorm_backward_reduce,
    .batchnorm_backward_elemt = cuda_math_batchnorm_backward_elemt,
    .attention_forward = cuda_math_attention_forward,
    .attention_backward = cuda_math_attention_backward,
    .xent_forward = cuda_math_xent_forward,
    .xent_backward = cuda_math_xent_backward,
    // cuda_math_act.cu, cuda_math_embed.cu, cuda_math_vec.cu, cuda_math_optim.cu
    .act_forward = cuda_math_act_forward,
    .act_backward = cuda_math_act_backward,
    .embedding_forward = cuda_math_embedding_forward,
    .embedding_backward = cuda_math_embedding_backward,
    .add = cuda_math_add,
    .axpy = cuda_math_axpy,
    .scale = cuda_math_scale,
    .fill = cuda_math_fill,
    .sumsq = cuda_math_sumsq,
    .nonfinite = cuda_math_nonfinite,
    .cast = cuda_math_cast,
    .sgd_step = cuda_math_sgd_step,
    .adam_step = cuda_math_adam_step,
};
