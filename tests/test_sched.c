// tests/test_sched.c: every schedule, run by a sequential reference executor
// (all ranks read the state left by the previous step), must produce the
// collective's exact result; incoming and outgoing transfer lists must
// describe the same transfers; and within a step no rank may write a region
// that another rank reads from it.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "schedule.h"

#define MAXX 4096

typedef struct {
    int R;
    size_t count;
    int64_t **send, **recv, **scratch, **work; // [R][...]
    size_t *work_n;
    SimWorkKind *wk;
} Bufs;

static int64_t input(int r, size_t i) {
    return (int64_t)(r + 1) * 1000 + (int64_t)(i % 97);
}

static size_t max_elems(const SimSched *s) {
    return (size_t)s->nranks * (s->count + 1);
}

static void bufs_alloc(Bufs *b, const SimSched *s) {
    int R = s->nranks;
    size_t n = max_elems(s);
    b->R = R;
    b->count = s->count;
    b->send = calloc((size_t)R, sizeof(int64_t *));
    b->recv = calloc((size_t)R, sizeof(int64_t *));
    b->scratch = calloc((size_t)R, sizeof(int64_t *));
    b->work = calloc((size_t)R, sizeof(int64_t *));
    b->work_n = calloc((size_t)R, sizeof(size_t));
    b->wk = calloc((size_t)R, sizeof(SimWorkKind));
    for (int r = 0; r < R; r++) {
        b->send[r] = calloc(n, sizeof(int64_t));
        b->recv[r] = calloc(n, sizeof(int64_t));
        b->scratch[r] = calloc(n, sizeof(int64_t));
        for (size_t i = 0; i < n; i++)
            b->send[r][i] = input(r, i), b->recv[r][i] = -7;
        b->wk[r] = sim_sched_work(s, r, &b->work_n[r]);
        b->work[r] = b->wk[r] == SIM_WORK_RECV ? b->recv[r]
                     : b->wk[r] == SIM_WORK_SEND ? b->send[r] : b->scratch[r];
    }
}

static void bufs_free(Bufs *b) {
    for (int r = 0; r < b->R; r++)
        free(b->send[r]), free(b->recv[r]), free(b->scratch[r]);
    free(b->send), free(b->recv), free(b->scratch), free(b->work), free(b->work_n), free(b->wk);
}

// Runs the schedule; returns 0 or prints why it is malformed.
static int run_sched(const SimSched *s, Bufs *b) {
    int R = s->nranks;
    static SimXfer in[MAXX], out[MAXX];
    for (int r = 0; r < R; r++) {
        size_t so, dof, n;
        if (sim_sched_init_copy(s, r, &so, &dof, &n))
            memcpy(b->work[r] + dof, b->send[r] + so, n * sizeof(int64_t));
    }
    int64_t **snap = calloc((size_t)b->R, sizeof(int64_t *));
    for (int t = 0; t < s->nsteps; t++) {
        int nin_total = 0, nout_total = 0;
        for (int r = 0; r < R; r++) {
            snap[r] = malloc((b->work_n[r] + 1) * sizeof(int64_t));
            memcpy(snap[r], b->work[r], b->work_n[r] * sizeof(int64_t));
        }
        for (int r = 0; r < R; r++) {
            int nin = sim_sched_incoming(s, r, t, in, MAXX);
            int nout = sim_sched_outgoing(s, r, t, out, MAXX);
            CHECK(nin <= MAXX && nout <= MAXX);
            nin_total += nin, nout_total += nout;
            for (int i = 0; i < nin; i++) {
                CHECK_EQ_INT(in[i].dst, r);
                CHECK(in[i].src != r && in[i].src >= 0 && in[i].src < R);
                CHECK(in[i].src_off + in[i].count <= b->work_n[in[i].src]);
                CHECK(in[i].dst_off + in[i].count <= b->work_n[r]);
                CHECK(b->wk[r] != SIM_WORK_SEND);
                // no one may read from r, in this step, what r writes now
                for (int j = 0; j < nout; j++) {
                    int overlap = in[i].dst_off < out[j].src_off + out[j].count &&
                                  out[j].src_off < in[i].dst_off + in[i].count;
                    if (in[i].count && out[j].count && overlap) {
                        fprintf(stderr, "%s/%s R=%d step %d: rank %d writes what rank %d reads\n",
                                sim_coll_name(s->kind), sim_algo_name(s->algo), R, t, r, out[j].dst);
                        return 1;
                    }
                }
                int64_t *dst = b->work[r] + in[i].dst_off;
                const int64_t *src = snap[in[i].src] + in[i].src_off;
                for (size_t e = 0; e < in[i].count; e++)
                    dst[e] = in[i].op == SIM_XFER_REDUCE ? dst[e] + src[e] : src[e];
            }
        }
        CHECK_EQ_INT(nin_total, nout_total);
        for (int r = 0; r < R; r++)
            free(snap[r]);
    }
    free(snap);
    for (int r = 0; r < R; r++) {
        size_t wo, ro, n;
        if (sim_sched_final_copy(s, r, &wo, &ro, &n))
            memcpy(b->recv[r] + ro, b->work[r] + wo, n * sizeof(int64_t));
    }
    return 0;
}

static int64_t sum_at(int R, size_t i) {
    int64_t v = 0;
    for (int r = 0; r < R; r++)
        v += input(r, i);
    return v;
}

static int check_result(const SimSched *s, Bufs *b) {
    int R = s->nranks, root = s->root;
    size_t c = s->count;
    for (int r = 0; r < R; r++) {
        for (size_t i = 0; i < sim_coll_recv_count(s->kind, c, R, r, root); i++) {
            int64_t want;
            switch (s->kind) {
            case SIM_COLL_ALL_REDUCE:
            case SIM_COLL_REDUCE: want = sum_at(R, i); break;
            case SIM_COLL_REDUCE_SCATTER: want = sum_at(R, (size_t)r * c + i); break;
            case SIM_COLL_ALL_GATHER:
            case SIM_COLL_GATHER: want = input((int)(i / c), i % c); break;
            case SIM_COLL_BROADCAST: want = input(root, i); break;
            case SIM_COLL_SCATTER: want = input(root, (size_t)r * c + i); break;
            default: want = 0;
            }
            if (b->recv[r][i] != want) {
                fprintf(stderr, "%s/%s R=%d count=%zu root=%d: rank %d elem %zu = %lld, want %lld\n",
                        sim_coll_name(s->kind), sim_algo_name(s->algo), R, c, root, r, i,
                        (long long)b->recv[r][i], (long long)want);
                return 1;
            }
        }
    }
    return 0;
}

static int test_all_schedules(void) {
    const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 16};
    const size_t counts[] = {0, 1, 7, 15, 100};
    int cases = 0;
    for (int k = 0; k < SIM_COLL_SEND; k++) {
        for (int a = SIM_ALGO_RING; a < SIM_ALGO_COUNT; a++) {
            if (!sim_coll_supports((SimCollKind)k, (SimAlgo)a))
                continue;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                    int R = sizes[si];
                    int root = sim_coll_has_root((SimCollKind)k) ? R / 2 : 0;
                    SimSched s;
                    CHECK_EQ_INT(sim_sched_init(&s, (SimCollKind)k, (SimAlgo)a, R, counts[ci], root), 0);
                    Bufs b;
                    bufs_alloc(&b, &s);
                    int rc = run_sched(&s, &b) || check_result(&s, &b);
                    bufs_free(&b);
                    if (rc)
                        return 1;
                    cases++;
                }
            }
        }
    }
    printf("  %d schedules verified\n", cases);
    return 0;
}

static int test_ring_shape(void) {
    SimSched s;
    CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_RING, 4, 1000, 0), 0);
    CHECK_EQ_INT(s.nsteps, 6);
    CHECK_EQ_INT(s.nchunks, 4);
    SimXfer x[4];
    // reduce-scatter step 0: rank 1 receives chunk (1-2-0) mod 4 = 3 from rank 0
    CHECK_EQ_INT(sim_sched_incoming(&s, 1, 0, x, 4), 1);
    CHECK_EQ_INT(x[0].src, 0);
    CHECK_EQ_INT(x[0].chunk, 3);
    CHECK_EQ_INT(x[0].op, SIM_XFER_REDUCE);
    // all-gather step 0 (step 3): rank 1 receives chunk 0 from rank 0 and copies
    CHECK_EQ_INT(sim_sched_incoming(&s, 1, 3, x, 4), 1);
    CHECK_EQ_INT(x[0].chunk, 0);
    CHECK_EQ_INT(x[0].op, SIM_XFER_COPY);
    CHECK(strcmp(sim_sched_phase_label(&s, 2), "reduce-scatter") == 0);
    CHECK(strcmp(sim_sched_phase_label(&s, 3), "all-gather") == 0);
    // unsupported combination
    CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_GATHER, SIM_ALGO_RING, 4, 10, 0), -1);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ring_shape);
    RUN(test_all_schedules);
    return failures ? 1 : 0;
}
