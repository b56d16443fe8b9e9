// tests/test_model_util.h: what the model tests share: deterministic
// batches for any model, downloads, a grad-ready recorder, the expected
// tables of a 2-layer MiniGPT, and running a test body on one CPU rank.
#ifndef DDPLAB_TESTS_MODEL_UTIL_H
#define DDPLAB_TESTS_MODEL_UTIL_H

#include <stdint.h>

#include "model/model.h"

// A batch of n samples fitting m (GPT: seq tokens, 0 = ctx), from `seed`:
// features U(-1, 1), labels and tokens uniform, targets U(-1, 1).
typedef struct {
    SimBatch batch;
    float *x, *targets;
    int32_t *tokens, *labels;
    int64_t *indices;
} TModelData;
int tmodel_data(TModelData *d, const SimModel *m, int n, int seq, uint64_t seed);
void tmodel_data_free(TModelData *d);

// A malloc'ed host copy of a tensor (NULL on failure).
float *tmodel_download(SimRank *r, const SimTensor *t);

// A SimGradHook that records parameter indices.
typedef struct {
    int n;
    int idx[4096];
} TModelOrder;
void tmodel_record(void *arg, int param_index);

// "gpt:layers=2,..." tables: the 25 names in parameter order, and in the
// order PyTorch's autograd completes their gradients.
const char *const *tmodel_gpt2_names(void);
const char *const *tmodel_gpt2_order(void);

// Runs fn on rank 0 of a fresh 1-rank CPU world; returns fn's result (or 1
// if the world could not run it).
typedef struct {
    const char *name;
    int (*fn)(SimRank *r);
} TModelRun;
int tmodel_run(const TModelRun *run);

#endif
