// sim/model/model_loss.c: the losses at the end of every model, as PyTorch's
// F.cross_entropy (integer labels) and F.mse_loss, both with reduction
// "mean", and the host-side check of the ids a batch brings (labels, tokens),
// which would otherwise index out of bounds inside a kernel.
#include "model/model_impl.h"

#include <stdio.h>

SimStatus sim_model_check_ids(SimRank *r, const char *what, const int32_t *ids, size_t n,
                              int per, int limit, const SimBatch *b) {
    if (!ids)
        return SIM_OK;
    for (size_t k = 0; k < n; k++) {
        if (ids[k] >= 0 && ids[k] < limit)
            continue;
        size_t sample = k / (size_t)(per > 0 ? per : 1);
        char where[96] = "";
        if (b->indices)
            snprintf(where, sizeof where, " (dataset index %lld)", (long long)b->indices[sample]);
        if (per > 1)
            return sim_model_fail(r, "%s %d at batch sample %zu%s, position %zu is out of range "
                                  "0..%d", what, (int)ids[k], sample, where,
                                  k % (size_t)per, limit - 1);
        return sim_model_fail(r, "%s %d at batch sample %zu%s is out of range 0..%d", what,
                              (int)ids[k], sample, where, limit - 1);
    }
    return SIM_OK;
}

SimStatus sim_model_loss_forward(SimRank *r, SimModel *m, const SimTensor *pred, float *loss) {
    SimModelImpl *im = m->impl;
    SimModelLoss *L = &im->loss;
    *loss = 0.0f;
    if (m->spec.mse && m->spec.kind == SIM_MODEL_MLP) {
        // diff = targets - prediction, in place over the uploaded targets.
        double ss = 0.0;
        SIM_CHECK(sim_op_axpy(r, &L->diff, -1.0f, pred));
        SIM_CHECK(sim_op_sumsq(r, &L->diff, 0, 0, &ss));
        if (!im->phantom)
            *loss = (float)(ss / (double)L->count);
        return SIM_OK;
    }
    SIM_CHECK(sim_op_xent_forward(r, &L->losses, &L->probs, pred, &L->labels));
    if (im->phantom)
        return SIM_OK;
    SIM_CHECK(sim_tensor_download(r, &L->losses, im->host));
    double sum = 0.0;
    for (size_t k = 0; k < L->count; k++)
        sum += im->host[k];
    *loss = (float)(sum / (double)L->count);
    return SIM_OK;
}

SimStatus sim_model_loss_backward(SimRank *r, SimModel *m, SimTensor *dpred, float dloss_scale) {
    SimModelLoss *L = &m->impl->loss;
    float per = dloss_scale / (float)L->count;
    if (m->spec.mse && m->spec.kind == SIM_MODEL_MLP) {
        // d/dp mean((p - t)^2) = 2 (p - t) / count = -2 diff / count.
        return sim_op_axpy(r, dpred, -2.0f * per, &L->diff);
    }
    SIM_CHECK(sim_op_fill(r, &L->dlosses, 0, 0, per));
    return sim_op_xent_backward(r, dpred, &L->probs, &L->labels, &L->dlosses);
}
