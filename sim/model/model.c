// sim/model/model.c: the part of a model that does not depend on its kind: the
// parameter and buffer tables, the flat buffers and their views, the
// activation arenas, and the checks every forward and backward makes before
// handing over to sim/model/model_mlp.c, sim/model/model_gpt.c (MiniGPT),
// sim/model/model_arch.c (the real architectures) or sim/model/model_count.c.
#include "model/model_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

SimStatus sim_model_fail(SimRank *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    return SIM_EINVAL;
}

void sim_model_take(SimModelArena *a, SimTensor *t, const char *name, SimDtype dt, int ndim,
                    const int64_t *shape) {
    sim_tensor_init(t, name, dt, ndim, shape);
    t->data = a->base ? a->base + a->used * a->esize : NULL;
    a->used += sim_tensor_numel(t);
}

static size_t shape_numel(int ndim, const int64_t *shape) {
    size_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= (size_t)shape[d];
    return n;
}

SimStatus sim_model_add_param(SimModel *m, const char *name, int ndim, const int64_t *shape) {
    SimParamInfo *p = realloc(m->params, (size_t)(m->nparams + 1) * sizeof *p);
    if (!p)
        return SIM_ENOMEM;
    m->params = p;
    p += m->nparams++;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ndim = ndim;
    memcpy(p->shape, shape, (size_t)ndim * sizeof *shape);
    p->offset = m->param_count;
    p->numel = shape_numel(ndim, shape);
    m->param_count += p->numel;
    return SIM_OK;
}

SimStatus sim_model_add_buffer(SimModel *m, const char *name, SimDtype torch_dtype, int ndim,
                               const int64_t *shape) {
    SimBufferInfo *b = realloc(m->buffers, (size_t)(m->nbuffers + 1) * sizeof *b);
    if (!b)
        return SIM_ENOMEM;
    m->buffers = b;
    b += m->nbuffers++;
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->ndim = ndim;
    memcpy(b->shape, shape, (size_t)ndim * sizeof *shape);
    b->offset = m->buffer_count;
    b->numel = shape_numel(ndim, shape);
    b->torch_dtype = torch_dtype;
    m->buffer_count += b->numel;
    return SIM_OK;
}

SimStatus sim_model_begin_module(SimModel *m, const char *name, int *idx) {
    SimModuleInfo *t = realloc(m->modules, (size_t)(m->nmodules + 1) * sizeof *t);
    if (!t)
        return SIM_ENOMEM;
    m->modules = t;
    SimModuleInfo *mod = &t[m->nmodules];
    memset(mod, 0, sizeof *mod);
    snprintf(mod->name, sizeof mod->name, "%s", name);
    mod->parent = m->nmodules == 0 ? -1 : 0;
    mod->first_param = m->nparams;
    *idx = m->nmodules++;
    return SIM_OK;
}

void sim_model_end_module(SimModel *m, int idx) {
    m->modules[idx].nparams = m->nparams - m->modules[idx].first_param;
}

SimStatus sim_model_module_event(SimModel *m, SimModuleEvent ev, int module) {
    if (m->module_hook == NULL || module < 0)
        return SIM_OK;
    return m->module_hook(m->module_hook_arg, ev, module);
}

void sim_model_set_module_hook(SimModel *m, SimModuleHook hook, void *arg) {
    m->module_hook = hook;
    m->module_hook_arg = arg;
}

int sim_model_param_module(const SimModel *m, int i) {
    for (int k = 1; k < m->nmodules; k++) {
        const SimModuleInfo *mod = &m->modules[k];
        if (i >= mod->first_param && i < mod->first_param + mod->nparams)
            return k;
    }
    return 0;
}

// Lays the views out; returns the elements used of each arena.
static void arrange(SimModel *m, int n, int seq, size_t used[3]) {
    SimModelImpl *im = m->impl;
    SimModelArena acts = {im->acts.data, sizeof(float), 0};
    SimModelArena dacts = {im->dacts.data, sizeof(float), 0};
    SimModelArena ints = {im->ints.data, sizeof(int32_t), 0};
    memset(&im->loss, 0, sizeof im->loss);
    if (m->spec.kind == SIM_MODEL_COUNT)
        ; // nothing laid out: no layers
    else if (sim_model_is_arch(&m->spec))
        sim_model_arch_layout(m, &acts, &ints, n, seq);
    else if (m->spec.kind == SIM_MODEL_GPT)
        sim_model_gpt_layout(m, &acts, &dacts, &ints, n, seq);
    else
        sim_model_mlp_layout(m, &acts, &dacts, &ints, n);
    used[0] = acts.used;
    used[1] = dacts.used;
    used[2] = ints.used;
}

void sim_model_lay_out(SimModel *m, int n, int seq) {
    size_t used[3];
    arrange(m, n, seq, used);
    m->impl->dacts_used = used[1];
}

static SimStatus alloc_flat(SimRank *r, SimTensor *t, const char *name, SimDtype dt, size_t n,
                            int phantom, SimMemCat cat) {
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(t, name, dt, 1, shape);
    t->mem_cat = (int16_t)cat; // the memory ledger's category (sim/engine/memory.h)
    if (n == 0)
        return SIM_OK; // nothing to hold (e.g. no int32 inputs): stays without storage
    return sim_tensor_alloc(r, t, phantom);
}

// Views of each parameter in param and grad, and of each buffer.
static SimStatus make_views(SimModel *m) {
    SimModelImpl *im = m->impl;
    im->pv = calloc((size_t)m->nparams, sizeof *im->pv);
    im->gv = calloc((size_t)m->nparams, sizeof *im->gv);
    im->bv = calloc((size_t)m->nbuffers + 1, sizeof *im->bv);
    im->used = calloc((size_t)m->nparams, 1);
    im->dropped = calloc((size_t)m->nparams, 1);
    if (!im->pv || !im->gv || !im->bv || !im->used || !im->dropped)
        return SIM_ENOMEM;
    for (int i = 0; i < m->nparams; i++) {
        const SimParamInfo *p = &m->params[i];
        sim_tensor_init(&im->pv[i], p->name, SIM_FP32, p->ndim, p->shape);
        sim_tensor_init(&im->gv[i], p->name, SIM_FP32, p->ndim, p->shape);
        if (m->param.data)
            im->pv[i].data = (float *)m->param.data + p->offset;
        if (m->grad.data)
            im->gv[i].data = (float *)m->grad.data + p->offset;
    }
    for (int i = 0; i < m->nbuffers; i++) {
        const SimBufferInfo *b = &m->buffers[i];
        sim_tensor_init(&im->bv[i], b->name, SIM_FP32, b->ndim, b->shape);
        if (m->buffer.data)
            im->bv[i].data = (float *)m->buffer.data + b->offset;
    }
    return SIM_OK;
}

static SimStatus check_spec(SimRank *r, const SimModelSpec *spec, int max_batch) {
    char text[512], err[400];
    SimModelSpec again;
    sim_model_spec_str(spec, text, sizeof text);
    if ((spec->kind != SIM_MODEL_MLP && spec->kind != SIM_MODEL_GPT &&
         spec->kind != SIM_MODEL_COUNT) ||
        (spec->kind == SIM_MODEL_MLP && (spec->nwidths < 2 || spec->nwidths > 16)))
        return sim_model_fail(r, "model: invalid spec (kind %d, %d widths)", (int)spec->kind,
                              spec->nwidths);
    if (sim_model_parse(text, &again, err, sizeof err) != SIM_OK)
        return sim_model_fail(r, "%s", err);
    if (spec->kind == SIM_MODEL_MLP && spec->act != SIM_ACT_RELU && spec->act != SIM_ACT_GELU)
        return sim_model_fail(r, "model: act %d is not relu or gelu", (int)spec->act);
    if (max_batch < 1)
        return sim_model_fail(r, "model %s: max_batch %d must be at least 1", text, max_batch);
    return SIM_OK;
}

// The kind's own tables.
static SimStatus build_kind(SimModel *m) {
    if (m->spec.kind == SIM_MODEL_COUNT)
        return sim_model_count_build(m);
    if (sim_model_is_arch(&m->spec))
        return sim_model_arch_build(m);
    if (m->spec.kind == SIM_MODEL_GPT)
        return sim_model_gpt_build(m);
    return sim_model_mlp_build(m);
}

static SimStatus build(SimRank *r, SimModel *m, int phantom) {
    SimModelImpl *im = m->impl;
    int root;
    SIM_CHECK(sim_model_begin_module(m, "", &root));
    im->formula_acts = sim_model_is_arch(&m->spec);
    SimStatus st = build_kind(m);
    if (st != SIM_OK)
        return st;
    sim_model_end_module(m, root);
    SIM_CHECK(alloc_flat(r, &m->param, "params", SIM_FP32, m->param_count, phantom,
                         SIM_MEM_PARAM));
    SIM_CHECK(alloc_flat(r, &m->grad, "grads", SIM_FP32, m->param_count, phantom,
                         SIM_MEM_GRAD));
    SIM_CHECK(alloc_flat(r, &m->buffer, "buffers", SIM_FP32, m->buffer_count, phantom,
                         SIM_MEM_OTHER)); // BatchNorm running stats
    SIM_CHECK(make_views(m));
    size_t used[3];
    int seq = m->spec.kind == SIM_MODEL_GPT ? m->spec.ctx : 0;
    arrange(m, m->max_batch, seq, used);
    if (im->formula_acts) // charged by the formula as forward runs, not held as arenas
        used[0] = used[1] = 0;
    SIM_CHECK(alloc_flat(r, &im->acts, "activations", SIM_FP32, used[0], phantom,
                         SIM_MEM_ACT));
    SIM_CHECK(alloc_flat(r, &im->dacts, "activation grads", SIM_FP32, used[1], phantom,
                         SIM_MEM_ACT));
    SIM_CHECK(alloc_flat(r, &im->ints, "token ids and labels", SIM_INT32, used[2], phantom,
                         SIM_MEM_OTHER));
    im->host_cap = (size_t)m->max_batch * (size_t)(seq ? seq : 1);
    if (!phantom && (im->host = malloc(im->host_cap * sizeof(float))) == NULL)
        return SIM_ENOMEM;
    SIM_CHECK(sim_op_fill(r, &m->param, 0, 0, 0.0f));
    SIM_CHECK(sim_op_fill(r, &m->grad, 0, 0, 0.0f));
    if (m->buffer_count)
        SIM_CHECK(sim_op_fill(r, &m->buffer, 0, 0, 0.0f));
    return SIM_OK;
}

SimStatus sim_model_create(SimRank *r, const SimModelSpec *spec, int max_batch, int phantom,
                           SimModel **out) {
    *out = NULL;
    r->error[0] = '\0';
    SIM_CHECK(check_spec(r, spec, max_batch));
    SimModel *m = calloc(1, sizeof *m);
    if (!m || (m->impl = calloc(1, sizeof *m->impl)) == NULL) {
        free(m);
        snprintf(r->error, sizeof r->error, "model: out of memory");
        return SIM_ENOMEM;
    }
    const char *only = sim_model_spec_phantom_only(spec);
    if (only && !phantom && !r->world->cfg.phantom) {
        char text[512];
        free(m->impl);
        free(m);
        return sim_model_fail(r, "model %s: %s is supported in phantom mode (ddplab plan) "
                              "only", sim_model_spec_str(spec, text, sizeof text), only);
    }
    m->spec = *spec;
    m->max_batch = max_batch;
    m->training = 1;
    m->impl->phantom = phantom || r->world->cfg.phantom ? 1 : 0; // a phantom world: always
    if (spec->sync_bn && spec->batchnorm)
        m->impl->sync_ranks = r->world->cfg.nranks;
    SimStatus st = build(r, m, m->impl->phantom);
    if (st != SIM_OK) {
        if (!r->error[0])
            snprintf(r->error, sizeof r->error, "model: cannot allocate (%s)", sim_strerror(st));
        sim_model_destroy(r, m);
        return st;
    }
    *out = m;
    return SIM_OK;
}

void sim_model_destroy(SimRank *r, SimModel *m) {
    if (!m)
        return;
    SimModelImpl *im = m->impl;
    if (im) {
        if (im->act_held > 0)
            (void)sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_ACT, -im->act_held, "activations");
        if (m->spec.kind == SIM_MODEL_COUNT)
            ; // no state of its own
        else if (sim_model_is_arch(&m->spec))
            sim_model_arch_free(m);
        else if (m->spec.kind == SIM_MODEL_GPT)
            sim_model_gpt_free(m);
        else
            sim_model_mlp_free(m);
        sim_tensor_free(r, &im->acts);
        sim_tensor_free(r, &im->dacts);
        sim_tensor_free(r, &im->ints);
        free(im->pv);
        free(im->gv);
        free(im->bv);
        free(im->used);
        free(im->dropped);
        sim_tensor_free(r, &im->discard);
        free(im->host);
        free(im);
    }
    sim_tensor_free(r, &m->param);
    sim_tensor_free(r, &m->grad);
    sim_tensor_free(r, &m->buffer);
    free(m->params);
    free(m->buffers);
    free(m->modules);
    free(m);
}

SimStatus sim_model_act_charge(SimRank *r, SimModel *m, int64_t bytes, const char *what) {
    SimModelImpl *im = m->impl;
    if (bytes < -im->act_held) // never release more than is held
        bytes = -im->act_held;
    if (bytes == 0)
        return SIM_OK;
    SIM_CHECK(sim_mem_charge(r, SIM_MEM_DEVICE, SIM_MEM_ACT, bytes, what));
    im->act_held += bytes;
    return SIM_OK;
}

void sim_model_set_training(SimModel *m, int training) {
    m->training = training ? 1 : 0;
}

SimStatus sim_model_zero_grad(SimRank *r, SimModel *m) {
    return sim_op_fill(r, &m->grad, 0, 0, 0.0f);
}

void sim_model_ready(const SimModel *m, SimGradHook hook, void *arg, int i) {
    if (hook && m->impl->used[i])
        hook(arg, i);
}

SimStatus sim_model_forward(SimRank *r, SimModel *m, const SimBatch *b, int step, SimDtype amp,
                            float *loss) {
    SimModelImpl *im = m->impl;
    char spec[256];
    im->fwd_ok = 0;
    im->output = NULL;
    *loss = 0.0f;
    if (amp != SIM_FP32 && amp != SIM_FP16 && amp != SIM_BF16)
        return sim_model_fail(r, "model forward: amp must be fp32 (off), fp16 or bf16, not %s",
                              sim_dtype_name(amp));
    if (!b || b->n < 1 || b->n > m->max_batch)
        return sim_model_fail(r, "model %s: batch of %d samples (allowed: 1..%d, the size the "
                              "model was created for)", sim_model_spec_str(&m->spec, spec,
                              sizeof spec), b ? b->n : 0, m->max_batch);
    memset(im->used, 0, (size_t)m->nparams);
    memset(im->dropped, 0, (size_t)m->nparams);
    im->amp = amp;
    im->fwd_n = b->n;
    im->fwd_step = step;
    im->fwd_training = m->training;
    SimStatus st;
    if (m->spec.kind == SIM_MODEL_COUNT)
        st = sim_model_count_forward(r, m, b, loss);
    else if (im->formula_acts)
        st = sim_model_arch_forward(r, m, b, loss);
    else if (m->spec.kind == SIM_MODEL_GPT)
        st = sim_model_gpt_forward(r, m, b, loss);
    else
        st = sim_model_mlp_forward(r, m, b, step, loss);
    if (st == SIM_OK)
        im->fwd_ok = 1;
    return st;
}

void sim_model_mark_unused(SimModel *m, int i) {
    if (i < 0 || i >= m->nparams)
        return;
    m->impl->dropped[i] = m->impl->used[i] || m->impl->dropped[i];
    m->impl->used[i] = 0;
}

int sim_model_param_dropped(const SimModel *m, int i) {
    return i >= 0 && i < m->nparams && m->impl->dropped[i];
}

// The dropped parameters' gradient views point into `discard` (swap = 1)
// or back into the model's gradient buffer (swap = 0), so that the kinds'
// backward, which computes every gradient of the graph it built, leaves
// theirs untouched. `discard` holds the largest of them, zeroed once.
static SimStatus swap_dropped(SimRank *r, SimModel *m, int swap) {
    SimModelImpl *im = m->impl;
    size_t need = 0;
    for (int i = 0; i < m->nparams; i++)
        if (im->dropped[i] && m->params[i].numel > need)
            need = m->params[i].numel;
    if (need == 0 || m->grad.data == NULL)
        return SIM_OK;
    if (swap && (im->discard.data == NULL || sim_tensor_numel(&im->discard) < need)) {
        sim_tensor_free(r, &im->discard);
        // the modelled run computes no such gradient: a backing store
        SIM_CHECK(alloc_flat(r, &im->discard, "dropped parameters' gradients", SIM_FP32, need,
                             0, SIM_MEM_BACKING));
        SIM_CHECK(sim_op_fill(r, &im->discard, 0, 0, 0.0f));
    }
    for (int i = 0; i < m->nparams; i++)
        if (im->dropped[i])
            im->gv[i].data = swap ? im->discard.data
                                  : (void *)((float *)m->grad.data + m->params[i].offset);
    return SIM_OK;
}

static SimStatus backward_kind(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                               void *arg) {
    if (m->spec.kind == SIM_MODEL_COUNT)
        return sim_model_count_backward(r, m, hook, arg);
    if (m->impl->formula_acts)
        return sim_model_arch_backward(r, m, dloss_scale, hook, arg);
    if (m->spec.kind == SIM_MODEL_GPT)
        return sim_model_gpt_backward(r, m, dloss_scale, hook, arg);
    return sim_model_mlp_backward(r, m, dloss_scale, hook, arg);
}

SimStatus sim_model_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                             void *arg) {
    SimModelImpl *im = m->impl;
    if (!im->fwd_ok)
        return sim_model_fail(r, "model backward: no successful forward to go back through");
    if (im->dacts_used)
        SIM_CHECK(sim_op_fill(r, &im->dacts, 0, im->dacts_used, 0.0f));
    SIM_CHECK(swap_dropped(r, m, 1));
    SimStatus st = backward_kind(r, m, dloss_scale, hook, arg);
    SimStatus st2 = swap_dropped(r, m, 0);
    return st != SIM_OK ? st : st2;
}

const SimTensor *sim_model_output(const SimModel *m) {
    return m->impl->output;
}

int sim_model_param_used(const SimModel *m, int i) {
    return i >= 0 && i < m->nparams && m->impl->used[i];
}

int sim_model_find_param(const SimModel *m, const char *name) {
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return i;
    return -1;
}

int sim_model_find_buffer(const SimModel *m, const char *name) {
    for (int i = 0; i < m->nbuffers; i++)
        if (strcmp(m->buffers[i].name, name) == 0)
            return i;
    return -1;
}
