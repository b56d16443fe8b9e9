// cli/run/run.h: `ddplab run`, training on simulated ranks, split by duty:
//   run_opts.c     the option table (its rows: run_rows*.c and the parts'
//                  own files, run_opts.h) and the help text
//   run_parse.c    parsing and checking the command line
//   run_data.c     the dataset the options name, and the model fitted to it
//   run_data_save.c  --save-data: the dataset as .npy files for a PyTorch script
//   run_report.c   the configuration table, progress, metrics lines, summary
//   run_metrics.c  the --metrics file, a log appended as each step ends
//   run_msg.c      the one-line messages (run_error, run_opt_fail)
//   run_once.c     one world, one run: the world, the loop on every rank, the files
//   run.c          run_main: which kind of run the options ask for
//   run_launch.c   --fault same-rank: init_process_group fails before any step
// and the kinds of run built from run_once: run_elastic*.c (rounds of
// worlds), run_compare*.c (two runs compared stage by stage); run_async.c
// runs the parameter servers of its own. The training loop itself is the
// engine's (sim/train/train.h), the same for every strategy.
#ifndef DDPLAB_CLI_RUN_H
#define DDPLAB_CLI_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "core/optable.h"        // defines: CliOptTable
#include "core/viz_cli.h"        // defines: CliViz
#include "cost/cost.h"           // defines: SimSysProfile
#include "cost/memory_formula.h" // defines: SimMemfPlan
#include "data/dataset.h"        // defines: SimDataset
#include "engine/fault.h"        // defines: SimFaultPlan
#include "model/model.h"         // defines: SimModelSpec
#include "model/optim_flags.h"   // defines: SimOptimFlags
#include "run/run_metrics.h"     // defines: RunMetrics
#include "strategy/ddp.h"        // defines: SimDdpOptions
#include "strategy/dp.h"         // defines: SimDpOptions
#include "strategy/fsdp.h"       // defines: SimFsdpOptions
#include "train/train.h"         // defines: SimTrainConfig, SimStepStats

// Everything the command line says, checked.
typedef struct {
    const char *strategy;     // "single", "ddp" or "dp"
    int nranks;               // 1 with single
    int nodes;                // --nodes (divides nranks)
    int accum_sync_every;     // --accum-sync every
    SimLossLog loss_log;      // --loss-log (ddp; default avg)
    SimAccumTail accum_tail;  // --accum-tail
    int zero_grad_after_step; // --zero-grad after-step
    int set_to_none;          // --set-to-none
    int uneven;               // --uneven K (ddp)
    int join;                 // --join (ddp)
    int loss_log_set;         // 1: --loss-log was given
    double watchdog_s;        // --watchdog (default 5)
    int64_t eval_every;       // --eval-every (0: none)
    SimEvalVariant eval_variant; // --eval-variant (ddp)
    int probe;                // --probe (ddp): the probe batch after the last step
    SimAlgo algo;             // --algo: the world's collectives (SimWorldConfig.algo)
    const char *algo_text;    // --algo as given (NULL: auto)
    SimDdpOptions ddp;        // --strategy ddp's options (print_buckets set by run.c)
    SimDpOptions dp;          // --strategy dp's options (defaults)
    SimFsdpOptions fsdp;      // --strategy fsdp / zero1-3 options (print_units set by run.c)
    const char *fsdp_flag;    // the first fsdp-only option given, for messages
    int sharding_set;         // 1: --sharding was given
    int state_dict_set;       // 1: --state-dict was given
    int print_units;          // --print-units
    int print_buckets;
    const char *ddp_flag;     // the first ddp-only option given, for messages
    int sync_bn;              // --sync-bn (copied into model.sync_bn)
    const char *powersgd_flag; // the first --powersgd-* option given, for messages
    const char *backend;
    const char *profile;      // built-in name or file, as given
    SimSysProfile sys;
    const char *gpu;          // --gpu as given (NULL: the profile's device)
    SimDeviceProfile device;  // resolved --gpu; all zero without it
    const char *model_text;   // NULL: fitted to the data
    SimModelSpec model;       // parsed model_text (valid when model_text)
    const char *data;         // synthetic spec or .npy file
    const char *labels;       // .npy file (with --data X.npy)
    const char *text;         // text file (token data)
    int batch;
    int64_t steps;            // 0: from epochs (or the default)
    int64_t epochs;           // 0: not given
    int64_t stop_after;       // 0: not given
    int accum;
    int shuffle, drop_last;
    int sampler_drop_last; // DistributedSampler(drop_last=...): --sampler-drop-last
    uint64_t seed;
    int rng;                  // SimRngKind: --rng ddplab|torch
    int stream;               // SimStreamSeeds: --stream off|rank|shared
    const char *save_data;    // --save-data DIR, or NULL
    SimOptimFlags opt;        // validated
    const char *metrics;      // output files, or NULL
    const char *save;
    int64_t save_every;
    const char *resume;       // input files, or NULL
    const char *init;
    const char *trace;
    int64_t log_every;        // 0: about ten lines per run
    int progress;             // -1 auto (a bar when stderr is a terminal), 0 lines, 1 bar
    uint64_t device_memory;   // --device-memory: each rank's device capacity in bytes
                              // for the memory ledger (0: unlimited)
    const char *device_memory_text; // as given (a size or a device name)
    int phantom;              // --phantom: shapes only (SimWorldConfig.phantom)
    CliViz viz;               // --viz, --png, --plot, ... (cli/core/viz_cli.h)
    SimFaultPlan faults;      // --fault SPEC, checked against -n
    const char *diagnosis;    // --diagnosis FILE; NULL: none
    int tf32;                 // --tf32 (cuda)
    const char *coll_impl;    // --coll-impl (cuda); NULL: auto
    const char *rendezvous;   // --rendezvous SPEC (run_proc.h); NULL: this process
                              // runs every rank
    int proc_rank;            // with --rendezvous: this process's rank (the launcher's)
    // the input pipeline (run_loader.c)
    int loader_workers;       // --loader-workers (0: the loop loads)
    int prefetch;             // --prefetch (2)
    double sample_cost;       // --sample-cost seconds per sample (0: no data stage)
    int pin_memory;           // --pin-memory (1)
    const char *loader_flag;  // the first data-stage option given other than
                              // --sample-cost, for messages (NULL: none)
    const char *loader_value; // its value as given
    const char *prefetch_text; // --prefetch as given (NULL: not given)
    // asynchronous data parallel with a parameter server (run_async.c)
    int ps_servers;           // --ps-servers (1)
    int max_staleness;        // --max-staleness (-1: unbounded)
    int ps_compare;           // --compare-ddp
    const char *async_flag;   // the first async-ps option given, for messages
    // elastic training (run_elastic.c)
    int elastic_min, elastic_max; // --elastic MIN:MAX (0:0: not elastic)
    int max_restarts;         // --max-restarts (3)
    const char *membership[16]; // --membership SPECs, as given
    int nmembership;
    const char *elastic_flag, *elastic_value; // the first --max-restarts or --membership
                              // given and its value, for messages
    const char *compare_backends; // --compare-backends A,B as given (NULL: none)
    const char *compare_with; // --compare-with OPTIONS as given (NULL: none)
    int64_t compare_max_ulp;  // --compare-max-ulp (-1: no check)
    struct RunCompareSide *compare_side; // run_once's stage hook for one side of
                              // a comparison (cli/run/run_compare.h); NULL: none
    struct RunElasticRound *elastic_round; // run_once's hooks for one elastic round
                              // (cli/run/run_elastic.h); NULL: an ordinary run
} RunOptions;

// RUN_PARSE_UNAVAILABLE: the options are good, but the backend they name is
// a plugin that cannot be loaded (exit CLI_EXIT_INTERNAL, not a usage error).
typedef enum { RUN_PARSE_OK, RUN_PARSE_HELP, RUN_PARSE_ERROR, RUN_PARSE_UNAVAILABLE } RunParse;

// Parses argv[1..argc) (argv[0] is "run"). On a bad value prints exactly one
// line to stderr and returns RUN_PARSE_ERROR (RUN_PARSE_UNAVAILABLE when
// --backend's plugin cannot be loaded); on --help returns RUN_PARSE_HELP.
// Strings in o point into argv.
RunParse run_opts_parse(int argc, char **argv, RunOptions *o);
// The sampler replicas the ranks split each epoch into: the ranks, except
// under dp, where one loader draws whole batches that the devices split (1).
int run_sampler_replicas(const RunOptions *o);
// The options' table: its rows, sections and help (run_opts.c, run_opts.h).
const CliOptTable *run_optab(void);
// FSDP and ZeRO (run_fsdp.c): 1 if the strategy is fsdp, zero1, zero2 or
// zero3; their checks against the rest (and the zero stage's sharding
// filled in).
int run_fsdp_is_strategy(const char *name);
RunParse run_fsdp_check(RunOptions *o);
// The input pipeline (run_loader.c): its checks.
RunParse run_loader_check(RunOptions *o);
// The engine's data stage from the options (make_config); after the run,
// the line of each rank's data wait (nothing when the stage is off).
void run_loader_config(const RunOptions *o, SimDataStage *out);
void run_loader_report(const RunOptions *o, const SimTrainer *t, const SimWorld *w);
// Asynchronous data parallel (run_async.c): 1 if the strategy is async-ps;
// its checks; the whole run (the exit code).
int run_async_is_strategy(const char *name);
RunParse run_async_check(RunOptions *o);
int run_async_train(RunOptions *o, SimTrainConfig *c);
// Elastic training (run_elastic.c): its checks; the whole run with its
// restarts (the exit code).
RunParse run_elastic_check(RunOptions *o);
int run_elastic_train(RunOptions *o, SimTrainConfig *c);
// Two runs of one configuration compared (run_compare.c): the checks of
// --algo and the --compare-* options; the comparison (the exit code), given
// the command line the options came from.
RunParse run_compare_check(RunOptions *o);
int run_compare_main(int argc, char **argv, RunOptions *o);
// One world, one run (run_once.c): the exit code.
int run_once(RunOptions *o, SimTrainConfig *c);
// The dataset and the engine's configuration for parsed options (run_once.c):
// CLI_EXIT_OK, or the exit code after one line on stderr. ds must be freed
// with sim_dataset_free whatever the result.
int run_prepare(RunOptions *o, SimDataset *ds, SimTrainConfig *c);
// A bad option value: "ddplab run: --OPT: 'VAL' WHAT; allowed: ALLOWED" as
// one line on stderr (VAL shown printable and cut short; the option tables'
// wording, core/optable.h); RUN_PARSE_ERROR.
RunParse run_opt_fail(const char *opt, const char *val, const char *what,
                      const char *allowed);
// Prints "ddplab run: <fmt>" as one line on stderr.
void run_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// "ddplab run: MSG" as it is, line breaks included: the failure of a run as
// the engine wrote it (PyTorch's multi-line texts, then ddplab's diagnosis).
void run_error_text(const char *msg);

// The dataset the options name, and the model when --model was not given.
// Prints one line and returns CLI_EXIT_USAGE on bad input.
int run_data_load(RunOptions *o, SimDataset *ds);
// --save-data DIR: writes the dataset as .npy files (none without it).
int run_data_save(const RunOptions *o, const SimDataset *ds);

// Output.
typedef struct {
    const RunOptions *o;
    const SimDataset *ds;
    const SimTrainConfig *cfg;
    RunMetrics *metrics;      // the --metrics log (run_metrics.h), or NULL
    int bar;                  // 1: progress bar on stderr
    int64_t log_every;
    int64_t end;              // the last step this process takes
    double last_draw;         // wall time of the last bar update
    double wall_start;
    SimStepStats last;        // the last step's numbers
    const SimWorld *world;    // rank 0's memory ledger for the metrics lines (read
                              // on rank 0's thread only while the ranks run)
    int64_t nsteps;           // steps taken by this process
    int64_t samples;          // samples they trained on
    int64_t first_nonfinite;  // the first step whose loss was inf or NaN (0: none)
} RunReport;

void run_report_init(RunReport *rep, const RunOptions *o, const SimDataset *ds,
                     const SimTrainConfig *cfg, RunMetrics *metrics);
// The `| key | value |` table of the configuration, on stdout.
void run_report_config(RunReport *rep, const SimTrainer *t);
// One step: the metrics line, the bar or a periodic line.
void run_report_step(RunReport *rep, const SimStepStats *s);
// One evaluation (rank 0's view): a line on stderr and one in --metrics.
void run_report_eval(RunReport *rep, const SimEvalStats *s);
// --probe: each rank's own training loss beside its probe loss, and whether
// the probe losses agree (stdout).
void run_report_probe(RunReport *rep, const SimProbeStats *s);
// The final summary, on stdout.
void run_report_summary(RunReport *rep, const SimTrainer *t);
// After the world's ranks have all returned (it reads every rank's trace
// buffer): how much of the run's communication ran under compute, on both
// clocks (sim/trace/trace_report.h), as one line of the summary; nothing without
// a trace or without communication in the steps.
void run_report_overlap(const SimWorld *w, const char *trace_path);

// A failed run's diagnosis (run_diag.c): when st is a failure the backend
// diagnosed (run_diag_is_diagnosed: SIM_ETIMEDOUT, SIM_EPROTO,
// SIM_ECRASHED) and it left a text (sim_world_diagnosis), prints that text
// on stderr unless `shown` (the message already printed, may be NULL)
// holds it, writes it atomically to o->diagnosis (when not NULL) and says
// "diagnosis written to FILE" on stdout. A file that cannot be written is
// reported on stderr; the exit code stays the run's.
int run_diag_is_diagnosed(SimStatus st);
void run_diag_report(const RunOptions *o, const SimWorld *w, SimStatus st, const char *shown);
// The file part alone: text d written atomically to o->diagnosis (nothing
// when either is NULL or d is empty), then "diagnosis written to FILE". An
// elastic run writes its last round's diagnosis this way only when the run
// as a whole fails (run_elastic.c).
void run_diag_write(const RunOptions *o, const char *d);

// --fault same-rank (run_launch.c): every process read RANK=0. The check
// refuses what it cannot be combined with (one line; -1), else 0. The run
// prints what init_process_group does in each process and the diagnosis
// (also to --diagnosis), and returns CLI_EXIT_DIST: no step runs.
int run_launch_check(const RunOptions *o);
int run_launch_fault(const RunOptions *o);

// Memory (run_memory.c), read after the ranks have finished: the table of
// every rank's peak by category on stdout, and the out-of-memory report on
// stderr: the failed rank's ledger at the refusal, the closed forms
// (sim/cost/memory_formula.h) and what would fit, each candidate measured by
// run_memory_need. run_memory_oom returns 1 when a rank ran out of
// --device-memory (and reports it), else 0 (and prints nothing).
void run_memory_table(const RunOptions *o, const SimWorld *w);
int run_memory_oom(const RunOptions *o, const SimTrainConfig *c, const SimWorld *w);
// What this run (c: its model, data and optimizer; o: its strategy options)
// would hold per rank under `plan` on nranks ranks with micro-batches of
// `batch` and `accum` of them per step: rank 0's device and host peaks over
// two phantom steps (run_memory_need.c). Returns 1, or 0 when the
// configuration could not be measured.
int run_memory_need(const RunOptions *o, const SimTrainConfig *c, SimMemfPlan plan, int nranks,
                    int batch, int accum, double *device, double *host);
// The same for this DataParallel run at a global batch of `batch` (split over
// the devices) and `accum` micro-steps: device 0's peak, every rank run.
int run_memory_need_dp(const RunOptions *o, const SimTrainConfig *c, int batch, int accum,
                       double *device);

// run_viz.c: the run's description in its trace (title, hardware, device
// memory); the text view, --png and charts after the run; the interactive
// views live beside it (the ranks' status returned, the view's exit code
// in *view_rc).
void run_viz_info(const RunOptions *o, const SimTrainConfig *c, SimWorld *w);
int run_viz_after(const RunOptions *o, SimWorld *w);
SimStatus run_viz_live(const RunOptions *o, SimWorld *w, SimRankMain fn, void *arg,
                       int *view_rc);

// `ddplab run ...`: argv[0] is "run". Returns an exit code.
int run_main(int argc, char **argv);
// Prints the full help of `ddplab run`.
void run_help(FILE *out);

#endif
