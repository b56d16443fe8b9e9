// sim/base/batch.h: one mini-batch as the data loader hands it to a model, in host
// memory. The model copies what it needs to the backend.
#ifndef DDPLAB_SIM_BATCH_H
#define DDPLAB_SIM_BATCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int n;                   // samples in this batch (the last one may be short)
    int features;            // D: floats per sample in x (feature data), 0 for tokens
    int seq;                 // T: tokens per sample (token data), 0 for features
    const float *x;          // [n, D] features, or NULL
    const int32_t *tokens;   // [n, T] input token ids, or NULL
    const int32_t *labels;   // [n] class labels, or [n, T] next-token targets, or NULL
    const float *targets;    // [n, K] regression targets, or NULL
    int target_dim;          // K
    const int64_t *indices;  // [n] dataset indices of the samples (for checks and views)
} SimBatch;

#endif
