// sim/model/optim_options.c: the optimizers' hyperparameters: names, defaults and
// the checks torch's constructors make (torch.optim.SGD, Adam, AdamW in
// PyTorch 1.13), with messages that name the command-line option.
#include "model/optim.h"

#include <math.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail

static const char *const kind_names[SIM_OPTIM_COUNT] = {"sgd", "adam", "adamw"};

const char *sim_optim_kind_name(SimOptimKind k) {
    return (k >= 0 && k < SIM_OPTIM_COUNT) ? kind_names[k] : NULL;
}

int sim_optim_kind_parse(const char *s, SimOptimKind *out) {
    for (int k = 0; s && k < SIM_OPTIM_COUNT; k++) {
        if (strcmp(s, kind_names[k]) == 0) {
            *out = (SimOptimKind)k;
            return 0;
        }
    }
    return -1;
}

void sim_optim_options_default(SimOptimOptions *o) {
    // NAN marks "not given": defaults depend on the kind, and options given
    // for another kind are rejected by validate.
    o->kind = SIM_OPTIM_SGD;
    o->lr = NAN;
    o->weight_decay = NAN;
    o->momentum = NAN;
    o->dampening = NAN;
    o->nesterov = 0;
    o->beta1 = NAN;
    o->beta2 = NAN;
    o->eps = NAN;
}

// A given value must be finite and at least lo (or above lo when strict).
static SimStatus check_min(const char *opt, double v, double lo, int strict, char *err,
                           size_t errlen) {
    if (!isfinite(v))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--%s: '%g' is not a finite number; allowed: a number %s %g", opt, v,
                               strict ? ">" : ">=", lo);
    if (strict ? !(v > lo) : !(v >= lo))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "--%s: '%g' is %s; allowed: a number %s %g",
                               opt, v, v < 0 ? "negative" : "too small", strict ? ">" : ">=", lo);
    return SIM_OK;
}

static SimStatus check_beta(int index, double v, char *err, size_t errlen) {
    if (!(v >= 0 && v < 1))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--betas: beta%d '%g' is out of range; allowed: 0 <= beta < 1",
                               index + 1, v);
    return SIM_OK;
}

// Options of SGD given to Adam/AdamW, or the other way round.
static SimStatus check_unused(const SimOptimOptions *o, char *err, size_t errlen) {
    const char *kind = kind_names[o->kind];
    int sgd = o->kind == SIM_OPTIM_SGD;
    if (!sgd && !isnan(o->momentum))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--momentum: applies to --optimizer sgd only (this is %s)", kind);
    if (!sgd && !isnan(o->dampening))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--dampening: applies to --optimizer sgd only (this is %s)", kind);
    if (!sgd && o->nesterov)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--nesterov: applies to --optimizer sgd only (this is %s)", kind);
    if (sgd && (!isnan(o->beta1) || !isnan(o->beta2)))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--betas: applies to --optimizer adam or adamw only (this is sgd)");
    if (sgd && !isnan(o->eps))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--eps: applies to --optimizer adam or adamw only (this is sgd)");
    return SIM_OK;
}

static void fill_defaults(SimOptimOptions *o) {
    int sgd = o->kind == SIM_OPTIM_SGD;
    if (isnan(o->lr))
        o->lr = sgd ? 0.01 : 1e-3;
    if (isnan(o->weight_decay))
        o->weight_decay = o->kind == SIM_OPTIM_ADAMW ? 1e-2 : 0.0;
    if (sgd) {
        if (isnan(o->momentum))
            o->momentum = 0.0;
        if (isnan(o->dampening))
            o->dampening = 0.0;
    } else {
        if (isnan(o->beta1))
            o->beta1 = 0.9;
        if (isnan(o->beta2))
            o->beta2 = 0.999;
        if (isnan(o->eps))
            o->eps = 1e-8;
    }
}

SimStatus sim_optim_options_validate(SimOptimOptions *o, char *err, size_t errlen) {
    if (!sim_optim_kind_name(o->kind))
        return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                               "--optimizer: unknown kind %d; allowed: sgd, adam, adamw",
                               (int)o->kind);
    SimStatus st = check_unused(o, err, errlen);
    if (st != SIM_OK)
        return st;
    fill_defaults(o);
    if ((st = check_min("lr", o->lr, 0, 0, err, errlen)) != SIM_OK ||
        (st = check_min("weight-decay", o->weight_decay, 0, 0, err, errlen)) != SIM_OK)
        return st;
    if (o->kind == SIM_OPTIM_SGD) {
        if ((st = check_min("momentum", o->momentum, 0, 0, err, errlen)) != SIM_OK)
            return st;
        if (!isfinite(o->dampening))
            return sim_errbuf_fail(err, errlen, SIM_EINVAL,
                                   "--dampening: '%g' is not a finite number", o->dampening);
        if (o->nesterov && (o->momentum <= 0 || o->dampening != 0))
            return sim_errbuf_fail(
                err, errlen, SIM_EINVAL,
                "--nesterov: needs --momentum > 0 and --dampening 0 (got momentum %g, "
                "dampening %g)",
                o->momentum, o->dampening);
        return SIM_OK;
    }
    if ((st = check_beta(0, o->beta1, err, errlen)) != SIM_OK ||
        (st = check_beta(1, o->beta2, err, errlen)) != SIM_OK)
        return st;
    return check_min("eps", o->eps, 0, 0, err, errlen);
}
