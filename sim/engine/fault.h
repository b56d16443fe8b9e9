// sim/engine/fault.h: faults injected on purpose (`--fault SPEC`, repeatable), so
// that the failures of distributed training can be caused, watched in the
// trace and diagnosed.
//
// A spec is KIND or KIND:key=value,key=value. Steps count optimizer steps
// from 1, as the progress lines do; `coll=K` counts the collectives a rank
// launches within that step from 0 (under DDP: bucket K's all_reduce when
// nothing else is launched before the buckets). Kinds and their keys
// (defaults in brackets):
//
//   skip:rank=R,step=S[,coll=K]       rank R never calls its K-th collective [0]
//                                     of step S; its later calls pair with the
//                                     others' earlier ones, as with NCCL
//   mismatch:rank=R,step=S[,coll=K][,as=count|op]
//                                     rank R calls that collective with one
//                                     element fewer [count] or as a broadcast
//                                     from rank 0 instead [op]
//   reorder:rank=R,step=S[,coll=K]    rank R launches its K-th and (K+1)-th
//                                     collectives of step S the other way round
//   crash:rank=R,step=S[,coll=K]      rank R dies as it is about to launch that
//                                     collective (mid-backward under DDP: after
//                                     K buckets were launched)
//   slow-rank:rank=R,factor=F[,step=S] rank R's compute takes F times as long
//                                     (from step S on [1]); F > 1
//   slow-link:rank=R,factor=F         transfers to and from rank R take F times
//                                     as long; F > 1
//   unused:rank=R[,param=NAME][,step=S] parameter NAME [the model's last] gets no
//                                     gradient on rank R (from step S on [1]):
//                                     a branch taken on some ranks only
//   no-set-epoch                      the loop never calls sampler.set_epoch:
//                                     every epoch repeats epoch 0's order
//   no-sampler                        no DistributedSampler: every rank reads
//                                     the same batches
//   loss-not-divided                  with --accum, backward of the loss itself,
//                                     not loss / accum: gradients accum times
//                                     too large
//   seeds                             ranks seed differently (seed + rank) and
//                                     DDP's initial broadcast is left out
//   save-crash[:step=S]               the process is killed (SIGKILL) halfway
//                                     through writing the checkpoint of step S
//                                     [the first save]
//   same-rank                         every process reads RANK=0 (a batch
//                                     script that exported RANK=$SLURM_PROCID
//                                     once, before srun): init_process_group
//                                     fails (sim/train/launch.h)
//
// A plan is plain data, filled before the world starts and read-only while
// ranks run, so every rank may query it without locks.
#ifndef DDPLAB_SIM_FAULT_H
#define DDPLAB_SIM_FAULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h" // defines: SimStatus

#define SIM_FAULT_MAX 16          // faults in one plan
#define SIM_FAULT_PARAM_MAX 96    // length of a parameter name

typedef enum {
    SIM_FAULT_SKIP = 0,
    SIM_FAULT_MISMATCH,
    SIM_FAULT_REORDER,
    SIM_FAULT_CRASH,
    SIM_FAULT_SLOW_RANK,
    SIM_FAULT_SLOW_LINK,
    SIM_FAULT_UNUSED,
    SIM_FAULT_NO_SET_EPOCH,
    SIM_FAULT_NO_SAMPLER,
    SIM_FAULT_LOSS_NOT_DIVIDED,
    SIM_FAULT_SEEDS,
    SIM_FAULT_SAVE_CRASH,
    SIM_FAULT_SAME_RANK,
    SIM_FAULT_KIND_COUNT
} SimFaultKind;

typedef enum {
    SIM_FAULT_AS_COUNT = 0, // mismatch: one element fewer
    SIM_FAULT_AS_OP,        // mismatch: a broadcast from rank 0 instead
} SimFaultAs;

typedef struct {
    SimFaultKind kind;
    int rank;        // -1: not applicable (no-set-epoch, ..., save-crash)
    int64_t step;    // 1-based optimizer step; 0: not given (kind's default)
    int coll;        // K-th collective of the step (0-based)
    double factor;   // slow-rank, slow-link
    SimFaultAs as;   // mismatch
    char param[SIM_FAULT_PARAM_MAX]; // unused: "" = the model's last parameter
    char text[160];  // the spec as given, for messages and the trace
} SimFault;

typedef struct SimFaultPlan {
    int n;
    SimFault f[SIM_FAULT_MAX];
} SimFaultPlan;

// Parses one spec and appends it to plan. On failure writes one line into
// err naming the spec, the problem and what is allowed, and returns
// SIM_EINVAL (plan unchanged). Ranks are checked later (sim_fault_check),
// when the world size is known.
SimStatus sim_fault_parse(SimFaultPlan *plan, const char *spec, char *err, size_t errlen);
// Checks every fault against a world of nranks ranks (rank < nranks, and
// faults between ranks need nranks >= 2) and against the faults before it
// (two aimed at one collective of one rank and step, or a second fault of
// a kind a run takes once: the later one would never fire). SIM_EINVAL with
// one line in err. What depends on the run's length is checked by the
// trainer's set-up (sim/train/train_internal.h: sim_train_fault_setup).
SimStatus sim_fault_check(const SimFaultPlan *plan, int nranks, char *err, size_t errlen);
// 1 for the kinds aimed at one collective of one step: skip, mismatch,
// reorder, crash.
int sim_fault_at_one_coll(const SimFault *f);

// The kind's name as specs spell it ("skip", "slow-rank", ...).
const char *sim_fault_kind_name(SimFaultKind k);
// Two lines per kind for --help: its form, then what it does.
void sim_fault_help(FILE *out);

// Queries, all safe on a NULL plan (no faults).

// The first fault of kind k that applies to rank (any rank when rank < 0),
// or NULL.
const SimFault *sim_fault_find(const SimFaultPlan *plan, SimFaultKind k, int rank);
// The fault of kind skip, mismatch, reorder or crash aimed at rank's
// coll-th collective of step, or NULL.
const SimFault *sim_fault_at_coll(const SimFaultPlan *plan, int rank, int64_t step, int coll);
// slow-rank: the factor rank's compute is multiplied by at step (1 if none).
double sim_fault_compute_factor(const SimFaultPlan *plan, int rank, int64_t step);
// slow-link: the factor a transfer between src and dst is multiplied by
// (the larger of the two ranks' factors; 1 if none).
double sim_fault_link_factor(const SimFaultPlan *plan, int src, int dst);

#endif
