// sim/train/train.h: the training loop one rank runs, the same for every strategy:
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
// checkpoint (sim/formats/checkpoint.h) holds all of it: parameters, buffers,
// optimizer state and step counters, the scaler, which parameters have a
// gradient, the step, and the sampler's position (epoch and batch; the
// shuffle order is a function of seed + epoch). A resumed run therefore
// takes bit for bit the same steps as an uninterrupted one.
#ifndef DDPLAB_SIM_TRAIN_H
#define DDPLAB_SIM_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "data/data_stage.h"   // defines: SimDataStage, SimDataStageState
#include "data/dataset.h"      // defines: SimDataset, SimLoader
#include "data/sampler.h"      // defines: SimSampler
#include "data/data_stream.h"       // defines: SimDataStream, SimStreamSeeds
#include "engine/world.h"      // defines: SimRank
#include "model/grad_scaler.h" // defines: SimGradScaler
#include "model/lr_schedule.h" // defines: SimLrSchedule
#include "model/model.h"       // defines: SimModel, SimModelSpec
#include "model/optim.h"       // defines: SimOptim
#include "model/optim_flags.h" // defines: SimOptimFlags
#include "train/strategy.h"    // defines: SimStrategyOps

// What one optimizer step did (reported on every rank).
typedef struct SimStepStats {
    int64_t step;         // 1 for the first optimizer step of the run
    int64_t epoch;        // epoch of the step's first batch (0-based)
    float loss;           // mean loss of the step's batches (mean over micro-batches);
                          // across ranks as loss_log says (this rank's alone by default)
    float loss_local;     // this rank's own mean loss, whatever loss_log says
    int micro;            // micro-batches in the step (< accum: a tail block)
    double lr;            // learning rate of the step
    float loss_scale;     // the scale its backward used (1 without a scaler)
    float grad_norm;      // total 2-norm of the unscaled gradients before clipping
                          // (NaN when not computed: no clipping and not asked for)
    int skipped;          // 1: inf/NaN gradients, the scaler skipped the update
    int samples;          // samples in the step (all micro-batches, this rank)
    double wall_s;        // wall time of the step
    double sim_s;         // simulated compute-stream time at the end of the step
    int shadow;           // 1: this rank had run out of data (--uneven) and only
                          // shadowed the others' collectives (--join); loss NaN
} SimStepStats;

// Distributed evaluation (sim/train/train_eval.c): what is all_reduced.
typedef enum {
    SIM_EVAL_RIGHT = 0,      // sums of loss x count, correct and total (SUM), then divided
    SIM_EVAL_MEAN_OF_MEANS,  // each rank's mean loss and accuracy, averaged unweighted
    SIM_EVAL_RANK0_ONLY,     // `if rank == 0: evaluate()` with the all_reduce inside:
                             // the other ranks go on to their next collective
} SimEvalVariant;

// One evaluation as a rank saw it.
typedef struct {
    int64_t step;         // after this many optimizer steps
    int evaluated;        // 0: this rank took no part (rank0-only, ranks > 0)
    double loss;          // mean loss per item (sample; token for gpt; value for mse)
    double accuracy;      // correct / total; NaN for mse models
    int64_t correct, total;             // across the ranks (right); this rank's own otherwise
    int64_t local_correct, local_total; // this rank's shard
    double local_loss, local_accuracy;  // this rank's own mean loss and accuracy
} SimEvalStats;

typedef struct SimTrainer SimTrainer;

typedef void (*SimEvalCallback)(void *arg, int rank, const SimEvalStats *s);
typedef void (*SimStepCallback)(void *arg, int rank, const SimStepStats *s);
// Called by sim_train_run after set-up, before the first step.
typedef void (*SimReadyCallback)(void *arg, int rank, const SimTrainer *t);

// Called after the last backward of a step, before unscaling and clipping:
// where a strategy synchronises gradients (NULL: nothing to do).
typedef SimStatus (*SimSyncFn)(void *arg, SimRank *r, SimModel *m, uint8_t *has_grad);

// Where a step's tensors can be looked at from outside (the backend
// comparison, cli/run/run_compare.c), in the order they come:
typedef enum {
    SIM_STAGE_INIT,        // after set-up, before the first step (DDP: after the
                           // broadcast of rank 0's weights); param -1
    SIM_STAGE_GRAD_LOCAL,  // during backward: parameter `param`'s gradient is
                           // complete on this rank, before the strategy sees it
                           // (so before any collective touched it); with
                           // accumulation once per micro-batch, the last holding
                           // the accumulated local gradient
    SIM_STAGE_GRAD_SYNCED, // after the strategy's gradient sync, before the
                           // scaler's unscale and clipping; param -1
    SIM_STAGE_UPDATED,     // after the optimizer step; param -1
} SimTrainStage;
struct SimTrainer;
// Reads the trainer's model (t->model, on t->rank) at a stage; a failure
// fails the step with the message the hook left in t->rank->error.
typedef SimStatus (*SimStageHook)(void *arg, const struct SimTrainer *t, SimTrainStage stage,
                                  int param);

// The loss a step reports (the logging all_reduce of a DDP script).
typedef enum {
    SIM_LOSS_LOCAL = 0, // this rank's own loss only (rank 0's is the one shown)
    SIM_LOSS_AVG,       // dist.all_reduce(loss, op=AVG)
    SIM_LOSS_SUM,       // dist.all_reduce(loss, op=SUM) / world_size
} SimLossLog;

// What happens to an accumulation block cut short by the end of an epoch.
typedef enum {
    SIM_ACCUM_TAIL_SPAN = 0, // blocks run on into the next epoch (no tail)
    SIM_ACCUM_TAIL_STEP,     // blocks restart each epoch; the short last one steps
                             // (its loss still divided by accum, as scripts do)
    SIM_ACCUM_TAIL_DROP,     // blocks restart each epoch; the short last one does
                             // forward and backward but never steps
                             // (`if (i + 1) % accum == 0: step()`)
} SimAccumTail;

// The data side of the loop: what each rank reads, in which order, and when.
typedef struct {
    const SimDataset *set;    // read-only, shared by the ranks
    int batch;                // samples per micro-batch per rank
    int shuffle;              // DistributedSampler shuffle (PyTorch default 1)
    int drop_last;            // the loader's: drop a short last batch of each epoch
    int sampler_drop_last;    // the sampler's: cut the tail so that every rank gets
                              // floor(N/R) samples instead of padding to ceil(N/R)
    int sampler_replicas;     // 0: the sampler splits each epoch over the world's
                              // ranks; k > 0: over k replicas, rank r reading
                              // share r % k (the planner: 1, so that a small
                              // dataset fills every micro-batch of a rank that
                              // stands for thousands)
    int uneven;               // K > 0: uneven inputs: rank r has K*r/(R-1) fewer
                              // batches in each epoch (rank R-1 K fewer; ddp,
                              // accum 1); runs are counted in the longest rank's
                              // batches (sim_train_steps_for_epochs)
    int join;                 // 1: with uneven, ranks out of data shadow the
                              // others' collectives (DDP's Join); 0: they leave
                              // the loop after their last epoch
    SimStreamSeeds stream;    // SIM_STREAM_OFF: the distributed sampler; else a
                              // streaming loader drawing random batches with
                              // per-rank or shared seeds (sim/data/data_stream.h)
    SimDataStage stage;       // the input pipeline in simulated time (sim/data/data_stage.h):
                              // loader workers, prefetch, copies; all zero: none
} SimTrainData;

// The loop's shape: how many steps, accumulation, zero_grad, the logged loss.
typedef struct {
    int accum;                // micro-batches per optimizer step (>= 1)
    int64_t steps;            // optimizer steps of the whole run (a resumed run
                              // continues up to the same count)
    int64_t stop_after;       // > 0: stop after this step as if interrupted (the
                              // schedule still spans `steps`); 0: run to the end
    int accum_sync_every;     // 1: synchronise every micro-step (--accum-sync
                              // every); 0: only the last (no_sync before it)
    SimAccumTail accum_tail;  // default SIM_ACCUM_TAIL_SPAN
    int zero_grad_after_step; // 1: zero_grad right after the step (and once
                              // before the first); 0: at the start of each block
    int set_to_none;          // 1: zero_grad(set_to_none=True): gradients become
                              // None, so parameters unused until the step take
                              // no optimizer step (no momentum, no weight decay)
    int set_to_none_frees;    // with set_to_none: 1 where the gradients own their
                              // memory (single, ddp without gradient_as_bucket_view):
                              // zero_grad releases it in the ledger and backward
                              // takes each gradient's bytes back as it is produced
                              // (autograd allocates a None .grad anew); 0 where
                              // buckets or shards hold the storage
    SimLossLog loss_log;      // default SIM_LOSS_LOCAL; ignored on one rank
} SimTrainLoop;

// Files: where the weights come from and where checkpoints go.
typedef struct {
    const char *init_path;    // weights only (any safetensors with the model's tensors)
    const char *resume_path;  // a checkpoint of this run's configuration
    const char *save_path;    // written at the end, and every save_every steps
    int64_t save_every;       // 0: only at the end
} SimTrainCkpt;

// Distributed evaluation between steps.
typedef struct {
    int64_t every;            // > 0: evaluate after every `every` steps
    SimEvalVariant variant;
    int probe;                // 1: after the last step, the probe batch
                              // (sim_train_probe) on every rank
} SimTrainEval;

// The probe batch after a step, as every rank printed it: rank 0's first
// batch of the epoch, its indices broadcast from rank 0, forwarded on
// every rank in eval mode without gradients. Equal weights give equal
// probe losses, whatever each rank's own training loss was.
typedef struct {
    int64_t step;             // after this many optimizer steps
    int nranks;               // R
    int samples;              // the probe's batch size
    float *probe_loss;        // [R] each rank's loss on the probe batch (heap)
    float *train_loss;        // [R] each rank's own loss of its last step (heap)
} SimProbeStats;
typedef void (*SimProbeCallback)(void *arg, int rank, const SimProbeStats *s);

// The caller's hooks into the loop, each with its own argument; all may be NULL.
typedef struct {
    SimReadyCallback on_ready; // after set-up, before the first step
    void *on_ready_arg;
    SimStepCallback on_step;  // after every optimizer step
    void *on_step_arg;
    SimEvalCallback on_eval;  // after every evaluation
    void *on_eval_arg;
    SimProbeCallback on_probe; // after the probe batch (eval.probe)
    void *on_probe_arg;
    SimGradHook on_grad;      // during backward, as each gradient is complete
    void *on_grad_arg;
    SimSyncFn sync;           // after the strategy's sync, before unscaling
    void *sync_arg;           // (the parameter-server worker grabs its gradients)
    // Asked on each rank's thread at the start of every step: nonzero stops
    // the rank there with SIM_EINTR, before the step touches any state (a
    // Ctrl-C: cli/run/run_signal.h). Ranks waiting in a collective are
    // stopped by cancelling the world (sim_world_cancel), not by this.
    int (*should_stop)(void *arg);
    void *should_stop_arg;
    SimStageHook on_stage;    // the step's tensors at each stage (strategies with
    void *on_stage_arg;       // their own micro_step, FSDP and the ZeRO stages,
                              // report no GRAD_LOCAL)
} SimTrainHooks;

typedef struct SimTrainConfig {
    SimModelSpec model;
    uint64_t seed;            // initial weights and the shuffle order
    SimRngKind rng;           // the generator both are drawn from (ddplab's default,
                              // or PyTorch's: sim_model_init_torch, the sampler's rng)
    int init_seed_per_rank;   // 1: rank r draws its initial weights with seed + r
                              // (as processes seeded differently do)
    SimTrainData data;
    SimTrainLoop loop;
    SimOptimFlags opt;        // optimizer, schedule, clipping and mixed precision
                              // (opt.amp), validated (sim_optim_flags_validate)
    int want_grad_norm;       // compute the norm even without clipping
    SimTrainCkpt ckpt;
    SimTrainEval eval;
    const SimStrategyOps *strategy; // NULL: --strategy single (no callbacks)
    const void *strategy_cfg;       // the strategy's options
    const struct SimFaultPlan *faults; // injected faults (sim/engine/fault.h); NULL: none
    SimTrainHooks hooks;
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
// Batches per epoch on each of nranks ranks (each reads the whole dataset
// with the no-sampler fault in c->faults), and the optimizer steps of
// `epochs` epochs (the accumulation groups batches; a partial group at the
// end of the run is not taken; with an accum_tail mode each epoch's short
// last block counts as a step (step) or not (drop)).
int64_t sim_train_batches_per_epoch(const SimTrainConfig *c, int nranks);
int64_t sim_train_steps_for_epochs(const SimTrainConfig *c, int nranks, int64_t epochs);

// One rank's training state.
struct SimTrainer {
    const SimTrainConfig *cfg;
    SimModel *model;
    SimOptim optim;
    SimGradScaler scaler;
    SimSampler sampler;
    SimDataStream stream;      // the streaming loader (idx NULL when off)
    SimLoader loader;
    SimLrSchedule sched;
    uint8_t *has_grad;     // [nparams]: torch's `p.grad is not None`
    uint8_t *grad_held;    // [nparams]: 1 where the ledger holds the gradient's
                           // bytes (cfg->loop.set_to_none_frees; else all 1)
    int64_t step;          // optimizer steps taken
    int64_t epoch, batch;  // where the next batch comes from
    int64_t samples;       // samples this process trained on
    double wall_s;         // wall time spent in steps by this process
    int resumed;           // 1: restored from cfg->ckpt.resume_path
    int64_t start_step;    // step at the start of this process
    void *strategy;        // the strategy's state on this rank (cfg->strategy)
    SimRank *rank;         // this trainer's rank (for the gradient hook)
    uint64_t capacity;     // the device capacity (see SimStrategyOps.backing_model)
    char error[2560];      // why the last call failed (a rank's error and where)
    int bad_input;         // 1: it failed because of bad input (a file, a value)
    int out_of_data;       // 1: uneven inputs without join: this rank's data ran
                           // out and it left the loop (sim_train_run returns)
    uint32_t faults_shown; // bit i: cfg->faults->f[i] has left its trace event
    SimDataStageState data_stage; // this rank's loader (cfg->data.stage); its stats
                           // outlive sim_train_free
    int stage_failed;      // 1: cfg->hooks.on_stage failed during backward (the hook
                           // cannot return a status there)
    // The timeline a checkpoint carries (sim/train/train_timeline.c).
    char **timeline;       // rank 0, at a save: every rank's record [timeline_n]
    int timeline_n;
    double timeline_sim;   // the compute clock when the records were taken
    char *resume_timeline; // --resume: this rank's record until set-up applies it
    int resume_timeline_missing; // SimTrainScalars.timeline_missing
    double resume_sim;     // --resume: the checkpoint's sim_time_s
    char note[600];        // --resume: why the simulated clock cannot go on exactly
                           // where the saved run's was (an older checkpoint,
                           // another world size or strategy), or ""
};

// Creates the model, its initial weights (seed, --init or --resume), the
// optimizer, scaler, sampler and loader. On failure t->error says why and
// sim_train_free is still safe.
SimStatus sim_train_setup(SimTrainer *t, SimRank *r, const SimTrainConfig *cfg);
// Takes one optimizer step; fills *out when not NULL. SIM_EINTR, with
// nothing changed, when cfg->hooks.should_stop says so.
SimStatus sim_train_step(SimTrainer *t, SimRank *r, SimStepStats *out);
// Batches of rank `rank` of `nranks` in each epoch of nb batches (nb less
// uneven * rank / (nranks - 1); nb without uneven inputs).
int64_t sim_train_rank_batches(const SimTrainConfig *c, int64_t nb, int rank, int nranks);
// Evaluates the model in eval mode on this rank's share of the training
// set (rank r takes samples r, r + R, r + 2R, ...: every sample exactly
// once, shards differing by at most one sample) in batches of cfg->data.batch,
// and all_reduces the results as cfg->eval.variant says. The model is back
// in training mode afterwards.
SimStatus sim_train_evaluate(SimTrainer *t, SimRank *r, SimEvalStats *out);
// The probe batch (SimProbeStats) on every rank, after the step whose own
// loss was `train_loss`; out's arrays are the caller's to free
// (sim_train_probe_free). Every rank calls it at the same point: the
// broadcast is a collective.
SimStatus sim_train_probe(SimTrainer *t, SimRank *r, float train_loss, SimProbeStats *out);
void sim_train_probe_free(SimProbeStats *s);
// Writes a checkpoint of the whole training state to path.
SimStatus sim_train_save(SimTrainer *t, SimRank *r, const char *path);
void sim_train_free(SimTrainer *t, SimRank *r);

// The whole run on one rank, as a SimRankMain: arg is an array of
// SimTrainer, one per rank, each with its cfg set (the rest is filled here).
// Set-up, on_ready, steps up to cfg->loop.steps with on_step and the periodic
// saves, the final save (rank 0 writes). Nothing is freed: the caller reads
// the state, then calls sim_train_free for each rank.
SimStatus sim_train_run(SimRank *r, void *arg);

#endif
