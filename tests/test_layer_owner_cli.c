// tests/test_layer_owner_cli.c: `ddplab run --strategy layer-owner` as a user
// runs it: it trains on 4 ranks, names itself the wrong picture of FSDP,
// says who owns which layer and whose loss it logs, prints its summary, writes a trace with its
// broadcasts, reduces and drop markers, saves a checkpoint it resumes from,
// and refuses what it cannot do with a reason. Usage: test_layer_owner_cli
// PATH/TO/ddplab.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 100.0

static const char *exe;
static char dir[512];

static int test_run_and_resume(void) {
    const char *trace = tcli_path(dir, "t.jsonl");
    const char *ck = tcli_path(dir, "ck.safetensors");
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "layer-owner", "-n", "4", "--data",
             "blobs", "--steps", "20", "--optimizer", "adam", "--lr", "3e-3", "--trace", trace,
             "--save", ck);
    if (r.rc != 0)
        fprintf(stderr, "%s", r.err);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "layer-owner (4 ranks");
    CHECK_STR_CONTAINS(r.out, "the WRONG picture of FSDP");
    // mlp:8,64,64,3 (fitted to blobs): three Linear layers, round-robin
    CHECK_STR_CONTAINS(r.out, "rank 0: 0; rank 1: 2; rank 2: 4; rank 3: nothing");
    CHECK_STR_CONTAINS(r.out, "done: 20 steps");
    CHECK_STR_CONTAINS(r.out, "final loss");
    // the loop logs rank 0's own loss here, and the output says so twice
    CHECK_STR_CONTAINS(r.out, "| loss shown            | rank 0's (each rank's loss is of its");
    CHECK_STR_CONTAINS(r.out, " (rank 0's, not the mean)\n");
    tcli_result_free(&r);
    char *text = tfile_read(trace, NULL);
    CHECK(text != NULL);
    int ok = strstr(text, "\"layer-owner drop\"") && strstr(text, "Broadcast") &&
             strstr(text, "\"Reduce\"");
    free(text);
    CHECK(ok);
    CHECK(tfile_exists(ck));
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "layer-owner", "-n", "4", "--data",
             "blobs", "--steps", "30", "--optimizer", "adam", "--lr", "3e-3", "--resume", ck);
    if (r.rc != 0)
        fprintf(stderr, "%s", r.err);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "resumed from");
    CHECK_STR_CONTAINS(r.out, "(21..30, resumed)");
    tcli_result_free(&r);
    return 0;
}

static int test_refusals_and_help(void) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "layer-owner", "-n", "2", "--eval-every",
             "5");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--eval-every: not supported with --strategy layer-owner");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "owner");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "layer-owner");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--help");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "layer-owner:");
    CHECK_STR_CONTAINS(r.out, "the WRONG picture of FSDP");
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tfile_mkdtemp(dir, sizeof dir, "layer-owner-cli") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    int failures = 0;
    RUN(test_run_and_resume);
    RUN(test_refusals_and_help);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
