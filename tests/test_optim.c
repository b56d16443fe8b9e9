// tests/test_optim.c: the optimizer family's pure parts: command-line
// options (defaults per optimizer, every bad value rejected with a message
// naming the option), learning-rate schedules at chosen steps, the linear
// scaling rule's sentence, clip_grad_norm_'s coefficient, and the loss
// scaler's update rule and stage checks.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/grad_scaler.h"
#include "model/lr_schedule.h"
#include "model/optim.h"
#include "model/optim_flags.h"

static SimStatus set(SimOptimFlags *f, const char *name, const char *value) {
    char err[256];
    return sim_optim_flags_set(f, name, value, err, sizeof err);
}

static int test_defaults(void) {
    char err[256] = "";
    SimOptimFlags f;
    sim_optim_flags_default(&f);
    CHECK_EQ_INT(sim_optim_flags_validate(&f, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(f.optim.kind, SIM_OPTIM_SGD);
    CHECK(f.optim.lr == 0.01 && f.optim.momentum == 0 && f.optim.dampening == 0);
    CHECK(f.optim.weight_decay == 0 && f.optim.nesterov == 0);
    CHECK(f.amp.amp == SIM_FP32 && !sim_amp_needs_scaler(&f.amp));
    CHECK(f.amp.init_scale == 65536 && f.amp.growth_factor == 2 && f.amp.backoff_factor == 0.5);
    CHECK_EQ_INT(f.amp.growth_interval, 2000);
    CHECK(f.clip_grad_norm == 0 && f.lr.kind == SIM_LR_CONSTANT && f.lr.warmup == 0);

    sim_optim_flags_default(&f);
    CHECK_EQ_INT(set(&f, "--optimizer", "adamw"), SIM_OK);
    CHECK_EQ_INT(sim_optim_flags_validate(&f, err, sizeof err), SIM_OK);
    CHECK(f.optim.lr == 1e-3 && f.optim.weight_decay == 1e-2);
    CHECK(f.optim.beta1 == 0.9 && f.optim.beta2 == 0.999 && f.optim.eps == 1e-8);

    sim_optim_flags_default(&f);
    CHECK_EQ_INT(set(&f, "optimizer", "adam"), SIM_OK); // with or without dashes
    CHECK_EQ_INT(set(&f, "--betas", "0.8,0.99"), SIM_OK);
    CHECK_EQ_INT(set(&f, "--amp", "fp16"), SIM_OK);
    CHECK_EQ_INT(set(&f, "--lr-scale", "linear"), SIM_OK);
    CHECK_EQ_INT(set(&f, "--clip-grad-norm", "1.5"), SIM_OK);
    CHECK_EQ_INT(sim_optim_flags_validate(&f, err, sizeof err), SIM_OK);
    CHECK(f.optim.lr == 1e-3 && f.optim.weight_decay == 0 && f.optim.beta1 == 0.8);
    CHECK(f.optim.beta2 == 0.99 && f.lr.scale_linear == 1 && f.clip_grad_norm == 1.5);
    CHECK(f.amp.amp == SIM_FP16 && sim_amp_needs_scaler(&f.amp));

    sim_optim_flags_default(&f);
    CHECK_EQ_INT(set(&f, "--momentum", "0.9"), SIM_OK);
    CHECK_EQ_INT(set(&f, "--nesterov", NULL), SIM_OK);
    CHECK_EQ_INT(set(&f, "--amp", "bf16"), SIM_OK);
    CHECK_EQ_INT(sim_optim_flags_validate(&f, err, sizeof err), SIM_OK);
    CHECK(f.optim.nesterov == 1 && f.optim.momentum == 0.9);
    CHECK(f.amp.amp == SIM_BF16 && !sim_amp_needs_scaler(&f.amp)); // bf16: no scaler

    int n = 0;
    const SimOptimFlagInfo *t = sim_optim_flags_table(&n);
    CHECK(n >= 16 && sim_optim_flags_find("--nesterov") != NULL);
    CHECK(sim_optim_flags_find("nesterov")->metavar == NULL && t[0].metavar != NULL);
    CHECK(sim_optim_flags_find("--steps") == NULL);
    return 0;
}

// A bad value for one option: rejected at once, with a message naming it.
static int test_bad_values(void) {
    static const struct {
        const char *name, *value, *says;
    } bad[] = {
        {"--lr", "-0.1", "--lr: '-0.1' is negative"},
        {"--lr", "abc", "--lr: 'abc' is not a number"},
        {"--lr", "1e999", "--lr: '1e999' is not a number"},
        {"--lr", "nan", "--lr: 'nan' is not a number"},
        {"--lr", "", "--lr: '' is not a number"},
        {"--momentum", "-1", "--momentum: '-1' is negative"},
        {"--dampening", "1.5", "--dampening: '1.5' is above 1"},
        {"--weight-decay", "-0.01", "--weight-decay: '-0.01' is negative"},
        {"--eps", "-1e-8", "--eps: '-1e-8' is negative"},
        {"--betas", "0.9", "--betas: '0.9' is not two numbers"},
        {"--betas", "0.9,1.0", "beta2 is out of range"},
        {"--betas", "-0.1,0.9", "beta1 is out of range"},
        {"--betas", "0.9,0.99,0.5", "is not two numbers"},
        {"--optimizer", "lamb", "--optimizer: 'lamb' is not allowed; allowed: sgd|adam|adamw"},
        {"--lr-schedule", "step", "--lr-schedule: 'step' is not allowed"},
        {"--warmup", "-5", "--warmup: '-5' is not allowed"},
        {"--warmup", "2.5", "--warmup: '2.5' is not allowed"},
        {"--min-lr", "-1", "--min-lr: '-1' is negative"},
        {"--lr-scale", "sqrt", "--lr-scale: 'sqrt' is not allowed; allowed: none|linear"},
        {"--clip-grad-norm", "0", "--clip-grad-norm: '0' is too small"},
        {"--clip-grad-norm", "-1", "--clip-grad-norm: '-1' is negative"},
        {"--amp", "fp8", "--amp: 'fp8' is not allowed; allowed: off|fp16|bf16"},
        {"--init-scale", "0", "--init-scale: '0' is too small"},
        {"--init-scale", "1e39", "does not fit in fp32"},
        {"--growth-interval", "0", "--growth-interval: '0' is not allowed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SimOptimFlags f, before;
        char err[256] = "";
        memset(&f, 0, sizeof f); // padding too, for the memcmp below
        sim_optim_flags_default(&f);
        memcpy(&before, &f, sizeof f);
        SimStatus st = sim_optim_flags_set(&f, bad[i].name, bad[i].value, err, sizeof err);
        if (st != SIM_EINVAL || !strstr(err, bad[i].says)) {
            fprintf(stderr, "%s '%s': status %d, message \"%s\"; expected \"%s\"\n", bad[i].name,
                    bad[i].value, (int)st, err, bad[i].says);
            return 1;
        }
        CHECK(strchr(err, '\n') == NULL); // one line
        CHECK(memcmp(&f, &before, sizeof f) == 0); // nothing was set
    }
    SimOptimFlags f;
    char err[256] = "";
    sim_optim_flags_default(&f);
    CHECK_EQ_INT(sim_optim_flags_set(&f, "--steps", "5", err, sizeof err), SIM_ENOTSUP);
    return 0;
}

// Combinations checked by validate, as torch's constructors do.
static int test_bad_combinations(void) {
    static const struct {
        const char *opt, *a, *av, *b, *bv, *says;
    } bad[] = {
        {"sgd", "--nesterov", NULL, NULL, NULL, "--nesterov: needs --momentum > 0"},
        {"sgd", "--nesterov", NULL, "--dampening", "0.1", "--nesterov: needs --momentum > 0 and "
                                                          "--dampening 0"},
        {"adam", "--momentum", "0.9", NULL, NULL, "--momentum: applies to --optimizer sgd only"},
        {"adamw", "--nesterov", NULL, NULL, NULL, "--nesterov: applies to --optimizer sgd only"},
        {"adam", "--dampening", "0.1", NULL, NULL, "--dampening: applies to --optimizer sgd"},
        {"sgd", "--betas", "0.9,0.99", NULL, NULL, "--betas: applies to --optimizer adam or adamw"},
        {"sgd", "--eps", "1e-6", NULL, NULL, "--eps: applies to --optimizer adam or adamw"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SimOptimFlags f;
        char err[256] = "";
        sim_optim_flags_default(&f);
        CHECK_EQ_INT(set(&f, "--optimizer", bad[i].opt), SIM_OK);
        CHECK_EQ_INT(set(&f, bad[i].a, bad[i].av), SIM_OK);
        if (bad[i].b)
            CHECK_EQ_INT(set(&f, bad[i].b, bad[i].bv), SIM_OK);
        CHECK_EQ_INT(sim_optim_flags_validate(&f, err, sizeof err), SIM_EINVAL);
        CHECK_STR_CONTAINS(err, bad[i].says);
    }
    // Values set directly (not parsed) are checked by validate too.
    SimOptimOptions o;
    char err[256] = "";
    sim_optim_options_default(&o);
    o.lr = -1;
    CHECK_EQ_INT(sim_optim_options_validate(&o, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--lr: '-1' is negative");
    sim_optim_options_default(&o);
    o.kind = SIM_OPTIM_ADAM;
    o.beta2 = 1.0;
    CHECK_EQ_INT(sim_optim_options_validate(&o, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--betas: beta2 '1' is out of range");
    SimAmpOptions a;
    sim_amp_options_default(&a);
    a.backoff_factor = 1.0;
    CHECK_EQ_INT(sim_amp_options_validate(&a, err, sizeof err), SIM_EINVAL);
    sim_amp_options_default(&a);
    a.growth_factor = 1.0;
    CHECK_EQ_INT(sim_amp_options_validate(&a, err, sizeof err), SIM_EINVAL);
    return 0;
}

static int test_schedules(void) {
    char err[256] = "";
    SimLrOptions o;
    SimLrSchedule s;
    sim_lr_options_default(&o);
    o.kind = SIM_LR_COSINE;
    o.warmup = 4;
    o.min_lr = 0.01;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 1, 1, 20, err, sizeof err), SIM_OK);
    CHECK_NEAR(sim_lr_at(&s, 0), 0.025, 1e-15); // (0 + 1) / 4
    CHECK_NEAR(sim_lr_at(&s, 1), 0.05, 1e-15);
    CHECK_NEAR(sim_lr_at(&s, 3), 0.1, 1e-15);   // warmup done on step warmup - 1
    CHECK_NEAR(sim_lr_at(&s, 4), 0.1, 1e-15);   // cosine starts at the top
    CHECK_NEAR(sim_lr_at(&s, 12), 0.055, 1e-15); // half way: (0.1 + 0.01) / 2
    CHECK_NEAR(sim_lr_at(&s, 8), 0.01 + 0.09 * 0.5 * (1 + cos(3.14159265358979323846 / 4)), 1e-15);
    CHECK_NEAR(sim_lr_at(&s, 20), 0.01, 1e-15); // reaches min_lr at total
    CHECK_NEAR(sim_lr_at(&s, 1000), 0.01, 1e-15); // and stays there
    CHECK_NEAR(sim_lr_factor(&s, 12), 0.55, 1e-15);

    o.kind = SIM_LR_LINEAR;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 1, 1, 20, err, sizeof err), SIM_OK);
    CHECK_NEAR(sim_lr_at(&s, 12), 0.055, 1e-15);
    CHECK_NEAR(sim_lr_at(&s, 16), 0.0325, 1e-15); // 3/4 of the way
    CHECK_NEAR(sim_lr_at(&s, 20), 0.01, 1e-15);

    o.kind = SIM_LR_CONSTANT; // linear warmup, then constant
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 1, 1, 0, err, sizeof err), SIM_OK);
    CHECK_NEAR(sim_lr_at(&s, 1), 0.05, 1e-15);
    CHECK(sim_lr_at(&s, 4) == 0.1 && sim_lr_at(&s, 100000) == 0.1);
    o.warmup = 0;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 1, 1, 0, err, sizeof err), SIM_OK);
    CHECK(sim_lr_at(&s, 0) == 0.1);

    // Scaling: the schedule runs on the scaled rate; min_lr is not scaled.
    o.kind = SIM_LR_COSINE;
    o.scale_linear = 1;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 4, 2, 10, err, sizeof err), SIM_OK);
    CHECK_NEAR(s.base_lr, 0.8, 1e-15);
    CHECK_NEAR(sim_lr_at(&s, 10), 0.01, 1e-15);

    // Bad schedules.
    sim_lr_options_default(&o);
    o.kind = SIM_LR_COSINE;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 1, 1, 0, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--lr-schedule: cosine needs the number of steps");
    o.min_lr = 0.5;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 1, 1, 10, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--min-lr: '0.5' is larger than the learning rate (0.1)");
    o.min_lr = 0;
    o.warmup = -1;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, 0.1, 1, 1, 10, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--warmup: '-1' is negative");
    o.warmup = 0;
    CHECK_EQ_INT(sim_lr_schedule_make(&s, &o, -0.1, 1, 1, 10, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "--lr:");
    return 0;
}

static int test_scaling_sentence(void) {
    char buf[160];
    SimLrOptions o;
    sim_lr_options_default(&o);
    CHECK(strcmp(sim_lr_scale_sentence(&o, 0.001, 4, 2, buf, sizeof buf), "") == 0);
    CHECK(sim_lr_scaled(&o, 0.001, 4, 2) == 0.001);
    o.scale_linear = 1;
    CHECK(strcmp(sim_lr_scale_sentence(&o, 0.001, 4, 2, buf, sizeof buf),
                 "lr 0.001 x 4 ranks x 2 accumulation steps = 0.008 (linear scaling rule)") == 0);
    CHECK(strcmp(sim_lr_scale_sentence(&o, 0.1, 1, 1, buf, sizeof buf),
                 "lr 0.1 x 1 rank x 1 accumulation step = 0.1 (linear scaling rule)") == 0);
    CHECK_NEAR(sim_lr_scaled(&o, 0.001, 4, 2), 0.008, 1e-18);
    return 0;
}

static int test_clip_coef(void) {
    CHECK(sim_clip_coef(0.0f, 1.0) == 1.0f);   // clamped
    CHECK(sim_clip_coef(0.5f, 1.0) == 1.0f);
    CHECK(sim_clip_coef(10.0f, 1.0) == (1.0f / (10.0f + 1e-6f)) * 1.0f);
    CHECK_NEAR(sim_clip_coef(10.0f, 2.5), 0.25, 1e-7);
    CHECK(sim_clip_coef(INFINITY, 1.0) == 0.0f); // inf norm: gradients to 0 (inf to NaN)
    CHECK(isnan(sim_clip_coef(NAN, 1.0)));       // NaN norm: NaN everywhere
    return 0;
}

// The update rule, step by step, against the documented behaviour.
static int test_scaler_rule(void) {
    float scale = 65536.0f;
    int tracker = 0;
    for (int i = 0; i < 3; i++) {
        sim_scaler_update_rule(&scale, &tracker, 0, 2.0, 0.5, 4);
        CHECK(scale == 65536.0f);
        CHECK_EQ_INT(tracker, i + 1);
    }
    sim_scaler_update_rule(&scale, &tracker, 0, 2.0, 0.5, 4); // 4th good step: grow
    CHECK(scale == 131072.0f);
    CHECK_EQ_INT(tracker, 0);
    sim_scaler_update_rule(&scale, &tracker, 0, 2.0, 0.5, 4);
    sim_scaler_update_rule(&scale, &tracker, 1, 2.0, 0.5, 4); // inf: back off, tracker reset
    CHECK(scale == 65536.0f);
    CHECK_EQ_INT(tracker, 0);
    for (int i = 0; i < 16; i++)
        sim_scaler_update_rule(&scale, &tracker, 1, 2.0, 0.5, 4);
    CHECK(scale == 1.0f); // backoff goes below 1 too, as torch's
    sim_scaler_update_rule(&scale, &tracker, 1, 2.0, 0.5, 4);
    CHECK(scale == 0.5f);
    // Growth that would overflow fp32 is not applied (the tracker still resets).
    scale = ldexpf(1.0f, 127);
    tracker = 0;
    sim_scaler_update_rule(&scale, &tracker, 0, 2.0, 0.5, 1);
    CHECK(scale == ldexpf(1.0f, 127) && tracker == 0);
    // A factor that is not a power of two rounds through double to fp32.
    scale = 3.0f;
    tracker = 0;
    sim_scaler_update_rule(&scale, &tracker, 1, 2.0, 0.1, 1);
    CHECK(scale == (float)(3.0 * 0.1));
    return 0;
}

static int test_scaler_states(void) {
    SimAmpOptions a;
    SimGradScaler s;
    sim_amp_options_default(&a);
    sim_scaler_init(&s, &a, sim_amp_needs_scaler(&a)); // amp off: disabled
    CHECK(s.enabled == 0 && sim_scaler_get_scale(&s) == 1.0f);
    CHECK_EQ_INT(sim_scaler_update(&s, NULL), SIM_OK); // no-op
    CHECK(sim_scaler_get_scale(&s) == 1.0f);
    a.amp = SIM_FP16;
    sim_scaler_init(&s, &a, sim_amp_needs_scaler(&a));
    CHECK(s.enabled == 1 && sim_scaler_get_scale(&s) == 65536.0f);
    // update() without an inf check since the last update is an error, as in torch.
    CHECK_EQ_INT(sim_scaler_update(&s, NULL), SIM_EINVAL);
    CHECK(sim_scaler_get_scale(&s) == 65536.0f);
    CHECK(strcmp(sim_amp_name(SIM_BF16), "bf16") == 0 && strcmp(sim_amp_name(SIM_FP32), "off") == 0);
    SimDtype dt;
    CHECK(sim_amp_parse("fp16", &dt) == 0 && dt == SIM_FP16);
    CHECK(sim_amp_parse("fp32", &dt) == -1);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_defaults);
    RUN(test_bad_values);
    RUN(test_bad_combinations);
    RUN(test_schedules);
    RUN(test_scaling_sentence);
    RUN(test_clip_coef);
    RUN(test_scaler_rule);
    RUN(test_scaler_states);
    return failures ? 1 : 0;
}
