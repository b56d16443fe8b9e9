// cli/run_async.c: `ddplab run --strategy async-ps`, asynchronous data
// parallel with parameter servers.
#include "run.h"

#include <string.h>

#include "cli.h"      // defines: CLI_EXIT_*
#include "run_opts.h" // defines: RunOptSpec

int run_async_is_strategy(const char *name) {
    return strcmp(name, "async-ps") == 0;
}

RunParse run_async_apply(const RunOptSpec *s, const char *v, RunOptions *o) {
    (void)s, (void)v, (void)o;
    return RUN_PARSE_OK;
}

RunParse run_async_check(RunOptions *o) {
    (void)o;
    return RUN_PARSE_OK;
}

int run_async_train(RunOptions *o, SimTrainConfig *c) {
    (void)o, (void)c;
    run_error("--strategy async-ps: not built yet");
    return CLI_EXIT_USAGE;
}
