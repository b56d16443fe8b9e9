// cli/plan/plan_opts.h: the numbers of `ddplab plan`'s options (the rows' ids,
// plan_opts.c), by which the checks of plan_parse.c ask which were given.
// Private to the plan.
#ifndef DDPLAB_CLI_PLAN_OPTS_H
#define DDPLAB_CLI_PLAN_OPTS_H

typedef enum {
    PO_NONE, // rows without a number
    PO_MODEL, PO_RANKS, PO_NODES, PO_GPN, PO_GPU, PO_SYSTEM, PO_STRATEGY, PO_SHARDING,
    PO_MICRO, PO_SEQ, PO_ACCUM, PO_ACCUM_SYNC, PO_AMP, PO_OPTIM, PO_OFFLOAD, PO_BUCKET, PO_ALGO, PO_BWD_PREFETCH,
    PO_FWD_PREFETCH, PO_NO_LIMIT, PO_CKPT, PO_ATTN, PO_DEVMEM, PO_COMPARE, PO_SWEEP, PO_PLOT,
    PO_TRACE, PO_QUIET, PO_HELP, PO_COUNT
} PlanOptId;

#endif
