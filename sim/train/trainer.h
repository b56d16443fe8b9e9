// sim/train/trainer.h: what the trainer offers the strategies above it
// (sim/strategy/): failing the run with a reason, and the trainer's own part
// of a checkpoint, for a strategy that writes and reads checkpoints of its
// own layout (FSDP's sharded state dict, sim/strategy/fsdp_shards.c).
#ifndef DDPLAB_SIM_TRAINER_H
#define DDPLAB_SIM_TRAINER_H

#include "formats/checkpoint.h" // defines: SimCkpt
#include "train/train.h"

// Records why the trainer failed (bad_input = 1: a file or value the user
// gave) and returns st.
SimStatus sim_train_fail(SimTrainer *t, int bad_input, SimStatus st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
// Restores the state saved in t->cfg->ckpt.resume_path into a set-up trainer.
// Everything is checked before anything changes.
SimStatus sim_train_restore(SimTrainer *t, SimRank *r);

// The trainer's own part of a checkpoint, as sim_train_save writes it beside
// the model and the optimizer state: the step counters
// ("optimizer/state.<i>.step", I64 scalars, for parameters that have taken a
// step) and "train/has_grad" (I64 [nparams]) as host tensors, and the
// scalars and run settings (step, epoch, sampler position, scaler, optimizer
// step count, ...) as metadata. A strategy that writes checkpoints of its
// own layout (sim/strategy/fsdp_shards.c) stores this same part and reads it back
// with sim_train_part_read and sim_train_part_apply.
#define SIM_TRAIN_META_MAX 32
#define SIM_TRAIN_META_LEN 80
typedef struct {
    int nhost;
    SimStTensor *host;       // [nhost]; data points into t->optim and has_grad
    int nmeta;
    SimStMeta *meta;         // [nmeta]: the scalars, then the timeline's keys
    char values[SIM_TRAIN_META_MAX][SIM_TRAIN_META_LEN];
    char (*step_names)[48];  // [nparams] storage behind host
    int64_t *has_grad;       // [nparams]
    char (*timeline_keys)[32]; // "timeline.<k>"; the values are t's records
    char timeline_header[96];
} SimTrainPart;

// Fills p from t (the step counters of t->optim, and every rank's timeline
// record when t gathered them for this save: sim/train/train_timeline.c).
// SIM_ENOMEM leaves p empty.
SimStatus sim_train_part_make(SimTrainPart *p, const SimTrainer *t, const SimRank *r);
void sim_train_part_free(SimTrainPart *p);

// The trainer's part as read back from a checkpoint.
typedef struct {
    int64_t step, epoch, batch, opt_steps, skipped, tracker, enabled;
    double scale, sim_time;
    int64_t *param_steps;    // [nparams]
    int64_t *has_grad;       // [nparams]
    char *timeline;          // this rank's timeline record (heap), or NULL
    int timeline_missing;    // 1: the header is this run's but the record is not
                             // there; 2: memory ran out copying it
    char timeline_note[600]; // why the clock cannot resume exactly, or ""
} SimTrainScalars;

// Reads the trainer's part of c and checks it against this run (the settings
// a resumed run keeps, the step against --steps, ...). On failure records
// the reason (naming c->path) in t->error. Free s with sim_train_scalars_free,
// also after a failure.
SimStatus sim_train_part_read(SimTrainer *t, const SimCkpt *c, SimTrainScalars *s);
// Sets t's step, epoch, sampler position, scaler, has_grad and t->optim's
// step counters from s, and keeps the timeline (or the saved time) for the
// end of set-up, which puts it on r (sim/train/train_timeline.c).
void sim_train_part_apply(SimTrainer *t, SimRank *r, SimTrainScalars *s);
void sim_train_scalars_free(SimTrainScalars *s);

// save-crash: 1 when the checkpoint of step t->step to path is the one the
// process dies writing (its event is left here, on t->rank).
int sim_train_fault_save_crash(SimTrainer *t, const char *path);

#endif
