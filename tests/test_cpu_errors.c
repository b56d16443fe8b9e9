// tests/test_cpu_errors.c: what the CPU backend does when ranks misbehave.
//   - a bad configuration is refused by init with a reason;
//   - ranks that disagree on a collective (count, dtype, collective, root,
//     reduction op) or on a send/recv pair all fail with SIM_EPROTO and a
//     message naming the ranks, the sequence number and what differs;
//   - a rank that never arrives is caught by the watchdog, which names who
//     waits where and who is missing, within a bounded time;
//   - after any of these, every further collective fails at once.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"
#include "engine/comm.h"
#include "test_world.h"

#define MAXR 64

typedef enum { BAD_COUNT, BAD_DTYPE, BAD_KIND, BAD_ROOT, BAD_OP, BAD_P2P_COUNT, MISSING,
               MISSING_P2P, MISSING_HALF } Fault;

typedef struct {
    Fault fault;
    SimStatus first[MAXR];   // status of the faulty call
    SimStatus after[MAXR];   // status of a collective made after it
    double after_s[MAXR];    // how long that later call took
} Run;

// Each rank: one good all_reduce (#0), then the faulty call (#1), then a
// collective that must fail at once.
static SimStatus faulty_rank(SimRank *r, void *arg) {
    Run *run = arg;
    int me = r->rank;
    float buf[2048];
    memset(buf, 0, sizeof buf);
    SimStatus st = sim_all_reduce(r, buf, buf, 1024, SIM_FP32, SIM_SUM, SIM_ALGO_DIRECT);
    if (st != SIM_OK)
        return st;
    switch (run->fault) {
    case BAD_COUNT:
        st = sim_all_reduce(r, buf, buf, me == 3 ? 1024 : 2048, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
        break;
    case BAD_DTYPE:
        st = sim_all_reduce(r, buf, buf, 64, me == 2 ? SIM_FP16 : SIM_FP32, SIM_SUM, SIM_ALGO_RING);
        break;
    case BAD_KIND:
        st = me == 2 ? sim_broadcast(r, buf, buf, 64, SIM_FP32, 0, SIM_ALGO_RING)
                     : sim_all_reduce(r, buf, buf, 64, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
        break;
    case BAD_ROOT:
        st = sim_broadcast(r, buf, buf, 64, SIM_FP32, me == 1 ? 2 : 0, SIM_ALGO_TREE);
        break;
    case BAD_OP:
        st = sim_all_reduce(r, buf, buf, 64, SIM_FP32, me == 3 ? SIM_MAX : SIM_SUM,
                            SIM_ALGO_DIRECT);
        break;
    case BAD_P2P_COUNT:
        if (me == 0)
            st = sim_send(r, buf, 10, SIM_FP32, 1);
        else if (me == 1)
            st = sim_recv(r, buf, 12, SIM_FP32, 0);
        else
            st = SIM_OK; // not involved
        break;
    case MISSING:
        if (me == 3)
            return SIM_OK; // leaves early: never arrives at #1
        st = sim_all_reduce(r, buf, buf, 1024, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
        break;
    case MISSING_HALF:
        if (me % 2 == 1)
            return SIM_OK; // every odd rank leaves early
        st = sim_all_reduce(r, buf, buf, 1024, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
        break;
    case MISSING_P2P:
        if (me != 0)
            return SIM_OK;
        st = sim_recv(r, buf, 10, SIM_FP32, 1);
        break;
    }
    run->first[me] = st;
    double t0 = sim_wall_now();
    run->after[me] = sim_all_reduce(r, buf, buf, 16, SIM_FP32, SIM_SUM, SIM_ALGO_RING);
    run->after_s[me] = sim_wall_now() - t0;
    return st;
}

// Runs one faulty scenario on R ranks; returns the run status and leaves the
// world's error in err.
static SimStatus run_fault(Run *run, int R, double watchdog_s, char *err, size_t n,
                           double *elapsed) {
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, R, 0, watchdog_s);
    double t0 = sim_wall_now();
    if (st == SIM_OK)
        st = sim_world_run(&w, faulty_rank, run);
    *elapsed = sim_wall_now() - t0;
    snprintf(err, n, "%s", sim_world_error(&w));
    // A second run on the aborted world: every collective fails at once.
    if (st != SIM_OK && w.ctx != NULL) {
        Run again = {.fault = BAD_COUNT};
        double t1 = sim_wall_now();
        SimStatus st2 = sim_world_run(&w, faulty_rank, &again);
        if (st2 != SIM_EABORTED || sim_wall_now() - t1 > 1.0) {
            fprintf(stderr, "second run on an aborted world: %s after %.2f s\n",
                    sim_status_name(st2), sim_wall_now() - t1);
            st = SIM_EINVAL;
        }
    }
    sim_world_free(&w);
    return st;
}

// A protocol violation: every rank of the call fails with SIM_EPROTO, the
// message names what differs, and later collectives fail at once.
static int check_mismatch(Fault f, const char *want) {
    Run run = {.fault = f};
    char err[4096];
    double elapsed;
    SimStatus st = run_fault(&run, 4, 5.0, err, sizeof err, &elapsed);
    CHECK_EQ_INT(st, SIM_EPROTO);
    CHECK_STR_CONTAINS(err, want);
    int involved = f == BAD_P2P_COUNT ? 2 : 4;
    for (int r = 0; r < involved; r++) {
        CHECK_EQ_INT(run.first[r], SIM_EPROTO);
        CHECK_EQ_INT(run.after[r], SIM_EABORTED);
    }
    // no watchdog involved: the status is the protocol error, not a timeout
    // (the watchdog, 5 s, would have said SIM_ETIMEDOUT)
    printf("  failed after %.3f s\n", elapsed);
    return 0;
}

static int test_count_mismatch(void) {
    return check_mismatch(BAD_COUNT, "AllReduce #1: rank 3 count 1024 != rank 0 count 2048");
}

static int test_dtype_mismatch(void) {
    return check_mismatch(BAD_DTYPE, "AllReduce #1: rank 2 dtype fp16 != rank 0 dtype fp32");
}

static int test_kind_mismatch(void) {
    return check_mismatch(BAD_KIND,
                          "collective #1: rank 2 called Broadcast, rank 0 called AllReduce");
}

static int test_root_mismatch(void) {
    return check_mismatch(BAD_ROOT, "Broadcast #1: rank 1 root 2 != rank 0 root 0");
}

static int test_op_mismatch(void) {
    return check_mismatch(BAD_OP, "AllReduce #1: rank 3 op max != rank 0 op sum");
}

static int test_p2p_mismatch(void) {
    return check_mismatch(BAD_P2P_COUNT,
                          "Send/Recv #0 from rank 0 to rank 1: recv count 12 != send count 10");
}

// Rank 3 returns after #0; ranks 0-2 wait in #1 until the watchdog fires.
static int test_missing_rank(void) {
    Run run = {.fault = MISSING};
    char err[4096];
    double elapsed;
    SimStatus st = run_fault(&run, 4, 1.0, err, sizeof err, &elapsed);
    printf("  watchdog diagnosis after %.2f s:\n%s", elapsed, err);
    CHECK_EQ_INT(st, SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "ranks 0,1,2 wait in AllReduce #1 (1024 x fp32); "
                            "rank 3 never arrived (last completed #0)");
    CHECK_STR_CONTAINS(err, "ranks 0,1,2: #0 AllReduce 1024 x fp32 done, #1 AllReduce 1024 x "
                            "fp32 waiting in rendezvous; waiting (algo ring)\n");
    CHECK_STR_CONTAINS(err, "rank 3: #0 AllReduce 1024 x fp32 done; rank function returned\n");
    CHECK_STR_CONTAINS(err, "diverge at #1: ranks 0,1,2 called AllReduce 1024 x fp32, rank 3 "
                            "never called #1 (last entered #0)\n");
    CHECK_STR_CONTAINS(err, "probable cause: rank 3 left the training loop early");
    int timed_out = 0;
    for (int r = 0; r < 3; r++) {
        CHECK(run.first[r] == SIM_ETIMEDOUT || run.first[r] == SIM_EABORTED);
        timed_out += run.first[r] == SIM_ETIMEDOUT;
        CHECK_EQ_INT(run.after[r], SIM_EABORTED);
    }
    CHECK(timed_out >= 1); // the watchdog ended it, not the test's timeout
    return 0;
}

// Many ranks, none in the same state as its neighbour: the per-rank lines
// fold the ranks in the same state wherever they are, and the rank lists
// stay short.
static int test_missing_half(void) {
    Run run = {.fault = MISSING_HALF};
    char err[4096];
    double elapsed;
    // The watchdog's limit is time a rank waits; it must outlast the start of
    // 64 rank threads on a busy machine (under a sanitizer, with other work
    // beside it, starting them took over 0.3 s), or it fires at #0 instead.
    SimStatus st = run_fault(&run, 64, 3.0, err, sizeof err, &elapsed);
    CHECK_EQ_INT(st, SIM_ETIMEDOUT);
    CHECK(strlen(err) < sizeof err - 1); // sim_world_error kept it whole
    CHECK_STR_CONTAINS(err, "\n  ranks 0,2,4,");
    CHECK_STR_CONTAINS(err, ",62: #0 AllReduce 1024 x fp32 done, #1 AllReduce 1024 x fp32 "
                            "waiting in rendezvous; waiting (algo ring)\n  ranks 1,3,5,");
    CHECK_STR_CONTAINS(err, ",63: #0 AllReduce 1024 x fp32 done; rank function returned\n");
    CHECK_STR_CONTAINS(err, "\ndiverge at #1: ranks 0,2,4,");
    CHECK_STR_CONTAINS(err, ",62 called AllReduce 1024 x fp32, ranks 1,3,5,");
    CHECK_STR_CONTAINS(err, ",63 never called #1 (last entered #0)\n");
    CHECK_STR_CONTAINS(err, "\nprobable cause: ranks 1,3,5,");
    CHECK_STR_CONTAINS(err, ",63 left the training loop early");
    CHECK_STR_CONTAINS(err, "ranks 0,2,4,6,8,");
    CHECK_STR_CONTAINS(err, ",60,62 wait in AllReduce #1 (1024 x fp32); ranks 1,3,5,");
    CHECK_STR_CONTAINS(err, ",61,63 never arrived (last completed #0)\n");
    return 0;
}

// A receive whose sender has gone: same watchdog, the pair is named.
static int test_missing_sender(void) {
    Run run = {.fault = MISSING_P2P};
    char err[4096];
    double elapsed;
    SimStatus st = run_fault(&run, 2, 1.0, err, sizeof err, &elapsed);
    CHECK_EQ_INT(st, SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "rank 0 waits in Recv #0 from rank 1 (10 x fp32); "
                            "rank 1 never arrived (last completed #0)");
    CHECK_EQ_INT(run.first[0], SIM_ETIMEDOUT);
    CHECK_EQ_INT(run.after[0], SIM_EABORTED);
    return 0;
}

// init refuses bad configurations with a reason.
static int test_bad_config(void) {
    SimBackendConfig bad[] = {
        {0, 1, 0, 1.0, 0, 0, {0}, SIM_ALGO_AUTO},
        {65537, 1, 65537, 1.0, 0, 0, {0}, SIM_ALGO_AUTO},
        {4, 3, 1, 1.0, 0, 0, {0}, SIM_ALGO_AUTO},
        {4, 2, 3, 1.0, 0, 0, {0}, SIM_ALGO_AUTO},
        {4, 1, 4, 0.0, 0, 0, {0}, SIM_ALGO_AUTO},
        {4, 0, 4, 1.0, 0, 0, {0}, SIM_ALGO_AUTO},
        // represent: the sym backend's mode, not this one's
        {4, 1, 4, 1.0, 1, 1, {0}, SIM_ALGO_AUTO},
    };
    const char *why[] = {"ranks", "ranks", "topology", "topology", "watchdog", "topology",
                         "represent"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        void *ctx = (void *)1;
        char err[256] = "";
        CHECK_EQ_INT(cpu_backend_ops.init(&bad[i], &ctx, err, sizeof err), SIM_EINVAL);
        CHECK(ctx == NULL);
        CHECK_STR_CONTAINS(err, why[i]);
    }
    SimBackendConfig good = {6, 2, 3, 1.0, 0, 0, {0}, SIM_ALGO_AUTO};
    void *ctx = NULL;
    char err[256] = "";
    CHECK_EQ_INT(cpu_backend_ops.init(&good, &ctx, err, sizeof err), SIM_OK);
    CHECK(ctx != NULL);
    CHECK_EQ_INT(strlen(cpu_backend_ops.last_error(ctx)), 0);
    cpu_backend_ops.finalize(ctx);
    cpu_backend_ops.finalize(NULL);
    CHECK(strcmp(cpu_backend_ops.name, "cpu") == 0);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_bad_config);
    RUN(test_count_mismatch);
    RUN(test_dtype_mismatch);
    RUN(test_kind_mismatch);
    RUN(test_root_mismatch);
    RUN(test_op_mismatch);
    RUN(test_p2p_mismatch);
    RUN(test_missing_rank);
    RUN(test_missing_half);
    RUN(test_missing_sender);
    return failures != 0;
}
