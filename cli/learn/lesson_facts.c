// cli/learn/lesson_facts.c: the facts of a finished lesson block (lessons/FORMAT.md).
// The trace facts are read the way the views read the trace: the scene at
// the last event says which bucket plan and FSDP units are current and each
// rank's memory peak, and the scene's timeline says how much communication
// was exposed, so a fact and the picture the learner looks at agree.
#include "learn/lesson_facts.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"     // defines: sim_coll_title, sim_coll_name
#include "engine/memory.h" // defines: SIM_MEM_DEVICE

void lesson_facts_init(LessonFacts *f) {
    memset(f, 0, sizeof *f);
    f->trace.info.nodes = 1;
}

void lesson_facts_free(LessonFacts *f) {
    if (f == NULL)
        return;
    viz_model_free(f->model);
    viz_trace_free(&f->trace);
    free(f->output);
    lesson_facts_init(f);
}

int lesson_facts_load_trace(LessonFacts *f, const char *path, char *err, size_t errlen) {
    viz_model_free(f->model);
    f->model = NULL;
    viz_trace_free(&f->trace);
    f->has_trace = 0;
    if (viz_trace_load(path, &f->trace, err, errlen) != SIM_OK)
        return -1;
    char why[256];
    f->model = viz_model_new(&f->trace, why, sizeof why);
    if (f->model == NULL) {
        snprintf(err, errlen, "%s: %s", path, why);
        viz_trace_free(&f->trace);
        return -1;
    }
    f->has_trace = 1;
    return 0;
}

static int fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t whylen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return -1;
}

int lesson_fact_number(const char *s, size_t n, double *v) {
    while (n > 0 && isspace((unsigned char)*s))
        s++, n--;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n > 63)
        return -1;
    char buf[64];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        // a thousands separator: a comma with a digit on both sides
        if (s[i] == ',' && i > 0 && i + 1 < n && isdigit((unsigned char)s[i - 1]) &&
            isdigit((unsigned char)s[i + 1]))
            continue;
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    char *end;
    double x = strtod(buf, &end);
    if (end == buf || *end != '\0' || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

// The integer after "name:" in fact (e.g. 3 in "bucket_params:3"): 0 or -1.
static int fact_index(const char *fact, long *k) {
    const char *p = strchr(fact, ':');
    if (p == NULL || !isdigit((unsigned char)p[1]))
        return -1;
    char *end;
    *k = strtol(p + 1, &end, 10);
    return *end == '\0' && *k >= 0 && *k < 1000000000L ? 0 : -1;
}

// out:REGEX: the first group (or the whole match) of REGEX in the output.
static int fact_out(const LessonFacts *f, const char *re, double *v, char *why, size_t whylen) {
    regex_t rx;
    int rc = regcomp(&rx, re, REG_EXTENDED);
    if (rc != 0) {
        char msg[160];
        regerror(rc, &rx, msg, sizeof msg);
        return fail(why, whylen, "out:%s: not an extended regular expression: %s", re, msg);
    }
    regmatch_t m[2];
    const char *text = f->output ? f->output : "";
    rc = regexec(&rx, text, 2, m, 0);
    int groups = (int)rx.re_nsub;
    regfree(&rx);
    if (rc != 0)
        return fail(why, whylen, "out:%s: no match in what the command printed", re);
    regmatch_t g = groups >= 1 && m[1].rm_so >= 0 ? m[1] : m[0];
    const char *s = text + g.rm_so;
    size_t n = (size_t)(g.rm_eo - g.rm_so);
    if (lesson_fact_number(s, n, v) != 0)
        return fail(why, whylen, "out:%s: matched '%.*s', which is not a number", re,
                    n > 60 ? 60 : (int)n, s);
    return 0;
}

// The collective called name ("AllReduce" or "all_reduce"): 0 or -1.
static int coll_kind(const char *name, int *kind) {
    for (int k = 0; k < SIM_COLL_COUNT; k++)
        if (strcmp(name, sim_coll_title((SimCollKind)k)) == 0 ||
            strcmp(name, sim_coll_name((SimCollKind)k)) == 0) {
            *kind = k;
            return 0;
        }
    return -1;
}

// collectives:NAME and coll_bytes:NAME, over rank 0's collectives.
static int fact_coll(const LessonFacts *f, const char *fact, int bytes, double *v, char *why,
                     size_t whylen) {
    const char *name = strchr(fact, ':') + 1;
    int kind;
    if (coll_kind(name, &kind) != 0) {
        char names[256] = "";
        for (int k = 0, n = 0; k < SIM_COLL_COUNT; k++)
            n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", k ? ", " : "",
                          sim_coll_title((SimCollKind)k));
        return fail(why, whylen, "%s: '%s' is not a collective; allowed: %s", fact, name, names);
    }
    double count = 0, sum = 0;
    for (size_t i = 0; i < f->trace.n; i++) {
        const SimEvent *e = &f->trace.ev[i];
        if (e->kind == SIM_EV_COLL && e->rank == 0 && e->coll == kind) {
            count += 1;
            sum += (double)e->bytes;
        }
    }
    *v = bytes ? sum : count;
    return 0;
}

// loss and loss:I: the loss rank 0 logged at its last iteration, or at
// iteration I (the training loop's "iteration" "end" markers).
static int fact_loss(const LessonFacts *f, const char *fact, double *v, char *why,
                     size_t whylen) {
    long want = -1;
    if (strchr(fact, ':') && fact_index(fact, &want) != 0)
        return fail(why, whylen, "%s: not an iteration number", fact);
    long best = -1, last = -1;
    for (size_t i = 0; i < f->trace.n; i++) {
        const SimEvent *e = &f->trace.ev[i];
        if (e->kind != SIM_EV_MARKER || e->rank != 0 || !e->name || !e->label ||
            strcmp(e->name, "iteration") != 0 || strcmp(e->label, "end") != 0)
            continue;
        if (e->step > last)
            last = e->step;
        if ((want < 0 && e->step >= best) || (want >= 0 && e->step == want)) {
            best = e->step;
            *v = e->value;
        }
    }
    if (last < 0)
        return fail(why, whylen, "%s: the trace logs no loss (no iteration ends)", fact);
    if (best < 0)
        return fail(why, whylen, "%s: the run logged iterations 0 to %ld", fact, last);
    return 0;
}

// The scene at the last event (the run's final state); NULL after why.
static VizScene *end_scene(LessonFacts *f, const VizSceneOpts *o, char *why, size_t whylen) {
    VizScene *s = viz_scene_new(f->model);
    size_t n = viz_model_count(f->model);
    if (s == NULL || n == 0 || viz_scene_at(f->model, n - 1, o, s) != SIM_OK) {
        viz_scene_free(s);
        fail(why, whylen, "out of memory for the scene of the trace");
        return NULL;
    }
    return s;
}

// The clock's extent of the trace: the first start and the last end.
static void trace_span(const VizTrace *t, double *lo, double *hi) {
    *lo = t->n ? t->ev[0].sim_start : 0;
    *hi = *lo;
    for (size_t i = 0; i < t->n; i++) {
        if (t->ev[i].sim_start < *lo)
            *lo = t->ev[i].sim_start;
        if (t->ev[i].sim_end > *hi)
            *hi = t->ev[i].sim_end;
    }
}

// exposed_us: rank 0's timeline over a window wider than the whole trace,
// in one column (the lanes add exact times, so one column loses nothing).
static int fact_exposed(LessonFacts *f, double *v, char *why, size_t whylen) {
    double lo, hi;
    trace_span(&f->trace, &lo, &hi);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 1;
    o.ntimeline_ranks = 1;
    o.timeline_ranks[0] = 0;
    // centred on the last event's start (inside [lo, hi]): covers both ends
    o.window = 2.0 * (hi - lo) + 1.0;
    VizScene *s = end_scene(f, &o, why, whylen);
    if (s == NULL)
        return -1;
    *v = s->timeline.exposed_s * 1e6;
    viz_scene_free(s);
    return 0;
}

// buckets, bucket_params:K, units, peak_bytes:R: the scene at the end.
static int fact_scene(LessonFacts *f, const char *fact, double *v, char *why, size_t whylen) {
    long k = 0;
    int indexed = strncmp(fact, "bucket_params:", 14) == 0 || strncmp(fact, "peak_bytes:", 11) == 0;
    if (indexed && fact_index(fact, &k) != 0)
        return fail(why, whylen, "%s: not a number after ':'", fact);
    VizSceneOpts o = viz_scene_opts_default();
    o.timeline_cols = 0;
    VizScene *s = end_scene(f, &o, why, whylen);
    if (s == NULL)
        return -1;
    int rc = 0;
    if (strcmp(fact, "buckets") == 0 || strncmp(fact, "bucket_params:", 14) == 0) {
        if (s->nbuckets == 0)
            rc = fail(why, whylen, "%s: the run's trace has no DDP bucket plan", fact);
        else if (strcmp(fact, "buckets") == 0)
            *v = s->nbuckets;
        else if (k >= s->nbuckets)
            rc = fail(why, whylen, "%s: the last plan has %d bucket%s (0 to %d)", fact,
                      s->nbuckets, s->nbuckets == 1 ? "" : "s", s->nbuckets - 1);
        else
            *v = s->buckets[k].nparams;
    } else if (strcmp(fact, "units") == 0) {
        if (s->shards.nunits == 0)
            rc = fail(why, whylen, "units: the run's trace has no FSDP units");
        else
            *v = s->shards.nunits;
    } else { // peak_bytes:R
        if (k >= s->nranks)
            rc = fail(why, whylen, "%s: the run has %d rank%s (0 to %d)", fact, s->nranks,
                      s->nranks == 1 ? "" : "s", s->nranks - 1);
        else
            *v = (double)s->ranks[k].mem_peak;
    }
    viz_scene_free(s);
    return rc;
}

int lesson_fact(LessonFacts *f, const char *name, double *v, char *why, size_t whylen) {
    if (strcmp(name, "exit") == 0) {
        *v = f->exit_code;
        return 0;
    }
    if (strncmp(name, "out:", 4) == 0)
        return fact_out(f, name + 4, v, why, whylen);
    // the facts that need a trace: whole names, and prefixes ending in ':'
    static const char *const traced[] = {"iterations", "buckets",  "bucket_params:",
                                         "units",      "collectives:", "coll_bytes:",
                                         "peak_bytes:", "loss",     "loss:",
                                         "sim_us",     "exposed_us"};
    int known = 0;
    for (size_t i = 0; i < sizeof traced / sizeof traced[0]; i++) {
        size_t n = strlen(traced[i]);
        if (traced[i][n - 1] == ':' ? strncmp(name, traced[i], n) == 0
                                    : strcmp(name, traced[i]) == 0)
            known = 1;
    }
    if (!known)
        return fail(why, whylen,
                    "'%s' is not a fact; allowed: exit, iterations, buckets, bucket_params:K, "
                    "units, collectives:NAME, coll_bytes:NAME, peak_bytes:R, loss, loss:I, "
                    "sim_us, exposed_us, out:REGEX", name);
    if (!f->has_trace)
        return fail(why, whylen, "%s: the command left no trace (it ended with exit %d%s)", name,
                    f->exit_code, f->exit_code == 0 ? "; only run and bench record one" : "");
    if (strcmp(name, "iterations") == 0) {
        *v = viz_model_iterations(f->model);
        return 0;
    }
    if (strncmp(name, "collectives:", 12) == 0)
        return fact_coll(f, name, 0, v, why, whylen);
    if (strncmp(name, "coll_bytes:", 11) == 0)
        return fact_coll(f, name, 1, v, why, whylen);
    if (strncmp(name, "loss", 4) == 0)
        return fact_loss(f, name, v, why, whylen);
    if (strcmp(name, "sim_us") == 0) {
        double lo, hi;
        trace_span(&f->trace, &lo, &hi);
        *v = hi * 1e6;
        return 0;
    }
    if (strcmp(name, "exposed_us") == 0)
        return fact_exposed(f, v, why, whylen);
    return fact_scene(f, name, v, why, whylen);
}
