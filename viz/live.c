// viz/live.c: a live run seen by a view. The engine's rank threads append
// to their trace; its tap (viz_live_tap) copies each event into a queue
// under a lock; the view thread pulls the queue into its own VizTrace
// between frames (viz_source_poll), where names are copied into the
// trace's pool. Events queued point at the engine's strings, so the engine
// keeps its trace until the view has pulled them (viz_live_wait_drained).
//
// Events from different ranks arrive in the order the threads ran, not in
// simulated time, so an event can land before ones already shown. The
// source therefore reports how many leading events are settled: those no
// later event can precede, up to the least recent rank's latest time.
#include "views.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct VizLive {
    pthread_mutex_t lock;
    pthread_cond_t drained;  // signalled when the queue empties or the view goes
    SimEvent *q;             // [n] queued, in arrival order
    size_t n, cap;
    int done, detached;
    int pulling;             // the view is copying a pulled batch's strings
    SimStatus st;
    // [nlast * SIM_STREAM_COUNT]: each rank's latest sim_start pulled so far
    // on each stream (-inf: none yet); touched by the view thread only
    double *last;
    int nlast;
};

VizLive *viz_live_new(void) {
    VizLive *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    if (pthread_mutex_init(&l->lock, NULL) != 0) {
        free(l);
        return NULL;
    }
    if (pthread_cond_init(&l->drained, NULL) != 0) {
        pthread_mutex_destroy(&l->lock);
        free(l);
        return NULL;
    }
    return l;
}

void viz_live_free(VizLive *l) {
    if (l == NULL)
        return;
    pthread_cond_destroy(&l->drained);
    pthread_mutex_destroy(&l->lock);
    free(l->q);
    free(l->last);
    free(l);
}

void viz_live_tap(void *ctx, const SimEvent *ev) {
    VizLive *l = ctx;
    pthread_mutex_lock(&l->lock);
    if (!l->detached) {
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 4096;
            SimEvent *q = realloc(l->q, cap * sizeof *q);
            if (q != NULL) {
                l->q = q;
                l->cap = cap;
            }
        }
        if (l->n < l->cap) // out of memory: the view misses the event, the run goes on
            l->q[l->n++] = *ev;
    }
    pthread_mutex_unlock(&l->lock);
}

void viz_live_finish(VizLive *l, SimStatus st) {
    pthread_mutex_lock(&l->lock);
    l->done = 1;
    l->st = st;
    pthread_cond_broadcast(&l->drained);
    pthread_mutex_unlock(&l->lock);
}

int viz_live_done(VizLive *l) {
    pthread_mutex_lock(&l->lock);
    int d = l->done;
    pthread_mutex_unlock(&l->lock);
    return d;
}

void viz_live_wait_drained(VizLive *l) {
    pthread_mutex_lock(&l->lock);
    while ((l->n > 0 || l->pulling) && !l->detached)
        pthread_cond_wait(&l->drained, &l->lock);
    pthread_mutex_unlock(&l->lock);
}

void viz_live_detach(VizLive *l) {
    pthread_mutex_lock(&l->lock);
    l->detached = 1;
    l->n = 0;
    pthread_cond_broadcast(&l->drained);
    pthread_mutex_unlock(&l->lock);
}

// Moves the queue into t. Returns the events moved; *done says whether the
// engine had finished before this pull (so nothing more will come).
static size_t live_pull(VizLive *l, VizTrace *t, int *done) {
    pthread_mutex_lock(&l->lock);
    SimEvent *q = l->q;
    size_t n = l->n;
    *done = l->done;
    l->q = NULL;
    l->n = l->cap = 0;
    l->pulling = 1; // the engine keeps its strings until this is cleared
    pthread_mutex_unlock(&l->lock);
    size_t moved = 0;
    for (size_t i = 0; i < n; i++) {
        if (viz_trace_add(t, &q[i], NULL) != SIM_OK)
            continue; // out of memory: leave the event out of the view
        moved++;
        int r = q[i].rank, sm = q[i].stream;
        if (r >= l->nlast) {
            double *last = realloc(l->last, (size_t)(r + 1) * SIM_STREAM_COUNT * sizeof *last);
            if (last != NULL) {
                for (size_t k = (size_t)l->nlast * SIM_STREAM_COUNT;
                     k < (size_t)(r + 1) * SIM_STREAM_COUNT; k++)
                    last[k] = -INFINITY;
                l->last = last;
                l->nlast = r + 1;
            }
        }
        if (r < l->nlast && sm >= 0 && sm < SIM_STREAM_COUNT) {
            double *v = &l->last[(size_t)r * SIM_STREAM_COUNT + (size_t)sm];
            if (q[i].sim_start > *v)
                *v = q[i].sim_start;
        }
    }
    pthread_mutex_lock(&l->lock);
    l->pulling = 0;
    pthread_cond_broadcast(&l->drained);
    pthread_mutex_unlock(&l->lock);
    free(q);
    return moved;
}

// Leading events of t strictly before the horizon: the earliest of every
// rank's latest time on each stream it has used. A rank appends each
// stream's events in time order, but not the streams' in step with each
// other (a collective is recorded when it is waited for, with the time it
// started), so a stream that lags holds the horizon back.
static size_t live_settled(const VizLive *l, const VizTrace *t) {
    if (l->nlast < t->nranks)
        return 0; // a rank that has shown nothing yet may still come first
    double h = INFINITY;
    int any = 0;
    for (int r = 0; r < l->nlast; r++) {
        int used = 0;
        for (int sm = 0; sm < SIM_STREAM_COUNT; sm++) {
            double v = l->last[(size_t)r * SIM_STREAM_COUNT + (size_t)sm];
            if (v == -INFINITY)
                continue;
            used = 1;
            if (v < h)
                h = v;
        }
        if (!used)
            return 0;
        any = 1;
    }
    if (!any)
        return 0;
    size_t lo = 0, hi = t->n; // the first event at or after h
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ev[mid].sim_start < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int viz_source_poll(VizSource *src) {
    if (src->live == NULL) {
        int changed = src->settled != src->trace->n;
        src->settled = src->trace->n;
        return changed;
    }
    int done = 0;
    size_t moved = live_pull(src->live, src->trace, &done);
    if (moved > 0) {
        if (src->model == NULL)
            src->model = viz_model_new(src->trace, NULL, 0);
        else
            viz_model_sync(src->model);
    }
    size_t settled = done ? src->trace->n : live_settled(src->live, src->trace);
    if (src->model == NULL)
        settled = 0;
    int changed = moved > 0 || settled != src->settled;
    src->settled = settled;
    return changed;
}
