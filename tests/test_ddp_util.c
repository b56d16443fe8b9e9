// tests/test_ddp_util.c: see test_ddp_util.h.
#include "test_ddp_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops.h"
#include "model/optim_flags.h"
#include "test_world.h"

SimStatus tddp_data_mlp(SimDataset *ds, int n, const char *model, SimModelSpec *spec) {
    char text[96], err[512];
    SimSynthSpec sp;
    snprintf(text, sizeof text, "blobs:n=%d,features=16,classes=4", n);
    SIM_CHECK(sim_dataset_synth_parse(text, &sp, err, sizeof err));
    SIM_CHECK(sim_dataset_synth(ds, &sp, err, sizeof err));
    return sim_model_parse(model, spec, err, sizeof err);
}

SimStatus tddp_data_gpt(SimDataset *ds, SimModelSpec *spec) {
    char text[128], err[512];
    SimSynthSpec sp;
    SIM_CHECK(sim_dataset_synth_parse("arith:lines=400,digits=2,ctx=8", &sp, err, sizeof err));
    SIM_CHECK(sim_dataset_synth(ds, &sp, err, sizeof err));
    snprintf(text, sizeof text, "gpt:layers=1,embd=16,heads=2,ctx=8,vocab=%d", ds->vocab);
    return sim_model_parse(text, spec, err, sizeof err);
}

void tddp_config(TddpRun *t, const SimDataset *ds, const SimModelSpec *spec, int R, int batch,
                 int64_t steps) {
    memset(t, 0, sizeof *t);
    sim_train_config_default(&t->cfg);
    t->cfg.model = *spec;
    t->cfg.data.set = ds;
    t->cfg.data.batch = batch;
    t->cfg.loop.steps = steps;
    t->cfg.data.shuffle = 0;
    char err[256];
    (void)sim_optim_flags_set(&t->cfg.opt, "lr", "0.1", err, sizeof err);
    (void)sim_optim_flags_validate(&t->cfg.opt, err, sizeof err);
    sim_ddp_options_default(&t->ddp);
    t->R = R;
}

typedef struct {
    TddpRun *t;
    SimTrainer tr[TDDP_MAX_RANKS];
} Ctx;

static SimStatus rank_main(SimRank *r, void *arg) {
    Ctx *c = arg;
    TddpRun *t = c->t;
    SimTrainer *tr = &c->tr[r->rank];
    SimStatus st = sim_train_run(r, c->tr);
    if (st == SIM_OK && t->after)
        st = t->after(t->after_arg, r, tr);
    if (tr->model) {
        SimModel *m = tr->model;
        if (r->rank == 0) {
            t->nparam = m->param_count;
            t->nbuffer = m->buffer_count;
        }
        t->params[r->rank] = malloc(m->param_count * sizeof(float) + 1);
        t->buffers[r->rank] = malloc(m->buffer_count * sizeof(float) + 1);
        if (t->params[r->rank] && m->param.data)
            (void)sim_tensor_download(r, &m->param, t->params[r->rank]);
        if (t->buffers[r->rank] && m->buffer.data && m->buffer_count)
            (void)sim_tensor_download(r, &m->buffer, t->buffers[r->rank]);
    }
    t->mem_peak[r->rank] = r->mem_peak;
    sim_train_free(tr, r);
    return st;
}

int tddp_set_optim(TddpRun *t, const char *optim, int clip_amp) {
    char err[256];
    SimOptimFlags *f = &t->cfg.opt;
    sim_optim_flags_default(f);
    int sgd = strcmp(optim, "sgd") == 0;
    SimStatus st = sim_optim_flags_set(f, "optimizer", optim, err, sizeof err);
    if (st == SIM_OK)
        st = sim_optim_flags_set(f, "lr", sgd ? "0.1" : "0.01", err, sizeof err);
    if (st == SIM_OK && sgd)
        st = sim_optim_flags_set(f, "momentum", "0.9", err, sizeof err);
    if (st == SIM_OK && clip_amp)
        st = sim_optim_flags_set(f, "clip-grad-norm", "0.5", err, sizeof err);
    if (st == SIM_OK && clip_amp)
        st = sim_optim_flags_set(f, "amp", "fp16", err, sizeof err);
    if (st == SIM_OK)
        st = sim_optim_flags_validate(f, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "optimizer flags: %s\n", err);
    return st != SIM_OK;
}

SimStatus tddp_run(TddpRun *t) {
    Ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return SIM_ENOMEM;
    c->t = t;
    if (t->use_ddp) {
        t->cfg.strategy = &sim_ddp_strategy;
        t->cfg.strategy_cfg = &t->ddp;
    }
    for (int i = 0; i < t->R; i++)
        c->tr[i].cfg = &t->cfg;
    SimWorld w;
    double w0 = sim_wall_now();
    t->st = tworld_init_cpu_nodes(&w, t->R, t->nodes, t->trace, 5.0);
    if (t->st == SIM_OK)
        t->st = sim_world_run(&w, rank_main, c);
    t->wall_s = sim_wall_now() - w0;
    if (t->st != SIM_OK) {
        for (int i = 0; i < t->R && !t->error[0]; i++)
            if (c->tr[i].error[0])
                snprintf(t->error, sizeof t->error, "%s", c->tr[i].error);
        if (!t->error[0])
            snprintf(t->error, sizeof t->error, "%s", sim_world_error(&w));
    }
    if (t->trace && w.trace) {
        size_t n = sim_trace_rank_count(w.trace, 0);
        t->events = malloc((n + 1) * sizeof *t->events);
        if (t->events) {
            memcpy(t->events, sim_trace_rank_events(w.trace, 0), n * sizeof *t->events);
            t->nevents = n;
        }
    }
    sim_world_free(&w);
    free(c);
    return t->st;
}

void tddp_free(TddpRun *t) {
    for (int i = 0; i < TDDP_MAX_RANKS; i++) {
        free(t->params[i]);
        free(t->buffers[i]);
        t->params[i] = t->buffers[i] = NULL;
    }
    free(t->events);
    t->events = NULL;
}

double tddp_maxdiff(const float *a, const float *b, size_t n) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]) / (1.0 + fabs((double)b[i]));
        if (isnan(d))
            return INFINITY;
        if (d > worst)
            worst = d;
    }
    return worst;
}
