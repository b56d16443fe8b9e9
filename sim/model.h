// sim/model.h: the models a rank trains, written like llm.c: every layer's
// forward and backward spelled out, all parameters in one flat fp32 buffer
// with a table of named views (and the gradients in a second buffer with the
// same layout), so strategies can bucket, shard and all-reduce plain ranges.
//
// Parameter names and order are PyTorch's state_dict keys of the equivalent
// module (nn.Sequential "0.weight", "0.bias", "2.weight", ... for an MLP;
// "tok_emb.weight", "blocks.0.ln1.weight", ... for MiniGPT; see
// sim/model_gpt.c), so checkpoints load with load_state_dict.
#ifndef DDPLAB_SIM_MODEL_H
#define DDPLAB_SIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"  // defines: SimBatch
#include "kernels.h" // defines: SimAct
#include "tensor.h" // defines: SimTensor
#include "world.h"  // defines: SimRank

#define SIM_NAME_MAX 96

typedef enum { SIM_MODEL_MLP = 0, SIM_MODEL_GPT } SimModelKind;

typedef struct {
    SimModelKind kind;
    // MLP: layer widths, e.g. 784,256,256,10 (2..16 widths).
    int nwidths;
    int widths[16];
    SimAct act;              // between Linear layers (relu default, or gelu)
    int batchnorm;           // 1: BatchNorm1d after each hidden Linear (before act)
    int unused_branch;       // 1: an extra head whose parameters get no gradient on some steps
    // GPT (MiniGPT of the reference guide, no dropout).
    int layers, embd, heads, ctx, vocab;
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
} SimBufferInfo;

// Called during backward each time a parameter's gradient is complete, in the
// order PyTorch's autograd completes them for the same module.
typedef void (*SimGradHook)(void *arg, int param_index);

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
    SimModelImpl *impl;
} SimModel;

// Parses "mlp:784,256,256,10[,act=gelu][,bn][,unused]" or
// "gpt:layers=4,embd=128,heads=4,ctx=64,vocab=65". On failure writes a
// one-line reason naming the field into err and returns SIM_EINVAL.
SimStatus sim_model_parse(const char *text, SimModelSpec *out, char *err, size_t errlen);

#endif
