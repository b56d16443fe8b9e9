// sim/data/dataset.c: what every dataset shares: release, a one-line
// description, token encoding and decoding, and the loader that assembles
// a batch from a list of sample indices.
//
// The loader copies each sample into contiguous buffers instead of pointing
// into the dataset, because the samples of a batch are scattered (shuffled
// indices) while a model wants [n, D] rows it can hand to one matmul.
#include "data/dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_dataset_free(SimDataset *ds) {
    if (ds == NULL)
        return;
    free(ds->x);
    free(ds->labels);
    free(ds->targets);
    free(ds->tokens);
    memset(ds, 0, sizeof *ds);
}

const char *sim_dataset_describe(const SimDataset *ds, char *buf, size_t len) {
    switch (ds->kind) {
    case SIM_DATA_CLASSES:
        snprintf(buf, len, "%s: %lld samples x %d features, %d classes", ds->name,
                 (long long)ds->n, ds->features, ds->classes);
        break;
    case SIM_DATA_TARGETS:
        snprintf(buf, len, "%s: %lld samples x %d features, %d regression targets", ds->name,
                 (long long)ds->n, ds->features, ds->target_dim);
        break;
    case SIM_DATA_TOKENS:
        snprintf(buf, len, "%s: %lld tokens, vocabulary %d, %lld windows of %d tokens",
                 ds->name, (long long)ds->ntokens, ds->vocab, (long long)ds->n, ds->ctx);
        break;
    default:
        snprintf(buf, len, "%s: unknown dataset kind", ds->name);
    }
    return buf;
}

size_t sim_dataset_decode(const SimDataset *ds, const int32_t *ids, size_t n, char *out,
                          size_t cap) {
    if (cap == 0)
        return 0;
    size_t k = 0;
    for (; k < n && k + 1 < cap; k++)
        out[k] = ids[k] >= 0 && ids[k] < ds->vocab && ids[k] < 256
                     ? (char)ds->vocab_bytes[ids[k]] // ids past 256 are no bytes ("tokens")
                     : '?';
    out[k] = '\0';
    return k;
}

int sim_dataset_encode(const SimDataset *ds, const char *text, size_t len, int32_t *ids,
                       size_t *bad) {
    int32_t id_of[256];
    for (int b = 0; b < 256; b++)
        id_of[b] = -1;
    for (int v = 0; v < ds->vocab && v < 256; v++)
        id_of[ds->vocab_bytes[v]] = v;
    for (size_t k = 0; k < len; k++) {
        ids[k] = id_of[(unsigned char)text[k]];
        if (ids[k] < 0) {
            if (bad != NULL)
                *bad = k;
            return -1;
        }
    }
    return 0;
}

// ----------------------------------------------------------------------------
// the loader

// malloc of count elements of size sz, with overflow checked; count may be 0.
static void *alloc_n(size_t count, size_t sz) {
    if (count != 0 && sz > SIZE_MAX / count)
        return NULL;
    return malloc(count * sz > 0 ? count * sz : 1);
}

SimStatus sim_loader_init(SimLoader *ld, const SimDataset *ds, int max_batch) {
    if (ld == NULL)
        return SIM_EINVAL;
    memset(ld, 0, sizeof *ld);
    if (ds == NULL || max_batch < 1)
        return SIM_EINVAL;
    ld->ds = ds;
    ld->max_batch = max_batch;
    size_t b = (size_t)max_batch;
    int ok = (ld->indices = alloc_n(b, sizeof(int64_t))) != NULL;
    if (ds->kind == SIM_DATA_TOKENS) {
        size_t bt = (size_t)ds->ctx <= SIZE_MAX / b ? b * (size_t)ds->ctx : SIZE_MAX;
        ok = ok && (ld->tokens = alloc_n(bt, sizeof(int32_t))) != NULL;
        ok = ok && (ld->labels = alloc_n(bt, sizeof(int32_t))) != NULL;
    } else {
        size_t bd = (size_t)ds->features <= SIZE_MAX / b ? b * (size_t)ds->features : SIZE_MAX;
        ok = ok && (ld->x = alloc_n(bd, sizeof(float))) != NULL;
        if (ds->kind == SIM_DATA_CLASSES) {
            ok = ok && (ld->labels = alloc_n(b, sizeof(int32_t))) != NULL;
        } else {
            size_t bk =
                (size_t)ds->target_dim <= SIZE_MAX / b ? b * (size_t)ds->target_dim : SIZE_MAX;
            ok = ok && (ld->targets = alloc_n(bk, sizeof(float))) != NULL;
        }
    }
    if (!ok) {
        sim_loader_free(ld);
        return SIM_ENOMEM;
    }
    return SIM_OK;
}

SimStatus sim_loader_fill(SimLoader *ld, const int64_t *idx, int n, SimBatch *out) {
    const SimDataset *ds = ld->ds;
    if (ds == NULL || idx == NULL || out == NULL || n < 1 || n > ld->max_batch)
        return SIM_EINVAL;
    for (int k = 0; k < n; k++)
        if (idx[k] < 0 || idx[k] >= ds->n)
            return SIM_EINVAL;
    memset(out, 0, sizeof *out);
    out->n = n;
    out->indices = ld->indices;
    memcpy(ld->indices, idx, (size_t)n * sizeof(int64_t));
    if (ds->kind == SIM_DATA_TOKENS) {
        size_t t = (size_t)ds->ctx;
        for (int k = 0; k < n; k++) {
            const int32_t *w = ds->tokens + idx[k]; // window start; w[0..T] is in range
            memcpy(ld->tokens + (size_t)k * t, w, t * sizeof(int32_t));
            memcpy(ld->labels + (size_t)k * t, w + 1, t * sizeof(int32_t));
        }
        out->seq = ds->ctx;
        out->tokens = ld->tokens;
        out->labels = ld->labels;
        return SIM_OK;
    }
    size_t d = (size_t)ds->features;
    for (int k = 0; k < n; k++)
        memcpy(ld->x + (size_t)k * d, ds->x + (size_t)idx[k] * d, d * sizeof(float));
    out->features = ds->features;
    out->x = ld->x;
    if (ds->kind == SIM_DATA_CLASSES) {
        for (int k = 0; k < n; k++)
            ld->labels[k] = ds->labels[idx[k]];
        out->labels = ld->labels;
    } else {
        size_t kd = (size_t)ds->target_dim;
        for (int k = 0; k < n; k++)
            memcpy(ld->targets + (size_t)k * kd, ds->targets + (size_t)idx[k] * kd,
                   kd * sizeof(float));
        out->targets = ld->targets;
        out->target_dim = ds->target_dim;
    }
    return SIM_OK;
}

void sim_loader_free(SimLoader *ld) {
    if (ld == NULL)
        return;
    free(ld->x);
    free(ld->targets);
    free(ld->tokens);
    free(ld->labels);
    free(ld->indices);
    memset(ld, 0, sizeof *ld);
}
