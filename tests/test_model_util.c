// tests/test_model_util.c: see test_model_util.h.
#include "test_model_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops.h"
#include "test_world.h"

static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static float unit(uint64_t *s) { // U(-1, 1)
    return (float)((double)(next(s) >> 11) * 0x1.0p-52 - 1.0);
}

int tmodel_data(TModelData *d, const SimModel *m, int n, int seq, uint64_t seed) {
    memset(d, 0, sizeof *d);
    const SimModelSpec *s = &m->spec;
    SimBatch *b = &d->batch;
    b->n = n;
    d->indices = malloc((size_t)n * sizeof *d->indices);
    if (!d->indices)
        return -1;
    for (int i = 0; i < n; i++)
        d->indices[i] = 100 + i;
    b->indices = d->indices;
    if (s->kind == SIM_MODEL_GPT) {
        int T = seq ? seq : s->ctx;
        size_t nt = (size_t)n * (size_t)T;
        d->tokens = malloc(nt * sizeof *d->tokens);
        d->labels = malloc(nt * sizeof *d->labels);
        if (!d->tokens || !d->labels)
            return -1;
        for (size_t k = 0; k < nt; k++) {
            d->tokens[k] = (int32_t)(next(&seed) % (uint64_t)s->vocab);
            d->labels[k] = (int32_t)(next(&seed) % (uint64_t)s->vocab);
        }
        b->seq = T;
        b->tokens = d->tokens;
        b->labels = d->labels;
        return 0;
    }
    int D = s->widths[0], K = s->widths[s->nwidths - 1];
    d->x = malloc((size_t)n * (size_t)D * sizeof *d->x);
    d->targets = malloc((size_t)n * (size_t)K * sizeof *d->targets);
    d->labels = malloc((size_t)n * sizeof *d->labels);
    if (!d->x || !d->targets || !d->labels)
        return -1;
    for (size_t k = 0; k < (size_t)n * (size_t)D; k++)
        d->x[k] = unit(&seed);
    for (size_t k = 0; k < (size_t)n * (size_t)K; k++)
        d->targets[k] = unit(&seed);
    for (int i = 0; i < n; i++)
        d->labels[i] = (int32_t)(next(&seed) % (uint64_t)K);
    b->features = D;
    b->x = d->x;
    if (s->mse) {
        b->targets = d->targets;
        b->target_dim = K;
    } else {
        b->labels = d->labels;
    }
    return 0;
}

void tmodel_data_free(TModelData *d) {
    free(d->x);
    free(d->targets);
    free(d->tokens);
    free(d->labels);
    free(d->indices);
    memset(d, 0, sizeof *d);
}

float *tmodel_download(SimRank *r, const SimTensor *t) {
    float *h = malloc(sim_tensor_numel(t) * sizeof *h + 1);
    if (h && sim_tensor_download(r, t, h) != SIM_OK) {
        free(h);
        return NULL;
    }
    return h;
}

void tmodel_record(void *arg, int param_index) {
    TModelOrder *o = arg;
    if (o->n < 4096)
        o->idx[o->n++] = param_index;
}

static const char *const gpt2_names[25] = {
    "tok_emb.weight", "pos_emb.weight",
    "blocks.0.ln1.weight", "blocks.0.ln1.bias", "blocks.0.attn.qkv.weight",
    "blocks.0.attn.proj.weight", "blocks.0.ln2.weight", "blocks.0.ln2.bias",
    "blocks.0.mlp.0.weight", "blocks.0.mlp.0.bias", "blocks.0.mlp.2.weight",
    "blocks.0.mlp.2.bias",
    "blocks.1.ln1.weight", "blocks.1.ln1.bias", "blocks.1.attn.qkv.weight",
    "blocks.1.attn.proj.weight", "blocks.1.ln2.weight", "blocks.1.ln2.bias",
    "blocks.1.mlp.0.weight", "blocks.1.mlp.0.bias", "blocks.1.mlp.2.weight",
    "blocks.1.mlp.2.bias",
    "ln_f.weight", "ln_f.bias", "head.weight",
};

static const char *const gpt2_order[25] = {
    "head.weight", "ln_f.weight", "ln_f.bias",
    "blocks.1.mlp.2.bias", "blocks.1.mlp.2.weight", "blocks.1.mlp.0.bias",
    "blocks.1.mlp.0.weight", "blocks.1.ln2.weight", "blocks.1.ln2.bias",
    "blocks.1.attn.proj.weight", "blocks.1.attn.qkv.weight", "blocks.1.ln1.weight",
    "blocks.1.ln1.bias",
    "blocks.0.mlp.2.bias", "blocks.0.mlp.2.weight", "blocks.0.mlp.0.bias",
    "blocks.0.mlp.0.weight", "blocks.0.ln2.weight", "blocks.0.ln2.bias",
    "blocks.0.attn.proj.weight", "blocks.0.attn.qkv.weight", "blocks.0.ln1.weight",
    "blocks.0.ln1.bias",
    "pos_emb.weight", "tok_emb.weight",
};

const char *const *tmodel_gpt2_names(void) {
    return gpt2_names;
}

const char *const *tmodel_gpt2_order(void) {
    return gpt2_order;
}

typedef struct {
    const TModelRun *run;
    int rc;
} RunArg;

static SimStatus on_rank(SimRank *r, void *arg) {
    RunArg *a = arg;
    a->rc = a->run->fn(r);
    return SIM_OK;
}

int tmodel_run(const TModelRun *run) {
    RunArg a = {run, 1};
    if (tworld_run_cpu(1, 1, on_rank, &a) != SIM_OK)
        return 1;
    return a.rc;
}
