// viz/vtrace.c: the views' trace: one time-ordered array of events that owns
// its strings through a pool (one heap copy per distinct string, found by
// hash), copied from an engine trace or grown event by event. Files are
// read by vtrace_load.c.
//
// A trace whose pool is NULL is valid: its names then point at storage that
// outlives it (static strings, as in hand-built traces); the pool is made
// when a string is first interned.
#include "vtrace.h"
#include "vtrace_internal.h"

#include <stdlib.h>
#include <string.h>

const char *viz_trace_intern(VizTrace *t, const char *s) {
    if (t == NULL || s == NULL)
        return NULL;
    if (t->pool == NULL && (t->pool = sim_strpool_new()) == NULL)
        return NULL;
    return sim_strpool_intern(t->pool, s, strlen(s));
}

// ----------------------------------------------------------------------------
// the trace

static void set_source(VizTrace *t, const char *source) {
    snprintf(t->source, sizeof t->source, "%s", source != NULL ? source : "");
}

SimStatus viz_trace_init(VizTrace *t, int nranks, const SimTraceInfo *info,
                         const char *source) {
    if (t == NULL)
        return SIM_EINVAL;
    memset(t, 0, sizeof *t);
    t->nranks = nranks > 0 ? nranks : 0;
    if (info != NULL)
        t->info = *info;
    sim_trace_info_normalize(&t->info);
    set_source(t, source);
    t->pool = sim_strpool_new();
    return t->pool != NULL ? SIM_OK : SIM_ENOMEM;
}

void viz_trace_free(VizTrace *t) {
    if (t == NULL)
        return;
    free(t->ev);
    sim_strpool_free(t->pool);
    memset(t, 0, sizeof *t);
    t->info.nodes = 1;
}

int vtrace_reserve(VizTrace *t, size_t want) {
    if (want <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < want)
        cap = cap > SIZE_MAX / 2 ? want : cap * 2;
    if (cap > SIZE_MAX / sizeof(SimEvent))
        return -1;
    SimEvent *ev = realloc(t->ev, cap * sizeof *ev);
    if (ev == NULL)
        return -1;
    t->ev = ev;
    t->cap = cap;
    return 0;
}

// Total order on start times: NaN after every number (as sim_trace_order).
static int cmp_time(double a, double b) {
    int na = a != a, nb = b != b;
    if (na || nb)
        return na - nb;
    return (a > b) - (a < b);
}

// 1 if a belongs after b: later start, or the same start on a higher rank.
static int ev_after(const SimEvent *a, const SimEvent *b) {
    int c = cmp_time(a->sim_start, b->sim_start);
    return c > 0 || (c == 0 && a->rank > b->rank);
}

SimStatus viz_trace_add(VizTrace *t, const SimEvent *ev, size_t *at) {
    if (t == NULL || ev == NULL || ev->rank < 0 || ev->rank >= VTRACE_MAX_RANKS)
        return SIM_EINVAL;
    SimEvent e = *ev;
    e.name = viz_trace_intern(t, ev->name);
    e.label = viz_trace_intern(t, ev->label);
    if ((ev->name != NULL && e.name == NULL) || (ev->label != NULL && e.label == NULL))
        return SIM_ENOMEM;
    if (t->n == t->cap && vtrace_reserve(t, t->n + 1) != 0)
        return SIM_ENOMEM;
    size_t i = t->n;
    while (i > 0 && ev_after(&t->ev[i - 1], &e))
        i--;
    memmove(&t->ev[i + 1], &t->ev[i], (t->n - i) * sizeof e);
    t->ev[i] = e;
    t->n++;
    if (e.rank >= t->nranks)
        t->nranks = e.rank + 1;
    if (at != NULL)
        *at = i;
    return SIM_OK;
}

// A small direct-mapped cache of source pointer -> pooled copy, so that
// copying a million events hashes each distinct name about once.
typedef struct {
    const char *from[128];
    const char *to[128];
} InternCache;

static const char *intern_cached(VizTrace *t, InternCache *c, const char *s, int *oom) {
    if (s == NULL)
        return NULL;
    size_t k = ((uintptr_t)s >> 3) & 127;
    if (c->from[k] == s)
        return c->to[k];
    const char *p = sim_strpool_intern(t->pool, s, strlen(s));
    if (p == NULL) {
        *oom = 1;
        return NULL;
    }
    c->from[k] = s;
    c->to[k] = p;
    return p;
}

SimStatus viz_trace_from_sim(const SimTrace *src, VizTrace *t, const char *source) {
    if (t == NULL)
        return SIM_EINVAL;
    memset(t, 0, sizeof *t);
    t->info.nodes = 1;
    if (src == NULL)
        return SIM_EINVAL;
    SimStatus st = viz_trace_init(t, sim_trace_nranks(src), sim_trace_info(src), source);
    if (st != SIM_OK) {
        viz_trace_free(t);
        return st;
    }
    size_t total = 0, n;
    for (int r = 0; r < sim_trace_nranks(src); r++)
        total += sim_trace_rank_count(src, r);
    SimEvent *ev = sim_trace_merge(src, &n);
    if (total > 0 && ev == NULL) {
        viz_trace_free(t);
        return SIM_ENOMEM;
    }
    InternCache *cache = calloc(1, sizeof *cache);
    int oom = cache == NULL;
    for (size_t i = 0; i < n && !oom; i++) {
        ev[i].name = intern_cached(t, cache, ev[i].name, &oom);
        ev[i].label = intern_cached(t, cache, ev[i].label, &oom);
    }
    free(cache);
    if (oom) {
        free(ev);
        viz_trace_free(t);
        return SIM_ENOMEM;
    }
    t->ev = ev;
    t->n = t->cap = n;
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// sorting (JSON lines may come in any order)

typedef struct {
    double t;
    int32_t rank;
    size_t pos;
} SortKey;

static int sort_key_cmp(const void *pa, const void *pb) {
    const SortKey *a = pa, *b = pb;
    int c = cmp_time(a->t, b->t);
    if (c != 0)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

int vtrace_sort(VizTrace *t) {
    size_t i = 1;
    while (i < t->n && !ev_after(&t->ev[i - 1], &t->ev[i]))
        i++;
    if (i >= t->n)
        return 0; // already in order: the usual case
    SortKey *keys = malloc(t->n * sizeof *keys);
    SimEvent *out = malloc(t->n * sizeof *out);
    if (keys == NULL || out == NULL) {
        free(keys);
        free(out);
        return -1;
    }
    for (size_t k = 0; k < t->n; k++)
        keys[k] = (SortKey){t->ev[k].sim_start, t->ev[k].rank, k};
    qsort(keys, t->n, sizeof *keys, sort_key_cmp);
    for (size_t k = 0; k < t->n; k++)
        out[k] = t->ev[keys[k].pos];
    free(keys);
    free(t->ev);
    t->ev = out;
    t->cap = t->n;
    return 0;
}
