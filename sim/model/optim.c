// sim/model/optim.c: the optimizer object: its flat state tensors, per-parameter
// step counters, one step as torch.optim's single-tensor code does it, and
// the named views a checkpoint saves.
//
// The math is the backend's (sim_op_sgd_step / sim_op_adam_step); this file
// decides which ranges to update with which hyperparameters. Parameters that
// lie back to back and share a step count are updated in one call, so a
// model whose parameters all have gradients takes one call per step.
#include "model/optim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops.h"

int sim_optim_next_run(const SimParamInfo *params, int nparams, const uint8_t *has_grad, int *i,
                       int *first, size_t *off, size_t *n) {
    int k = *i;
    while (k < nparams && has_grad && !has_grad[k])
        k++;
    if (k >= nparams) {
        *i = nparams;
        return 0;
    }
    *first = k;
    *off = params[k].offset;
    size_t end = params[k].offset + params[k].numel;
    for (k++; k < nparams && (!has_grad || has_grad[k]) && params[k].offset == end; k++)
        end += params[k].numel;
    *n = end - *off;
    *i = k;
    return 1;
}

static int table_fits(const SimParamInfo *params, int nparams, size_t count) {
    for (int i = 0; i < nparams; i++) {
        if (params[i].offset > count || params[i].numel > count - params[i].offset)
            return 0;
    }
    return 1;
}

SimStatus sim_optim_init(SimOptim *o, SimRank *r, const SimOptimOptions *opt, SimTensor *param,
                         SimTensor *grad, const SimParamInfo *params, int nparams) {
    memset(o, 0, sizeof *o);
    size_t count = sim_tensor_numel(param);
    if (param->dtype != SIM_FP32 || grad->dtype != SIM_FP32 || sim_tensor_numel(grad) != count ||
        nparams < 0 || !table_fits(params, nparams, count)) {
        snprintf(r->error, sizeof r->error,
                 "optimizer: parameters and gradients must be fp32 tensors of one size that hold "
                 "every parameter of the table");
        return SIM_EINVAL;
    }
    o->opt = *opt;
    o->param = param;
    o->grad = grad;
    o->params = params;
    o->nparams = nparams;
    o->param_steps = calloc(nparams > 0 ? (size_t)nparams : 1, sizeof *o->param_steps);
    if (!o->param_steps)
        return SIM_ENOMEM;
    if (opt->kind == SIM_OPTIM_SGD) {
        if (opt->momentum != 0)
            o->state_names[o->nstate++] = "momentum_buffer";
    } else {
        o->state_names[o->nstate++] = "exp_avg";
        o->state_names[o->nstate++] = "exp_avg_sq";
    }
    int64_t shape[1] = {(int64_t)count};
    int phantom = param->data == NULL;
    for (int k = 0; k < o->nstate; k++) {
        sim_tensor_init(&o->state[k], o->state_names[k], SIM_FP32, 1, shape);
        o->state[k].mem_cat = SIM_MEM_OPTIM;
        SimStatus st = sim_tensor_alloc(r, &o->state[k], phantom);
        if (st == SIM_OK && count > 0)
            st = sim_op_fill(r, &o->state[k], 0, count, 0.0f);
        if (st != SIM_OK) {
            sim_optim_free(o, r);
            return st;
        }
    }
    return SIM_OK;
}

void sim_optim_free(SimOptim *o, SimRank *r) {
    for (int k = 0; k < SIM_OPTIM_MAX_STATE; k++) {
        sim_tensor_free(r, &o->state[k]); // phantom state too: it was charged
        o->state[k].data = NULL;
    }
    free(o->param_steps);
    o->param_steps = NULL;
    o->nstate = 0;
}

// SGD over [off, off+n); first = 1 when these parameters have no momentum
// buffer yet (torch clones the gradient into it then).
static SimStatus sgd_range(SimOptim *o, SimRank *r, double lr, size_t off, size_t n, int first) {
    SimSgdHyper h = {
        .lr = lr,
        .momentum = o->opt.momentum,
        .dampening = o->opt.dampening,
        .weight_decay = o->opt.weight_decay,
        .nesterov = o->opt.nesterov,
        .first_step = first,
    };
    SimTensor *buf = o->nstate > 0 ? &o->state[0] : NULL; // no buffer without momentum
    return sim_op_sgd_step(r, o->param, o->grad, buf, off, n, &h);
}

static SimStatus adam_range(SimOptim *o, SimRank *r, double lr, size_t off, size_t n,
                            int64_t step) {
    SimAdamHyper h = {
        .lr = lr,
        .beta1 = o->opt.beta1,
        .beta2 = o->opt.beta2,
        .eps = o->opt.eps,
        .weight_decay = o->opt.weight_decay,
        .decoupled = o->opt.kind == SIM_OPTIM_ADAMW,
        .step = step,
    };
    return sim_op_adam_step(r, o->param, o->grad, &o->state[0], &o->state[1], off, n, &h);
}

// Updates the parameters [first, last) (back to back, all with gradients),
// split further where the step counts differ.
static SimStatus step_run(SimOptim *o, SimRank *r, double lr, int first, int last) {
    while (first < last) {
        int64_t s = o->param_steps[first];
        int end = first + 1;
        // SGD only cares whether the buffer exists, Adam about the count.
        while (end < last && (o->opt.kind == SIM_OPTIM_SGD
                                  ? (o->param_steps[end] == 0) == (s == 0)
                                  : o->param_steps[end] == s))
            end++;
        size_t off = o->params[first].offset;
        size_t n = o->params[end - 1].offset + o->params[end - 1].numel - off;
        SimStatus st = o->opt.kind == SIM_OPTIM_SGD ? sgd_range(o, r, lr, off, n, s == 0)
                                                    : adam_range(o, r, lr, off, n, s + 1);
        if (st != SIM_OK)
            return st;
        for (int i = first; i < end; i++)
            o->param_steps[i]++;
        first = end;
    }
    return SIM_OK;
}

SimStatus sim_optim_step(SimOptim *o, SimRank *r, double lr, const uint8_t *has_grad) {
    int i = 0, first;
    size_t off, n;
    while (sim_optim_next_run(o->params, o->nparams, has_grad, &i, &first, &off, &n)) {
        if (n == 0)
            continue;
        SIM_CHECK(step_run(o, r, lr, first, i));
    }
    o->steps++;
    return SIM_OK;
}

int sim_optim_state_view(const SimOptim *o, int i, int k, SimOptimStateView *out) {
    if (i < 0 || i >= o->nparams || k < 0 || k >= o->nstate)
        return -1;
    const SimParamInfo *p = &o->params[i];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "state.%d.%s", i, o->state_names[k]);
    out->param_index = i;
    out->flat = (SimTensor *)&o->state[k];
    out->offset = p->offset;
    out->numel = p->numel;
    out->ndim = p->ndim;
    memcpy(out->shape, p->shape, sizeof out->shape);
    return 0;
}

int sim_optim_state_views(const SimOptim *o, SimOptimStateView *out, int max) {
    int count = 0;
    for (int i = 0; i < o->nparams; i++) {
        if (o->param_steps[i] == 0)
            continue;
        for (int k = 0; k < o->nstate; k++, count++) {
            if (count < max)
                sim_optim_state_view(o, i, k, &out[count]);
        }
    }
    return count;
}
