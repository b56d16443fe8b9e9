// sim/trace_meta.c: what a trace holds beside its events: interned names
// (parameter and unit names are not static strings, so the trace keeps its
// own copies and events point at those), the run's info for viewers, and
// the tap through which a live view sees each event as it is appended.
#include "trace.h"
#include "trace_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int trace_meta_init(SimTrace *t) {
    if (pthread_mutex_init(&t->lock, NULL) != 0)
        return -1;
    t->info.nodes = 1;
    return 0;
}

void trace_meta_free(SimTrace *t) {
    for (size_t i = 0; i < t->nstr; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->slots);
    pthread_mutex_destroy(&t->lock);
}

// FNV-1a: short names, no adversary.
static uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

// The slot holding s, or the empty slot where it belongs.
static size_t slot_of(const SimTrace *t, const char *s) {
    size_t mask = t->nslots - 1, i = (size_t)str_hash(s) & mask;
    while (t->slots[i] >= 0 && strcmp(t->strs[t->slots[i]], s) != 0)
        i = (i + 1) & mask;
    return i;
}

// Doubles the hash (or creates it) and re-inserts every string. 0 or -1.
static int rehash(SimTrace *t) {
    size_t n = t->nslots ? t->nslots * 2 : 64;
    long *slots = malloc(n * sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        slots[i] = -1;
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    for (size_t k = 0; k < t->nstr; k++)
        t->slots[slot_of(t, t->strs[k])] = (long)k;
    return 0;
}

// Adds a copy of s at the end of strs. Its index, or -1.
static long push_copy(SimTrace *t, const char *s) {
    if (t->nstr == t->capstr) {
        size_t cap = t->capstr ? t->capstr * 2 : 64;
        char **strs = realloc(t->strs, cap * sizeof *strs);
        if (strs == NULL)
            return -1;
        t->strs = strs;
        t->capstr = cap;
    }
    size_t len = strlen(s) + 1;
    char *c = malloc(len);
    if (c == NULL)
        return -1;
    memcpy(c, s, len);
    t->strs[t->nstr] = c;
    return (long)t->nstr++;
}

static const char *intern_locked(SimTrace *t, const char *s) {
    if ((t->nstr + 1) * 2 > t->nslots && rehash(t) != 0)
        return NULL;
    size_t i = slot_of(t, s);
    if (t->slots[i] < 0) {
        long k = push_copy(t, s);
        if (k < 0)
            return NULL;
        t->slots[i] = k;
    }
    return t->strs[t->slots[i]];
}

const char *sim_trace_intern(SimTrace *t, const char *s) {
    if (t == NULL || s == NULL)
        return NULL;
    pthread_mutex_lock(&t->lock);
    const char *c = intern_locked(t, s);
    pthread_mutex_unlock(&t->lock);
    return c;
}

size_t sim_trace_nstrings(const SimTrace *t) { return t ? t->nstr : 0; }

const char *sim_trace_string(const SimTrace *t, size_t i) {
    return t != NULL && i < t->nstr ? t->strs[i] : NULL;
}

void sim_trace_set_info(SimTrace *t, const SimTraceInfo *info) {
    if (t == NULL || info == NULL)
        return;
    t->info = *info;
    if (t->info.nodes < 1)
        t->info.nodes = 1;
    t->info.title[sizeof t->info.title - 1] = '\0';
    t->info.strategy[sizeof t->info.strategy - 1] = '\0';
    t->info.profile[sizeof t->info.profile - 1] = '\0';
}

const SimTraceInfo *sim_trace_info(const SimTrace *t) { return t ? &t->info : NULL; }

void sim_trace_set_tap(SimTrace *t, SimTraceTap fn, void *ctx) {
    if (t == NULL)
        return;
    t->tap = fn;
    t->tap_ctx = ctx;
}
