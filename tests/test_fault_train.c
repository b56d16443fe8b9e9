// tests/test_fault_train.c: the training loop's injected faults (sim/engine/fault.h,
// sim/train/train_fault.c) on CPU ranks, each with the effect it must have:
//   unused            without find_unused_parameters the faulty rank fails at
//                     its next forward with PyTorch's "Expected to have
//                     finished reduction ..." while the others wait in the
//                     bucket's all_reduce until the watchdog; with it the run
//                     completes, the replicas stay equal and the parameter's
//                     gradient is the average with a zero from that rank; a
//                     name the model lacks is bad input
//   no-set-epoch      every epoch repeats epoch 0's order ("epoch" markers)
//   no-sampler        every rank reads the same batches: DDP on 2 ranks trains
//                     exactly as one rank on one batch
//   loss-not-divided  with accum K the first SGD step moves K times too far
//   seeds             without the initial broadcast the replicas differ
//   save-crash        (in a child process) the process dies by SIGKILL
// Every fault leaves exactly one "injected" event on the rank it applies to.
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "engine/fault.h"
#include "engine/ops.h"
#include "strategy/ddp.h"
#include "test_ddp_util.h"
#include "test_env.h"
#include "test_files.h"
#include "test_world.h"
#include "train/train.h"

#define TF_MAX 4
#define TF_STEPS 64

typedef struct {
    SimTrainConfig cfg;
    SimDdpOptions ddp;
    SimFaultPlan plan;
    int R, use_ddp;
    double watchdog_s;
    SimTrainer tr[TF_MAX];
    // results
    SimStatus st;
    char error[TF_MAX][sizeof ((SimTrainer *)0)->error];
    int bad_input[TF_MAX];
    float *init[TF_MAX], *params[TF_MAX];
    size_t nparam;
    float loss[TF_MAX][TF_STEPS];      // loss_local of each step
    int64_t sampler_epoch[TF_MAX], epoch[TF_MAX], num_batches[TF_MAX];
    SimEvent *events[TF_MAX];
    size_t nevents[TF_MAX];
} TfRun;

static void tf_config(TfRun *t, const SimDataset *ds, const SimModelSpec *spec, int R,
                      int batch, int64_t steps) {
    memset(t, 0, sizeof *t);
    sim_train_config_default(&t->cfg);
    t->cfg.model = *spec;
    t->cfg.data.set = ds;
    t->cfg.data.batch = batch;
    t->cfg.loop.steps = steps;
    char err[256];
    (void)sim_optim_flags_set(&t->cfg.opt, "lr", "0.1", err, sizeof err);
    (void)sim_optim_flags_validate(&t->cfg.opt, err, sizeof err);
    sim_ddp_options_default(&t->ddp);
    t->cfg.faults = &t->plan;
    t->R = R;
    t->use_ddp = R > 1;
    t->watchdog_s = tenv_sanitized() ? 4.0 : 1.0;
}

static int tf_fault(TfRun *t, const char *spec) {
    char err[512];
    if (sim_fault_parse(&t->plan, spec, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

static float *download_params(const SimTrainer *tr) {
    const SimModel *m = tr->model;
    float *p = malloc(m->param_count * sizeof(float) + 1);
    if (p && sim_tensor_download(tr->rank, &m->param, p) != SIM_OK) {
        free(p);
        p = NULL;
    }
    return p;
}

static void on_ready(void *arg, int rank, const SimTrainer *tr) {
    TfRun *t = arg;
    t->init[rank] = download_params(tr);
    if (rank == 0)
        t->nparam = tr->model->param_count;
}

static void on_step(void *arg, int rank, const SimStepStats *s) {
    TfRun *t = arg;
    if (s->step >= 1 && s->step <= TF_STEPS)
        t->loss[rank][s->step - 1] = s->loss_local;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    TfRun *t = arg;
    SimTrainer *tr = &t->tr[r->rank];
    SimStatus st = sim_train_run(r, t->tr);
    memcpy(t->error[r->rank], tr->error, sizeof t->error[r->rank]);
    t->bad_input[r->rank] = tr->bad_input;
    if (tr->model && tr->model->param.data)
        t->params[r->rank] = download_params(tr);
    t->sampler_epoch[r->rank] = tr->sampler.epoch;
    t->epoch[r->rank] = tr->epoch;
    t->num_batches[r->rank] = tr->sampler.num_batches;
    sim_train_free(tr, r);
    return st;
}

static SimStatus tf_run(TfRun *t) {
    if (t->use_ddp) {
        t->cfg.strategy = &sim_ddp_strategy;
        t->cfg.strategy_cfg = &t->ddp;
    }
    t->cfg.hooks.on_ready = on_ready;
    t->cfg.hooks.on_ready_arg = t;
    t->cfg.hooks.on_step = on_step;
    t->cfg.hooks.on_step_arg = t;
    for (int i = 0; i < t->R; i++)
        t->tr[i].cfg = &t->cfg;
    SimWorld w;
    t->st = tworld_init_cpu(&w, t->R, 1, t->watchdog_s);
    if (t->st == SIM_OK)
        t->st = sim_world_run(&w, rank_main, t);
    for (int r = 0; w.trace && r < t->R; r++) {
        size_t n = sim_trace_rank_count(w.trace, r);
        t->events[r] = malloc((n + 1) * sizeof(SimEvent));
        if (t->events[r] == NULL)
            continue;
        memcpy(t->events[r], sim_trace_rank_events(w.trace, r), n * sizeof(SimEvent));
        t->nevents[r] = n;
        // names point into the trace's pool: keep what the tests read
        for (size_t i = 0; i < n; i++)
            if (t->events[r][i].kind == SIM_EV_FAULT)
                t->events[r][i].name = strdup(t->events[r][i].name ? t->events[r][i].name : "");
    }
    sim_world_free(&w);
    return t->st;
}

static void tf_free(TfRun *t) {
    for (int r = 0; r < TF_MAX; r++) {
        free(t->init[r]);
        free(t->params[r]);
        for (size_t i = 0; t->events[r] && i < t->nevents[r]; i++)
            if (t->events[r][i].kind == SIM_EV_FAULT)
                free((char *)t->events[r][i].name);
        free(t->events[r]);
    }
}

// The "injected" events of rank r: their number, the name of the first.
static int injected(const TfRun *t, int r, const char **name) {
    int n = 0;
    for (size_t i = 0; i < t->nevents[r]; i++) {
        const SimEvent *e = &t->events[r][i];
        if (e->kind == SIM_EV_FAULT && e->label && strcmp(e->label, "injected") == 0) {
            if (n++ == 0 && name)
                *name = e->name;
        }
    }
    return n;
}

// Exactly one injected event, on rank `on`, whose name holds `want`.
static int one_event(const TfRun *t, int on, const char *want) {
    for (int r = 0; r < t->R; r++) {
        const char *name = NULL;
        int n = injected(t, r, &name);
        CHECK_EQ_INT(n, r == on ? 1 : 0);
        if (r == on)
            CHECK_STR_CONTAINS(name, want);
    }
    return 0;
}

static double maxdiff(const TfRun *a, int ra, const TfRun *b, int rb) {
    return tddp_maxdiff(a->params[ra], b->params[rb], a->nparam);
}

// ----------------------------------------------------------------------------
// unused

static int test_unused_hangs_without_find_unused(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) == SIM_OK);
    TfRun t;
    tf_config(&t, &ds, &spec, 2, 16, 4);
    CHECK(tf_fault(&t, "unused:rank=1,step=2") == 0);
    CHECK(tf_run(&t) != SIM_OK);
    // step 1 completes everywhere; rank 1's bucket never becomes ready in
    // step 2, so its step-3 forward fails ...
    CHECK_STR_CONTAINS(t.error[1], "Expected to have finished reduction in the prior iteration");
    // (the index only, as PyTorch gives it without TORCH_DISTRIBUTED_DEBUG;
    // ddplab's diagnosis after it names the parameter)
    CHECK_STR_CONTAINS(t.error[1], "\nParameter indices which did not receive grad for rank 1: "
                                   "3\n In addition, you can set the environment variable "
                                   "TORCH_DISTRIBUTED_DEBUG");
    CHECK_STR_CONTAINS(t.error[1], "\nddplab's diagnosis: in the backward of step 2, rank 1 gave "
                                   "no gradient to 2.bias (index 3)");
    // ... and rank 0 waited in the bucket's all_reduce until the watchdog
    CHECK(t.error[0][0] != '\0');
    CHECK(strstr(t.error[0], "Expected to have finished") == NULL);
    CHECK(t.loss[0][0] != 0 && t.loss[1][0] != 0); // step 1 ran
    CHECK(one_event(&t, 1, "unused: parameter 2.bias") == 0);
    tf_free(&t);
    sim_dataset_free(&ds);
    return 0;
}

// With find_unused_parameters the run completes. Both ranks read the same
// batch (sampler_replicas 1), so without the fault the averaged gradient is
// g, and with it (g + 0) / 2: the removed parameter moves half as far after
// one SGD step, every other parameter exactly as far, and the replicas stay
// equal (rank 1 steps the parameter with the reduced gradient, as PyTorch's
// reducer gives a locally unused, globally used parameter its bucket's
// values). Also with gradient_as_bucket_view and one bucket per parameter,
// where the removed parameter's bucket is complete before backward reaches it.
static int test_unused_find_unused(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) == SIM_OK);
    const char *params[] = {"2.bias", "0.weight"};
    for (int variant = 0; variant < 2; variant++) {
        TfRun base, t;
        for (int fault = 0; fault <= 1; fault++) {
            TfRun *x = fault ? &t : &base;
            tf_config(x, &ds, &spec, 2, 16, 1);
            x->cfg.data.shuffle = 0;
            x->cfg.data.sampler_replicas = 1;
            x->ddp.buckets.find_unused = 1;
            if (variant == 1) {
                x->ddp.gradient_as_bucket_view = 1;
                x->ddp.buckets.bucket_cap_mb = 0; // a bucket per parameter
                x->ddp.buckets.first_bucket_is_cap = 1;
            }
            char spec_text[64];
            snprintf(spec_text, sizeof spec_text, "unused:rank=1,param=%s", params[variant]);
            if (fault)
                CHECK(tf_fault(x, spec_text) == 0);
            CHECK(tf_run(x) == SIM_OK);
            CHECK(maxdiff(x, 1, x, 0) == 0); // the replicas agree
        }
        // where the parameter lies in the flat buffer
        SimModel *m = NULL;
        SimWorld w;
        CHECK(tworld_init_cpu(&w, 1, 0, 5) == SIM_OK);
        CHECK(sim_model_create(&w.ranks[0], &spec, 4, 0, &m) == SIM_OK);
        int pi = sim_model_find_param(m, params[variant]);
        CHECK(pi >= 0);
        size_t lo = m->params[pi].offset, hi = lo + m->params[pi].numel;
        sim_model_destroy(&w.ranks[0], m);
        sim_world_free(&w);
        double moved = 0;
        for (size_t i = 0; i < base.nparam; i++) {
            double d0 = (double)base.params[0][i] - base.init[0][i];
            double d1 = (double)t.params[0][i] - t.init[0][i];
            if (i >= lo && i < hi) {
                CHECK_NEAR(d1, 0.5 * d0, 1e-6 + 1e-4 * fabs(d0));
                moved += fabs(d0);
            } else {
                CHECK_NEAR(d1, d0, 1e-7);
            }
        }
        CHECK(moved > 1e-4);
        CHECK(one_event(&t, 1, params[variant]) == 0);
        tf_free(&base);
        tf_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

static int test_unused_bad_name(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) == SIM_OK);
    TfRun t;
    tf_config(&t, &ds, &spec, 2, 16, 2);
    CHECK(tf_fault(&t, "unused:rank=1,param=nope") == 0);
    CHECK(tf_run(&t) == SIM_EINVAL);
    for (int r = 0; r < 2; r++) {
        CHECK(t.bad_input[r]);
        CHECK_STR_CONTAINS(t.error[r], "no parameter 'nope'");
        CHECK_STR_CONTAINS(t.error[r], "0.weight, 0.bias, 2.weight, 2.bias");
    }
    tf_free(&t);
    sim_dataset_free(&ds);
    return 0;
}

// ----------------------------------------------------------------------------
// no-set-epoch, no-sampler

// The first index of each epoch's order for rank `rank` of R.
static int64_t first_index(const SimDataset *ds, int R, int rank, int64_t epoch) {
    SimSamplerConfig sc;
    sim_sampler_defaults(&sc, ds->n);
    sc.num_replicas = R;
    sc.rank = rank;
    sc.batch_size = 8;
    SimSampler s;
    char err[256];
    if (sim_sampler_init(&s, &sc, err, sizeof err) != SIM_OK)
        return -1;
    sim_sampler_set_epoch(&s, epoch);
    const int64_t *idx = NULL;
    int64_t v = sim_sampler_batch(&s, 0, &idx) > 0 ? idx[0] : -1;
    sim_sampler_free(&s);
    return v;
}

static int test_no_set_epoch(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 64, "mlp:16,32,4", &spec) == SIM_OK);
    // 64 samples over 2 ranks in batches of 8: 4 batches an epoch, 3 epochs
    for (int fault = 0; fault <= 1; fault++) {
        TfRun t;
        tf_config(&t, &ds, &spec, 2, 8, 12);
        if (fault)
            CHECK(tf_fault(&t, "no-set-epoch") == 0);
        CHECK(tf_run(&t) == SIM_OK);
        for (int r = 0; r < 2; r++) {
            CHECK_EQ_INT(t.epoch[r], 2);
            CHECK_EQ_INT(t.sampler_epoch[r], fault ? 0 : 2);
            // the epoch markers: one per epoch and rank, with the fault only
            int k = 0;
            for (size_t i = 0; i < t.nevents[r]; i++) {
                const SimEvent *e = &t.events[r][i];
                if (e->kind != SIM_EV_MARKER || strcmp(e->name, "epoch") != 0)
                    continue;
                CHECK_EQ_INT(e->chunk, k);
                CHECK_EQ_INT(e->count, 0);
                CHECK_EQ_INT(e->step, 4 * k);
                CHECK(strcmp(e->label, k ? "epoch-not-set" : "set_epoch") == 0);
                CHECK_EQ_INT((int64_t)e->value, first_index(&ds, 2, r, 0));
                k++;
            }
            CHECK_EQ_INT(k, fault ? 3 : 0);
        }
        CHECK(first_index(&ds, 2, 0, 0) != first_index(&ds, 2, 0, 1) ||
              first_index(&ds, 2, 0, 0) != first_index(&ds, 2, 0, 2));
        if (fault)
            CHECK(one_event(&t, 0, "epoch 1 repeats epoch 0's order") == 0);
        else
            CHECK(one_event(&t, -1, "") == 0);
        tf_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

// DDP on 2 ranks without a DistributedSampler trains exactly like one rank
// on one batch: both ranks read the same batches (the whole dataset each
// epoch), their losses agree, and the parameters equal the single run's.
static int test_no_sampler(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 128, "mlp:16,32,4", &spec) == SIM_OK);
    TfRun one, two;
    tf_config(&one, &ds, &spec, 1, 16, 10);
    CHECK(tf_run(&one) == SIM_OK);
    tf_config(&two, &ds, &spec, 2, 16, 10);
    CHECK(tf_fault(&two, "no-sampler") == 0);
    CHECK(tf_run(&two) == SIM_OK);
    CHECK_EQ_INT(two.num_batches[0], 8); // 128 / 16: R times more batches per rank
    CHECK_EQ_INT(two.num_batches[1], 8);
    for (int s = 0; s < 10; s++) {
        CHECK(two.loss[0][s] == two.loss[1][s]);
        CHECK_NEAR(two.loss[0][s], one.loss[0][s], 1e-6);
    }
    CHECK(maxdiff(&two, 0, &one, 0) < 1e-6);
    CHECK(maxdiff(&two, 1, &one, 0) < 1e-6);
    CHECK(one_event(&two, 0, "no-sampler") == 0);
    tf_free(&one);
    tf_free(&two);
    sim_dataset_free(&ds);
    return 0;
}

// ----------------------------------------------------------------------------
// loss-not-divided, seeds

// SGD without momentum, one step of accum 4: the parameters move 4 times
// as far (on one rank and under DDP).
static int test_loss_not_divided(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) == SIM_OK);
    for (int R = 1; R <= 2; R++) {
        TfRun base, t;
        for (int fault = 0; fault <= 1; fault++) {
            TfRun *x = fault ? &t : &base;
            tf_config(x, &ds, &spec, R, 8, 1);
            x->cfg.loop.accum = 4;
            if (fault)
                CHECK(tf_fault(x, "loss-not-divided") == 0);
            CHECK(tf_run(x) == SIM_OK);
        }
        double moved = 0;
        for (size_t i = 0; i < base.nparam; i++) {
            CHECK(base.init[0][i] == t.init[0][i]);
            double d0 = (double)base.params[0][i] - base.init[0][i];
            double d1 = (double)t.params[0][i] - t.init[0][i];
            CHECK_NEAR(d1, 4 * d0, 1e-6 + 1e-4 * fabs(d0));
            moved += fabs(d0);
        }
        CHECK(moved > 1e-3);
        CHECK(one_event(&t, 0, "gradients 4 times too large") == 0);
        tf_free(&base);
        tf_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

// Without DDP's initial broadcast, ranks seeded alike stay equal; with the
// seeds fault (seed + rank) they start and stay different.
static int test_seeds(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) == SIM_OK);
    for (int fault = 0; fault <= 1; fault++) {
        TfRun t;
        tf_config(&t, &ds, &spec, 2, 16, 6);
        t.ddp.init_broadcast = 0; // what `ddplab run --fault seeds` sets
        if (fault)
            CHECK(tf_fault(&t, "seeds") == 0);
        CHECK(tf_run(&t) == SIM_OK);
        double d_init = tddp_maxdiff(t.init[1], t.init[0], t.nparam);
        double d_end = maxdiff(&t, 1, &t, 0);
        if (fault) {
            CHECK(d_init > 1e-2);
            CHECK(d_end > 1e-2);
            CHECK(one_event(&t, 0, "seeds:") == 0);
        } else {
            CHECK(d_init == 0);
            CHECK(d_end == 0);
        }
        tf_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

// ----------------------------------------------------------------------------
// save-crash, in a child process

static int test_save_crash_kills(void) {
    char dir[512];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "savecrash") == 0);
    char path[600];
    snprintf(path, sizeof path, "%s/ck.st", dir);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        SimDataset ds;
        SimModelSpec spec;
        if (tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) != SIM_OK)
            _exit(10);
        TfRun t;
        tf_config(&t, &ds, &spec, 1, 16, 6);
        t.cfg.ckpt.save_path = path;
        t.cfg.ckpt.save_every = 2;
        if (tf_fault(&t, "save-crash:step=4") != 0)
            _exit(11);
        tf_run(&t);
        _exit(12); // not reached: the save of step 4 kills the process
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK_EQ_INT(WTERMSIG(status), SIGKILL);
    CHECK(tfile_exists(path)); // step 2's checkpoint
    CHECK_EQ_INT(tfile_dir_entries(dir), 2); // and the half-written temporary
    tfile_rmtree(dir);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_unused_hangs_without_find_unused);
    RUN(test_unused_find_unused);
    RUN(test_unused_bad_name);
    RUN(test_no_set_epoch);
    RUN(test_no_sampler);
    RUN(test_loss_not_divided);
    RUN(test_seeds);
    RUN(test_save_crash_kills);
    return failures ? 1 : 0;
}
