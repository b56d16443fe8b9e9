// backend_cpu/cpu_math_loss.c: softmax cross-entropy with integer targets,
// per row (the mean over the batch is the caller's dloss = 1/N).
//
// The softmax is the numerically stable one: subtract the row maximum before
// exponentiating. The loss is taken as log-sum-exp minus the target's logit,
// not as -log(prob), so that a confident correct prediction (prob close to
// 1) still has an accurate small loss.
#include <math.h>

#include "cpu_math.h"

SimStatus cpu_math_xent_forward(void *ctx, int rank, float *losses, float *probs,
                                const float *logits, const int32_t *targets, int N, int V) {
    // losses (N); probs (N,V); logits (N,V); targets (N) in [0, V)
    (void)ctx;
    (void)rank;
    if (N < 0 || V <= 0)
        return N == 0 ? SIM_OK : SIM_EINVAL;
    for (int i = 0; i < N; i++) {
        const float *x = logits + (size_t)i * V;
        int32_t tgt = targets[i];
        if (tgt < 0 || tgt >= V)
            return SIM_EINVAL;
        float maxval = -INFINITY;
        for (int v = 0; v < V; v++)
            if (x[v] > maxval)
                maxval = x[v];
        // One fp32 exponential per logit, summed in double; the
        // probabilities reuse them (stored in probs when it is given).
        double sum = 0.0;
        float *p = probs ? probs + (size_t)i * V : NULL;
        for (int v = 0; v < V; v++) {
            float e = expf(x[v] - maxval);
            sum += e;
            if (p)
                p[v] = e;
        }
        if (p) {
            float inv = (float)(1.0 / sum);
            for (int v = 0; v < V; v++)
                p[v] *= inv;
        }
        losses[i] = (float)(log(sum) - ((double)x[tgt] - maxval));
    }
    return SIM_OK;
}

SimStatus cpu_math_xent_backward(void *ctx, int rank, float *dlogits, const float *probs,
                                 const int32_t *targets, const float *dlosses, int N, int V) {
    // dlogits (N,V) += dlosses[n] * (probs - onehot(target))
    (void)ctx;
    (void)rank;
    if (N < 0 || V <= 0)
        return N == 0 ? SIM_OK : SIM_EINVAL;
    for (int i = 0; i < N; i++) {
        int32_t tgt = targets[i];
        if (tgt < 0 || tgt >= V)
            return SIM_EINVAL;
        const float *p = probs + (size_t)i * V;
        float *d = dlogits + (size_t)i * V;
        float dl = dlosses[i];
        for (int v = 0; v < V; v++)
            d[v] += (p[v] - (v == tgt ? 1.0f : 0.0f)) * dl;
    }
    return SIM_OK;
}
