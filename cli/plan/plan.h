// cli/plan/plan.h: `ddplab plan`, a training configuration at any scale run in
// phantom mode (DESIGN.md section 4): the real strategy code on shape-only
// tensors, one rank standing for all of them, so the memory ledger and the
// simulated step are those a numeric run of the same configuration would
// give. Split by duty:
//   plan_opts.c    the option table (core/optable.h) and the help
//   plan_parse.c   parsing, and the checks of the options together
//   plan_run.c     one configuration: world, model, strategy, two steps,
//                  and what the ledger and the trace say
//   plan_report.c  the tables: memory, the two accountings, the step time,
//                  --compare and --sweep
//   plan.c         plan_main: one plan, --compare or --sweep
#ifndef DDPLAB_CLI_PLAN_H
#define DDPLAB_CLI_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "core/optable.h"  // defines: CliOptTable
#include "cost/cost.h"     // defines: SimSysProfile, SimDeviceProfile
#include "engine/memory.h" // defines: SimMemLedger
#include "model/model.h"   // defines: SimModelSpec
#include "strategy/ddp.h"  // defines: SimDdpOptions
#include "strategy/fsdp.h" // defines: SimFsdpOptions

#define PLAN_MAX_SWEEP 64

typedef struct {
    const char *model_text;   // --model (preset or spec)
    SimModelSpec model;
    int nranks;               // --ranks, or nodes x gpus_per_node
    int nodes, gpus_per_node; // --nodes, --gpus-per-node
    const char *gpu;          // --gpu
    SimDeviceProfile device;
    const char *system;       // --system (links between GPUs and nodes)
    SimSysProfile sys;
    const char *strategy;     // single, ddp, fsdp, zero1, zero2, zero3
    SimAlgo algo;             // --algo: ddp's, fsdp's and ZeRO's collectives
    SimFsdpOptions fsdp;      // fsdp's and ZeRO's options
    SimDdpOptions ddp;        // ddp's
    int micro_batch, seq, accum;
    int accum_sync_every;     // --accum-sync every: 1 (no no_sync between micro-steps)
    const char *amp;          // fp32, bf16, fp16
    const char *optimizer;    // adamw, adam, sgd
    const char *ckpt;         // activation checkpointing: none, selective, full
    const char *attention;    // the gpt family's attention core: flash, eager
    uint64_t capacity;        // --device-memory (0: the device's)
    int compare;              // --compare
    int nsweep;               // --sweep ranks=...
    int sweep[PLAN_MAX_SWEEP];
    const char *plot;         // --plot FILE.png (with --sweep)
    const char *trace;        // --trace FILE (Chrome JSON of the simulated steps)
    int quiet;                // --quiet: the verdict line only
} PlanOptions;

typedef enum { PLAN_PARSE_OK, PLAN_PARSE_HELP, PLAN_PARSE_ERROR } PlanParse;

// Parses argv[1..argc). On a bad value prints one line on stderr.
PlanParse plan_opts_parse(int argc, char **argv, PlanOptions *o);
// The options' table (plan_opts.c).
const CliOptTable *plan_optab(void);
// `ddplab plan ...`: argv[0] is "plan". Returns an exit code (1 when the
// configuration does not fit).
int plan_main(int argc, char **argv);
void plan_help(FILE *out);
// Prints "ddplab plan: <fmt>" as one line on stderr.
void plan_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// What one configuration gives (rank 0 standing for every rank).
typedef struct {
    int ok;
    char error[2560];
    const char *strategy_label; // e.g. "fsdp full_shard", "ddp"
    int nranks, nodes;
    int64_t params;             // parameters of the model
    size_t largest_unit;        // FSDP's largest unit (0: not sharded)
    SimMemLedger mem;           // rank 0's ledger after the steps
    uint64_t capacity;          // the device's memory (or --device-memory)
    int fits;                   // peak <= capacity
    double step_s;              // simulated time of one optimizer step
    double compute_s;           // compute-stream busy time in it
    double comm_s;              // communication-stream busy time in it
    double host_s;              // time the compute stream waited for the host (CPU
                                // offload: copies and the optimizer step there)
    double exposed_s;           // time the compute stream waited for communication
    int allreduce_by[SIM_ALGO_COUNT]; // rank 0's all_reduce calls in the step, by the
                                      // algorithm that ran (--algo nccl chooses per call)
    double tokens_per_step;     // over all ranks
    double flops_per_step;      // model FLOPs of a step, over all ranks (6Ψ + attention)
    double hw_flops_per_step;   // and what it recomputes (checkpointing, flash's backward)
    double mfu;                 // flops_per_step / (step_s x peak x ranks)
    double hfu;                 // hw_flops_per_step / (step_s x peak x ranks)
    double wall_s;              // what planning took
} PlanResult;

// Runs configuration o on R = o->nranks ranks (o->nodes nodes). Writes
// o->trace when set. Returns 0, or an exit code (result's error says why).
int plan_run(const PlanOptions *o, PlanResult *res);

// Output (plan_report.c).
void plan_report(FILE *out, const PlanOptions *o, const PlanResult *r);
void plan_report_compare(FILE *out, const PlanOptions *o, const PlanResult *r, int n);
void plan_report_sweep(FILE *out, const PlanOptions *o, const PlanResult *r, int n);
// --plot FILE with --sweep (plan_plot.c): throughput and peak memory per
// GPU against the ranks, the capacity marked. Returns an exit code.
int plan_plot_sweep(const PlanOptions *o, const PlanResult *r, int n);

#endif
