// cli/run/run_opts.h: the option table of `ddplab run`, shared by the parser
// (run_parse.c) and the help text (run_opts.c). The optimizer family's
// options (--optimizer, --lr, ..., --amp) come from the engine's table
// (sim/model/optim_flags.h) and are listed after these. Private to the run.
#ifndef DDPLAB_CLI_RUN_OPTS_H
#define DDPLAB_CLI_RUN_OPTS_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    RO_STRATEGY, RO_RANKS, RO_BACKEND, RO_PROFILE, RO_MODEL, RO_DATA, RO_LABELS, RO_TEXT,
    RO_BATCH, RO_STEPS, RO_EPOCHS, RO_STOP_AFTER, RO_ACCUM, RO_SHUFFLE, RO_DROP_LAST, RO_SEED, RO_METRICS,
    RO_SAVE, RO_SAVE_EVERY, RO_RESUME, RO_INIT, RO_TRACE, RO_LOG_EVERY, RO_PROGRESS,
    RO_NODES, RO_ACCUM_SYNC, RO_BUCKET_CAP, RO_FIND_UNUSED, RO_STATIC_GRAPH, RO_GRAD_VIEW,
    RO_BCAST_BUFFERS, RO_NO_INIT_BCAST, RO_LAST_BUCKET_CAP, RO_PRINT_BUCKETS,
    RO_COMM_HOOK, RO_LOSS_LOG, RO_ZERO_GRAD, RO_SET_TO_NONE, RO_ACCUM_TAIL, RO_UNEVEN,
    RO_JOIN, RO_WATCHDOG, RO_EVAL_EVERY, RO_EVAL_VARIANT,
    RO_SHARDING, RO_FSDP_WRAP, RO_MIN_PARAMS, RO_BACKWARD_PREFETCH, RO_FORWARD_PREFETCH,
    RO_NO_LIMIT_AG, RO_PARAM_DTYPE, RO_REDUCE_DTYPE, RO_BUFFER_DTYPE, RO_CPU_OFFLOAD,
    RO_ZERO1_RS, RO_STATE_DICT, RO_SD_RANK0_CALL, RO_PRINT_UNITS,
    RO_DEVICE_MEMORY,
    RO_GPU,
    RO_PHANTOM,
    RO_FAULT,
    RO_DIAGNOSIS,
    RO_RENDEZVOUS,
    RO_TF32,
    RO_COLL_IMPL,
    // the input pipeline (run_loader.c)
    RO_LOADER_WORKERS, RO_PREFETCH, RO_SAMPLE_COST, RO_PIN_MEMORY,
    // asynchronous data parallel with a parameter server (run_async.c)
    RO_PS_SERVERS, RO_MAX_STALENESS, RO_PS_COMPARE,
    // elastic training (run_elastic.c)
    RO_ELASTIC, RO_MAX_RESTARTS, RO_MEMBERSHIP,
    // the collective algorithm; two backends or settings compared (run_compare.c)
    RO_ALGO, RO_COMPARE_BACKENDS, RO_COMPARE_WITH, RO_COMPARE_MAX_ULP,
    RO_HELP,
    RO_COUNT
} RunOptId;

typedef struct RunOptSpec {
    RunOptId id;
    char shortname;       // 0: long form only
    const char *longname;
    const char *arg;      // metavariable; NULL for a flag without a value
    const char *deflt;    // default shown in --help (NULL: none)
    const char *help;     // lines separated by '\n'
} RunOptSpec;

const RunOptSpec *run_opt_spec(RunOptId id);
// The option called --name (first len characters of name), or NULL.
const RunOptSpec *run_opt_find_long(const char *name, size_t len);
const RunOptSpec *run_opt_find_short(char c);

#endif
