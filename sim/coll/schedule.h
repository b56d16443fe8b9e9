// sim/coll/schedule.h: a collective algorithm as a schedule of steps and transfers.
//
// The schedule is the single definition of each algorithm. The CPU backend
// executes it (moving real chunks between rank buffers), the cost model prices
// it (alpha-beta per step), and the views animate it from the trace events the
// executor emits. It is a pure function of (collective, algorithm, R, count,
// root): nothing is stored per collective.
//
// Every rank owns a "work" buffer for the duration of one collective (which
// buffer that is, per collective and rank, is given by sim_sched_work). A
// transfer is always pulled by its destination: at step t, rank dst reads
// `count` elements at `src_off` of rank src's work buffer and copies them to
// (or reduces them into) `dst_off` of its own work buffer.
//
// Step ordering contract, which the executor enforces with per-rank step
// counters: before a rank executes step t,
//   (a) every src of its incoming transfers at step t has finished step t-1;
//   (b) every rank that read from it at step t-1 has finished step t-1.
// The local init copy counts as "step -1": a rank finishes it before anyone
// may read its work buffer at step 0. A copy whose source and destination are
// the same address (in-place calls) is skipped.
// Schedules are written so that within one step no rank writes a region that
// another rank reads in that same step.
//
// Ring chunk mapping (ours; NCCL's differs per channel): with chunk c being the
// balanced part c of R, at reduce-scatter step s rank r sends chunk
// (r-1-s) mod R to rank r+1, which adds it to its own; after R-1 steps rank r
// holds the fully reduced chunk r. At all-gather step s rank r sends chunk
// (r-s) mod R to rank r+1, which copies it. All-reduce = both: 2(R-1) steps.
//
// Double binary tree (SIM_ALGO_DBTREE, all_reduce only; the construction is
// in schedule_dbtree.c): two in-order binary trees over the ranks, each
// reducing half of the buffer up to its root and copying the result back
// down, the half cut into K chunks that follow each other up and down one
// level per step. K + 2H - 1 steps, H = floor(log2 R), in one phase.
#ifndef DDPLAB_SIM_SCHEDULE_H
#define DDPLAB_SIM_SCHEDULE_H

#include <stddef.h>

#include "coll/coll.h" // defines: SimCollKind, SimAlgo

typedef enum { SIM_XFER_COPY = 0, SIM_XFER_REDUCE = 1 } SimXferOp;

typedef struct {
    int src, dst;     // ranks; dst executes the transfer
    int chunk;        // chunk index for the views (-1: whole buffer)
    size_t src_off;   // element offset in src's work buffer
    size_t dst_off;   // element offset in dst's work buffer
    size_t count;     // elements
    SimXferOp op;
} SimXfer;

// Which buffer a rank works in during the collective.
typedef enum {
    SIM_WORK_RECV = 0,  // its recv buffer
    SIM_WORK_SEND,      // its send buffer (read only: nothing is written)
    SIM_WORK_SCRATCH,   // a scratch buffer of work_count elements
} SimWorkKind;

typedef struct {
    SimCollKind kind;
    SimAlgo algo;       // resolved, never AUTO
    int nranks;
    int root;
    size_t count;       // as in SimCollArgs
    int nchunks;        // chunks the buffer is cut into (views draw them)
    int nsteps;         // same on every rank
    int nphases;        // 1 or 2 (e.g. reduce-scatter then all-gather)
    int phase_steps[2]; // steps in each phase
} SimSched;

// Fills s for the collective. Returns 0, or -1 if the algorithm does not
// support the collective (see sim_coll_supports).
int sim_sched_init(SimSched *s, SimCollKind kind, SimAlgo algo, int nranks,
                   size_t count, int root);

// Which buffer `rank` works in and how many elements it has.
SimWorkKind sim_sched_work(const SimSched *s, int rank, size_t *work_count);

// Before the steps: the local copy a rank makes from its send buffer into its
// work buffer (e.g. all_reduce out-of-place copies send -> recv). Sets
// *src_off/*dst_off/*count; returns 0 when there is nothing to copy.
int sim_sched_init_copy(const SimSched *s, int rank, size_t *src_off,
                        size_t *dst_off, size_t *count);
// After the steps: the local copy from the work buffer to the recv buffer
// (e.g. reduce_scatter copies its reduced chunk out of scratch).
int sim_sched_final_copy(const SimSched *s, int rank, size_t *work_off,
                         size_t *recv_off, size_t *count);

// The transfers `rank` executes at step t (dst == rank), in execution order.
// Writes at most max into out (out may be NULL) and returns the total number.
int sim_sched_incoming(const SimSched *s, int rank, int step, SimXfer *out, int max);
// The transfers that read from `rank` at step t (src == rank).
int sim_sched_outgoing(const SimSched *s, int rank, int step, SimXfer *out, int max);

// The double binary tree: pipeline chunks per tree for a buffer of `count`
// elements (ceil(count / 2 / SIM_DBTREE_CHUNK), between 1 and
// SIM_DBTREE_MAX_CHUNKS), the trees' height, and a rank's place in tree 0
// or 1 (parent -1 at the root; level = height of its subtree, leaves 0).
enum { SIM_DBTREE_CHUNK = 65536, SIM_DBTREE_MAX_CHUNKS = 64 };
typedef struct {
    int parent, parent_level;
    int child[2], nchild;
    int level, depth;
} SimTreeNode;
int sim_dbtree_chunks(size_t count);
int sim_dbtree_height(int nranks);
void sim_dbtree_node(int nranks, int tree, int rank, SimTreeNode *out);
// Every rank's place in one tree, out[rank] as sim_dbtree_node gives it, in
// one walk from the root (O(R), where R calls of sim_dbtree_node walk down
// O(R log R)).
void sim_dbtree_nodes(int nranks, int tree, SimTreeNode *out /* [nranks] */);

// Phase of a step (0 or 1) and its label, e.g. "reduce-scatter", "all-gather",
// "reduce", "broadcast", "gather", "scatter".
int sim_sched_phase(const SimSched *s, int step);
const char *sim_sched_phase_label(const SimSched *s, int step);

// AVG: after the steps and the final copy, the executor divides the result of
// a reduction once by R: every rank's recv buffer for all_reduce and
// reduce_scatter, the root's recv buffer for reduce.

#endif
