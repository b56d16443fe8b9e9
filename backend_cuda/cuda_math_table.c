// backend_cuda/cuda_math_table.c: the CUDA backend's math table (sim/kernels.h).
#include <stddef.h>

#include "cuda_math.h" // defines: cuda_math_*

const SimMathOps cuda_math_ops = {
    .gemm = NULL, // replaced as the groups below are filled in
    // cuda_math_linear.cu (TODO-B)
    // cuda_math_norm.cu, cuda_math_attention.cu, cuda_math_loss.cu (TODO-B)
    // cuda_math_act.cu, cuda_math_embed.cu, cuda_math_vec.cu, cuda_math_optim.cu (TODO-A)
};
