// sim/train/strategy.h: how a data-parallel strategy plugs into the training loop
// (sim/train/train.h). The loop is the same for every strategy; a strategy is a
// table of callbacks the loop calls at fixed points of each optimizer step,
// on every rank, with that rank's own state:
//
//   setup           once, after the model, weights (and --resume) exist
//   before_forward  each micro-step, before forward (DDP: buffer broadcast,
//                   the check that the last reduction finished, the rebuild)
//   after_forward   each micro-step, after forward and loss (DDP: unused
//                   parameters marked ready with find_unused_parameters)
//   on_grad         during backward, each time a parameter's gradient is
//                   complete (DDP: copy into its bucket, launch buckets)
//   after_backward  each micro-step, after backward
//   sync            once per optimizer step, after the last backward and
//                   before unscaling, clipping and the update
//   teardown        once, from sim_train_free
//
// `sync` (the int argument) says whether this micro-step's gradients are to
// be synchronised: 0 on the first accum-1 micro-steps under no_sync (the
// default), 1 on the last one, and 1 on every micro-step with
// --accum-sync every. Every callback but setup and teardown may be NULL.
// Callbacks report failures by returning a status with the reason in
// r->error; the loop wraps it into the trainer's error.
#ifndef DDPLAB_SIM_STRATEGY_H
#define DDPLAB_SIM_STRATEGY_H

#include "base/batch.h"   // defines: SimBatch
#include "base/record.h"  // defines: SimRecOut, SimRecIn
#include "base/status.h"  // defines: SimStatus
#include "engine/world.h" // defines: SimRank

typedef struct SimTrainer SimTrainer;
typedef struct SimTrainConfig SimTrainConfig;
typedef struct SimStepStats SimStepStats;

typedef struct SimStrategyOps {
    const char *name; // "ddp"
    // cfg: the strategy's own options (shared by the ranks, read-only).
    // *state: this rank's state, freed by teardown (also after a failed setup).
    SimStatus (*setup)(SimRank *r, SimTrainer *t, const void *cfg, void **state);
    SimStatus (*before_forward)(void *state, SimRank *r, SimTrainer *t, int sync);
    SimStatus (*after_forward)(void *state, SimRank *r, SimTrainer *t, int sync);
    // Called from inside backward: must not fail loudly; a failure is kept in
    // the state and returned by after_backward.
    void (*on_grad)(void *state, SimRank *r, int param);
    SimStatus (*after_backward)(void *state, SimRank *r, SimTrainer *t, int sync);
    SimStatus (*sync)(void *state, SimRank *r, SimTrainer *t);
    void (*teardown)(void *state, SimRank *r);
    // Optional (NULL for ddp): replaces the loop's forward, loss and backward
    // of one micro-batch `b` (the whole batch the sampler drew). dloss is the
    // backward seed (scale / accum); *loss gets the micro-batch's mean loss.
    // The strategy marks t->has_grad itself. (DataParallel: scatter, replica
    // forwards, gather, backward, as one controller runs them.)
    SimStatus (*micro_step)(void *state, SimRank *r, SimTrainer *t, const SimBatch *b,
                            float dloss, int sync, float *loss);
    // Optional (NULL: c->data.batch, the batch the sampler draws): the most
    // samples rank `rank` of `nranks` ever puts through its model at once,
    // which sizes the model's activation buffers (sim_model_create's
    // max_batch). DataParallel: the largest chunk the rank can be given.
    int (*model_batch)(const SimTrainConfig *c, int rank, int nranks);
    // 1: only rank 0 holds the optimizer and steps; the other ranks skip
    // unscaling, clipping and the update (DataParallel's replicas).
    int root_only_update;
    // 1: the model's full-size buffers and the loop's optimizer are only
    // numeric mode's backing store (a sharded strategy): the loop builds them
    // with the device capacity lifted (t->capacity keeps it), and setup must
    // retag them (SIM_MEM_BACKING) and put r->mem.capacity back.
    int backing_model;
    // Join for uneven inputs (NULL: the strategy has no join hook). With
    // cfg->data.join, join_shadow runs on a rank that has run out of data for
    // one iteration of the others (it shadows their collectives:
    // _DDPJoinHook.main_hook) and join_exit on every rank once every rank
    // has run out (the end of each epoch and of the run: post_hook).
    SimStatus (*join_shadow)(void *state, SimRank *r, SimTrainer *t);
    SimStatus (*join_exit)(void *state, SimRank *r, SimTrainer *t);
    // Optional (NULL: the loop's own): replaces unscaling, clipping and the
    // optimizer step, for a strategy that updates sharded state itself. Sets
    // s->grad_norm (when clipping or t->cfg->want_grad_norm), s->lr and
    // s->skipped as the loop would.
    SimStatus (*update)(void *state, SimRank *r, SimTrainer *t, SimStepStats *s);
    // Optional (NULL: rank 0 writes sim_train_save): writes a checkpoint to
    // path; called on EVERY rank, since gathering or sharding state needs
    // every rank's collectives. path NULL: the same collectives and device
    // work, writing no file: how a resumed run repeats, on its simulated
    // clock, the save the uninterrupted run made at the step it resumes
    // from (sim/train/train_timeline.c).
    SimStatus (*save)(void *state, SimRank *r, SimTrainer *t, const char *path);
    // Optional (NULL: sim_train_setup restores t->cfg->ckpt.resume_path itself,
    // before setup): restores the checkpoint after setup, on every rank.
    SimStatus (*restore)(void *state, SimRank *r, SimTrainer *t, const char *path);
    // Optional (NULL: never): 1 when the strategy's reduction gives a
    // parameter that this rank left out of its forward but another rank used
    // the reduced gradient, so every replica steps it alike (DDP with
    // find_unused_parameters: PyTorch's reducer fills a globally used
    // parameter from its bucket). cfg: the strategy's options. The injected
    // "unused" fault asks it (sim/train/train_fault.c).
    int (*reduces_unused)(const void *cfg);
    // Optional, both or neither (NULL: nothing to carry): the strategy's
    // part of the timeline record a checkpoint carries
    // (sim/train/train_timeline.c), for state that decides the simulated time
    // of later steps but lies in no tensor of the checkpoint (DDP: whether its
    // buckets were rebuilt and from which gradient order, its iteration
    // count). timeline_write appends fields to o, the same fields on every
    // rank of a run. timeline_read runs on a resumed run once set-up and
    // restore are done, reads them back and rebuilds what depends on them:
    // SIM_EFORMAT with r->error saying what, and nothing changed, when the
    // fields do not match; another status when rebuilding fails.
    void (*timeline_write)(const void *state, const SimRank *r, SimRecOut *o);
    SimStatus (*timeline_read)(void *state, SimRank *r, SimRecIn *in);
} SimStrategyOps;

#endif
