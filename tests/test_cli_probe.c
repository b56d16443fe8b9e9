// tests/test_cli_probe.c: `ddplab run --probe`, the probe batch after the
// last step. With DDP's initial broadcast the four ranks print four
// different training losses and one probe loss, bit for bit; without the
// broadcast the probe losses differ. And the refusal off ddp.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"

static const char *exe;

// The train and probe losses of rank k's row in r->out.
static int row_of(const TcliResult *r, int k, double *train, double *probe) {
    const char *p = strstr(r->out, "own train loss");
    if (p == NULL)
        return -1;
    for (int i = 0; i <= k; i++) {
        p = strchr(p, '\n');
        if (p == NULL)
            return -1;
        p++;
    }
    int rank = -1;
    if (sscanf(p, " %d %lf %lf", &rank, train, probe) != 3 || rank != k)
        return -1;
    return 0;
}

#define PROBE_ARGS "--strategy", "ddp", "-n", "4", "-b", "32", "--model", "mlp:16,64,64,4", \
                   "--data", "blobs:n=512,features=16,classes=4", "--steps", "6", "--lr", "0.1", \
                   "--probe"

static int test_agree(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, "run", PROBE_ARGS);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "probe batch after step 6: rank 0's first batch of the epoch (32 "
                              "samples)");
    CHECK_STR_CONTAINS(r.out, "the probe losses are equal on all 4 ranks");
    double t0, p0, t, p;
    CHECK_EQ_INT(row_of(&r, 0, &t0, &p0), 0);
    int train_differ = 0;
    for (int k = 1; k < 4; k++) {
        CHECK_EQ_INT(row_of(&r, k, &t, &p), 0);
        CHECK(p == p0);
        train_differ += t != t0;
    }
    CHECK_EQ_INT(train_differ, 3); // each rank's own batch: its own loss
    tcli_result_free(&r);
    return 0;
}

static int test_drift(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, "run", PROBE_ARGS, "--no-init-broadcast");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "the probe losses differ on 3 of 4 ranks");
    double t, p0, p;
    CHECK_EQ_INT(row_of(&r, 0, &t, &p0), 0);
    for (int k = 1; k < 4; k++) {
        CHECK_EQ_INT(row_of(&r, k, &t, &p), 0);
        CHECK(p != p0);
    }
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "--strategy", "fsdp", "-n", "2", "--probe");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab run: ", "--probe: needs --strategy ddp"), 0);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    int failures = 0;
    RUN(test_agree);
    RUN(test_drift);
    return failures ? 1 : 0;
}
