// sim/model/optim_flags.h: the command-line options of the optimizer family
// (optimizer, learning-rate schedule, clipping, mixed precision) as one
// struct, with a table the program's parser and --help read, a setter for
// one option, and one validation of the whole.
//
// Options (defaults in brackets):
//   --optimizer sgd|adam|adamw [sgd]     --lr X [sgd 0.01, adam/adamw 0.001]
//   --momentum X [0]   --dampening X [0]   --nesterov        (sgd)
//   --betas B1,B2 [0.9,0.999]   --eps X [1e-8]               (adam/adamw)
//   --weight-decay X [sgd/adam 0, adamw 0.01]
//   --lr-schedule constant|cosine|linear [constant]   --warmup N [0]
//   --min-lr X [0]   --lr-scale none|linear [none]
//   --clip-grad-norm X [off]
//   --amp off|fp16|bf16 [off]   --init-scale X [65536]   --growth-interval N [2000]
#ifndef DDPLAB_SIM_OPTIM_FLAGS_H
#define DDPLAB_SIM_OPTIM_FLAGS_H

#include <stddef.h>

#include "model/grad_scaler.h" // defines: SimAmpOptions
#include "model/lr_schedule.h" // defines: SimLrOptions
#include "model/optim.h"       // defines: SimOptimOptions

typedef struct {
    SimOptimOptions optim;
    SimLrOptions lr;
    SimAmpOptions amp;
    double clip_grad_norm;   // max_norm; 0 = no clipping
} SimOptimFlags;

// One option: its long name (without "--"), the placeholder of its value
// (NULL: a switch that takes none) and one line of help.
typedef struct {
    const char *name;
    const char *metavar;
    const char *help;
} SimOptimFlagInfo;

void sim_optim_flags_default(SimOptimFlags *f);
// The options, in the order --help lists them; *n receives their number.
const SimOptimFlagInfo *sim_optim_flags_table(int *n);
// The entry for a name ("lr" or "--lr"), or NULL if it is not one of these.
const SimOptimFlagInfo *sim_optim_flags_find(const char *name);
// Sets one option from its text (value is ignored for switches). Returns
// SIM_OK, SIM_EINVAL with one line in err ("--lr: 'abc' is not a number;
// allowed: a number >= 0"), or SIM_ENOTSUP when name is not one of these.
SimStatus sim_optim_flags_set(SimOptimFlags *f, const char *name, const char *value, char *err,
                              size_t errlen);
// Fills the defaults that depend on other options and checks everything
// that can be checked before the run's length is known (the schedule's
// checks against the number of steps are in sim_lr_schedule_make).
SimStatus sim_optim_flags_validate(SimOptimFlags *f, char *err, size_t errlen);

#endif
