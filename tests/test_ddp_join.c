// tests/test_ddp_join.c: DDP with uneven inputs (rank r has K*r/(R-1)
// fewer batches each epoch). Under Join the ranks out of data shadow the
// others' collectives with zero gradients: the parameters equal an update
// computed here from single-rank gradients, summed over the ranks that
// still had data and divided by the initial world size R, and every rank
// ends with the same parameters (the last joiner's, broadcast when the
// context closes). Without Join the ranks with data wait in an all_reduce
// that the finished rank never enters: the watchdog's diagnosis, exit
// code 3 through the CLI, well within the run's timeout.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "engine/ops.h"
#include "test_cli_run.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_world.h"

#define R 3
#define K 2
#define BATCH 8
#define NSAMPLES 120 // 40 per rank: 5 batches, so 5, 4 and 3 per epoch
#define EPOCHS 2
#define LR 0.1f

static const char *exe;

typedef struct {
    SimTrainConfig cfg;
    SimTrainer tr[R];
    float *params[R];
    size_t nparam;
    int64_t steps[R];
    int shadows[R];
    int out_of_data[R];
    SimStatus st;
    char error[2560];
    double wall_s;
} JoinRun;

static void on_step(void *arg, int rank, const SimStepStats *s) {
    JoinRun *j = arg;
    j->shadows[rank] += s->shadow;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    JoinRun *j = arg;
    SimTrainer *t = &j->tr[r->rank];
    SimStatus st = sim_train_run(r, j->tr);
    j->steps[r->rank] = t->step;
    j->out_of_data[r->rank] = t->out_of_data;
    if (t->model && t->model->param.data) {
        size_t n = t->model->param_count;
        if (r->rank == 0) // one writer
            j->nparam = n;
        j->params[r->rank] = malloc(n * sizeof(float));
        if (j->params[r->rank])
            (void)sim_tensor_download(r, &t->model->param, j->params[r->rank]);
    }
    sim_train_free(t, r);
    return st;
}

static void join_config(JoinRun *j, const SimDataset *ds, const SimModelSpec *spec, int join) {
    memset(j, 0, sizeof *j);
    sim_train_config_default(&j->cfg);
    SimTrainConfig *c = &j->cfg;
    char err[256];
    c->model = *spec;
    c->data.set = ds;
    c->data.batch = BATCH;
    c->data.shuffle = 1;
    c->seed = 7;
    (void)sim_optim_flags_set(&c->opt, "optimizer", "sgd", err, sizeof err);
    (void)sim_optim_flags_set(&c->opt, "lr", "0.1", err, sizeof err);
    (void)sim_optim_flags_validate(&c->opt, err, sizeof err);
    c->data.uneven = K;
    c->data.join = join;
    c->strategy = &sim_ddp_strategy;
    c->hooks.on_step = on_step;
    c->hooks.on_step_arg = j;
    c->loop.steps = sim_train_steps_for_epochs(c, R, EPOCHS);
    for (int i = 0; i < R; i++)
        j->tr[i].cfg = c;
}

static SimStatus join_run(JoinRun *j, const SimDdpOptions *o, double watchdog_s) {
    j->cfg.strategy_cfg = o;
    SimWorld w;
    double w0 = sim_wall_now();
    j->st = tworld_init_cpu(&w, R, 0, watchdog_s);
    if (j->st == SIM_OK)
        j->st = sim_world_run(&w, rank_main, j);
    j->wall_s = sim_wall_now() - w0;
    // the world's diagnosis, then each rank's reason
    size_t len = 0;
    if (j->st != SIM_OK)
        len += (size_t)snprintf(j->error, sizeof j->error, "%s", sim_world_error(&w));
    for (int i = 0; i < R && j->st != SIM_OK && len < sizeof j->error; i++)
        len += (size_t)snprintf(j->error + len, sizeof j->error - len, " | rank %d: %s", i,
                                j->tr[i].error);
    sim_world_free(&w);
    return j->st;
}

static void join_free(JoinRun *j) {
    for (int i = 0; i < R; i++)
        free(j->params[i]);
}

// ----------------------------------------------------------------------------
// the reference: one process, one model, every rank's batch in turn

typedef struct {
    const SimTrainConfig *cfg;
    float *params; // [nparam] out
    size_t nparam;
} Ref;

// zero_grad; backward of each rank that still has batch i with seed 1/R
// (gradients accumulate: sum over those ranks of their mean gradient / R).
static SimStatus ref_grads(SimRank *r, SimModel *m, SimSampler *sp, SimLoader *ld,
                           int64_t i, int step) {
    SIM_CHECK(sim_model_zero_grad(r, m));
    for (int q = 0; q < R; q++) {
        if (i >= sp[q].num_batches - (int64_t)K * q / (R - 1))
            continue; // rank q has run out: it adds zeros
        const int64_t *idx = NULL;
        int n = sim_sampler_batch(&sp[q], i, &idx);
        SimBatch b;
        float loss = 0;
        SIM_CHECK(sim_loader_fill(ld, idx, n, &b));
        SIM_CHECK(sim_model_forward(r, m, &b, step, SIM_FP32, &loss));
        SIM_CHECK(sim_model_backward(r, m, 1.0f / R, NULL, NULL));
    }
    return SIM_OK;
}

static SimStatus ref_main(SimRank *r, void *arg) {
    Ref *ref = arg;
    const SimTrainConfig *c = ref->cfg;
    SimModel *m = NULL;
    SimSampler sp[R];
    SimLoader ld;
    memset(sp, 0, sizeof sp);
    memset(&ld, 0, sizeof ld);
    char err[256];
    SimStatus st = sim_model_create(r, &c->model, c->data.batch, 0, &m);
    if (st == SIM_OK)
        st = sim_model_init(r, m, c->seed);
    if (st == SIM_OK)
        st = sim_loader_init(&ld, c->data.set, c->data.batch);
    for (int q = 0; q < R && st == SIM_OK; q++) {
        SimSamplerConfig sc;
        sim_sampler_defaults(&sc, c->data.set->n);
        sc.num_replicas = R;
        sc.rank = q;
        sc.shuffle = 1;
        sc.seed = (int64_t)c->seed;
        sc.batch_size = c->data.batch;
        st = sim_sampler_init(&sp[q], &sc, err, sizeof err);
    }
    ref->nparam = m ? m->param_count : 0;
    float *p = malloc((ref->nparam + 1) * sizeof *p), *g = malloc((ref->nparam + 1) * sizeof *g);
    if (!p || !g)
        st = SIM_ENOMEM;
    if (st == SIM_OK)
        st = sim_tensor_download(r, &m->param, p);
    int step = 0;
    for (int e = 0; e < EPOCHS && st == SIM_OK; e++) {
        for (int q = 0; q < R; q++)
            sim_sampler_set_epoch(&sp[q], e);
        for (int64_t i = 0; i < sp[0].num_batches && st == SIM_OK; i++, step++) {
            st = ref_grads(r, m, sp, &ld, i, step);
            if (st == SIM_OK)
                st = sim_tensor_download(r, &m->grad, g);
            for (size_t k = 0; st == SIM_OK && k < ref->nparam; k++)
                p[k] -= LR * g[k]; // plain SGD
            if (st == SIM_OK)
                st = sim_tensor_upload(r, &m->param, p);
        }
    }
    ref->params = p;
    free(g);
    for (int q = 0; q < R; q++)
        sim_sampler_free(&sp[q]);
    sim_loader_free(&ld);
    sim_model_destroy(r, m);
    return st;
}

static SimStatus reference(const SimTrainConfig *c, Ref *ref) {
    memset(ref, 0, sizeof *ref);
    ref->cfg = c;
    SimWorld w;
    SimStatus st = tworld_init_cpu(&w, 1, 0, 30.0);
    if (st == SIM_OK)
        st = sim_world_run(&w, ref_main, ref);
    sim_world_free(&w);
    return st;
}

// ----------------------------------------------------------------------------

// Join: every rank takes all 10 iterations; rank 1 shadows 1 per epoch and
// rank 2 shadows 2; the parameters equal the reference (zeros counted in
// the average over R) and are identical on every rank.
static int test_join_parity(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, NSAMPLES, "mlp:16,32,4", &spec) == SIM_OK);
    SimDdpOptions o;
    sim_ddp_options_default(&o);
    JoinRun j;
    join_config(&j, &ds, &spec, 1);
    CHECK(j.cfg.loop.steps == 5 * EPOCHS);
    if (join_run(&j, &o, 10.0) != SIM_OK)
        fprintf(stderr, "join run: %s\n", j.error);
    CHECK(j.st == SIM_OK);
    Ref ref;
    CHECK(reference(&j.cfg, &ref) == SIM_OK);
    CHECK(ref.nparam == j.nparam && j.nparam > 0);
    for (int q = 0; q < R; q++) {
        CHECK(j.steps[q] == 5 * EPOCHS);
        CHECK(j.shadows[q] == EPOCHS * (K * q / (R - 1)));
        CHECK(tddp_maxdiff(j.params[q], j.params[0], j.nparam) == 0);
    }
    double d = tddp_maxdiff(j.params[0], ref.params, ref.nparam);
    CHECK(d < 1e-5);
    // the same with gradient_as_bucket_view and several buckets (the zeros
    // go through every bucket, in order)
    JoinRun v;
    join_config(&v, &ds, &spec, 1);
    o.gradient_as_bucket_view = 1;
    o.buckets.bucket_cap_mb = 0.001;
    CHECK(join_run(&v, &o, 10.0) == SIM_OK);
    for (int q = 0; q < R; q++)
        CHECK(tddp_maxdiff(v.params[q], ref.params, ref.nparam) < 1e-5);
    join_free(&v);
    free(ref.params);
    join_free(&j);
    sim_dataset_free(&ds);
    return 0;
}

// Without Join rank 2 leaves its loop early and the others wait: the
// watchdog (0.5 s) ends the run with a diagnosis, never a hang.
static int test_no_join_watchdog(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, NSAMPLES, "mlp:16,32,4", &spec) == SIM_OK);
    SimDdpOptions o;
    sim_ddp_options_default(&o);
    JoinRun j;
    join_config(&j, &ds, &spec, 0);
    CHECK(join_run(&j, &o, 0.5) != SIM_OK);
    CHECK(j.st == SIM_ETIMEDOUT || j.st == SIM_EABORTED || j.st == SIM_EPROTO);
    CHECK(j.out_of_data[R - 1] == 1 && j.out_of_data[0] == 0);
    if (strstr(j.error, "watchdog") == NULL)
        fprintf(stderr, "error: %s\n", j.error);
    CHECK(strstr(j.error, "watchdog") != NULL);
    join_free(&j);
    sim_dataset_free(&ds);
    return 0;
}

// The same through `ddplab run`: exit code 3 and the diagnosis; with
// --join the run completes.
static int test_cli(void) {
    if (exe == NULL)
        return 0;
    TcliResult res;
    double w0 = sim_wall_now();
    TCLI_RUN(res, exe, 60.0, "run", "--strategy", "ddp", "-n", "3", "--model", "mlp:16,32,4",
             "--batch", "16", "--epochs", "1", "--uneven", "2", "--watchdog", "0.5");
    double wall = sim_wall_now() - w0;
    CHECK(res.rc == 3);
    CHECK(strstr(res.err, "watchdog") != NULL);
    CHECK(strstr(res.err, "rank 2 ran out of data") != NULL);
    printf("  ended by the watchdog after %.2f s\n", wall);
    tcli_result_free(&res);
    TCLI_RUN(res, exe, 60.0, "run", "--strategy", "ddp", "-n", "3", "--model", "mlp:16,32,4",
             "--batch", "16", "--epochs", "1", "--uneven", "2", "--join");
    CHECK(res.rc == 0); // the default watchdog: no rank waits here, however busy the machine
    tcli_result_free(&res);
    TCLI_RUN(res, exe, 60.0, "run", "--strategy", "ddp", "-n", "3", "--model", "mlp:16,32,4",
             "--epochs", "1", "--uneven", "2", "--join", "--loss-log", "avg");
    CHECK(res.rc == 2);
    CHECK(strstr(res.err, "Join does not shadow") != NULL);
    tcli_result_free(&res);
    return 0;
}

int main(int argc, char **argv) {
    exe = argc > 1 ? argv[1] : NULL;
    int failures = 0;
    RUN(test_join_parity);
    RUN(test_no_join_watchdog);
    RUN(test_cli);
    return failures ? 1 : 0;
}
