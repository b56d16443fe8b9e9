// sim/train/train_eval.c: distributed evaluation, as a DDP script's evaluate()
// does it: each rank runs its share of the samples through the model in
// eval mode (no gradients, no DDP hooks), keeps sums of loss x count,
// correct predictions and the count, and all_reduces them (SUM); accuracy
// and mean loss are the ratios of the global sums, so every sample weighs
// the same whatever the shards' sizes.
//
// The shards are strided without padding (rank r: samples r, r + R, ...), so
// every sample is counted exactly once. (DistributedSampler pads instead:
// with n not divisible by R it repeats the first R*ceil(n/R) - n samples,
// and even the right sums then count those twice.)
//
// The wrong variants kept for lessons (SimEvalVariant):
//   mean-of-means  each rank's mean loss and accuracy, averaged over the
//                  ranks without weights: a rank with one sample fewer
//                  weighs as much as the others, so the result is not the
//                  accuracy over the data whenever shard sizes differ
//   rank0-only     only rank 0 evaluates (all the samples) and enters the
//                  all_reduce; the other ranks go on to their next collective
//                  and rank 0 waits in one they never enter: the watchdog's
//                  diagnosis
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h" // defines: sim_all_reduce
#include "engine/ops.h"  // defines: sim_tensor_alloc, sim_tensor_download

#include "train/train_internal.h"

// Items the batch's loss averages over: samples, tokens (gpt) or values (mse).
static int64_t batch_items(const SimBatch *b) {
    if (b->targets)
        return (int64_t)b->n * b->target_dim;
    return b->seq > 0 ? (int64_t)b->n * b->seq : b->n;
}

// Correct argmax predictions of the last forward (classification only).
static SimStatus count_correct(SimRank *r, const SimModel *m, const SimBatch *b,
                               int64_t items, int64_t *correct) {
    const SimTensor *out = sim_model_output(m);
    if (b->labels == NULL || out == NULL || out->data == NULL || items < 1)
        return SIM_OK; // nothing to count (phantom: no logits; correct stays 0)
    size_t numel = sim_tensor_numel(out);
    int64_t classes = (int64_t)(numel / (size_t)items);
    float *logits = malloc(numel * sizeof *logits + 1);
    if (logits == NULL)
        return SIM_ENOMEM;
    SimStatus st = sim_tensor_download(r, out, logits);
    for (int64_t i = 0; st == SIM_OK && i < items; i++) {
        const float *row = logits + i * classes;
        int64_t best = 0;
        for (int64_t k = 1; k < classes; k++)
            if (row[k] > row[best])
                best = k; // the first of equal maxima, as torch.argmax
        *correct += best == b->labels[i];
    }
    free(logits);
    return st;
}

// Forward over the listed samples in batches; sums in double.
static SimStatus eval_samples(SimTrainer *t, SimRank *r, const int64_t *idx, int64_t n,
                              double *loss_sum, int64_t *correct, int64_t *total) {
    const SimTrainConfig *c = t->cfg;
    for (int64_t at = 0; at < n; at += c->data.batch) {
        int nb = (int)(n - at < c->data.batch ? n - at : c->data.batch);
        SimBatch b;
        float loss = 0;
        if (sim_loader_fill(&t->loader, idx + at, nb, &b) != SIM_OK)
            return sim_train_fail(t, 0, SIM_EINVAL, "evaluation: cannot fill a batch");
        SimStatus st = sim_model_forward(r, t->model, &b, (int)t->step, c->opt.amp.amp, &loss);
        if (st != SIM_OK)
            return sim_train_fail(t, 0, st, "evaluation forward: %s", r->error);
        int64_t items = batch_items(&b);
        *loss_sum += (double)loss * (double)items;
        *total += items;
        if (count_correct(r, t->model, &b, items, correct) != SIM_OK)
            return sim_train_fail(t, 0, SIM_ENOMEM, "evaluation: out of memory");
    }
    return SIM_OK;
}

static SimStatus reduce(SimTrainer *t, SimRank *r, float *v, size_t n) {
    SimTensor x;
    int64_t shape[1] = {(int64_t)n};
    sim_tensor_init(&x, "eval_metrics", SIM_FP32, 1, shape);
    SimStatus st = sim_tensor_alloc(r, &x, 0);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &x, v);
    if (st == SIM_OK)
        st = sim_all_reduce(r, x.data, x.data, n, SIM_FP32, SIM_SUM, SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_tensor_download(r, &x, v);
    sim_tensor_free(r, &x);
    if (st != SIM_OK)
        return sim_train_fail(t, 0, st, "evaluation all_reduce: %s", r->error);
    return SIM_OK;
}

SimStatus sim_train_evaluate(SimTrainer *t, SimRank *r, SimEvalStats *out) {
    const SimTrainConfig *c = t->cfg;
    int R = r->world->cfg.nranks;
    int64_t n = c->data.set->n;
    int rank0_only = c->eval.variant == SIM_EVAL_RANK0_ONLY;
    memset(out, 0, sizeof *out);
    out->step = t->step;
    out->loss = out->accuracy = out->local_loss = out->local_accuracy = NAN;
    if (rank0_only && r->rank != 0)
        return SIM_OK; // goes straight on to the next collective
    // this rank's shard: strided, unpadded (rank0-only: every sample)
    int stride = rank0_only ? 1 : R, first = rank0_only ? 0 : r->rank;
    int64_t count = n > first ? (n - first + stride - 1) / stride : 0;
    int64_t *idx = malloc(((size_t)count + 1) * sizeof *idx);
    if (idx == NULL)
        return sim_train_fail(t, 0, SIM_ENOMEM, "evaluation: out of memory");
    for (int64_t i = 0; i < count; i++)
        idx[i] = first + i * stride;
    double loss_sum = 0;
    train_mark(t, r, "phase", "eval", 0);
    sim_model_set_training(t->model, 0);
    SimStatus st = eval_samples(t, r, idx, count, &loss_sum, &out->local_correct,
                                &out->local_total);
    sim_model_set_training(t->model, 1);
    free(idx);
    SIM_CHECK(st);
    int classify = c->model.kind != SIM_MODEL_MLP || !c->model.mse;
    int64_t lt = out->local_total;
    out->local_loss = lt > 0 ? loss_sum / (double)lt : NAN;
    out->local_accuracy = classify && lt > 0 ? (double)out->local_correct / (double)lt : NAN;
    out->evaluated = 1;
    // [loss x count, correct, total, own mean loss, own accuracy]: the sums
    // for the right variant, the means for mean-of-means
    float v[5] = {(float)loss_sum, (float)out->local_correct, (float)lt,
                  (float)out->local_loss, classify ? (float)out->local_accuracy : 0.0f};
    SIM_CHECK(reduce(t, r, v, 5));
    if (c->eval.variant == SIM_EVAL_MEAN_OF_MEANS) {
        out->loss = v[3] / (double)R;
        out->accuracy = classify ? v[4] / (double)R : NAN;
        out->correct = out->local_correct;
        out->total = out->local_total;
        return SIM_OK;
    }
    out->correct = (int64_t)llround(v[1]);
    out->total = (int64_t)llround(v[2]);
    out->loss = out->total > 0 ? v[0] / (double)out->total : NAN;
    out->accuracy = classify && out->total > 0 ? (double)out->correct / (double)out->total : NAN;
    return SIM_OK;
}
