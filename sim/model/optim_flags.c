// sim/model/optim_flags.c: parsing the optimizer family's command-line options
// (see optim_flags.h). Each value is checked when it is set, so the message
// can quote the text the user typed; checks between options (nesterov needs
// momentum, options of another optimizer) run in sim_optim_flags_validate.
#include "model/optim_flags.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail

enum {
    F_OPTIMIZER, F_LR, F_MOMENTUM, F_DAMPENING, F_NESTEROV, F_BETAS, F_EPS, F_WEIGHT_DECAY,
    F_SCHEDULE, F_WARMUP, F_MIN_LR, F_LR_SCALE, F_CLIP, F_AMP, F_INIT_SCALE, F_GROWTH_INTERVAL,
    F_COUNT
};

static const SimOptimFlagInfo flags[F_COUNT] = {
    [F_OPTIMIZER] = {"optimizer", "sgd|adam|adamw", "optimizer (default sgd)"},
    [F_LR] = {"lr", "X", "learning rate (default: sgd 0.01, adam and adamw 0.001)"},
    [F_MOMENTUM] = {"momentum", "X", "sgd momentum (default 0)"},
    [F_DAMPENING] = {"dampening", "X", "sgd dampening of the momentum (default 0)"},
    [F_NESTEROV] = {"nesterov", NULL, "sgd with Nesterov momentum (needs --momentum > 0)"},
    [F_BETAS] = {"betas", "B1,B2", "adam/adamw moment decay rates (default 0.9,0.999)"},
    [F_EPS] = {"eps", "X", "adam/adamw term added to the denominator (default 1e-8)"},
    [F_WEIGHT_DECAY] = {"weight-decay", "X",
                        "L2 penalty; decoupled for adamw (default: adamw 0.01, others 0)"},
    [F_SCHEDULE] = {"lr-schedule", "constant|cosine|linear",
                    "learning rate after the warmup (default constant)"},
    [F_WARMUP] = {"warmup", "N", "steps of linear learning-rate warmup (default 0)"},
    [F_MIN_LR] = {"min-lr", "X", "learning rate that cosine and linear decay reach (default 0)"},
    [F_LR_SCALE] = {"lr-scale", "none|linear",
                    "linear: lr x ranks x accumulation steps (default none)"},
    [F_CLIP] = {"clip-grad-norm", "X", "clip gradients to this global 2-norm (default off)"},
    [F_AMP] = {"amp", "off|fp16|bf16", "mixed precision; fp16 adds a loss scaler (default off)"},
    [F_INIT_SCALE] = {"init-scale", "X", "fp16 initial loss scale (default 65536)"},
    [F_GROWTH_INTERVAL] = {"growth-interval", "N",
                           "fp16: good steps before the loss scale doubles (default 2000)"},
};

void sim_optim_flags_default(SimOptimFlags *f) {
    sim_optim_options_default(&f->optim);
    sim_lr_options_default(&f->lr);
    sim_amp_options_default(&f->amp);
    f->clip_grad_norm = 0;
}

const SimOptimFlagInfo *sim_optim_flags_table(int *n) {
    *n = F_COUNT;
    return flags;
}

static int flag_index(const char *name) {
    if (!name)
        return -1;
    if (strncmp(name, "--", 2) == 0)
        name += 2;
    for (int i = 0; i < F_COUNT; i++) {
        if (strcmp(flags[i].name, name) == 0)
            return i;
    }
    return -1;
}

const SimOptimFlagInfo *sim_optim_flags_find(const char *name) {
    int i = flag_index(name);
    return i < 0 ? NULL : &flags[i];
}

// A finite number >= lo (> lo when strict), the whole text.
static SimStatus parse_num(int fi, const char *v, double lo, int strict, double *out, char *err,
                           size_t errlen) {
    const char *name = flags[fi].name, *rel = strict ? ">" : ">=";
    char *end = NULL;
    errno = 0;
    double x = v ? strtod(v, &end) : 0;
    if (!v || end == v || *end != '\0' || errno == ERANGE || !isfinite(x))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--%s: '%s' is not a number; allowed: a number %s %g", name,
                               v ? v : "", rel, lo);
    if (strict ? !(x > lo) : !(x >= lo))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "--%s: '%s' is %s; allowed: a number %s %g",
                               name, v, x < 0 ? "negative" : "too small", rel, lo);
    *out = x;
    return SIM_OK;
}

static SimStatus parse_whole(int fi, const char *v, long long lo, long long hi, long long *out,
                             char *err, size_t errlen) {
    char *end = NULL;
    errno = 0;
    long long x = v ? strtoll(v, &end, 10) : 0;
    if (!v || end == v || *end != '\0' || errno == ERANGE || x < lo || x > hi)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--%s: '%s' is not allowed; allowed: a whole number from %lld "
                               "to %lld",
                               flags[fi].name, v ? v : "", lo, hi);
    *out = x;
    return SIM_OK;
}

static SimStatus parse_betas(const char *v, SimOptimOptions *o, char *err, size_t errlen) {
    char *end = NULL;
    double b[2];
    const char *p = v ? v : "";
    for (int k = 0; k < 2; k++) {
        errno = 0;
        b[k] = strtod(p, &end);
        int sep_ok = k == 0 ? *end == ',' : *end == '\0';
        if (end == p || !sep_ok || errno == ERANGE)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "--betas: '%s' is not two numbers; allowed: B1,B2 with "
                                   "0 <= B < 1, e.g. 0.9,0.999",
                                   v ? v : "");
        if (!(b[k] >= 0 && b[k] < 1))
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "--betas: '%s': beta%d is out of range; allowed: "
                                   "0 <= B < 1",
                                   v, k + 1);
        p = end + 1;
    }
    o->beta1 = b[0];
    o->beta2 = b[1];
    return SIM_OK;
}

static SimStatus parse_choice(int fi, const char *v, int ok, char *err, size_t errlen) {
    if (ok)
        return SIM_OK;
    return sim_errbuf_fail(err, errlen, SIM_EINVAL, "--%s: '%s' is not allowed; allowed: %s",
                           flags[fi].name, v ? v : "", flags[fi].metavar);
}

SimStatus sim_optim_flags_set(SimOptimFlags *f, const char *name, const char *value, char *err,
                              size_t errlen) {
    int fi = flag_index(name);
    SimOptimOptions *o = &f->optim;
    long long w = 0;
    double x = 0;
    SimStatus st;
    switch (fi) {
    case F_OPTIMIZER:
        return parse_choice(fi, value, sim_optim_kind_parse(value, &o->kind) == 0, err, errlen);
    case F_LR: return parse_num(fi, value, 0, 0, &o->lr, err, errlen);
    case F_MOMENTUM: return parse_num(fi, value, 0, 0, &o->momentum, err, errlen);
    case F_DAMPENING:
        if ((st = parse_num(fi, value, 0, 0, &x, err, errlen)) != SIM_OK)
            return st;
        if (x > 1) // torch allows it, but it would turn the gradient around
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "--dampening: '%s' is above 1; allowed: 0 to 1", value);
        o->dampening = x;
        return SIM_OK;
    case F_NESTEROV: o->nesterov = 1; return SIM_OK;
    case F_BETAS: return parse_betas(value, o, err, errlen);
    case F_EPS: return parse_num(fi, value, 0, 0, &o->eps, err, errlen);
    case F_WEIGHT_DECAY: return parse_num(fi, value, 0, 0, &o->weight_decay, err, errlen);
    case F_SCHEDULE:
        return parse_choice(fi, value, sim_lr_kind_parse(value, &f->lr.kind) == 0, err, errlen);
    case F_WARMUP:
        st = parse_whole(fi, value, 0, 1LL << 40, &w, err, errlen);
        f->lr.warmup = st == SIM_OK ? (int64_t)w : f->lr.warmup;
        return st;
    case F_MIN_LR: return parse_num(fi, value, 0, 0, &f->lr.min_lr, err, errlen);
    case F_LR_SCALE: {
        int lin = value && strcmp(value, "linear") == 0;
        st = parse_choice(fi, value, lin || (value && strcmp(value, "none") == 0), err, errlen);
        f->lr.scale_linear = st == SIM_OK ? lin : f->lr.scale_linear;
        return st;
    }
    case F_CLIP: return parse_num(fi, value, 0, 1, &f->clip_grad_norm, err, errlen);
    case F_AMP: return parse_choice(fi, value, sim_amp_parse(value, &f->amp.amp) == 0, err, errlen);
    case F_INIT_SCALE:
        if ((st = parse_num(fi, value, 0, 1, &x, err, errlen)) != SIM_OK)
            return st;
        if (x > FLT_MAX)
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "--init-scale: '%s' does not fit in fp32; allowed: a "
                                   "number > 0 up to %g",
                                   value, (double)FLT_MAX);
        f->amp.init_scale = x;
        return SIM_OK;
    case F_GROWTH_INTERVAL:
        st = parse_whole(fi, value, 1, 1000000000, &w, err, errlen);
        f->amp.growth_interval = st == SIM_OK ? (int)w : f->amp.growth_interval;
        return st;
    default:
        return sim_errbuf_fail(err, errlen, SIM_ENOTSUP, "'%s' is not an optimizer option",
                               name ? name : "");
    }
}

SimStatus sim_optim_flags_validate(SimOptimFlags *f, char *err, size_t errlen) {
    SIM_CHECK(sim_optim_options_validate(&f->optim, err, errlen));
    SIM_CHECK(sim_amp_options_validate(&f->amp, err, errlen));
    if (!(isfinite(f->clip_grad_norm) && f->clip_grad_norm >= 0))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--clip-grad-norm: '%g' is not allowed; allowed: a number > 0",
                               f->clip_grad_norm);
    if (f->lr.warmup < 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--warmup: '%lld' is negative; allowed: a whole number >= 0",
                               (long long)f->lr.warmup);
    if (!(isfinite(f->lr.min_lr) && f->lr.min_lr >= 0))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--min-lr: '%g' is not allowed; allowed: a number >= 0",
                               f->lr.min_lr);
    if (!sim_lr_kind_name(f->lr.kind))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--lr-schedule: unknown kind; allowed: constant, cosine, linear");
    return SIM_OK;
}
