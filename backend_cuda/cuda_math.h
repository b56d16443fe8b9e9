// backend_cuda/cuda_math.h: the CUDA backend's math kernels, the `math` table
// of its ops (sim/engine/kernels.h gives every slot's contract, shapes and
// accumulation rules; these match the cpu backend's backend_cpu/cpu_math.h).
// Implemented in cuda_math_*.cu; the table is in cuda_math_table.c.
//
// Pointers are device memory of the calling rank's GPU, and every function
// runs on that rank's thread (its device is current). Matrix products go
// through cuBLAS, which is column-major: a row-major [m,n] matrix is the
// column-major [n,m] of its transpose, so C = A @ B row-major is computed as
// C^T = B^T @ A^T column-major, with no copies.
#ifndef DDPLAB_BACKEND_CUDA_MATH_H
#define DDPLAB_BACKEND_CUDA_MATH_H

#include "engine/kernels.h" // defines: SimMathOps, SimAct, SimSgdHyper, SimAdamHyper

#ifdef __cplusplus
extern "C" {
#endif

extern const SimMathOps cuda_math_ops;

// cuda_math_linear.cu
SimStatus cuda_math_gemm(void *ctx, int rank, int trans_a, int trans_b, int m, int n, int k,
                         float alpha, const float *a, const float *b, float beta, float *c,
                         SimDtype amp);
SimStatus cuda_math_linear_forward(void *ctx, int rank, float *out, const float *inp,
                                   const float *weight, const float *bias, int N, int C, int OC,
                                   SimDtype amp);
SimStatus cuda_math_linear_backward(void *ctx, int rank, float *dinp, float *dweight,
                                    float *dbias, const float *dout, const float *inp,
                                    const float *weight, int N, int C, int OC, SimDtype amp);
// cuda_math_act.cu
SimStatus cuda_math_act_forward(void *ctx, int rank, SimAct act, float *out, const float *inp,
                                size_t n);
SimStatus cuda_math_act_backward(void *ctx, int rank, SimAct act, float *dinp,
                                 const float *inp, const float *dout, size_t n);
// cuda_math_norm.cu
SimStatus cuda_math_layernorm_forward(void *ctx, int rank, float *out, float *mean,
                                      float *rstd, const float *inp, const float *weight,
                                      const float *bias, int N, int C, float eps);
SimStatus cuda_math_layernorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                       float *dbias, const float *dout, const float *inp,
                                       const float *weight, const float *mean,
                                       const float *rstd, int N, int C);
SimStatus cuda_math_batchnorm_forward(void *ctx, int rank, float *out, float *mean,
                                      float *invstd, float *running_mean, float *running_var,
                                      const float *inp, const float *weight, const float *bias,
                                      int N, int C, float momentum, float eps, int training);
SimStatus cuda_math_batchnorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                       float *dbias, const float *dout, const float *inp,
                                       const float *weight, const float *mean,
                                       const float *invstd, int N, int C);
// cuda_math_syncbn.cu
SimStatus cuda_math_batchnorm_stats(void *ctx, int rank, float *stats, const float *inp, int N,
                                    int C);
SimStatus cuda_math_batchnorm_gather_stats(void *ctx, int rank, float *mean, float *invstd,
                                           float *running_mean, float *running_var,
                                           float *count, const float *all, int R, int C,
                                           float momentum, float eps);
SimStatus cuda_math_batchnorm_elemt(void *ctx, int rank, float *out, const float *inp,
                                    const float *mean, const float *invstd, const float *weight,
                                    const float *bias, int N, int C);
SimStatus cuda_math_batchnorm_backward_reduce(void *ctx, int rank, float *sums, float *dweight,
                                              float *dbias, const float *dout, const float *inp,
                                              const float *mean, const float *invstd, int N,
                                              int C);
SimStatus cuda_math_batchnorm_backward_elemt(void *ctx, int rank, float *dinp, const float *dout,
                                             const float *inp, const float *weight,
                                             const float *mean, const float *invstd,
                                             const float *sums, const float *count, int N,
                                             int C);
// cuda_math_embed.cu
SimStatus cuda_math_embedding_forward(void *ctx, int rank, float *out, const int32_t *idx,
                                      const float *wte, const float *wpe, int B, int T, int C);
SimStatus cuda_math_embedding_backward(void *ctx, int rank, float *dwte, float *dwpe,
                                       const float *dout, const int32_t *idx, int B, int T,
                                       int C);
// cuda_math_attention.cu
SimStatus cuda_math_attention_forward(void *ctx, int rank, float *out, float *preatt,
                                      float *att, const float *qkv, int B, int T, int C, int NH);
SimStatus cuda_math_attention_backward(void *ctx, int rank, float *dqkv, float *dpreatt,
                                       float *datt, const float *dout, const float *qkv,
                                       const float *att, int B, int T, int C, int NH);
// cuda_math_loss.cu
SimStatus cuda_math_xent_forward(void *ctx, int rank, float *losses, float *probs,
                                 const float *logits, const int32_t *targets, int N, int V);
SimStatus cuda_math_xent_backward(void *ctx, int rank, float *dlogits, const float *probs,
                                  const int32_t *targets, const float *dlosses, int N, int V);
// cuda_math_vec.cu
SimStatus cuda_math_add(void *ctx, int rank, float *out, const float *a, const float *b,
                        size_t n);
SimStatus cuda_math_axpy(void *ctx, int rank, float *y, float alpha, const float *x, size_t n);
SimStatus cuda_math_scale(void *ctx, int rank, float *x, float alpha, size_t n);
SimStatus cuda_math_fill(void *ctx, int rank, float *x, float value, size_t n);
SimStatus cuda_math_sumsq(void *ctx, int rank, double *out, const float *x, size_t n);
SimStatus cuda_math_nonfinite(void *ctx, int rank, int *out, const float *x, size_t n);
SimStatus cuda_math_cast(void *ctx, int rank, void *dst, SimDtype dst_dt, const void *src,
                         SimDtype src_dt, size_t n);
// cuda_math_optim.cu
SimStatus cuda_math_sgd_step(void *ctx, int rank, float *p, const float *g,
                             float *momentum_buf, size_t n, const SimSgdHyper *h);
SimStatus cuda_math_adam_step(void *ctx, int rank, float *p, const float *g, float *m,
                              float *v, size_t n, const SimAdamHyper *h);

#ifdef __cplusplus
}
#endif

#endif
