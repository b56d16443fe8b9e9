// sim/strategy/async_ps.h: asynchronous data parallel with parameter servers, run as
// a discrete-event simulation in simulated time with real math.
//
// Ranks 0..S-1 are servers, ranks S..S+W-1 workers. Parameters are sharded
// parameter-wise round robin: server s owns parameter i when i % S == s.
// Worker w (rank S+w) loops `steps` times:
//   pull   each server snapshots its shard when the request arrives (its
//          version v_s is recorded), then sends it when its outgoing link is
//          free (sends from one server serialise: the server's link is the
//          bottleneck);
//   compute forward and backward on the worker's own DistributedSampler share
//          (W replicas), on the worker's rank: the cost model and a
//          --fault slow-rank of that rank decide how long it takes;
//   push   the gradient's shard to each server; arrivals at one server
//          serialise on its incoming link; the server applies each push when
//          it has arrived (the optimizer step on its shard at the configured
//          learning rate, not divided by W), its version goes up by one.
//          Staleness of the push at server s = v_s at apply - v_s at pull.
// The next pull is asked when the push has landed on every server. Events
// at the same simulated time are taken in the order apply, push, pull, then
// by worker and server index, so the run is deterministic.
//
// Stale-synchronous parallel (max_staleness K >= 0): a worker that has sent
// n pushes pulls only when n - (pushes the slowest worker has had applied)
// <= K; otherwise it waits ("ps.wait"). K = 0 is bulk synchronous: each
// server sums the W gradients of a round and applies their mean as one
// update, which is synchronous data parallel with averaging (DDP).
//
// The server's apply costs are not part of the schedule (transfers and
// worker compute are); the server ranks' optimizer ops are traced at the
// apply time.
#ifndef DDPLAB_SIM_ASYNC_PS_H
#define DDPLAB_SIM_ASYNC_PS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/world.h" // defines: SimWorld
#include "train/train.h"  // defines: SimTrainConfig

typedef enum {
    SIM_PS_ASYNC = 0, // parameter servers (max_staleness decides SSP/BSP)
    SIM_PS_DDP_CLOCK, // synchronous DDP among the W workers: BSP math, each
                      // round ends at the slowest worker's compute plus a
                      // ring all_reduce of the gradient (2(W-1) messages of
                      // 1/W of it between neighbouring workers); no servers'
                      // links. For the comparison.
} SimPsMode;

typedef struct {
    int servers;          // S >= 1
    int workers;          // W >= 1; the world has S + W ranks
    int max_staleness;    // -1: unbounded; 0: bulk synchronous (mean per round)
    SimPsMode mode;
    const SimTrainConfig *train; // model, data, batch, optimizer, seed;
                          // steps = pushes per worker; accum 1, no AMP, no clipping
} SimPsConfig;

// One push of one worker.
typedef struct {
    int worker;           // 0..W-1 (rank S + worker)
    int64_t k;            // 1 for the worker's first push
    double t_pull;        // pull asked (after any wait)
    double t_push;        // compute done, gradient sent
    double t_done;        // applied on every server
    double wait_s;        // ps.wait before the pull
    float loss;           // the batch's loss with the pulled parameters
    int staleness;        // the largest over the servers
} SimPsPush;

// One apply on one server, in the order they happened.
typedef struct {
    int server, worker;
    int64_t k;
    double t;
    int staleness;
} SimPsApply;

typedef struct {
    SimPsPush *pushes;    // [npushes] in the order they were sent
    int64_t npushes;
    SimPsApply *applies;  // [napplies] in apply order (all servers)
    int64_t napplies;
    double *finish;       // [W] when each worker's last push was applied
    double end;           // the last apply
    int64_t updates;      // optimizer updates on server 0
    float *params;        // [count] the final parameters (all shards)
    size_t count;
} SimPsResult;

// Runs the whole schedule on w (S + W ranks, not running: everything is
// driven from the caller's thread). On failure writes one line into err.
SimStatus sim_ps_run(SimWorld *w, const SimPsConfig *c, SimPsResult *out, char *err,
                     size_t errlen);
// With c->train->save_path set, sim_ps_run writes the servers' state there
// at the end (a trainer checkpoint: parameters, optimizer state, step =
// updates of server 0).
void sim_ps_result_free(SimPsResult *r);

#endif
