// cli/learn/interview_model.c: a model's parameter table, gradient-ready order
// and FSDP units for the interview's questions, taken from the engine: the
// model is created in phantom mode (shapes, no storage) on a world of one
// rank, runs one forward and backward of one sample (math skipped) so the
// autograd hooks fire in the order DDP's rebuild would record, and FSDP's
// plan is built for the asked number of ranks with the default options.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backends.h" // defines: cli_backend_find
#include "engine/world.h"  // defines: SimWorld, sim_world_*
#include "learn/interview.h"
#include "model/model.h"   // defines: sim_model_*
#include "strategy/fsdp.h" // defines: sim_fsdp_plan_build, SimFsdpPlan

typedef struct {
    const SimModelSpec *spec;
    int fsdp_ranks;
    IvModel *out;
    char err[2048];
} LoadCtx;

static void on_ready(void *arg, int param) {
    IvModel *m = arg;
    if (m->ready && m->nready < m->nparams)
        m->ready[m->nready++] = param;
}

// The table, names and sizes of the model's parameters into out.
static int copy_table(const SimModel *model, IvModel *out) {
    int n = model->nparams;
    out->nparams = n;
    out->total = (int64_t)model->param_count;
    out->numel = calloc((size_t)n + 1, sizeof *out->numel);
    out->names = calloc((size_t)n + 1, sizeof *out->names);
    out->ready = calloc((size_t)n + 1, sizeof *out->ready);
    if (!out->numel || !out->names || !out->ready)
        return -1;
    for (int i = 0; i < n; i++) {
        out->numel[i] = model->params[i].numel;
        snprintf(out->names[i], sizeof out->names[i], "%s", model->params[i].name);
    }
    return 0;
}

// One sample through the model so that backward reports the ready order.
// Phantom mode reads no data, but the batch still states its shape: one
// sequence of one token (gpt), or one sample of zeros (mlp).
static SimStatus one_pass(SimRank *r, SimModel *model, IvModel *out) {
    const SimModelSpec *sp = &model->spec;
    int features = sp->kind == SIM_MODEL_MLP ? sp->widths[0] : 0;
    float *x = calloc((size_t)features + 1, sizeof *x);
    int32_t tok[1] = {0}, lab[1] = {0};
    SimStatus st = x ? SIM_OK : SIM_ENOMEM;
    SimBatch b = {.n = 1};
    if (sp->kind == SIM_MODEL_GPT) {
        b.seq = 1;
        b.tokens = tok;
        b.labels = lab;
    } else if (sp->kind == SIM_MODEL_MLP) {
        b.features = features;
        b.x = x;
        if (sp->mse) {
            b.targets = x;
            b.target_dim = sp->widths[sp->nwidths - 1];
        } else {
            b.labels = lab;
        }
    }
    float loss = 0;
    if (st == SIM_OK)
        st = sim_model_forward(r, model, &b, 0, SIM_FP32, &loss);
    if (st == SIM_OK)
        st = sim_model_backward(r, model, 1.0f, on_ready, out);
    free(x);
    return st;
}

static int copy_units(const SimModel *model, int nranks, IvModel *out, char *err, size_t len) {
    SimFsdpOptions o;
    SimFsdpPlan p;
    sim_fsdp_options_default(&o);
    if (sim_fsdp_plan_build(&p, model, &o, nranks, 1, err, len) != SIM_OK)
        return -1;
    out->unit_numel = calloc((size_t)p.nunits + 1, sizeof *out->unit_numel);
    if (!out->unit_numel) {
        sim_fsdp_plan_free(&p);
        snprintf(err, len, "out of memory");
        return -1;
    }
    out->nunits = p.nunits;
    for (int u = 0; u < p.nunits; u++) {
        out->unit_numel[u] = p.units[u].numel;
        out->padding += p.units[u].padded - p.units[u].numel;
    }
    sim_fsdp_plan_free(&p);
    return 0;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    LoadCtx *c = arg;
    SimModel *model = NULL;
    SimStatus st = sim_model_create(r, c->spec, 1, 1, &model);
    if (st != SIM_OK) {
        snprintf(c->err, sizeof c->err, "%s", r->error);
        return st;
    }
    if (copy_table(model, c->out) != 0) {
        snprintf(c->err, sizeof c->err, "out of memory");
        st = SIM_ENOMEM;
    }
    if (st == SIM_OK && model->spec.kind != SIM_MODEL_COUNT) {
        st = one_pass(r, model, c->out);
        if (st != SIM_OK)
            snprintf(c->err, sizeof c->err, "%s", r->error[0] ? r->error : "forward failed");
    }
    if (st == SIM_OK && c->fsdp_ranks > 0 &&
        copy_units(model, c->fsdp_ranks, c->out, c->err, sizeof c->err) != 0)
        st = SIM_EINVAL;
    sim_model_destroy(r, model);
    return st;
}

int iv_model_load(const char *spec, int fsdp_ranks, IvModel *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    SimModelSpec sp;
    if (sim_model_parse(spec, &sp, err, errlen) != SIM_OK)
        return -1;
    const SimBackendOps *ops = cli_backend_find("cpu");
    if (!ops) {
        snprintf(err, errlen, "the cpu backend is not built in");
        return -1;
    }
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = 1;
    wc.phantom = 1;
    wc.trace = 0;
    wc.watchdog_s = 60;
    LoadCtx c = {.spec = &sp, .fsdp_ranks = fsdp_ranks, .out = m};
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, ops);
    if (st == SIM_OK)
        st = sim_world_run(&w, rank_main, &c);
    if (st != SIM_OK)
        snprintf(err, errlen, "model %s: %s", spec, c.err[0] ? c.err : sim_world_error(&w));
    sim_world_free(&w);
    if (st != SIM_OK) {
        iv_model_free(m);
        return -1;
    }
    return 0;
}

void iv_model_free(IvModel *m) {
    if (!m)
        return;
    free(m->numel);
    free(m->names);
    free(m->ready);
    free(m->unit_numel);
    memset(m, 0, sizeof *m);
}
