// cli/run/run_elastic.h: what run_once (cli/run/run_once.c) asks of an elastic round
// when RunOptions.elastic_round is set: stopping the world for a membership
// change, recording how far it got and who crashed, and adding its trace to
// the run's one trace. The agent itself is cli/run/run_elastic.c.
#ifndef DDPLAB_CLI_RUN_ELASTIC_H
#define DDPLAB_CLI_RUN_ELASTIC_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine/world.h"     // defines: SimWorld
#include "strategy/elastic.h" // defines: SIM_ELASTIC_MAX
#include "trace/trace.h"      // defines: SimTrace
#include "train/train.h"      // defines: SimTrainConfig, SimTrainer

typedef struct RunElasticRound {
    // set by the agent before the round
    int64_t stop_before;      // > 0: the world stops before this step (a join); 0: never
    SimTrace *combined;       // the run's one trace (NULL: no --trace)
    double offset_s;          // added to this round's simulated times in it
    double wall_offset_s;     // added to its wall times (the rounds before it)
    // filled while the round runs (rank 0's thread writes, read after)
    atomic_int stop;          // 1: the ranks stop at the start of their next step
    int64_t last_step;        // the last step rank 0 finished
    double *step_sim;         // [steps + 1]: rank 0's simulated time at the end of step s
    int64_t nsteps;           // its length - 1
    SimStepCallback prev_on_step;
    void *prev_on_step_arg;
    int (*prev_should_stop)(void *);
    void *prev_should_stop_arg;
    // filled when the round ends
    int stopped;              // 1: the world stopped for the membership change
    int nranks;
    uint8_t crashed[SIM_ELASTIC_MAX]; // rank r died of an injected crash
    double end_sim;           // the latest simulated time of any rank (its own clock)
    double start_sim;         // the earliest event's simulated time (its own clock)
    double wall_end;          // the latest event's wall time (its own clock)
    size_t events;            // events it added to the trace
    char *diagnosis;          // the world's diagnosis when it failed with one
                              // (heap, the agent's to free; NULL: none)
} RunElasticRound;

// After run_once's callbacks and signal hooks are installed: chains the
// round's own on_step and should_stop in front of them.
void run_elastic_round_begin(RunElasticRound *er, SimTrainConfig *c);
// After the ranks returned: records who crashed and where the world ended,
// and keeps the world's diagnosis of a failure. A world stopped for a
// membership change is not a failure: SIM_OK then, else st unchanged.
SimStatus run_elastic_round_end(RunElasticRound *er, const SimWorld *w, const SimTrainer *t,
                                SimStatus st);
// The world's trace into the combined trace, shifted by offset_s (instead
// of writing the file): CLI_EXIT_OK or CLI_EXIT_INTERNAL.
int run_elastic_round_trace(RunElasticRound *er, const SimWorld *w);

#endif
