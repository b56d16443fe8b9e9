// tests/test_syncbn.c: SyncBatchNorm (sim/model/model_syncbn.c) on 4 CPU
// ranks holding 3, 5, 2 and 6 rows of one batch of 16 (uneven, so the
// counts must weigh the means). Every rank's forward output, running
// statistics and input gradient must be those of one BatchNorm1d over all
// 16 rows (the plain kernels on the whole batch, which test_kernels_torch
// checks against torch), and the ranks' weight and bias gradients must sum
// to the whole batch's. Label cpu: the collectives run under TSan too.
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h" // defines: sim_all_reduce
#include "model/model_impl.h"
#include "test_kernels_util.h"
#include "test_world.h"

#define R 4
#define C 5
#define NTOT 16

static const int rows[R] = {3, 5, 2, 6};

typedef struct {
    float x[NTOT * C], dy[NTOT * C], w[C], b[C];
    int failures[R];
} Shared;

static int first_row(int rank) {
    int k = 0;
    for (int q = 0; q < rank; q++)
        k += rows[q];
    return k;
}

// The whole batch through the plain BatchNorm kernels on this rank.
typedef struct {
    SimTensor x, dy, out, dx, mean, invstd, rm, rv, w, b, dw, db;
} Whole;

static int make_whole(SimRank *r, TkList *l, const Shared *s, Whole *h) {
    int64_t nc[2] = {NTOT, C}, c[1] = {C};
    SimTensor *big[] = {&h->x, &h->dy, &h->out, &h->dx};
    SimTensor *small[] = {&h->mean, &h->invstd, &h->rm, &h->rv, &h->w, &h->b, &h->dw, &h->db};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(tk_make(r, l, big[i], SIM_FP32, 2, nc), 0);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(tk_make(r, l, small[i], SIM_FP32, 1, c), 0);
    memcpy(tk_f(&h->x), s->x, sizeof s->x);
    memcpy(tk_f(&h->dy), s->dy, sizeof s->dy);
    memcpy(tk_f(&h->w), s->w, sizeof s->w);
    memcpy(tk_f(&h->b), s->b, sizeof s->b);
    for (int k = 0; k < C; k++)
        tk_f(&h->rv)[k] = 1.0f;
    CHECK_EQ_INT(sim_op_batchnorm_forward(r, &h->out, &h->mean, &h->invstd, &h->rm, &h->rv,
                                          &h->x, &h->w, &h->b, 0.1f, 1e-5f, 1), SIM_OK);
    CHECK_EQ_INT(sim_op_batchnorm_backward(r, &h->dx, &h->dw, &h->db, &h->dy, &h->x, &h->w,
                                           &h->mean, &h->invstd), SIM_OK);
    return 0;
}

static int check_rank(SimRank *r, Shared *s) {
    TkList l = {.n = 0};
    Whole h;
    int rc = make_whole(r, &l, s, &h);
    int n = rows[r->rank], at = first_row(r->rank) * C;
    int64_t nc[2] = {n, C}, c[1] = {C};
    SimTensor x, dy, out, dx, mean, invstd, rm, rv, dw, db;
    SimSyncBnViews v;
    SimTensor *big[] = {&x, &dy, &out, &dx};
    SimTensor *small[] = {&mean, &invstd, &rm, &rv, &dw, &db};
    for (int i = 0; rc == 0 && i < 4; i++)
        rc = tk_make(r, &l, big[i], SIM_FP32, 2, nc);
    for (int i = 0; rc == 0 && i < 6; i++)
        rc = tk_make(r, &l, small[i], SIM_FP32, 1, c);
    int64_t row[1] = {2 * C + 1}, all[2] = {R, 2 * C + 1}, one[1] = {1}, sums[1] = {2 * C};
    rc = rc || tk_make(r, &l, &v.stats, SIM_FP32, 1, row) ||
         tk_make(r, &l, &v.all, SIM_FP32, 2, all) || tk_make(r, &l, &v.count, SIM_FP32, 1, one) ||
         tk_make(r, &l, &v.sums, SIM_FP32, 1, sums);
    if (rc) {
        tk_free(r, &l);
        return 1;
    }
    memcpy(tk_f(&x), s->x + at, (size_t)n * C * sizeof(float));
    memcpy(tk_f(&dy), s->dy + at, (size_t)n * C * sizeof(float));
    for (int k = 0; k < C; k++)
        tk_f(&rv)[k] = 1.0f;
    SimStatus st = sim_model_syncbn_forward(r, &v, &out, &mean, &invstd, &rm, &rv, &x, &h.w,
                                            &h.b, 0.1f, 1e-5f);
    if (st == SIM_OK)
        st = sim_model_syncbn_backward(r, &v, &dx, &dw, &db, &dy, &x, &h.w, &mean, &invstd);
    // the weight's and bias's gradients: each rank's own part, summed here as DDP would
    if (st == SIM_OK)
        st = sim_all_reduce(r, tk_f(&dw), tk_f(&dw), C, SIM_FP32, SIM_SUM, SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_all_reduce(r, tk_f(&db), tk_f(&db), C, SIM_FP32, SIM_SUM, SIM_ALGO_AUTO);
    rc = st != SIM_OK;
    rc = rc || tk_max_rel(tk_f(&out), tk_f(&h.out) + at, (size_t)n * C, 1e-3) > 2e-6;
    rc = rc || tk_max_rel(tk_f(&dx), tk_f(&h.dx) + at, (size_t)n * C, 1e-3) > 2e-5;
    rc = rc || tk_max_rel(tk_f(&mean), tk_f(&h.mean), C, 1e-3) > 2e-6;
    rc = rc || tk_max_rel(tk_f(&invstd), tk_f(&h.invstd), C, 1e-3) > 2e-6;
    rc = rc || tk_max_rel(tk_f(&rm), tk_f(&h.rm), C, 1e-3) > 2e-6;
    rc = rc || tk_max_rel(tk_f(&rv), tk_f(&h.rv), C, 1e-3) > 2e-6;
    rc = rc || tk_max_rel(tk_f(&dw), tk_f(&h.dw), C, 1e-3) > 2e-5;
    rc = rc || tk_max_rel(tk_f(&db), tk_f(&h.db), C, 1e-3) > 2e-5;
    rc = rc || tk_f(&v.count)[0] != (float)NTOT;
    if (rc)
        fprintf(stderr, "rank %d: %s\n", r->rank, st != SIM_OK ? r->error : "values differ");
    tk_free(r, &l);
    return rc;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    Shared *s = arg;
    s->failures[r->rank] = check_rank(r, s);
    return SIM_OK;
}

static int test_uneven_ranks(void) {
    static Shared s;
    TkRng g;
    tk_seed(&g, 27);
    tk_fill_normal(&g, s.x, NTOT * C, 2.0f);
    for (int i = 0; i < NTOT * C; i++)
        s.x[i] += (float)(i % C); // channels with different means
    tk_fill_normal(&g, s.dy, NTOT * C, 1.0f);
    tk_fill_uniform(&g, s.w, C, 0.5f, 1.5f);
    tk_fill_uniform(&g, s.b, C, -0.5f, 0.5f);
    CHECK_EQ_INT(tworld_run_cpu(R, 0, rank_main, &s), SIM_OK);
    for (int q = 0; q < R; q++)
        CHECK_EQ_INT(s.failures[q], 0);
    return 0;
}

// Too few rows over the whole world is refused as BatchNorm refuses it.
static SimStatus one_row_main(SimRank *r, void *arg) {
    int *rc = arg;
    TkList l = {.n = 0};
    SimTensor mean, invstd, count, all;
    int64_t c[1] = {1}, one[1] = {1}, a[2] = {1, 3};
    if (tk_make(r, &l, &mean, SIM_FP32, 1, c) || tk_make(r, &l, &invstd, SIM_FP32, 1, c) ||
        tk_make(r, &l, &count, SIM_FP32, 1, one) || tk_make(r, &l, &all, SIM_FP32, 2, a)) {
        tk_free(r, &l);
        *rc = 1;
        return SIM_OK;
    }
    tk_f(&all)[2] = 1.0f; // one rank, one row
    *rc = sim_op_batchnorm_gather_stats(r, &mean, &invstd, NULL, NULL, &count, &all, 0.1f,
                                        1e-5f) != SIM_EINVAL;
    tk_free(r, &l);
    return SIM_OK;
}

static int test_one_row(void) {
    int rc = 1;
    CHECK_EQ_INT(tworld_run_cpu(1, 0, one_row_main, &rc), SIM_OK);
    CHECK_EQ_INT(rc, 0);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_uneven_ranks);
    RUN(test_one_row);
    return failures ? 1 : 0;
}
