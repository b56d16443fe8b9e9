// sim/model/grad_scaler.c: the dynamic loss scaler of torch.cuda.amp.GradScaler
// (PyTorch 1.13) for one optimizer: unscale with the inf/NaN check, the
// skipped step, the growth/backoff update and its per-iteration stages; and
// the --amp options (see grad_scaler.h).
#include "model/grad_scaler.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail
#include "engine/ops.h"

void sim_amp_options_default(SimAmpOptions *o) {
    o->amp = SIM_FP32;
    o->init_scale = 65536.0;
    o->growth_factor = 2.0;
    o->backoff_factor = 0.5;
    o->growth_interval = 2000;
}

int sim_amp_parse(const char *s, SimDtype *out) {
    static const struct {
        const char *name;
        SimDtype dt;
    } names[] = {{"off", SIM_FP32}, {"fp16", SIM_FP16}, {"bf16", SIM_BF16}};
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].dt;
            return 0;
        }
    }
    return -1;
}

const char *sim_amp_name(SimDtype amp) {
    switch (amp) {
    case SIM_FP32: return "off";
    case SIM_FP16: return "fp16";
    case SIM_BF16: return "bf16";
    default: return NULL;
    }
}

int sim_amp_needs_scaler(const SimAmpOptions *o) { return o->amp == SIM_FP16; }

SimStatus sim_amp_options_validate(const SimAmpOptions *o, char *err, size_t errlen) {
    if (!sim_amp_name(o->amp))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--amp: '%s' is not allowed; allowed: off, fp16, bf16",
                               sim_dtype_name(o->amp) ? sim_dtype_name(o->amp) : "?");
    // Only finite fp32 values > 0 can be a scale.
    if (!(o->init_scale > 0 && o->init_scale <= FLT_MAX))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--init-scale: '%g' is not allowed; allowed: a number > 0 that "
                               "fits in fp32",
                               o->init_scale);
    if (!(o->growth_factor > 1 && isfinite(o->growth_factor)))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "growth factor %g: must be > 1",
                               o->growth_factor);
    if (!(o->backoff_factor > 0 && o->backoff_factor < 1))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "backoff factor %g: must be in (0, 1)",
                               o->backoff_factor);
    if (o->growth_interval < 1)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--growth-interval: '%d' is not allowed; allowed: a whole number "
                               ">= 1",
                               o->growth_interval);
    return SIM_OK;
}

void sim_scaler_init(SimGradScaler *s, const SimAmpOptions *o, int enabled) {
    memset(s, 0, sizeof *s);
    s->enabled = enabled;
    s->scale = (float)o->init_scale;
    s->growth_factor = o->growth_factor;
    s->backoff_factor = o->backoff_factor;
    s->growth_interval = o->growth_interval;
    s->stage = SIM_SCALER_READY;
}

float sim_scaler_get_scale(const SimGradScaler *s) { return s->enabled ? s->scale : 1.0f; }

// The misuses torch.cuda.amp.GradScaler (1.13) refuses, in its words.
static SimStatus stage_error(SimRank *r, const char *msg) {
    if (r)
        snprintf(r->error, sizeof r->error, "grad scaler: %s", msg);
    return SIM_EINVAL;
}

SimStatus sim_scaler_unscale(SimGradScaler *s, SimRank *r, SimTensor *grad,
                             const SimParamInfo *params, int nparams, const uint8_t *has_grad) {
    if (!s->enabled)
        return SIM_OK;
    if (s->stage == SIM_SCALER_UNSCALED)
        return stage_error(r, "unscale_() has already been called on this optimizer since the "
                                  "last update().");
    if (s->stage == SIM_SCALER_STEPPED)
        return stage_error(r, "unscale_() is being called after step().");
    // torch takes the reciprocal in fp64 and rounds it to fp32.
    float inv = (float)(1.0 / (double)s->scale);
    int found = 0, i = 0, first;
    size_t off, n;
    while (sim_optim_next_run(params, nparams, has_grad, &i, &first, &off, &n)) {
        int bad = 0;
        if (n == 0) // n = 0 would mean "to the end" to the ops
            continue;
        SIM_CHECK(sim_op_nonfinite(r, grad, off, n, &bad));
        found |= bad;
        SIM_CHECK(sim_op_scale(r, grad, off, n, inv));
    }
    s->found_inf = found;
    s->recorded = 1;
    s->stage = SIM_SCALER_UNSCALED;
    return SIM_OK;
}

SimStatus sim_scaler_step(SimGradScaler *s, SimRank *r, SimOptim *o, double lr,
                          const uint8_t *has_grad, int *stepped) {
    if (stepped)
        *stepped = 0;
    if (!s->enabled) {
        SIM_CHECK(sim_optim_step(o, r, lr, has_grad));
        if (stepped)
            *stepped = 1;
        return SIM_OK;
    }
    if (s->stage == SIM_SCALER_STEPPED)
        return stage_error(r, "step() has already been called since the last update().");
    if (s->stage == SIM_SCALER_READY)
        SIM_CHECK(sim_scaler_unscale(s, r, o->grad, o->params, o->nparams, has_grad));
    s->stage = SIM_SCALER_STEPPED;
    if (s->found_inf) {
        s->skipped++;
        return SIM_OK;
    }
    SIM_CHECK(sim_optim_step(o, r, lr, has_grad));
    if (stepped)
        *stepped = 1;
    return SIM_OK;
}

void sim_scaler_update_rule(float *scale, int *growth_tracker, int found_inf,
                            double growth_factor, double backoff_factor, int growth_interval) {
    // As torch's _amp_update_scale_ kernel: the products are formed in double
    // (fp32 scale times a double factor) and stored as fp32.
    if (found_inf) {
        *scale = (float)((double)*scale * backoff_factor);
        *growth_tracker = 0;
        return;
    }
    int successful = *growth_tracker + 1;
    if (successful == growth_interval) {
        float grown = (float)((double)*scale * growth_factor);
        if (isfinite(grown)) // never grow past fp32's range
            *scale = grown;
        *growth_tracker = 0;
    } else {
        *growth_tracker = successful;
    }
}

SimStatus sim_scaler_update(SimGradScaler *s, SimRank *r) {
    if (!s->enabled)
        return SIM_OK;
    if (!s->recorded)
        return stage_error(r, "No inf checks were recorded prior to update.");
    sim_scaler_update_rule(&s->scale, &s->growth_tracker, s->found_inf, s->growth_factor,
                           s->backoff_factor, s->growth_interval);
    s->found_inf = 0;
    s->recorded = 0;
    s->stage = SIM_SCALER_READY;
    return SIM_OK;
}
