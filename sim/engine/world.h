// sim/engine/world.h: a world of R ranks on one backend, and the per-rank state that
// the wrappers in sim/engine/comm.h advance: simulated stream clocks, collective
// sequence numbers, the trace.
#ifndef DDPLAB_SIM_WORLD_H
#define DDPLAB_SIM_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "cost/cost.h"      // defines: SimSysProfile, SimCost
#include "engine/backend.h" // defines: SimBackendOps, SimCollCall
#include "engine/memory.h"  // defines: SimMemLedger
#include "trace/trace.h"    // defines: SimTrace, SimStream

typedef struct {
    int nranks;              // default 4
    int nodes;               // default 1; ranks_per_node = nranks / nodes
    double watchdog_s;       // default 5 seconds of wall time
    SimSysProfile profile;   // cost model; default the "dgx-h100" system
    SimDeviceProfile device; // compute device of every rank; all zero (the
                             // default) means sim_device_default()
    int trace;               // 1: record a trace (default 1)
    size_t trace_max_per_rank; // 0 = unlimited (default 1,000,000)
    // Phantom mode (DESIGN.md section 4): every tensor allocated through
    // sim_tensor_alloc is shape-only (no storage, still charged to the
    // ledger), ops skip their math, and collectives run their schedules and
    // clocks without moving data (their buffers are NULL). Default 0.
    // A numeric and a phantom run of one configuration trace the same
    // events (bit for bit but for wall times) and end with the same ledgers
    // (tests/test_phantom.c); host reads of device data give the host
    // buffer back unchanged, so losses are 0, norms 0, no inf is found.
    int phantom;
    // 1: only rank 0 runs; the other ranks are taken to do exactly what it
    // does (phantom mode of a symmetric strategy, as `ddplab plan` runs it
    // on the "sym" backend, backend_cpu/cpu_sym.c). Needs phantom = 1; a
    // backend that runs every rank refuses it. w->ranks and the trace keep
    // nranks entries, of which only rank 0's are used. Default 0.
    int represent;
    uint64_t device_memory;  // each rank's device capacity in bytes for the
                             // memory ledger; 0 = unlimited (default)
    const struct SimFaultPlan *faults; // injected faults (sim/engine/fault.h), owned by
                             // the caller and read-only while ranks run;
                             // NULL: none (default)
    SimBackendOptions backend_opt; // backend-specific options (sim/engine/backend.h);
                             // all zero (default): each backend's defaults
    // The algorithm of the collectives the strategies launch: DDP's buckets
    // and broadcasts, FSDP's gathers and reductions, DataParallel's and the
    // layer owners' broadcasts and reduces (sim/strategy/). The world is the
    // one place that holds it, so that every strategy and the backend (NCCL_ALGO
    // on GPUs) agree. The training loop's own collectives (the logged loss,
    // evaluation) keep SIM_ALGO_AUTO. Default SIM_ALGO_AUTO.
    SimAlgo algo;
} SimWorldConfig;

void sim_world_config_default(SimWorldConfig *c);

typedef struct SimWorld SimWorld;

struct SimRank {
    SimWorld *world;
    int rank;
    double clock[SIM_STREAM_COUNT]; // simulated time each stream is busy until
    uint64_t coll_seq;              // collectives this rank has launched
    uint64_t *p2p_seq;              // [2*nranks]: messages sent to each peer, then
                                    // messages received from each peer (allocated
                                    // on first use)
    uint64_t mem_bytes;             // live bytes allocated through sim_tensor_alloc
    uint64_t mem_peak;              // the most mem_bytes has been
                                    // (mem_bytes/mem_peak: storage this
                                    // process really holds; the ledger: what
                                    // the modelled run holds, by category)
    SimMemLedger mem;               // the memory ledger (sim/engine/memory.h)
    int64_t step;                   // the optimizer step in progress (1-based; 0
                                    // before the first), set by the training loop
    int coll_in_step;               // collectives launched so far in that step
                                    // (sim_rank_begin_step resets it)
    SimCollHandle *fault_held;      // --fault reorder: the launch held back
                                    // (sim/engine/comm_fault.c), or NULL
    uint32_t fault_shown;           // bit i: faults->f[i] has left its
                                    // "injected" event on this rank
    void *user;                     // for the code running on the rank
    int ops_on_host;                // 1: math ops run on the host CPU (CPU
                                    // offload's optimizer step): priced on
                                    // sim_device_host() and placed on the
                                    // host stream (sim_ops_end)
    double host_step_end;           // simulated end of the last such step on
                                    // the host: a step ends when it does
    int untimed;                    // 1 while sim_all_gather_untimed runs: the
                                    // backend's step reports leave no event,
                                    // and its flight recorder no history
    struct SimPriceMemo *prices;    // the cost model's answers for this rank's
                                    // collectives (sim/engine/comm_price.h;
                                    // allocated on first use)
    char error[2048];               // why this rank's last call failed, or "" (long
                                    // enough for PyTorch's own texts, which DDP
                                    // reproduces word for word)
};

struct SimWorld {
    SimWorldConfig cfg;
    int ranks_per_node;
    const SimBackendOps *ops;
    void *ctx;               // the backend's
    SimTrace *trace;         // NULL when tracing is off
    SimCost cost;
    SimRank *ranks;          // [nranks]
    double wall_epoch;       // sim_wall_now() at init
    char error[4096];        // why init or run failed
};

typedef SimStatus (*SimRankMain)(SimRank *r, void *arg);

// Validates cfg, initialises the backend and the trace. On failure the reason
// is in w->error (and sim_world_free is still safe to call).
SimStatus sim_world_init(SimWorld *w, const SimWorldConfig *cfg, const SimBackendOps *ops);
// Runs fn on every rank concurrently; returns the first failure. The backend's
// diagnosis, if any, is copied into w->error.
SimStatus sim_world_run(SimWorld *w, SimRankMain fn, void *arg);
// Stops a running world from another thread, or from a rank that fails on
// its own and would otherwise leave its peers waiting for it (not from a
// signal handler): every rank's collectives fail from now on, and
// sim_world_run returns. `why` is
// the error the run reports if nothing else failed first. A no-op when the
// backend cannot cancel.
void sim_world_cancel(SimWorld *w, const char *why);
// The backend's own diagnosis of the last failed run (the watchdog's dump,
// the protocol check's message), or "" when it made none (world_diag.c).
const char *sim_world_diagnosis(const SimWorld *w);
// Appends `text` to the trace as one SIM_EV_FAULT event labelled
// SIM_EV_DIAGNOSIS_LABEL (name = text, interned) of `rank`, at its
// simulated time (sim_rank_now); nothing without a trace, a text or a valid
// rank. Called from the thread that ran sim_world_run, after the ranks
// ended. sim_world_run itself does it when a run fails with a diagnosis
// (SIM_ETIMEDOUT, SIM_EPROTO, SIM_ECRASHED), for the rank that made it: the
// first rank that failed with SIM_ETIMEDOUT, else SIM_EPROTO, else
// SIM_ECRASHED.
void sim_world_trace_diagnosis(SimWorld *w, int rank, const char *text);
// Frees everything; safe on a zeroed or partly initialised world.
void sim_world_free(SimWorld *w);
const char *sim_world_error(const SimWorld *w);

// Seconds of wall time since the world was created.
double sim_rank_wall(const SimRank *r);

// Fills *ev as an instant event of rank r at `at` (simulated seconds) and
// the current wall time: kind, stream, name and label set, every other
// field zero, and step, nsteps, chunk, src and dst -1 (not applicable).
void sim_rank_event(SimEvent *ev, const SimRank *r, SimEventKind kind, SimStream stream,
                    const char *name, const char *label, double at);
// Marks the start of optimizer step `step` (1-based) on rank r: the step and
// collective counters that --fault specs name.
void sim_rank_begin_step(SimRank *r, int64_t step);

// The later of the rank's compute and communication clocks.
double sim_rank_now(const SimRank *r);
// Appends ev to the world's trace, if it keeps one (a full trace counts the
// drop itself).
void sim_rank_trace(SimRank *r, const SimEvent *ev);

#endif
