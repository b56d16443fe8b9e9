// tests/test_trace.c: the in-memory trace: per-rank append with a cap and a
// dropped count, clear, growth, the merge order (time, then rank, then
// position; NaN last), and ranks appending concurrently without locks.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_env.h"
#include "test_events.h"
#include "trace/trace.h"

static int test_append_merge(void) {
    SimTrace *t = sim_trace_new(3, 0);
    CHECK(t != NULL);
    CHECK_EQ_INT(sim_trace_nranks(t), 3);
    // (rank, sim_start) in append order; seq records the order of appends.
    struct {
        int rank;
        double t;
    } in[] = {{0, 2.0}, {0, 1.0}, {1, 1.0}, {0, 1.0}, {1, 0.5}, {2, 1.0}, {2, NAN}};
    int n = (int)(sizeof(in) / sizeof(in[0]));
    for (int i = 0; i < n; i++) {
        SimEvent e = tevent_blank(in[i].rank, in[i].t, in[i].t + 1);
        e.seq = (uint64_t)i;
        CHECK_EQ_INT(sim_trace_append(t, &e), SIM_OK);
    }
    CHECK_EQ_INT(sim_trace_rank_count(t, 0), 3);
    CHECK_EQ_INT(sim_trace_rank_count(t, 1), 2);
    CHECK_EQ_INT(sim_trace_rank_events(t, 0)[1].seq, 1);
    // Order: by time, then rank, then position in the rank; NaN last.
    int want[] = {4, 1, 3, 2, 5, 0, 6};
    size_t m;
    SimEvent *all = sim_trace_merge(t, &m);
    CHECK(all != NULL);
    CHECK_EQ_INT(m, (size_t)n);
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(all[i].seq, want[i]);
    free(all);

    SimEvent bad = tevent_blank(3, 0, 1);
    CHECK_EQ_INT(sim_trace_append(t, &bad), SIM_EINVAL);
    bad.rank = -1;
    CHECK_EQ_INT(sim_trace_append(t, &bad), SIM_EINVAL);
    CHECK(sim_trace_rank_events(t, 5) == NULL && sim_trace_rank_count(t, -1) == 0);
    sim_trace_free(t);

    // Empty trace: merge gives NULL and 0.
    t = sim_trace_new(2, 0);
    m = 99;
    CHECK(sim_trace_merge(t, &m) == NULL && m == 0);
    sim_trace_free(t);
    CHECK(sim_trace_new(0, 0) == NULL);
    return 0;
}

static int test_cap_and_clear(void) {
    SimTrace *t = sim_trace_new(2, 5);
    for (int i = 0; i < 8; i++) {
        SimEvent e = tevent_blank(0, i, i + 1);
        CHECK_EQ_INT(sim_trace_append(t, &e), SIM_OK);
    }
    SimEvent e = tevent_blank(1, 0, 1);
    CHECK_EQ_INT(sim_trace_append(t, &e), SIM_OK);
    CHECK_EQ_INT(sim_trace_rank_count(t, 0), 5);
    CHECK_EQ_INT(sim_trace_rank_events(t, 0)[4].sim_start, 4); // the first five kept
    CHECK_EQ_INT(sim_trace_dropped(t), 3);
    sim_trace_clear(t);
    CHECK_EQ_INT(sim_trace_rank_count(t, 0), 0);
    CHECK_EQ_INT(sim_trace_rank_count(t, 1), 0);
    CHECK_EQ_INT(sim_trace_dropped(t), 0);
    sim_trace_free(t);

    // Unlimited: grows past its first allocation.
    t = sim_trace_new(1, 0);
    for (int i = 0; i < 5000; i++) {
        SimEvent g = tevent_blank(0, i, i + 1);
        g.seq = (uint64_t)i;
        CHECK_EQ_INT(sim_trace_append(t, &g), SIM_OK);
    }
    CHECK_EQ_INT(sim_trace_rank_count(t, 0), 5000);
    CHECK_EQ_INT(sim_trace_rank_events(t, 0)[4999].seq, 4999);
    CHECK_EQ_INT(sim_trace_dropped(t), 0);
    sim_trace_free(t);
    return 0;
}

// Ranks append from their own threads at the same time, with no lock: each
// touches only its own buffer (ThreadSanitizer checks this in its build).
typedef struct {
    SimTrace *t;
    int rank, n;
} AppendArg;

static void *append_thread(void *p) {
    AppendArg *a = p;
    for (int i = 0; i < a->n; i++) {
        SimEvent e = tevent_blank(a->rank, i * 1e-6, (i + 1) * 1e-6);
        e.seq = (uint64_t)i;
        if (sim_trace_append(a->t, &e) != SIM_OK)
            return p;
    }
    return NULL;
}

static int test_concurrent_append(void) {
    enum { R = 8 };
    int per = tenv_quick() ? 2000 : 20000;
    SimTrace *t = sim_trace_new(R, (size_t)per - 100);
    pthread_t th[R];
    AppendArg args[R];
    for (int r = 0; r < R; r++) {
        args[r] = (AppendArg){t, r, per};
        CHECK_EQ_INT(pthread_create(&th[r], NULL, append_thread, &args[r]), 0);
    }
    int bad = 0;
    for (int r = 0; r < R; r++) {
        void *ret;
        pthread_join(th[r], &ret);
        bad += ret != NULL;
    }
    CHECK_EQ_INT(bad, 0);
    for (int r = 0; r < R; r++) {
        CHECK_EQ_INT(sim_trace_rank_count(t, r), per - 100);
        CHECK_EQ_INT(sim_trace_rank_events(t, r)[per - 101].seq, per - 101);
    }
    CHECK_EQ_INT(sim_trace_dropped(t), (size_t)R * 100);
    size_t n;
    SimEvent *all = sim_trace_merge(t, &n);
    CHECK_EQ_INT(n, (size_t)R * (per - 100));
    for (size_t i = 1; i < n; i++) // time order, ranks in order within a time
        CHECK(all[i - 1].sim_start < all[i].sim_start ||
              (all[i - 1].sim_start == all[i].sim_start && all[i - 1].rank < all[i].rank));
    free(all);
    sim_trace_free(t);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_append_merge);
    RUN(test_cap_and_clear);
    RUN(test_concurrent_append);
    return failures != 0;
}
