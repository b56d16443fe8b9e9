// sim/train/train_internal.h: what the trainer's files (train.c, train_step.c,
// train_ckpt.c, train_eval.c, train_fault.c) share and nobody else needs. What
// strategies may use of the trainer is in sim/train/trainer.h.
#ifndef DDPLAB_SIM_TRAIN_INTERNAL_H
#define DDPLAB_SIM_TRAIN_INTERNAL_H

#include "train/trainer.h"

// A marker of the training loop for the views (sim/trace/trace.h's "iteration"
// and "phase" markers) at the trainer's current step; value: the loss on
// "iteration"/"end". Nothing without a trace.
void train_mark(SimTrainer *t, SimRank *r, const char *name, const char *label, double value);
// ----------------------------------------------------------------------------
// Injected faults of the training loop (sim/train/train_fault.c; sim/engine/fault.h lists
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
// (t->batch 0), leaves the "epoch" marker (sim/trace/trace.h).
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
#endif
