// sim/model/model_mlp.c: the multi-layer perceptron, layer by layer.
//
// "mlp:W0,...,Wk[,act=relu|gelu][,bn][,unused][,mse]" is this PyTorch module:
//
//   nn.Sequential(Linear(W0, W1), [BatchNorm1d(W1),] Act(), Linear(W1, W2), ...
//                 ..., Linear(W(k-1), Wk))
//
// indexed as nn.Sequential indexes it, counting the BatchNorm and activation
// modules, so "mlp:784,256,10" has 0.weight, 0.bias, 2.weight, 2.bias and with
// bn 0 Linear, 1 BatchNorm1d, 2 ReLU, 3 Linear. BatchNorm1d has PyTorch's
// defaults (eps 1e-5, momentum 0.1) and buffers running_mean, running_var and
// num_batches_tracked. `unused` appends one more Linear(W(k-1), Wk) at the next
// index, fed by the last hidden layer, whose output is added to the logits on
// even steps only: on odd steps its parameters get no gradient, the case
// DDP's find_unused_parameters exists for. The loss is cross-entropy over
// integer labels, or with `mse` the mean squared error against Wk targets.
//
// Backward reports gradients in the order PyTorch's autograd completes them:
// from the last layer down, each Linear's bias before its weight, each
// BatchNorm's weight before its bias, and on even steps the extra head before
// the last Linear.
#include "model/model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MLP_MAX 16

typedef struct {
    int L;                        // Linear layers on the main path
    int lin_w[MLP_MAX], lin_b[MLP_MAX]; // parameter indices
    int bn_w[MLP_MAX], bn_b[MLP_MAX];   // BatchNorm after Linear i (-1: none)
    int bn_rm[MLP_MAX], bn_rv[MLP_MAX], bn_nbt[MLP_MAX]; // its buffers
    int aux_w, aux_b;             // the extra head (-1: none)
    int mod_lin[MLP_MAX], mod_bn[MLP_MAX], mod_aux; // module indices (-1: none)
    // Views for the current batch of n samples (widths w[i]).
    SimTensor one;                // [1] the constant 1 (num_batches_tracked += 1)
    SimTensor x;                  // [n, w0] input features
    SimTensor z[MLP_MAX], dz[MLP_MAX];   // Linear i output [n, w(i+1)]
    SimTensor bn[MLP_MAX], dbn[MLP_MAX]; // BatchNorm output [n, w(i+1)]
    SimTensor mean[MLP_MAX], invstd[MLP_MAX]; // batch statistics [w(i+1)]
    SimTensor a[MLP_MAX], da[MLP_MAX];   // activation output [n, w(i+1)]
    SimTensor aux;                // [n, wk] the extra head's output
    SimSyncBnViews sync[MLP_MAX]; // SyncBatchNorm's stats and sums (sync_ranks > 0)
} MlpState;

static int has_bn(const MlpState *s, int i) {
    return s->bn_w[i] >= 0;
}

static SimStatus add_linear(SimModel *m, int idx, int in, int out, int *w, int *b, int *mod) {
    char name[SIM_NAME_MAX];
    int64_t ws[2] = {out, in}, bs[1] = {out};
    snprintf(name, sizeof name, "%d", idx);
    SIM_CHECK(sim_model_begin_module(m, name, mod));
    *w = m->nparams;
    snprintf(name, sizeof name, "%d.weight", idx);
    SIM_CHECK(sim_model_add_param(m, name, 2, ws));
    *b = m->nparams;
    snprintf(name, sizeof name, "%d.bias", idx);
    SIM_CHECK(sim_model_add_param(m, name, 1, bs));
    sim_model_end_module(m, *mod);
    return SIM_OK;
}

static SimStatus add_batchnorm(SimModel *m, MlpState *s, int idx, int i, int width) {
    char name[SIM_NAME_MAX];
    int64_t cs[1] = {width};
    snprintf(name, sizeof name, "%d", idx);
    SIM_CHECK(sim_model_begin_module(m, name, &s->mod_bn[i]));
    s->bn_w[i] = m->nparams;
    snprintf(name, sizeof name, "%d.weight", idx);
    SIM_CHECK(sim_model_add_param(m, name, 1, cs));
    s->bn_b[i] = m->nparams;
    snprintf(name, sizeof name, "%d.bias", idx);
    SIM_CHECK(sim_model_add_param(m, name, 1, cs));
    sim_model_end_module(m, s->mod_bn[i]);
    s->bn_rm[i] = m->nbuffers;
    snprintf(name, sizeof name, "%d.running_mean", idx);
    SIM_CHECK(sim_model_add_buffer(m, name, SIM_FP32, 1, cs));
    s->bn_rv[i] = m->nbuffers;
    snprintf(name, sizeof name, "%d.running_var", idx);
    SIM_CHECK(sim_model_add_buffer(m, name, SIM_FP32, 1, cs));
    s->bn_nbt[i] = m->nbuffers;
    snprintf(name, sizeof name, "%d.num_batches_tracked", idx);
    return sim_model_add_buffer(m, name, SIM_INT64, 0, cs); // a 0-dim tensor in PyTorch
}

SimStatus sim_model_mlp_build(SimModel *m) {
    const int *w = m->spec.widths;
    MlpState *s = calloc(1, sizeof *s);
    if (!s)
        return SIM_ENOMEM;
    m->impl->kind = s;
    s->L = m->spec.nwidths - 1;
    s->aux_w = s->aux_b = -1;
    s->mod_aux = -1;
    int idx = 0; // the nn.Sequential index of the next module
    for (int i = 0; i < s->L; i++) {
        s->bn_w[i] = s->bn_b[i] = -1;
        s->mod_bn[i] = -1;
        SIM_CHECK(add_linear(m, idx++, w[i], w[i + 1], &s->lin_w[i], &s->lin_b[i],
                             &s->mod_lin[i]));
        if (i == s->L - 1)
            break;
        if (m->spec.batchnorm)
            SIM_CHECK(add_batchnorm(m, s, idx++, i, w[i + 1]));
        idx++; // the activation has no parameters
    }
    if (m->spec.unused_branch)
        SIM_CHECK(add_linear(m, idx, w[s->L - 1], w[s->L], &s->aux_w, &s->aux_b, &s->mod_aux));
    return SIM_OK;
}

void sim_model_mlp_free(SimModel *m) {
    free(m->impl->kind);
    m->impl->kind = NULL;
}

void sim_model_mlp_layout(SimModel *m, SimModelArena *acts, SimModelArena *dacts,
                          SimModelArena *ints, int n) {
    MlpState *s = m->impl->kind;
    SimModelLoss *loss = &m->impl->loss;
    const int *w = m->spec.widths;
    int64_t one[1] = {1}, in[2] = {n, w[0]}, out[2] = {n, w[s->L]}, N[1] = {n};
    sim_model_take(acts, &s->one, "one", SIM_FP32, 1, one);
    sim_model_take(acts, &s->x, "input", SIM_FP32, 2, in);
    for (int i = 0; i < s->L; i++) {
        int64_t sh[2] = {n, w[i + 1]}, c[1] = {w[i + 1]};
        sim_model_take(acts, &s->z[i], "linear out", SIM_FP32, 2, sh);
        sim_model_take(dacts, &s->dz[i], "d linear out", SIM_FP32, 2, sh);
        if (i == s->L - 1)
            break;
        if (has_bn(s, i)) {
            sim_model_take(acts, &s->bn[i], "batchnorm out", SIM_FP32, 2, sh);
            sim_model_take(dacts, &s->dbn[i], "d batchnorm out", SIM_FP32, 2, sh);
            sim_model_take(acts, &s->mean[i], "batchnorm mean", SIM_FP32, 1, c);
            sim_model_take(acts, &s->invstd[i], "batchnorm invstd", SIM_FP32, 1, c);
            if (m->impl->sync_ranks > 0)
                sim_model_syncbn_take(acts, &s->sync[i], w[i + 1], m->impl->sync_ranks);
        }
        sim_model_take(acts, &s->a[i], "activation out", SIM_FP32, 2, sh);
        sim_model_take(dacts, &s->da[i], "d activation out", SIM_FP32, 2, sh);
    }
    if (s->aux_w >= 0)
        sim_model_take(acts, &s->aux, "extra head out", SIM_FP32, 2, out);
    if (m->spec.mse) {
        sim_model_take(acts, &loss->diff, "targets - prediction", SIM_FP32, 2, out);
        loss->count = (size_t)n * (size_t)w[s->L];
    } else {
        sim_model_take(ints, &loss->labels, "labels", SIM_INT32, 1, N);
        sim_model_take(acts, &loss->probs, "probs", SIM_FP32, 2, out);
        sim_model_take(acts, &loss->losses, "losses", SIM_FP32, 1, N);
        sim_model_take(dacts, &loss->dlosses, "d losses", SIM_FP32, 1, N);
        loss->count = (size_t)n;
    }
}

// Linear: weight [out, in] by kaiming_uniform(a=sqrt(5)), whose bound
// gain*sqrt(3/fan_in) with gain sqrt(2/(1+5)) is 1/sqrt(fan_in); the bias
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)). Weight first, as the table orders them
// and nn.Linear.reset_parameters draws them.
static SimStatus init_linear(SimRank *r, SimModel *m, int w, int b, int fan_in,
                             SimModelRng *rng) {
    SIM_CHECK(sim_model_init_uniform(r, m, w, sim_model_linear_bound(fan_in, rng), rng));
    return sim_model_init_uniform(r, m, b, (float)(1.0 / sqrt((double)fan_in)), rng);
}

SimStatus sim_model_mlp_init(SimRank *r, SimModel *m, SimModelRng *rng) {
    MlpState *s = m->impl->kind;
    const int *w = m->spec.widths;
    for (int i = 0; i < s->L; i++) {
        SIM_CHECK(init_linear(r, m, s->lin_w[i], s->lin_b[i], w[i], rng));
        if (i == s->L - 1 || !has_bn(s, i))
            continue;
        SIM_CHECK(sim_model_init_const(r, m, s->bn_w[i], 1.0f));
        SIM_CHECK(sim_model_init_const(r, m, s->bn_b[i], 0.0f));
        SIM_CHECK(sim_model_init_buffer_const(r, m, s->bn_rm[i], 0.0f));
        SIM_CHECK(sim_model_init_buffer_const(r, m, s->bn_rv[i], 1.0f));
        SIM_CHECK(sim_model_init_buffer_const(r, m, s->bn_nbt[i], 0.0f));
    }
    if (s->aux_w >= 0)
        SIM_CHECK(init_linear(r, m, s->aux_w, s->aux_b, w[s->L - 1], rng));
    return SIM_OK;
}

static SimStatus check_batch(SimRank *r, const SimModel *m, const SimBatch *b) {
    const int *w = m->spec.widths;
    int k = w[m->spec.nwidths - 1], phantom = m->impl->phantom;
    if (b->features != w[0] || (!phantom && !b->x))
        return sim_model_fail(r, "model mlp: the batch has %d features per sample%s but the "
                              "model's input width is %d", b->features,
                              !b->x && !phantom ? " and no feature data" : "", w[0]);
    if (m->spec.mse) {
        if (b->target_dim != k || (!phantom && !b->targets))
            return sim_model_fail(r, "model mlp with mse: the batch has %d targets per sample "
                                  "but the model's output width is %d", b->targets ?
                                  b->target_dim : 0, k);
    } else {
        if (!phantom && !b->labels)
            return sim_model_fail(r, "model mlp: cross-entropy needs labels and the batch has "
                                  "none");
        SIM_CHECK(sim_model_check_ids(r, "label", b->labels, (size_t)b->n, 1, k, b));
    }
    // SyncBatchNorm counts every rank's rows: one row per rank is enough
    // (torch refuses a single row only when the world has one rank).
    if (m->spec.batchnorm && m->training && b->n < 2 && m->impl->sync_ranks < 2)
        return sim_model_fail(r, "model mlp with bn: BatchNorm1d in training needs more than 1 "
                              "value per channel (batch of %d)", b->n);
    return SIM_OK;
}

SimStatus sim_model_mlp_forward(SimRank *r, SimModel *m, const SimBatch *b, int step,
                                float *loss) {
    SimModelImpl *im = m->impl;
    MlpState *s = im->kind;
    SIM_CHECK(check_batch(r, m, b));
    sim_model_lay_out(m, b->n, 0);
    SIM_CHECK(sim_tensor_upload(r, &s->x, b->x));
    if (m->spec.mse)
        SIM_CHECK(sim_tensor_upload(r, &im->loss.diff, b->targets));
    else
        SIM_CHECK(sim_tensor_upload(r, &im->loss.labels, b->labels));
    int aux = s->aux_w >= 0 && step % 2 == 0;
    for (int i = 0; i < m->nparams; i++)
        im->used[i] = (i != s->aux_w && i != s->aux_b) || aux;
    int bn_train = m->spec.batchnorm && m->training;
    if (bn_train)
        SIM_CHECK(sim_op_fill(r, &s->one, 0, 0, 1.0f));
    const SimTensor *h = &s->x;
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, 0));
    for (int i = 0; i < s->L; i++) {
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_lin[i]));
        SIM_CHECK(sim_op_linear_forward(r, &s->z[i], h, &im->pv[s->lin_w[i]],
                                        &im->pv[s->lin_b[i]], im->amp));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_lin[i]));
        if (i == s->L - 1)
            break;
        const SimTensor *pre = &s->z[i];
        if (has_bn(s, i)) {
            SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_bn[i]));
            if (bn_train && im->sync_ranks > 0)
                SIM_CHECK(sim_model_syncbn_forward(r, &s->sync[i], &s->bn[i], &s->mean[i],
                                                   &s->invstd[i], &im->bv[s->bn_rm[i]],
                                                   &im->bv[s->bn_rv[i]], &s->z[i],
                                                   &im->pv[s->bn_w[i]], &im->pv[s->bn_b[i]],
                                                   0.1f, 1e-5f));
            else
                SIM_CHECK(sim_op_batchnorm_forward(r, &s->bn[i], &s->mean[i], &s->invstd[i],
                                                   &im->bv[s->bn_rm[i]], &im->bv[s->bn_rv[i]],
                                                   &s->z[i], &im->pv[s->bn_w[i]],
                                                   &im->pv[s->bn_b[i]], 0.1f, 1e-5f,
                                                   m->training));
            if (bn_train)
                SIM_CHECK(sim_op_axpy(r, &im->bv[s->bn_nbt[i]], 1.0f, &s->one));
            SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_bn[i]));
            pre = &s->bn[i];
        }
        SIM_CHECK(sim_op_act_forward(r, m->spec.act, &s->a[i], pre));
        h = &s->a[i];
    }
    SimTensor *logits = &s->z[s->L - 1];
    if (aux) {
        // The extra head reads what the last Linear reads; its output is
        // added to the logits, so both heads see the same output gradient.
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_aux));
        SIM_CHECK(sim_op_linear_forward(r, &s->aux, h, &im->pv[s->aux_w], &im->pv[s->aux_b],
                                        im->amp));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_aux));
        SIM_CHECK(sim_op_axpy(r, logits, 1.0f, &s->aux));
    }
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, 0));
    im->output = logits;
    return sim_model_loss_forward(r, m, logits, loss);
}

static SimStatus linear_back(SimRank *r, SimModel *m, SimTensor *dinp, int w, int b, int mod,
                             const SimTensor *dout, const SimTensor *inp, SimGradHook hook,
                             void *arg) {
    SimModelImpl *im = m->impl;
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, mod));
    SIM_CHECK(sim_op_linear_backward(r, dinp, &im->gv[w], &im->gv[b], dout, inp, &im->pv[w],
                                     im->amp));
    sim_model_ready(m, hook, arg, b);
    sim_model_ready(m, hook, arg, w);
    return sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, mod);
}

SimStatus sim_model_mlp_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                                 void *arg) {
    SimModelImpl *im = m->impl;
    MlpState *s = im->kind;
    int L = s->L;
    if (m->spec.batchnorm && !im->fwd_training)
        return sim_model_fail(r, "model mlp with bn: backward after an eval-mode forward is "
                              "not supported (BatchNorm used its running statistics)");
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, 0));
    SIM_CHECK(sim_model_loss_backward(r, m, &s->dz[L - 1], dloss_scale));
    const SimTensor *last_in = L > 1 ? &s->a[L - 2] : &s->x;
    SimTensor *dlast_in = L > 1 ? &s->da[L - 2] : NULL;
    if (s->aux_w >= 0 && im->used[s->aux_w])
        SIM_CHECK(linear_back(r, m, dlast_in, s->aux_w, s->aux_b, s->mod_aux, &s->dz[L - 1],
                              last_in, hook, arg));
    for (int i = L - 1; i >= 0; i--) {
        const SimTensor *inp = i > 0 ? &s->a[i - 1] : &s->x;
        SimTensor *dinp = i > 0 ? &s->da[i - 1] : NULL; // the input needs no gradient
        SIM_CHECK(linear_back(r, m, dinp, s->lin_w[i], s->lin_b[i], s->mod_lin[i], &s->dz[i], inp,
                              hook, arg));
        if (i == 0)
            break;
        int h = i - 1; // the hidden layer below
        if (!has_bn(s, h)) {
            SIM_CHECK(sim_op_act_backward(r, m->spec.act, &s->dz[h], &s->z[h], &s->da[h]));
            continue;
        }
        SIM_CHECK(sim_op_act_backward(r, m->spec.act, &s->dbn[h], &s->bn[h], &s->da[h]));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_bn[h]));
        if (im->sync_ranks > 0)
            SIM_CHECK(sim_model_syncbn_backward(r, &s->sync[h], &s->dz[h], &im->gv[s->bn_w[h]],
                                                &im->gv[s->bn_b[h]], &s->dbn[h], &s->z[h],
                                                &im->pv[s->bn_w[h]], &s->mean[h],
                                                &s->invstd[h]));
        else
            SIM_CHECK(sim_op_batchnorm_backward(r, &s->dz[h], &im->gv[s->bn_w[h]],
                                                &im->gv[s->bn_b[h]], &s->dbn[h], &s->z[h],
                                                &im->pv[s->bn_w[h]], &s->mean[h],
                                                &s->invstd[h]));
        sim_model_ready(m, hook, arg, s->bn_w[h]);
        sim_model_ready(m, hook, arg, s->bn_b[h]);
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_bn[h]));
    }
    return sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, 0);
}
