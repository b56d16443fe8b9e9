// backend_cpu/cpu_math.c: the CPU backend's table of math kernels, the
// per-rank scratch memory they share, and the BLAS set-up.
//
// Each rank is a thread that runs its own kernels, so the BLAS library must
// not start threads of its own: R ranks x cores BLAS threads would fight for
// the same cores. One BLAS thread per rank is also how DDP on CPU is run
// (one process per rank, OMP_NUM_THREADS=1).
#include <cblas.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "cpu_math.h"

void cpu_math_init_blas(void) {
#ifdef OPENBLAS_VERSION
    openblas_set_num_threads(1);
#endif
}

void *cpu_math_scratch(void *ctx, int rank, size_t bytes) {
    CpuRank *k = &((CpuCtx *)ctx)->ranks[rank];
    if (bytes <= k->math_scratch_bytes)
        return k->math_scratch;
    // Grow geometrically so that a sequence of slightly larger requests
    // does not reallocate every time.
    size_t want = bytes + bytes / 2;
    void *p = realloc(k->math_scratch, want);
    if (p == NULL)
        return NULL;
    k->math_scratch = p;
    k->math_scratch_bytes = want;
    return p;
}

const SimMathOps cpu_math_ops = {
    .gemm = cpu_math_gemm,
    .linear_forward = cpu_math_linear_forward,
    .linear_backward = cpu_math_linear_backward,
    .act_forward = cpu_math_act_forward,
    .act_backward = cpu_math_act_backward,
    .layernorm_forward = cpu_math_layernorm_forward,
    .layernorm_backward = cpu_math_layernorm_backward,
    .batchnorm_forward = cpu_math_batchnorm_forward,
    .batchnorm_backward = cpu_math_batchnorm_backward,
    .embedding_forward = cpu_math_embedding_forward,
    .embedding_backward = cpu_math_embedding_backward,
    .attention_forward = cpu_math_attention_forward,
    .attention_backward = cpu_math_attention_backward,
    .xent_forward = cpu_math_xent_forward,
    .xent_backward = cpu_math_xent_backward,
    .add = cpu_math_add,
    .axpy = cpu_math_axpy,
    .scale = cpu_math_scale,
    .fill = cpu_math_fill,
    .sumsq = cpu_math_sumsq,
    .nonfinite = cpu_math_nonfinite,
    .cast = cpu_math_cast,
    .sgd_step = cpu_math_sgd_step,
    .adam_step = cpu_math_adam_step,
};
