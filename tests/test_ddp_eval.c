// tests/test_ddp_eval.c: distributed evaluation on 3 ranks over 100 samples
// (shards of 34, 33 and 33). The right variant (all_reduced sums) equals a
// one-rank evaluation of the same parameters over the same samples: counts
// and accuracy exactly, the mean loss within 1e-6. mean-of-means is the
// unweighted mean of the ranks' own results, which differs from the right
// one because the shards differ in size. rank0-only ends in a diagnosed
// failure (rank 0 all_reduces alone), exit code 3 through the CLI.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "engine/ops.h"
#include "test_cli_run.h"
#include "test_ddp_util.h"
#include "test_world.h"

#define R 3
#define NSAMPLES 100

static const char *exe;

typedef struct {
    SimTrainConfig right, mom, rank0; // the same run, one per variant
    SimEvalStats ev[R], evm[R];
    float *params;                    // rank 0's, after the steps
    SimStatus st;
    char error[2560];
} EvalRun;

static void eval_config(SimTrainConfig *c, const SimDataset *ds, const SimModelSpec *spec,
                        const SimDdpOptions *o, SimEvalVariant v) {
    char err[256];
    sim_train_config_default(c);
    c->model = *spec;
    c->data.set = ds;
    c->data.batch = 8;
    c->loop.steps = 2;
    (void)sim_optim_flags_set(&c->opt, "lr", "0.001", err, sizeof err); // still learning
    (void)sim_optim_flags_validate(&c->opt, err, sizeof err);
    c->eval.variant = v;
    if (o) {
        c->strategy = &sim_ddp_strategy;
        c->strategy_cfg = o;
    }
}

// Two steps, then the right and the mean-of-means evaluations (each rank
// points its own trainer at the other variant's configuration).
static SimStatus eval_main(SimRank *r, void *arg) {
    EvalRun *e = arg;
    SimTrainer t;
    SimStatus st = sim_train_setup(&t, r, &e->right);
    for (int i = 0; i < 2 && st == SIM_OK; i++)
        st = sim_train_step(&t, r, NULL);
    if (st == SIM_OK)
        st = sim_train_evaluate(&t, r, &e->ev[r->rank]);
    if (st == SIM_OK) {
        t.cfg = &e->mom;
        st = sim_train_evaluate(&t, r, &e->evm[r->rank]);
        t.cfg = &e->right;
    }
    if (st == SIM_OK && r->rank == 0) {
        e->params = malloc(t.model->param_count * sizeof(float));
        st = e->params ? sim_tensor_download(r, &t.model->param, e->params) : SIM_ENOMEM;
    }
    if (st != SIM_OK && r->rank == 0)
        snprintf(e->error, sizeof e->error, "%s", t.error);
    sim_train_free(&t, r);
    return st;
}

typedef struct {
    SimTrainConfig cfg;
    const float *params;
    SimEvalStats ev;
} OneRank;

static SimStatus one_main(SimRank *r, void *arg) {
    OneRank *o = arg;
    SimTrainer t;
    SimStatus st = sim_train_setup(&t, r, &o->cfg);
    if (st == SIM_OK)
        st = sim_tensor_upload(r, &t.model->param, o->params);
    if (st == SIM_OK)
        st = sim_train_evaluate(&t, r, &o->ev);
    sim_train_free(&t, r);
    return st;
}

static SimStatus run_world(int n, double watchdog_s, SimRankMain fn, void *arg) {
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, n, 0, watchdog_s);
    if (st == SIM_OK)
        st = sim_world_run(&w, fn, arg);
    sim_world_free(&w);
    return st;
}

static int test_eval_variants(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, NSAMPLES, "mlp:16,32,4", &spec) == SIM_OK);
    SimDdpOptions o;
    sim_ddp_options_default(&o);
    EvalRun *e = calloc(1, sizeof *e);
    CHECK(e != NULL);
    eval_config(&e->right, &ds, &spec, &o, SIM_EVAL_RIGHT);
    eval_config(&e->mom, &ds, &spec, &o, SIM_EVAL_MEAN_OF_MEANS);
    CHECK(run_world(R, 30.0, eval_main, e) == SIM_OK);
    OneRank one;
    eval_config(&one.cfg, &ds, &spec, NULL, SIM_EVAL_RIGHT);
    one.params = e->params;
    CHECK(run_world(1, 30.0, one_main, &one) == SIM_OK);
    CHECK(one.ev.total == NSAMPLES);
    CHECK(one.ev.correct > 0 && one.ev.correct < NSAMPLES); // 2 steps: not yet perfect
    double mean_acc = 0, mean_loss = 0;
    for (int q = 0; q < R; q++) {
        const SimEvalStats *s = &e->ev[q];
        CHECK(s->evaluated == 1);
        CHECK(s->local_total == (q == 0 ? 34 : 33));
        CHECK(s->total == one.ev.total && s->correct == one.ev.correct);
        CHECK(s->accuracy == one.ev.accuracy);
        CHECK(fabs(s->loss - one.ev.loss) <= 1e-6 * fabs(one.ev.loss));
        mean_acc += s->local_accuracy / R;
        mean_loss += s->local_loss / R;
    }
    // mean-of-means: the unweighted mean of the ranks' own means, on every
    // rank, and not the mean over the samples
    for (int q = 0; q < R; q++) {
        CHECK(fabs(e->evm[q].accuracy - mean_acc) < 1e-6);
        CHECK(fabs(e->evm[q].loss - mean_loss) < 1e-6 * fabs(mean_loss));
        CHECK(fabs(e->evm[q].loss - one.ev.loss) > 1e-6 * fabs(one.ev.loss));
    }
    free(e->params);
    free(e);
    sim_dataset_free(&ds);
    return 0;
}

// rank0-only: the other ranks go on to the next step's collectives.
static SimStatus rank0_main(SimRank *r, void *arg) {
    EvalRun *e = arg;
    SimTrainer t;
    SimEvalStats ev;
    SimStatus st = sim_train_setup(&t, r, &e->rank0);
    if (st == SIM_OK)
        st = sim_train_step(&t, r, NULL);
    if (st == SIM_OK)
        st = sim_train_evaluate(&t, r, &ev);
    if (st == SIM_OK)
        st = sim_train_step(&t, r, NULL);
    if (st != SIM_OK && r->rank == 0)
        snprintf(e->error, sizeof e->error, "%s", t.error);
    sim_train_free(&t, r);
    return st;
}

static int test_rank0_only(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, NSAMPLES, "mlp:16,32,4", &spec) == SIM_OK);
    SimDdpOptions o;
    sim_ddp_options_default(&o);
    EvalRun *e = calloc(1, sizeof *e);
    CHECK(e != NULL);
    eval_config(&e->rank0, &ds, &spec, &o, SIM_EVAL_RANK0_ONLY);
    SimStatus st = run_world(R, 0.5, rank0_main, e);
    CHECK(st == SIM_ETIMEDOUT || st == SIM_EPROTO || st == SIM_EABORTED);
    CHECK(strstr(e->error, "evaluation all_reduce") != NULL);
    free(e);
    sim_dataset_free(&ds);
    if (exe == NULL)
        return 0;
    TcliResult res;
    TCLI_RUN(res, exe, 60.0, "run", "--strategy", "ddp", "-n", "3", "--model", "mlp:16,32,4",
             "--batch", "16", "--steps", "4", "--eval-every", "2", "--eval-variant",
             "rank0-only", "--watchdog", "0.5");
    CHECK(res.rc == 3);
    CHECK(strstr(res.err, "rank0-only: rank 0 evaluated") != NULL);
    tcli_result_free(&res);
    TCLI_RUN(res, exe, 60.0, "run", "--strategy", "ddp", "-n", "3", "--model", "mlp:16,32,4",
             "--batch", "16", "--steps", "4", "--eval-every", "2");
    CHECK(res.rc == 0);
    CHECK(strstr(res.err, "eval after step 4") != NULL);
    tcli_result_free(&res);
    return 0;
}

int main(int argc, char **argv) {
    exe = argc > 1 ? argv[1] : NULL;
    int failures = 0;
    RUN(test_eval_variants);
    RUN(test_rank0_only);
    return failures ? 1 : 0;
}
