// sim/model/grad_scaler.h: mixed-precision options (--amp off|fp16|bf16) and a
// dynamic loss scaler with the semantics and defaults of
// torch.cuda.amp.GradScaler (PyTorch 1.13).
//
// Why a scaler: with --amp fp16 the matrix products read their inputs rounded
// to fp16, whose smallest subnormal is 2^-24 (about 6e-8); a gradient of 1e-8
// flowing backward rounds to 0. Multiplying the loss by S (65536 at first)
// multiplies every gradient by S, so they stay representable; the fp32 master
// gradients are multiplied by 1/S before clipping and the optimizer step.
// bf16 has fp32's exponent range, so --amp bf16 (like off) uses no scaler:
// the scaler is then disabled and every call is a pass-through, as
// GradScaler(enabled=False) is.
//
// One iteration, as with torch:
//   backward with dloss = sim_scaler_get_scale(s)  (torch: scaler.scale(loss))
//   sim_scaler_unscale(...)        optional, before clipping (unscale_)
//   sim_scaler_step(...)           unscales if not done yet; skips the step
//                                  when a gradient is inf/NaN
//   sim_scaler_update(s, r)        backoff or growth
// Strategies that shard gradients combine s->found_inf over ranks (max)
// between unscale and step.
#ifndef DDPLAB_SIM_GRAD_SCALER_H
#define DDPLAB_SIM_GRAD_SCALER_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"  // defines: SimDtype
#include "model/optim.h" // defines: SimOptim, SimParamInfo

typedef struct {
    SimDtype amp;           // --amp off|fp16|bf16: SIM_FP32 (off), SIM_FP16 or SIM_BF16;
                            // the model's forward takes it as its `amp` dtype
    double init_scale;      // --init-scale, default 65536 (2^16)
    double growth_factor;   // default 2 (must be > 1)
    double backoff_factor;  // default 0.5 (must be in (0, 1))
    int growth_interval;    // --growth-interval, default 2000 (must be >= 1)
} SimAmpOptions;

void sim_amp_options_default(SimAmpOptions *o);
// "off", "fp16", "bf16" -> SIM_FP32, SIM_FP16, SIM_BF16. 0 on success, -1 unknown.
int sim_amp_parse(const char *s, SimDtype *out);
const char *sim_amp_name(SimDtype amp); // "off", "fp16", "bf16"; NULL otherwise
// 1 when the options call for a loss scaler (fp16 only).
int sim_amp_needs_scaler(const SimAmpOptions *o);
// One-line message naming the option on failure; SIM_EINVAL.
SimStatus sim_amp_options_validate(const SimAmpOptions *o, char *err, size_t errlen);

typedef enum { SIM_SCALER_READY = 0, SIM_SCALER_UNSCALED, SIM_SCALER_STEPPED } SimScalerStage;

typedef struct {
    int enabled;            // 0: pass-through (scale 1, no checks, never skips)
    float scale;            // torch's _scale (fp32)
    int growth_tracker;     // torch's _growth_tracker: good steps since the last change
    double growth_factor, backoff_factor;
    int growth_interval;
    int found_inf;          // set by unscale: some gradient is inf or NaN
    int recorded;           // an inf check ran since the last update
    SimScalerStage stage;
    int64_t skipped;        // optimizer steps skipped so far (for metrics)
} SimGradScaler;

// enabled = sim_amp_needs_scaler(o) unless the caller decides otherwise.
void sim_scaler_init(SimGradScaler *s, const SimAmpOptions *o, int enabled);
// The factor the loss gradient is multiplied by (1 when disabled).
float sim_scaler_get_scale(const SimGradScaler *s);
// unscale_: inv = fp32(1 / double(scale)); found_inf from the gradients of
// the parameters with has_grad; every such gradient *= inv. Errors (SIM_EINVAL,
// message in r->error) as torch: twice before update, or after step.
SimStatus sim_scaler_unscale(SimGradScaler *s, SimRank *r, SimTensor *grad,
                             const SimParamInfo *params, int nparams, const uint8_t *has_grad);
// step: unscales first if needed, then runs sim_optim_step at lr unless
// found_inf. *stepped (may be NULL) says whether it did.
SimStatus sim_scaler_step(SimGradScaler *s, SimRank *r, SimOptim *o, double lr,
                          const uint8_t *has_grad, int *stepped);
// update: found_inf -> scale *= backoff, tracker = 0; otherwise tracker += 1
// and, on reaching growth_interval, scale *= growth (kept only if finite),
// tracker = 0. Needs an inf check since the last update (SIM_EINVAL otherwise).
SimStatus sim_scaler_update(SimGradScaler *s, SimRank *r);
// The update rule alone (pure), for callers that keep the state elsewhere.
void sim_scaler_update_rule(float *scale, int *growth_tracker, int found_inf,
                            double growth_factor, double backoff_factor, int growth_interval);

#endif
