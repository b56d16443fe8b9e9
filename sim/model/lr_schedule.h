// sim/model/lr_schedule.h: learning-rate schedules as pure functions of the step,
// and the linear scaling rule.
//
// A schedule is torch.optim.lr_scheduler.LambdaLR with the factor below:
// the optimizer step s (0-based: the first step() is s = 0, as LambdaLR's
// constructor already applies factor(0)) runs at lr(s) = base_lr * factor(s):
//
//   s <  warmup:  factor = (s + 1) / warmup          (linear warmup, reaches 1
//                                                     on step warmup - 1)
//   s >= warmup:  constant  factor = 1
//                 cosine    factor = m + (1 - m) * 0.5 * (1 + cos(pi * p))
//                 linear    factor = m + (1 - m) * (1 - p)
//   with p = min(1, (s - warmup) / (total - warmup)) and m = min_lr / base_lr,
//
// so cosine and linear start at base_lr right after the warmup and reach
// min_lr at s = total (steps past total stay at min_lr). Everything is
// computed in double, in the same order as the reference script.
//
// The linear scaling rule (Goyal et al., "Accurate, Large Minibatch SGD"):
// with --lr-scale linear, base_lr = lr x world size x accumulation steps.
// min_lr is not scaled.
#ifndef DDPLAB_SIM_LR_SCHEDULE_H
#define DDPLAB_SIM_LR_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus

typedef enum { SIM_LR_CONSTANT = 0, SIM_LR_COSINE, SIM_LR_LINEAR, SIM_LR_KIND_COUNT } SimLrKind;

typedef struct {
    SimLrKind kind;      // --lr-schedule constant|cosine|linear (default constant)
    int64_t warmup;      // --warmup N: steps of linear warmup (default 0)
    double min_lr;       // --min-lr X: where cosine/linear end (default 0)
    int scale_linear;    // --lr-scale none|linear (default none)
} SimLrOptions;

// A ready schedule: every field resolved.
typedef struct {
    SimLrKind kind;
    double base_lr;      // after the scaling rule
    int64_t warmup;
    int64_t total;       // steps of the run (cosine/linear decay over total - warmup)
    double min_lr;
} SimLrSchedule;

void sim_lr_options_default(SimLrOptions *o);
const char *sim_lr_kind_name(SimLrKind k); // "constant", "cosine", "linear"; NULL if invalid
int sim_lr_kind_parse(const char *s, SimLrKind *out); // 0 on success, -1 unknown

// The scaled base learning rate: lr, or lr * world * accum with scale_linear.
double sim_lr_scaled(const SimLrOptions *o, double lr, int world, int accum);
// The sentence to print at start-up, e.g. "lr 0.001 x 4 ranks x 2 accumulation
// steps = 0.008 (linear scaling rule)"; "" without scale_linear.
const char *sim_lr_scale_sentence(const SimLrOptions *o, double lr, int world, int accum,
                                  char *buf, size_t len);

// Builds the schedule of a run of `total` optimizer steps at base rate lr
// (before scaling). Checks the options (warmup >= 0, min_lr >= 0 and not
// above the base lr, total >= 1 for cosine/linear) with one-line messages
// naming the option; returns SIM_EINVAL on failure.
SimStatus sim_lr_schedule_make(SimLrSchedule *s, const SimLrOptions *o, double lr, int world,
                               int accum, int64_t total, char *err, size_t errlen);
// The factor and the learning rate of optimizer step `step` (0-based).
double sim_lr_factor(const SimLrSchedule *s, int64_t step);
double sim_lr_at(const SimLrSchedule *s, int64_t step);

#endif
