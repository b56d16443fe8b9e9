// sim/engine/kernels.h: the math a backend provides, as one table of kernels (the
// `math` slot of SimBackendOps). The models and optimizers never call these
// directly: they go through the wrappers of sim/engine/ops.h, which check shapes,
// skip the work in phantom mode, and account for time and the trace.
//
// Conventions, as in llm.c:
// - All activations and parameters are fp32 in backend memory, row-major.
//   Legend: N = rows (batch, or batch x time), C = channels in, OC = channels
//   out, B = batch, T = time, NH = heads, V = vocabulary or classes.
// - Linear weights have PyTorch's layout [OC, C]: out = inp @ weight^T + bias.
// - Backward kernels ACCUMULATE (+=) into every gradient they write, both
//   parameter gradients and input gradients. Callers zero gradient buffers
//   before a backward pass (activations) or at zero_grad (parameters). This
//   makes residual branches and gradient accumulation plain additions.
// - `amp` is SIM_FP32 (no autocast), SIM_FP16 or SIM_BF16: matrix products
//   then read their inputs rounded to that type (round-to-nearest-even) and
//   accumulate in fp32, as torch.autocast does on GPUs.
// - Every slot is optional: NULL means "not supported by this backend", and
//   the wrapper returns SIM_ENOTSUP naming the kernel.
#ifndef DDPLAB_SIM_KERNELS_H
#define DDPLAB_SIM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"  // defines: SimDtype
#include "base/status.h" // defines: SimStatus

typedef enum { SIM_ACT_RELU = 0, SIM_ACT_GELU, SIM_ACT_GELU_TANH, SIM_ACT_COUNT } SimAct;

// torch.optim.SGD for one step: momentum buffer created from the gradient on
// the first step (PyTorch clones the gradient then), then
// buf = momentum*buf + (1-dampening)*g; nesterov uses g + momentum*buf.
// Hyperparameters are doubles because PyTorch derives its coefficients
// (1 - dampening, lr / bias correction, ...) in double from Python floats
// and rounds them to fp32 only at the end; doing the same makes every
// update torch.optim's own, bit for bit.
typedef struct {
    double lr, momentum, dampening, weight_decay;
    int nesterov;
    int first_step; // 1 on the first step: buf = g (after weight decay)
} SimSgdHyper;

// torch.optim.Adam / AdamW (non-fused, single-tensor semantics).
// Adam: g += wd*p; AdamW: p *= 1 - lr*wd. Then m, v updates and
// p -= lr/bias1 * m / (sqrt(v)/sqrt(bias2) + eps), bias_k = 1 - beta_k^step.
typedef struct {
    double lr, beta1, beta2, eps, weight_decay; // doubles: see SimSgdHyper
    int decoupled; // 1: AdamW
    int64_t step;  // 1 on the first step
} SimAdamHyper;

typedef struct SimMathOps {
    // C[m,n] = alpha * op(A) @ op(B) + beta * C[m,n]; op(X) = X^T when trans_x.
    // A is [m,k] (or [k,m] when transposed), B is [k,n] (or [n,k]).
    SimStatus (*gemm)(void *ctx, int rank, int trans_a, int trans_b, int m, int n, int k,
                      float alpha, const float *a, const float *b, float beta, float *c,
                      SimDtype amp);

    // Linear: out[N,OC] = inp[N,C] @ weight[OC,C]^T + bias[OC] (bias may be NULL).
    SimStatus (*linear_forward)(void *ctx, int rank, float *out, const float *inp,
                                const float *weight, const float *bias, int N, int C, int OC,
                                SimDtype amp);
    // dinp[N,C] += dout @ weight; dweight[OC,C] += dout^T @ inp; dbias[OC] += sum_n dout.
    // dinp or dbias may be NULL (not needed / no bias).
    SimStatus (*linear_backward)(void *ctx, int rank, float *dinp, float *dweight, float *dbias,
                                 const float *dout, const float *inp, const float *weight,
                                 int N, int C, int OC, SimDtype amp);

    // Element-wise activation: out[n] = act(inp[n]); dinp[n] += act'(inp[n]) * dout[n].
    SimStatus (*act_forward)(void *ctx, int rank, SimAct act, float *out, const float *inp,
                             size_t n);
    SimStatus (*act_backward)(void *ctx, int rank, SimAct act, float *dinp, const float *inp,
                              const float *dout, size_t n);

    // LayerNorm over the last dim (biased variance, eps as torch's 1e-5):
    // out[N,C], mean[N], rstd[N] saved for backward; weight/bias [C].
    SimStatus (*layernorm_forward)(void *ctx, int rank, float *out, float *mean, float *rstd,
                                   const float *inp, const float *weight, const float *bias,
                                   int N, int C, float eps);
    SimStatus (*layernorm_backward)(void *ctx, int rank, float *dinp, float *dweight,
                                    float *dbias, const float *dout, const float *inp,
                                    const float *weight, const float *mean, const float *rstd,
                                    int N, int C);

    // BatchNorm1d over the batch of [N,C]. training: normalise with the batch
    // mean and biased variance, save mean[C] and invstd[C], and update
    // running_mean/var (unbiased variance) with `momentum` as torch does;
    // eval: normalise with the running statistics. weight/bias [C].
    SimStatus (*batchnorm_forward)(void *ctx, int rank, float *out, float *mean, float *invstd,
                                   float *running_mean, float *running_var, const float *inp,
                                   const float *weight, const float *bias, int N, int C,
                                   float momentum, float eps, int training);
    SimStatus (*batchnorm_backward)(void *ctx, int rank, float *dinp, float *dweight,
                                    float *dbias, const float *dout, const float *inp,
                                    const float *weight, const float *mean, const float *invstd,
                                    int N, int C);

    // SyncBatchNorm's pieces, with the collectives between them (the
    // caller's): stats[2C+1] = this rank's mean[C], biased variance[C] and
    // row count N; gather_stats combines the ranks' stats all[R][2C+1]
    // (Chan's formula: counts weigh the means, the spread of the means adds
    // to the variance) into mean[C] and invstd[C], updates running_mean/var
    // (unbiased over the total count) and writes the total count to count[1];
    // elemt normalises with them. backward_reduce writes this rank's
    // sums[2C] = sum_n dout, sum_n dout * xhat and adds them to dbias and
    // dweight (each rank's own: DDP averages them); after sums are summed
    // over ranks, backward_elemt adds to dinp what the whole batch's
    // normalisation sends back: w * invstd * (dout - sum_dy/count - xhat *
    // sum_dy_xhat/count).
    SimStatus (*batchnorm_stats)(void *ctx, int rank, float *stats, const float *inp, int N,
                                 int C);
    SimStatus (*batchnorm_gather_stats)(void *ctx, int rank, float *mean, float *invstd,
                                        float *running_mean, float *running_var, float *count,
                                        const float *all, int R, int C, float momentum,
                                        float eps);
    SimStatus (*batchnorm_elemt)(void *ctx, int rank, float *out, const float *inp,
                                 const float *mean, const float *invstd, const float *weight,
                                 const float *bias, int N, int C);
    SimStatus (*batchnorm_backward_reduce)(void *ctx, int rank, float *sums, float *dweight,
                                           float *dbias, const float *dout, const float *inp,
                                           const float *mean, const float *invstd, int N, int C);
    SimStatus (*batchnorm_backward_elemt)(void *ctx, int rank, float *dinp, const float *dout,
                                          const float *inp, const float *weight,
                                          const float *mean, const float *invstd,
                                          const float *sums, const float *count, int N, int C);

    // Token + position embedding: out[B,T,C] = wte[idx[b,t]] + wpe[t].
    SimStatus (*embedding_forward)(void *ctx, int rank, float *out, const int32_t *idx,
                                   const float *wte, const float *wpe, int B, int T, int C);
    SimStatus (*embedding_backward)(void *ctx, int rank, float *dwte, float *dwpe,
                                    const float *dout, const int32_t *idx, int B, int T, int C);

    // Causal multi-head self-attention on packed qkv[B,T,3C] (q, k, v in that
    // order, heads of C/NH channels): out[B,T,C] (before the output
    // projection); preatt and att [B,NH,T,T] saved for backward.
    SimStatus (*attention_forward)(void *ctx, int rank, float *out, float *preatt, float *att,
                                   const float *qkv, int B, int T, int C, int NH);
    SimStatus (*attention_backward)(void *ctx, int rank, float *dqkv, float *dpreatt,
                                    float *datt, const float *dout, const float *qkv,
                                    const float *att, int B, int T, int C, int NH);

    // Softmax cross-entropy with integer targets: losses[N] = -log p[target],
    // probs[N,V] saved. Backward: dlogits[N,V] += dloss[n] * (probs - onehot).
    SimStatus (*xent_forward)(void *ctx, int rank, float *losses, float *probs,
                              const float *logits, const int32_t *targets, int N, int V);
    SimStatus (*xent_backward)(void *ctx, int rank, float *dlogits, const float *probs,
                               const int32_t *targets, const float *dlosses, int N, int V);

    // out[n] = a[n] + b[n] (residual connections).
    SimStatus (*add)(void *ctx, int rank, float *out, const float *a, const float *b, size_t n);
    // y[n] += alpha * x[n].
    SimStatus (*axpy)(void *ctx, int rank, float *y, float alpha, const float *x, size_t n);
    // x[n] *= alpha.
    SimStatus (*scale)(void *ctx, int rank, float *x, float alpha, size_t n);
    // x[n] = value.
    SimStatus (*fill)(void *ctx, int rank, float *x, float value, size_t n);
    // *out = sum of x[n]^2, accumulated in double (gradient norms).
    SimStatus (*sumsq)(void *ctx, int rank, double *out, const float *x, size_t n);
    // *out = 1 if any x[n] is inf or NaN (GradScaler's check).
    SimStatus (*nonfinite)(void *ctx, int rank, int *out, const float *x, size_t n);
    // Converts n elements between storage types (round-to-nearest-even).
    SimStatus (*cast)(void *ctx, int rank, void *dst, SimDtype dst_dt, const void *src,
                      SimDtype src_dt, size_t n);

    // One optimizer step over n parameters: p, g fp32; state buffers fp32.
    SimStatus (*sgd_step)(void *ctx, int rank, float *p, const float *g, float *momentum_buf,
                          size_t n, const SimSgdHyper *h);
    SimStatus (*adam_step)(void *ctx, int rank, float *p, const float *g, float *m, float *v,
                           size_t n, const SimAdamHyper *h);
} SimMathOps;

#endif
