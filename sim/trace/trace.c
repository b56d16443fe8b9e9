// sim/trace/trace.c: the in-memory trace. Each rank appends to its own growable
// buffer, so the hot path takes no lock: only rank r's thread ever touches
// buffer r. Readers merge the buffers into one time-ordered array after (or
// between) runs, when no rank is appending.
#include "trace/trace.h"
#include "trace/trace_internal.h"
#include "trace/trace_order.h"

#include <stdlib.h>
#include <string.h>

SimTrace *sim_trace_new(int nranks, size_t max_per_rank) {
    if (nranks < 1)
        return NULL;
    SimTrace *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->ranks = calloc((size_t)nranks, sizeof(*t->ranks));
    if (t->ranks == NULL) {
        free(t);
        return NULL;
    }
    t->nranks = nranks;
    t->max_per_rank = max_per_rank;
    if (trace_meta_init(t) != 0) {
        free(t->ranks);
        free(t);
        return NULL;
    }
    return t;
}

void sim_trace_free(SimTrace *t) {
    if (t == NULL)
        return;
    for (int r = 0; r < t->nranks; r++)
        free(t->ranks[r].ev);
    trace_meta_free(t);
    free(t->ranks);
    free(t);
}

// Makes room for one more event in tr, doubling the capacity (bounded by the
// per-rank limit). Returns 0, or -1 when memory runs out.
static int trace_rank_grow(TraceRank *tr, size_t limit) {
    size_t cap = tr->cap ? tr->cap * 2 : 256;
    if (cap < tr->cap || cap > SIZE_MAX / sizeof(SimEvent))
        return -1;
    if (limit != 0 && cap > limit)
        cap = limit;
    SimEvent *ev = realloc(tr->ev, cap * sizeof(*ev));
    if (ev == NULL)
        return -1;
    tr->ev = ev;
    tr->cap = cap;
    return 0;
}

SimStatus sim_trace_append(SimTrace *t, const SimEvent *ev) {
    if (t == NULL || ev == NULL || ev->rank < 0 || ev->rank >= t->nranks)
        return SIM_EINVAL;
    TraceRank *tr = &t->ranks[ev->rank];
    if (t->max_per_rank != 0 && tr->n >= t->max_per_rank) {
        tr->dropped++;
        return SIM_OK;
    }
    if (tr->n == tr->cap && trace_rank_grow(tr, t->max_per_rank) != 0)
        return SIM_ENOMEM;
    tr->ev[tr->n++] = *ev;
    if (t->tap != NULL)
        t->tap(t->tap_ctx, ev);
    return SIM_OK;
}

int sim_trace_nranks(const SimTrace *t) { return t ? t->nranks : 0; }

size_t sim_trace_rank_count(const SimTrace *t, int rank) {
    if (t == NULL || rank < 0 || rank >= t->nranks)
        return 0;
    return t->ranks[rank].n;
}

const SimEvent *sim_trace_rank_events(const SimTrace *t, int rank) {
    if (t == NULL || rank < 0 || rank >= t->nranks)
        return NULL;
    return t->ranks[rank].ev;
}

size_t sim_trace_dropped(const SimTrace *t) {
    size_t d = 0;
    for (int r = 0; t != NULL && r < t->nranks; r++)
        d += t->ranks[r].dropped;
    return d;
}

void sim_trace_clear(SimTrace *t) {
    for (int r = 0; t != NULL && r < t->nranks; r++) {
        t->ranks[r].n = 0;
        t->ranks[r].dropped = 0;
    }
}

// Total order on doubles for sorting: NaN sorts after every number, so a
// bad timestamp cannot make qsort's comparator inconsistent.
static int cmp_double(double a, double b) {
    int na = a != a, nb = b != b;
    if (na || nb)
        return na - nb;
    return (a > b) - (a < b);
}

static int trace_key_cmp(const void *pa, const void *pb) {
    const SimTraceKey *a = pa, *b = pb;
    int c = cmp_double(a->t, b->t);
    if (c != 0)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

SimTraceKey *sim_trace_order(const SimTrace *t, size_t *n) {
    size_t total = 0;
    for (int r = 0; t != NULL && r < t->nranks; r++)
        total += t->ranks[r].n;
    *n = total;
    if (total == 0)
        return NULL;
    SimTraceKey *keys = NULL;
    if (total <= SIZE_MAX / sizeof(*keys))
        keys = malloc(total * sizeof(*keys));
    if (keys == NULL)
        return NULL;
    size_t k = 0;
    for (int r = 0; r < t->nranks; r++) {
        for (size_t i = 0; i < t->ranks[r].n; i++) {
            keys[k].t = t->ranks[r].ev[i].sim_start;
            keys[k].rank = r;
            keys[k].pos = i;
            k++;
        }
    }
    qsort(keys, total, sizeof(*keys), trace_key_cmp);
    return keys;
}

SimEvent *sim_trace_merge(const SimTrace *t, size_t *n) {
    size_t total;
    SimTraceKey *keys = sim_trace_order(t, &total);
    SimEvent *out = NULL;
    if (keys != NULL && total <= SIZE_MAX / sizeof(*out))
        out = malloc(total * sizeof(*out));
    *n = 0;
    if (out == NULL) {
        free(keys);
        return NULL;
    }
    for (size_t i = 0; i < total; i++)
        out[i] = t->ranks[keys[i].rank].ev[keys[i].pos];
    free(keys);
    *n = total;
    return out;
}

const char *sim_event_kind_name(SimEventKind k) {
    static const char *const names[SIM_EV_KIND_COUNT] = {
        [SIM_EV_COLL] = "coll",       [SIM_EV_COLL_STEP] = "step",
        [SIM_EV_XFER] = "xfer",       [SIM_EV_COMPUTE] = "compute",
        [SIM_EV_MARKER] = "marker",   [SIM_EV_FAULT] = "fault",
        [SIM_EV_MEMORY] = "memory",   [SIM_EV_BUCKET] = "bucket",
        [SIM_EV_SHARD] = "shard",
    };
    if ((int)k < 0 || k >= SIM_EV_KIND_COUNT)
        return "unknown";
    return names[k];
}

const char *sim_stream_name(SimStream s) {
    static const char *const names[SIM_STREAM_COUNT] = {
        [SIM_STREAM_COMPUTE] = "compute",
        [SIM_STREAM_COMM] = "comm",
        [SIM_STREAM_HOST] = "host",
    };
    if ((int)s < 0 || s >= SIM_STREAM_COUNT)
        return "unknown";
    return names[s];
}
