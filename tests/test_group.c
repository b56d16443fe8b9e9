// tests/test_group.c: collectives over process groups (sim/engine/group.h) on the
// CPU backend.
//   - node and cross groups on 4 (2x2), 8 (2x4, 4x2), 6 (3x2) ranks, and the
//     corner worlds 4x1 (single-member node groups) and 1x4 (the node group
//     is the world, delegated to the world collective): every collective,
//     fp32 and bf16, in place and out of place, SUM/AVG/MAX, counts from 0 to
//     ones that do not divide by the group's size; each result must equal,
//     bit for bit, a reference computed serially in the world ring's order;
//   - the trace holds exactly one labelled collective event per group call
//     per member (and the world's own event for delegated calls), spanning
//     the point-to-point events of the call;
//   - with the dgx-h100 profile a node-group all_reduce (NVLink) is faster in
//     simulated time than the same over the inter-node group (InfiniBand);
//   - bad arguments fail with SIM_EINVAL naming the group; members that
//     disagree on the count or dtype fail with SIM_EPROTO; a member that
//     never calls is caught by the watchdog instead of hanging.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"
#include "engine/group.h"
#include "test_env.h"

#define MAXR 8
#define MAXCALLS 2048

// ----------------------------------------------------------------------------
// worlds

static SimStatus world_init(SimWorld *w, int R, int nodes, double watchdog_s) {
    SimWorldConfig cfg;
    sim_world_config_default(&cfg);
    cfg.nranks = R;
    cfg.nodes = nodes;
    cfg.watchdog_s = watchdog_s;
    return sim_world_init(w, &cfg, &cpu_backend_ops);
}

// ----------------------------------------------------------------------------
// inputs and the serial reference

// A value with a fine fraction, so that bf16 rounds and the order of a sum
// shows in its last bits.
static double input_value(int wrank, size_t i, int salt) {
    return (double)((wrank * 131 + (int)(i % 1009) * 71 + salt * 17) % 1000) / 64.0 - 7.0 +
           (double)wrank / 1024.0;
}

static void fill_input(void *buf, SimDtype dt, size_t n, int wrank, int salt) {
    for (size_t i = 0; i < n; i++)
        sim_elem_set(buf, dt, i, input_value(wrank, i, salt));
}

// The world ring's order for chunk c over n members: start from member c+1,
// then acc = x[j] (op) acc for j = c+2, ..., c (mod n); AVG divides by n once.
static void ring_reference(void *out, void *const *in, size_t off, size_t len, int n, int c,
                           SimDtype dt, SimRedOp op) {
    size_t esz = sim_dtype_size(dt);
    if (len == 0)
        return;
    unsigned char *tmp = malloc(len * esz);
    memcpy(out, (char *)in[(c + 1) % n] + off * esz, len * esz);
    for (int k = 2; k <= n; k++) {
        memcpy(tmp, (char *)in[(c + k) % n] + off * esz, len * esz);
        sim_reduce_inplace(tmp, out, len, dt, op);
        memcpy(out, tmp, len * esz);
    }
    if (op == SIM_AVG)
        sim_scale_avg(out, len, dt, n);
    free(tmp);
}

// ----------------------------------------------------------------------------
// the matrix

typedef struct {
    SimCollKind kind;
    SimDtype dt;
    size_t count;
    const char *label; // NULL: delegated to the world collective
} Call;

typedef struct {
    int quick;
    long long wrong[MAXR];
    char first_wrong[MAXR][256];
    int ncalls[MAXR];
    Call calls[MAXR][MAXCALLS];
} Matrix;

static void note_wrong(Matrix *m, int rank, const char *what, const SimGroup *g, SimCollKind k,
                       SimDtype dt, SimRedOp op, size_t count, int inplace, size_t at) {
    if (m->wrong[rank]++ == 0)
        snprintf(m->first_wrong[rank], sizeof m->first_wrong[rank],
                 "%s: %s on %s (n=%d) %s %s count %zu %s, element %zu", what,
                 sim_coll_title(k), g->name, g->n, sim_dtype_name(dt), sim_redop_name(op),
                 count, inplace ? "in place" : "out of place", at);
}

// Compares n elements bit for bit; returns the first differing index or n.
static size_t first_diff(const void *a, const void *b, size_t n, SimDtype dt) {
    size_t esz = sim_dtype_size(dt);
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * esz, (const char *)b + i * esz, esz) != 0)
            return i;
    return n;
}

static SimStatus call_group(SimRank *r, const SimGroup *g, SimCollKind k, const void *send,
                            void *recv, size_t count, SimDtype dt, SimRedOp op, int root) {
    switch (k) {
    case SIM_COLL_ALL_REDUCE: return sim_group_all_reduce(r, g, send, recv, count, dt, op);
    case SIM_COLL_REDUCE_SCATTER:
        return sim_group_reduce_scatter(r, g, send, recv, count, dt, op);
    case SIM_COLL_ALL_GATHER: return sim_group_all_gather(r, g, send, recv, count, dt);
    default: return sim_group_broadcast(r, g, send, recv, count, dt, root);
    }
}

// One call on every member, checked against the reference.
static SimStatus run_case(SimRank *r, Matrix *m, const SimGroup *g, SimCollKind k, SimDtype dt,
                          SimRedOp op, size_t count, int inplace, int root, int salt) {
    int n = g->n, me = g->me, rank = r->rank;
    size_t esz = sim_dtype_size(dt);
    int blocks = k == SIM_COLL_REDUCE_SCATTER || k == SIM_COLL_ALL_GATHER;
    size_t in_n = k == SIM_COLL_REDUCE_SCATTER ? (size_t)n * count : count; // per member input
    size_t out_n = k == SIM_COLL_ALL_GATHER ? (size_t)n * count : count;    // recv elements
    size_t big = blocks ? (size_t)n * count : count;

    // Every member's input (the reference needs them all).
    void **in = calloc((size_t)n, sizeof *in);
    for (int j = 0; j < n; j++) {
        in[j] = malloc(in_n * esz + 1);
        fill_input(in[j], dt, in_n, sim_group_rank(g, j), salt);
    }
    unsigned char *buf = malloc(big * esz + 1), *sendb = malloc(big * esz + 1);
    memset(buf, 0x5a, big * esz + 1);
    memset(sendb, 0x5a, big * esz + 1);
    const void *send;
    void *recv;
    if (inplace) {
        if (k == SIM_COLL_ALL_GATHER)
            memcpy(buf + (size_t)me * count * esz, in[me], count * esz);
        else if (k != SIM_COLL_BROADCAST || me == root)
            memcpy(buf, in[me], in_n * esz);
        send = k == SIM_COLL_ALL_GATHER ? buf + (size_t)me * count * esz : buf;
        recv = k == SIM_COLL_REDUCE_SCATTER ? buf + (size_t)me * count * esz : buf;
    } else {
        memcpy(sendb, in[me], in_n * esz);
        send = sendb;
        recv = buf;
    }

    SimStatus st = call_group(r, g, k, send, recv, count, dt, op, root);
    if (st == SIM_OK) {
        unsigned char *want = malloc(out_n * esz + 1);
        switch (k) {
        case SIM_COLL_ALL_REDUCE:
            for (int c = 0; c < n; c++)
                ring_reference(want + sim_part_begin(count, n, c) * esz, in,
                               sim_part_begin(count, n, c), sim_part_size(count, n, c), n, c,
                               dt, op);
            break;
        case SIM_COLL_REDUCE_SCATTER:
            ring_reference(want, in, (size_t)me * count, count, n, me, dt, op);
            break;
        case SIM_COLL_ALL_GATHER:
            for (int j = 0; j < n; j++)
                memcpy(want + (size_t)j * count * esz, in[j], count * esz);
            break;
        default:
            memcpy(want, in[root], count * esz);
            break;
        }
        size_t at = first_diff(recv, want, out_n, dt);
        if (at < out_n)
            note_wrong(m, rank, "wrong result", g, k, dt, op, count, inplace, at);
        if (!inplace && (at = first_diff(sendb, in[me], in_n, dt)) < in_n &&
            (k != SIM_COLL_BROADCAST || me == root))
            note_wrong(m, rank, "send buffer changed", g, k, dt, op, count, inplace, at);
        free(want);
        int c = m->ncalls[rank]++;
        if (c < MAXCALLS)
            m->calls[rank][c] = (Call){k, dt, count, sim_group_is_world(g, r) && n > 1 ? NULL
                                                                                      : g->name};
    }
    for (int j = 0; j < n; j++)
        free(in[j]);
    free(in);
    free(buf);
    free(sendb);
    return st;
}

static SimStatus matrix_rank(SimRank *r, void *arg) {
    Matrix *m = arg;
    SimGroup groups[3];
    sim_group_node(&groups[0], r);
    sim_group_cross(&groups[1], r);
    sim_group_world(&groups[2], r);
    const SimCollKind kinds[] = {SIM_COLL_ALL_REDUCE, SIM_COLL_REDUCE_SCATTER,
                                 SIM_COLL_ALL_GATHER, SIM_COLL_BROADCAST};
    const SimDtype dts[] = {SIM_FP32, SIM_BF16};
    const SimRedOp ops[] = {SIM_SUM, SIM_AVG, SIM_MAX};
    const size_t counts[] = {0, 1, 7, m->quick ? 100 : 1000};
    int salt = 0;
    for (int gi = 0; gi < 3; gi++) {
        const SimGroup *g = &groups[gi];
        for (size_t ki = 0; ki < 4; ki++) {
            SimCollKind k = kinds[ki];
            int nops = sim_coll_is_reduction(k) ? 3 : 1;
            int nroots = k == SIM_COLL_BROADCAST && g->n > 1 ? 2 : 1;
            for (int di = 0; di < 2; di++)
                for (int inplace = 0; inplace < 2; inplace++)
                    for (int oi = 0; oi < nops; oi++)
                        for (int ri = 0; ri < nroots; ri++)
                            for (size_t ci = 0; ci < 4; ci++)
                                SIM_CHECK(run_case(r, m, g, k, dts[di], ops[oi], counts[ci],
                                                   inplace, ri == 0 ? 0 : g->n - 1, salt++));
        }
    }
    return SIM_OK;
}

// The labelled collective events of one rank, in order, against its calls;
// every point-to-point event of a call lies inside the call's event.
static int check_trace(const SimWorld *w, const Matrix *m, int rank) {
    size_t ne = sim_trace_rank_count(w->trace, rank);
    const SimEvent *ev = sim_trace_rank_events(w->trace, rank);
    int next = 0;
    size_t p2p_from = 0;
    for (size_t i = 0; i < ne; i++) {
        const SimEvent *e = &ev[i];
        if (e->kind != SIM_EV_COLL || e->coll == SIM_COLL_SEND || e->coll == SIM_COLL_RECV)
            continue;
        CHECK(next < m->ncalls[rank]);
        const Call *c = &m->calls[rank][next++];
        CHECK_EQ_INT(e->coll, c->kind);
        CHECK(strcmp(e->name, sim_coll_title(c->kind)) == 0);
        CHECK_EQ_INT(e->dtype, c->dt);
        CHECK_EQ_INT(e->count, c->count);
        CHECK_EQ_INT(e->bytes, c->count * sim_dtype_size(c->dt));
        CHECK_EQ_INT(e->stream, SIM_STREAM_COMM);
        CHECK(e->sim_end >= e->sim_start);
        if (c->label == NULL) {
            CHECK(e->label == NULL); // the world collective's own event
        } else {
            CHECK(e->label != NULL && strcmp(e->label, c->label) == 0);
            for (size_t j = p2p_from; j < i; j++) {
                const SimEvent *p = &ev[j];
                if (p->kind != SIM_EV_COLL)
                    continue;
                CHECK(p->coll == SIM_COLL_SEND || p->coll == SIM_COLL_RECV);
                CHECK(p->sim_end >= e->sim_start - 1e-12);
                CHECK(p->sim_end <= e->sim_end + 1e-12);
            }
        }
        p2p_from = i + 1;
    }
    CHECK_EQ_INT(next, m->ncalls[rank]);
    return 0;
}

static int test_matrix(void) {
    static const int topo[][2] = {{4, 2}, {8, 2}, {8, 4}, {6, 3}, {4, 4}, {4, 1}};
    Matrix *m = malloc(sizeof *m);
    for (size_t t = 0; t < sizeof topo / sizeof topo[0]; t++) {
        int R = topo[t][0], nodes = topo[t][1];
        memset(m, 0, sizeof *m);
        m->quick = tenv_quick();
        SimWorld w;
        SimStatus st = world_init(&w, R, nodes, 30);
        if (st == SIM_OK)
            st = sim_world_run(&w, matrix_rank, m);
        if (st != SIM_OK)
            fprintf(stderr, "%d ranks, %d nodes: %s\n", R, nodes, sim_world_error(&w));
        int bad = st != SIM_OK;
        for (int r = 0; r < R && !bad; r++) {
            if (m->wrong[r] != 0)
                fprintf(stderr, "%d ranks, %d nodes, rank %d: %lld wrong; first: %s\n", R,
                        nodes, r, m->wrong[r], m->first_wrong[r]);
            bad |= m->wrong[r] != 0 || m->ncalls[r] > MAXCALLS;
            if (!bad && check_trace(&w, m, r) != 0) {
                fprintf(stderr, "%d ranks, %d nodes: trace of rank %d\n", R, nodes, r);
                bad = 1;
            }
        }
        printf("%d ranks as %d nodes x %d: %d group calls per rank checked\n", R, nodes,
               R / nodes, m->ncalls[0]);
        CHECK_EQ_INT(sim_trace_dropped(w.trace), 0);
        sim_world_free(&w);
        if (bad) {
            free(m);
            return 1;
        }
    }
    free(m);
    return 0;
}

// ----------------------------------------------------------------------------
// group shapes

typedef struct {
    long long wrong[MAXR];
} Shapes;

static SimStatus shapes_rank(SimRank *r, void *arg) {
    Shapes *s = arg;
    int me = r->rank, rpn = r->world->ranks_per_node, nodes = r->world->cfg.nodes;
    SimGroup g;
    sim_group_node(&g, r);
    s->wrong[me] += g.n != rpn || g.me != me % rpn || g.stride != 1 ||
                    strcmp(g.name, "intra-node") != 0;
    for (int i = 0; i < g.n; i++)
        s->wrong[me] += sim_group_rank(&g, i) != me / rpn * rpn + i;
    sim_group_cross(&g, r);
    s->wrong[me] += g.n != nodes || g.me != me / rpn || strcmp(g.name, "inter-node") != 0;
    for (int i = 0; i < g.n; i++)
        s->wrong[me] += sim_group_rank(&g, i) != me % rpn + i * rpn;
    s->wrong[me] += sim_group_is_world(&g, r);
    sim_group_world(&g, r);
    s->wrong[me] += g.n != r->world->cfg.nranks || g.me != me || !sim_group_is_world(&g, r);
    sim_group_init(&g, r, 1, 3, 2, "odd"); // ranks 1 and 4
    s->wrong[me] += g.me != (me == 1 ? 0 : me == 4 ? 1 : -1);
    return SIM_OK;
}

static int test_shapes(void) {
    Shapes s;
    memset(&s, 0, sizeof s);
    SimWorld w;
    SimStatus st = world_init(&w, 8, 2, 30);
    if (st == SIM_OK)
        st = sim_world_run(&w, shapes_rank, &s);
    sim_world_free(&w);
    CHECK_EQ_INT(st, SIM_OK);
    for (int r = 0; r < 8; r++)
        CHECK_EQ_INT(s.wrong[r], 0);
    return 0;
}

// ----------------------------------------------------------------------------
// simulated time: intra-node against inter-node

#define TIME_COUNT (1u << 18)

static SimStatus timing_rank(SimRank *r, void *arg) {
    (void)arg;
    float *buf = malloc(TIME_COUNT * sizeof *buf);
    if (buf == NULL)
        return SIM_ENOMEM;
    for (size_t i = 0; i < TIME_COUNT; i++)
        buf[i] = (float)(i % 97);
    SimGroup node, cross;
    sim_group_node(&node, r);
    sim_group_cross(&cross, r);
    SimStatus st = sim_group_all_reduce(r, &node, buf, buf, TIME_COUNT, SIM_FP32, SIM_SUM);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (st == SIM_OK)
        st = sim_group_all_reduce(r, &cross, buf, buf, TIME_COUNT, SIM_FP32, SIM_SUM);
    free(buf);
    return st;
}

static int test_timing(void) {
    SimWorld w;
    SimStatus st = world_init(&w, 4, 2, 30); // dgx-h100: NVLink inside, IB across
    if (st == SIM_OK)
        st = sim_world_run(&w, timing_rank, NULL);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(&w));
    CHECK_EQ_INT(st, SIM_OK);
    // n = 2: one reduce-scatter and one all-gather step of half the buffer,
    // each at least one transfer and at most a send plus a receive.
    size_t half = TIME_COUNT / 2 * sizeof(float);
    double intra = sim_cost_p2p(&w.cost, 0, 1, half), inter = sim_cost_p2p(&w.cost, 0, 2, half);
    CHECK(intra < inter);
    for (int r = 0; r < 4; r++) {
        double t_node = -1, t_cross = -1;
        size_t ne = sim_trace_rank_count(w.trace, r);
        const SimEvent *ev = sim_trace_rank_events(w.trace, r);
        // The scratch of each all_reduce (one chunk of half the buffer) is
        // charged as a communication buffer, and given back.
        int scratch_allocs = 0;
        for (size_t i = 0; i < ne; i++)
            scratch_allocs += ev[i].kind == SIM_EV_MEMORY && ev[i].label != NULL &&
                              strcmp(ev[i].label, "alloc") == 0 &&
                              ev[i].mem_cat == SIM_MEM_COMM && ev[i].bytes == half;
        CHECK_EQ_INT(scratch_allocs, 2);
        CHECK_EQ_INT(w.ranks[r].mem.cur[SIM_MEM_DEVICE][SIM_MEM_COMM], 0);
        for (size_t i = 0; i < ne; i++) {
            if (ev[i].kind != SIM_EV_COLL || ev[i].label == NULL)
                continue;
            double d = ev[i].sim_end - ev[i].sim_start;
            if (strcmp(ev[i].label, "intra-node") == 0)
                t_node = d;
            else if (strcmp(ev[i].label, "inter-node") == 0)
                t_cross = d;
        }
        if (r == 0)
            printf("simulated all_reduce of %zu MiB: intra-node %.1f us, inter-node %.1f us\n",
                   (size_t)TIME_COUNT * sizeof(float) >> 20, t_node * 1e6, t_cross * 1e6);
        CHECK(t_node > 0 && t_cross > 0);
        CHECK(t_node < t_cross);
        CHECK(t_node >= 2 * intra * (1 - 1e-9) && t_node <= 4 * intra * (1 + 1e-9));
        CHECK(t_cross >= 2 * inter * (1 - 1e-9) && t_cross <= 4 * inter * (1 + 1e-9));
    }
    sim_world_free(&w);
    return 0;
}

// ----------------------------------------------------------------------------
// errors

typedef struct {
    long long wrong[MAXR];
    char why[MAXR][2304];
} Errors;

// Expects SIM_EINVAL and a message containing `needle`.
static void expect_einval(Errors *e, SimRank *r, SimStatus st, const char *needle,
                          const char *what) {
    if (st != SIM_EINVAL || strstr(r->error, needle) == NULL) {
        if (e->wrong[r->rank]++ == 0)
            snprintf(e->why[r->rank], sizeof e->why[r->rank], "%s: status %s, error \"%s\"",
                     what, sim_status_name(st), r->error);
    }
}

static SimStatus bad_args_rank(SimRank *r, void *arg) {
    Errors *e = arg;
    int me = r->rank;
    float buf[64] = {0}, out[64];
    SimGroup node, g;
    sim_group_node(&node, r);
    // A rank that is not in the group.
    sim_group_init(&g, r, 0, 1, 2, "pair");
    if (me >= 2)
        expect_einval(e, r, sim_group_all_reduce(r, &g, buf, out, 4, SIM_FP32, SIM_SUM),
                      "group pair (ranks 0..1): rank", "rank outside the group");
    // A group built for another rank (on the other node).
    sim_group_node(&g, &r->world->ranks[(me + 2) % 4]);
    expect_einval(e, r, sim_group_all_reduce(r, &g, buf, out, 4, SIM_FP32, SIM_SUM),
                  "intra-node", "another rank's group");
    // Buffers, root, dtype, counts, the group's extent.
    expect_einval(e, r, sim_group_all_reduce(r, &node, NULL, out, 4, SIM_FP32, SIM_SUM),
                  "AllReduce on group intra-node", "NULL send");
    expect_einval(e, r, sim_group_all_gather(r, &node, buf, NULL, 4, SIM_FP32),
                  "recv buffer is NULL", "NULL recv");
    expect_einval(e, r, sim_group_broadcast(r, &node, buf, out, 4, SIM_FP32, 2),
                  "root index 2", "root out of range");
    expect_einval(e, r, sim_group_reduce_scatter(r, &node, buf, out, 4, (SimDtype)99, SIM_SUM),
                  "invalid dtype", "bad dtype");
    expect_einval(e, r, sim_group_all_reduce(r, &node, buf, out, 4, SIM_FP32, (SimRedOp)42),
                  "invalid reduction op", "bad op");
    expect_einval(e, r, sim_group_all_gather(r, &node, buf, out, SIZE_MAX / 2, SIM_FP32),
                  "overflows", "count overflow");
    sim_group_init(&g, r, me, 4, 2, "wide");
    expect_einval(e, r, sim_group_all_reduce(r, &g, buf, out, 4, SIM_FP32, SIM_SUM),
                  "outside the world", "group beyond the world");
    expect_einval(e, r, sim_group_all_reduce(r, NULL, buf, out, 4, SIM_FP32, SIM_SUM),
                  "group is NULL", "NULL group");
    // Nothing was sent: a correct call still works.
    for (int i = 0; i < 64; i++)
        buf[i] = (float)(me + i);
    SIM_CHECK(sim_group_all_reduce(r, &node, buf, out, 64, SIM_FP32, SIM_SUM));
    int base = me / 2 * 2;
    for (int i = 0; i < 64; i++)
        e->wrong[me] += out[i] != (float)(2 * i + base + base + 1);
    return SIM_OK;
}

static int test_bad_args(void) {
    Errors e;
    memset(&e, 0, sizeof e);
    SimWorld w;
    SimStatus st = world_init(&w, 4, 2, 30);
    if (st == SIM_OK)
        st = sim_world_run(&w, bad_args_rank, &e);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", sim_world_error(&w));
    sim_world_free(&w);
    CHECK_EQ_INT(st, SIM_OK);
    for (int r = 0; r < 4; r++) {
        if (e.wrong[r])
            fprintf(stderr, "rank %d: %s\n", r, e.why[r]);
        CHECK_EQ_INT(e.wrong[r], 0);
    }
    return 0;
}

typedef enum { MIS_COUNT, MIS_DTYPE, MIS_MISSING } Mismatch;

typedef struct {
    Mismatch how;
    SimStatus st[MAXR];
    char why[MAXR][sizeof ((SimRank *)0)->error];
} Faulty;

// World 8 = 2 nodes x 4: the node group of node 0 goes wrong at world rank 1;
// node 1 makes the same call correctly (and may be stopped by the abort).
static SimStatus faulty_rank(SimRank *r, void *arg) {
    Faulty *f = arg;
    int me = r->rank;
    float buf[128];
    for (int i = 0; i < 128; i++)
        buf[i] = (float)i;
    SimGroup node;
    sim_group_node(&node, r);
    size_t count = 100;
    SimDtype dt = SIM_FP32;
    if (me == 1 && f->how == MIS_COUNT)
        count = 101;
    if (me == 1 && f->how == MIS_DTYPE)
        dt = SIM_BF16;
    if (me == 1 && f->how == MIS_MISSING)
        return SIM_OK; // never calls
    SimStatus st = sim_group_all_reduce(r, &node, buf, buf, count, dt, SIM_SUM);
    f->st[me] = st;
    snprintf(f->why[me], sizeof f->why[me], "%s", r->error);
    return st;
}

static int run_faulty(Mismatch how, double watchdog_s, SimStatus want, const char *needle) {
    Faulty *f = calloc(1, sizeof *f);
    f->how = how;
    SimWorld w;
    double t0 = sim_wall_now();
    SimStatus st = world_init(&w, 8, 2, watchdog_s);
    if (st == SIM_OK)
        st = sim_world_run(&w, faulty_rank, f);
    double took = sim_wall_now() - t0;
    char err[4096];
    snprintf(err, sizeof err, "%s", sim_world_error(&w));
    sim_world_free(&w);
    printf("mismatch %d: %s after %.2f s: %s\n", (int)how, sim_status_name(st), took, err);
    int named = 0;
    for (int r = 0; r < 4; r++)
        named |= f->st[r] != SIM_OK && strstr(f->why[r], "AllReduce on group intra-node") != NULL;
    free(f);
    CHECK_EQ_INT(st, want);
    CHECK_STR_CONTAINS(err, needle);
    CHECK(named); // a hang instead is the test's timeout
    return 0;
}

static int test_mismatch_count(void) {
    return run_faulty(MIS_COUNT, 30, SIM_EPROTO, "count");
}

static int test_mismatch_dtype(void) {
    return run_faulty(MIS_DTYPE, 30, SIM_EPROTO, "dtype");
}

static int test_missing_member(void) {
    return run_faulty(MIS_MISSING, 2, SIM_ETIMEDOUT, "watchdog");
}

int main(void) {
    int failures = 0;
    RUN(test_shapes);
    RUN(test_matrix);
    RUN(test_timing);
    RUN(test_bad_args);
    RUN(test_mismatch_count);
    RUN(test_mismatch_dtype);
    RUN(test_missing_member);
    return failures != 0;
}
