// sim/engine/fault.c: parsing fault specs (sim/engine/fault.h) and the queries the engine
// makes while ranks run.
#include "engine/fault.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Which keys a kind takes: bits of KEY_*; REQ_* those it needs.
enum { KEY_RANK = 1, KEY_STEP = 2, KEY_COLL = 4, KEY_FACTOR = 8, KEY_AS = 16, KEY_PARAM = 32 };

typedef struct {
    const char *name;
    unsigned keys, required;
    const char *usage; // the spec's form for messages and --help
    const char *help;
} KindInfo;

static const KindInfo kinds[SIM_FAULT_KIND_COUNT] = {
    [SIM_FAULT_SKIP] = {"skip", KEY_RANK | KEY_STEP | KEY_COLL, KEY_RANK | KEY_STEP,
                        "skip:rank=R,step=S[,coll=K]",
                        "rank R never calls its K-th collective of step S"},
    [SIM_FAULT_MISMATCH] = {"mismatch", KEY_RANK | KEY_STEP | KEY_COLL | KEY_AS,
                            KEY_RANK | KEY_STEP, "mismatch:rank=R,step=S[,coll=K][,as=count|op]",
                            "rank R calls it with one element fewer, or as a broadcast"},
    [SIM_FAULT_REORDER] = {"reorder", KEY_RANK | KEY_STEP | KEY_COLL, KEY_RANK | KEY_STEP,
                           "reorder:rank=R,step=S[,coll=K]",
                           "rank R launches collectives K and K+1 the other way round"},
    [SIM_FAULT_CRASH] = {"crash", KEY_RANK | KEY_STEP | KEY_COLL, KEY_RANK | KEY_STEP,
                         "crash:rank=R,step=S[,coll=K]",
                         "rank R dies as it is about to launch that collective"},
    [SIM_FAULT_SLOW_RANK] = {"slow-rank", KEY_RANK | KEY_FACTOR | KEY_STEP,
                             KEY_RANK | KEY_FACTOR, "slow-rank:rank=R,factor=F[,step=S]",
                             "rank R computes F times slower (a straggler)"},
    [SIM_FAULT_SLOW_LINK] = {"slow-link", KEY_RANK | KEY_FACTOR, KEY_RANK | KEY_FACTOR,
                             "slow-link:rank=R,factor=F",
                             "transfers to and from rank R take F times as long"},
    [SIM_FAULT_UNUSED] = {"unused", KEY_RANK | KEY_PARAM | KEY_STEP, KEY_RANK,
                          "unused:rank=R[,param=NAME][,step=S]",
                          "parameter NAME gets no gradient on rank R only"},
    [SIM_FAULT_NO_SET_EPOCH] = {"no-set-epoch", 0, 0, "no-set-epoch",
                                "sampler.set_epoch is never called"},
    [SIM_FAULT_NO_SAMPLER] = {"no-sampler", 0, 0, "no-sampler",
                              "no DistributedSampler: every rank reads the same data"},
    [SIM_FAULT_LOSS_NOT_DIVIDED] = {"loss-not-divided", 0, 0, "loss-not-divided",
                                    "with --accum, the loss is not divided by accum"},
    [SIM_FAULT_SEEDS] = {"seeds", 0, 0, "seeds",
                         "ranks seed differently and skip the initial broadcast"},
    [SIM_FAULT_SAVE_CRASH] = {"save-crash", KEY_STEP, 0, "save-crash[:step=S]",
                              "the process is killed halfway through a checkpoint write"},
    [SIM_FAULT_SAME_RANK] = {"same-rank", 0, 0, "same-rank",
                             "every process reads RANK=0, as from a SLURM script's export"},
};

const char *sim_fault_kind_name(SimFaultKind k) {
    return (unsigned)k < SIM_FAULT_KIND_COUNT ? kinds[k].name : "?";
}

void sim_fault_help(FILE *out) {
    for (int k = 0; k < SIM_FAULT_KIND_COUNT; k++)
        fprintf(out, "%s\n  %s\n", kinds[k].usage, kinds[k].help);
}

static SimStatus fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static SimStatus fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return SIM_EINVAL;
}

static int kind_of(const char *name, size_t len) {
    for (int k = 0; k < SIM_FAULT_KIND_COUNT; k++)
        if (strlen(kinds[k].name) == len && strncmp(kinds[k].name, name, len) == 0)
            return k;
    return -1;
}

// A whole decimal integer in [lo, hi]; 0 on anything else.
static int parse_int(const char *s, long long lo, long long hi, long long *out) {
    if (*s == '\0' || *s == '+' || *s == ' ')
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

// One key=value (a NUL-terminated copy) into f. Returns the key bit, or 0
// with the message in err.
static unsigned parse_key(SimFault *f, char *kv, const char *spec, char *err, size_t errlen) {
    char *eq = strchr(kv, '=');
    if (eq == NULL) {
        fail(err, errlen, "--fault '%s': '%s' is not key=value (form: %s)", spec, kv,
             kinds[f->kind].usage);
        return 0;
    }
    *eq = '\0';
    const char *k = kv, *v = eq + 1;
    long long n;
    if (strcmp(k, "rank") == 0 && parse_int(v, 0, 1 << 20, &n)) {
        f->rank = (int)n;
        return KEY_RANK;
    }
    if (strcmp(k, "step") == 0 && parse_int(v, 1, INT64_MAX / 2, &n)) {
        f->step = n;
        return KEY_STEP;
    }
    if (strcmp(k, "coll") == 0 && parse_int(v, 0, 1 << 20, &n)) {
        f->coll = (int)n;
        return KEY_COLL;
    }
    if (strcmp(k, "factor") == 0) {
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (*v && !*end && !errno && isfinite(x) && x > 1 && x <= 1e6) {
            f->factor = x;
            return KEY_FACTOR;
        }
    }
    if (strcmp(k, "as") == 0 && (strcmp(v, "count") == 0 || strcmp(v, "op") == 0)) {
        f->as = strcmp(v, "op") == 0 ? SIM_FAULT_AS_OP : SIM_FAULT_AS_COUNT;
        return KEY_AS;
    }
    if (strcmp(k, "param") == 0 && *v && strlen(v) < sizeof f->param) {
        snprintf(f->param, sizeof f->param, "%s", v);
        return KEY_PARAM;
    }
    static const char *allowed[] = {"rank: 0 or more", "step: 1 or more", "coll: 0 or more",
                                    "factor: a number above 1 (at most 1e6)", "as: count or op",
                                    "param: a parameter name (under 96 characters)"};
    static const char *names[] = {"rank", "step", "coll", "factor", "as", "param"};
    for (int i = 0; i < 6; i++)
        if (strcmp(k, names[i]) == 0) {
            fail(err, errlen, "--fault '%s': %s=%s is not allowed (%s)", spec, k, v, allowed[i]);
            return 0;
        }
    fail(err, errlen, "--fault '%s': unknown key '%s' (form: %s)", spec, k, kinds[f->kind].usage);
    return 0;
}

static SimStatus parse_keys(SimFault *f, const char *list, const char *spec, char *err,
                            size_t errlen) {
    const KindInfo *ki = &kinds[f->kind];
    unsigned seen = 0;
    char buf[256];
    if (strlen(list) >= sizeof buf)
        return fail(err, errlen, "--fault '%.60s...': too long", spec);
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        unsigned bit = parse_key(f, kv, spec, err, errlen);
        if (bit == 0)
            return SIM_EINVAL;
        if (!(ki->keys & bit))
            return fail(err, errlen, "--fault '%s': %s takes no '%s' (form: %s)", spec, ki->name,
                        kv, ki->usage);
        if (seen & bit)
            return fail(err, errlen, "--fault '%s': '%s' given twice", spec, kv);
        seen |= bit;
    }
    if ((seen & ki->required) != ki->required)
        return fail(err, errlen, "--fault '%s': %s needs %s (form: %s)", spec, ki->name,
                    !(seen & KEY_RANK) && (ki->required & KEY_RANK) ? "rank="
                    : !(seen & KEY_STEP) && (ki->required & KEY_STEP) ? "step="
                                                                      : "factor=",
                    ki->usage);
    return SIM_OK;
}

SimStatus sim_fault_parse(SimFaultPlan *plan, const char *spec, char *err, size_t errlen) {
    if (spec == NULL || *spec == '\0')
        return fail(err, errlen, "--fault: empty (kinds: %s)",
                    "skip, mismatch, reorder, crash, slow-rank, slow-link, unused, "
                    "no-set-epoch, no-sampler, loss-not-divided, seeds, save-crash, same-rank");
    if (plan->n >= SIM_FAULT_MAX)
        return fail(err, errlen, "--fault '%s': at most %d faults", spec, SIM_FAULT_MAX);
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    int k = kind_of(spec, len);
    if (k < 0)
        return fail(err, errlen, "--fault '%s': unknown kind '%.*s' (kinds: skip, mismatch, "
                    "reorder, crash, slow-rank, slow-link, unused, no-set-epoch, no-sampler, "
                    "loss-not-divided, seeds, save-crash, same-rank)",
                    spec, (int)(len < 40 ? len : 40), spec);
    SimFault f;
    memset(&f, 0, sizeof f);
    f.kind = (SimFaultKind)k;
    f.rank = -1;
    f.factor = 1;
    snprintf(f.text, sizeof f.text, "%s", spec);
    if (colon && colon[1] == '\0')
        return fail(err, errlen, "--fault '%s': nothing after ':' (form: %s)", spec,
                    kinds[k].usage);
    if (colon)
        SIM_CHECK(parse_keys(&f, colon + 1, spec, err, errlen));
    else if (kinds[k].required)
        return fail(err, errlen, "--fault '%s': needs keys (form: %s)", spec, kinds[k].usage);
    plan->f[plan->n++] = f;
    return SIM_OK;
}

int sim_fault_at_one_coll(const SimFault *f) {
    return f->kind <= SIM_FAULT_CRASH;
}

// The kinds a plan holds once: a second one would never apply (the first
// save-crash kills the process; the others change the loop once and for all).
static int single_kind(SimFaultKind k) {
    return k == SIM_FAULT_NO_SET_EPOCH || k == SIM_FAULT_NO_SAMPLER ||
           k == SIM_FAULT_LOSS_NOT_DIVIDED || k == SIM_FAULT_SEEDS || k == SIM_FAULT_SAVE_CRASH ||
           k == SIM_FAULT_SAME_RANK;
}

// 1 when a and b, both aimed at collectives, claim one collective of one
// rank and step: the launch answers to the first of them only, so the other
// never fires. reorder claims its collective K and K+1.
static int same_coll(const SimFault *a, const SimFault *b) {
    if (a->rank != b->rank || a->step != b->step)
        return 0;
    int a_hi = a->coll + (a->kind == SIM_FAULT_REORDER);
    int b_hi = b->coll + (b->kind == SIM_FAULT_REORDER);
    return a->coll <= b_hi && b->coll <= a_hi;
}

// Fault i against the faults before it: one that the plan's order makes
// unreachable is refused here, before anything runs.
static SimStatus check_overlap(const SimFaultPlan *plan, int i, char *err, size_t errlen) {
    const SimFault *f = &plan->f[i];
    for (int j = 0; j < i; j++) {
        const SimFault *g = &plan->f[j];
        if (single_kind(f->kind) && g->kind == f->kind)
            return fail(err, errlen, "--fault '%s': a second %s fault (the first is '%s'); "
                        "a run takes one, and the second would never apply", f->text,
                        kinds[f->kind].name, g->text);
        if (sim_fault_at_one_coll(f) && sim_fault_at_one_coll(g) && same_coll(f, g))
            return fail(err, errlen, "--fault '%s': rank %d's collective %d of step %lld is "
                        "already the target of --fault '%s', and a collective takes one fault "
                        "(a reorder takes K and K+1), so this one would never fire", f->text,
                        f->rank, f->coll > g->coll ? f->coll : g->coll, (long long)f->step,
                        g->text);
    }
    return SIM_OK;
}

SimStatus sim_fault_check(const SimFaultPlan *plan, int nranks, char *err, size_t errlen) {
    if (plan == NULL)
        return SIM_OK;
    for (int i = 0; i < plan->n; i++) {
        const SimFault *f = &plan->f[i];
        if (f->rank >= nranks)
            return fail(err, errlen, "--fault '%s': rank %d does not exist; this run has "
                        "ranks 0 to %d (-n %d)", f->text, f->rank, nranks - 1, nranks);
        int alone_ok = f->kind == SIM_FAULT_SLOW_RANK || f->kind == SIM_FAULT_NO_SET_EPOCH ||
                       f->kind == SIM_FAULT_LOSS_NOT_DIVIDED || f->kind == SIM_FAULT_SAVE_CRASH;
        if (!alone_ok && nranks < 2)
            return fail(err, errlen, "--fault '%s': needs 2 or more ranks (-n)", f->text);
        SIM_CHECK(check_overlap(plan, i, err, errlen));
    }
    return SIM_OK;
}

const SimFault *sim_fault_find(const SimFaultPlan *plan, SimFaultKind k, int rank) {
    if (plan == NULL)
        return NULL;
    for (int i = 0; i < plan->n; i++)
        if (plan->f[i].kind == k && (rank < 0 || plan->f[i].rank == rank))
            return &plan->f[i];
    return NULL;
}

const SimFault *sim_fault_at_coll(const SimFaultPlan *plan, int rank, int64_t step, int coll) {
    if (plan == NULL)
        return NULL;
    for (int i = 0; i < plan->n; i++) {
        const SimFault *f = &plan->f[i];
        if (!sim_fault_at_one_coll(f) || f->rank != rank || f->step != step)
            continue;
        // reorder holds collective K back and launches it after K+1
        if (f->coll == coll || (f->kind == SIM_FAULT_REORDER && f->coll + 1 == coll))
            return f;
    }
    return NULL;
}

double sim_fault_compute_factor(const SimFaultPlan *plan, int rank, int64_t step) {
    double x = 1;
    if (plan == NULL)
        return x;
    for (int i = 0; i < plan->n; i++) {
        const SimFault *f = &plan->f[i];
        if (f->kind == SIM_FAULT_SLOW_RANK && f->rank == rank && step >= (f->step ? f->step : 1))
            x *= f->factor;
    }
    return x;
}

double sim_fault_link_factor(const SimFaultPlan *plan, int src, int dst) {
    double x = 1;
    if (plan == NULL)
        return x;
    for (int i = 0; i < plan->n; i++) {
        const SimFault *f = &plan->f[i];
        if (f->kind == SIM_FAULT_SLOW_LINK && (f->rank == src || f->rank == dst) && f->factor > x)
            x = f->factor;
    }
    return x;
}
