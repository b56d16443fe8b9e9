// sim/train_internal.h: what the trainer's files (train.c, train_step.c,
// train_ckpt.c) share and nobody else needs.
#ifndef DDPLAB_SIM_TRAIN_INTERNAL_H
#define DDPLAB_SIM_TRAIN_INTERNAL_H

#include "checkpoint.h" // defines: SimCkpt
#include "train.h"

// Records why the trainer failed (bad_input = 1: a file or value the user
// gave) and returns st.
SimStatus sim_train_fail(SimTrainer *t, int bad_input, SimStatus st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
// A marker of the training loop for the views (sim/trace.h's "iteration"
// and "phase" markers) at the trainer's current step; value: the loss on
// "iteration"/"end". Nothing without a trace.
void train_mark(SimTrainer *t, SimRank *r, const char *name, const char *label, double value);
// Restores the state saved in t->cfg->resume_path into a set-up trainer.
// Everything is checked before anything changes.
SimStatus sim_train_restore(SimTrainer *t, SimRank *r);

// The trainer's own part of a checkpoint, as sim_train_save writes it beside
// the model and the optimizer state: the step counters
// ("optimizer/state.<i>.step", I64 scalars, for parameters that have taken a
// step) and "train/has_grad" (I64 [nparams]) as host tensors, and the
// scalars and run settings (step, epoch, sampler position, scaler, optimizer
// step count, ...) as metadata. A strategy that writes checkpoints of its
// own layout (sim/fsdp_shards.c) stores this same part and reads it back
// with sim_train_part_read and sim_train_part_apply.
#define SIM_TRAIN_META_MAX 32
#define SIM_TRAIN_META_LEN 80
typedef struct {
    int nhost;
    SimStTensor *host;       // [nhost]; data points into t->optim and has_grad
    int nmeta;
    SimStMeta meta[SIM_TRAIN_META_MAX];
    char values[SIM_TRAIN_META_MAX][SIM_TRAIN_META_LEN];
    char (*step_names)[48];  // [nparams] storage behind host
    int64_t *has_grad;       // [nparams]
} SimTrainPart;

// Fills p from t (the step counters of t->optim). SIM_ENOMEM leaves p empty.
SimStatus sim_train_part_make(SimTrainPart *p, const SimTrainer *t, const SimRank *r);
void sim_train_part_free(SimTrainPart *p);

// The trainer's part as read back from a checkpoint.
typedef struct {
    int64_t step, epoch, batch, opt_steps, skipped, tracker, enabled;
    double scale, sim_time;
    int64_t *param_steps;    // [nparams]
    int64_t *has_grad;       // [nparams]
} SimTrainScalars;

// Reads the trainer's part of c and checks it against this run (the settings
// a resumed run keeps, the step against --steps, ...). On failure records
// the reason (naming c->path) in t->error. Free s with sim_train_scalars_free,
// also after a failure.
SimStatus sim_train_part_read(SimTrainer *t, const SimCkpt *c, SimTrainScalars *s);
// Sets t's step, epoch, sampler position, scaler, has_grad and t->optim's
// step counters, and r's clocks, from s.
void sim_train_part_apply(SimTrainer *t, SimRank *r, const SimTrainScalars *s);
void sim_train_scalars_free(SimTrainScalars *s);

// ----------------------------------------------------------------------------
// Injected faults of the training loop (sim/train_fault.c; sim/fault.h lists
// the kinds). Each fault leaves one SIM_EV_FAULT event with label
// "injected" and a one-line description as its name, when it first
// applies, on the rank it applies to (rank 0 for the kinds that apply to
// every rank); its `step` is the optimizer step in progress (0 at set-up).

// Checks the plan against this run at the end of set-up (a parameter the
// model does not have, a strategy a kind cannot work with, a save-crash
// step at which nothing is saved): bad input. Leaves the events of the
// kinds that apply from the start (seeds, no-sampler).
SimStatus sim_train_fault_setup(SimTrainer *t, SimRank *r);
// seeds: 1 when ranks draw their initial weights with seed + rank.
int sim_train_fault_seed_per_rank(const SimTrainConfig *c);
// no-sampler: the replicas the sampler splits each epoch over (1: every rank
// reads what one process alone would), else nranks or cfg->sampler_replicas.
int sim_train_fault_replicas(const SimTrainConfig *c, int nranks);
// Points the sampler at the loop's epoch t->epoch (sampler.set_epoch), or
// with no-set-epoch leaves it at epoch 0 and, at the start of each epoch
// (t->batch 0), leaves the "epoch" marker (sim/trace.h).
void sim_train_set_epoch(SimTrainer *t, SimRank *r);
// unused: between forward and backward, takes the fault's parameter out of
// the graph on its rank (sim_model_mark_unused) from its step on.
void sim_train_fault_after_forward(SimTrainer *t, SimRank *r);
// unused under DDP with find_unused_parameters: after the reduction, the
// parameter that was unused on this rank alone has the reduced gradient
// (PyTorch's reducer gives a globally used parameter its bucket's values),
// so every replica steps it alike.
void sim_train_fault_after_sync(SimTrainer *t, SimRank *r);
// What the backward seed is divided by: accum, or 1 with loss-not-divided.
float sim_train_fault_accum_divisor(SimTrainer *t, SimRank *r);
// save-crash: 1 when the checkpoint of step t->step to path is the one the
// process dies writing (its event is left here, on t->rank).
int sim_train_fault_save_crash(SimTrainer *t, const char *path);

#endif
