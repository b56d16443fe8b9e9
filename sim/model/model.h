// sim/model/model.h: the models a rank trains, written like llm.c: every layer's
// forward and backward spelled out, all parameters in one flat fp32 buffer
// with a table of named views (and the gradients in a second buffer with the
// same layout), so strategies can bucket, shard and all-reduce plain ranges.
//
// Parameter names and order are PyTorch's state_dict keys of the equivalent
// module (nn.Sequential "0.weight", "0.bias", "2.weight", ... for an MLP;
// "tok_emb.weight", "blocks.0.ln1.weight", ... for MiniGPT; see
// sim/model/model_gpt.c), so checkpoints load with load_state_dict.
#ifndef DDPLAB_SIM_MODEL_H
#define DDPLAB_SIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/batch.h"     // defines: SimBatch
#include "base/tensor.h"    // defines: SimTensor
#include "engine/kernels.h" // defines: SimAct
#include "engine/world.h"   // defines: SimRank

#define SIM_NAME_MAX 96

// MLP and GPT are layer-by-layer models; COUNT is a parameter count and
// nothing else (a model whose layers ddplab does not write out, such as
// ResNet-50: one flat "params" tensor, see sim/model/model_count.c).
typedef enum { SIM_MODEL_MLP = 0, SIM_MODEL_GPT, SIM_MODEL_COUNT } SimModelKind;

// Options of the gpt family for real architectures (sim/model/model_arch.c). Every
// option's zero value is MiniGPT's, so a spec with all of them zero is the
// guide's MiniGPT (sim/model/model_gpt.c), numerically and byte for byte as
// before. A spec with any option set is an architecture that runs in
// phantom mode only (ddplab plan): sim_model_create refuses it in a numeric
// world.
typedef enum {
    SIM_GPT_BIAS_MLP = 0, // MiniGPT: the MLP's Linears have biases, attention's none
    SIM_GPT_BIAS_ALL,     // GPT-2, GPT-3, BERT: every Linear has a bias
    SIM_GPT_BIAS_NONE,    // Llama: no Linear has a bias
} SimGptBias;
typedef enum { SIM_NORM_LAYER = 0, SIM_NORM_RMS } SimNormKind;     // RMS: weight only
typedef enum { SIM_MLP_GELU = 0, SIM_MLP_SWIGLU } SimMlpKind;      // SwiGLU: gate, up, down
typedef enum { SIM_POS_LEARNED = 0, SIM_POS_ROPE } SimPosKind;     // RoPE: no pos_emb table
// Activation checkpointing (recomputation), as Korthikanti et al. 2022
// (arXiv 2205.05198) define it: SELECTIVE recomputes the attention core
// (drops the 5as/h term of the stored activations), FULL keeps only each
// layer's input and recomputes the layer during backward.
typedef enum { SIM_CKPT_NONE = 0, SIM_CKPT_SELECTIVE, SIM_CKPT_FULL } SimActCkpt;
// How the attention core runs. PLAIN is MiniGPT's own kernels (the numeric
// engine's, llm.c's layout: fp32 arenas allocated once for the largest
// batch and held for the model's life). EAGER is PyTorch's unfused path as
// an architecture prices it: the scores materialised and kept for backward
// (the 5as/h term), freed after backward. FLASH is a fused, IO-aware
// kernel (FlashAttention-2; sim/model/model_flash.c): no scores in memory,
// only an fp32 log-sum-exp per row and head, and the scores recomputed in
// backward. TRITON is the same fused algorithm as the FlashAttention-1-era
// Triton kernel runs it (flash_attn_triton, the kernel MPT's llm-foundry
// trains with, `attn_impl: triton`): FLASH's memory, about half its speed.
typedef enum { SIM_ATTN_PLAIN = 0, SIM_ATTN_EAGER, SIM_ATTN_FLASH, SIM_ATTN_TRITON } SimAttnKind;
// 1 for the fused kernels (FLASH, TRITON): no seq x seq scores kept.
int sim_model_attn_fused(SimAttnKind a);

typedef struct {
    SimModelKind kind;
    // MLP: layer widths, e.g. 784,256,256,10 (2..16 widths).
    int nwidths;
    int widths[16];
    SimAct act;              // between Linear layers (relu default, or gelu)
    int batchnorm;           // 1: BatchNorm1d after each hidden Linear (before act)
    int sync_bn;             // 1: the BatchNorms are SyncBatchNorms over the world's ranks
                             // (convert_sync_batchnorm; set by --sync-bn, not the text)
    int unused_branch;       // 1: an extra head whose parameters get no gradient on some steps
    // GPT (MiniGPT of the reference guide, no dropout).
    int layers, embd, heads, ctx, vocab;
    // GPT options for real architectures (all zero: MiniGPT; see above).
    SimGptBias bias;
    int tied;                // 1: the head is tok_emb.weight (no head.weight of its own)
    SimNormKind norm;
    SimMlpKind mlp;
    int ffn;                 // the MLP's hidden width; 0: 4 * embd
    int kv_heads;            // key/value heads (grouped-query attention); 0: heads
    SimPosKind pos;
    int encoder;             // 1: a BERT encoder (see sim/model/model_arch.c)
    int type_vocab;          // encoder: token types (token_type_embeddings); 0: 2
    int dropout;             // 1: trained with dropout (activation accounting only: masks)
    SimActCkpt ckpt;
    SimAttnKind attn;        // the attention core (PLAIN: MiniGPT's kernels)
    // COUNT: the parameter count, and the forward FLOPs of one sample
    // (backward is taken as twice that; 0: no compute accounted).
    int64_t count_params;
    int64_t count_flops;
    // Loss: cross-entropy (labels) or mse (targets); GPT is always cross-entropy.
    int mse;
} SimModelSpec;

// One parameter: a view into the flat buffers.
typedef struct {
    char name[SIM_NAME_MAX];
    int ndim;
    int64_t shape[SIM_MAX_DIMS];
    size_t offset;           // first element in the flat parameter/gradient buffers
    size_t numel;
} SimParamInfo;

// One buffer (state that is not trained: BatchNorm running stats, the causal
// mask). Buffers live in their own flat fp32 buffer.
typedef struct {
    char name[SIM_NAME_MAX];
    int ndim;
    int64_t shape[SIM_MAX_DIMS];
    size_t offset;
    size_t numel;
    // The dtype PyTorch gives the buffer: SIM_FP32, or SIM_INT64 for
    // BatchNorm's num_batches_tracked, which is held here as an fp32 count
    // (exact up to 2^24 = 16,777,216 training steps) so that every buffer can
    // be broadcast as one flat fp32 range; checkpoints write it as int64.
    SimDtype torch_dtype;
} SimBufferInfo;

// Called during backward each time a parameter's gradient is complete, in the
// order PyTorch's autograd completes them for the same module.
typedef void (*SimGradHook)(void *arg, int param_index);

// Modules: the model's module tree, as PyTorch's named_modules() sees it,
// two levels deep: the root (index 0, name "") and its children that hold
// parameters: each Linear and BatchNorm of an MLP ("0", "1", "3", ...; the
// extra head too), and tok_emb, pos_emb, blocks.0 .. blocks.L-1, ln_f and
// head of a GPT (the architectures' own in sim/model/model_arch.c; a count-only
// model has the root alone). A module's parameters are the range [first_param,
// first_param + nparams) of the parameter table (its whole subtree).
// Wrapping policies (FSDP units) and the layer-owner strategy choose among
// these modules.
typedef struct {
    char name[SIM_NAME_MAX];
    int parent;              // -1 for the root
    int first_param, nparams;
} SimModuleInfo;

// Points where a module hook is called (sim_model_set_module_hook):
//   PRE_FORWARD   before the module's first op in forward
//   POST_FORWARD  after its last op in forward (the root's: before the loss)
//   PRE_BACKWARD  before the first op of its backward (the root's: before the
//                 loss backward)
//   POST_BACKWARD after its last backward op, once every gradient of its
//                 parameters is complete (after the gradient hooks fired)
// A module the forward did not run (the MLP's extra head on odd steps) gets
// no call. A hook that fails stops the pass with its status.
typedef enum {
    SIM_MODULE_PRE_FORWARD = 0,
    SIM_MODULE_POST_FORWARD,
    SIM_MODULE_PRE_BACKWARD,
    SIM_MODULE_POST_BACKWARD,
} SimModuleEvent;

typedef SimStatus (*SimModuleHook)(void *arg, SimModuleEvent ev, int module);

typedef struct SimModelImpl SimModelImpl; // activations and layer plans, private

typedef struct {
    SimModelSpec spec;
    int max_batch;           // activations are sized for this many samples
    int nparams;
    SimParamInfo *params;    // [nparams], PyTorch order
    size_t param_count;      // elements in the flat buffers
    SimTensor param;         // [param_count] fp32
    SimTensor grad;          // [param_count] fp32
    int nbuffers;
    SimBufferInfo *buffers;  // [nbuffers]
    size_t buffer_count;
    SimTensor buffer;        // [buffer_count] fp32
    int training;            // 1: train mode (BatchNorm uses batch statistics)
    int nmodules;
    SimModuleInfo *modules;  // [nmodules]: the root first, then its children in order
    SimModuleHook module_hook; // NULL: none (sim_model_set_module_hook)
    void *module_hook_arg;
    SimModelImpl *impl;
} SimModel;

// Parses "mlp:784,256,256,10[,act=relu|gelu][,bn][,unused][,mse]",
// "gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65" followed by any of the
// architecture options "bias=mlp|all|none", "tied", "norm=layer|rms",
// "mlp=gelu|swiglu", "ffn=N", "kv_heads=N", "pos=learned|rope", "encoder",
// "type_vocab=N", "dropout", "ckpt=none|selective|full", "attn=eager|flash",
// "count:params=N[,flops=F]", or a preset's name ("llama2-7b", see
// sim_model_preset). On failure writes a one-line reason naming the field
// and the allowed values into err and returns SIM_EINVAL. The modules
// these name: docs/training.md, "Models".
SimStatus sim_model_parse(const char *text, SimModelSpec *out, char *err, size_t errlen);
// Writes the spec back in the syntax sim_model_parse reads (canonical form:
// options in a fixed order, defaults left out). Returns buf.
const char *sim_model_spec_str(const SimModelSpec *spec, char *buf, size_t len);
// One line naming the equivalent PyTorch module, e.g. "nn.Sequential(Linear(784,
// 256), ReLU(), Linear(256, 10))"; see docs/training.md, "Models". Returns buf.
const char *sim_model_describe(const SimModelSpec *spec, char *buf, size_t len);

// Builds the parameter and buffer tables, and allocates (through the rank's
// backend, sim_tensor_alloc) the flat parameters, gradients, buffers and the
// activations for batches of up to max_batch samples (GPT: sequences of up to
// ctx tokens). phantom = 1: shapes and sizes only, no storage; forward and
// backward then run every op for its accounting but touch no memory.
// Parameters are zero until sim_model_init; gradients are zero.
// On failure *out is NULL and the reason is in r->error.
SimStatus sim_model_create(SimRank *r, const SimModelSpec *spec, int max_batch, int phantom,
                           SimModel **out);
void sim_model_destroy(SimRank *r, SimModel *m); // safe on NULL
// PyTorch's default initialisation distributions, drawn from ddplab's own
// generator seeded with `seed` (so values differ from PyTorch's): Linear
// weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), Embedding N(0, 1),
// LayerNorm and BatchNorm weight 1 and bias 0; buffers to their initial
// values (running_mean 0, running_var 1, num_batches_tracked 0, the causal
// mask lower-triangular ones). No-op on the values of a phantom model.
SimStatus sim_model_init(SimRank *r, SimModel *m, uint64_t seed);
// The same, drawn from PyTorch's CPU generator as torch.manual_seed(seed)
// leaves it (base/torch_gen.h), in the order PyTorch's constructors draw:
// a model gets exactly the weights of torch.manual_seed(seed) followed by
// building its module (an mlp's nn.Sequential, whose BatchNorm and
// activations draw nothing; the gpt's MiniGPT: tok_emb, pos_emb, each
// block's Linears, head).
SimStatus sim_model_init_torch(SimRank *r, SimModel *m, uint64_t seed);
// train() / eval(): only BatchNorm behaves differently.
void sim_model_set_training(SimModel *m, int training);
// Sets every gradient to zero (PyTorch's zero_grad(set_to_none=False)).
SimStatus sim_model_zero_grad(SimRank *r, SimModel *m);
// Uploads the batch and runs the forward pass and the loss. *loss is the mean
// loss over the batch (GPT: over its n*seq tokens; MSE: over n*K values); 0 in
// phantom mode. `step` decides the unused branch (used on even steps only).
// amp is SIM_FP32 (off), SIM_FP16 or SIM_BF16: the matrix products' inputs
// are rounded to it. A batch that does not fit the model (sizes, labels or
// tokens out of range) is SIM_EINVAL with the reason in r->error.
SimStatus sim_model_forward(SimRank *r, SimModel *m, const SimBatch *batch, int step,
                            SimDtype amp, float *loss);
// Backward through the last forward. The loss gradient is dloss_scale / N per
// sample (N as for the loss), so GradScaler's scale and 1/accumulation are one
// factor. Parameter gradients ACCUMULATE (call zero_grad between steps unless
// accumulating). hook (may be NULL) is called with each parameter's index as
// soon as its gradient is complete, in the order PyTorch's autograd
// completes them for the equivalent module; parameters the forward did not
// use get no call and no gradient. With BatchNorm, backward after an
// eval-mode forward is SIM_EINVAL (the running statistics are not trained
// through); so is backward with no successful forward before it.
SimStatus sim_model_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                             void *arg);
// The last forward's output: logits [n, classes] / [n, T, vocab] or
// predictions [n, K], valid until the next forward. NULL before any forward.
const SimTensor *sim_model_output(const SimModel *m);
// 1 if the last forward used parameter i (so backward gives it a gradient).
int sim_model_param_used(const SimModel *m, int i);
// Takes parameter i out of the last forward's graph, as a branch not taken
// would (the `unused` fault, sim/engine/fault.h): sim_model_param_used says 0, the
// next backward calls no hook for it and leaves its gradient as it was
// (what it computes for it goes to a scratch buffer). Call it between a
// forward and its backward; the next forward undoes it.
void sim_model_mark_unused(SimModel *m, int i);
// 1 if the last forward used parameter i and sim_model_mark_unused took it out.
int sim_model_param_dropped(const SimModel *m, int i);
// Sets (or with NULL clears) the hook called at module boundaries in
// forward and backward.
void sim_model_set_module_hook(SimModel *m, SimModuleHook hook, void *arg);
// The module whose own range holds parameter i most closely (a child, else
// the root).
int sim_model_param_module(const SimModel *m, int i);
// Index of the parameter or buffer with this name, or -1.
int sim_model_find_param(const SimModel *m, const char *name);
int sim_model_find_buffer(const SimModel *m, const char *name);

// ----------------------------------------------------------------------------
// Sizes without a model (sim/model/model_act.c)

// The parameters a spec has, from its shapes alone (the table
// sim_model_create builds holds exactly this many elements). 0 for an
// invalid spec.
int64_t sim_model_spec_params(const SimModelSpec *spec);
// NULL if the spec runs numerically, else the first option that makes it
// phantom-only, as the spec syntax names it ("norm=rms", "count", ...).
const char *sim_model_spec_phantom_only(const SimModelSpec *spec);

// Activation memory of a transformer (gpt kind) for a micro-batch of b
// sequences of s tokens, after Korthikanti et al. 2022 ("Reducing
// Activation Recomputation in Large Transformer Models", arXiv 2205.05198,
// section 4): without recomputation one layer stores
//     s b h (34 + 5 a s / h)  bytes in fp16/bf16 (dtype_bytes 2)
// for a GPT layer with dropout (h width, a heads), with attn=flash
//     s b h (34 + 4 a / h)      the scores replaced by the kernel's fp32
//                               log-sum-exp per row and head
// The terms, per s b:
//   replicated: the two norms' inputs 2p h, the QKV and MLP inputs p h each,
//               the two dropout masks 2h (dropout only)             = 10 h
//   split:      Q p h, K and V 2 p h_kv, the output projection's input p h,
//               the MLP hidden 2 p F (GELU: its input and output; SwiGLU:
//               3 p F, gate, up and their product)                   = 24 h
//   scores:     softmax output p a s, with dropout also its mask a s and
//               output p a s                                         = 5 a s
// with p = dtype_bytes, F the MLP width and h_kv the key/value width
// (grouped-query attention), so other architectures get the same terms
// for their own shapes. SELECTIVE drops the scores (under flash there are
// none to drop: it stores what NONE stores); FULL keeps each layer's
// input (p s b h) and, while one layer is recomputed in backward, that
// layer's activations again. Tensor parallelism over tp ranks divides the
// split terms and the scores by tp, sequence parallelism (seq_parallel = 1)
// the replicated ones too (the paper's 10 + 24/t and 34/t).
typedef struct {
    int64_t per_layer;  // one layer without recomputation
    int64_t stored;     // what the L layers keep from forward to backward under ckpt
    int64_t recompute;  // FULL: one layer's activations while it is recomputed; else 0
    int64_t outside;    // outside the layers: the embedding's dropout mask, the final
                        // norm's input and output (2 p s b h), and the logits in fp32
                        // for the loss (4 s b V; the paper's 4sbv) or the encoder's
                        // pooler input and output
    int64_t total;      // the most held at once: stored + max(outside, recompute)
} SimActBytes;

// SIM_EINVAL (nothing written) unless spec is a gpt, b, s, dtype_bytes and
// tp are at least 1 and the result fits in int64.
SimStatus sim_model_act_bytes(const SimModelSpec *spec, int64_t b, int64_t s, int dtype_bytes,
                              SimActCkpt ckpt, SimActBytes *out);
SimStatus sim_model_act_bytes_tp(const SimModelSpec *spec, int64_t b, int64_t s,
                                 int dtype_bytes, SimActCkpt ckpt, int tp, int seq_parallel,
                                 SimActBytes *out);
const char *sim_model_ckpt_name(SimActCkpt c); // "none", "selective", "full"
int sim_model_ckpt_parse(const char *s, SimActCkpt *out); // 0, or -1 if unknown
const char *sim_model_attn_name(SimAttnKind a);            // "plain", "eager", "flash"
int sim_model_attn_parse(const char *s, SimAttnKind *out); // 0, or -1 if unknown (not "plain")

// ----------------------------------------------------------------------------
// Presets (sim/model/model_presets.c): real models by name, with their exact
// parameter counts and where their shapes come from.

typedef struct {
    const char *name;   // "gpt2", "llama2-7b", ...
    const char *spec;   // the spec, in sim_model_parse's syntax
    int64_t params;     // the exact parameter count (tests/model_presets.cmake checks it)
    const char *source; // the model card or paper the shape comes from
} SimModelPreset;

// Fills *out with the named preset's spec: 0, or -1 for an unknown name.
int sim_model_preset(const char *name, SimModelSpec *out);
int sim_model_preset_count(void);
const SimModelPreset *sim_model_preset_at(int i); // NULL outside 0..count-1
// "gpt2, gpt2-medium, ..., resnet50" into buf (for messages); returns buf.
const char *sim_model_preset_names(char *buf, size_t len);

#endif
