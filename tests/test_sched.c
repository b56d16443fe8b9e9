// tests/test_sched.c: every schedule, run by a sequential reference executor
// (all ranks read the state left by the previous step), must produce the
// collective's exact result; incoming and outgoing transfer lists must
// describe the same transfers; and within a step no rank may write a region
// that another rank reads from it. A second executor runs the ranks' steps
// in random orders that only the ordering contract of schedule.h restrains,
// on live buffers, and must give the same result.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll/schedule.h"

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
    if (s->kind == SIM_COLL_ALL_REDUCE || s->kind == SIM_COLL_BROADCAST ||
        s->kind == SIM_COLL_REDUCE)
        return s->count + 1;
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

// Executes rank r's step t on the live buffers.
static void exec_step(const SimSched *s, Bufs *b, int r, int t) {
    static SimXfer in[MAXX];
    int nin = sim_sched_incoming(s, r, t, in, MAXX);
    for (int i = 0; i < nin && i < MAXX; i++) {
        int64_t *dst = b->work[r] + in[i].dst_off;
        const int64_t *src = b->work[in[i].src] + in[i].src_off;
        for (size_t e = 0; e < in[i].count; e++)
            dst[e] = in[i].op == SIM_XFER_REDUCE ? dst[e] + src[e] : src[e];
    }
}

// Whether rank r may start step t once next[q] is every rank's next step:
// (a) its sources have finished t - 1, (b) whoever read from it at t - 1 has.
static int may_run(const SimSched *s, const int *next, int r, int t) {
    static SimXfer x[MAXX];
    int n = sim_sched_incoming(s, r, t, x, MAXX);
    for (int i = 0; i < n && i < MAXX; i++)
        if (next[x[i].src] < t)
            return 0;
    n = t > 0 ? sim_sched_outgoing(s, r, t - 1, x, MAXX) : 0;
    for (int i = 0; i < n && i < MAXX; i++)
        if (next[x[i].dst] < t)
            return 0;
    return 1;
}

// The steps of every rank in a random order the contract allows; returns 0,
// or 1 when no rank may go on (a schedule that deadlocks its executor).
static int run_async(const SimSched *s, Bufs *b, unsigned *seed) {
    int R = s->nranks, left = R * s->nsteps;
    int *next = calloc((size_t)R, sizeof(int)), *ready = calloc((size_t)R, sizeof(int));
    for (int r = 0; r < R; r++) {
        size_t so, dof, n;
        if (sim_sched_init_copy(s, r, &so, &dof, &n))
            memcpy(b->work[r] + dof, b->send[r] + so, n * sizeof(int64_t));
    }
    int rc = 0;
    while (left > 0) {
        int nready = 0;
        for (int r = 0; r < R; r++)
            if (next[r] < s->nsteps && may_run(s, next, r, next[r]))
                ready[nready++] = r;
        if (nready == 0) {
            fprintf(stderr, "%s/%s R=%d: no rank may go on\n", sim_coll_name(s->kind),
                    sim_algo_name(s->algo), R);
            rc = 1;
            break;
        }
        *seed = *seed * 1103515245u + 12345u;
        int r = ready[(*seed >> 8) % (unsigned)nready];
        exec_step(s, b, r, next[r]++);
        left--;
    }
    for (int r = 0; r < R && rc == 0; r++) {
        size_t wo, ro, n;
        if (sim_sched_final_copy(s, r, &wo, &ro, &n))
            memcpy(b->recv[r] + ro, b->work[r] + wo, n * sizeof(int64_t));
    }
    free(next), free(ready);
    return rc;
}

static int test_async_orders(void) {
    const int sizes[] = {2, 3, 5, 8, 13};
    const size_t counts[] = {1, 15, 100};
    unsigned seed = 7;
    int cases = 0;
    for (int k = 0; k < SIM_COLL_SEND; k++)
        for (int a = SIM_ALGO_RING; a < SIM_ALGO_COUNT; a++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                    for (int rep = 0; rep < 3; rep++) {
                        if (!sim_coll_supports((SimCollKind)k, (SimAlgo)a))
                            continue;
                        int R = sizes[si];
                        int root = sim_coll_has_root((SimCollKind)k) ? R - 1 : 0;
                        SimSched s;
                        CHECK_EQ_INT(sim_sched_init(&s, (SimCollKind)k, (SimAlgo)a, R,
                                                    counts[ci], root), 0);
                        Bufs b;
                        bufs_alloc(&b, &s);
                        int rc = run_async(&s, &b, &seed) || check_result(&s, &b);
                        bufs_free(&b);
                        if (rc)
                            return 1;
                        cases++;
                    }
    printf("  %d random orders verified\n", cases);
    return 0;
}

// The double binary tree on 8 ranks, drawn out:
//   tree 0: 7 <- 3 <- {1 <- {0, 2}, 5 <- {4, 6}}
//   tree 1: 0 <- 4 <- {2 <- {1, 3}, 6 <- {5, 7}}
static int test_dbtree_shape(void) {
    SimTreeNode v;
    sim_dbtree_node(8, 0, 7, &v);
    CHECK_EQ_INT(v.parent, -1);
    CHECK_EQ_INT(v.nchild, 1);
    CHECK_EQ_INT(v.child[0], 3);
    CHECK_EQ_INT(v.level, 3);
    sim_dbtree_node(8, 1, 0, &v);
    CHECK_EQ_INT(v.parent, -1);
    CHECK_EQ_INT(v.child[0], 4);
    sim_dbtree_node(8, 0, 0, &v);
    CHECK_EQ_INT(v.parent, 1);
    CHECK_EQ_INT(v.depth, 3);
    CHECK_EQ_INT(v.nchild, 0);
    sim_dbtree_node(8, 1, 2, &v);
    CHECK_EQ_INT(v.parent, 4);
    CHECK_EQ_INT(v.parent_level, 2);
    CHECK_EQ_INT(v.nchild, 2);
    CHECK_EQ_INT(v.child[0], 1);
    CHECK_EQ_INT(v.child[1], 3);
    // 6 ranks: position 4's right child 6 stands; 2^2 = 4 is the root of tree 0
    sim_dbtree_node(6, 0, 3, &v);
    CHECK_EQ_INT(v.parent, -1);
    CHECK_EQ_INT(v.nchild, 2);
    CHECK_EQ_INT(v.child[1], 5);
    CHECK_EQ_INT(sim_dbtree_height(1), 0);
    CHECK_EQ_INT(sim_dbtree_height(7), 2);
    CHECK_EQ_INT(sim_dbtree_height(1024), 10);
    CHECK_EQ_INT(sim_dbtree_chunks(0), 1);
    CHECK_EQ_INT(sim_dbtree_chunks(2 * SIM_DBTREE_CHUNK), 1);
    CHECK_EQ_INT(sim_dbtree_chunks(2 * SIM_DBTREE_CHUNK + 1), 2);
    CHECK_EQ_INT(sim_dbtree_chunks((size_t)1 << 40), SIM_DBTREE_MAX_CHUNKS);

    SimSched s;
    CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_DBTREE, 8, 1000, 0), 0);
    CHECK_EQ_INT(s.nchunks, 2);
    CHECK_EQ_INT(s.nsteps, 1 + 2 * 3 - 1);
    CHECK(strcmp(sim_sched_phase_label(&s, 3), "reduce+broadcast") == 0);
    SimXfer x[8];
    // step 0: rank 2, a leaf of tree 0, sends chunk 0 up to rank 1; as an
    // inner node of tree 1 it adds in chunk 1 of ranks 1 and 3
    CHECK_EQ_INT(sim_sched_incoming(&s, 2, 0, x, 8), 2);
    CHECK_EQ_INT(x[0].src, 1);
    CHECK_EQ_INT(x[1].src, 3);
    CHECK_EQ_INT(x[0].chunk, 1);
    CHECK_EQ_INT(x[0].op, SIM_XFER_REDUCE);
    CHECK_EQ_INT(sim_sched_outgoing(&s, 2, 0, x, 8), 1);
    CHECK_EQ_INT(x[0].dst, 1);
    CHECK_EQ_INT(x[0].chunk, 0);
    // the last step: the leaves at depth 3 copy the result down
    CHECK_EQ_INT(sim_sched_incoming(&s, 0, 5, x, 8), 1);
    CHECK_EQ_INT(x[0].src, 1);
    CHECK_EQ_INT(x[0].op, SIM_XFER_COPY);
    // the other collectives run their ring, as NCCL's Tree serves all_reduce alone
    CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_BROADCAST, SIM_ALGO_DBTREE, 8, 10, 0), 0);
    CHECK_EQ_INT(s.algo, SIM_ALGO_RING);
    CHECK_EQ_INT(sim_coll_resolve_algo(SIM_COLL_GATHER, SIM_ALGO_DBTREE), SIM_ALGO_DBTREE);
    CHECK_EQ_INT(sim_coll_supports(SIM_COLL_GATHER, SIM_ALGO_DBTREE), 0);

    // every rank receives and sends at most 2x the buffer; one binomial
    // tree's root receives log2(R) whole buffers
    for (int R = 2; R <= 64; R *= 2) {
        CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_DBTREE, R, 4096, 0), 0);
        for (int r = 0; r < R; r++) {
            size_t tin = 0, tout = 0;
            for (int t = 0; t < s.nsteps; t++) {
                int n = sim_sched_incoming(&s, r, t, x, 8);
                for (int i = 0; i < n; i++)
                    tin += x[i].count;
                n = sim_sched_outgoing(&s, r, t, x, 8);
                for (int i = 0; i < n; i++)
                    tout += x[i].count;
            }
            CHECK(tin <= 2 * 4096 && tout <= 2 * 4096);
        }
    }
    return 0;
}

// The one-walk sim_dbtree_nodes gives every rank the node sim_dbtree_node
// walks down to, at every world size to 1100 and at a few large ones (odd
// sizes leave positions without a right child, which the walk must skip).
static int test_dbtree_nodes(void) {
    const int big[] = {4095, 4096, 4097, 16383, 16384, 65536};
    int fails = 0;
    for (int i = 0; i < 1100 + 6; i++) {
        int R = i < 1100 ? i + 1 : big[i - 1100];
        SimTreeNode *all = malloc((size_t)R * sizeof *all);
        CHECK(all != NULL);
        for (int tree = 0; tree < 2; tree++) {
            for (int r = 0; r < R; r++)
                all[r].level = -7; // a rank the walk missed keeps this
            sim_dbtree_nodes(R, tree, all);
            for (int r = 0; r < R; r++) {
                SimTreeNode v;
                sim_dbtree_node(R, tree, r, &v);
                const SimTreeNode *w = &all[r];
                int same = v.parent == w->parent && v.parent_level == w->parent_level &&
                           v.nchild == w->nchild && v.level == w->level && v.depth == w->depth;
                for (int k = 0; same && k < v.nchild; k++)
                    same = v.child[k] == w->child[k];
                if (!same && fails++ < 5)
                    fprintf(stderr, "R=%d tree %d rank %d: the walk differs\n", R, tree, r);
            }
        }
        free(all);
    }
    CHECK_EQ_INT(fails, 0);
    return 0;
}

// Long buffers: several pipeline chunks per tree, both executors.
static int test_dbtree_pipeline(void) {
    const int sizes[] = {2, 3, 5, 6, 8};
    size_t count = 2 * (size_t)SIM_DBTREE_CHUNK * 5 + 3; // 6 chunks per tree
    unsigned seed = 11;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        SimSched s;
        CHECK_EQ_INT(sim_sched_init(&s, SIM_COLL_ALL_REDUCE, SIM_ALGO_DBTREE, sizes[si], count, 0), 0);
        CHECK_EQ_INT(s.nchunks, 12);
        CHECK_EQ_INT(s.nsteps, 6 + 2 * sim_dbtree_height(sizes[si]) - 1);
        for (int how = 0; how < 2; how++) {
            Bufs b;
            bufs_alloc(&b, &s);
            int rc = (how ? run_async(&s, &b, &seed) : run_sched(&s, &b)) || check_result(&s, &b);
            bufs_free(&b);
            if (rc)
                return 1;
        }
    }
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
    RUN(test_async_orders);
    RUN(test_dbtree_shape);
    RUN(test_dbtree_nodes);
    RUN(test_dbtree_pipeline);
    return failures ? 1 : 0;
}
