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
// Restores the state saved in t->cfg->resume_path into a set-up trainer.
// Everything is checked before anything changes.
SimStatus sim_train_restore(SimTrainer *t, SimRank *r);

#endif
