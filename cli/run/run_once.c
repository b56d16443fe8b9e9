// cli/run/run_once.c: one world, one run: the world of ranks for parsed
// options, the engine's training loop (sim/train/train.h) on every rank, then
// the metrics, trace and summary, and the exit code. `ddplab run` calls it
// once (run.c); an elastic run once per round (run_elastic.c) and a
// comparison once per side (run_compare.c), each through its hooks in
// RunOptions.
//
// Nothing is written before the inputs are known to be good: the metrics
// log is opened when the first step ends (run_metrics.h), checkpoints are
// written only after the set-up (which reads --init and --resume) has
// passed, and the trace is written at the end.
#include "run/run.h"

#include <stdlib.h>
#include <string.h>

#include "core/backends.h"        // defines: cli_backend_find
#include "core/cli.h"             // defines: CLI_EXIT_*
#include "run/run_compare.h"      // defines: RunCompareSide, run_compare_side_begin
#include "run/run_elastic.h"      // defines: RunElasticRound, run_elastic_round_*
#include "run/run_proc.h"         // defines: run_proc_prepare, run_proc_trace
#include "run/run_signal.h"       // defines: RunSignals, run_signal_begin
#include "strategy/layer_owner.h" // defines: sim_layer_owner_strategy
#include "trace/trace.h"          // defines: sim_trace_file_of, sim_trace_write_auto

#define RUN_TRACE_CAP 1000000 // trace events kept per rank

typedef struct {
    SimTrainer *trainers;     // [nranks]
    RunReport *rep;
} RunCtx;

static void on_ready(void *arg, int rank, const SimTrainer *t) {
    if (rank != 0)
        return;
    const RunReport *rep = arg;
    // an elastic round resumes at another world size by design, and says so
    if (t->note[0] && rep->o->elastic_round == NULL)
        run_error("--resume: note: %s", t->note);
    run_report_config(arg, t);
}

static void on_step(void *arg, int rank, const SimStepStats *s) {
    if (rank == 0)
        run_report_step(arg, s);
}

static void on_eval(void *arg, int rank, const SimEvalStats *s) {
    if (rank == 0)
        run_report_eval(arg, s);
}

static void on_probe(void *arg, int rank, const SimProbeStats *s) {
    if (rank == 0)
        run_report_probe(arg, s);
}

// Runs the engine's loop, reports, and frees the rank's state on its own thread.
static SimStatus rank_main(SimRank *r, void *arg) {
    RunCtx *ctx = arg;
    SimStatus st = sim_train_run(r, ctx->trainers);
    if (st == SIM_OK && r->rank == 0)
        run_report_summary(ctx->rep, &ctx->trainers[0]);
    sim_train_free(&ctx->trainers[r->rank], r);
    return st;
}

static int write_trace(const RunOptions *o, const SimWorld *w) {
    SimTraceFile kind = sim_trace_file_of(o->trace);
    SimStatus st = sim_trace_write_auto(w->trace, o->trace); // format by the name
    if (st != SIM_OK) {
        run_error("--trace: cannot write '%s': %s", o->trace, sim_strerror(st));
        return CLI_EXIT_INTERNAL;
    }
    size_t events = 0;
    for (int r = 0; r < sim_trace_nranks(w->trace); r++)
        events += sim_trace_rank_count(w->trace, r);
    printf("trace: %s (%zu events", o->trace, events);
    if (sim_trace_dropped(w->trace) > 0)
        printf("; %zu more dropped beyond %d per rank", sim_trace_dropped(w->trace),
               RUN_TRACE_CAP);
    printf(kind == SIM_TRACE_FILE_BIN     ? "; for ddplab replay)\n"
           : kind == SIM_TRACE_FILE_JSONL ? "; JSON lines)\n"
                                          : "; open it in https://ui.perfetto.dev)\n");
    return CLI_EXIT_OK;
}

// The engine's configuration from the options; CLI_EXIT_OK or a usage error.
static int make_config(const RunOptions *o, const SimDataset *ds, SimTrainConfig *c) {
    sim_train_config_default(c);
    c->model = o->model;
    c->data.set = ds;
    c->data.batch = o->batch;
    c->loop.accum = o->accum;
    c->loop.accum_tail = o->accum_tail; // before the steps of --epochs
    c->data.shuffle = o->shuffle;
    c->data.drop_last = o->drop_last;
    c->data.sampler_drop_last = o->sampler_drop_last;
    c->data.stream = (SimStreamSeeds)o->stream;
    c->seed = o->seed;
    c->rng = (SimRngKind)o->rng;
    c->opt = o->opt;
    c->want_grad_norm = o->metrics != NULL;
    c->ckpt.init_path = o->init;
    c->ckpt.resume_path = o->resume;
    c->ckpt.save_path = o->save;
    c->ckpt.save_every = o->save_every;
    c->faults = &o->faults; // before the steps of --epochs (no-sampler)
    if (o->steps > 0)
        c->loop.steps = o->steps;
    else if (o->epochs > 0)
        c->loop.steps = sim_train_steps_for_epochs(c, run_sampler_replicas(o), o->epochs);
    if (c->loop.steps < 1) {
        run_error("--epochs: '%lld' epochs of %lld batches make no optimizer step of --accum %d "
                  "batches; allowed: more epochs or a smaller --accum", (long long)o->epochs,
                  (long long)sim_train_batches_per_epoch(c, run_sampler_replicas(o)), o->accum);
        return CLI_EXIT_USAGE;
    }
    c->loop.stop_after = o->stop_after;
    c->loop.accum_sync_every = o->accum_sync_every;
    c->loop.zero_grad_after_step = o->zero_grad_after_step;
    c->loop.set_to_none = o->set_to_none;
    // the gradients own their memory on one rank and under ddp, unless they
    // are views into the buckets (then the reducer holds it)
    c->loop.set_to_none_frees =
        o->set_to_none && (strcmp(o->strategy, "single") == 0 ||
                           (strcmp(o->strategy, "ddp") == 0 && !o->ddp.gradient_as_bucket_view));
    c->eval.every = o->eval_every;
    c->eval.probe = o->probe;
    run_loader_config(o, &c->data.stage); // --loader-workers, --sample-cost, ...
    if (strcmp(o->strategy, "ddp") == 0) {
        c->strategy = &sim_ddp_strategy;
        c->strategy_cfg = &o->ddp;
        // without the broadcast, ranks show their own initialisations
        c->init_seed_per_rank = !o->ddp.init_broadcast;
        c->loop.loss_log = o->loss_log;
        c->data.uneven = o->uneven;
        c->eval.variant = o->eval_variant;
        c->data.join = o->join;
        // under Join the logged loss is each rank's own unless asked: the
        // logging all_reduce is not shadowed (asking shows the hang)
        if (o->join && !o->loss_log_set)
            c->loop.loss_log = SIM_LOSS_LOCAL;
    } else if (strcmp(o->strategy, "dp") == 0) {
        c->strategy = &sim_dp_strategy;
        c->strategy_cfg = &o->dp;
    } else if (run_fsdp_is_strategy(o->strategy)) {
        c->strategy = &sim_fsdp_strategy;
        c->strategy_cfg = &o->fsdp;
        c->loop.loss_log = o->loss_log;
    } else if (strcmp(o->strategy, "layer-owner") == 0) {
        // the wrong picture of FSDP, for the lessons (sim/strategy/layer_owner.h)
        c->strategy = &sim_layer_owner_strategy;
    }
    SimLrSchedule sched;
    char err[512];
    if (sim_lr_schedule_make(&sched, &c->opt.lr, c->opt.optim.lr, run_sampler_replicas(o), c->loop.accum, c->loop.steps,
                             err, sizeof err) != SIM_OK) {
        run_error("%s", err);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

// The trainer whose error explains a failed run: one that failed on bad
// input, else a rank that --fault crash killed (its peers' timeout follows
// from it; sim/engine/comm_fault.c words it "rank R crashed (injected fault ...)"),
// else the lowest rank that failed for a reason of its own (others only say
// they were aborted), else rank 0.
static const SimTrainer *failed_trainer(const SimTrainer *t, int n) {
    for (int i = 0; i < n; i++)
        if (t[i].bad_input)
            return &t[i];
    // a rank that stopped on an error of its own (DDP's "Expected to have
    // finished reduction ..." under --fault unused, a --fault crash)
    // explains its peers' watchdog timeouts
    for (int i = 0; i < n; i++)
        if (t[i].error[0] && strstr(t[i].error, sim_strerror(SIM_ETIMEDOUT)) == NULL &&
            strstr(t[i].error, sim_strerror(SIM_EABORTED)) == NULL)
            return &t[i];
    for (int i = 0; i < n; i++)
        if (t[i].error[0] && strstr(t[i].error, sim_strerror(SIM_EABORTED)) == NULL)
            return &t[i];
    return &t[0];
}

static int exit_for(SimStatus st, const SimTrainer *t) {
    if (t->bad_input)
        return CLI_EXIT_USAGE;
    if (run_diag_is_diagnosed(st) || st == SIM_EABORTED)
        return CLI_EXIT_DIST;
    return CLI_EXIT_INTERNAL;
}

// Uneven inputs without join: which ranks left the loop, and why the others
// then waited for ever.
static void uneven_note(const SimTrainer *t, int n) {
    char ranks[128] = "";
    size_t len = 0;
    int count = 0;
    for (int i = 0; i < n; i++)
        if (t[i].out_of_data && len < sizeof ranks) {
            len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d", count ? ", " : "",
                                    i);
            count++;
        }
    if (count > 0)
        run_error("rank%s %s ran out of data (--uneven) and left the training loop; the ranks "
                  "that still had data waited in an all_reduce it never entered (add --join: "
                  "ranks out of data then shadow the others' collectives)",
                  count > 1 ? "s" : "", ranks);
}

// The world, the run, the files. Returns the exit code.
int run_once(RunOptions *o, SimTrainConfig *c) {
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = o->nranks;
    wc.nodes = o->nodes;
    wc.profile = o->sys;
    wc.device = o->device; // --gpu; all zero: the profile's device
    wc.watchdog_s = o->watchdog_s;
    // the trace costs memory and time: only when asked (or a view needs it)
    wc.trace = o->trace != NULL || cli_viz_wanted(&o->viz);
    wc.trace_max_per_rank = RUN_TRACE_CAP;
    wc.device_memory = o->device_memory; // 0: unlimited
    wc.phantom = o->phantom;             // --phantom: shapes only
    wc.faults = &o->faults;
    wc.algo = o->algo; // --algo: every strategy's collectives, NCCL_ALGO on GPUs
    wc.backend_opt.allow_tf32 = o->tf32;
    wc.backend_opt.coll_impl = o->coll_impl;
    wc.backend_opt.rendezvous = o->rendezvous; // NULL: this process runs every rank
    run_proc_prepare(o);
    SimWorld w;
    SimStatus wst = sim_world_init(&w, &wc, cli_backend_find(o->backend));
    if (wst != SIM_OK) {
        run_error("cannot start the ranks: %s%s", sim_world_error(&w),
                  wst == SIM_ENODEV ? "; --backend cpu runs the same configuration on "
                                      "simulated ranks" : "");
        sim_world_free(&w);
        return CLI_EXIT_INTERNAL;
    }
    run_viz_info(o, c, &w);
    RunMetrics metrics;
    if (run_metrics_init(&metrics, o->metrics) != 0) {
        run_error("--metrics: cannot write '%s' (the file, or its directory, is not writable)",
                  o->metrics);
        sim_world_free(&w);
        return CLI_EXIT_INTERNAL;
    }
    RunReport rep;
    run_report_init(&rep, o, c->data.set, c, &metrics);
    rep.world = &w;
    c->hooks.on_ready = on_ready;
    c->hooks.on_ready_arg = &rep;
    c->hooks.on_step = on_step;
    c->hooks.on_step_arg = &rep;
    c->hooks.on_eval = on_eval;
    c->hooks.on_eval_arg = &rep;
    c->hooks.on_probe = on_probe;
    c->hooks.on_probe_arg = &rep;
    o->ddp.print_buckets = o->print_buckets ? stdout : NULL;
    o->fsdp.print_units = o->print_units ? stdout : NULL;
    SimTrainer *trainers = calloc((size_t)o->nranks, sizeof *trainers);
    if (trainers == NULL) {
        run_error("out of memory for %d ranks", o->nranks);
        sim_world_free(&w);
        return CLI_EXIT_INTERNAL;
    }
    for (int i = 0; i < o->nranks; i++)
        trainers[i].cfg = c;
    RunCtx ctx = {trainers, &rep};
    int view_rc = CLI_EXIT_OK;
    RunSignals sigs; // Ctrl-C: the ranks stop, no file is written (run_signal.h)
    run_signal_begin(&sigs, &w, c);
    if (o->elastic_round) // --elastic: this world is one round (run_elastic.c)
        run_elastic_round_begin(o->elastic_round, c);
    if (o->compare_side) // one side of --compare-backends / --compare-with
        run_compare_side_begin(o->compare_side, c, &w);
    SimStatus st = cli_viz_interactive(&o->viz)
                       ? run_viz_live(o, &w, rank_main, &ctx, &view_rc)
                       : sim_world_run(&w, rank_main, &ctx);
    if (o->elastic_round)
        st = run_elastic_round_end(o->elastic_round, &w, trainers, st);
    int rc = CLI_EXIT_OK;
    int sig = run_signal_end_run(&sigs);
    // the lines of the steps that finished stay, however the run ended; a
    // run that succeeds without a step of its own (resumed at its end)
    // still cuts the log back to the checkpoint's step
    if (st == SIM_OK && sig == 0)
        run_metrics_file(&metrics, trainers[0].step + 1);
    int metrics_rc = run_metrics_close(&metrics);
    if (sig != 0) {
        if (rep.bar && rep.nsteps > 0)
            fputc('\n', stderr);
        rc = run_signal_interrupted(o, c, &trainers[0], &metrics, sig);
    } else if (st != SIM_OK) {
        if (rep.bar && rep.nsteps > 0)
            fputc('\n', stderr); // end the bar's line before the message
        const SimTrainer *ft = failed_trainer(trainers, o->nranks);
        run_error_text(ft->error[0] ? ft->error : sim_world_error(&w));
        run_diag_report(o, &w, st, ft->error[0] ? ft->error : sim_world_error(&w));
        rc = exit_for(st, ft);
        if (run_memory_oom(o, c, &w))
            rc = CLI_EXIT_CHECK; // the configuration does not fit --device-memory
        // bad input is one line: the notes explain a distributed failure
        if (rc != CLI_EXIT_USAGE)
            uneven_note(trainers, o->nranks);
        if (rc != CLI_EXIT_USAGE && c->eval.every > 0 && c->eval.variant == SIM_EVAL_RANK0_ONLY &&
            o->nranks > 1)
            run_error("--eval-variant rank0-only: rank 0 evaluated and entered the metrics "
                      "all_reduce alone; the other ranks went on to their next collective "
                      "(evaluate on every rank: --eval-variant right)");
    } else if (metrics_rc != 0) {
        run_error("--metrics: cannot write '%s' (disk full?)", o->metrics);
        rc = CLI_EXIT_INTERNAL;
    }
    if (rc == CLI_EXIT_OK) // the summary's last line, now that no rank appends events
        run_report_overlap(&w, o->trace);
    if (rc == CLI_EXIT_OK) // each rank's wait for data (--sample-cost), the ranks done
        run_loader_report(o, trainers, &w);
    if (rc == CLI_EXIT_OK && o->rendezvous == NULL) // a process knows its own rank's only
        run_memory_table(o, &w);
    // A run that hung or ran out of memory keeps its trace: it shows where
    // it stopped. Bad input leaves no files.
    if (o->trace && (rc == CLI_EXIT_OK || rc == CLI_EXIT_DIST || rc == CLI_EXIT_CHECK)) {
        int trc = o->rendezvous      ? run_proc_trace(o, &w, rc)
                  : o->elastic_round ? run_elastic_round_trace(o->elastic_round, &w)
                                     : write_trace(o, &w);
        if (rc == CLI_EXIT_OK)
            rc = trc;
    }
    rc = run_signal_end(&sigs, rc);
    if (rc == CLI_EXIT_OK)
        rc = cli_viz_interactive(&o->viz) ? view_rc : run_viz_after(o, &w);
    sim_world_free(&w);
    free(trainers);
    return rc;
}

int run_prepare(RunOptions *o, SimDataset *ds, SimTrainConfig *c) {
    int rc = run_data_load(o, ds);
    // --fault seeds: per-rank seeds (the trainer's) without DDP's broadcast
    if (sim_fault_find(&o->faults, SIM_FAULT_SEEDS, -1))
        o->ddp.init_broadcast = 0;
    if (rc == CLI_EXIT_OK)
        rc = make_config(o, ds, c);
    if (rc == CLI_EXIT_OK)
        rc = run_data_save(o, ds);
    return rc;
}
