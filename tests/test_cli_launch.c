// tests/test_cli_launch.c: `ddplab run --fault same-rank` as a user runs it:
// every process read RANK=0. On one node and on two, the processes that
// exit at once with "Address already in use", the ones left waiting at the
// store-based barrier with its count, the diagnosis on stderr and in the
// --diagnosis file, exit 3, no training and no trace; and the refusals (one
// process per node, --elastic, a second same-rank fault).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

static int test_one_node(void) {
    char diag[600], trace[600];
    snprintf(diag, sizeof diag, "%s", in_dir("one.txt"));
    snprintf(trace, sizeof trace, "%s", in_dir("one.ddptrace"));
    TcliResult r;
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "4", "--fault", "same-rank",
             "--diagnosis", diag, "--trace", trace);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "4 processes on 1 node (srun python train.py), each with RANK=0 "
                              "and WORLD_SIZE=4");
    CHECK_STR_CONTAINS(r.err, "processes 1-3 (node 0): exit 1 at once");
    CHECK_STR_CONTAINS(r.err, "failed to bind to [::]:29500 (errno: 98 - Address already in use)");
    CHECK_STR_CONTAINS(r.err, "process 0 (node 0): hosts the store");
    CHECK_STR_CONTAINS(r.err, "(world_size=4, worker_count=1, timeout=0:30:00)");
    CHECK_STR_CONTAINS(r.err, "3 of 4 exited with 'Address already in use'");
    CHECK(strstr(r.out, "step 1/") == NULL); // no step runs
    tcli_result_free(&r);
    size_t n = 0;
    char *d = tfile_read(diag, &n);
    CHECK(d != NULL);
    CHECK_STR_CONTAINS(d, "diagnosis: every process believes it is rank 0 (RANK=0 in all 4)");
    CHECK_STR_CONTAINS(d, "fix: read it in each task");
    free(d);
    struct stat sb;
    CHECK(stat(trace, &sb) != 0); // the processes never got to train
    return 0;
}

static int test_two_nodes(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 60, "run", "--strategy", "fsdp", "-n", "8", "--nodes", "2", "--fault",
             "same-rank", "--diagnosis", "none");
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "processes 1-3 (node 0), 5-7 (node 1): exit 1 at once");
    CHECK_STR_CONTAINS(r.err, "processes 0 (node 0), 4 (node 1): each hosts a store on its "
                              "node, count in at the store-based barrier and wait for 8");
    CHECK_STR_CONTAINS(r.err, "(world_size=8, worker_count=2, timeout=0:30:00)");
    CHECK_STR_CONTAINS(r.err, "The 2 left (one per node) count 2 of the 8 processes");
    tcli_result_free(&r);
    return 0;
}

static int test_refusals(void) {
    const char *pre = "ddplab run: ";
    TcliResult r;
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "2", "--nodes", "2", "--fault",
             "same-rank");
    CHECK_EQ_INT(tcli_refused(&r, pre, "with one process per node (-n 2 --nodes 2)"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "4", "--fault", "same-rank",
             "--fault", "same-rank");
    CHECK_EQ_INT(tcli_refused(&r, pre, "a second same-rank fault"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "--strategy", "ddp", "-n", "4", "--fault", "same-rank",
             "--elastic", "2:4");
    CHECK_EQ_INT(tcli_refused(&r, pre, "cannot be combined with --elastic"), 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "run", "-n", "1", "--fault", "same-rank");
    CHECK_EQ_INT(tcli_refused(&r, pre, "needs 2 or more ranks"), 0);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "launch") != 0)
        return 2;
    int failures = 0;
    RUN(test_one_node);
    RUN(test_two_nodes);
    RUN(test_refusals);
    if (failures == 0)
        tfile_rmtree(dir);
    return failures ? 1 : 0;
}
