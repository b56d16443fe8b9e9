// sim/model/model_impl.h: what the model files share and nobody else sees: the
// private part of SimModel, the arenas that lay activations out in flat
// buffers, the table builders, and the loss.
//
// Activations live in one flat fp32 buffer (`acts`), their gradients in a
// second (`dacts`), token ids and labels in an int32 buffer (`ints`). Each
// forward lays the views out afresh for its own batch size (n samples, seq
// tokens), so the part in use is always a prefix and one fill zeroes every
// activation gradient. The buffers are sized by the same layout at the
// largest batch (max_batch, ctx).
#ifndef DDPLAB_SIM_MODEL_IMPL_H
#define DDPLAB_SIM_MODEL_IMPL_H

#include "base/torch_gen.h" // defines: SimTorchGen
#include "engine/ops.h"
#include "model/model.h"

// The generator an initialisation draws from: ddplab's splitmix64 (state
// `split`) or PyTorch's mt19937 (`torch`, seeded as torch.manual_seed).
typedef struct {
    SimRngKind kind;
    uint64_t split;
    SimTorchGen torch;
} SimModelRng;

// A bump allocator of views into one flat buffer (base NULL: count only, or
// phantom, and the views get no storage).
typedef struct {
    char *base;
    size_t esize; // bytes per element
    size_t used;  // elements handed out
} SimModelArena;

// Hands out the next view of the given shape (ndim values).
void sim_model_take(SimModelArena *a, SimTensor *t, const char *name, SimDtype dt, int ndim,
                    const int64_t *shape);

// The loss of the last forward. Cross-entropy: labels [N] int32, probs [N, V],
// losses [N] and dlosses [N]; MSE: diff [n, K] (targets - prediction, written
// in place over the uploaded targets). `count` is what the mean divides by.
typedef struct {
    SimTensor labels, probs, losses, dlosses;
    SimTensor diff;
    size_t count;
} SimModelLoss;

struct SimModelImpl {
    int phantom;
    SimTensor acts, dacts, ints;  // flat; sized by the layout at the largest batch
    SimTensor *pv, *gv;           // [nparams] views of param and grad
    SimTensor *bv;                // [nbuffers] views of buffer
    uint8_t *used;                // [nparams] 1 if the last forward used it
    uint8_t *dropped;             // [nparams] 1: the last forward used it, but
                                  // sim_model_mark_unused took it out of the graph
    SimTensor discard;            // where backward writes the dropped parameters'
                                  // gradients (allocated on first use; backing store)
    float *host;                  // [host_cap] host scratch for per-sample losses
    size_t host_cap;
    SimModelLoss loss;
    const SimTensor *output;      // the last forward's output view
    // The last forward, for backward.
    int fwd_ok, fwd_n, fwd_seq, fwd_step, fwd_training;
    SimDtype amp;
    size_t dacts_used;            // elements of dacts the layout used
    // Architectures (sim/model/model_arch.c) charge their activations to the
    // ledger by the formula (sim_model_act_bytes) as forward stores them
    // and backward frees them: act_held is what is charged now.
    int formula_acts;             // 1: activations follow the formula, no arenas
    int64_t act_held;
    int sync_ranks;               // SyncBatchNorm over this many ranks (0: plain BatchNorm)
    void *kind;                   // the MLP's, the GPT's or the architecture's own state
};

// Table builders (grow m->params / m->buffers; offsets assigned in order).
SimStatus sim_model_add_param(SimModel *m, const char *name, int ndim, const int64_t *shape);
SimStatus sim_model_add_buffer(SimModel *m, const char *name, SimDtype torch_dtype, int ndim,
                               const int64_t *shape);

// Module table builders: begin opens a child of the root named `name` whose
// parameters are those added until end (index returned in *idx).
SimStatus sim_model_begin_module(SimModel *m, const char *name, int *idx);
void sim_model_end_module(SimModel *m, int idx);
// Calls the module hook, if any.
SimStatus sim_model_module_event(SimModel *m, SimModuleEvent ev, int module);

// Writes an error into r->error and returns SIM_EINVAL.
SimStatus sim_model_fail(SimRank *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

// Checks host labels against [0, classes) (NULL labels or phantom: nothing
// to check); `per` labels per sample, for the message's sample index.
SimStatus sim_model_check_ids(SimRank *r, const char *what, const int32_t *ids, size_t n,
                              int per, int limit, const SimBatch *b);

// Loss forward on the prediction / logits view (uses impl->loss) and its
// backward (dout accumulates dloss_scale * d(mean loss)/d(prediction)).
SimStatus sim_model_loss_forward(SimRank *r, SimModel *m, const SimTensor *pred, float *loss);
SimStatus sim_model_loss_backward(SimRank *r, SimModel *m, SimTensor *dpred, float dloss_scale);

// Lays the views out for a batch of n samples of seq tokens (MLP: seq 0)
// over the allocated buffers and records how much of dacts is in use.
void sim_model_lay_out(SimModel *m, int n, int seq);

// Reports parameter i complete (if the forward used it).
void sim_model_ready(const SimModel *m, SimGradHook hook, void *arg, int i);

// SyncBatchNorm (sim/model/model_syncbn.c): a BatchNorm1d whose batch
// statistics come from every rank's rows, with an all_gather of the stats
// in the forward and an all_reduce of the backward's sums, as
// torch.nn.SyncBatchNorm does. Its views for one BatchNorm of C channels on
// R ranks: stats [2C+1] (mean, variance, rows), all [R, 2C+1], count [1]
// (rows over every rank), sums [2C] (sum of dout, of dout * xhat).
typedef struct {
    SimTensor stats, all, count, sums;
} SimSyncBnViews;

void sim_model_syncbn_take(SimModelArena *acts, SimSyncBnViews *v, int C, int R);
// out = BatchNorm of inp [n, C] with the statistics of every rank's inp;
// mean and invstd [C] saved for backward, running stats updated.
SimStatus sim_model_syncbn_forward(SimRank *r, SimSyncBnViews *v, SimTensor *out,
                                   SimTensor *mean, SimTensor *invstd, SimTensor *running_mean,
                                   SimTensor *running_var, const SimTensor *inp,
                                   const SimTensor *weight, const SimTensor *bias,
                                   float momentum, float eps);
// dinp += the whole batch's input gradient for this rank's rows; dweight and
// dbias += this rank's own sums (DDP then averages them).
SimStatus sim_model_syncbn_backward(SimRank *r, SimSyncBnViews *v, SimTensor *dinp,
                                    SimTensor *dweight, SimTensor *dbias, const SimTensor *dout,
                                    const SimTensor *inp, const SimTensor *weight,
                                    const SimTensor *mean, const SimTensor *invstd);

// Per-kind parts. build: fills the tables and the kind state, and returns the
// arena sizes at the largest batch; layout: places the views for a batch of
// n samples of seq tokens; forward/backward as sim_model_forward/backward
// after the common checks.
SimStatus sim_model_mlp_build(SimModel *m);
void sim_model_mlp_layout(SimModel *m, SimModelArena *acts, SimModelArena *dacts,
                          SimModelArena *ints, int n);
SimStatus sim_model_mlp_init(SimRank *r, SimModel *m, SimModelRng *rng);
SimStatus sim_model_mlp_forward(SimRank *r, SimModel *m, const SimBatch *b, int step,
                                float *loss);
SimStatus sim_model_mlp_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                                 void *arg);
void sim_model_mlp_free(SimModel *m);

SimStatus sim_model_gpt_build(SimModel *m);
void sim_model_gpt_layout(SimModel *m, SimModelArena *acts, SimModelArena *dacts,
                          SimModelArena *ints, int n, int seq);
SimStatus sim_model_gpt_init(SimRank *r, SimModel *m, SimModelRng *rng);
SimStatus sim_model_gpt_forward(SimRank *r, SimModel *m, const SimBatch *b, float *loss);
SimStatus sim_model_gpt_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                                 void *arg);
void sim_model_gpt_free(SimModel *m);

// Real architectures of the gpt family (a GPT spec with any option set;
// phantom mode only): GPT-2/3, Llama, BERT. sim/model/model_arch.c.
int sim_model_is_arch(const SimModelSpec *spec);
SimStatus sim_model_arch_build(SimModel *m);
void sim_model_arch_layout(SimModel *m, SimModelArena *acts, SimModelArena *ints, int n, int seq);
SimStatus sim_model_arch_forward(SimRank *r, SimModel *m, const SimBatch *b, float *loss);
SimStatus sim_model_arch_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                                  void *arg);
void sim_model_arch_free(SimModel *m);

// The fused attention core of an architecture with attn=flash
// (sim/model/model_flash.c): its shapes, as doubles for the pricing.
typedef struct {
    double B, T, H;     // batch, sequence, query heads
    double C, Ckv;      // query width, key/value width (grouped-query: C / H x kv_heads)
    double p;           // bytes per element of Q, K, V, O (2 under amp, 4 without)
    int causal;         // 1: the pairs at or below the diagonal only
    int lowp;           // 1: priced on the 16-bit tensor cores
    int triton;         // 1: the FlashAttention-1-era Triton kernel (attn=triton)
} SimModelFlash;
SimStatus sim_model_flash_forward(SimRank *r, const SimModelFlash *f, const SimTensor *out,
                                  const SimTensor *qkv);
SimStatus sim_model_flash_backward(SimRank *r, const SimModelFlash *f, const SimTensor *dqkv,
                                   const SimTensor *dout);

// A parameter count only (SIM_MODEL_COUNT; phantom mode only).
// sim/model/model_count.c.
SimStatus sim_model_count_build(SimModel *m);
SimStatus sim_model_count_forward(SimRank *r, SimModel *m, const SimBatch *b, float *loss);
SimStatus sim_model_count_backward(SimRank *r, SimModel *m, SimGradHook hook, void *arg);

// Charges (bytes > 0) or releases (bytes < 0) activations to the ledger's
// SIM_MEM_ACT and keeps impl->act_held; `what` is a static name.
SimStatus sim_model_act_charge(SimRank *r, SimModel *m, int64_t bytes, const char *what);

// Initialisation helpers, drawing from the model's seeded generator: fill
// parameter i on the backend with values made on the host, in memory order.
// Under PyTorch's generator, exactly Tensor.uniform_(-bound, bound) and
// Tensor.normal_(0, stddev).
SimStatus sim_model_init_uniform(SimRank *r, SimModel *m, int i, float bound, SimModelRng *rng);
SimStatus sim_model_init_normal(SimRank *r, SimModel *m, int i, float stddev, SimModelRng *rng);
SimStatus sim_model_init_const(SimRank *r, SimModel *m, int i, float value);
// The bound of nn.Linear's weight, kaiming_uniform(a=sqrt(5)): 1/sqrt(fan_in)
// in ddplab's generator (as before); under PyTorch's, computed as
// torch/nn/init.py computes it, in double and in its order (sqrt(5)**2 is
// 5.000000000000001), then rounded to float as uniform_ rounds it, which for
// some fan_in is one float away from 1/sqrt(fan_in).
float sim_model_linear_bound(int fan_in, const SimModelRng *rng);
SimStatus sim_model_init_buffer_const(SimRank *r, SimModel *m, int i, float value);

#endif
