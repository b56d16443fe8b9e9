// tests/test_ddp_util.h: running the training loop on R CPU ranks, with or
// without --strategy ddp, and keeping what the DDP tests compare: every
// rank's final parameters and buffers, its peak memory, its error.
#ifndef DDPLAB_TESTS_DDP_UTIL_H
#define DDPLAB_TESTS_DDP_UTIL_H

#include "strategy/ddp.h"
#include "train/train.h"

#define TDDP_MAX_RANKS 8

typedef struct {
    SimTrainConfig cfg;         // filled by tddp_config; tests adjust it
    SimDdpOptions ddp;          // used when ddp = 1
    int use_ddp;                // 1: --strategy ddp
    int R;
    int nodes;                  // nodes the R ranks are spread over (0 or 1: one)
    int trace;                  // 1: keep the world's trace in events/nevents
    // Called on each rank after the run, before anything is freed (may be NULL).
    SimStatus (*after)(void *arg, SimRank *r, SimTrainer *t);
    void *after_arg;
    // results
    SimStatus st;
    char error[2560];           // the first failing rank's error
    float *params[TDDP_MAX_RANKS];
    float *buffers[TDDP_MAX_RANKS];
    size_t nparam, nbuffer;
    uint64_t mem_peak[TDDP_MAX_RANKS];
    float loss[TDDP_MAX_RANKS]; // the last step's loss on each rank
    SimEvent *events;           // rank 0's trace in its order (trace = 1)
    size_t nevents;
    double wall_s;
} TddpRun;

// A blobs dataset (n samples, 16 features, 4 classes) or an arith token
// set for a tiny gpt; sets cfg.model to fit.
SimStatus tddp_data_mlp(SimDataset *ds, int n, const char *model, SimModelSpec *spec);
SimStatus tddp_data_gpt(SimDataset *ds, SimModelSpec *spec);
void tddp_config(TddpRun *t, const SimDataset *ds, const SimModelSpec *spec, int R, int batch,
                 int64_t steps);
// The optimizer of a case: "sgd" (lr 0.1, momentum 0.9) or "adam" (lr 0.01),
// with clip_amp also gradient clipping at norm 0.5 and fp16 with a loss
// scaler; everything else at its default. 0, or 1 after printing why the
// flags were refused.
int tddp_set_optim(TddpRun *t, const char *optim, int clip_amp);
SimStatus tddp_run(TddpRun *t);
void tddp_free(TddpRun *t);
// Largest |a - b| / (1 + |b|) over n values.
double tddp_maxdiff(const float *a, const float *b, size_t n);

#endif
