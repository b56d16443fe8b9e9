// sim/trace/trace_meta.c: what a trace holds beside its events: interned names
// (parameter and unit names are not static strings, so the trace keeps its
// own copies and events point at those), the run's info for viewers, and
// the tap through which a live view sees each event as it is appended.
#include "trace/trace.h"
#include "trace/trace_internal.h"

#include <stdlib.h>
#include <string.h>

int trace_meta_init(SimTrace *t) {
    t->names = sim_strpool_new();
    if (t->names == NULL)
        return -1;
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        sim_strpool_free(t->names);
        return -1;
    }
    t->info.nodes = 1;
    return 0;
}

void trace_meta_free(SimTrace *t) {
    sim_strpool_free(t->names);
    pthread_mutex_destroy(&t->lock);
}

const char *sim_trace_intern(SimTrace *t, const char *s) {
    if (t == NULL || s == NULL)
        return NULL;
    pthread_mutex_lock(&t->lock);
    const char *c = sim_strpool_intern(t->names, s, strlen(s));
    pthread_mutex_unlock(&t->lock);
    return c;
}

void sim_trace_info_normalize(SimTraceInfo *info) {
    if (info->nodes < 1)
        info->nodes = 1;
    info->title[sizeof info->title - 1] = '\0';
    info->strategy[sizeof info->strategy - 1] = '\0';
    info->profile[sizeof info->profile - 1] = '\0';
}

void sim_trace_set_info(SimTrace *t, const SimTraceInfo *info) {
    if (t == NULL || info == NULL)
        return;
    t->info = *info;
    sim_trace_info_normalize(&t->info);
}

const SimTraceInfo *sim_trace_info(const SimTrace *t) { return t ? &t->info : NULL; }

void sim_trace_set_tap(SimTrace *t, SimTraceTap fn, void *ctx) {
    if (t == NULL)
        return;
    t->tap = fn;
    t->tap_ctx = ctx;
}
