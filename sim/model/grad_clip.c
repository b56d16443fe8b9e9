// sim/model/grad_clip.c: clipping gradients by their global 2-norm, as
// torch.nn.utils.clip_grad_norm_(params, max_norm) does in PyTorch 1.13
// (norm_type 2, error_if_nonfinite=False).
//
// torch computes the norm in fp32 and then, in fp32 tensor arithmetic,
// coef = max_norm / (norm + 1e-6), which Python evaluates as
// reciprocal(norm + 1e-6) * max_norm, clamps it to at most 1 and multiplies
// every gradient by it, also when the coefficient is 1 or not finite. The
// sum of squares here is accumulated in double, which is at least as exact
// as torch's per-parameter norms combined in fp32.
#include "model/optim.h"

#include <math.h>

#include "engine/ops.h"

SimStatus sim_clip_sumsq(SimRank *r, const SimTensor *grad, const SimParamInfo *params,
                         int nparams, const uint8_t *has_grad, double *sumsq) {
    double total = 0;
    int i = 0, first;
    size_t off, n;
    while (sim_optim_next_run(params, nparams, has_grad, &i, &first, &off, &n)) {
        double part = 0;
        if (n == 0) // n = 0 would mean "to the end" to the op
            continue;
        SIM_CHECK(sim_op_sumsq(r, grad, off, n, &part));
        total += part;
    }
    *sumsq = total;
    return SIM_OK;
}

float sim_clip_coef(float total_norm, double max_norm) {
    float denom = total_norm + 1e-6f; // rounded to fp32, as torch's tensor add
    float coef = (1.0f / denom) * (float)max_norm;
    return coef > 1.0f ? 1.0f : coef; // NaN stays NaN, as torch.clamp(max=1)
}

SimStatus sim_clip_scale(SimRank *r, SimTensor *grad, const SimParamInfo *params, int nparams,
                         const uint8_t *has_grad, float coef) {
    int i = 0, first;
    size_t off, n;
    while (sim_optim_next_run(params, nparams, has_grad, &i, &first, &off, &n)) {
        if (n > 0)
            SIM_CHECK(sim_op_scale(r, grad, off, n, coef));
    }
    return SIM_OK;
}

SimStatus sim_clip_grad_norm(SimRank *r, SimTensor *grad, const SimParamInfo *params,
                             int nparams, const uint8_t *has_grad, double max_norm,
                             float *total_norm) {
    double sumsq = 0;
    SIM_CHECK(sim_clip_sumsq(r, grad, params, nparams, has_grad, &sumsq));
    float norm = (float)sqrt(sumsq);
    *total_norm = norm;
    return sim_clip_scale(r, grad, params, nparams, has_grad, sim_clip_coef(norm, max_norm));
}
