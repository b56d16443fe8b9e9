// sim/train/train_internal.h: what the trainer's files (train.c, train_step.c,
// train_ckpt.c, train_eval.c, train_fault.c) share and nobody else needs. What
// strategies may use of the trainer is in sim/train/trainer.h.
#ifndef DDPLAB_SIM_TRAIN_INTERNAL_H
#define DDPLAB_SIM_TRAIN_INTERNAL_H

#include "train/trainer.h"

// ----------------------------------------------------------------------------
// What the step does besides forward, loss, backward, gradient sync and the
// optimizer step (sim/train/train_extras.c), one named call each.

// stop: SIM_EINTR (the trainer's error says so) when cfg->hooks.should_stop
// asks to stop before the next step; nothing has changed then.
SimStatus train_stop_check(SimTrainer *t);

// markers: a marker of the training loop for the views (sim/trace/trace.h's
// "iteration" and "phase" markers) at the trainer's current step; value: the
// loss on "iteration"/"end". Nothing without a trace.
void train_mark(SimTrainer *t, SimRank *r, const char *name, const char *label, double value);

// join (uneven inputs, cfg->data.uneven): batches in this rank's epoch as
// its loop sees them: its own share without join (it moves on to its next
// epoch), else the longest rank's (a joined rank shadows until the epoch's
// end).
int64_t train_epoch_length(const SimTrainer *t, const SimRank *r);
// 1 when this rank has no batch left for this iteration. Without join that
// ends its loop after the run's last epoch (*leave 1); with join it shadows
// the others until the epoch's end.
int train_join_out_of_data(const SimTrainer *t, const SimRank *r, int *leave);
// One iteration of a rank out of data, under join: the strategy shadows the
// others' collectives; no forward, no update.
SimStatus train_join_shadow(SimTrainer *t, SimRank *r, SimStepStats *s);
// The join context closes when every rank has run out of data: at the end of
// each epoch and of the run (post_hook: the final model sync).
SimStatus train_join_exit(SimTrainer *t, SimRank *r);

// tail (cfg->loop.accum_tail): micro-batches in the next accumulation block
// (accum, or what is left of the epoch when blocks restart at each epoch).
int train_block_length(const SimTrainer *t);
// 1 when micro-batch k of a block of n synchronises gradients: the last of a
// full block (no_sync before it), every one with --accum-sync every, and the
// last of a short block that steps.
int train_micro_sync(const SimTrainer *t, int k, int n);
// After a block: *again 1 when it was cut short and is dropped (--accum-tail
// drop), so another block follows; fails when every block would be.
SimStatus train_tail_dropped(SimTrainer *t, const SimStepStats *s, int *again);

// stages: the stage observer (cfg->hooks.on_stage) at a whole-model stage;
// its failure fails the step as "WHAT: <the observer's reason>".
SimStatus train_stage(SimTrainer *t, SimTrainStage stage, const char *what);
// Backward from the loss with seed dloss, the gradient-ready hooks of the
// stage observer, the strategy and the caller chained.
SimStatus train_backward(SimTrainer *t, SimRank *r, float dloss);
// zero_grad(set_to_none=True) where the gradients own their memory
// (cfg->loop.set_to_none_frees): the ledger releases every gradient it holds,
// as PyTorch frees each `.grad` it sets to None; backward takes each one back
// when autograd produces it (train_backward's hook). Nothing otherwise.
SimStatus train_grads_to_none(SimTrainer *t, SimRank *r);

// The strategy's per-micro-step points, if it has them; a failure is
// wrapped as "<strategy> (<where>): <reason>".
typedef enum { TRAIN_BEFORE_FORWARD, TRAIN_AFTER_FORWARD, TRAIN_AFTER_BACKWARD } TrainStrategyPoint;
SimStatus train_strategy_point(SimTrainer *t, SimRank *r, TrainStrategyPoint point, int sync);

// ----------------------------------------------------------------------------
// Injected faults of the training loop (sim/train/train_fault.c; sim/engine/fault.h lists
// the kinds). Each fault leaves one SIM_EV_FAULT event with label
// "injected" and a one-line description as its name, when it first
// applies, on the rank it applies to (rank 0 for the kinds that apply to
// every rank); its `step` is the optimizer step in progress (0 at set-up).

// Checks the plan against this run at the end of set-up (a parameter the
// model does not have, a strategy a kind cannot work with, a save-crash
// step at which nothing is saved, a step the run never takes, no-set-epoch
// in a run that stays in epoch 0, loss-not-divided without accumulation):
// bad input, in the words "--fault 'SPEC': step S ...; this run (steps A to
// B) ...". Leaves the events of the
// kinds that apply from the start (seeds, no-sampler).
SimStatus sim_train_fault_setup(SimTrainer *t, SimRank *r);
// The faults aimed at one collective (skip, mismatch, reorder, crash) of a
// step up to `upto` that cannot fire any more: the rank's last step is over
// (its evaluation included) and launched fewer collectives than the fault's
// coll= asks for, or the fault's rank took no such step of its own (out of
// data). The first such fault fails the run as bad input and cancels the
// world, so that the others stop at once. Called after each step's
// evaluation (before a checkpoint without collectives is written), before
// each step begins, and when the rank's loop ends.
SimStatus sim_train_fault_unfired(SimTrainer *t, SimRank *r, int64_t upto);
// The optimizer steps of `epochs` epochs of nb batches each (the
// accumulation tail mode decides what a short last block counts for).
int64_t train_steps_of_batches(const SimTrainConfig *c, int64_t nb, int64_t epochs);
// seeds: 1 when ranks draw their initial weights with seed + rank.
int sim_train_fault_seed_per_rank(const SimTrainConfig *c);
// no-sampler: the replicas the sampler splits each epoch over (1: every rank
// reads what one process alone would), else nranks or cfg->data.sampler_replicas.
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

// ----------------------------------------------------------------------------
// The timeline a checkpoint carries (sim/train/train_timeline.c).

// The last step this process runs: --stop-after when it cuts the run short,
// else --steps.
int64_t train_end_step(const SimTrainConfig *c);
// On every rank, just before a save: each rank's record, gathered on rank 0
// (t->timeline) off the simulated clock.
SimStatus train_timeline_collect(SimTrainer *t, SimRank *r);
// The metadata entries the records make (0 when t holds none), and those
// entries: meta[0] the header (text in header), then "timeline.<k>" (names
// in keys[k]) pointing at t's records.
int train_timeline_meta_count(const SimTrainer *t);
void train_timeline_meta(const SimTrainer *t, SimStMeta *meta, char (*keys)[32], char *header,
                         size_t header_len);
// The checkpoint's sim_time_s: rank 0's compute clock when the records were
// taken (before the save's own work), else now.
double train_timeline_sim_time(const SimTrainer *t, const SimRank *r);
// --resume: this rank's record from c into s (s->sim_time read already), or
// the note saying why there is none to use.
void train_timeline_read(const SimTrainer *t, const SimCkpt *c, SimTrainScalars *s);
// At the end of set-up on a resumed run: the record onto the strategy, the
// loader and the rank (or, without one, the saved time on every stream),
// then, when --save-every saved at this step in the uninterrupted run, that
// save's simulated work again.
SimStatus train_timeline_resume(SimTrainer *t, SimRank *r);
void train_timeline_free(SimTrainer *t);
#endif
