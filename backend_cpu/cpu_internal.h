// backend_cpu/cpu_internal.h: the private state of the CPU backend, shared by
// its files and by nothing else.
//
// Ranks are threads of one process. A collective is executed inline by every
// rank: a rendezvous of all ranks (which also checks that they all called the
// same collective), then the schedule of sim/coll/schedule.h, each rank pulling its
// incoming chunks straight out of its peers' buffers. Ranks synchronise only
// through the counters below: C11 atomics with acquire/release ordering (so
// ThreadSanitizer sees every happens-before edge), and a Linux futex on the
// same 32-bit word to sleep when a short spin is not enough.
//
// Every wait is timed by the watchdog. A wait that outlasts watchdog_s, or a
// protocol violation, aborts the world: a diagnosis goes into `error`, the
// `aborted` flag is raised, every sleeper is woken and fails, and every later
// collective fails at once.
#ifndef DDPLAB_CPU_INTERNAL_H
#define DDPLAB_CPU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/schedule.h"  // defines: SimXfer
#include "engine/backend.h" // defines: SimBackendConfig, SimCollCall, SimStatus

#define CPU_CACHE_LINE 64
#define CPU_ERROR_MAX 4096 // bytes of diagnosis kept for last_error (as SimWorld's)

// ----------------------------------------------------------------------------
// waiting (cpu_wait.c)

// A 32-bit counter that threads can sleep on (it is the futex word), plus the
// number of sleepers, so that a writer makes the wake-up system call only
// when somebody actually sleeps. Counters only grow (modulo 2^32): a waiter
// waits until the value "reaches" a target, compared with wrap-around.
typedef struct {
    _Atomic uint32_t value;
    _Atomic uint32_t sleepers;
} CpuWord;

typedef struct CpuCtx CpuCtx;

// 1 if v has reached target (v - target, as a signed 32-bit number, >= 0).
int cpu_reached(uint32_t v, uint32_t target);
// Waits until w reaches target. Spins briefly when ranks fit on the cores,
// then sleeps. Fails with SIM_EABORTED if the world aborts meanwhile, or
// fires the watchdog (SIM_ETIMEDOUT) after watchdog_s seconds.
SimStatus cpu_wait_reach(CpuCtx *c, int me, CpuWord *w, uint32_t target);
// Waits without watchdog or abort: only for waits known to be short (a peer
// finishing a memcpy) or outside any collective (the start gate).
void cpu_wait_reach_plain(CpuWord *w, uint32_t target);
// Stores v (release) / adds one and returns the new value; both wake sleepers.
void cpu_word_store(CpuWord *w, uint32_t v);
uint32_t cpu_word_bump(CpuWord *w);
// Wakes every sleeper of w unconditionally (used by the abort).
void cpu_word_wake_all(CpuWord *w);
// Processors this process may run on.
int cpu_online_cores(void);
// Binds the calling thread to the i-th of them (modulo their number), as
// mpirun binds its ranks to cores: best effort, silent when refused.
void cpu_pin_self(int i);
// Gives the processor to another thread.
void cpu_yield(void);

// ----------------------------------------------------------------------------
// the flight recorder (cpu_watchdog.c, cpu_history.c): what each rank is
// doing, written by the rank itself (relaxed atomics, `state` last with
// release) and read by whichever rank writes a diagnosis
// (cpu_diagnosis.h turns copies of the records into text).

typedef enum {
    CPU_FR_IDLE = 0,    // no collective entered yet
    CPU_FR_RENDEZVOUS,  // waiting for every rank to arrive
    CPU_FR_RUNNING,     // executing steps, not waiting
    CPU_FR_STEP_WAIT,   // in step `step`, waiting for rank `peer`
    CPU_FR_DRAIN,       // after the last step, waiting for rank `peer` to read
    CPU_FR_BARRIER,     // fused direct pass done, waiting for the other ranks
    CPU_FR_P2P_WAIT,    // send/recv waiting for rank `peer`
    CPU_FR_DONE,        // finished its last collective
} CpuFrState;

// `exited`: how the rank's thread ended. A crashed rank (an injected fault,
// SimBackendOps.rank_crash) is marked CPU_EXITED_CRASHED before its thread
// returns, and the mark is never lowered to CPU_EXITED_RETURNED.
enum { CPU_EXITED_NO = 0, CPU_EXITED_RETURNED = 1, CPU_EXITED_CRASHED = 2 };

#define CPU_FR_HISTORY 8 // collectives each rank's recorder remembers

// One collective a rank entered (send/recv are not kept: they have their own
// per-peer sequence numbers), in a ring of CPU_FR_HISTORY. A slot is
// rewritten seqlock-style: `stamp` (the entry's number + 1; 0 while the slot
// is rewritten) is stored last with release; a reader loads it before and
// after the fields and drops the entry if it changed (the rank moved on and
// reused the slot). `done` is set alone, with release, when it completes.
typedef struct {
    _Atomic uint64_t stamp;
    _Atomic uint64_t seq, count;
    _Atomic int kind, dtype, algo, op, root;
    _Atomic int done;
} CpuHistRec;

// The recorder's current fields, copied out (CpuRank.fr_before_untimed).
typedef struct {
    int state, kind, algo, dtype, step, nsteps, peer;
    uint64_t seq, count;
} CpuFrSaved;

typedef struct {
    _Atomic int state;        // CpuFrState
    _Atomic int kind, algo, dtype, step, nsteps, peer;
    _Atomic uint64_t seq, count;
    _Atomic int64_t last_done; // seq of the last completed collective, -1: none
    _Atomic int exited;       // CPU_EXITED_*
    CpuHistRec hist[CPU_FR_HISTORY]; // entry k in hist[k % CPU_FR_HISTORY]
    _Atomic uint64_t hist_n;  // entries ever written (stored after the entry)
} CpuRecorder;

// The history ring (cpu_history.c), written by the rank itself: an entry for
// a collective it enters (send/recv ignored), and its completion.
void cpu_hist_push(CpuRecorder *f, const SimCollCall *call);
void cpu_hist_done(CpuRecorder *f);

// ----------------------------------------------------------------------------
// rendezvous (cpu_rendezvous.c)

// What a rank publishes when it arrives at a collective. Each rank has two,
// used alternately (by the parity of the rendezvous generation), so that a
// fast rank entering the next collective never overwrites what slower ranks
// still read. Written by the owner before it arrives; read by the others only
// after the rendezvous completed (the arrival counter carries the ordering).
typedef struct {
    uint64_t seq;
    SimCollKind kind;
    SimAlgo algo;
    SimDtype dtype;
    SimRedOp op;
    size_t count;
    int root;
    double arrive_sim;
    const void *send;       // the caller's buffers
    void *recv;
    void *work;             // the buffer peers pull from (sim_sched_work)
    SimStatus local_status; // a failure before arriving (e.g. no scratch)
    char local_err[160];
} CpuSlot;

// A barrier of all ranks: the last to arrive resets `arrived` and opens the
// next generation of `gen`; the others wait for that generation.
typedef struct {
    _Alignas(CPU_CACHE_LINE) _Atomic uint32_t arrived;
    _Alignas(CPU_CACHE_LINE) CpuWord gen;
} CpuGate;

// Arrives at the collective's rendezvous with *mine (copied into this rank's
// slot), checks the protocol when last, and waits for the others. On return
// *parity selects the slots of this collective (cpu_slot) and
// call->start_sim is the latest arrival. Returns SIM_EPROTO on every rank
// when ranks disagree.
SimStatus cpu_rendezvous(CpuCtx *c, int me, SimCollCall *call, const CpuSlot *mine,
                         int *parity);
// A plain barrier of all ranks (the end of the fused direct all_reduce).
SimStatus cpu_barrier(CpuCtx *c, int me);
const CpuSlot *cpu_slot(const CpuCtx *c, int rank, int parity);

// ----------------------------------------------------------------------------
// point-to-point (cpu_p2p.c)

// A posted send, linked into the receiver's inbox until the receiver takes it.
typedef struct CpuMsg {
    struct CpuMsg *next;
    int src;
    uint64_t seq;
    size_t count;
    SimDtype dtype;
    const void *buf;
    double arrive_sim;
    int taken;              // under the inbox lock: the receiver unlinked it
    SimStatus status;       // written by the receiver before done
    double recv_arrive_sim; // written by the receiver before done
    // 1 when the receiver has finished with buf and with this message; the
    // receiver then bumps the sender's p2p_acks and never touches it again.
    _Atomic int done;
} CpuMsg;

SimStatus cpu_p2p_send_post(CpuCtx *c, int me, SimCollHandle *h);
SimStatus cpu_p2p_send_wait(CpuCtx *c, int me, SimCollHandle *h);
SimStatus cpu_p2p_recv(CpuCtx *c, int me, SimCollHandle *h);

// ----------------------------------------------------------------------------
// per-rank state and the context

typedef struct {
    // Steps finished, counted across collectives (never reset), so a peer
    // waiting for "step t of this collective" waits for base + t + 1.
    _Alignas(CPU_CACHE_LINE) CpuWord step;
    _Alignas(CPU_CACHE_LINE) CpuSlot slot[2];
    CpuRecorder fr;
    _Atomic(CpuWord *) sleeping_on; // the word this rank sleeps on, or NULL
    _Atomic int touching;           // 1 while reading or writing peers' buffers

    // Inbox of posted sends addressed to this rank, in posting order.
    pthread_mutex_t inbox_lock;
    CpuMsg *inbox_head, *inbox_tail;
    CpuWord inbox_posts;            // bumped at every post
    CpuWord p2p_acks;               // bumped when a receiver finished one of my sends

    // Private to the rank's own thread.
    uint32_t rdv_gen, bar_gen;      // generations of ctx rdv / bar passed
    void *scratch;                  // SIM_WORK_SCRATCH buffer, reused
    size_t scratch_bytes;
    SimXfer *xfers;                 // transfers of one step
    int xfer_cap;
    const void **srcs;              // [nranks] source blocks (direct)
    void *math_scratch;             // the math kernels' scratch (cpu_math_scratch)
    size_t math_scratch_bytes;
    SimStatus run_status;           // what the rank function returned
    double spin_s;                  // how long this rank spins before it
                                    // sleeps, learned from its waits
                                    // (cpu_wait.c); 0: not learned yet
    // The recorder as it was before the simulator's own exchange
    // (sim_all_gather_untimed): put back when it is done, so that the
    // history and a later diagnosis show the modelled program's collectives
    // alone; while it runs, a hang in it still shows.
    CpuFrSaved fr_before_untimed;
} CpuRank;

struct CpuCtx {
    int nranks, nodes, ranks_per_node;
    double watchdog_s;
    int phantom;                    // 1: a phantom world: collectives run their
                                    // rendezvous, protocol check, steps, watchdog
                                    // and trace exactly as otherwise, and touch no
                                    // buffer (they may be NULL); copies are no-ops
    int spin;                       // 1: ranks fit on the cores, spin before sleeping
    int pin;                        // 1: each rank's thread is bound to a core of
                                    // its own (2 or more ranks that fit on the
                                    // cores: cpu_ranks.c)
    double llc_bytes;               // the last-level cache's size: collectives
                                    // whose buffers outgrow it stream their
                                    // results (cpu_stream.c)
    CpuRank *ranks;                 // [nranks]
    CpuGate rdv;                    // collective rendezvous
    CpuGate bar;                    // end barrier of the fused direct all_reduce
    struct {
        SimStatus status;
        double start_sim;
    } rdv_result[2];                // by parity; written by the last arriver

    _Atomic int aborted;            // the world is dead: every wait fails
    _Atomic int diagnosing;         // a watchdog diagnosis is being written
    _Atomic int err_set;            // `error` holds the first diagnosis
    pthread_mutex_t err_lock;
    char error[CPU_ERROR_MAX];
};

// ----------------------------------------------------------------------------
// aborting and the watchdog (cpu_watchdog.c)

int cpu_is_aborted(CpuCtx *c);
// Keeps msg as the diagnosis if none is kept yet; returns 1 if it was kept.
int cpu_error_record(CpuCtx *c, const char *msg);
// Stops the world: raises `aborted` and wakes every sleeping rank.
void cpu_abort_raise(CpuCtx *c);
// Bracket every access to a peer's buffers. cpu_touch_begin fails (returns 0)
// once the world has aborted, so that after an abort no rank starts touching
// peers' memory; cpu_abort_drain, called by a rank leaving a failed
// collective, waits until no rank is still inside such an access. Together
// they guarantee that a rank hands its buffers back to its caller only when
// nobody reads or writes them any more, even on the failure path.
int cpu_touch_begin(CpuCtx *c, int me);
void cpu_touch_end(CpuCtx *c, int me);
void cpu_abort_drain(CpuCtx *c);
// Called by a rank whose wait outlasted the watchdog: writes the flight
// recorder diagnosis and aborts. SIM_ETIMEDOUT if this rank diagnosed it,
// SIM_EABORTED if another failure came first.
SimStatus cpu_watchdog_fire(CpuCtx *c, int me, double waited_s);

// Flight recorder updates by the rank itself.
void cpu_fr_enter(CpuRank *r, const SimCollCall *call);
void cpu_fr_set(CpuRank *r, CpuFrState st, int step, int peer);
void cpu_fr_done(CpuRank *r, const SimCollCall *call);

// ----------------------------------------------------------------------------
// executing collectives

// The schedule executor (cpu_exec.c) and the fused direct all_reduce
// (cpu_direct.c). Both run the whole collective inline.
SimStatus cpu_exec_coll(CpuCtx *c, int me, SimCollCall *call);
SimStatus cpu_direct_all_reduce(CpuCtx *c, int me, SimCollCall *call);

// Copies that bypass the caches (cpu_stream.c). cpu_stream_copy copies n
// bytes, with non-temporal stores when `stream` (on x86; a plain copy
// elsewhere); a writer calls cpu_stream_fence(stream) before it publishes
// the copy. cpu_stream_llc_bytes: the size of the last-level cache (from
// sysfs; 32 MiB when unknown), which the collectives weigh their buffers
// against: the direct pass streams when every rank's send and recv buffers
// together hold that much or more, the ring from one and a half times that
// (its reduce-scatter writes are read again one step later, so caching
// them still pays while the buffers nearly fit).
double cpu_stream_llc_bytes(void);
void cpu_stream_copy(void *dst, const void *src, size_t n, int stream);
void cpu_stream_fence(int stream);

// The ring all_reduce with its initial copy folded into the reduce-scatter
// (cpu_ring.c, which says why the bits do not change). cpu_ring_folds_copy:
// 1 for a ring all_reduce of 2 ranks or more, whose executor then skips the
// copy; cpu_ring_source: the buffer of rank `from` that a transfer of step
// `step` reads (its send buffer at step 0 of a folded ring, else its work
// buffer); cpu_ring_reduce: out[i] = own[i] (op) peer[i] for n elements
// (out may be own; AVG adds, as sim_reduce_inplace); cpu_ring_streams: 1
// when the steps' writes are to bypass the caches (out of place, buffers
// past one and a half last-level caches), done by cpu_ring_reduce_stream for
// the reductions (which the writer fences as cpu_stream_copy's copies).
// out[i] += b[i] for n floats, in fixed-width groups that gcc vectorises at
// -O2 (sim_reduce_inplace's fp32 sum, bit for bit); the direct pass's sums
// use it too.
void cpu_acc_f32(float *restrict out, const float *restrict b, size_t n);
int cpu_ring_folds_copy(const SimCollCall *call);
int cpu_ring_streams(const CpuCtx *c, const SimCollCall *call);
const void *cpu_ring_source(const SimCollCall *call, const CpuSlot *from, int step);
void cpu_ring_reduce(void *out, const void *own, const void *peer, size_t n, SimDtype dt,
                     SimRedOp op);
void cpu_ring_reduce_stream(void *out, const void *own, const void *peer, size_t n,
                            SimDtype dt, SimRedOp op);

// Threads (cpu_ranks.c).
SimStatus cpu_run_ranks(void *ctx, SimRankEntry entry, void *arg);
// SimBackendOps.rank_crash (cpu_crash.c): marks the rank CPU_EXITED_CRASHED,
// then sleeps until the world aborts or every other rank has exited.
SimStatus cpu_rank_crash(void *ctx, int rank);

// The math kernels (cpu_math*.c, declared in cpu_math.h).
extern const SimMathOps cpu_math_ops;

#endif
