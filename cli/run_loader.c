// cli/run_loader.c: the input pipeline's options of `ddplab run`
// (--loader-workers, --prefetch, --sample-cost, --pin-memory).
#include "run.h"

#include "run_opts.h" // defines: RunOptSpec

RunParse run_loader_apply(const RunOptSpec *s, const char *v, RunOptions *o) {
    (void)s, (void)v, (void)o;
    return RUN_PARSE_OK;
}

RunParse run_loader_check(RunOptions *o) {
    (void)o;
    return RUN_PARSE_OK;
}
