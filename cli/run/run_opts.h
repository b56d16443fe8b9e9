// cli/run/run_opts.h: the parts of `ddplab run`'s option table (run_opts.c puts
// them together: run_optab in run.h). Each part's rows live beside the code
// that knows what its options mean; private to the run.
#ifndef DDPLAB_CLI_RUN_OPTS_H
#define DDPLAB_CLI_RUN_OPTS_H

#include "core/optable.h" // defines: CliOptRow

// The rows of each part, in the order --help lists them (*n of them).
const CliOptRow *run_rows_train(int *n);   // run_rows.c: model, data, length, files
const CliOptRow *run_rows_sync(int *n);    // run_rows_ddp.c: nodes, ddp, the loop
const CliOptRow *run_fsdp_rows(int *n);    // run_fsdp.c: fsdp and the ZeRO stages
const CliOptRow *run_rows_world(int *n);   // run_rows_world.c: memory, faults, cuda
const CliOptRow *run_loader_rows(int *n);  // run_loader.c: the input pipeline
const CliOptRow *run_async_rows(int *n);   // run_async.c: parameter servers
const CliOptRow *run_elastic_rows(int *n); // run_elastic.c: elastic training
const CliOptRow *run_compare_rows(int *n); // run_compare.c: --algo, comparisons
const CliOptRow *run_optim_rows(int *n);   // run_optim.c: the engine's optimizer options

#endif
