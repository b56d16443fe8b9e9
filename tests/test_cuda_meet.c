// tests/test_cuda_meet.c: the CUDA backend's host rendezvous (cuda_meet.c),
// which needs no GPU: every rank gets the latest arrival as the start time,
// mismatched collectives and messages are reported in NCCL's argcheck
// phrasing, a missing rank is named by the watchdog (with what it is doing
// instead), and an abort releases every waiting rank.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll/coll.h" // defines: SimCollKind
#include "cuda_meet.h" // defines: CudaMeet, cuda_meet_all, cuda_meet_pair

#define MAX_RANKS 8

// One scenario: what each rank does, and what it got back.
typedef struct Scene Scene;
typedef void (*RankFn)(Scene *s, int rank);
struct Scene {
    CudaMeet meet;
    int nranks;
    RankFn fn;
    int rounds;
    SimStatus st[MAX_RANKS];
    double start[MAX_RANKS];
    char why[MAX_RANKS][512];
    int bad[MAX_RANKS]; // rounds whose start was not the latest arrival
};

typedef struct {
    Scene *s;
    int rank;
} Arg;

static void *thread_main(void *p) {
    Arg *a = p;
    a->s->fn(a->s, a->rank);
    return NULL;
}

static int run_scene(Scene *s, int nranks, double watchdog_s, RankFn fn, int rounds) {
    memset(s, 0, sizeof *s);
    if (cuda_meet_init(&s->meet, nranks, watchdog_s) != SIM_OK)
        return -1;
    s->nranks = nranks;
    s->fn = fn;
    s->rounds = rounds;
    pthread_t tid[MAX_RANKS];
    Arg args[MAX_RANKS];
    for (int r = 0; r < nranks; r++) {
        args[r] = (Arg){s, r};
        pthread_create(&tid[r], NULL, thread_main, &args[r]);
    }
    for (int r = 0; r < nranks; r++)
        pthread_join(tid[r], NULL);
    return 0;
}

static CudaArrival arrival(SimCollKind kind, uint64_t seq, size_t count, double t) {
    CudaArrival a = {CUDA_MEET_NONE, seq, count, t, (int)kind, SIM_FP32, SIM_SUM, 0, -1};
    return a;
}

// Simulated arrival of rank r in round k: every rank is last in some round.
static double arrive_at(int r, int k, int n) {
    return (double)k + 0.001 * (double)((r * 7 + k * 3) % n);
}

// ----------------------------------------------------------------------------

static void all_rounds(Scene *s, int rank) {
    for (int k = 0; k < s->rounds; k++) {
        CudaArrival a = arrival(SIM_COLL_ALL_REDUCE, (uint64_t)k, 1000, arrive_at(rank, k, s->nranks));
        double start = -1;
        s->st[rank] = cuda_meet_all(&s->meet, rank, &a, &start, s->why[rank], sizeof s->why[rank]);
        if (s->st[rank] != SIM_OK)
            return;
        double latest = 0;
        for (int r = 0; r < s->nranks; r++)
            if (arrive_at(r, k, s->nranks) > latest)
                latest = arrive_at(r, k, s->nranks);
        s->bad[rank] += start != latest;
    }
}

static int test_all_start_is_latest_arrival(void) {
    Scene s;
    CHECK(run_scene(&s, 5, 10.0, all_rounds, 200) == 0);
    for (int r = 0; r < 5; r++) {
        CHECK_EQ_INT(s.st[r], SIM_OK);
        CHECK_EQ_INT(s.bad[r], 0);
    }
    cuda_meet_destroy(&s.meet);
    return 0;
}

// Rank 2 calls with another count; rank 3 with another collective.
static void mismatch(Scene *s, int rank) {
    size_t count = rank == 2 ? 5 : 4;
    SimCollKind kind = rank == 3 && s->rounds == 1 ? SIM_COLL_BROADCAST : SIM_COLL_ALL_REDUCE;
    CudaArrival a = arrival(kind, 0, count, 0.0);
    double start;
    s->st[rank] = cuda_meet_all(&s->meet, rank, &a, &start, s->why[rank], sizeof s->why[rank]);
    // After a violation every later collective stops at once.
    CudaArrival b = arrival(SIM_COLL_ALL_REDUCE, 1, 4, 0.0);
    char why[512];
    if (cuda_meet_all(&s->meet, rank, &b, &start, why, sizeof why) != SIM_EABORTED)
        s->bad[rank]++;
}

static int test_all_mismatch_is_reported(void) {
    Scene s;
    CHECK(run_scene(&s, 3, 10.0, mismatch, 0) == 0);
    for (int r = 0; r < 3; r++) {
        CHECK_EQ_INT(s.st[r], SIM_EPROTO);
        CHECK_STR_CONTAINS(s.why[r], "AllReduce #0: rank 2 count 5 != rank 0 count 4");
        CHECK_EQ_INT(s.bad[r], 0);
    }
    cuda_meet_destroy(&s.meet);

    CHECK(run_scene(&s, 4, 10.0, mismatch, 1) == 0);
    for (int r = 0; r < 4; r++) {
        CHECK_EQ_INT(s.st[r], SIM_EPROTO);
        CHECK_STR_CONTAINS(s.why[r], "rank 2 count 5 != rank 0 count 4");
    }
    cuda_meet_destroy(&s.meet);
    return 0;
}

// Ranks 0 and 1 wait in an all_reduce; rank 2 sends to rank 0 instead.
static void missing(Scene *s, int rank) {
    double start;
    if (rank == 2) {
        CudaArrival a = arrival(SIM_COLL_SEND, 0, 16, 0.0);
        a.peer = 0;
        s->st[rank] = cuda_meet_pair(&s->meet, rank, &a, &start, s->why[rank],
                                     sizeof s->why[rank]);
        return;
    }
    CudaArrival a = arrival(SIM_COLL_ALL_REDUCE, 3, 64, 0.0);
    s->st[rank] = cuda_meet_all(&s->meet, rank, &a, &start, s->why[rank], sizeof s->why[rank]);
}

static int test_watchdog_names_missing_rank(void) {
    Scene s;
    CHECK(run_scene(&s, 3, 0.3, missing, 0) == 0);
    int timeouts = 0;
    for (int r = 0; r < 3; r++) {
        CHECK(s.st[r] == SIM_ETIMEDOUT || s.st[r] == SIM_EABORTED);
        timeouts += s.st[r] == SIM_ETIMEDOUT;
    }
    CHECK(timeouts >= 1);
    // The first diagnosis names both sides, whichever rank timed out first:
    // either the all_reduce waiting for rank 2, or rank 2's send waiting for 0.
    const char *d = s.meet.why;
    CHECK_STR_CONTAINS(d, "watchdog: rank ");
    if (strstr(d, "missing:") != NULL) {
        CHECK_STR_CONTAINS(d, "in AllReduce (collective #3, 64 fp32); missing: rank 2 "
                              "(waiting in Send to rank 0 (message #0))");
    } else {
        CHECK_STR_CONTAINS(d, "rank 2 waited 0.3 s in Send to rank 0 (message #0, 16 fp32); "
                              "rank 0 never posted the matching Recv: it is waiting in "
                              "AllReduce (collective #3)");
    }
    cuda_meet_destroy(&s.meet);
    return 0;
}

// Rank 0 sends to 1 and 1 to 0, alternately; both ranks count messages per
// direction, as sim/engine/comm.c does.
static void pairs(Scene *s, int rank) {
    int peer = 1 - rank;
    for (int k = 0; k < s->rounds; k++) {
        int sending = (k % 2 == 0) == (rank == 0);
        CudaArrival a = arrival(sending ? SIM_COLL_SEND : SIM_COLL_RECV, (uint64_t)(k / 2),
                                128, arrive_at(rank, k, 2));
        a.peer = peer;
        double start = -1;
        s->st[rank] = cuda_meet_pair(&s->meet, rank, &a, &start, s->why[rank],
                                     sizeof s->why[rank]);
        if (s->st[rank] != SIM_OK)
            return;
        double a0 = arrive_at(0, k, 2), a1 = arrive_at(1, k, 2);
        s->bad[rank] += start != (a0 > a1 ? a0 : a1);
    }
}

static void pair_seq_mismatch(Scene *s, int rank) {
    CudaArrival a = arrival(rank == 0 ? SIM_COLL_SEND : SIM_COLL_RECV, rank == 0 ? 1 : 2, 8, 0);
    a.peer = 1 - rank;
    double start;
    s->st[rank] = cuda_meet_pair(&s->meet, rank, &a, &start, s->why[rank], sizeof s->why[rank]);
}

static int test_pairs(void) {
    Scene s;
    CHECK(run_scene(&s, 2, 10.0, pairs, 300) == 0);
    for (int r = 0; r < 2; r++) {
        CHECK_EQ_INT(s.st[r], SIM_OK);
        CHECK_EQ_INT(s.bad[r], 0);
    }
    cuda_meet_destroy(&s.meet);

    CHECK(run_scene(&s, 2, 10.0, pair_seq_mismatch, 0) == 0);
    for (int r = 0; r < 2; r++) {
        CHECK_EQ_INT(s.st[r], SIM_EPROTO);
        CHECK_STR_CONTAINS(s.why[r], "Send/Recv : rank 0 sends message #1 to rank 1, but "
                                     "rank 1 receives message #2 from rank 0");
    }
    cuda_meet_destroy(&s.meet);
    return 0;
}

// Rank 1 fails before the collective; the run aborts the meeting.
static void one_fails(Scene *s, int rank) {
    if (rank == 1) {
        cuda_meet_abort(&s->meet);
        return;
    }
    CudaArrival a = arrival(SIM_COLL_ALL_GATHER, 0, 8, 0);
    double start;
    s->st[rank] = cuda_meet_all(&s->meet, rank, &a, &start, s->why[rank], sizeof s->why[rank]);
}

static int test_abort_releases_and_reset_recovers(void) {
    Scene s;
    CHECK(run_scene(&s, 3, 30.0, one_fails, 0) == 0); // 30 s: only the abort can end it
    CHECK_EQ_INT(s.st[0], SIM_EABORTED);
    CHECK_EQ_INT(s.st[2], SIM_EABORTED);
    CHECK_STR_CONTAINS(s.why[0], "AllGather");
    CHECK_STR_CONTAINS(s.why[0], "another rank failed");

    // After a reset the same meeting object works again.
    cuda_meet_reset(&s.meet);
    s.rounds = 20;
    s.fn = all_rounds;
    pthread_t tid[3];
    Arg args[3];
    for (int r = 0; r < 3; r++) {
        args[r] = (Arg){&s, r};
        pthread_create(&tid[r], NULL, thread_main, &args[r]);
    }
    for (int r = 0; r < 3; r++)
        pthread_join(tid[r], NULL);
    for (int r = 0; r < 3; r++) {
        CHECK_EQ_INT(s.st[r], SIM_OK);
        CHECK_EQ_INT(s.bad[r], 0);
    }
    cuda_meet_destroy(&s.meet);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_all_start_is_latest_arrival);
    RUN(test_all_mismatch_is_reported);
    RUN(test_watchdog_names_missing_rank);
    RUN(test_pairs);
    RUN(test_abort_releases_and_reset_recovers);
    return failures != 0;
}
