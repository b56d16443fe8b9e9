// sim/engine/backend.h: the backend interface, one const table of function pointers
// per backend (in the manner of sqlite3_vfs). sim/ knows a backend only
// through the table it is handed; the registry of compiled-in backends lives
// in cli/, where the parts are put together.
//
// Callers never use the table directly: they go through the wrappers in
// sim/engine/comm.h, which validate, advance the simulated clocks and trace.
#ifndef DDPLAB_SIM_BACKEND_H
#define DDPLAB_SIM_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"     // defines: sim_wall_now (the clock of measured times)
#include "base/status.h"    // defines: SimStatus
#include "coll/coll.h"      // defines: SimCollArgs
#include "coll/schedule.h"  // defines: SimSched
#include "engine/kernels.h" // defines: SimMathOps

#define SIM_BACKEND_VERSION 2

typedef struct SimRank SimRank;

// Options only some backends read (the cpu backend ignores them all). Kept in
// one struct so that sim/ passes them through without knowing their meaning.
typedef struct {
    int allow_tf32;        // cuda: 1 lets cuBLAS use TF32 tensor cores for fp32
                           // matrix products (faster, ~10-bit mantissa inputs);
                           // 0 (default): full fp32, comparable with the cpu
    const char *coll_impl; // cuda: which collectives run. NULL or "auto"
                           // (default): NCCL when every rank has a GPU of its
                           // own, else ddplab's device-memory implementation of
                           // the same schedules; "nccl"; "device"
    const char *rendezvous; // cuda, several processes: NULL (default) = one
                           // process drives every rank; otherwise the spec of
                           // `--rendezvous` (backend_cuda/cuda_rdzv.h)
} SimBackendOptions;

typedef struct {
    int nranks;          // ranks in the world
    int nodes;           // nodes x ranks_per_node == nranks
    int ranks_per_node;
    double watchdog_s;   // a rank waiting longer than this in a collective fails it
    int phantom;         // 1: collectives move no data (NULL buffers): schedules,
                         // rendezvous and clocks only (SimWorldConfig.phantom)
    int represent;       // 1: run rank 0 only (SimWorldConfig.represent); a
                         // backend that cannot refuses at init
    SimBackendOptions opt; // SimWorldConfig.backend_opt
    SimAlgo algo;        // SimWorldConfig.algo: on cuda with NCCL, NCCL_ALGO for its
                         // communicators (ring: "Ring", dbtree: "Tree"; others:
                         // NCCL's tuner, or NCCL_ALGO as the environment has it)
} SimBackendConfig;

// One collective call as one rank sees it. Filled by sim/ before launch.
typedef struct {
    SimCollArgs args;    // algo already resolved (never AUTO)
    SimSched sched;      // the schedule of args (valid for every kind but send/recv/barrier)
    uint64_t seq;        // this rank's collective sequence number (p2p: per-peer sequence)
    double arrive_sim;   // in: simulated time at which this rank reached the call
    double start_sim;    // out: latest arrival among the participants; the
                         // backend sets it before reporting any step
    SimRank *rank;       // the calling rank (for sim_coll_report_step)
    double gpu_wall_start, gpu_wall_end; // out, optional: when the collective ran on
                         // the device, from the backend's own timing events, on
                         // the sim_wall_now() clock; both 0: not measured (the
                         // trace then keeps the host's launch-to-wait times)
    double step_cursor;  // private to sim/: simulated end of the last reported step
    int steps_reported;  // private to sim/
} SimCollCall;

// A launched collective, owned by the caller; it must stay at the same address
// until sim_coll_wait returns.
typedef struct {
    SimCollCall call;
    void *impl;          // backend-owned (NULL when the backend ran it inline)
    int launched;
    int done;
    double sim_end;      // simulated end time, known at launch
    double wall_start;
    int injected;        // private to sim/ (sim/engine/comm_fault.h): what an injected
                         // fault did to this call (SIM_COMM_FAULT_*), 0: nothing
} SimCollHandle;

typedef SimStatus (*SimRankEntry)(int rank, void *arg);

typedef struct SimBackendOps {
    const char *name;         // "cpu", "cuda"
    int version;              // SIM_BACKEND_VERSION
    const char *description;  // one line for --help and the registry listing

    // Lifecycle. init writes a one-line reason into err on failure (e.g. "no
    // CUDA device: cudaGetDeviceCount returned ..."). finalize is safe on NULL.
    SimStatus (*init)(const SimBackendConfig *cfg, void **ctx, char *err, size_t errlen);
    void (*finalize)(void *ctx);
    // The last diagnosed failure (watchdog, protocol mismatch) in full, or "".
    const char *(*last_error)(void *ctx);

    // Runs entry(rank, arg) once per rank, concurrently, and returns when all
    // have returned: the first non-OK status, or SIM_OK.
    SimStatus (*run_ranks)(void *ctx, SimRankEntry entry, void *arg);

    // Memory owned by one rank (host memory on cpu, device memory on cuda).
    void *(*alloc)(void *ctx, int rank, size_t bytes);
    void (*free)(void *ctx, int rank, void *p);
    SimStatus (*copy_to_device)(void *ctx, int rank, void *dst, const void *src, size_t bytes);
    SimStatus (*copy_to_host)(void *ctx, int rank, void *dst, const void *src, size_t bytes);

    // Collectives: launch (may run inline), then wait. On a protocol violation
    // or a watchdog timeout the backend stops every rank's current and future
    // collectives with an error instead of hanging, and last_error says why.
    SimStatus (*coll_launch)(void *ctx, int rank, SimCollHandle *h);
    SimStatus (*coll_wait)(void *ctx, int rank, SimCollHandle *h);

    // Waits for everything this rank launched (optional: NULL means no-op).
    SimStatus (*synchronize)(void *ctx, int rank);

    // The kernels of sim/engine/kernels.h (NULL: this backend has no math yet).
    const SimMathOps *math;

    // Optional (NULL: not supported). Called on a rank's own thread when an
    // injected fault crashes it (sim/engine/fault.h): from then on the rank takes
    // part in nothing, as a dead process would, and the flight recorder says
    // it crashed. Returns once the world is aborted (the peers' watchdog) or
    // every other rank has returned, so that the rank's buffers stay valid
    // while peers might still read them; the rank then returns SIM_ECRASHED.
    SimStatus (*rank_crash)(void *ctx, int rank);
    // Optional. Stops the world from any thread but a signal handler (e.g.
    // on Ctrl-C): every rank's current and future collectives fail with
    // SIM_EABORTED at once, and last_error says `why` if nothing failed first.
    void (*cancel)(void *ctx, const char *why);
    // Optional. One line on how this world runs on the hardware, e.g. "4 ranks
    // on 1 GPU, collectives: ddplab-device" (the trace's title and the run
    // report show it); NULL or "": nothing to say.
    const char *(*describe)(void *ctx);
    // Optional. The device that holds `rank` and the memory in use on it, as
    // the driver reports it (cuda: cudaMemGetInfo, total - free), in bytes.
    SimStatus (*mem_info)(void *ctx, int rank, int *device, uint64_t *used, uint64_t *total);
    // Optional. The model name of the device that holds `rank`, as its driver
    // reports it (cuda: cudaDeviceProp.name, e.g. "NVIDIA H200"), into buf
    // (len bytes, always terminated). `ddplab bench --calibrate` names the
    // device it measured with it.
    SimStatus (*device_name)(void *ctx, int rank, char *buf, size_t len);
    // Optional, both or neither: device timing of math ops. op_begin is
    // called on the rank's thread once an op's arguments are checked and
    // before its kernels are enqueued (cuda: a timing event on the compute
    // stream). After the op returned SIM_OK, op_times gives when its kernels
    // began and ended on the device, on the sim_wall_now() clock, and returns
    // 1; 0 when it has no such times (the trace then keeps the host's).
    void (*op_begin)(void *ctx, int rank);
    int (*op_times)(void *ctx, int rank, double *wall_start, double *wall_end);
} SimBackendOps;

// Called by a backend after it finished step `step` of call->sched on this
// rank, with measured wall times (seconds, from sim_wall_now). Appends the
// step event and one event per transfer to the trace, with simulated times
// from the cost model. Steps must be reported in order.
void sim_coll_report_step(SimCollCall *call, int step, double wall_start, double wall_end);

#endif
