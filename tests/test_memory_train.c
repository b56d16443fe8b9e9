// tests/test_memory_train.c: the memory ledger's categories in real
// training runs on CPU ranks. After the run, every rank of a DDP run holds
// the closed form's model states (sim/cost/memory_formula.h): 16 bytes per
// parameter with Adam in fp32 (parameters 4, gradients 4, exp_avg and
// exp_avg_sq 8), 12 with SGD and momentum, 8 with plain SGD; its buckets
// hold one more copy of the gradients in comm buffers (none with
// gradient_as_bucket_view, half again with the fp16 hook); DataParallel's
// optimizer state is on device 0 only; the peak holds the model states and
// the buckets; and when the run is freed every ledger is back to zero.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cost/memory_formula.h"
#include "model/optim_flags.h"
#include "strategy/dp.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_world.h"

#define MAX_R 8

typedef struct {
    SimTrainer tr[MAX_R];
    int64_t cur[MAX_R][SIM_MEM_CAT_COUNT];     // after the run, before the free
    int64_t at_peak[MAX_R][SIM_MEM_CAT_COUNT];
    int64_t peak[MAX_R];
    int left[MAX_R];                           // 1: something was still charged after the free
    size_t psi;
} Ctx;

static SimStatus rank_main(SimRank *r, void *arg) {
    Ctx *c = arg;
    SimStatus st = sim_train_run(r, c->tr);
    const SimMemLedger *l = &r->mem;
    memcpy(c->cur[r->rank], l->cur[SIM_MEM_DEVICE], sizeof c->cur[r->rank]);
    memcpy(c->at_peak[r->rank], l->at_peak[SIM_MEM_DEVICE], sizeof c->at_peak[r->rank]);
    c->peak[r->rank] = l->peak[SIM_MEM_DEVICE];
    if (r->rank == 0 && c->tr[0].model)
        c->psi = c->tr[0].model->param_count;
    sim_train_free(&c->tr[r->rank], r);
    for (int s = 0; s < SIM_MEM_SPACE_COUNT; s++)
        for (int k = 0; k < SIM_MEM_CAT_COUNT; k++)
            c->left[r->rank] |= l->cur[s][k] != 0;
    c->left[r->rank] |= l->total[SIM_MEM_DEVICE] != 0 || l->total[SIM_MEM_HOST] != 0;
    return st;
}

// Trains cfg on R ranks into c (the caller frees c).
static Ctx *train(SimTrainConfig *cfg, int R) {
    Ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    for (int i = 0; i < R; i++)
        c->tr[i].cfg = cfg;
    if (tworld_run_cpu(R, 0, rank_main, c) != SIM_OK) {
        for (int i = 0; i < R; i++)
            if (c->tr[i].error[0])
                fprintf(stderr, "rank %d: %s\n", i, c->tr[i].error);
        free(c);
        return NULL;
    }
    return c;
}

static int64_t states(const int64_t *v) {
    return v[SIM_MEM_PARAM] + v[SIM_MEM_GRAD] + v[SIM_MEM_OPTIM];
}

static void set_opt(SimTrainConfig *cfg, const char *optimizer, const char *momentum) {
    char err[256];
    (void)sim_optim_flags_set(&cfg->opt, "optimizer", optimizer, err, sizeof err);
    if (momentum)
        (void)sim_optim_flags_set(&cfg->opt, "momentum", momentum, err, sizeof err);
    (void)sim_optim_flags_validate(&cfg->opt, err, sizeof err);
}

// One DDP run: every rank holds (p + g + K) bytes per parameter of model
// states and comm bytes of buckets per parameter.
static int ddp_case(const char *model, int gpt, int R, const char *optimizer,
                    const char *momentum, int view, SimDdpCommHook hook, double comm_per_param) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK_EQ_INT(gpt ? tddp_data_gpt(&ds, &spec) : tddp_data_mlp(&ds, 256, model, &spec),
                 SIM_OK);
    TddpRun t;
    tddp_config(&t, &ds, &spec, R, 8, tenv_quick() ? 2 : 3);
    set_opt(&t.cfg, optimizer, momentum);
    t.ddp.gradient_as_bucket_view = view;
    t.ddp.comm_hook = hook;
    t.cfg.strategy = &sim_ddp_strategy;
    t.cfg.strategy_cfg = &t.ddp;
    Ctx *c = train(&t.cfg, R);
    sim_dataset_free(&ds);
    CHECK(c != NULL);
    SimMemfOptim kind = strcmp(optimizer, "sgd") != 0 ? SIM_MEMF_ADAM
                        : momentum                  ? SIM_MEMF_SGD_MOMENTUM
                                                    : SIM_MEMF_SGD;
    double want = sim_memf_zero(SIM_MEMF_STAGE0, (double)c->psi, R, sim_memf_fp32(kind));
    int rc = 0;
    for (int r = 0; r < R && rc == 0; r++) {
        const int64_t *v = c->cur[r];
        if (states(v) != (int64_t)want || v[SIM_MEM_PARAM] != 4 * (int64_t)c->psi ||
            v[SIM_MEM_GRAD] != 4 * (int64_t)c->psi ||
            v[SIM_MEM_COMM] != (int64_t)(comm_per_param * (double)c->psi) ||
            states(c->at_peak[r]) != (int64_t)want ||
            c->at_peak[r][SIM_MEM_COMM] < v[SIM_MEM_COMM] || v[SIM_MEM_ACT] <= 0 ||
            c->peak[r] < states(v) + v[SIM_MEM_COMM] + v[SIM_MEM_ACT] || c->left[r]) {
            fprintf(stderr,
                    "%s R=%d %s%s: rank %d holds params %lld grads %lld optim %lld comm %lld "
                    "act %lld, peak %lld (%zu parameters; want states %.0f, comm %.0f)%s\n",
                    model, R, optimizer, view ? " view" : "", r, (long long)v[SIM_MEM_PARAM],
                    (long long)v[SIM_MEM_GRAD], (long long)v[SIM_MEM_OPTIM],
                    (long long)v[SIM_MEM_COMM], (long long)v[SIM_MEM_ACT],
                    (long long)c->peak[r], c->psi, want, comm_per_param * (double)c->psi,
                    c->left[r] ? "; memory left charged after the free" : "");
            rc = 1;
        }
    }
    printf("  %s on %d ranks, %s: %zu parameters, %lld bytes of model states per rank "
           "(%.0f per parameter), %lld in buckets, peak %lld\n",
           gpt ? "gpt" : model, R, optimizer, c->psi, (long long)states(c->cur[0]),
           (double)states(c->cur[0]) / (double)c->psi, (long long)c->cur[0][SIM_MEM_COMM],
           (long long)c->peak[0]);
    free(c);
    return rc;
}

static int test_ddp_adam(void) {
    CHECK(ddp_case("mlp:16,64,64,4", 0, 4, "adam", NULL, 0, SIM_DDP_HOOK_ALLREDUCE, 4) == 0);
    CHECK(ddp_case("mlp:16,64,64,4", 0, 2, "adamw", NULL, 0, SIM_DDP_HOOK_ALLREDUCE, 4) == 0);
    CHECK(ddp_case("gpt", 1, 2, "adam", NULL, 0, SIM_DDP_HOOK_ALLREDUCE, 4) == 0);
    return 0;
}

static int test_ddp_sgd(void) {
    CHECK(ddp_case("mlp:16,64,64,4", 0, 3, "sgd", "0.9", 0, SIM_DDP_HOOK_ALLREDUCE, 4) == 0);
    CHECK(ddp_case("mlp:16,64,64,4", 0, 2, "sgd", NULL, 0, SIM_DDP_HOOK_ALLREDUCE, 4) == 0);
    return 0;
}

// gradient_as_bucket_view: the buckets are the gradients (no comm buffers);
// the fp16 hook adds a half-size compressed copy of every bucket.
static int test_ddp_buckets(void) {
    CHECK(ddp_case("mlp:16,64,64,4", 0, 4, "adam", NULL, 1, SIM_DDP_HOOK_ALLREDUCE, 0) == 0);
    CHECK(ddp_case("mlp:16,64,64,4", 0, 2, "adam", NULL, 0, SIM_DDP_HOOK_FP16, 6) == 0);
    return 0;
}

// DataParallel: device 0 alone holds the optimizer state, and the replicas'
// peaks never include it.
static int test_dp(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK_EQ_INT(tddp_data_mlp(&ds, 256, "mlp:16,64,64,4", &spec), SIM_OK);
    TddpRun t;
    tddp_config(&t, &ds, &spec, 4, 16, 2);
    set_opt(&t.cfg, "adam", NULL);
    SimDpOptions dp;
    sim_dp_options_default(&dp);
    t.cfg.strategy = &sim_dp_strategy;
    t.cfg.strategy_cfg = &dp;
    Ctx *c = train(&t.cfg, 4);
    sim_dataset_free(&ds);
    CHECK(c != NULL);
    int64_t psi = (int64_t)c->psi;
    CHECK_EQ_INT(c->cur[0][SIM_MEM_OPTIM], 8 * psi);
    CHECK_EQ_INT(states(c->at_peak[0]), 16 * psi);
    for (int r = 1; r < 4; r++) {
        CHECK_EQ_INT(c->cur[r][SIM_MEM_OPTIM], 0);
        CHECK_EQ_INT(c->at_peak[r][SIM_MEM_OPTIM], 0);
        CHECK_EQ_INT(c->cur[r][SIM_MEM_PARAM], 4 * psi); // the replica
        CHECK(c->peak[r] < c->peak[0]);
        CHECK(!c->left[r]);
    }
    CHECK(!c->left[0]);
    free(c);
    return 0;
}

// One rank alone: no buckets, the model states only.
static int test_single(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK_EQ_INT(tddp_data_mlp(&ds, 128, "mlp:16,32,4,bn", &spec), SIM_OK);
    TddpRun t;
    tddp_config(&t, &ds, &spec, 1, 8, 2);
    set_opt(&t.cfg, "adam", NULL);
    Ctx *c = train(&t.cfg, 1);
    sim_dataset_free(&ds);
    CHECK(c != NULL);
    CHECK_EQ_INT(states(c->cur[0]), 16 * (int64_t)c->psi);
    CHECK_EQ_INT(c->cur[0][SIM_MEM_COMM], 0);
    CHECK(c->cur[0][SIM_MEM_OTHER] > 0); // BatchNorm's running statistics
    CHECK(!c->left[0]);
    free(c);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ddp_adam);
    RUN(test_ddp_sgd);
    RUN(test_ddp_buckets);
    RUN(test_dp);
    RUN(test_single);
    return failures ? 1 : 0;
}
