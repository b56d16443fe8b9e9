// tests/test_launch.c: env:// initialisation by the RANK each process read
// (sim/train/launch.h): every process with RANK=0 on one node and on two
// (the bind failures, the survivors, the barrier's count), correct ranks,
// one process per node, no store on MASTER_ADDR, bad input; and, with
// `torch` as argument, the one-node case against PyTorch itself: four gloo
// processes with RANK=0 (exit 77 without python3-torch).
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "torch_ref.h"
#include "train/launch.h"

// The fates of l as a string: J joined, B bind failed, T timed out.
static const char *fates(const SimLaunch *l, char *buf) {
    static const char code[] = "JBT";
    for (int p = 0; p < l->nprocs; p++)
        buf[p] = code[l->fate[p]];
    buf[l->nprocs] = '\0';
    return buf;
}

static int test_all_rank0(void) {
    int zero[8] = {0};
    char f[16];
    SimLaunch l;
    CHECK_EQ_INT(sim_launch_env(4, 1, zero, &l), SIM_OK);
    CHECK(strcmp(fates(&l, f), "TBBB") == 0);
    CHECK_EQ_INT(l.worker_count, 1);
    CHECK_EQ_INT(l.servers, 1);
    CHECK_EQ_INT(l.ok, 0);
    CHECK_EQ_INT(sim_launch_duplicates(&l), 4);
    sim_launch_free(&l);
    // two nodes: one process per node binds the port on its own host
    CHECK_EQ_INT(sim_launch_env(8, 2, zero, &l), SIM_OK);
    CHECK(strcmp(fates(&l, f), "TBBBTBBB") == 0);
    CHECK_EQ_INT(l.worker_count, 2);
    CHECK_EQ_INT(l.servers, 2);
    CHECK_EQ_INT(l.ok, 0);
    sim_launch_free(&l);
    return 0;
}

static int test_right_ranks(void) {
    int ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    char f[16];
    SimLaunch l;
    CHECK_EQ_INT(sim_launch_env(8, 2, ranks, &l), SIM_OK);
    CHECK(strcmp(fates(&l, f), "JJJJJJJJ") == 0);
    CHECK_EQ_INT(l.worker_count, 8);
    CHECK_EQ_INT(l.servers, 1);
    CHECK_EQ_INT(l.ok, 1);
    CHECK_EQ_INT(sim_launch_duplicates(&l), 0);
    sim_launch_free(&l);
    return 0;
}

// One process per node, all RANK=0: every node's port is free, the barrier
// counts all of them and init returns, with duplicate ranks the model
// flags instead of following.
static int test_one_per_node(void) {
    int zero[4] = {0};
    char f[8];
    SimLaunch l;
    CHECK_EQ_INT(sim_launch_env(4, 4, zero, &l), SIM_OK);
    CHECK(strcmp(fates(&l, f), "JJJJ") == 0);
    CHECK_EQ_INT(l.ok, 1);
    CHECK_EQ_INT(l.servers, 4);
    CHECK_EQ_INT(sim_launch_duplicates(&l), 4);
    sim_launch_free(&l);
    return 0;
}

// Rank 0 on the second node only: nobody serves MASTER_ADDR, so no client
// connects and every process waits out the timeout.
static int test_no_master(void) {
    int ranks[4] = {1, 2, 0, 3};
    char f[8];
    SimLaunch l;
    CHECK_EQ_INT(sim_launch_env(4, 2, ranks, &l), SIM_OK);
    CHECK(strcmp(fates(&l, f), "TTTT") == 0);
    CHECK_EQ_INT(l.worker_count, 0);
    CHECK_EQ_INT(l.ok, 0);
    sim_launch_free(&l);
    return 0;
}

static int test_bad_input(void) {
    int zero[6] = {0}, big[2] = {0, 2};
    SimLaunch l;
    CHECK_EQ_INT(sim_launch_env(6, 4, zero, &l), SIM_EINVAL);
    CHECK(l.fate == NULL && l.claimed == NULL);
    CHECK_EQ_INT(sim_launch_env(2, 1, big, &l), SIM_EINVAL);
    CHECK_EQ_INT(sim_launch_env(0, 1, zero, &l), SIM_EINVAL);
    return 0;
}

// Four real processes with RANK=0 on gloo, a 5 s timeout: as many exit with
// "Address already in use" and time out as the model says (which one wins
// the port is the operating system's choice, so counts are compared).
static int test_torch(void) {
    if (!torchref_available())
        return 77;
    char dir[512];
    CHECK_EQ_INT(torchref_tmpdir(dir, sizeof dir), 0);
    const char *args[] = {dir, "4", "5", NULL};
    int rc = torchref_run("launch_ref.py", args);
    int32_t got[4] = {0};
    int read = rc == 0 ? torchref_read(dir, "fates.bin", got, sizeof got) : -1;
    torchref_rmdir(dir);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(read, 0);
    int zero[4] = {0}, count[4] = {0}, model[4] = {0};
    SimLaunch l;
    CHECK_EQ_INT(sim_launch_env(4, 1, zero, &l), SIM_OK);
    for (int p = 0; p < 4; p++) {
        CHECK(got[p] >= 0 && got[p] <= 3);
        count[got[p]]++;
        model[l.fate[p]]++;
    }
    sim_launch_free(&l);
    printf("torch: %d joined, %d failed to bind, %d timed out, %d other\n", count[0], count[1],
           count[2], count[3]);
    CHECK_EQ_INT(count[3], 0);
    CHECK_EQ_INT(count[SIM_LAUNCH_JOINED], model[SIM_LAUNCH_JOINED]);
    CHECK_EQ_INT(count[SIM_LAUNCH_BIND_FAILED], model[SIM_LAUNCH_BIND_FAILED]);
    CHECK_EQ_INT(count[SIM_LAUNCH_TIMED_OUT], model[SIM_LAUNCH_TIMED_OUT]);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "torch") == 0) {
        int rc = test_torch();
        if (rc == 0)
            printf("ok     test_torch\n");
        return rc;
    }
    int failures = 0;
    RUN(test_all_rank0);
    RUN(test_right_ranks);
    RUN(test_one_per_node);
    RUN(test_no_master);
    RUN(test_bad_input);
    return failures ? 1 : 0;
}
