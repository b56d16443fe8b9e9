// sim/engine/ops.h: the wrappers every math op goes through, as sim/engine/comm.h is for
// collectives. Each wrapper
//   (a) checks the tensors' shapes and dtypes against each other (a mismatch
//       is SIM_EINVAL with a message in the rank's error, naming the op and
//       the shapes),
//   (b) runs the backend kernel (sim/engine/kernels.h), unless the output tensor has
//       no storage (phantom mode), in which case the math is skipped,
//   (c) advances the rank's compute clock by the op's simulated time, from
//       its FLOPs and bytes (sim_cost_compute), or for Linear from the shape
//       of each matrix product it runs (sim_cost_gemm), and
//   (d) appends a compute event (name, FLOPs, bytes, simulated and wall time)
//       to the trace.
// Shapes follow sim/engine/kernels.h; a [N, C] operand may be given as any tensor
// whose leading dimensions multiply to N and whose last dimension is C.
// Backward ops accumulate (+=) into their gradient outputs.
#ifndef DDPLAB_SIM_OPS_H
#define DDPLAB_SIM_OPS_H

#include "base/tensor.h"    // defines: SimTensor
#include "engine/kernels.h" // defines: SimAct, SimSgdHyper, SimAdamHyper
#include "engine/world.h"   // defines: SimRank

// Storage owned by one rank, through the backend's allocator. In phantom
// mode (phantom = 1, or any tensor of a phantom world: SimWorldConfig.phantom)
// nothing is allocated and t->data stays NULL; the ledger is charged either way.
SimStatus sim_tensor_alloc(SimRank *r, SimTensor *t, int phantom);
void sim_tensor_free(SimRank *r, SimTensor *t);
// Host <-> backend copies of a whole tensor (no-ops on phantom tensors: a
// download leaves the host buffer as it was, so a value uploaded, reduced
// and downloaded again comes back as the rank's own, which is what every
// rank of a symmetric run would get).
SimStatus sim_tensor_upload(SimRank *r, SimTensor *t, const void *host);
SimStatus sim_tensor_download(SimRank *r, const SimTensor *t, void *host);

SimStatus sim_op_linear_forward(SimRank *r, SimTensor *out, const SimTensor *inp,
                                const SimTensor *weight, const SimTensor *bias, SimDtype amp);
SimStatus sim_op_linear_backward(SimRank *r, SimTensor *dinp, SimTensor *dweight,
                                 SimTensor *dbias, const SimTensor *dout, const SimTensor *inp,
                                 const SimTensor *weight, SimDtype amp);
SimStatus sim_op_act_forward(SimRank *r, SimAct act, SimTensor *out, const SimTensor *inp);
SimStatus sim_op_act_backward(SimRank *r, SimAct act, SimTensor *dinp, const SimTensor *inp,
                              const SimTensor *dout);
SimStatus sim_op_layernorm_forward(SimRank *r, SimTensor *out, SimTensor *mean, SimTensor *rstd,
                                   const SimTensor *inp, const SimTensor *weight,
                                   const SimTensor *bias, float eps);
SimStatus sim_op_layernorm_backward(SimRank *r, SimTensor *dinp, SimTensor *dweight,
                                    SimTensor *dbias, const SimTensor *dout, const SimTensor *inp,
                                    const SimTensor *weight, const SimTensor *mean,
                                    const SimTensor *rstd);
SimStatus sim_op_batchnorm_forward(SimRank *r, SimTensor *out, SimTensor *mean, SimTensor *invstd,
                                   SimTensor *running_mean, SimTensor *running_var,
                                   const SimTensor *inp, const SimTensor *weight,
                                   const SimTensor *bias, float momentum, float eps,
                                   int training);
SimStatus sim_op_batchnorm_backward(SimRank *r, SimTensor *dinp, SimTensor *dweight,
                                    SimTensor *dbias, const SimTensor *dout, const SimTensor *inp,
                                    const SimTensor *weight, const SimTensor *mean,
                                    const SimTensor *invstd);
// SyncBatchNorm's pieces (kernels.h says what each computes): stats [2C+1],
// all [R, 2C+1] (every rank's stats, all-gathered), count [1], sums [2C].
SimStatus sim_op_batchnorm_stats(SimRank *r, SimTensor *stats, const SimTensor *inp);
SimStatus sim_op_batchnorm_gather_stats(SimRank *r, SimTensor *mean, SimTensor *invstd,
                                        SimTensor *running_mean, SimTensor *running_var,
                                        SimTensor *count, const SimTensor *all, float momentum,
                                        float eps);
SimStatus sim_op_batchnorm_elemt(SimRank *r, SimTensor *out, const SimTensor *inp,
                                 const SimTensor *mean, const SimTensor *invstd,
                                 const SimTensor *weight, const SimTensor *bias);
SimStatus sim_op_batchnorm_backward_reduce(SimRank *r, SimTensor *sums, SimTensor *dweight,
                                           SimTensor *dbias, const SimTensor *dout,
                                           const SimTensor *inp, const SimTensor *mean,
                                           const SimTensor *invstd);
SimStatus sim_op_batchnorm_backward_elemt(SimRank *r, SimTensor *dinp, const SimTensor *dout,
                                          const SimTensor *inp, const SimTensor *weight,
                                          const SimTensor *mean, const SimTensor *invstd,
                                          const SimTensor *sums, const SimTensor *count);
// idx: [B, T] int32 tensor.
SimStatus sim_op_embedding_forward(SimRank *r, SimTensor *out, const SimTensor *idx,
                                   const SimTensor *wte, const SimTensor *wpe);
SimStatus sim_op_embedding_backward(SimRank *r, SimTensor *dwte, SimTensor *dwpe,
                                    const SimTensor *dout, const SimTensor *idx);
// qkv: [B, T, 3C]; out: [B, T, C]; preatt, att: [B, NH, T, T].
SimStatus sim_op_attention_forward(SimRank *r, SimTensor *out, SimTensor *preatt, SimTensor *att,
                                   const SimTensor *qkv, int heads);
SimStatus sim_op_attention_backward(SimRank *r, SimTensor *dqkv, SimTensor *dpreatt,
                                    SimTensor *datt, const SimTensor *dout, const SimTensor *qkv,
                                    const SimTensor *att, int heads);
// targets: [N] int32; logits, probs: [N, V]; losses: [N].
SimStatus sim_op_xent_forward(SimRank *r, SimTensor *losses, SimTensor *probs,
                              const SimTensor *logits, const SimTensor *targets);
SimStatus sim_op_xent_backward(SimRank *r, SimTensor *dlogits, const SimTensor *probs,
                               const SimTensor *targets, const SimTensor *dlosses);
SimStatus sim_op_add(SimRank *r, SimTensor *out, const SimTensor *a, const SimTensor *b);
SimStatus sim_op_axpy(SimRank *r, SimTensor *y, float alpha, const SimTensor *x);
// Ranges of a flat fp32 tensor: [off, off+n) (n = 0: to the end).
SimStatus sim_op_scale(SimRank *r, SimTensor *x, size_t off, size_t n, float alpha);
SimStatus sim_op_fill(SimRank *r, SimTensor *x, size_t off, size_t n, float value);
SimStatus sim_op_sumsq(SimRank *r, const SimTensor *x, size_t off, size_t n, double *out);
SimStatus sim_op_nonfinite(SimRank *r, const SimTensor *x, size_t off, size_t n, int *out);
SimStatus sim_op_cast(SimRank *r, SimTensor *dst, const SimTensor *src);
// One optimizer step over the range [off, off+n) of flat fp32 tensors that
// share one layout (parameters, gradients, state).
SimStatus sim_op_sgd_step(SimRank *r, SimTensor *p, const SimTensor *g, SimTensor *buf,
                          size_t off, size_t n, const SimSgdHyper *h);
SimStatus sim_op_adam_step(SimRank *r, SimTensor *p, const SimTensor *g, SimTensor *m,
                           SimTensor *v, size_t off, size_t n, const SimAdamHyper *h);

// A cost-only op, for the layers that exist in phantom mode only (RMSNorm,
// SwiGLU, RoPE, a bidirectional attention's other half, a count-only
// model's compute): no kernel and no shape checks, only (c) and (d) above:
// `flops` and `bytes` priced on the compute clock (lowp: a fp16/bf16
// matrix product, as the Linear wrappers price one; SIM_COST_ATTN: a fused
// attention kernel, sim/cost/cost.h) and one compute event
// named `event` (a static string, e.g. "rmsnorm_fwd") with `dtype`. The nt
// tensors t[] are the op's operands: if any has storage the op cannot be
// skipped and the call fails with SIM_ENOTSUP ("... has storage; <event> is
// accounted in phantom mode only"). Negative or non-finite costs are
// SIM_EINVAL.
SimStatus sim_op_cost(SimRank *r, const char *event, double flops, double bytes, int lowp,
                      SimDtype dtype, const SimTensor *const *t, int nt);

#endif
