// tests/test_cli_syncbn.c: `ddplab run --sync-bn`. Four DDP ranks of 16 rows
// with SyncBatchNorm train as one process with the 64 rows does (the same
// final and evaluation loss to the printed digit, shuffle off so both read
// the same rows), and without it they do not; one row per rank trains with
// SyncBatchNorm and is refused without it (BatchNorm needs two rows); the
// run's batchnorm row; the refusals (not ddp, no BatchNorm in the model,
// Join, whose shadowing does not cover SyncBatchNorm's collectives).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"

static const char *exe;

#define MODEL "mlp:16,64,64,4,bn"
#define DATA "blobs:n=512,features=16,classes=4"

static int run_losses(const char *strategy, const char *n, const char *batch, int sync,
                      char *final, char *eval) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, "run", "--strategy", strategy, "-n", n, "--batch", batch, "--model",
             MODEL, "--data", DATA, "--steps", "20", "--lr", "0.1", "--shuffle", "0",
             "--eval-every", "20", sync ? "--sync-bn" : NULL); // NULL: the arguments end
    CHECK_EQ_INT(r.rc, 0);
    tcli_field(&r, "final loss ", final, 32);
    tcli_field(&r, "eval after step 20 | loss ", eval, 32);
    if (!final[0] || !eval[0])
        tcli_show("run", &r);
    CHECK(final[0] && eval[0]);
    if (sync)
        CHECK_STR_CONTAINS(r.out, "SyncBatchNorm: batch statistics over the 4 ranks'");
    tcli_result_free(&r);
    return 0;
}

static int test_global_batch(void) {
    char f_sync[32], e_sync[32], f_one[32], e_one[32], f_plain[32], e_plain[32];
    CHECK_EQ_INT(run_losses("ddp", "4", "16", 1, f_sync, e_sync), 0);
    CHECK_EQ_INT(run_losses("single", "1", "64", 0, f_one, e_one), 0);
    CHECK_EQ_INT(run_losses("ddp", "4", "16", 0, f_plain, e_plain), 0);
    CHECK_EQ_INT(strcmp(f_sync, f_one), 0); // 0.049767: the global batch's statistics
    CHECK_EQ_INT(strcmp(e_sync, e_one), 0); // the running statistics too
    CHECK(strcmp(f_plain, f_one) != 0);     // each rank's own 16 rows: another run
    return 0;
}

static int test_one_row(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "4", "--batch", "1", "--model",
             MODEL, "--data", DATA, "--steps", "3", "--sync-bn");
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "4", "--batch", "1", "--model",
             MODEL, "--data", DATA, "--steps", "3");
    CHECK(r.rc != 0);
    CHECK_STR_CONTAINS(r.err, "needs more than 1 value per channel (batch of 1)");
    tcli_result_free(&r);
    return 0;
}

static int test_refusals(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 60, "run", "--strategy", "fsdp", "-n", "2", "--model", MODEL, "--data",
             DATA, "--sync-bn");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab run: ", "--sync-bn: needs --strategy ddp"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "2", "--model", "mlp:16,64,4",
             "--data", DATA, "--sync-bn");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab run: ", "has no BatchNorm to synchronise"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "2", "--model", MODEL, "--data",
             DATA, "--sync-bn", "--uneven", "1", "--join");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab run: ", "cannot be combined with --join"), 0);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    int failures = 0;
    RUN(test_global_batch);
    RUN(test_one_row);
    RUN(test_refusals);
    return failures ? 1 : 0;
}
