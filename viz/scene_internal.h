// viz/scene_internal.h: what the scene model's files share (not part of the
// public interface): the model's indexes and the running state that is
// folded event by event and copied into keyframes.
//
// Split of the work:
//   scene_index.c     viz_model_new / sync: one pass over the events that
//                     builds every index below and a keyframe of the running
//                     state every VIZ_KEYFRAME_EVERY events
//   scene_record.c    indexing one event (lanes, records, jump lists, plots)
//   scene_lookup.c    what the indexes answer (lanes, markers, iterations)
//   scene_state.c     the running state: applying one event, copying it
//   scene_coll.c      the collective's contribution bitmasks (folded) and
//                     the collective at the cursor (scene time)
//   scene_timeline.c  lane cells of a window, from the lane indexes
//   scene_caption.c   one sentence per event
//   scene_jump.c      jump kinds, next / previous
//   scene.c           viz_scene_at: keyframe + replay + what the lanes say
//
// Determinism: the fold (viz_state_apply) reads only the event it applies
// and model records created by earlier events, so replaying from a keyframe
// gives exactly the state a fresh pass gives. Scene-time code may read the
// whole index.
#ifndef DDPLAB_VIZ_SCENE_INTERNAL_H
#define DDPLAB_VIZ_SCENE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scene.h"

#define VIZ_NONE UINT32_MAX
// Contribution bitmasks are tracked while nranks * nchunks stays at most
// this (a 128-rank ring); beyond it the views cannot draw the chunks anyway
// and keyframes would grow by megabytes each.
#define VIZ_HELD_MAX_CELLS 16384
// Sequence numbers above this are not indexed (a corrupt trace must not
// make the model allocate gigabytes).
#define VIZ_SEQ_MAX (1u << 24)

// A growable array of event indices (sorted, as events are indexed in order).
typedef struct {
    uint32_t *v;
    size_t n, cap;
} VizIdxList;

int viz_idx_push(VizIdxList *l, uint32_t i);          // 0, or -1 out of memory
void viz_idx_truncate(VizIdxList *l, uint32_t below); // drops entries >= below
size_t viz_idx_lower(const VizIdxList *l, uint32_t i); // first position with v >= i

// A lane: one rank's events of one stream that take time (compute ops,
// whole collectives, host copies), in index order = simulated start order.
// pmax[k] is the latest simulated end among v[0..k], so the first event
// that reaches into a window is found by binary search even when events
// overlap. The wall-clock copy is sorted by wall start on demand.
typedef struct {
    double t0, t1;
    uint32_t idx;
} VizSpan;

typedef struct {
    VizIdxList ev;
    double *pmax;          // [ev.cap]
    VizSpan *wall;         // [nwall] sorted by wall start (built lazily)
    double *wall_pmax;     // [nwall]
    size_t nwall, wall_cap;
    size_t wall_built;     // ev.n when the wall copy was built
} VizLane;

enum { VIZ_LANE_COMPUTE = 0, VIZ_LANE_COMM, VIZ_LANE_HOST, VIZ_LANE_COUNT };

// One collective of the world (key: its sequence number), over all ranks.
typedef struct {
    uint32_t first;        // its first event (any rank, any of its kinds); VIZ_NONE: unused
    uint32_t first_coll;   // its first whole-collective event (VIZ_JUMP_COLL)
    uint32_t last;         // its latest event so far
    int16_t coll, algo, redop, dtype;
    const char *name;      // "AllReduce", ...
    uint64_t bytes, count;
    int nsteps;
    double t0, t1;         // simulated span over its events
    double w0, w1;         // wall span
    int bucket;            // the DDP bucket whose launch named this seq, -1
    int unit;              // the FSDP unit it gathers or reduces, -1
    int root;              // inferred from its transfers (rooted kinds), -1
    int has_xfers;
} VizCollRec;

// A DDP bucket plan as one rank announced it.
typedef struct {
    const char *name;
    int index;             // the parameter's index (bucket events' `chunk`)
    int bucket;
    uint64_t bytes, numel;
    uint32_t ev;           // the event that announced it
    char *owned;           // a made-up plan's name ("param 3"), owned here
} VizPlanParam;

typedef struct {
    uint32_t begin;        // its "plan-begin" event; for a plan made up from
                           // "ready" events (no plan in the trace): the first
                           // ready event that showed it
    int synthetic;         // 1: made up from ready events (names "param N")
    int rank;              // the rank whose events fill it
    int nparams, nbuckets; // announced
    int filled;            // parameters received so far
    VizPlanParam *params;  // [nparams] in bucket order
    int *bucket_first, *bucket_n; // [nbuckets]
    uint64_t *bucket_bytes;
} VizPlan;

// FSDP units (the same on every rank).
typedef struct {
    const char *name;
    uint64_t bytes, numel;
} VizUnitInfo;

// FSDP2: one parameter of a unit, from its "plan-param" event.
typedef struct {
    const char *name;
    int unit;
    uint64_t rows, bytes;   // dim 0; padded bytes
    int rows_per_rank;
} VizParamShard;

// Per rank, in the running state.
typedef struct {
    int64_t mem[SIM_MEM_CAT_COUNT]; // device bytes by category (backing too)
    int64_t total, peak;            // device total without backing, its peak
    int64_t host_total;
    double clock;                   // latest simulated start seen
    int pending_unit;               // FSDP: unit of its last gather/reduce, not yet
    int pending_reduce;             // matched with a collective (1: a reduce)
    uint64_t last_seq;              // its latest world collective seq (+1; 0: none)
    int phase0;                     // op-derived phase of its last compute (phase jumps)
    int64_t iter;                   // step of its latest "iteration" begin + 1 (0: none)
} VizRankState;

// The running state after some prefix of the events.
typedef struct {
    uint32_t next;          // events applied: 0..next-1
    int nranks;
    VizRankState *rank;     // [nranks]
    // DDP
    int plan;               // index into the model's plans, -1
    int ready_cap;          // parameter indices covered by ready[]
    uint8_t *ready;         // [ready_cap * nranks]: gradient ready this iteration
    int nb_cap;             // buckets covered by bphase / bseq
    uint8_t *bphase;        // [nb_cap * nranks]: 0, 1 launched, 2 done
    uint64_t *bseq;         // [nb_cap]: seq of its latest launch (+1; 0: none)
    // FSDP
    int nu_cap;
    uint8_t *shard;         // [nu_cap * nranks] VizShardState
    // The collective last seen (world or not)
    int coll_world;         // 1: the world collective below; 0: coll_ev
    uint32_t coll_ev;       // the last non-world collective event, VIZ_NONE
    int cw_active;          // a world collective has been seen
    uint64_t cw_seq;
    int16_t cw_coll, cw_algo;
    uint32_t cw_step_ev;    // its latest step event, VIZ_NONE
    int nchunks;            // 0: not tracked
    uint64_t *held;         // [nranks * nchunks]
    int *nheld;
    size_t held_cap;
    // the rest
    double loss;            // NaN before the first
    int64_t loss_step;      // step of the iteration whose end set it (-1)
    const char *hub_step;   // last DataParallel marker
    // indexing scalars (kept here so a rebuild from a keyframe resumes them)
    int64_t it_max_step;    // iteration markers: the highest "begin" step
    int has_it_step;
    int64_t loss_max_step;  // loss plot: the highest "end" step
    int has_loss_step;
} VizState;

struct VizModel {
    const VizTrace *t;
    int nranks;
    size_t n;               // events indexed
    uint64_t *sig;          // [n] a fingerprint per event (detects inserts)
    size_t sig_cap;
    // iterations: from markers, else one per world collective
    VizIdxList it_mark, it_coll;
    // jumps (ITERATION and PHASE have their own rules, see scene_jump.c)
    VizIdxList jump[VIZ_JUMP_COUNT];
    VizIdxList phase_mark, phase_ops; // rank 0's phase markers / op-derived starts
    // per rank: lanes, and its phase and iteration markers
    VizLane *lane;          // [nranks * VIZ_LANE_COUNT]
    VizIdxList *marks;      // [nranks]
    // collectives by seq
    VizCollRec *coll;
    size_t ncoll, coll_cap;
    // DDP plans, in order of their first event
    VizPlan *plans;
    int nplans, plans_cap;
    int plan_rank;          // the rank whose plans count (-1 until one is seen)
    int synth_plan;         // the latest plan made up from ready events, -1
    // FSDP units
    VizUnitInfo *units;
    int nunits, units_cap;
    VizParamShard *pshards; // FSDP2's parameters in unit order (rank 0's "plan-param")
    int npshards, pshards_cap;
    int shard_group;        // from the units' "plan" events (src), 0: none
    int shard_chunks;       // largest group index seen + 1
    int has_shards;
    int has_dp;             // DataParallel markers seen
    // plots
    double *loss_x, *loss_y;
    uint32_t *loss_i;
    size_t nloss, loss_cap;
    double **mem_x, **mem_y; // [nranks][nmem[r]]
    uint32_t **mem_i;
    size_t *nmem, *mem_cap;
    // clock range
    double t_min, t_max, w_min, w_max;
    // the running state while indexing, the keyframes, and a scene cache
    VizState cur;
    VizState *key;          // key[k]: the state before event k * VIZ_KEYFRAME_EVERY
    size_t nkey, key_cap;
    VizState work;          // the last state viz_scene_at built
    int work_valid;
};

// scene_state.c
int viz_state_init(VizState *s, int nranks);
void viz_state_free(VizState *s);
int viz_state_copy(VizState *dst, const VizState *src); // 0, or -1 out of memory
// Applies event i (which must be s->next) and advances s->next. -1: no memory.
int viz_state_apply(const VizModel *m, VizState *s, size_t i);

// scene_coll.c
// Starts tracking world collective (seq, kind, algo) in s.
int viz_coll_begin(const VizModel *m, VizState *s, const SimEvent *e);
void viz_coll_xfer(VizState *s, const SimEvent *e);
// Fills sc->coll for cursor i (state s after event i). -1: no memory.
int viz_scene_coll(const VizModel *m, const VizState *s, size_t i, double now, int wall,
                   VizScene *sc, size_t *held_cap);
VizTopo viz_topo_of(int coll, int algo, int world);
// Step event e's place in its phase (reduce-scatter, all-gather, ...): *k
// from 0 of *n, by the collective's schedule. -1 when the schedule does
// not match the event (a loaded trace's other world size or algorithm).
int viz_step_in_phase(const VizModel *m, const SimEvent *e, int *k, int *n);

// scene_timeline.c
int viz_scene_timeline(VizModel *m, size_t i, double now, const VizSceneOpts *o,
                       VizScene *sc, size_t *cap, double **scratch, size_t *scratch_cap);

// scene_record.c
int viz_index_event(VizModel *m, uint32_t i); // 0, or -1 out of memory
uint64_t viz_event_sig(const SimEvent *e);     // a fingerprint of the event
void viz_plan_free(VizPlan *p);
void viz_plan_buckets(VizPlan *p);             // buckets from its parameters
void viz_plan_truncate(VizPlan *p, uint32_t cut); // forgets what events >= cut added

// scene_lookup.c
int viz_lane_push(VizLane *l, uint32_t i, double end); // 0 / -1
const VizLane *viz_lane(const VizModel *m, int rank, int lane);
int viz_lane_wall(VizModel *m, int rank, int lane); // builds the wall copy; -1 no memory
// Last lane position with event index <= i, or (size_t)-1.
size_t viz_lane_last(const VizLane *l, size_t i);
const VizCollRec *viz_coll_rec(const VizModel *m, uint64_t seq);
// 1 for the world collectives (not point-to-point, not a group's).
int viz_is_world_coll(const SimEvent *e);
int viz_is_coll_kind(int kind);
// Phase of rank r at event index i (< i strictly when strict): from its
// markers, VIZ_PHASE_IDLE when the last one is an iteration marker or there
// is none (*known = 0 then).
VizPhase viz_marker_phase(const VizModel *m, int r, size_t i, int *known);
// From a compute op's name: forward (_fwd), backward (_bwd), optimizer
// (*_step, sgd, adam...), else VIZ_PHASE_IDLE.
VizPhase viz_op_phase(const char *name);
// The current plan for display (the state's, else the first), or NULL.
const VizPlan *viz_plan_for(const VizModel *m, const VizState *s);
// Index of the plan that begins at event i, or -1.
int viz_plan_at(const VizModel *m, uint32_t i);
double viz_ev_t0(const SimEvent *e, int wall);
double viz_ev_t1(const SimEvent *e, int wall);
int viz_ensure(void **p, size_t *cap, size_t need, size_t size); // 0 / -1

#endif
