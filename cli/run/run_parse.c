// cli/run/run_parse.c: parsing the command line of `ddplab run`: each value
// alone by the option table (run_opts.c), then the values together here
// (strategy and ranks, steps and epochs, input and output files, the
// optimizer family's cross-checks, the hardware profile).
//
// Every rejected value produces exactly one line on stderr of the form
//   ddplab run: --option: 'value' is ...; allowed: ...
// and nothing else happens: no world is created and no file is written.
#include "run/run.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/backends.h" // defines: cli_backend_find, cli_backend_load_error, cli_backend_default
#include "core/opts.h"     // defines: cli_opt_output_problem
#include "run/run_proc.h"  // defines: run_proc_check

int run_sampler_replicas(const RunOptions *o) {
    return strcmp(o->strategy, "dp") == 0 ? 1 : o->nranks;
}

// ----------------------------------------------------------------------------
// files

static RunParse check_output(const char *opt, const char *path) {
    const char *what, *allowed;
    if (cli_opt_output_problem(path, &what, &allowed))
        return run_opt_fail(opt, path, what, allowed);
    return RUN_PARSE_OK;
}

static RunParse check_input(const char *opt, const char *path) {
    struct stat st;
    if (path[0] == '\0')
        return run_opt_fail(opt, path, "is empty", "a readable file");
    if (stat(path, &st) != 0) {
        char what[160];
        snprintf(what, sizeof what, "cannot be read: %s", strerror(errno));
        return run_opt_fail(opt, path, what, "a readable file");
    }
    if (S_ISDIR(st.st_mode))
        return run_opt_fail(opt, path, "is a directory", "a readable file");
    if (access(path, R_OK) != 0)
        return run_opt_fail(opt, path, "cannot be read: permission denied", "a readable file");
    return RUN_PARSE_OK;
}

static int same(const char *a, const char *b) {
    return a && b && strcmp(a, b) == 0;
}

static RunParse check_files(const RunOptions *o) {
    const char *in[] = {o->resume, o->init, o->labels, o->text};
    const char *const in_id[] = {"resume", "init", "labels", "text"};
    for (int i = 0; i < 4; i++)
        if (in[i] && check_input(in_id[i], in[i]) != RUN_PARSE_OK)
            return RUN_PARSE_ERROR;
    const char *out[] = {o->metrics, o->save, o->trace, o->diagnosis};
    const char *const out_id[] = {"metrics", "save", "trace", "diagnosis"};
    for (int i = 0; i < 4; i++) {
        if (out[i] == NULL)
            continue;
        if (check_output(out_id[i], out[i]) != RUN_PARSE_OK)
            return RUN_PARSE_ERROR;
        for (int j = 0; j < i; j++)
            if (same(out[i], out[j]))
                return run_opt_fail(out_id[i], out[i], "is also another output's file",
                                "a file of its own");
        const char *inputs[] = {o->init, o->labels, o->text, o->data};
        for (int j = 0; j < 4; j++)
            if (same(out[i], inputs[j]))
                return run_opt_fail(out_id[i], out[i], "is also an input file",
                                "a file of its own");
    }
    if (o->resume && same(o->resume, o->metrics))
        return run_opt_fail("metrics", o->metrics, "is also the --resume file",
                        "a file of its own");
    return RUN_PARSE_OK;
}

// ----------------------------------------------------------------------------
// the command line

static void set_defaults(RunOptions *o) {
    memset(o, 0, sizeof *o);
    o->strategy = "single";
    o->nranks = 1;
    o->nodes = 1;
    o->algo = SIM_ALGO_AUTO;
    sim_ddp_options_default(&o->ddp);
    sim_dp_options_default(&o->dp);
    sim_fsdp_options_default(&o->fsdp);
    o->loss_log = SIM_LOSS_AVG;
    o->watchdog_s = 5.0;
    o->diagnosis = "ddplab-diagnosis.txt";
    o->backend = cli_backend_default()->name;
    o->profile = "dgx-h100";
    o->batch = 32;
    o->accum = 1;
    o->shuffle = 1;
    o->progress = -1;
    o->prefetch = 2;
    o->pin_memory = 1;
    o->ps_servers = 1;
    o->max_staleness = -1;
    o->max_restarts = 3;
    o->compare_max_ulp = -1;
    sim_optim_flags_default(&o->opt);
}

// --powersgd-* need the hook, and the hook cannot run under Join (the
// joined ranks' shadow all_reduces cannot match its three per bucket).
static RunParse check_powersgd(const RunOptions *o) {
    int on = o->ddp.comm_hook == SIM_DDP_HOOK_POWERSGD;
    if (o->powersgd_flag && !on) {
        run_error("--%s: needs --comm-hook powersgd; allowed: --comm-hook powersgd --%s",
                  o->powersgd_flag, o->powersgd_flag);
        return RUN_PARSE_ERROR;
    }
    if (on && o->join) {
        run_error("--comm-hook: 'powersgd' cannot be combined with --join (a joined rank "
                  "shadows one all_reduce per bucket, the hook runs three); allowed: "
                  "--comm-hook allreduce, fp16, bf16 or sum with --join");
        return RUN_PARSE_ERROR;
    }
    return RUN_PARSE_OK;
}

// The strategy against the ranks, nodes and ddp's options.
static RunParse check_strategy(RunOptions *o) {
    int ddp = strcmp(o->strategy, "ddp") == 0;
    if (strcmp(o->strategy, "dp") == 0) {
        if (o->nranks < 2) {
            run_error("--ranks: '%d' device%s for --strategy dp; DataParallel splits each batch "
                      "over 2 or more devices; allowed: -n 2 or more (or --strategy single for "
                      "one device)", o->nranks, o->nranks == 1 ? "" : "s");
            return RUN_PARSE_ERROR;
        }
    } else if (!ddp && strcmp(o->strategy, "layer-owner") != 0 &&
               !run_fsdp_is_strategy(o->strategy) && !run_async_is_strategy(o->strategy) &&
               o->nranks != 1) {
        run_error("--ranks: '%d' is more than --strategy single runs; allowed: 1 (or "
                  "--strategy ddp)", o->nranks);
        return RUN_PARSE_ERROR;
    }
    if (!ddp && o->ddp_flag) {
        run_error("--%s: needs --strategy ddp; allowed: --strategy ddp -n R --%s", o->ddp_flag,
                  o->ddp_flag);
        return RUN_PARSE_ERROR;
    }
    if (o->eval_every > 0 && strcmp(o->strategy, "dp") == 0) {
        run_error("--eval-every: needs --strategy single or ddp; allowed: --strategy ddp");
        return RUN_PARSE_ERROR;
    }
    if (strcmp(o->strategy, "layer-owner") == 0 && (o->eval_every > 0 || o->uneven)) {
        run_error("--%s: not supported with --strategy layer-owner (its ranks hold only the "
                  "layers they own); allowed: --strategy ddp", o->eval_every > 0 ? "eval-every"
                  : "uneven");
        return RUN_PARSE_ERROR;
    }
    if (run_fsdp_check(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    if (o->loss_log_set && !ddp && !run_fsdp_is_strategy(o->strategy)) {
        run_error("--loss-log: needs --strategy ddp or fsdp (zero1-3); allowed: --strategy ddp "
                  "-n R --loss-log avg");
        return RUN_PARSE_ERROR;
    }
    if (check_powersgd(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    if (o->join && !o->uneven) {
        run_error("--join: needs uneven inputs; allowed: --uneven K --join");
        return RUN_PARSE_ERROR;
    }
    if (o->uneven && o->nranks < 2) {
        run_error("--uneven: needs 2 ranks or more; allowed: -n 2 or more");
        return RUN_PARSE_ERROR;
    }
    if (o->uneven && o->accum != 1) {
        run_error("--uneven: cannot be combined with --accum %d; allowed: --accum 1", o->accum);
        return RUN_PARSE_ERROR;
    }
    if (o->nranks % o->nodes != 0) {
        run_error("--nodes: '%d' does not divide the %d ranks; allowed: a divisor of -n",
                  o->nodes, o->nranks);
        return RUN_PARSE_ERROR;
    }
    if (o->ddp.buckets.static_graph && o->model.unused_branch) {
        run_error("--static-graph: the model's unused branch changes the graph between "
                  "iterations, which static_graph forbids; allowed: --static-graph with a model "
                  "without ',unused', or --find-unused-parameters instead");
        return RUN_PARSE_ERROR;
    }
    return RUN_PARSE_OK;
}

// TORCH_DISTRIBUTED_DEBUG, read as PyTorch reads it: unset is OFF; any value
// but OFF, INFO or DETAIL (any case; an empty one too) stops the program with
// PyTorch's own message, as `import torch.distributed` does.
static RunParse read_debug_env(RunOptions *o) {
    const char *v = getenv("TORCH_DISTRIBUTED_DEBUG");
    o->ddp.debug_level = SIM_DDP_DEBUG_OFF;
    if (v == NULL || sim_ddp_debug_parse(v, &o->ddp.debug_level) == 0)
        return RUN_PARSE_OK;
    run_error("TORCH_DISTRIBUTED_DEBUG: '%.40s': The value of TORCH_DISTRIBUTED_DEBUG must be "
              "OFF, INFO, or DETAIL.", v);
    return RUN_PARSE_ERROR;
}

static RunParse check_together(RunOptions *o) {
    if (check_strategy(o) != RUN_PARSE_OK || read_debug_env(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    if (o->steps && o->epochs) {
        run_error("--epochs: cannot be combined with --steps; allowed: --steps N or --epochs E");
        return RUN_PARSE_ERROR;
    }
    if (o->text && o->data)
        return run_opt_fail("text", o->text, "cannot be combined with --data",
                        "--data or --text");
    if (o->labels && (o->text || !o->data))
        return run_opt_fail("labels", o->labels, "needs --data X.npy",
                        "--labels with --data FILE.npy");
    if (o->save_every > 0 && !o->save) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)o->save_every);
        return run_opt_fail("save-every", v, "needs --save FILE",
                        "--save-every with --save");
    }
    if (o->resume && o->init)
        return run_opt_fail("init", o->init, "cannot be combined with --resume "
                        "(the checkpoint holds the weights)", "--init or --resume");
    if (o->stream && o->resume)
        return run_opt_fail("resume", o->resume, "cannot be combined with --stream (the "
                        "checkpoint does not hold the stream generators' positions)",
                        "--stream on a fresh run, or the distributed sampler");
    if (check_files(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    char err[512];
    if (sim_fault_check(&o->faults, o->nranks, err, sizeof err) != SIM_OK) {
        run_error("%s", err);
        return RUN_PARSE_ERROR;
    }
    if (run_launch_check(o) != 0)
        return RUN_PARSE_ERROR;
    if (sim_optim_flags_validate(&o->opt, err, sizeof err) != SIM_OK) {
        run_error("%s", err);
        return RUN_PARSE_ERROR;
    }
    // a phantom run has no values to read or to write
    const char *no_phantom[] = {o->save, o->resume, o->init};
    const char *const no_phantom_id[] = {"save", "resume", "init"};
    for (int i = 0; o->phantom && i < 3; i++)
        if (no_phantom[i])
            return run_opt_fail(no_phantom_id[i], no_phantom[i],
                            "cannot be combined with --phantom (no values: shapes only)",
                            "without --phantom");
    const SimBackendOps *ops = cli_backend_find(o->backend);
    if (ops == NULL && cli_backend_load_error(o->backend)) {
        // in the build, but its plugin is missing or lacks a library
        run_error("--backend %s: %s; --backend cpu runs the same configuration on simulated "
                  "ranks", o->backend, cli_backend_load_error(o->backend));
        return RUN_PARSE_UNAVAILABLE;
    }
    if (ops && strcmp(ops->name, "sym") == 0) {
        run_error("--backend: 'sym' is not offered for training: it runs rank 0 alone for "
                  "every rank of a phantom world (ddplab plan); allowed: cpu (with --phantom "
                  "for shapes only)");
        return RUN_PARSE_ERROR;
    }
    if (ops == NULL || ops->math == NULL) {
        run_error("--backend: '%s' is not available for training: %s; allowed: a backend with "
                  "math kernels (cpu)", o->backend,
                  ops ? "it has no math kernels yet" : cli_backend_missing_hint(o->backend));
        return RUN_PARSE_ERROR;
    }
    // with --compare-backends each side is checked with its own backend, and
    // cuda's own options go to the cuda side alone (run_compare.c)
    if ((o->tf32 || o->coll_impl) && strcmp(ops->name, "cuda") != 0 &&
        o->compare_backends == NULL) {
        run_error("%s: applies to --backend cuda only (the %s backend computes in full fp32 "
                  "and runs its own collectives); allowed: --backend cuda, or leave it out",
                  o->tf32 ? "--tf32" : "--coll-impl", ops->name);
        return RUN_PARSE_ERROR;
    }
    if (sim_sys_resolve(o->profile, &o->sys, err, sizeof err) != SIM_OK) {
        run_error("--profile: %s; allowed: a built-in profile (see 'ddplab') or a file written "
                  "by 'ddplab bench --calibrate'", err);
        return RUN_PARSE_ERROR;
    }
    if (o->gpu && sim_device_resolve(o->gpu, &o->device, err, sizeof err) != SIM_OK) {
        run_error("--gpu: %s", err);
        return RUN_PARSE_ERROR;
    }
    if (run_loader_check(o) != RUN_PARSE_OK || run_async_check(o) != RUN_PARSE_OK ||
        run_elastic_check(o) != RUN_PARSE_OK || run_compare_check(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    return run_proc_check(o); // --rendezvous: the launcher's world (run_proc.c)
}

RunParse run_opts_parse(int argc, char **argv, RunOptions *o) {
    set_defaults(o);
    CliOptCtx cx = {.prog = "ddplab run", .dest = o};
    int rc = cli_optab_parse(run_optab(), argc, argv, &cx);
    if (rc != CLI_OPTAB_OK)
        return rc == CLI_OPTAB_HELP ? RUN_PARSE_HELP : RUN_PARSE_ERROR;
    if (cli_viz_check(&o->viz, "ddplab run") != 0)
        return RUN_PARSE_ERROR;
    return check_together(o);
}
