// cli/run/run_compare.h: one configuration run twice (two backends, or two sets
// of settings) and compared tensor by tensor: `ddplab run --compare-backends
// A,B` and `--compare-with OPTIONS`. Private to the run command.
//
// Each side's run records, through the trainer's stage hook (sim/train/train.h),
// what every rank holds at each stage of each step:
//   stage 0 INIT     the parameters before the first step
//   stage 1 LOCAL    each parameter's local gradient (before any collective)
//   stage 2 SYNCED   the gradients after the strategy's sync
//   stage 3 UPDATED  the parameters after the optimizer step
// (FSDP and the ZeRO stages: stages 0, 2 and 3 are each rank's shards, put
// at their places in the full layout with zeros elsewhere; stage 1 is the
// unsharded local gradient, as for DDP.)
// as one 64-bit hash per (step, stage, rank, parameter), the values
// themselves for step 1, and the final parameters. Comparing the hashes
// finds where bits first differ; the stage says what made the difference
// (the kernels, the collective, the optimizer) and the settings that differ
// between the sides say which part of it (run_compare_report.c).
#ifndef DDPLAB_CLI_RUN_COMPARE_H
#define DDPLAB_CLI_RUN_COMPARE_H

#include <pthread.h>
#include <stdint.h>

#include "run/run.h" // defines: RunOptions, SimTrainConfig, SimWorld

enum { RUN_CMP_STAGES = 4 };
enum { RUN_CMP_MAX_STEPS = 100000 }; // steps whose hashes are kept

typedef struct RunCompareSide {
    const RunOptions *o;      // this side's options
    char label[200];          // what this side is, for the report
    char describe[160];       // the backend's own description of the world ("" if none)
    pthread_mutex_t lock;     // guards the lazy set-up at INIT
    int ready;                // 1: the arrays below are allocated
    int nranks, nparams;
    int64_t total;            // elements of the flat parameter buffer
    int64_t steps_cap;        // steps whose hashes fit (<= RUN_CMP_MAX_STEPS)
    int64_t *steps_done;      // [nranks] last step each rank recorded
    char (*names)[96];        // [nparams] (SIM_NAME_MAX)
    int64_t *offset, *numel;  // [nparams]
    uint64_t *hash;           // [(steps_cap + 1) * STAGES * nranks * nparams]
    float *step1;             // [STAGES][nranks][total]: INIT, and step 1's stages
    float *last;              // [nranks][total]: the latest parameters (UPDATED)
    float *local;             // [nranks][total]: this step's local gradients so far
    uint64_t *layout;         // [nranks] hash of the rank's shard placement (FSDP and
                              // ZeRO: the parameters and synchronised gradients are
                              // read from the shards, zero outside); 0: not sharded
    char error[256];          // why recording failed ("" if it did not)
} RunCompareSide;

// Called by run_once once the world exists: sets c's stage hook to record
// into s and notes the world's description.
void run_compare_side_begin(RunCompareSide *s, SimTrainConfig *c, SimWorld *w);
// Frees what a side recorded.
void run_compare_side_free(RunCompareSide *s);
// The hash of (step, stage, rank, param).
uint64_t *run_compare_hash_at(const RunCompareSide *s, int64_t step, int stage, int rank,
                              int param);
// The report of two recorded sides (run_compare_report.c); returns the
// largest ULP distance of a final parameter (0: identical).
uint64_t run_compare_report(const RunCompareSide *a, const RunCompareSide *b,
                            const char *const *extra, int nextra);

#endif
