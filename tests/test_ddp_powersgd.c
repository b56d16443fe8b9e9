// tests/test_ddp_powersgd.c: the PowerSGD hook (sim/strategy/ddp_powersgd.h).
//   - its arithmetic: Gram-Schmidt gives orthonormal columns (a zero column
//     stays zero), one power iteration reconstructs a rank-r matrix exactly
//     at rank r, the compression test, numpy's seeds, the options' checks;
//   - the hook on one bucket of 2 ranks, fed the same gradients 8 times:
//     plain means before start_iter, the same result on every rank, the
//     uncompressed gradients still the mean, error feedback that loses
//     nothing (the results plus the kept error add up to the inputs), a
//     rank-1 mean sent exactly at rank 1, and the elements sent;
//   - training with `--comm-hook powersgd`: every rank ends with the same
//     weights, with and without gradient_as_bucket_view (the same bits).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "engine/ops.h"
#include "strategy/ddp_powersgd.h"
#include "test_ddp_util.h"
#include "test_world.h"

// ----------------------------------------------------------------------------
// the arithmetic

static float lcg_normal(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
}

static int test_orthogonalize(void) {
    enum { N = 20, R = 3 };
    float a[N * R];
    uint64_t s = 7;
    for (int i = 0; i < N * R; i++)
        a[i] = lcg_normal(&s);
    sim_ddp_powersgd_orthogonalize(a, N, R, 0.0f);
    for (int c = 0; c < R; c++)
        for (int d = 0; d < R; d++) {
            double dot = 0;
            for (int i = 0; i < N; i++)
                dot += (double)a[i * R + c] * a[i * R + d];
            CHECK_NEAR(dot, c == d ? 1.0 : 0.0, 1e-5);
        }
    float z[4 * 2] = {1, 0, 2, 0, 0, 0, 2, 0}; // its second column is zero
    sim_ddp_powersgd_orthogonalize(z, 4, 2, 0.0f);
    for (int i = 0; i < 4; i++)
        CHECK(z[i * 2 + 1] == 0.0f);
    CHECK_NEAR(z[0], 1.0 / 3.0, 1e-7);
    return 0;
}

// M = A B^T of rank 2 (12 x 9); P = M Q, P orthonormal, Q = M^T P; P Q^T = M.
static int test_rank_r_exact(void) {
    enum { N = 12, M = 9, R = 2 };
    float a[N * R], b[M * R], m[N * M], q[M * R], p[N * R], back[N * M];
    uint64_t s = 11;
    for (int i = 0; i < N * R; i++)
        a[i] = lcg_normal(&s);
    for (int i = 0; i < M * R; i++)
        b[i] = lcg_normal(&s);
    for (int i = 0; i < M * R; i++)
        q[i] = lcg_normal(&s);
    sim_ddp_powersgd_outer(m, a, b, N, M, R);
    sim_ddp_powersgd_orthogonalize(q, M, R, 0.0f);
    sim_ddp_powersgd_matmul(p, m, q, N, M, R, 0);
    sim_ddp_powersgd_orthogonalize(p, N, R, 0.0f);
    sim_ddp_powersgd_matmul(q, m, p, N, M, R, 1);
    sim_ddp_powersgd_outer(back, p, q, N, M, R);
    for (int i = 0; i < N * M; i++)
        CHECK_NEAR(back[i], m[i], 1e-5);
    // at rank 1 the same matrix is not reproduced
    float q1[M], p1[N], back1[N * M];
    for (int i = 0; i < M; i++)
        q1[i] = lcg_normal(&s);
    sim_ddp_powersgd_orthogonalize(q1, M, 1, 0.0f);
    sim_ddp_powersgd_matmul(p1, m, q1, N, M, 1, 0);
    sim_ddp_powersgd_orthogonalize(p1, N, 1, 0.0f);
    sim_ddp_powersgd_matmul(q1, m, p1, N, M, 1, 1);
    sim_ddp_powersgd_outer(back1, p1, q1, N, M, 1);
    double worst = 0;
    for (int i = 0; i < N * M; i++)
        worst = fmax(worst, fabs((double)back1[i] - m[i]));
    CHECK(worst > 1e-2);
    return 0;
}

static int test_should_compress(void) {
    CHECK(!sim_ddp_powersgd_should_compress(512, 1, 1, 2.0));  // a bias: never
    CHECK(sim_ddp_powersgd_should_compress(512, 512, 1, 2.0));
    CHECK(!sim_ddp_powersgd_should_compress(4, 4, 1, 2.0));    // 8 x 2 = 16, not < 16
    CHECK(sim_ddp_powersgd_should_compress(4, 5, 1, 2.0));     // 18 < 20
    CHECK(!sim_ddp_powersgd_should_compress(8, 6, 4, 2.0));    // 112 > 48
    return 0;
}

// numpy.random.RandomState(0).randint(1_000_000_000), four times (numpy 1.24).
static int test_seeds(void) {
    static const uint32_t want[4] = {209652396u, 398764591u, 924231285u, 404868288u};
    SimTorchGen g;
    sim_torchgen_seed(&g, 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(sim_ddp_powersgd_draw_seed(&g), want[i]);
    return 0;
}

static int test_options(void) {
    SimDdpPowersgdOptions o;
    char err[256];
    sim_ddp_powersgd_options_default(&o);
    CHECK_EQ_INT(o.rank, 1);
    CHECK_EQ_INT(o.start_iter, 10);
    CHECK_EQ_INT(sim_ddp_powersgd_options_check(&o, err, sizeof err), 0);
    o.start_iter = 1;
    CHECK_EQ_INT(sim_ddp_powersgd_options_check(&o, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "Expect `start_powerSGD_iter` > 1");
    o.start_iter = 2;
    o.rank = 0;
    CHECK_EQ_INT(sim_ddp_powersgd_options_check(&o, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "matrix_approximation_rank");
    return 0;
}

// ----------------------------------------------------------------------------
// the hook on one bucket

enum { HR = 2, HK = 8, HSTART = 2, HN = 113 };

// 8x6 at 0, a bias of 5 at 48, 8x6 at 53, 3x4 at 101 (not worth compressing)
static const SimDdpPowersgdTensor layout[4] = {{0, 8, 6}, {48, 5, 1}, {53, 8, 6}, {101, 3, 4}};

typedef struct {
    int rank1;                  // 1: every rank's matrices the same rank-1 ones
    float in[HR][HN];
    float out[HR][HK][HN];
    float error[HR][HN];
    SimDdpPowersgdTraffic tr[HR];
} Hook;

static void fill_inputs(Hook *h) {
    for (int r = 0; r < HR; r++)
        for (int j = 0; j < HN; j++)
            h->in[r][j] = sinf(0.37f * (float)j + 1.3f * (float)r) + 0.1f * (float)r;
    if (!h->rank1)
        return;
    for (int k = 0; k < 4; k += 2) // the matrices: u v^T, the same on each rank
        for (int i = 0; i < 8; i++)
            for (int c = 0; c < 6; c++)
                for (int r = 0; r < HR; r++)
                    h->in[r][layout[k].offset + (size_t)(i * 6 + c)] =
                        (0.5f + 0.1f * (float)i) * (1.0f - 0.2f * (float)c) * (float)(k + 1);
}

static SimStatus hook_steps(SimRank *r, SimDdpPowersgd *p, SimTensor *buf, Hook *h) {
    for (int k = 0; k < HK; k++) {
        SimCollHandle ch;
        int compressed;
        SIM_CHECK(sim_tensor_upload(r, buf, h->in[r->rank]));
        SIM_CHECK(sim_ddp_powersgd_launch(p, r, 0, buf, layout, 4, &ch, &compressed));
        SIM_CHECK(sim_coll_wait(r, &ch));
        if (compressed)
            SIM_CHECK(sim_ddp_powersgd_finish(p, r, 0, buf));
        SIM_CHECK(sim_tensor_download(r, buf, h->out[r->rank][k]));
    }
    const float *e = sim_ddp_powersgd_error(p, 0);
    if (e == NULL)
        return SIM_EINVAL;
    memcpy(h->error[r->rank], e, sizeof h->error[r->rank]);
    sim_ddp_powersgd_traffic(p, &h->tr[r->rank]);
    return SIM_OK;
}

static SimStatus hook_rank(SimRank *r, void *arg) {
    SimDdpPowersgdOptions o;
    sim_ddp_powersgd_options_default(&o);
    o.start_iter = HSTART;
    SimDdpPowersgd *p = sim_ddp_powersgd_new(&o, HR, 1);
    if (p == NULL)
        return SIM_ENOMEM;
    SimTensor buf;
    int64_t shape[1] = {HN};
    sim_tensor_init(&buf, "bucket", SIM_FP32, 1, shape);
    SimStatus st = sim_tensor_alloc(r, &buf, 0);
    if (st == SIM_OK)
        st = hook_steps(r, p, &buf, arg);
    sim_tensor_free(r, &buf);
    sim_ddp_powersgd_free(p, r);
    return st;
}

static float mean_of(const Hook *h, int j) {
    float s = 0;
    for (int r = 0; r < HR; r++)
        s += h->in[r][j];
    return s / (float)HR;
}

static int is_uncompressed(int j) {
    return (j >= 48 && j < 53) || j >= 101;
}

static int test_hook_bucket(void) {
    Hook *h = calloc(1, sizeof *h);
    CHECK(h != NULL);
    fill_inputs(h);
    CHECK_EQ_INT(tworld_run_cpu(HR, 0, hook_rank, h), SIM_OK);
    for (int r = 1; r < HR; r++)
        CHECK(memcmp(h->out[r], h->out[0], sizeof h->out[0]) == 0);
    for (int j = 0; j < HN; j++) {
        for (int k = 0; k < HSTART; k++)
            CHECK(h->out[0][k][j] == mean_of(h, j));
        for (int k = HSTART; k < HK && is_uncompressed(j); k++)
            CHECK_NEAR(h->out[0][k][j], mean_of(h, j), 1e-6);
    }
    // error feedback: each compressed result is input + old error - new
    // error, so over the compressed iterations the results and the last
    // error add up to the inputs, on every rank
    double worst = 0, moved = 0;
    for (int r = 0; r < HR; r++)
        for (int j = 0; j < HN; j++) {
            double sum = h->error[r][j];
            for (int k = HSTART; k < HK; k++)
                sum += h->out[0][k][j];
            worst = fmax(worst, fabs(sum - (double)(HK - HSTART) * h->in[r][j]));
            moved = fmax(moved, fabs((double)h->error[r][j]));
        }
    printf("  error feedback: largest |sum of results + error - sum of inputs| %.3g, largest "
           "error %.3g\n", worst, moved);
    CHECK(worst < 1e-4);
    CHECK(moved > 1e-2); // rank 1 does leave something out
    CHECK_EQ_INT(h->tr[0].plain, (uint64_t)HK * HN);
    CHECK_EQ_INT(h->tr[0].sent, 2 * HN + (HK - 2) * (5 + 12 + 2 * (8 + 6)));
    CHECK_EQ_INT(h->tr[0].iter, HK);
    free(h);
    return 0;
}

static int test_hook_rank1_exact(void) {
    Hook *h = calloc(1, sizeof *h);
    CHECK(h != NULL);
    h->rank1 = 1;
    fill_inputs(h);
    CHECK_EQ_INT(tworld_run_cpu(HR, 0, hook_rank, h), SIM_OK);
    for (int k = HSTART; k < HK; k++)
        for (int j = 0; j < HN; j++)
            CHECK_NEAR(h->out[0][k][j], mean_of(h, j), 2e-5 * (1 + fabs(mean_of(h, j))));
    free(h);
    return 0;
}

// ----------------------------------------------------------------------------
// training

static int train(TddpRun *t, const SimDataset *ds, const SimModelSpec *spec, int view) {
    tddp_config(t, ds, spec, 2, 8, 6);
    t->use_ddp = 1;
    t->ddp.comm_hook = SIM_DDP_HOOK_POWERSGD;
    t->ddp.powersgd.start_iter = 2;
    t->ddp.powersgd.rank = 2;
    t->ddp.gradient_as_bucket_view = view;
    CHECK(tddp_run(t) == SIM_OK);
    CHECK(tddp_maxdiff(t->params[1], t->params[0], t->nparam) == 0);
    return 0;
}

static int test_training(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,32,4", &spec) == SIM_OK);
    TddpRun a, b;
    CHECK(train(&a, &ds, &spec, 0) == 0);
    CHECK(train(&b, &ds, &spec, 1) == 0);
    CHECK(memcmp(a.params[0], b.params[0], a.nparam * sizeof(float)) == 0);
    tddp_free(&a);
    tddp_free(&b);
    sim_dataset_free(&ds);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_orthogonalize);
    RUN(test_rank_r_exact);
    RUN(test_should_compress);
    RUN(test_seeds);
    RUN(test_options);
    RUN(test_hook_bucket);
    RUN(test_hook_rank1_exact);
    RUN(test_training);
    return failures ? 1 : 0;
}
