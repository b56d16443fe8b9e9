// sim/trace.h: the append-only trace, the single source of truth for views.
//
// Each rank appends to its own buffer (no locks on the hot path); readers
// merge the buffers into one time-ordered sequence after (or between) runs.
// Event names are static strings, so events are plain data that can be copied.
#ifndef DDPLAB_SIM_TRACE_H
#define DDPLAB_SIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h" // defines: SimStatus

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
    SIM_EV_MARKER,     // a lesson or user marker
    SIM_EV_FAULT,      // a diagnosed failure (watchdog, protocol)
    SIM_EV_MEMORY,     // a change to the rank's memory ledger (sim/memory.h):
                       // label "alloc" or "free" of `bytes` to category
                       // `mem_cat` in space `mem_space`; name: the item
                       // ("alloc" / "free" for tensor storage); `count`: the
                       // ledger's total of that space after it (what the
                       // modelled run holds: backing stores left out,
                       // phantom tensors counted)
    SIM_EV_BUCKET,     // a DDP gradient bucket (label "ready": a parameter's
                       // gradient copied in, parameter index in `chunk`;
                       // "launch": its all_reduce started; "done": waited
                       // for); bucket index in `step`, bucket bytes in `bytes`
    SIM_EV_SHARD,      // an FSDP unit on one rank (label "gather": its all-gather
                       // issued; "gathered": unpacked, ready to compute; "free":
                       // resharded; "reduce": its gradient's reduction launched;
                       // "reduced": added to the gradient shard); unit index in
                       // `step`, unit count in `nsteps`, the unit's padded bytes
                       // in `bytes`, this rank's index in the shard group in `chunk`
    SIM_EV_KIND_COUNT
} SimEventKind;

typedef struct {
    double sim_start, sim_end;   // simulated seconds since the run started
    double wall_start, wall_end; // measured seconds since the world started
    uint64_t bytes;              // bytes moved (xfer, step) or buffer bytes (coll)
    uint64_t count;              // elements; FLOPs for compute events
    uint64_t seq;                // collective sequence number on this rank
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
// Removes every event (keeps the capacity).
void sim_trace_clear(SimTrace *t);

// Merges all ranks into one array ordered by (sim_start, rank, position in
// the rank's buffer). The caller frees the array with free(). Returns NULL and
// *n = 0 if the trace is empty or memory runs out.
SimEvent *sim_trace_merge(const SimTrace *t, size_t *n);

// Writes the trace atomically (temporary file + rename).
//   Chrome trace JSON: ts/dur in microseconds of simulated (or wall) time,
//   pid = rank, tid = stream; loads in Perfetto and chrome://tracing.
//   Memory events also draw a counter track per rank ("device memory (MiB)",
//   "host memory (MiB)") of the ledger's bytes by category.
//   JSON lines: one object per event with every field (mem_cat and
//   mem_space on memory events only).
SimStatus sim_trace_write_chrome(const SimTrace *t, const char *path, int use_wall);
SimStatus sim_trace_write_jsonl(const SimTrace *t, const char *path);

const char *sim_event_kind_name(SimEventKind k); // "coll", "step", "xfer", ...
const char *sim_stream_name(SimStream s);        // "compute", "comm", "host"

#endif
