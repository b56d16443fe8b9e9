// sim/model/optim.h: optimizers (torch.optim.SGD, Adam, AdamW) and gradient
// clipping (torch.nn.utils.clip_grad_norm_) over a model's flat fp32
// parameter and gradient buffers (sim/model/model.h).
//
// An optimizer keeps its state in flat fp32 tensors with the parameters'
// layout (SGD: one momentum buffer; Adam/AdamW: exp_avg and exp_avg_sq) and
// one step counter per parameter, as torch keeps state per parameter. The
// element-wise math runs through sim_op_sgd_step / sim_op_adam_step
// (sim/engine/ops.h), over as few ranges as possible: one call for the whole buffer
// when every parameter is at the same step.
//
// "has_grad" masks: every step and clipping function takes an optional
// `const uint8_t *has_grad` of nparams flags. has_grad[i] = 0 is torch's
// `p.grad is None`: parameter i is skipped entirely (no weight decay, no
// state update, its step counter does not advance, it does not count in the
// clipping norm). NULL means every parameter has a gradient. PyTorch 1.13's
// zero_grad() sets gradients to zero, not None, so to match it a parameter
// that has had a gradient once keeps has_grad = 1 from then on.
//
// Checkpoint names follow torch's optimizer state_dict, flattened with dots:
// "state.<i>.momentum_buffer", "state.<i>.exp_avg", "state.<i>.exp_avg_sq"
// and "state.<i>.step", where i is the parameter's index in the model table
// (torch numbers parameters the same way). A parameter has state only once it
// has taken a step (torch creates it lazily); SGD without momentum has none.
#ifndef DDPLAB_SIM_OPTIM_H
#define DDPLAB_SIM_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "base/tensor.h"  // defines: SimTensor
#include "engine/world.h" // defines: SimRank
#include "model/model.h"  // defines: SimParamInfo, SIM_NAME_MAX

typedef enum { SIM_OPTIM_SGD = 0, SIM_OPTIM_ADAM, SIM_OPTIM_ADAMW, SIM_OPTIM_COUNT } SimOptimKind;

// Hyperparameters, with torch's names and defaults. lr and weight_decay
// depend on the kind, so they stay NAN ("not given") until
// sim_optim_options_validate fills in the kind's default.
typedef struct {
    SimOptimKind kind;     // --optimizer sgd|adam|adamw (default sgd)
    double lr;             // --lr: sgd 0.01 (torch has no default), adam/adamw 1e-3
    double weight_decay;   // --weight-decay: sgd/adam 0 (L2 added to the gradient),
                           // adamw 1e-2 (decoupled: p *= 1 - lr*wd)
    double momentum;       // --momentum (sgd), default 0
    double dampening;      // --dampening (sgd), default 0
    int nesterov;          // --nesterov (sgd): needs momentum > 0 and dampening 0
    double beta1, beta2;   // --betas B1,B2 (adam/adamw), default 0.9,0.999
    double eps;            // --eps (adam/adamw), default 1e-8
} SimOptimOptions;

void sim_optim_options_default(SimOptimOptions *o);
// "sgd", "adam", "adamw"; NULL if invalid.
const char *sim_optim_kind_name(SimOptimKind k);
int sim_optim_kind_parse(const char *s, SimOptimKind *out); // 0 on success, -1 unknown
// Fills the kind's defaults for lr and weight_decay, then checks every value
// as torch's constructors do. On failure writes one line naming the option
// ("--lr: '-0.1' is negative; allowed: a number >= 0") and returns SIM_EINVAL.
SimStatus sim_optim_options_validate(SimOptimOptions *o, char *err, size_t errlen);

// The named views of one parameter's state, for checkpoints.
typedef struct {
    char name[SIM_NAME_MAX + 32]; // "state.3.exp_avg"
    int param_index;
    SimTensor *flat;              // the flat state tensor it lies in
    size_t offset, numel;         // elements of flat
    int ndim;                     // the parameter's shape
    int64_t shape[SIM_MAX_DIMS];
} SimOptimStateView;

#define SIM_OPTIM_MAX_STATE 2

typedef struct {
    SimOptimOptions opt;          // validated hyperparameters
    SimTensor *param;             // [count] fp32, not owned
    SimTensor *grad;              // [count] fp32, not owned
    const SimParamInfo *params;   // [nparams] views into param/grad, not owned
    int nparams;
    int nstate;                   // flat state tensors in use (0..2)
    SimTensor state[SIM_OPTIM_MAX_STATE]; // [count] fp32 each, parameter layout
    const char *state_names[SIM_OPTIM_MAX_STATE]; // "momentum_buffer", "exp_avg", ...
    int64_t *param_steps;         // [nparams]: torch's state[i]["step"] (also kept
                                  // for SGD, where step 0 means "no buffer yet")
    int64_t steps;                // step() calls that updated parameters
} SimOptim;

// Creates the state tensors on rank r (phantom when param has no storage),
// zero-filled. opt must have passed sim_optim_options_validate. params must
// lie inside param/grad (checked).
SimStatus sim_optim_init(SimOptim *o, SimRank *r, const SimOptimOptions *opt, SimTensor *param,
                         SimTensor *grad, const SimParamInfo *params, int nparams);
// Safe on a zeroed or failed SimOptim.
void sim_optim_free(SimOptim *o, SimRank *r);
// One step at learning rate lr (from the schedule, sim/model/lr_schedule.h).
SimStatus sim_optim_step(SimOptim *o, SimRank *r, double lr, const uint8_t *has_grad);

// Checkpoint views: state kind k (0..nstate-1) of parameter i. Returns 0, or
// -1 when i or k is out of range.
int sim_optim_state_view(const SimOptim *o, int i, int k, SimOptimStateView *out);
// The views of every parameter that has state (param_steps[i] > 0), in
// parameter order; writes at most max of them and returns how many exist.
int sim_optim_state_views(const SimOptim *o, SimOptimStateView *out, int max);

// Runs of parameters: the next maximal range of consecutive parameters,
// starting at index *i, that all have a gradient and lie back to back in the
// flat buffer. On return [*first, *i) is the run and [*off, *off + *n) its
// elements. Returns 0 when no parameter with a gradient is left.
int sim_optim_next_run(const SimParamInfo *params, int nparams, const uint8_t *has_grad, int *i,
                       int *first, size_t *off, size_t *n);

// ---- Gradient clipping: torch.nn.utils.clip_grad_norm_ (norm_type 2,
// error_if_nonfinite=False). total_norm = sqrt(sum of squares over every
// parameter with a gradient), accumulated in double and rounded to fp32;
// coef = max_norm / (total_norm + 1e-6) in fp32, clamped to at most 1 (a NaN
// stays NaN); every gradient is multiplied by coef. A non-finite norm is not
// an error, as in torch: inf gives coef 0 (finite gradients become 0, infinite
// ones NaN), NaN makes every gradient NaN. Sharded strategies call the two
// halves with a sum over ranks in between.
SimStatus sim_clip_sumsq(SimRank *r, const SimTensor *grad, const SimParamInfo *params,
                         int nparams, const uint8_t *has_grad, double *sumsq);
// torch's clamped coefficient for a total norm (pure).
float sim_clip_coef(float total_norm, double max_norm);
SimStatus sim_clip_scale(SimRank *r, SimTensor *grad, const SimParamInfo *params, int nparams,
                         const uint8_t *has_grad, float coef);
// Both halves; *total_norm receives the fp32 norm before clipping.
SimStatus sim_clip_grad_norm(SimRank *r, SimTensor *grad, const SimParamInfo *params,
                             int nparams, const uint8_t *has_grad, double max_norm,
                             float *total_norm);

#endif
