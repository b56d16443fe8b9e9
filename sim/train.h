// sim/train.h: the training loop one rank runs, the same for every strategy:
//
//   for each optimizer step:
//     zero_grad
//     for each of `accum` micro-batches:           (DistributedSampler order)
//       forward + loss; backward of loss * scale / accum   (hooks fire here)
//     strategy sync                                (none for --strategy single)
//     scaler.unscale_; clip_grad_norm_ (optional)
//     scaler.step(optimizer) at lr = schedule(step); scaler.update()
//
// which is the loop of a PyTorch script with torch.autocast, GradScaler,
// clip_grad_norm_ and LambdaLR, in PyTorch 1.13's defaults: zero_grad keeps
// gradients as zeros (set_to_none=False), so a parameter that once had a
// gradient keeps taking optimizer steps on the steps where it is unused.
//
// Everything that decides the next step is in the trainer's state, and a
// checkpoint (sim/checkpoint.h) holds all of it: parameters, buffers,
// optimizer state and step counters, the scaler, which parameters have a
// gradient, the step, and the sampler's position (epoch and batch; the
// shuffle order is a function of seed + epoch). A resumed run therefore
// takes bit for bit the same steps as an uninterrupted one.
#ifndef DDPLAB_SIM_TRAIN_H
#define DDPLAB_SIM_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"     // defines: SimDataset, SimLoader
#include "grad_scaler.h" // defines: SimGradScaler
#include "lr_schedule.h" // defines: SimLrSchedule
#include "model.h"       // defines: SimModel, SimModelSpec
#include "optim.h"       // defines: SimOptim
#include "optim_flags.h" // defines: SimOptimFlags
#include "sampler.h"     // defines: SimSampler
#include "strategy.h"    // defines: SimStrategyOps
#include "world.h"       // defines: SimRank

// What one optimizer step did (reported on every rank).
typedef struct {
    int64_t step;         // 1 for the first optimizer step of the run
    int64_t epoch;        // epoch of the step's first batch (0-based)
    float loss;           // mean loss of the step's batches (mean over micro-batches)
    double lr;            // learning rate of the step
    float loss_scale;     // the scale its backward used (1 without a scaler)
    float grad_norm;      // total 2-norm of the unscaled gradients before clipping
                          // (NaN when not computed: no clipping and not asked for)
    int skipped;          // 1: inf/NaN gradients, the scaler skipped the update
    int samples;          // samples in the step (all micro-batches, this rank)
    double wall_s;        // wall time of the step
    double sim_s;         // simulated compute-stream time at the end of the step
} SimStepStats;

typedef struct SimTrainer SimTrainer;

typedef void (*SimStepCallback)(void *arg, int rank, const SimStepStats *s);
// Called by sim_train_run after set-up, before the first step.
typedef void (*SimReadyCallback)(void *arg, int rank, const SimTrainer *t);

// Called after the last backward of a step, before unscaling and clipping:
// where a strategy synchronises gradients (NULL: nothing to do).
typedef SimStatus (*SimSyncFn)(void *arg, SimRank *r, SimModel *m, uint8_t *has_grad);

typedef struct {
    SimModelSpec model;
    const SimDataset *data;   // read-only, shared by the ranks
    int batch;                // samples per micro-batch per rank
    int accum;                // micro-batches per optimizer step (>= 1)
    int64_t steps;            // optimizer steps of the whole run (a resumed run
                              // continues up to the same count)
    int64_t stop_after;       // > 0: stop after this step as if interrupted (the
                              // schedule still spans `steps`); 0: run to the end
    int shuffle;              // DistributedSampler shuffle (PyTorch default 1)
    int drop_last;            // drop a short last batch of each epoch
    uint64_t seed;            // initial weights and the shuffle order
    SimOptimFlags opt;        // validated (sim_optim_flags_validate)
    int want_grad_norm;       // compute the norm even without clipping
    const char *init_path;    // weights only (any safetensors with the model's tensors)
    const char *resume_path;  // a checkpoint of this run's configuration
    const char *save_path;    // written at the end, and every save_every steps
    int64_t save_every;       // 0: only at the end
    SimReadyCallback on_ready; // may be NULL
    void *on_ready_arg;
    SimStepCallback on_step;  // may be NULL
    void *on_step_arg;
    SimGradHook on_grad;      // during backward (may be NULL)
    void *on_grad_arg;
    SimSyncFn sync;           // may be NULL
    void *sync_arg;
    const SimStrategyOps *strategy; // NULL: --strategy single (no callbacks)
    const void *strategy_cfg;       // the strategy's options
    int init_seed_per_rank;   // 1: rank r draws its initial weights with seed + r
                              // (as processes seeded differently do)
    int accum_sync_every;     // 1: synchronise every micro-step (--accum-sync
                              // every); 0: only the last (no_sync before it)
} SimTrainConfig;

// Fills the defaults: batch 32, accum 1, steps 100, shuffle on, seed 0,
// optimizer flags at their defaults; no data.
void sim_train_config_default(SimTrainConfig *c);

// Checks that the dataset fits the model: features against the first width,
// classes against the last width (cross-entropy), targets against the last
// width (MSE), tokens against a GPT's vocabulary and context. On failure
// writes one line into err and returns SIM_EINVAL.
SimStatus sim_train_check_data(const SimModelSpec *spec, const SimDataset *ds, char *err,
                               size_t errlen);
// Batches per epoch on each of nranks ranks, and the optimizer steps of
// `epochs` epochs (the accumulation groups batches; a partial group at the
// end of the run is not taken).
int64_t sim_train_batches_per_epoch(const SimTrainConfig *c, int nranks);
int64_t sim_train_steps_for_epochs(const SimTrainConfig *c, int nranks, int64_t epochs);

// One rank's training state.
struct SimTrainer {
    const SimTrainConfig *cfg;
    SimModel *model;
    SimOptim optim;
    SimGradScaler scaler;
    SimSampler sampler;
    SimLoader loader;
    SimLrSchedule sched;
    uint8_t *has_grad;     // [nparams]: torch's `p.grad is not None`
    int64_t step;          // optimizer steps taken
    int64_t epoch, batch;  // where the next batch comes from
    int64_t samples;       // samples this process trained on
    double wall_s;         // wall time spent in steps by this process
    int resumed;           // 1: restored from cfg->resume_path
    int64_t start_step;    // step at the start of this process
    void *strategy;        // the strategy's state on this rank (cfg->strategy)
    SimRank *rank;         // this trainer's rank (for the gradient hook)
    char error[1024];      // why the last call failed
    int bad_input;         // 1: it failed because of bad input (a file, a value)
};

// Creates the model, its initial weights (seed, --init or --resume), the
// optimizer, scaler, sampler and loader. On failure t->error says why and
// sim_train_free is still safe.
SimStatus sim_train_setup(SimTrainer *t, SimRank *r, const SimTrainConfig *cfg);
// Takes one optimizer step; fills *out when not NULL.
SimStatus sim_train_step(SimTrainer *t, SimRank *r, SimStepStats *out);
// Writes a checkpoint of the whole training state to path.
SimStatus sim_train_save(SimTrainer *t, SimRank *r, const char *path);
void sim_train_free(SimTrainer *t, SimRank *r);

// The whole run on one rank, as a SimRankMain: arg is an array of
// SimTrainer, one per rank, each with its cfg set (the rest is filled here).
// Set-up, on_ready, steps up to cfg->steps with on_step and the periodic
// saves, the final save (rank 0 writes). Nothing is freed: the caller reads
// the state, then calls sim_train_free for each rank.
SimStatus sim_train_run(SimRank *r, void *arg);

#endif
