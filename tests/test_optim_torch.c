// tests/test_optim_torch.c: the optimizers, learning-rate schedules,
// gradient clipping and the loss scaler against PyTorch
// (tests/conformance/optim_ref.py).
//
// Three parameters ([4,6], [6], [3,4]: 42 floats) take N steps with a fixed
// sequence of gradients, through a warmup + cosine (or linear, or constant)
// LambdaLR and clip_grad_norm_ each step, for SGD (plain, momentum,
// dampening, nesterov, weight decay), Adam and AdamW. Some cases take
// gradients away from parameters on some steps (torch's grad = None), and
// some run the loss scaler over gradients with an inf and a NaN. Compared:
// the learning rate of every step (bit for bit), the norm clip_grad_norm_
// returns, the final parameters and optimizer state (relative 1e-6), the
// per-parameter step counts, and the scaler's scale, growth tracker and
// skipped steps (exactly). The script also rounds values to fp16 for the
// underflow check, compared bit for bit with ddplab's cast.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "model/grad_scaler.h"
#include "model/lr_schedule.h"
#include "model/optim.h"
#include "test_world.h"
#include "torch_ref.h"

#define NPARAM 3
#define P 42
#define NSTEP 12
#define NCAST 4
#define MAXSTATE (SIM_OPTIM_MAX_STATE * P)

typedef struct {
    const char *name;
    SimOptimKind kind;
    double lr, momentum, dampening;
    int nesterov;
    double wd, beta1, beta2, eps;
    SimLrKind sched;
    int warmup;
    double min_lr, clip;
    int mask, bad, scaler, enabled, growth_interval;
} Case;

#define SGD(lr, mom, damp, nest, wd) SIM_OPTIM_SGD, lr, mom, damp, nest, wd, 0, 0, 0
#define ADAM(kind, lr, wd, b1, b2, eps) kind, lr, 0, 0, 0, wd, b1, b2, eps

static const Case cases[] = {
    {"sgd", SGD(0.1, 0, 0, 0, 0), SIM_LR_CONSTANT, 0, 0, 0, 0, 0, 0, 0, 3},
    {"sgd_sched_clip", SGD(0.1, 0, 0, 0, 0), SIM_LR_COSINE, 3, 0.001, 2.5, 0, 0, 0, 0, 3},
    {"sgd_momentum", SGD(0.05, 0.9, 0, 0, 0), SIM_LR_COSINE, 3, 0, 2.5, 0, 0, 0, 0, 3},
    {"sgd_dampening", SGD(0.05, 0.9, 0.3, 0, 0), SIM_LR_COSINE, 3, 0, 2.5, 0, 0, 0, 0, 3},
    {"sgd_nesterov", SGD(0.05, 0.9, 0, 1, 0), SIM_LR_COSINE, 3, 0, 2.5, 0, 0, 0, 0, 3},
    {"sgd_nesterov_wd", SGD(0.05, 0.8, 0, 1, 0.01), SIM_LR_LINEAR, 2, 0.005, 2.5, 0, 0, 0, 0,
     3},
    {"sgd_momentum_wd_mask", SGD(0.05, 0.9, 0.1, 0, 0.05), SIM_LR_COSINE, 3, 0, 2.5, 1, 0, 0,
     0, 3},
    {"adam", ADAM(SIM_OPTIM_ADAM, 1e-2, 0, 0.9, 0.999, 1e-8), SIM_LR_CONSTANT, 0, 0, 0, 0, 0, 0,
     0, 3},
    {"adam_wd_sched_clip", ADAM(SIM_OPTIM_ADAM, 1e-2, 0.05, 0.9, 0.999, 1e-8), SIM_LR_COSINE, 3,
     1e-4, 2.5, 0, 0, 0, 0, 3},
    {"adamw", ADAM(SIM_OPTIM_ADAMW, 1e-2, 1e-2, 0.9, 0.999, 1e-8), SIM_LR_COSINE, 3, 0, 2.5, 0, 0,
     0, 0, 3},
    {"adamw_betas_eps", ADAM(SIM_OPTIM_ADAMW, 2e-2, 0.1, 0.8, 0.99, 1e-6), SIM_LR_LINEAR, 4, 1e-3,
     2.5, 0, 0, 0, 0, 3},
    {"adamw_mask", ADAM(SIM_OPTIM_ADAMW, 1e-2, 0.1, 0.9, 0.999, 1e-8), SIM_LR_COSINE, 3, 0, 2.5, 1,
     0, 0, 0, 3},
    {"scaler_sgd", SGD(0.05, 0.9, 0, 0, 0), SIM_LR_COSINE, 3, 0, 2.5, 0, 1, 1, 1, 3},
    {"scaler_adamw_mask", ADAM(SIM_OPTIM_ADAMW, 1e-2, 1e-2, 0.9, 0.999, 1e-8), SIM_LR_CONSTANT, 2,
     0, 0, 1, 1, 1, 1, 2},
    {"scaler_disabled", SGD(0.05, 0.9, 0, 0, 0), SIM_LR_COSINE, 3, 0, 2.5, 0, 0, 1, 0, 3},
};
#define NCASE ((int)(sizeof cases / sizeof cases[0]))

static const int ndims[NPARAM] = {2, 1, 2};
static const int64_t shapes[NPARAM][2] = {{4, 6}, {6, 0}, {3, 4}};

typedef struct {
    float params[P];
    float norms[NSTEP];
    double lrs[NSTEP];
    double lrs_builtin[NSTEP]; // torch's LinearLR / CosineAnnealingLR / SequentialLR
    float state[MAXSTATE];
    int64_t steps[NPARAM];
    float scale[NSTEP];
    int32_t tracker[NSTEP];
    uint8_t stepped[NSTEP];
} Result;

typedef struct {
    SimParamInfo info[NPARAM];
    float p0[P];
    float grads[2][NSTEP][P]; // finite, then with inf and NaN
    uint8_t mask[NSTEP][NPARAM];
    float cast_in[NCAST], cast_out[NCAST];
    Result got[NCASE];
} Data;

// A fixed pseudo-random sequence in [-1, 1).
static float lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static void make_data(Data *d) {
    uint64_t seed = 42;
    size_t off = 0;
    for (int i = 0; i < NPARAM; i++) {
        SimParamInfo *p = &d->info[i];
        snprintf(p->name, sizeof p->name, "p%d", i);
        p->ndim = ndims[i];
        p->numel = 1;
        for (int k = 0; k < ndims[i]; k++) {
            p->shape[k] = shapes[i][k];
            p->numel *= (size_t)shapes[i][k];
        }
        p->offset = off;
        off += p->numel;
    }
    for (int i = 0; i < P; i++)
        d->p0[i] = lcg(&seed);
    for (int s = 0; s < NSTEP; s++) {
        float mag = 0.2f + 0.6f * (float)(s % 5); // some steps clip at 2.5, some do not
        for (int i = 0; i < P; i++)
            d->grads[0][s][i] = d->grads[1][s][i] = mag * lcg(&seed);
        for (int i = 0; i < NPARAM; i++) // p1 has no gradient on steps 0-2, p2 on step 5
            d->mask[s][i] = !((i == 1 && s < 3) || (i == 2 && s == 5));
    }
    d->grads[1][4][5] = INFINITY;
    d->grads[1][8][30] = NAN;
    d->grads[1][9][7] = -INFINITY;
    // 1e-8 is below half of fp16's smallest subnormal (2^-24): it rounds to 0;
    // scaled by 65536 it is a normal fp16 number.
    d->cast_in[0] = 1e-8f;
    d->cast_in[1] = 1e-8f * 65536.0f;
    d->cast_in[2] = 3e-8f; // just above 2^-25: rounds up to the smallest subnormal
    d->cast_in[3] = 70000.0f; // beyond fp16's largest (65504): inf
}

static int write_inputs(const char *dir, const Data *d) {
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%d %d %d\n", NPARAM, P, NSTEP);
    for (int i = 0; i < NPARAM; i++) {
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%zu %d", d->info[i].numel, ndims[i]);
        for (int k = 0; k < ndims[i]; k++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, " %lld", (long long)shapes[i][k]);
        n += snprintf(buf + n, sizeof buf - (size_t)n, "\n");
    }
    if (torchref_write(dir, "layout.txt", buf, (size_t)n) != 0)
        return -1;
    char cs[8192];
    int m = 0;
    for (int k = 0; k < NCASE; k++) {
        const Case *c = &cases[k];
        m += snprintf(cs + m, sizeof cs - (size_t)m,
                      "name=%s kind=%s lr=%.17g momentum=%.17g dampening=%.17g nesterov=%d "
                      "wd=%.17g beta1=%.17g beta2=%.17g eps=%.17g sched=%s warmup=%d total=%d "
                      "min_lr=%.17g clip=%.17g mask=%d bad=%d scaler=%d enabled=%d "
                      "init_scale=65536 growth=2 backoff=0.5 growth_interval=%d\n",
                      c->name, sim_optim_kind_name(c->kind), c->lr, c->momentum, c->dampening,
                      c->nesterov, c->wd, c->beta1, c->beta2, c->eps, sim_lr_kind_name(c->sched),
                      c->warmup, NSTEP, c->min_lr, c->clip, c->mask, c->bad, c->scaler,
                      c->enabled, c->growth_interval);
    }
    return torchref_write(dir, "cases.txt", cs, (size_t)m) ||
           torchref_write(dir, "p0.bin", d->p0, sizeof d->p0) ||
           torchref_write(dir, "grads.bin", d->grads[0], sizeof d->grads[0]) ||
           torchref_write(dir, "grads_bad.bin", d->grads[1], sizeof d->grads[1]) ||
           torchref_write(dir, "mask.bin", d->mask, sizeof d->mask) ||
           torchref_write(dir, "cast_in.bin", d->cast_in, sizeof d->cast_in);
}

static int read_result(const char *dir, int k, Result *r) {
    char name[64];
#define READ(suffix, field)                                                                  \
    (snprintf(name, sizeof name, "%d_%s.bin", k, suffix),                                    \
     torchref_read(dir, name, r->field, sizeof r->field))
    int nstate = cases[k].kind != SIM_OPTIM_SGD ? 2 : cases[k].momentum != 0 ? 1 : 0;
    return READ("params", params) || READ("norms", norms) || READ("lrs", lrs) ||
           READ("lrs_builtin", lrs_builtin) ||
           READ("steps", steps) || READ("scale", scale) || READ("tracker", tracker) ||
           READ("stepped", stepped) ||
           (snprintf(name, sizeof name, "%d_state.bin", k),
            torchref_read(dir, name, r->state, (size_t)nstate * P * sizeof(float)));
#undef READ
}

// One case on rank r: the training loop of the reference script, with the
// scaler disabled when the case has none (then every call passes through).
static SimStatus run_case(SimRank *r, Data *d, int k, SimTensor *param, SimTensor *grad) {
    const Case *c = &cases[k];
    Result *res = &d->got[k];
    SimOptimOptions oo;
    sim_optim_options_default(&oo);
    oo.kind = c->kind;
    oo.lr = c->lr;
    oo.weight_decay = c->wd;
    if (c->kind == SIM_OPTIM_SGD) {
        oo.momentum = c->momentum;
        oo.dampening = c->dampening;
        oo.nesterov = c->nesterov;
    } else {
        oo.beta1 = c->beta1;
        oo.beta2 = c->beta2;
        oo.eps = c->eps;
    }
    SimLrOptions lo;
    sim_lr_options_default(&lo);
    lo.kind = c->sched;
    lo.warmup = c->warmup;
    lo.min_lr = c->min_lr;
    SimAmpOptions ao;
    sim_amp_options_default(&ao);
    ao.amp = c->enabled ? SIM_FP16 : SIM_FP32;
    ao.growth_interval = c->growth_interval;
    SimLrSchedule sched;
    SimGradScaler sc;
    SimOptim o;
    memset(&o, 0, sizeof o);
    if (sim_optim_options_validate(&oo, r->error, sizeof r->error) != SIM_OK ||
        sim_amp_options_validate(&ao, r->error, sizeof r->error) != SIM_OK ||
        sim_lr_schedule_make(&sched, &lo, c->lr, 1, 1, NSTEP, r->error, sizeof r->error) !=
            SIM_OK)
        return SIM_EINVAL;
    sim_scaler_init(&sc, &ao, sim_amp_needs_scaler(&ao));
    SimStatus st = sim_tensor_upload(r, param, d->p0);
    if (st == SIM_OK)
        st = sim_optim_init(&o, r, &oo, param, grad, d->info, NPARAM);
    for (int s = 0; st == SIM_OK && s < NSTEP; s++) {
        const uint8_t *has = c->mask ? d->mask[s] : NULL;
        float g[P], factor = sim_scaler_get_scale(&sc); // "backward" of loss * scale
        for (int i = 0; i < P; i++)
            g[i] = d->grads[c->bad][s][i] * factor;
        int stepped = 0;
        res->lrs[s] = sim_lr_at(&sched, s);
        st = sim_tensor_upload(r, grad, g);
        if (st == SIM_OK)
            st = sim_scaler_unscale(&sc, r, grad, d->info, NPARAM, has);
        if (st == SIM_OK && c->clip > 0)
            st = sim_clip_grad_norm(r, grad, d->info, NPARAM, has, c->clip, &res->norms[s]);
        if (st == SIM_OK)
            st = sim_scaler_step(&sc, r, &o, res->lrs[s], has, &stepped);
        if (st == SIM_OK)
            st = sim_scaler_update(&sc, r);
        res->scale[s] = sim_scaler_get_scale(&sc);
        res->tracker[s] = sc.growth_tracker;
        res->stepped[s] = (uint8_t)stepped;
    }
    if (st == SIM_OK)
        st = sim_tensor_download(r, param, res->params);
    for (int j = 0; st == SIM_OK && j < o.nstate; j++)
        st = sim_tensor_download(r, &o.state[j], res->state + (size_t)j * P);
    for (int i = 0; st == SIM_OK && i < NPARAM; i++)
        res->steps[i] = o.param_steps[i];
    sim_optim_free(&o, r);
    return st;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    Data *d = arg;
    int64_t shape[1] = {P};
    SimTensor param, grad;
    sim_tensor_init(&param, "param", SIM_FP32, 1, shape);
    sim_tensor_init(&grad, "grad", SIM_FP32, 1, shape);
    SimStatus st = sim_tensor_alloc(r, &param, 0);
    if (st == SIM_OK)
        st = sim_tensor_alloc(r, &grad, 0);
    for (int k = 0; st == SIM_OK && k < NCASE; k++)
        st = run_case(r, d, k, &param, &grad);
    // The underflow check: fp32 -> fp16 -> fp32 through the backend's cast.
    int64_t cshape[1] = {NCAST};
    SimTensor f32, f16;
    sim_tensor_init(&f32, "cast32", SIM_FP32, 1, cshape);
    sim_tensor_init(&f16, "cast16", SIM_FP16, 1, cshape);
    if (st == SIM_OK && (st = sim_tensor_alloc(r, &f32, 0)) == SIM_OK) {
        if ((st = sim_tensor_alloc(r, &f16, 0)) == SIM_OK) {
            if ((st = sim_tensor_upload(r, &f32, d->cast_in)) == SIM_OK &&
                (st = sim_op_cast(r, &f16, &f32)) == SIM_OK &&
                (st = sim_op_cast(r, &f32, &f16)) == SIM_OK)
                st = sim_tensor_download(r, &f32, d->cast_out);
            sim_tensor_free(r, &f16);
        }
        sim_tensor_free(r, &f32);
    }
    if (grad.data)
        sim_tensor_free(r, &grad);
    if (param.data)
        sim_tensor_free(r, &param);
    return st;
}

// a and b agree: both NaN, equal infinities, or within tol relative to
// max(|b|, floor).
static int close_to(double a, double b, double tol, double floor) {
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    double den = fabs(b) > floor ? fabs(b) : floor;
    return fabs(a - b) / den <= tol;
}

static int compare_floats(const char *what, const char *name, const float *got,
                          const float *want, size_t n, double tol, double floor) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        if (!close_to(got[i], want[i], tol, floor)) {
            fprintf(stderr, "%s: %s[%zu] = %.9g, torch %.9g (tolerance %g)\n", name, what, i,
                    (double)got[i], (double)want[i], tol);
            return 1;
        }
        if (isfinite(want[i]))
            worst = fmax(worst, fabs((double)got[i] - want[i]) /
                                    fmax(fabs((double)want[i]), floor));
    }
    printf("  %-22s %-7s max rel diff %.3g\n", name, what, worst);
    return 0;
}

// Final parameters and state: 1e-6 relative to max(|torch|, 1e-2).
#define TOL 1e-6
#define FLOOR 1e-2

static int compare_case(int k, const Result *got, const Result *want) {
    const Case *c = &cases[k];
    int nstate = c->kind != SIM_OPTIM_SGD ? 2 : c->momentum != 0 ? 1 : 0;
    for (int s = 0; s < NSTEP; s++) {
        if (got->lrs[s] != want->lrs[s] ||
            !close_to(got->lrs[s], want->lrs_builtin[s], 1e-13, 1e-30)) {
            fprintf(stderr, "%s: lr of step %d = %.17g, torch LambdaLR %.17g, built-in %.17g\n",
                    c->name, s, got->lrs[s], want->lrs[s], want->lrs_builtin[s]);
            return 1;
        }
    }
    if (compare_floats("params", c->name, got->params, want->params, P, TOL, FLOOR) ||
        compare_floats("state", c->name, got->state, want->state, (size_t)nstate * P, TOL,
                       FLOOR))
        return 1;
    if (c->clip > 0 && compare_floats("norms", c->name, got->norms, want->norms, NSTEP, TOL, 1e-6))
        return 1;
    for (int i = 0; i < NPARAM; i++)
        CHECK_EQ_INT(got->steps[i], want->steps[i]);
    for (int s = 0; s < NSTEP; s++) {
        CHECK_EQ_INT(got->stepped[s], want->stepped[s]);
        CHECK_EQ_INT(got->tracker[s], want->tracker[s]);
        CHECK(got->scale[s] == want->scale[s]);
    }
    return 0;
}

// The scaler cases must really exercise growth, backoff and skipped steps.
static int check_scaler_story(const Result *r) {
    CHECK(r->scale[2] == 131072.0f); // three good steps with growth_interval 3
    CHECK_EQ_INT(r->stepped[4], 0);  // inf
    CHECK(r->scale[4] == 65536.0f);  // backoff
    CHECK_EQ_INT(r->stepped[8], 0);  // NaN
    CHECK_EQ_INT(r->stepped[9], 0);  // -inf
    CHECK_EQ_INT(r->stepped[10], 1);
    CHECK(isinf(r->norms[4]) && isnan(r->norms[8]));
    return 0;
}

int main(void) {
    if (!torchref_available())
        return 77;
    static Data d;
    make_data(&d);
    char dir[512];
    CHECK(torchref_tmpdir(dir, sizeof dir) == 0);
    int failures = 0;
    const char *args[] = {dir, NULL};
    if (write_inputs(dir, &d) != 0 || torchref_run("optim_ref.py", args) != 0) {
        fprintf(stderr, "the reference script failed\n");
        torchref_rmdir(dir);
        return 1;
    }
    static Result want[NCASE];
    float cast_want[NCAST];
    for (int k = 0; k < NCASE; k++) {
        if (read_result(dir, k, &want[k]) != 0) {
            fprintf(stderr, "case %s: missing reference output\n", cases[k].name);
            failures++;
        }
    }
    if (torchref_read(dir, "cast_out.bin", cast_want, sizeof cast_want) != 0)
        failures++;
    torchref_rmdir(dir);
    if (failures)
        return 1;
    if (tworld_run_cpu(1, 0, rank_main, &d) != SIM_OK)
        return 1;
    for (int k = 0; k < NCASE; k++) {
        int rc = compare_case(k, &d.got[k], &want[k]);
        printf("%s %s\n", rc == 0 ? "ok    " : "FAILED", cases[k].name);
        failures += rc != 0;
    }
    for (int k = 0; k < NCASE; k++) {
        if (strcmp(cases[k].name, "scaler_sgd") == 0)
            failures += check_scaler_story(&want[k]) != 0 || check_scaler_story(&d.got[k]) != 0;
    }
    // Underflow: 1e-8 is 0 in fp16, 1e-8 * 65536 survives; bit-equal to torch's .half().
    CHECK(memcmp(d.cast_out, cast_want, sizeof cast_want) == 0);
    CHECK(d.cast_out[0] == 0.0f && d.cast_out[1] > 0.0f && isinf(d.cast_out[3]));
    CHECK_NEAR(d.cast_out[1] / 65536.0f, 1e-8, 1e-8 * 1e-3);
    printf("%s\n", failures ? "FAILED" : "all optimizer cases match PyTorch");
    return failures ? 1 : 0;
}
