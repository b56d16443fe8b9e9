// sim/model/lr_schedule.c: learning-rate schedules (see lr_schedule.h for the
// formulas) and the linear scaling rule. Pure functions: the learning rate
// of a step depends on nothing but the schedule and the step, so a resumed
// run needs only its step counter.
#include "model/lr_schedule.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail

#define LR_PI 3.14159265358979323846 // the double nearest pi, as Python's math.pi

static const char *const kind_names[SIM_LR_KIND_COUNT] = {"constant", "cosine", "linear"};

const char *sim_lr_kind_name(SimLrKind k) {
    return (k >= 0 && k < SIM_LR_KIND_COUNT) ? kind_names[k] : NULL;
}

int sim_lr_kind_parse(const char *s, SimLrKind *out) {
    for (int k = 0; s && k < SIM_LR_KIND_COUNT; k++) {
        if (strcmp(s, kind_names[k]) == 0) {
            *out = (SimLrKind)k;
            return 0;
        }
    }
    return -1;
}

void sim_lr_options_default(SimLrOptions *o) {
    o->kind = SIM_LR_CONSTANT;
    o->warmup = 0;
    o->min_lr = 0;
    o->scale_linear = 0;
}

double sim_lr_scaled(const SimLrOptions *o, double lr, int world, int accum) {
    return o->scale_linear ? lr * world * accum : lr;
}

const char *sim_lr_scale_sentence(const SimLrOptions *o, double lr, int world, int accum,
                                  char *buf, size_t len) {
    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (o->scale_linear)
        snprintf(buf, len, "lr %g x %d rank%s x %d accumulation step%s = %g (linear scaling rule)",
                 lr, world, world == 1 ? "" : "s", accum, accum == 1 ? "" : "s",
                 sim_lr_scaled(o, lr, world, accum));
    return buf;
}

SimStatus sim_lr_schedule_make(SimLrSchedule *s, const SimLrOptions *o, double lr, int world,
                               int accum, int64_t total, char *err, size_t errlen) {
    if (!sim_lr_kind_name(o->kind))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--lr-schedule: unknown kind %d; allowed: constant, cosine, linear",
                               (int)o->kind);
    if (!(isfinite(lr) && lr >= 0))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "--lr: '%g' is not a number >= 0", lr);
    if (world < 1 || accum < 1)
        return sim_errbuf_fail(
            err, errlen, SIM_EINVAL,
            "--lr-scale: needs at least 1 rank and 1 accumulation step (got %d and %d)", world,
            accum);
    if (o->warmup < 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--warmup: '%lld' is negative; allowed: a whole number >= 0",
                               (long long)o->warmup);
    double base = sim_lr_scaled(o, lr, world, accum);
    if (!(isfinite(o->min_lr) && o->min_lr >= 0))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "--min-lr: '%g' is not a number >= 0",
                               o->min_lr);
    if (o->kind != SIM_LR_CONSTANT) {
        if (o->min_lr > base)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "--min-lr: '%g' is larger than the learning rate (%g)",
                                   o->min_lr, base);
        if (total < 1)
            return sim_errbuf_fail(
                err, errlen, SIM_EINVAL,
                "--lr-schedule: %s needs the number of steps of the run (got %lld)",
                kind_names[o->kind], (long long)total);
    }
    s->kind = o->kind;
    s->base_lr = base;
    s->warmup = o->warmup;
    s->total = total;
    s->min_lr = o->min_lr;
    return SIM_OK;
}

double sim_lr_factor(const SimLrSchedule *s, int64_t step) {
    if (step < s->warmup)
        return (double)(step + 1) / (double)s->warmup;
    if (s->kind == SIM_LR_CONSTANT)
        return 1.0;
    double m = s->base_lr > 0 ? s->min_lr / s->base_lr : 0.0;
    int64_t span = s->total - s->warmup;
    double p = span > 0 ? (double)(step - s->warmup) / (double)span : 1.0;
    if (p > 1.0)
        p = 1.0;
    if (s->kind == SIM_LR_COSINE)
        return m + (1.0 - m) * 0.5 * (1.0 + cos(LR_PI * p));
    return m + (1.0 - m) * (1.0 - p);
}

double sim_lr_at(const SimLrSchedule *s, int64_t step) {
    return s->base_lr * sim_lr_factor(s, step);
}
