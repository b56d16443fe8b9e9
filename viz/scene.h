// viz/scene.h: the scene model. Pure functions from "the trace up to event
// i" to plain data: what every view draws. No terminal or window types, no
// layout (that is layout.h): the scene says what is true at event i, the
// layout says where it goes.
//
//   VizModel *m = viz_model_new(&trace, err, sizeof err);  // indexes once
//   VizScene *s = viz_scene_new(m);
//   VizSceneOpts o = viz_scene_opts_default();
//   viz_scene_at(m, i, &o, s);        // any i, forwards or backwards
//   ... draw s ...
//   viz_scene_free(s); viz_model_free(m);
//
// The model indexes the trace once (iterations, collectives, per-rank lanes,
// keyframes of the running state every VIZ_KEYFRAME_EVERY events), so any
// scene costs at most one keyframe's worth of replay: stepping backwards is
// as cheap as forwards, and a million-event trace stays interactive.
//
// "At event i" means: events 0..i have happened (event i is the current
// one, its caption is the narrative), the clock stands at ev[i].sim_start
// (or wall_start with the wall clock), and anything that started before
// and ends after that time is in progress.
#ifndef DDPLAB_VIZ_SCENE_H
#define DDPLAB_VIZ_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"   // defines: SimStatus
#include "engine/memory.h" // defines: SIM_MEM_CAT_COUNT
#include "vtrace.h"        // defines: VizTrace

enum {
    VIZ_KEYFRAME_EVERY = 4096, // events between keyframes of the running state
    VIZ_CAPTION_MAX = 200,     // bytes of a caption, with its NUL
    VIZ_MAX_XFERS = 256,       // transfers of one collective step kept in a scene
    VIZ_TIMELINE_MAX_COLS = 4096,
    VIZ_TIMELINE_MAX_RANKS = 16,
};

typedef struct VizModel VizModel;

// Indexes t (which must outlive the model). NULL with err set for an
// empty trace or no memory.
VizModel *viz_model_new(const VizTrace *t, char *err, size_t errlen);
// The trace grew (a live run appended events): index the new ones. Events
// appended out of order before already indexed ones are handled (the index
// is rebuilt from the first changed event).
SimStatus viz_model_sync(VizModel *m);
void viz_model_free(VizModel *m);

const VizTrace *viz_model_trace(const VizModel *m);
size_t viz_model_count(const VizModel *m); // events indexed

// Iterations: from the training loop's "iteration" markers (a trace without
// them, e.g. a benchmark, has one iteration per collective on rank 0).
int viz_model_iterations(const VizModel *m);
// Index of iteration it's first event (its "begin" marker), it in
// [0, iterations); SIZE_MAX otherwise.
size_t viz_model_iteration_start(const VizModel *m, int it);
// The iteration event i belongs to (-1 before the first).
int viz_model_iteration_of(const VizModel *m, size_t i);

// Kinds of events to jump between (] and [ in the views, the text view's
// stops, a lesson's pause points).
typedef enum {
    VIZ_JUMP_ANY = 0,
    VIZ_JUMP_ITERATION,    // an iteration begins
    VIZ_JUMP_PHASE,        // forward / backward / optimizer begins on rank 0
    VIZ_JUMP_BUCKET_LAUNCH,// a DDP bucket's all_reduce is launched (any rank)
    VIZ_JUMP_BUCKET_DONE,
    VIZ_JUMP_COLL,         // a collective starts (its first rank's COLL event)
    VIZ_JUMP_COLL_STEP,    // a step of a collective algorithm (rank 0's)
    VIZ_JUMP_GATHER,       // an FSDP unit's all-gather is issued (rank 0's)
    VIZ_JUMP_FREE,         // an FSDP unit is resharded (rank 0's)
    VIZ_JUMP_REDUCE,       // an FSDP unit's gradient reduction (rank 0's)
    VIZ_JUMP_MEMORY_PEAK,  // a rank's device memory reaches a new peak
    VIZ_JUMP_MARKER,       // any marker other than iteration / phase
    VIZ_JUMP_FAULT,
    VIZ_JUMP_COUNT
} VizJump;

// "any", "iteration", "phase", "bucket-launch", "bucket-done", "coll",
// "coll-step", "gather", "free", "reduce", "memory-peak", "marker",
// "fault"; and back (-1 for an unknown name).
const char *viz_jump_name(VizJump k);
int viz_jump_parse(const char *name);
// 1 when event i is of kind k (as the jumps count it).
int viz_model_is(const VizModel *m, size_t i, VizJump k);
// The first event of kind k after i (dir = +1) or before i (dir = -1);
// SIZE_MAX when there is none. i = SIZE_MAX with dir = +1 starts before 0.
size_t viz_model_next(const VizModel *m, size_t i, VizJump k, int dir);

// Plots, over the whole trace: the loss at each iteration's end marker
// (x = iteration, y = loss), and rank r's device memory after each memory
// event (x = simulated seconds, y = bytes; the ledger's total). The arrays
// belong to the model and stay valid until the next sync or free.
size_t viz_model_loss(const VizModel *m, const double **x, const double **y);
size_t viz_model_memory(const VizModel *m, int rank, const double **x, const double **y);
// Rank r's device memory by category after each of its memory events (the
// points of viz_model_memory; scene_memcats.c): n points, x[n] in
// simulated seconds, bytes[n][c] the bytes of category c (SIM_MEM_*;
// SIM_MEM_BACKING is 0: it is not the run's memory). Allocated here:
// release with viz_mem_cats_free. SIM_EINVAL for a rank not in the trace,
// SIM_ENOMEM.
typedef struct {
    size_t n;
    double *x;                          // [n]
    double (*bytes)[SIM_MEM_CAT_COUNT]; // [n][SIM_MEM_CAT_COUNT]
} VizMemCats;
SimStatus viz_model_memory_cats(const VizModel *m, int rank, VizMemCats *out);
void viz_mem_cats_free(VizMemCats *c);

// ---------------------------------------------------------------------------
// The scene

typedef enum {
    VIZ_PHASE_IDLE = 0,
    VIZ_PHASE_FORWARD,
    VIZ_PHASE_BACKWARD,
    VIZ_PHASE_OPTIMIZER,
    VIZ_PHASE_EVAL,
    VIZ_PHASE_COMM,     // the compute stream is idle, a collective runs
    VIZ_PHASE_WAIT,     // blocked until a collective (or a peer) finishes
    VIZ_PHASE_COUNT
} VizPhase;
const char *viz_phase_name(VizPhase p); // "idle", "forward", ..., "waiting"

typedef struct {
    VizPhase phase;
    const char *op;           // the compute op in progress or last run (may be NULL)
    const char *coll;         // the collective in flight on this rank, or NULL
    int64_t mem[SIM_MEM_CAT_COUNT]; // device bytes by category now (backing left out)
    int64_t mem_total, mem_peak;    // device bytes now, and the peak so far
    int64_t host_total;             // host-space bytes now (CPU offload)
    double clock;             // the rank's simulated time at its last event
} VizRankBox;

typedef enum {
    VIZ_BUCKET_EMPTY = 0, // no gradient in it yet this iteration
    VIZ_BUCKET_FILLING,   // some of its gradients are ready
    VIZ_BUCKET_WAITING,   // full, but an earlier bucket has not launched yet
    VIZ_BUCKET_REDUCING,  // its all_reduce is in flight
    VIZ_BUCKET_DONE,      // reduced and waited for
    VIZ_BUCKET_STATE_COUNT
} VizBucketState;
const char *viz_bucket_state_name(VizBucketState s); // "empty", "filling", ...

typedef struct {
    const char *name;  // the parameter's name
    int bucket;        // its bucket in the current plan
    uint64_t bytes;
    int ready;         // ranks on which its gradient is ready this iteration
} VizParam;

// A bucket as one rank sees it (VizScene.bucket_rank), with a summary of
// the ranks that are somewhere else with it: the trace lists ranks one
// after the other, so even ranks in lockstep differ for a few events at
// each launch, and a straggler differs for long.
typedef struct {
    VizBucketState state; // on bucket_rank
    int first, nparams;   // its parameters: params[first .. first+nparams)
    uint64_t bytes;
    int nready;           // its parameters ready on bucket_rank
    double progress;      // of its all_reduce, 0..1 (REDUCING), 1 when DONE
    // Ranks in bucket_rank's iteration whose state or count of ready
    // gradients differs from its (0: every rank agrees). The group shown is
    // the least advanced of them when one is behind bucket_rank (behind = 1),
    // else the most advanced: other_n ranks, from other_lo to other_hi, each
    // at other_state with other_ready gradients ready.
    int ndiffer;
    int other_lo, other_hi, other_n; // -1, -1, 0 when ndiffer = 0
    VizBucketState other_state;
    int other_ready;
    int behind;
} VizBucket;

// Where the plan the buckets follow comes from.
typedef enum {
    VIZ_PLAN_INITIAL = 0, // made at construction (PyTorch's iteration-0 plan)
    VIZ_PLAN_REBUILT,     // made again from the order the gradients became ready
    VIZ_PLAN_INFERRED,    // no plan in the trace: made up from its "ready" events
} VizPlanKind;

// The order of the parameters in it, from their indices (definition order).
typedef enum {
    VIZ_ORDER_OTHER = 0,  // none of the below
    VIZ_ORDER_PARAMS,     // definition order (the iteration-0 single bucket)
    VIZ_ORDER_REVERSED,   // buckets in reverse definition order (a plan built
                          // at construction with size limits)
    VIZ_ORDER_READY,      // the order the gradients became ready (rebuilt)
} VizPlanOrder;

typedef enum {
    VIZ_TOPO_RING = 0,  // ring algorithms: chunks pass to the next rank
    VIZ_TOPO_TREE,      // tree: parents and children
    VIZ_TOPO_STAR,      // naive / master: everything through one root
    VIZ_TOPO_DIRECT,    // every rank to every rank
    VIZ_TOPO_CHAIN,     // a pipeline chain
} VizTopo;

typedef struct {
    int src, dst, chunk;
    int reduce;         // 1: the receiver adds the chunk; 0: copies it
} VizXfer;

// The collective that runs at the cursor (or ran last).
typedef struct {
    int active;          // 0: no collective has run yet
    int running;         // 1: in flight at the cursor
    const char *name;    // "AllReduce", ...
    int coll, algo;      // SimCollKind, SimAlgo
    VizTopo topo;
    int root;            // star / tree root, -1 otherwise
    uint64_t bytes, seq;
    int step, nsteps;    // the step in flight (0-based), -1 between steps
    double step_t0, step_t1; // that step's simulated start and end (for
                             // animating chunks between them)
    const char *step_label; // "reduce-scatter", "all-gather", "broadcast", ...
    int phase_step, phase_steps; // that step within its phase (the steps that
                             // share its label), from 0, of phase_steps; -1, 0
                             // when unknown (the captions count the same way)
    int nxfer;
    VizXfer xfer[VIZ_MAX_XFERS]; // the transfers of that step
    // What each rank holds of each chunk: bit k of held[r * nchunks + c] set
    // when rank k's contribution is summed into rank r's copy of chunk c
    // (ranks >= 64 are counted in nheld only). nchunks = 0 when the
    // collective has no chunked steps.
    int nchunks;
    uint64_t *held;      // [nranks * nchunks] (scene-owned)
    int *nheld;          // [nranks * nchunks] contributions counted
    int bucket;          // the DDP bucket it reduces, -1
    int unit;            // the FSDP unit it gathers or reduces, -1
    double progress;     // 0..1 of the whole collective at the cursor
    double t0, t1;       // simulated start (first rank in) and end
} VizColl;

typedef enum {
    VIZ_SHARD_SHARDED = 0, // only the shard (the unit's parameters are freed)
    VIZ_SHARD_GATHERING,   // all-gather issued
    VIZ_SHARD_GATHERED,    // whole unit present, ready to compute
    VIZ_SHARD_REDUCING,    // its gradient is being reduce-scattered
    VIZ_SHARD_REDUCED,     // gradient shard updated (and parameters freed)
    VIZ_SHARD_STATE_COUNT
} VizShardState;
const char *viz_shard_state_name(VizShardState s);

// A column of the ownership grid: an FSDP unit, or for FSDP2 one parameter
// of a unit (per_param), which takes its unit's state.
typedef struct {
    const char *name;   // the unit's modules, "blocks.0"; FSDP2: the parameter's name
    uint64_t bytes;     // padded bytes of the whole flat parameter (FSDP2: of the parameter)
    uint64_t numel;     // elements; FSDP2: rows (dim 0)
    int unit;           // FSDP2: the unit it belongs to; -1: the column is a unit
    int held;           // FSDP2: shards that hold rows (the others only padding); 0: all
} VizUnit;

typedef struct {
    int nunits;         // columns; 0: not an FSDP run
    int group;          // shard group size (ranks that share one copy)
    int per_param;      // 1: FSDP2, a column per parameter (units[] are parameters)
    VizUnit *units;     // [nunits]
    uint8_t *state;     // [nunits * nranks] VizShardState
    int current;        // the unit whose event is at the cursor, -1
} VizShards;

// DataParallel: device 0 drives every step.
typedef struct {
    int active;         // 1: a DataParallel run
    const char *step;   // the last marker: "dp.scatter", "dp.replicate", ...
} VizHub;

// One column of a timeline lane: what filled most of that slice of time.
typedef enum {
    VIZ_CELL_IDLE = 0,
    VIZ_CELL_FORWARD,
    VIZ_CELL_BACKWARD,
    VIZ_CELL_OPTIMIZER,
    VIZ_CELL_OTHER,     // compute that is none of the above (casts, fills, eval)
    VIZ_CELL_COMM,      // communication overlapped with compute
    VIZ_CELL_EXPOSED,   // communication while the compute stream is idle
    VIZ_CELL_HOST,      // host copies (offload)
    VIZ_CELL_KIND_COUNT
} VizCellKind;

typedef struct {
    int nranks;           // lanes shown (opts.timeline_ranks)
    int ranks[VIZ_TIMELINE_MAX_RANKS];
    int ncols;
    double t0, t1;        // the window, seconds on the chosen clock
    int cursor_col;       // the cursor's column, -1 outside the window
    // [nranks * ncols] each: the compute lane and the communication lane.
    uint8_t *compute, *comm; // VizCellKind (scene-owned)
    double exposed_s;     // exposed communication in the window, rank ranks[0]
} VizTimeline;

typedef struct {
    int use_wall;          // 1: wall clock instead of simulated
    int timeline_cols;     // 0: no timeline; else columns (<= VIZ_TIMELINE_MAX_COLS)
    int ntimeline_ranks;   // 0: ranks 0..min(R, 4)-1 around the selected rank
    int timeline_ranks[VIZ_TIMELINE_MAX_RANKS];
    double window;         // seconds shown; 0 = the cursor's whole iteration
    int selected_rank;     // the rank the views focus on (rank 0 by default)
} VizSceneOpts;

VizSceneOpts viz_scene_opts_default(void);

typedef struct {
    size_t index;          // the cursor (event index)
    size_t count;          // events in the trace
    int iteration, iterations;
    double now;            // the clock at the cursor, seconds
    int nranks;
    const SimTraceInfo *info;
    const SimEvent *event; // the event at the cursor
    char caption[VIZ_CAPTION_MAX]; // what the event means, in a sentence
    const char *detail;    // lines shown under the caption, or NULL: the run's
                           // diagnosis (sim/trace/trace.h SIM_EV_DIAGNOSIS_LABEL) at
                           // that event and at the trace's first fault event
                           // (viz_detail); owned by the trace
    VizRankBox *ranks;     // [nranks]
    int nparams, nbuckets; // 0: no DDP bucket plan
    VizParam *params;      // [nparams] in bucket order
    VizBucket *buckets;    // [nbuckets]
    int bucket_rank;       // the rank whose view the buckets are (the selected one)
    VizPlanKind plan_kind;
    VizPlanOrder plan_order;
    int plan_iteration;    // the iteration the plan was made in (-1: before the first)
    VizColl coll;
    VizShards shards;
    VizHub hub;
    VizTimeline timeline;
    double loss;           // the last logged loss (NaN before the first)
} VizScene;

// What one shard of a unit is, as the ownership titles name it: "each
// unit's flat parameter in " (FSDP1, ZeRO) or, for fsdp2, which has no flat
// parameter, "each parameter's rows (dim 0) in " (a rank's shard of a unit
// is its chunk of every parameter in it).
const char *viz_shards_whole(const VizScene *s);
// The unit that column col of the ownership grid stands for (FSDP2: its
// parameter's unit; otherwise col itself), and whether that unit is the
// one at the cursor (FSDP2: every parameter of it is).
int viz_shards_unit(const VizShards *sh, int col);
int viz_shards_is_current(const VizShards *sh, int col);

VizScene *viz_scene_new(const VizModel *m);
// Fills s for event i (< viz_model_count). SIM_EINVAL for i out of range,
// SIM_ENOMEM. s's arrays are reallocated as the trace needs.
SimStatus viz_scene_at(VizModel *m, size_t i, const VizSceneOpts *o, VizScene *s);
void viz_scene_free(VizScene *s);

// The caption of event i alone ("rank 2: bucket #1 launched: all_reduce of
// 4.0 MiB while backward goes on"), into buf.
void viz_caption(const VizModel *m, size_t i, char *buf, size_t len);
// The text shown under event i's caption, or NULL: the run's diagnosis at
// the diagnosis event itself and at the first fault event (where
// `--at fault` opens), so that the frame of the failure explains it.
const char *viz_detail(const VizModel *m, size_t i);

#endif
