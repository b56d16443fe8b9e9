// sim/trace/trace.h: the append-only trace, the single source of truth for views.
//
// Each rank appends to its own buffer (no locks on the hot path); readers
// merge the buffers into one time-ordered sequence after (or between) runs.
// Event names are static strings, so events are plain data that can be copied.
#ifndef DDPLAB_SIM_TRACE_H
#define DDPLAB_SIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus

typedef enum {
    SIM_STREAM_COMPUTE = 0,
    SIM_STREAM_COMM,
    SIM_STREAM_HOST,   // host <-> device copies (CPU offload)
    SIM_STREAM_COUNT
} SimStream;

typedef enum {
    SIM_EV_COLL = 0,   // one whole collective on one rank
    SIM_EV_COLL_STEP,  // one step of a collective algorithm on one rank
    SIM_EV_XFER,       // one chunk transfer src -> dst inside a step
    SIM_EV_COMPUTE,    // a compute op
    SIM_EV_MARKER,     // a lesson or user marker. The training loop's own:
                       // name "iteration", label "begin" (step = the
                       // optimizer step about to run, 0-based) and "end"
                       // (same step; `value` = the loss it logged);
                       // name "phase", label "forward", "backward",
                       // "optimizer" or "eval" (step = the iteration);
                       // with --fault no-set-epoch, name "epoch" at the
                       // start of each epoch, label "set_epoch" (epoch 0)
                       // or "epoch-not-set" (step = the iteration, chunk =
                       // the loop's epoch, count = the epoch the sampler
                       // shuffles with, value = the first sample index it
                       // yields);
                       // DataParallel's "dp.scatter", "dp.gather", ...
    SIM_EV_FAULT,      // a diagnosed failure (watchdog, protocol): the
                       // collective's fields, name = the rank's message
                       // (interned), label = the status ("watchdog
                       // timeout: ..."), at the time the rank entered it.
                       // A fault of --fault SPEC where it first applies:
                       // label "injected", name = what it does (interned).
                       // Label SIM_EV_DIAGNOSIS_LABEL: the backend's whole
                       // diagnosis of a failed run (name = its text, many
                       // lines, interned), once, on the rank that made it,
                       // at that rank's simulated time when the run ended
    SIM_EV_MEMORY,     // a change to the rank's memory ledger (sim/engine/memory.h):
                       // label "alloc" or "free" of `bytes` to category
                       // `mem_cat` in space `mem_space`; name: the item
                       // ("alloc" / "free" for tensor storage); `count`: the
                       // ledger's total of that space after it (what the
                       // modelled run holds: backing stores left out,
                       // phantom tensors counted); label "peak-reset"
                       // (0 bytes): the rank's peaks restart from here
    SIM_EV_BUCKET,     // a DDP gradient bucket (label "ready": a parameter's
                       // gradient copied in, parameter index in `chunk`;
                       // "launch": its all_reduce started, `seq` = that
                       // collective's seq; "done": waited for); bucket
                       // index in `step`, bucket bytes in `bytes`.
                       // A bucket plan (iteration 0's and the rebuilt
                       // one) opens with label "plan-begin" (nsteps =
                       // buckets, count = parameters), then one "plan"
                       // event per parameter in bucket order: step =
                       // bucket, chunk = parameter index, name = the
                       // parameter's name (interned), count = numel,
                       // bytes = its gradient's bytes in the bucket
    SIM_EV_SHARD,      // an FSDP unit on one rank (label "gather": its all-gather
                       // issued; "gathered": unpacked, ready to compute; "free":
                       // resharded; "reduce": its gradient's reduction launched;
                       // "reduced": added to the gradient shard); unit index in
                       // `step`, unit count in `nsteps`, the unit's padded bytes
                       // in `bytes`, this rank's index in the shard group in `chunk`.
                       // At setup each unit is announced once per rank with
                       // label "plan": name = the unit's module names
                       // (interned, e.g. "blocks.0"), count = numel, src =
                       // the shard group's size, dst = the rank's group index.
                       // FSDP2 (each parameter sharded on dim 0) follows each
                       // unit's "plan" with one "plan-param" per parameter:
                       // name = the parameter's name, step = its unit, count
                       // = its rows (dim 0), src = the rows each rank holds,
                       // bytes = its padded bytes
    SIM_EV_KIND_COUNT
} SimEventKind;

#define SIM_EV_DIAGNOSIS_LABEL "diagnosis" // the label of a run's diagnosis (SIM_EV_FAULT)

typedef struct {
    double sim_start, sim_end;   // simulated seconds since the run started
    double wall_start, wall_end; // measured seconds since the world started
    uint64_t bytes;              // bytes moved (xfer, step) or buffer bytes (coll)
    uint64_t count;              // elements; FLOPs for compute events
    uint64_t seq;                // collective sequence number on this rank
    double value;                // markers: "iteration"/"end" carries the loss;
                                 // 0 elsewhere
    const char *name;            // static string, e.g. "AllReduce"
    const char *label;           // static string, e.g. "reduce-scatter" (may be NULL)
    int32_t rank;
    int16_t stream;              // SimStream
    int16_t kind;                // SimEventKind
    int16_t coll;                // SimCollKind (collective events)
    int16_t algo;                // SimAlgo
    int16_t dtype;               // SimDtype
    int16_t redop;               // SimRedOp
    int16_t mem_cat;             // SimMemCat (memory events; 0 otherwise)
    int16_t mem_space;           // SimMemSpace (memory events; 0 otherwise)
    int32_t step, nsteps;        // steps: index and total; -1 when not a step
    int32_t chunk, src, dst;     // transfers: chunk index and ranks; -1 otherwise
} SimEvent;

typedef struct SimTrace SimTrace;

// What a viewer needs to know about the run beyond its events: the header
// line, the hardware of the simulated clock, each rank's device capacity.
typedef struct {
    char title[160];          // one line, e.g. "ddp  mlp:16,32,4  R=4 (1 node x 4)"
    char strategy[16];        // "ddp", "fsdp", "dp", "single", "bench", ...
    char profile[64];         // the simulated hardware, e.g. "dgx-h100"
    uint64_t device_capacity; // bytes per rank; 0 = unlimited (no bar scale)
    int nodes;                // ranks are split evenly over nodes (>= 1)
} SimTraceInfo;

// Called after every append, on the appending rank's thread (so it must be
// thread-safe); ev is valid only during the call. Live views copy it.
typedef void (*SimTraceTap)(void *ctx, const SimEvent *ev);

// Creates a trace for nranks ranks keeping at most max_per_rank events per
// rank (0 = unlimited); later events are counted as dropped. Caller frees
// with sim_trace_free. Returns NULL when out of memory.
SimTrace *sim_trace_new(int nranks, size_t max_per_rank);
void sim_trace_free(SimTrace *t);

// Appends an event to ev->rank's buffer. Only that rank's thread may append
// to a given rank's buffer. Returns SIM_ENOMEM if the buffer cannot grow.
SimStatus sim_trace_append(SimTrace *t, const SimEvent *ev);

int sim_trace_nranks(const SimTrace *t);
size_t sim_trace_rank_count(const SimTrace *t, int rank);
const SimEvent *sim_trace_rank_events(const SimTrace *t, int rank);
size_t sim_trace_dropped(const SimTrace *t);
// Removes every event (keeps the capacity and the interned strings).
void sim_trace_clear(SimTrace *t);

// A copy of s owned by the trace (one copy per distinct string), valid until
// sim_trace_free: names that are not static strings (parameter and unit
// names). Thread-safe. NULL for s == NULL or when memory runs out.
const char *sim_trace_intern(SimTrace *t, const char *s);

// Makes info safe to use: nodes at least 1, every string NUL-terminated.
void sim_trace_info_normalize(SimTraceInfo *info);
// The run's description (zeroed, nodes = 1, until set).
void sim_trace_set_info(SimTrace *t, const SimTraceInfo *info);
const SimTraceInfo *sim_trace_info(const SimTrace *t);

// Installs (fn != NULL) or removes the tap. Set it before the ranks start.
void sim_trace_set_tap(SimTrace *t, SimTraceTap fn, void *ctx);

// Merges all ranks into one array ordered by (sim_start, rank, position in
// the rank's buffer). The caller frees the array with free(). Returns NULL and
// *n = 0 if the trace is empty or memory runs out.
SimEvent *sim_trace_merge(const SimTrace *t, size_t *n);

// Writes the trace atomically (temporary file + rename).
//   Chrome trace JSON: ts/dur in microseconds of simulated (or wall) time,
//   pid = rank, tid = stream; loads in Perfetto and chrome://tracing.
//   Memory events also draw a counter track per rank ("device memory (MiB)",
//   "host memory (MiB)") of the ledger's bytes by category.
SimStatus sim_trace_write_chrome(const SimTrace *t, const char *path, int use_wall);
//   JSON lines: one object per event with every field (mem_cat and
//   mem_space on memory events only, value on markers only).
//   Binary (.ddptrace): the format viz/vtrace.h reads back for replay,
//   with the info, every string and every field; described in
//   sim/trace/trace_bin.c.
SimStatus sim_trace_write_jsonl(const SimTrace *t, const char *path);
SimStatus sim_trace_write_bin(const SimTrace *t, const char *path);
// The format a trace file's name chooses: ".ddptrace" binary, ".jsonl"
// JSON lines, anything else Chrome trace JSON. Replay reads the first two.
typedef enum { SIM_TRACE_FILE_BIN, SIM_TRACE_FILE_JSONL, SIM_TRACE_FILE_CHROME } SimTraceFile;
SimTraceFile sim_trace_file_of(const char *path);
// Writes the format sim_trace_file_of(path) names (Chrome: simulated clock).
SimStatus sim_trace_write_auto(const SimTrace *t, const char *path);

const char *sim_event_kind_name(SimEventKind k); // "coll", "step", "xfer", ...
const char *sim_stream_name(SimStream s);        // "compute", "comm", "host"

#endif
