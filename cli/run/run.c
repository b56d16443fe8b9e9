// cli/run/run.c: `ddplab run`: the options, then the kind of run they ask
// for: two runs compared (run_compare.c), asynchronous parameter servers
// (run_async.c), an elastic run of rounds (run_elastic.c), or one world, one
// run (run_once.c). Each part is in its own file (see run.h).
#include "run/run.h"

#include "core/cli.h" // defines: CLI_EXIT_*

int run_main(int argc, char **argv) {
    RunOptions o;
    switch (run_opts_parse(argc, argv, &o)) {
    case RUN_PARSE_HELP:
        run_help(stdout);
        return CLI_EXIT_OK;
    case RUN_PARSE_ERROR:
        return CLI_EXIT_USAGE;
    case RUN_PARSE_UNAVAILABLE:
        return CLI_EXIT_INTERNAL;
    default:
        break;
    }
    if (o.compare_backends || o.compare_with)
        return run_compare_main(argc, argv, &o);
    // init_process_group fails before the script reads any data
    if (sim_fault_find(&o.faults, SIM_FAULT_SAME_RANK, -1))
        return run_launch_fault(&o);
    SimDataset ds;
    SimTrainConfig cfg;
    int rc = run_prepare(&o, &ds, &cfg);
    if (rc == CLI_EXIT_OK) {
        if (run_async_is_strategy(o.strategy))
            rc = run_async_train(&o, &cfg);
        else if (o.elastic_max > 0)
            rc = run_elastic_train(&o, &cfg);
        else
            rc = run_once(&o, &cfg);
    }
    sim_dataset_free(&ds);
    return rc;
}
