// tests/test_ddp_more.c: DDP's communication hooks (fp16/bf16 compression
// close to the default with half the bytes on the wire; the "sum" hook's
// R-times-too-large update), the logged loss across ranks (AVG and
// SUM / R equal the mean of the ranks' own losses), and the accumulation
// options: where zero_grad sits, set_to_none (and the memory it frees), and
// the incomplete last block of an epoch (step, drop, and the run that never
// steps).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_ddp_util.h"
#include "test_env.h"

#define MAXSTEPS 16

// What on_step saw, per rank and step (each rank writes only its own row).
typedef struct {
    float loss[TDDP_MAX_RANKS][MAXSTEPS];
    float local[TDDP_MAX_RANKS][MAXSTEPS];
    int micro[MAXSTEPS];
    int64_t epoch[MAXSTEPS];
} Seen;

static void on_step(void *arg, int rank, const SimStepStats *s) {
    Seen *v = arg;
    if (s->step < 1 || s->step > MAXSTEPS)
        return;
    v->loss[rank][s->step - 1] = s->loss;
    v->local[rank][s->step - 1] = s->loss_local;
    if (rank == 0) {
        v->micro[s->step - 1] = s->micro;
        v->epoch[s->step - 1] = s->epoch;
    }
}

// Bytes all_reduced by rank 0 over the run (the collective events).
static uint64_t allreduce_bytes(const TddpRun *t) {
    uint64_t b = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].kind == SIM_EV_COLL && strcmp(t->events[i].name, "AllReduce") == 0)
            b += t->events[i].bytes;
    return b;
}

static void hook_run(TddpRun *t, const SimDataset *ds, const SimModelSpec *spec, int R,
                     int64_t steps, SimDdpCommHook h) {
    tddp_config(t, ds, spec, R, 8, steps);
    t->use_ddp = 1;
    t->trace = 1;
    t->ddp.comm_hook = h;
}

// fp16 and bf16 compression: parameters within the low type's rounding of
// the default's (fp16 1e-3, bf16 1e-2 relative, 4 steps of SGD lr 0.1), and
// exactly half the all_reduce bytes.
static int test_compress_hooks(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,32,4", &spec) == SIM_OK);
    TddpRun ref;
    hook_run(&ref, &ds, &spec, 4, 4, SIM_DDP_HOOK_ALLREDUCE);
    CHECK(tddp_run(&ref) == SIM_OK);
    uint64_t ref_bytes = allreduce_bytes(&ref);
    CHECK(ref_bytes > 0);
    const SimDdpCommHook hooks[2] = {SIM_DDP_HOOK_FP16, SIM_DDP_HOOK_BF16};
    const double tol[2] = {1e-3, 1e-2};
    for (int i = 0; i < 2; i++) {
        TddpRun t;
        hook_run(&t, &ds, &spec, 4, 4, hooks[i]);
        CHECK(tddp_run(&t) == SIM_OK);
        double d = tddp_maxdiff(t.params[0], ref.params[0], t.nparam);
        CHECK(d < tol[i]);
        CHECK(d > 0); // the compression is real: some rounding shows
        CHECK(allreduce_bytes(&t) * 2 == ref_bytes);
        for (int r = 1; r < 4; r++) // every rank holds the same result
            CHECK(tddp_maxdiff(t.params[r], t.params[0], t.nparam) == 0);
        tddp_free(&t);
    }
    tddp_free(&ref);
    sim_dataset_free(&ds);
    return 0;
}

// The sum hook forgets the division: the first SGD update is R times the
// default's (lr 0.1, no momentum; initial weights from a run of lr 0).
static int test_sum_hook(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,4", &spec) == SIM_OK);
    const int R = 3;
    TddpRun init, def, sum;
    hook_run(&init, &ds, &spec, R, 1, SIM_DDP_HOOK_ALLREDUCE);
    char err[128];
    CHECK(sim_optim_flags_set(&init.cfg.opt, "lr", "0", err, sizeof err) == SIM_OK);
    CHECK(tddp_run(&init) == SIM_OK);
    hook_run(&def, &ds, &spec, R, 1, SIM_DDP_HOOK_ALLREDUCE);
    CHECK(tddp_run(&def) == SIM_OK);
    hook_run(&sum, &ds, &spec, R, 1, SIM_DDP_HOOK_SUM);
    CHECK(tddp_run(&sum) == SIM_OK);
    double num = 0, den = 0, worst = 0;
    for (size_t i = 0; i < def.nparam; i++) {
        double a = (double)def.params[0][i] - init.params[0][i];
        double b = (double)sum.params[0][i] - init.params[0][i];
        num += a * b;
        den += a * a;
        double e = fabs(b - R * a);
        worst = e > worst ? e : worst;
    }
    CHECK(den > 0);
    CHECK(fabs(num / den - R) < 1e-3); // least-squares ratio of the updates
    CHECK(worst < 1e-5);
    tddp_free(&init);
    tddp_free(&def);
    tddp_free(&sum);
    sim_dataset_free(&ds);
    return 0;
}

// The logged loss: with AVG and SUM / R every rank reports the mean of the
// ranks' own losses; with rank0 (local) each its own, and they differ.
static int test_loss_log(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 512, "mlp:16,32,4", &spec) == SIM_OK);
    const SimLossLog modes[3] = {SIM_LOSS_LOCAL, SIM_LOSS_AVG, SIM_LOSS_SUM};
    const int R = 3, steps = 3;
    for (int m = 0; m < 3; m++) {
        TddpRun t;
        Seen *v = calloc(1, sizeof *v);
        CHECK(v != NULL);
        tddp_config(&t, &ds, &spec, R, 8, steps);
        t.use_ddp = 1;
        t.cfg.loop.loss_log = modes[m];
        t.cfg.hooks.on_step = on_step;
        t.cfg.hooks.on_step_arg = v;
        CHECK(tddp_run(&t) == SIM_OK);
        for (int s = 0; s < steps; s++) {
            double mean = 0;
            for (int r = 0; r < R; r++)
                mean += v->local[r][s] / R;
            CHECK(v->local[1][s] != v->local[0][s]); // their own batches
            for (int r = 0; r < R; r++) {
                if (modes[m] == SIM_LOSS_LOCAL)
                    CHECK(v->loss[r][s] == v->local[r][s]);
                else
                    CHECK(fabs(v->loss[r][s] - mean) <= 1e-6 * fabs(mean));
            }
        }
        free(v);
        tddp_free(&t);
    }
    sim_dataset_free(&ds);
    return 0;
}

// zero_grad at the start of each block or after each step: the same
// parameters when blocks span epochs (nothing lies between the step and the
// next block's start).
static int test_zero_grad_place(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) == SIM_OK);
    TddpRun a, b;
    tddp_config(&a, &ds, &spec, 2, 8, 4);
    a.use_ddp = 1;
    a.cfg.loop.accum = 2;
    b = a;
    b.cfg.loop.zero_grad_after_step = 1;
    CHECK(tddp_run(&a) == SIM_OK);
    CHECK(tddp_run(&b) == SIM_OK);
    CHECK(tddp_maxdiff(a.params[0], b.params[0], a.nparam) == 0);
    tddp_free(&a);
    tddp_free(&b);
    sim_dataset_free(&ds);
    return 0;
}

// set_to_none with the `unused` head (used on steps 0, 2, ...) and
// momentum: on step 1 the head's gradient is None, so it does not move;
// with zeros kept, momentum moves it. Compares the head after 1 and 2 steps.
typedef struct {
    size_t off, n; // the head's elements (3.weight then 3.bias, contiguous)
} Head;

static SimStatus find_head(void *arg, SimRank *r, SimTrainer *t) {
    Head *h = arg;
    if (r->rank != 0)
        return SIM_OK;
    for (int i = 0; i < t->model->nparams; i++)
        if (strcmp(t->model->params[i].name, "3.weight") == 0) {
            h->off = t->model->params[i].offset;
            h->n = t->model->params[i].numel + t->model->params[i + 1].numel;
        }
    return SIM_OK;
}

static int test_set_to_none(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4,unused", &spec) == SIM_OK);
    char err[128];
    for (int none = 0; none <= 1; none++) {
        TddpRun one, two;
        Head h = {0, 0};
        tddp_config(&one, &ds, &spec, 1, 8, 1);
        CHECK(sim_optim_flags_set(&one.cfg.opt, "momentum", "0.9", err, sizeof err) == SIM_OK);
        CHECK(sim_optim_flags_validate(&one.cfg.opt, err, sizeof err) == SIM_OK);
        one.cfg.loop.set_to_none = none;
        one.after = find_head;
        one.after_arg = &h;
        two = one;
        two.cfg.loop.steps = 2;
        CHECK(tddp_run(&one) == SIM_OK);
        CHECK(tddp_run(&two) == SIM_OK);
        CHECK(h.n > 0);
        double d = tddp_maxdiff(one.params[0] + h.off, two.params[0] + h.off, h.n);
        if (none)
            CHECK(d == 0);
        else
            CHECK(d > 1e-6);
        tddp_free(&one);
        tddp_free(&two);
    }
    sim_dataset_free(&ds);
    return 0;
}

// set_to_none's memory: with zero_grad right after the step, the last step
// leaves every gradient None, and the ledger holds no gradient bytes; with
// zeros kept it holds all of them. The training is the same either way (no
// parameter lacks a gradient here), and the next backward takes the bytes
// back (the second step's peak holds them all, with the activations).
typedef struct {
    int64_t grads_now, grads_at_peak, param_bytes;
} GradMem;

static SimStatus grad_mem(void *arg, SimRank *r, SimTrainer *t) {
    GradMem *g = arg;
    if (r->rank == 0) {
        g->grads_now = r->mem.cur[SIM_MEM_DEVICE][SIM_MEM_GRAD];
        g->grads_at_peak = r->mem.at_peak[SIM_MEM_DEVICE][SIM_MEM_GRAD];
        g->param_bytes = (int64_t)(t->model->param_count * sizeof(float));
    }
    return SIM_OK;
}

static int test_set_to_none_memory(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 256, "mlp:16,32,4", &spec) == SIM_OK);
    float *params[2] = {NULL, NULL};
    for (int none = 0; none <= 1; none++) {
        TddpRun t;
        GradMem g = {-1, -1, 0};
        tddp_config(&t, &ds, &spec, 2, 8, 2);
        t.use_ddp = 1;
        t.cfg.loop.zero_grad_after_step = 1;
        t.cfg.loop.set_to_none = none;
        t.cfg.loop.set_to_none_frees = none;
        t.after = grad_mem;
        t.after_arg = &g;
        CHECK(tddp_run(&t) == SIM_OK);
        CHECK(g.param_bytes > 0);
        CHECK(g.grads_now == (none ? 0 : g.param_bytes));
        CHECK(g.grads_at_peak == g.param_bytes);
        params[none] = t.params[0];
        t.params[0] = NULL;
        tddp_free(&t);
    }
    CHECK(tddp_maxdiff(params[0], params[1], 16 * 32 + 32 + 32 * 4 + 4) == 0);
    free(params[0]);
    free(params[1]);
    sim_dataset_free(&ds);
    return 0;
}

// 40 samples on 2 ranks, batch 4: 5 batches per rank and epoch. accum 2:
// step -> blocks 2, 2, 1 (3 steps an epoch); drop -> 2, 2 (the fifth batch
// runs but never steps); accum 6 with drop never steps and says so.
static int test_accum_tail(void) {
    SimDataset ds;
    SimModelSpec spec;
    CHECK(tddp_data_mlp(&ds, 40, "mlp:16,8,4", &spec) == SIM_OK);
    const SimAccumTail modes[2] = {SIM_ACCUM_TAIL_STEP, SIM_ACCUM_TAIL_DROP};
    float *drop_params[2] = {NULL, NULL};
    for (int m = 0; m < 2; m++) {
        TddpRun t;
        Seen *v = calloc(1, sizeof *v);
        CHECK(v != NULL);
        tddp_config(&t, &ds, &spec, 2, 4, 4);
        t.use_ddp = 1;
        t.cfg.loop.accum = 2;
        t.cfg.loop.accum_tail = modes[m];
        t.cfg.hooks.on_step = on_step;
        t.cfg.hooks.on_step_arg = v;
        CHECK(sim_train_steps_for_epochs(&t.cfg, 2, 2) == (m == 0 ? 6 : 4));
        CHECK(tddp_run(&t) == SIM_OK);
        if (m == 0) { // 2, 2, 1 | 2
            CHECK(v->micro[0] == 2 && v->micro[1] == 2 && v->micro[2] == 1 && v->micro[3] == 2);
            CHECK(v->epoch[2] == 0 && v->epoch[3] == 1);
        } else { // 2, 2 | (1 dropped) 2, 2
            CHECK(v->micro[2] == 2 && v->micro[3] == 2);
            CHECK(v->epoch[1] == 0 && v->epoch[2] == 1);
        }
        free(v);
        tddp_free(&t);
    }
    // drop with zero_grad after the step: the dropped batch's gradient leaks
    // into the next block; at the block's start it is discarded
    for (int after = 0; after <= 1; after++) {
        TddpRun t;
        tddp_config(&t, &ds, &spec, 2, 4, 3);
        t.use_ddp = 1;
        t.cfg.loop.accum = 2;
        t.cfg.loop.accum_tail = SIM_ACCUM_TAIL_DROP;
        t.cfg.loop.zero_grad_after_step = after;
        CHECK(tddp_run(&t) == SIM_OK);
        drop_params[after] = t.params[0];
        t.params[0] = NULL;
        tddp_free(&t);
    }
    CHECK(tddp_maxdiff(drop_params[0], drop_params[1], 16 * 8 + 8 + 8 * 4 + 4) > 1e-6);
    free(drop_params[0]);
    free(drop_params[1]);
    TddpRun never;
    tddp_config(&never, &ds, &spec, 2, 4, 2);
    never.use_ddp = 1;
    never.cfg.loop.accum = 6;
    never.cfg.loop.accum_tail = SIM_ACCUM_TAIL_DROP;
    CHECK(sim_train_steps_for_epochs(&never.cfg, 2, 3) == 0);
    CHECK(tddp_run(&never) != SIM_OK);
    CHECK(strstr(never.error, "the optimizer never steps") != NULL);
    tddp_free(&never);
    sim_dataset_free(&ds);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_compress_hooks);
    RUN(test_sum_hook);
    RUN(test_loss_log);
    RUN(test_zero_grad_place);
    RUN(test_set_to_none);
    RUN(test_set_to_none_memory);
    RUN(test_accum_tail);
    return failures ? 1 : 0;
}
