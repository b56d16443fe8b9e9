// cli/run/run_parse.c: parsing the command line of `ddplab run`: each value
// alone, then the values together (strategy and ranks, steps and epochs,
// input and output files, the optimizer family's cross-checks, the hardware
// profile).
//
// Every rejected value produces exactly one line on stderr of the form
//   ddplab run: --option: 'value' is ...; allowed: ...
// and nothing else happens: no world is created and no file is written.
#include "run/run.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/backends.h" // defines: cli_backend_find, cli_backend_exists, cli_backend_names
#include "core/opts.h"     // defines: cli_opt_shown, cli_opt_vline, cli_opt_output_problem
#include "run/run_opts.h"  // defines: RunOptSpec, run_opt_spec
#include "run/run_proc.h"  // defines: run_proc_parse, run_proc_check

int run_sampler_replicas(const RunOptions *o) {
    return strcmp(o->strategy, "dp") == 0 ? 1 : o->nranks;
}

static RunParse opt_fail(const RunOptSpec *s, const char *val, const char *what,
                         const char *allowed) {
    return run_opt_fail(s->longname, val, what, allowed);
}

// A whole number in lo..hi; the message names the range.
static RunParse parse_count(const RunOptSpec *s, const char *v, long long lo, long long hi,
                            int64_t *out) {
    char allowed[96];
    snprintf(allowed, sizeof allowed, "a whole number from %lld to %lld", lo, hi);
    if (!v || !(isdigit((unsigned char)v[0]) || v[0] == '-' || v[0] == '+'))
        return opt_fail(s, v, "is not a whole number", allowed);
    errno = 0;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end != '\0')
        return opt_fail(s, v, "is not a whole number", allowed);
    if (errno == ERANGE || x < lo || x > hi)
        return opt_fail(s, v, x < 0 ? "is negative" : "is out of range", allowed);
    *out = x;
    return RUN_PARSE_OK;
}

static RunParse parse_int(const RunOptSpec *s, const char *v, int lo, int hi, int *out) {
    int64_t x = 0;
    if (parse_count(s, v, lo, hi, &x) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    *out = (int)x;
    return RUN_PARSE_OK;
}

static RunParse parse_bool(const RunOptSpec *s, const char *v, int *out) {
    if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
        return opt_fail(s, v, "is not 0 or 1", "0, 1");
    *out = v[0] == '1';
    return RUN_PARSE_OK;
}

static RunParse parse_strategy(const RunOptSpec *s, const char *v, RunOptions *o) {
    if (strcmp(v, "single") == 0 || strcmp(v, "ddp") == 0 || strcmp(v, "dp") == 0 ||
        strcmp(v, "layer-owner") == 0 || run_fsdp_is_strategy(v) || run_async_is_strategy(v)) {
        o->strategy = v;
        return RUN_PARSE_OK;
    }
    return opt_fail(s, v, "is not a strategy",
                    "single, ddp, dp, fsdp, zero1, zero2, zero3, layer-owner, async-ps");
}

// --device-memory: a size ("80GB", "80GiB", "512MiB", "1.5e9") or a device
// name ("h100"), above 0.
static RunParse parse_device_memory(const RunOptSpec *s, const char *v, RunOptions *o) {
    char names[256], allowed[400];
    uint64_t bytes = 0;
    if (sim_mem_device_capacity(v, &bytes) != 0 && sim_mem_parse_size(v, &bytes) != 0) {
        snprintf(allowed, sizeof allowed, "a size such as 80GB, 80GiB, 512MiB or 1.5e9 (bytes), "
                 "or a device: %s", sim_mem_device_names(names, sizeof names));
        return opt_fail(s, v, "is not a size or a device", allowed);
    }
    if (bytes == 0)
        return opt_fail(s, v, "is not above 0", "a size above 0 (leave the option out for "
                        "unlimited memory)");
    o->device_memory = bytes;
    o->device_memory_text = v;
    return RUN_PARSE_OK;
}

// --bucket-cap-mb: a number of MiB above 0.
static RunParse parse_cap(const RunOptSpec *s, const char *v, double *out) {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || errno == ERANGE || !(x == x))
        return opt_fail(s, v, "is not a number", "a size in MiB above 0, e.g. 25 or 0.5");
    if (x <= 0 || x > 1048576)
        return opt_fail(s, v, x <= 0 ? "is not above 0" : "is too large",
                        "a size in MiB above 0 and at most 1048576");
    *out = x;
    return RUN_PARSE_OK;
}

// The options that only --strategy ddp takes.
static RunParse apply_ddp_option(const RunOptSpec *s, const char *v, RunOptions *o) {
    if (o->ddp_flag == NULL && s->id != RO_LOSS_LOG)
        o->ddp_flag = s->longname;
    switch (s->id) {
    case RO_BUCKET_CAP: return parse_cap(s, v, &o->ddp.buckets.bucket_cap_mb);
    case RO_FIND_UNUSED: o->ddp.buckets.find_unused = 1; return RUN_PARSE_OK;
    case RO_STATIC_GRAPH: o->ddp.buckets.static_graph = 1; return RUN_PARSE_OK;
    case RO_GRAD_VIEW: o->ddp.gradient_as_bucket_view = 1; return RUN_PARSE_OK;
    case RO_NO_INIT_BCAST: o->ddp.init_broadcast = 0; return RUN_PARSE_OK;
    case RO_LAST_BUCKET_CAP: o->ddp.buckets.last_bucket_cap = 1; return RUN_PARSE_OK;
    case RO_PRINT_BUCKETS: o->print_buckets = 1; return RUN_PARSE_OK;
    case RO_COMM_HOOK: {
        static const char *const hooks[] = {"allreduce", "fp16", "bf16", "sum"};
        for (int i = 0; i < 4; i++)
            if (strcmp(v, hooks[i]) == 0) {
                o->ddp.comm_hook = (SimDdpCommHook)i;
                return RUN_PARSE_OK;
            }
        return opt_fail(s, v, "is not a communication hook", "allreduce, fp16, bf16, sum");
    }
    case RO_UNEVEN: return parse_int(s, v, 1, 1 << 20, &o->uneven);
    case RO_JOIN: o->join = 1; return RUN_PARSE_OK;
    case RO_EVAL_VARIANT: {
        static const char *const names[] = {"right", "mean-of-means", "rank0-only"};
        for (int i = 0; i < 3; i++)
            if (strcmp(v, names[i]) == 0) {
                o->eval_variant = (SimEvalVariant)i;
                return RUN_PARSE_OK;
            }
        return opt_fail(s, v, "is not an evaluation variant", "right, mean-of-means, rank0-only");
    }
    case RO_LOSS_LOG:
        o->loss_log_set = 1;
        if (strcmp(v, "rank0") == 0)
            o->loss_log = SIM_LOSS_LOCAL;
        else if (strcmp(v, "avg") == 0)
            o->loss_log = SIM_LOSS_AVG;
        else if (strcmp(v, "sum") == 0)
            o->loss_log = SIM_LOSS_SUM;
        else
            return opt_fail(s, v, "is not a loss logging mode", "rank0, avg, sum");
        return RUN_PARSE_OK;
    case RO_BCAST_BUFFERS:
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            return opt_fail(s, v, "is not on or off", "on, off");
        o->ddp.broadcast_buffers = v[1] == 'n';
        return RUN_PARSE_OK;
    default: return RUN_PARSE_OK;
    }
}

static RunParse apply_option(const RunOptSpec *s, const char *v, RunOptions *o) {
    char err[512], names[256];
    switch (s->id) {
    case RO_STRATEGY: return parse_strategy(s, v, o);
    case RO_RANKS: return parse_int(s, v, 1, 4096, &o->nranks);
    case RO_NODES: return parse_int(s, v, 1, 4096, &o->nodes);
    case RO_ACCUM_SYNC:
        if (strcmp(v, "last") != 0 && strcmp(v, "every") != 0)
            return opt_fail(s, v, "is not an accumulation sync mode", "last, every");
        o->accum_sync_every = v[0] == 'e';
        return RUN_PARSE_OK;
    case RO_BUCKET_CAP: case RO_FIND_UNUSED: case RO_STATIC_GRAPH: case RO_GRAD_VIEW:
    case RO_BCAST_BUFFERS: case RO_NO_INIT_BCAST: case RO_LAST_BUCKET_CAP:
    case RO_PRINT_BUCKETS: case RO_COMM_HOOK: case RO_LOSS_LOG: case RO_UNEVEN: case RO_JOIN:
    case RO_EVAL_VARIANT:
        return apply_ddp_option(s, v, o);
    case RO_SHARDING: case RO_FSDP_WRAP: case RO_MIN_PARAMS: case RO_BACKWARD_PREFETCH:
    case RO_FORWARD_PREFETCH: case RO_NO_LIMIT_AG: case RO_PARAM_DTYPE: case RO_REDUCE_DTYPE:
    case RO_BUFFER_DTYPE: case RO_CPU_OFFLOAD: case RO_ZERO1_RS: case RO_STATE_DICT:
    case RO_SD_RANK0_CALL: case RO_PRINT_UNITS:
        return run_fsdp_apply(s, v, o);
    case RO_EVAL_EVERY: return parse_count(s, v, 1, 1000000000000LL, &o->eval_every);
    case RO_WATCHDOG: {
        char *end = NULL;
        double x = strtod(v, &end);
        if (end == v || *end || !(x > 0) || x > 86400)
            return opt_fail(s, v, "is not a positive number of seconds", "0.01 to 86400");
        o->watchdog_s = x;
        return RUN_PARSE_OK;
    }
    case RO_ZERO_GRAD:
        if (strcmp(v, "start") != 0 && strcmp(v, "after-step") != 0)
            return opt_fail(s, v, "is not a zero_grad place", "start, after-step");
        o->zero_grad_after_step = v[0] == 'a';
        return RUN_PARSE_OK;
    case RO_SET_TO_NONE: o->set_to_none = 1; return RUN_PARSE_OK;
    case RO_PHANTOM: o->phantom = 1; return RUN_PARSE_OK;
    case RO_FAULT:
        if (sim_fault_parse(&o->faults, v, err, sizeof err) != SIM_OK) {
            run_error("%s", err);
            return RUN_PARSE_ERROR;
        }
        return RUN_PARSE_OK;
    case RO_DIAGNOSIS: o->diagnosis = strcmp(v, "none") == 0 ? NULL : v; return RUN_PARSE_OK;
    case RO_RENDEZVOUS: return run_proc_parse(s, v, o);
    case RO_TF32: o->tf32 = 1; return RUN_PARSE_OK;
    case RO_COLL_IMPL:
        if (strcmp(v, "auto") != 0 && strcmp(v, "nccl") != 0 && strcmp(v, "device") != 0)
            return opt_fail(s, v, "is not a collective implementation", "auto, nccl, device");
        o->coll_impl = v;
        return RUN_PARSE_OK;
    case RO_ACCUM_TAIL:
        if (strcmp(v, "span") == 0)
            o->accum_tail = SIM_ACCUM_TAIL_SPAN;
        else if (strcmp(v, "step") == 0)
            o->accum_tail = SIM_ACCUM_TAIL_STEP;
        else if (strcmp(v, "drop") == 0)
            o->accum_tail = SIM_ACCUM_TAIL_DROP;
        else
            return opt_fail(s, v, "is not an accumulation tail mode", "span, step, drop");
        return RUN_PARSE_OK;
    case RO_BACKEND:
        if (!cli_backend_exists(v) && !cli_backend_missing_hint(v)) {
            cli_backend_names(names, sizeof names);
            return opt_fail(s, v, "is not a backend", names);
        }
        o->backend = v;
        return RUN_PARSE_OK;
    case RO_PROFILE: o->profile = v; return RUN_PARSE_OK;
    case RO_GPU: o->gpu = v; return RUN_PARSE_OK;
    case RO_MODEL:
        if (sim_model_parse(v, &o->model, err, sizeof err) != SIM_OK) {
            run_error("--model: %s", err);
            return RUN_PARSE_ERROR;
        }
        o->model_text = v;
        return RUN_PARSE_OK;
    case RO_DATA: o->data = v; return RUN_PARSE_OK;
    case RO_LABELS: o->labels = v; return RUN_PARSE_OK;
    case RO_TEXT: o->text = v; return RUN_PARSE_OK;
    case RO_BATCH: return parse_int(s, v, 1, 1 << 20, &o->batch);
    case RO_STEPS: return parse_count(s, v, 1, 1000000000000LL, &o->steps);
    case RO_EPOCHS: return parse_count(s, v, 1, 1000000000LL, &o->epochs);
    case RO_STOP_AFTER: return parse_count(s, v, 1, 1000000000000LL, &o->stop_after);
    case RO_ACCUM: return parse_int(s, v, 1, 65536, &o->accum);
    case RO_SHUFFLE: return parse_bool(s, v, &o->shuffle);
    case RO_DROP_LAST: return parse_bool(s, v, &o->drop_last);
    case RO_SEED: {
        int64_t seed = 0;
        if (parse_count(s, v, 0, INT64_MAX, &seed) != RUN_PARSE_OK)
            return RUN_PARSE_ERROR;
        o->seed = (uint64_t)seed;
        return RUN_PARSE_OK;
    }
    case RO_METRICS: o->metrics = v; return RUN_PARSE_OK;
    case RO_SAVE: o->save = v; return RUN_PARSE_OK;
    case RO_SAVE_EVERY: return parse_count(s, v, 0, 1000000000000LL, &o->save_every);
    case RO_RESUME: o->resume = v; return RUN_PARSE_OK;
    case RO_INIT: o->init = v; return RUN_PARSE_OK;
    case RO_TRACE: o->trace = v; return RUN_PARSE_OK;
    case RO_LOG_EVERY: return parse_count(s, v, 0, 1000000000000LL, &o->log_every);
    case RO_PROGRESS:
        if (strcmp(v, "auto") == 0)
            o->progress = -1;
        else if (strcmp(v, "bar") == 0)
            o->progress = 1;
        else if (strcmp(v, "lines") == 0)
            o->progress = 0;
        else
            return opt_fail(s, v, "is not a progress style", "auto, bar, lines");
        return RUN_PARSE_OK;
    case RO_DEVICE_MEMORY: return parse_device_memory(s, v, o);
    case RO_LOADER_WORKERS: case RO_PREFETCH: case RO_SAMPLE_COST: case RO_PIN_MEMORY:
        return run_loader_apply(s, v, o);
    case RO_PS_SERVERS: case RO_MAX_STALENESS: case RO_PS_COMPARE:
        return run_async_apply(s, v, o);
    case RO_ELASTIC: case RO_MAX_RESTARTS: case RO_MEMBERSHIP:
        return run_elastic_apply(s, v, o);
    case RO_ALGO: case RO_COMPARE_BACKENDS: case RO_COMPARE_WITH: case RO_COMPARE_MAX_ULP:
        return run_compare_apply(s, v, o);
    default: return RUN_PARSE_OK;
    }
}

// ----------------------------------------------------------------------------
// files

static RunParse check_output(RunOptId id, const char *path) {
    const char *what, *allowed;
    if (cli_opt_output_problem(path, &what, &allowed))
        return opt_fail(run_opt_spec(id), path, what, allowed);
    return RUN_PARSE_OK;
}

static RunParse check_input(RunOptId id, const char *path) {
    const RunOptSpec *s = run_opt_spec(id);
    struct stat st;
    if (path[0] == '\0')
        return opt_fail(s, path, "is empty", "a readable file");
    if (stat(path, &st) != 0) {
        char what[160];
        snprintf(what, sizeof what, "cannot be read: %s", strerror(errno));
        return opt_fail(s, path, what, "a readable file");
    }
    if (S_ISDIR(st.st_mode))
        return opt_fail(s, path, "is a directory", "a readable file");
    if (access(path, R_OK) != 0)
        return opt_fail(s, path, "cannot be read: permission denied", "a readable file");
    return RUN_PARSE_OK;
}

static int same(const char *a, const char *b) {
    return a && b && strcmp(a, b) == 0;
}

static RunParse check_files(const RunOptions *o) {
    const char *in[] = {o->resume, o->init, o->labels, o->text};
    const RunOptId in_id[] = {RO_RESUME, RO_INIT, RO_LABELS, RO_TEXT};
    for (int i = 0; i < 4; i++)
        if (in[i] && check_input(in_id[i], in[i]) != RUN_PARSE_OK)
            return RUN_PARSE_ERROR;
    const char *out[] = {o->metrics, o->save, o->trace, o->diagnosis};
    const RunOptId out_id[] = {RO_METRICS, RO_SAVE, RO_TRACE, RO_DIAGNOSIS};
    for (int i = 0; i < 4; i++) {
        if (out[i] == NULL)
            continue;
        if (check_output(out_id[i], out[i]) != RUN_PARSE_OK)
            return RUN_PARSE_ERROR;
        for (int j = 0; j < i; j++)
            if (same(out[i], out[j]))
                return opt_fail(run_opt_spec(out_id[i]), out[i], "is also another output's file",
                                "a file of its own");
        const char *inputs[] = {o->init, o->labels, o->text, o->data};
        for (int j = 0; j < 4; j++)
            if (same(out[i], inputs[j]))
                return opt_fail(run_opt_spec(out_id[i]), out[i], "is also an input file",
                                "a file of its own");
    }
    if (o->resume && same(o->resume, o->metrics))
        return opt_fail(run_opt_spec(RO_METRICS), o->metrics, "is also the --resume file",
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

// The option at argv[*i]: ours (spec set) or the optimizer family's (flag
// set); its value (attached after '=', or the next argument).
static RunParse parse_one(int argc, char **argv, int *i, RunOptions *o) {
    const char *a = argv[*i], *val = NULL;
    char vbuf[72], name[64] = "";
    const RunOptSpec *s = NULL;
    const SimOptimFlagInfo *flag = NULL;
    if (a[0] == '-' && a[1] == '-' && a[2]) {
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
        s = run_opt_find_long(a + 2, len);
        flag = s ? NULL : sim_optim_flags_find(name);
        if ((s || flag) && eq)
            val = eq + 1;
    } else if (a[0] == '-' && a[1] && a[1] != '-') {
        s = run_opt_find_short(a[1]);
        if (s && a[2])
            val = a + 2;
    }
    if (s == NULL && flag == NULL && name[0] && cli_viz_is_option(name)) {
        const char *eq = strchr(a + 2, '=');
        if (eq)
            val = eq + 1;
        else if (strcmp(name, "ascii") != 0 && *i + 1 < argc)
            val = argv[++*i];
        else if (strcmp(name, "ascii") != 0) {
            run_error("--%s: missing value (see 'ddplab run --help')", name);
            return RUN_PARSE_ERROR;
        }
        return cli_viz_set(&o->viz, "ddplab run", name, val ? val : "") == 0 ? RUN_PARSE_OK
                                                                            : RUN_PARSE_ERROR;
    }
    if (s == NULL && flag == NULL) {
        run_error("'%s' is not an option; allowed: see 'ddplab run --help'",
                  cli_opt_shown(a, vbuf, sizeof vbuf));
        return RUN_PARSE_ERROR;
    }
    const char *lname = s ? s->longname : flag->name, *metavar = s ? s->arg : flag->metavar;
    if (metavar == NULL && val != NULL) {
        run_error("--%s: takes no value (got '%s'); allowed: --%s alone", lname,
                  cli_opt_shown(val, vbuf, sizeof vbuf), lname);
        return RUN_PARSE_ERROR;
    }
    if (metavar != NULL && val == NULL) {
        if (*i + 1 >= argc) {
            run_error("--%s: missing value; allowed: %s (see 'ddplab run --help')", lname,
                      metavar);
            return RUN_PARSE_ERROR;
        }
        val = argv[++*i];
    }
    if (s)
        return apply_option(s, val ? val : "", o);
    char err[512];
    if (sim_optim_flags_set(&o->opt, flag->name, val, err, sizeof err) != SIM_OK) {
        run_error("%s", err);
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

static RunParse check_together(RunOptions *o) {
    if (check_strategy(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    if (o->steps && o->epochs) {
        run_error("--epochs: cannot be combined with --steps; allowed: --steps N or --epochs E");
        return RUN_PARSE_ERROR;
    }
    if (o->text && o->data)
        return opt_fail(run_opt_spec(RO_TEXT), o->text, "cannot be combined with --data",
                        "--data or --text");
    if (o->labels && (o->text || !o->data))
        return opt_fail(run_opt_spec(RO_LABELS), o->labels, "needs --data X.npy",
                        "--labels with --data FILE.npy");
    if (o->save_every > 0 && !o->save) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)o->save_every);
        return opt_fail(run_opt_spec(RO_SAVE_EVERY), v, "needs --save FILE",
                        "--save-every with --save");
    }
    if (o->resume && o->init)
        return opt_fail(run_opt_spec(RO_INIT), o->init, "cannot be combined with --resume "
                        "(the checkpoint holds the weights)", "--init or --resume");
    if (check_files(o) != RUN_PARSE_OK)
        return RUN_PARSE_ERROR;
    char err[512];
    if (sim_fault_check(&o->faults, o->nranks, err, sizeof err) != SIM_OK) {
        run_error("%s", err);
        return RUN_PARSE_ERROR;
    }
    if (sim_optim_flags_validate(&o->opt, err, sizeof err) != SIM_OK) {
        run_error("%s", err);
        return RUN_PARSE_ERROR;
    }
    // a phantom run has no values to read or to write
    const char *no_phantom[] = {o->save, o->resume, o->init};
    const RunOptId no_phantom_id[] = {RO_SAVE, RO_RESUME, RO_INIT};
    for (int i = 0; o->phantom && i < 3; i++)
        if (no_phantom[i])
            return opt_fail(run_opt_spec(no_phantom_id[i]), no_phantom[i],
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
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return RUN_PARSE_HELP;
    for (int i = 1; i < argc; i++)
        if (parse_one(argc, argv, &i, o) != RUN_PARSE_OK)
            return RUN_PARSE_ERROR;
    if (cli_viz_check(&o->viz, "ddplab run") != 0)
        return RUN_PARSE_ERROR;
    return check_together(o);
}
