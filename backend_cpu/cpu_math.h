// backend_cpu/cpu_math.h: the CPU backend's math kernels (sim/engine/kernels.h),
// private to backend_cpu/. Each cpu_math_*.c file holds one family; cpu_math.c
// puts them into the one table `cpu_math_ops` that the backend exports.
//
// Everything is plain C loops over row-major fp32 buffers, written like
// llm.c's train_gpt2.c, except the matrix products, which go to CBLAS
// (OpenBLAS, one thread per rank). Reductions that feed statistics (means,
// variances, softmax sums, bias gradients) accumulate in double, so results
// sit within a few ulps of PyTorch's whatever the reduction order.
//
// Legend: N rows, C channels in, OC channels out, B batch, T time, NH heads,
// hs = C/NH head size, V vocabulary or classes.
#ifndef DDPLAB_CPU_MATH_H
#define DDPLAB_CPU_MATH_H

#include <stddef.h>
#include <stdint.h>

#include "engine/kernels.h" // defines: SimMathOps, SimAct, SimSgdHyper, SimAdamHyper

// Scratch memory owned by one rank, grown on demand and freed with the
// backend; valid until the rank's next call. NULL when out of memory.
void *cpu_math_scratch(void *ctx, int rank, size_t bytes);

// Makes the BLAS library use one thread per call (each rank is already a
// thread) and sizes the gate below; once per process, later calls do nothing.
void cpu_math_init_blas(void);

// The BLAS gate (cpu_math.c): every BLAS call is bracketed by enter and
// leave, so that at most cpu_math_blas_slots() rank threads of the process
// are inside the library at once (OpenBLAS has a fixed table of work
// buffers and crashes when more calls than that are in flight). Enter waits
// for a free slot; the call itself runs unchanged.
void cpu_math_blas_enter(void);
void cpu_math_blas_leave(void);
// The gate's size: 0 for a BLAS without a buffer table (no gate).
int cpu_math_blas_slots(void);
// The size the gate takes for an OpenBLAS that reports `config`
// (openblas_get_config(), read for MAX_THREADS=N), runs `threads` threads per
// call before ddplab asks for one, and sees `procs` processors: half of the
// buffer table (2N entries) left once its worker threads have theirs; at
// least 1.
int cpu_math_blas_slots_for(const char *config, int threads, int procs);

// cpu_math_linear.c
SimStatus cpu_math_gemm(void *ctx, int rank, int trans_a, int trans_b, int m, int n, int k,
                        float alpha, const float *a, const float *b, float beta, float *c,
                        SimDtype amp);
SimStatus cpu_math_linear_forward(void *ctx, int rank, float *out, const float *inp,
                                  const float *weight, const float *bias, int N, int C, int OC,
                                  SimDtype amp);
SimStatus cpu_math_linear_backward(void *ctx, int rank, float *dinp, float *dweight,
                                   float *dbias, const float *dout, const float *inp,
                                   const float *weight, int N, int C, int OC, SimDtype amp);

// cpu_math_act.c
SimStatus cpu_math_act_forward(void *ctx, int rank, SimAct act, float *out, const float *inp,
                               size_t n);
SimStatus cpu_math_act_backward(void *ctx, int rank, SimAct act, float *dinp, const float *inp,
                                const float *dout, size_t n);

// cpu_math_norm.c
SimStatus cpu_math_layernorm_forward(void *ctx, int rank, float *out, float *mean, float *rstd,
                                     const float *inp, const float *weight, const float *bias,
                                     int N, int C, float eps);
SimStatus cpu_math_layernorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                      float *dbias, const float *dout, const float *inp,
                                      const float *weight, const float *mean, const float *rstd,
                                      int N, int C);
SimStatus cpu_math_batchnorm_forward(void *ctx, int rank, float *out, float *mean, float *invstd,
                                     float *running_mean, float *running_var, const float *inp,
                                     const float *weight, const float *bias, int N, int C,
                                     float momentum, float eps, int training);
SimStatus cpu_math_batchnorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                      float *dbias, const float *dout, const float *inp,
                                      const float *weight, const float *mean,
                                      const float *invstd, int N, int C);

// BatchNorm's per-channel sums, shared by BatchNorm1d and SyncBatchNorm
// (cpu_math_norm.c): the mean and biased variance of inp (N,C) into m, var
// (C); backward, sum_n dout and sum_n dout * xhat into sum_dy, sum_dy_xhat (C).
void cpu_math_bn_column_stats(const float *inp, int N, int C, double *m, double *var);
void cpu_math_bn_backward_sums(const float *dout, const float *inp, const float *mean,
                               const float *invstd, int N, int C, double *sum_dy,
                               double *sum_dy_xhat);

// cpu_math_syncbn.c
SimStatus cpu_math_batchnorm_stats(void *ctx, int rank, float *stats, const float *inp, int N,
                                   int C);
SimStatus cpu_math_batchnorm_gather_stats(void *ctx, int rank, float *mean, float *invstd,
                                          float *running_mean, float *running_var, float *count,
                                          const float *all, int R, int C, float momentum,
                                          float eps);
SimStatus cpu_math_batchnorm_elemt(void *ctx, int rank, float *out, const float *inp,
                                   const float *mean, const float *invstd, const float *weight,
                                   const float *bias, int N, int C);
SimStatus cpu_math_batchnorm_backward_reduce(void *ctx, int rank, float *sums, float *dweight,
                                             float *dbias, const float *dout, const float *inp,
                                             const float *mean, const float *invstd, int N,
                                             int C);
SimStatus cpu_math_batchnorm_backward_elemt(void *ctx, int rank, float *dinp, const float *dout,
                                            const float *inp, const float *weight,
                                            const float *mean, const float *invstd,
                                            const float *sums, const float *count, int N, int C);

// cpu_math_embed.c
SimStatus cpu_math_embedding_forward(void *ctx, int rank, float *out, const int32_t *idx,
                                     const float *wte, const float *wpe, int B, int T, int C);
SimStatus cpu_math_embedding_backward(void *ctx, int rank, float *dwte, float *dwpe,
                                      const float *dout, const int32_t *idx, int B, int T,
                                      int C);

// cpu_math_attention.c
SimStatus cpu_math_attention_forward(void *ctx, int rank, float *out, float *preatt, float *att,
                                     const float *qkv, int B, int T, int C, int NH);
SimStatus cpu_math_attention_backward(void *ctx, int rank, float *dqkv, float *dpreatt,
                                      float *datt, const float *dout, const float *qkv,
                                      const float *att, int B, int T, int C, int NH);

// cpu_math_loss.c
SimStatus cpu_math_xent_forward(void *ctx, int rank, float *losses, float *probs,
                                const float *logits, const int32_t *targets, int N, int V);
SimStatus cpu_math_xent_backward(void *ctx, int rank, float *dlogits, const float *probs,
                                 const int32_t *targets, const float *dlosses, int N, int V);

// cpu_math_misc.c
SimStatus cpu_math_add(void *ctx, int rank, float *out, const float *a, const float *b, size_t n);
SimStatus cpu_math_axpy(void *ctx, int rank, float *y, float alpha, const float *x, size_t n);
SimStatus cpu_math_scale(void *ctx, int rank, float *x, float alpha, size_t n);
SimStatus cpu_math_fill(void *ctx, int rank, float *x, float value, size_t n);
SimStatus cpu_math_sumsq(void *ctx, int rank, double *out, const float *x, size_t n);
SimStatus cpu_math_nonfinite(void *ctx, int rank, int *out, const float *x, size_t n);
SimStatus cpu_math_cast(void *ctx, int rank, void *dst, SimDtype dst_dt, const void *src,
                        SimDtype src_dt, size_t n);

// cpu_math_optim.c
SimStatus cpu_math_sgd_step(void *ctx, int rank, float *p, const float *g, float *momentum_buf,
                            size_t n, const SimSgdHyper *h);
SimStatus cpu_math_adam_step(void *ctx, int rank, float *p, const float *g, float *m, float *v,
                             size_t n, const SimAdamHyper *h);

#endif
