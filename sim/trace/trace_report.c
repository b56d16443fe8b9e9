// sim/trace/trace_report.c: the per-rank summary of a trace (see trace_report.h
// for what each figure means). Per rank: the events' intervals become
// boundary points, sorted, and one sweep over them counts every instant of
// the rank's window once, by what covers it.
#include "trace/trace_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Which union an interval belongs to; SET_B marks a step's begin (no interval).
enum { SET_C = 0, SET_D, SET_M, SET_P, SET_H, SET_COUNT, SET_B = SET_COUNT };

// One end of an interval: at t, set `set` gains (+1) or loses (-1) one.
typedef struct {
    double t;
    int8_t set, delta;
} Point;

static int point_cmp(const void *a, const void *b) {
    const Point *p = a, *q = b;
    if (p->t < q->t)
        return -1;
    if (p->t > q->t)
        return 1;
    return (p->delta > q->delta) - (p->delta < q->delta); // ends first: same result
}

static int name_is(const SimEvent *e, const char *s) {
    return e->name != NULL && strcmp(e->name, s) == 0;
}

static int is_begin(const SimEvent *e) {
    return e->kind == SIM_EV_MARKER && name_is(e, "iteration") && e->label != NULL &&
           strcmp(e->label, "begin") == 0;
}

// The set of an event within the step times, or -1 when it takes none.
static int event_set(const SimEvent *e) {
    if (e->kind == SIM_EV_COLL)
        return SET_M;
    // the host's own work (CPU offload: copies, the optimizer step), not the
    // input pipeline's ("data.*", which data.wait already counts)
    if (e->kind == SIM_EV_COMPUTE && e->stream == SIM_STREAM_HOST)
        return e->name != NULL && strncmp(e->name, "data.", 5) == 0 ? -1 : SET_H;
    if (e->kind != SIM_EV_COMPUTE || e->stream != SIM_STREAM_COMPUTE)
        return -1;
    if (name_is(e, "data.wait"))
        return SET_D;
    if (name_is(e, "ps.wait"))
        return SET_P;
    return SET_C;
}

// An event's start and end on the report's clock.
static double t_start(const SimEvent *e, SimReportClock c) {
    return c == SIM_REPORT_CLOCK_WALL ? e->wall_start : e->sim_start;
}

static double t_end(const SimEvent *e, SimReportClock c) {
    return c == SIM_REPORT_CLOCK_WALL ? e->wall_end : e->sim_end;
}

// Counts len seconds covered by cnt into the rank's totals and its step's.
static void count(SimReportRank *r, SimReportStep *st, const int cnt[SET_COUNT], double len) {
    double *part;
    if (cnt[SET_M] > 0)
        r->comm += len;
    if (cnt[SET_C] > 0) {
        r->compute += len;
        part = st ? &st->compute : NULL;
        if (cnt[SET_M] > 0)
            r->overlap += len;
    } else if (cnt[SET_D] > 0) {
        r->data_wait += len;
        part = st ? &st->data_wait : NULL;
    } else if (cnt[SET_M] > 0) {
        r->exposed += len;
        part = st ? &st->exposed : NULL;
    } else {
        r->idle += len;
        part = st ? &st->idle : NULL;
        if (cnt[SET_P] > 0)
            r->ps_wait += len;
        if (cnt[SET_H] > 0)
            r->host_wait += len;
    }
    if (part)
        *part += len;
}

// The sweep over one rank's points (sorted, all inside [r->start, r->end]);
// each SET_B point opens the next of r->step.
static void sweep(SimReportRank *r, const Point *p, size_t np) {
    int cnt[SET_COUNT] = {0};
    double cur = r->start;
    int row = -1;
    for (size_t i = 0; i <= np; i++) {
        double t = i < np ? p[i].t : r->end;
        if (t > cur) {
            count(r, row >= 0 ? &r->step[row] : NULL, cnt, t - cur);
            cur = t;
        }
        if (i == np)
            break;
        if (p[i].set == SET_B) {
            if (row >= 0)
                r->step[row].span = t - r->step[row].start;
            if (row + 1 < r->steps)
                r->step[++row].start = t;
        } else {
            cnt[p[i].set] += p[i].delta;
        }
    }
    if (row >= 0)
        r->step[row].span = r->end - r->step[row].start;
    r->sum_error = r->compute + r->data_wait + r->exposed + r->idle - r->span;
}

// The ledger rebuilt from one memory event: category and total peaks.
static void memory_event(SimReportRank *r, int64_t cur[SIM_MEM_CAT_COUNT], const SimEvent *e) {
    if (e->label == NULL || e->mem_cat < 0 || e->mem_cat >= SIM_MEM_CAT_COUNT)
        return;
    int alloc = strcmp(e->label, "alloc") == 0;
    if (!alloc && strcmp(e->label, "free") != 0)
        return; // "peak-reset": the report keeps the whole run's peaks
    if (e->mem_space == SIM_MEM_HOST) {
        if ((int64_t)e->count > r->host_peak_total)
            r->host_peak_total = (int64_t)e->count;
        return;
    }
    if (e->mem_space != SIM_MEM_DEVICE)
        return;
    cur[e->mem_cat] += alloc ? (int64_t)e->bytes : -(int64_t)e->bytes;
    if (cur[e->mem_cat] > r->mem_peak[e->mem_cat])
        r->mem_peak[e->mem_cat] = cur[e->mem_cat];
    if ((int64_t)e->count > r->mem_peak_total)
        r->mem_peak_total = (int64_t)e->count;
}

// The slowest rank: the longest span; among spans within 1% of it, the most
// time of its own (compute + data wait), since in synchronous training every
// rank ends its steps together and the straggler is the one the others wait
// for. Then why, against the others' mean. Only ranks with steps take
// part: a parameter server's window is not a step time.
static void find_slowest(SimTraceReport *r) {
    double best_span = 0;
    for (int i = 0; i < r->nranks; i++)
        if (r->rank[i].steps > 0 && r->rank[i].span > best_span)
            best_span = r->rank[i].span;
    r->slowest = -1;
    if (best_span <= 0)
        return;
    double best_own = -1;
    for (int i = 0; i < r->nranks; i++) {
        const SimReportRank *k = &r->rank[i];
        double own = k->compute + k->data_wait;
        if (k->steps > 0 && k->span >= 0.99 * best_span && own > best_own) {
            best_own = own;
            r->slowest = i;
        }
    }
    const SimReportRank *s = &r->rank[r->slowest];
    double mean[4] = {0}; // compute, data wait, exposed, idle
    int others = 0;
    for (int i = 0; i < r->nranks; i++) {
        const SimReportRank *k = &r->rank[i];
        if (i == r->slowest || k->steps == 0 || k->span <= 0)
            continue;
        mean[0] += k->compute;
        mean[1] += k->data_wait;
        mean[2] += k->exposed;
        mean[3] += k->idle;
        others++;
    }
    for (int c = 0; c < 4 && others > 0; c++)
        mean[c] /= others;
    if (others > 0 && mean[0] > 0 && s->compute >= SIM_REPORT_SLOW_RATIO * mean[0]) {
        r->why = SIM_REPORT_WHY_SLOW_COMPUTE;
        r->why_value = s->compute / mean[0];
        r->others_mean = mean[0];
        return;
    }
    const double v[4] = {s->compute, s->data_wait, s->exposed, s->idle};
    static const SimReportWhy whys[4] = {SIM_REPORT_WHY_COMPUTE, SIM_REPORT_WHY_DATA,
                                         SIM_REPORT_WHY_EXPOSED, SIM_REPORT_WHY_IDLE};
    int c = 0;
    for (int i = 1; i < 4; i++)
        if (v[i] > v[c])
            c = i;
    r->why = whys[c];
    r->why_value = v[c] / s->span;
    r->others_mean = mean[c];
}

void sim_trace_report_free(SimTraceReport *r) {
    if (r == NULL)
        return;
    for (int i = 0; r->rank && i < r->nranks; i++)
        free(r->rank[i].step);
    free(r->rank);
    memset(r, 0, sizeof *r);
    r->slowest = -1;
}

SimStatus sim_trace_report(const SimEvent *ev, size_t n, int nranks, SimTraceReport *out,
                           char *err, size_t errlen) {
    return sim_trace_report_on(ev, n, nranks, SIM_REPORT_CLOCK_SIM, out, err, errlen);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The time of the rank's first_step-th begin marker (1-based), counting
// them in time order; *begins: how many it has. NAN when it has fewer, or
// when memory runs out (*begins = -1).
static double nth_begin(const SimEvent *const *p, size_t lo, size_t hi, SimReportClock clock,
                        int first_step, int *begins) {
    size_t n = 0;
    for (size_t j = lo; j < hi; j++)
        n += is_begin(p[j]);
    *begins = (int)n;
    if (n < (size_t)first_step)
        return NAN;
    double *t = malloc(n * sizeof *t);
    if (t == NULL) {
        *begins = -1;
        return NAN;
    }
    size_t k = 0;
    for (size_t j = lo; j < hi; j++)
        if (is_begin(p[j]))
            t[k++] = t_start(p[j], clock);
    qsort(t, n, sizeof *t, cmp_double);
    double at = t[first_step - 1];
    free(t);
    return at;
}

// The summary of nranks ranks whose events are p[off[r] .. off[r + 1]),
// from each rank's first_step-th step on.
static SimStatus report_core(const SimEvent *const *p, const size_t *off, int nranks,
                             SimReportClock clock, int first_step, SimTraceReport *out,
                             char *err, size_t errlen) {
    SimReportRank *rk = calloc((size_t)nranks, sizeof *rk);
    if (rk == NULL)
        return SIM_ENOMEM;
    out->first_step = first_step;
    // The windows: first begin (or first start) to the last end.
    int any_steps = 0;
    size_t most = 0;
    for (int r = 0; r < nranks; r++) {
        SimReportRank *k = &rk[r];
        size_t cnt = off[r + 1] - off[r];
        k->events = (int)cnt;
        if (cnt > most)
            most = cnt;
        double first_begin = INFINITY, first = INFINITY, last = -INFINITY;
        for (size_t j = off[r]; j < off[r + 1]; j++) {
            const SimEvent *e = p[j];
            double t0 = t_start(e, clock), t1 = t_end(e, clock);
            if (is_begin(e)) {
                k->steps++;
                if (t0 < first_begin)
                    first_begin = t0;
            }
            if (t0 < first)
                first = t0;
            double end = t1 > t0 ? t1 : t0;
            if (end > last)
                last = end;
        }
        if (cnt == 0)
            continue;
        if (k->steps > 0 && first_step > 1) { // the steps before first_step: like set-up
            int begins;
            first_begin = nth_begin(p, off[r], off[r + 1], clock, first_step, &begins);
            if (begins < 0) {
                free(rk);
                return SIM_ENOMEM;
            }
            if (begins < first_step) {
                if (err)
                    snprintf(err, errlen, "rank %d has %d step%s: none from step %d on", r,
                             begins, begins == 1 ? "" : "s", first_step);
                free(rk);
                return SIM_EINVAL;
            }
            k->steps = begins - (first_step - 1);
        }
        any_steps |= k->steps > 0;
        k->start = k->steps > 0 ? first_begin : first;
        k->end = last;
        k->span = k->end - k->start;
        if (k->steps > out->steps)
            out->steps = k->steps;
    }
    if (!any_steps) {
        if (err)
            snprintf(err, errlen,
                     "no optimizer steps: expected \"iteration\" markers with label "
                     "\"begin\" (the training loop's, in a trace of `ddplab run --trace "
                     "FILE`)");
        free(rk);
        return SIM_EINVAL;
    }
    Point *pts = malloc((most ? 2 * most : 1) * sizeof *pts);
    if (pts == NULL) {
        free(rk);
        return SIM_ENOMEM;
    }
    for (int r = 0; r < nranks; r++) {
        SimReportRank *k = &rk[r];
        int64_t cur[SIM_MEM_CAT_COUNT] = {0};
        size_t np = 0;
        for (size_t j = off[r]; j < off[r + 1]; j++) {
            const SimEvent *e = p[j];
            if (e->kind == SIM_EV_MEMORY) {
                memory_event(k, cur, e);
                continue;
            }
            if (e->kind == SIM_EV_COLL && e->coll >= 0 && e->coll < SIM_COLL_COUNT) {
                out->coll[e->coll].calls++;
                out->coll[e->coll].bytes += e->bytes;
            } else if (e->kind == SIM_EV_XFER && e->coll >= 0 && e->coll < SIM_COLL_COUNT) {
                out->coll[e->coll].sent_bytes += e->bytes;
            }
            double t0 = t_start(e, clock), t1 = t_end(e, clock);
            if (is_begin(e) && t0 >= k->start && t0 <= k->end) {
                pts[np++] = (Point){t0, SET_B, 0};
                continue;
            }
            int set = event_set(e);
            if (set < 0)
                continue;
            double a = t0 > k->start ? t0 : k->start;
            double b = t1 < k->end ? t1 : k->end;
            if (!(b > a))
                continue;
            pts[np++] = (Point){a, (int8_t)set, 1};
            pts[np++] = (Point){b, (int8_t)set, -1};
        }
        qsort(pts, np, sizeof *pts, point_cmp);
        if (k->steps > 0 && (k->step = calloc((size_t)k->steps, sizeof *k->step)) == NULL) {
            out->nranks = r; // the ranks whose rows exist, for the free
            out->rank = rk;
            sim_trace_report_free(out);
            free(pts);
            return SIM_ENOMEM;
        }
        if (k->events > 0)
            sweep(k, pts, np);
        if (fabs(k->sum_error) > out->max_sum_error)
            out->max_sum_error = fabs(k->sum_error);
    }
    free(pts);
    out->nranks = nranks;
    out->rank = rk;
    find_slowest(out);
    return SIM_OK;
}

static void report_begin(SimTraceReport *out, SimReportClock clock, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->slowest = -1;
    out->clock = clock;
    if (err && errlen)
        err[0] = '\0';
}

SimStatus sim_trace_report_on(const SimEvent *ev, size_t n, int nranks, SimReportClock clock,
                              SimTraceReport *out, char *err, size_t errlen) {
    return sim_trace_report_from(ev, n, nranks, clock, 1, out, err, errlen);
}

SimStatus sim_trace_report_from(const SimEvent *ev, size_t n, int nranks, SimReportClock clock,
                                int first_step, SimTraceReport *out, char *err,
                                size_t errlen) {
    report_begin(out, clock, err, errlen);
    if (first_step < 1) {
        if (err)
            snprintf(err, errlen, "first step %d: steps count from 1", first_step);
        return SIM_EINVAL;
    }
    int maxrank = -1;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].rank < 0 || (nranks > 0 && ev[i].rank >= nranks) || ev[i].rank > 65535) {
            if (err)
                snprintf(err, errlen, "event %zu: rank %d outside 0 .. %d", i, (int)ev[i].rank,
                         nranks > 0 ? nranks - 1 : 65535);
            return SIM_EINVAL;
        }
        if (ev[i].rank > maxrank)
            maxrank = ev[i].rank;
    }
    if (nranks <= 0)
        nranks = maxrank + 1;
    if (nranks <= 0) {
        if (err)
            snprintf(err, errlen, "the trace holds no events");
        return SIM_EINVAL;
    }
    // The events of each rank: a counting sort on rank.
    size_t *off = calloc((size_t)nranks + 1, sizeof *off);
    size_t *fill = calloc((size_t)nranks, sizeof *fill);
    const SimEvent **p = malloc((n ? n : 1) * sizeof *p);
    if (off == NULL || fill == NULL || p == NULL) {
        free(off), free(fill), free(p);
        return SIM_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        off[ev[i].rank + 1]++;
    for (int r = 0; r < nranks; r++)
        off[r + 1] += off[r];
    for (size_t i = 0; i < n; i++) {
        int r = ev[i].rank;
        p[off[r] + fill[r]++] = &ev[i];
    }
    free(fill);
    SimStatus st = report_core(p, off, nranks, clock, first_step, out, err, errlen);
    free(off);
    free(p);
    return st;
}

SimStatus sim_trace_report_of(const SimTrace *t, SimReportClock clock, SimTraceReport *out,
                              char *err, size_t errlen) {
    report_begin(out, clock, err, errlen);
    int nranks = sim_trace_nranks(t);
    if (nranks <= 0) {
        if (err)
            snprintf(err, errlen, "the trace holds no ranks");
        return SIM_EINVAL;
    }
    size_t *off = calloc((size_t)nranks + 1, sizeof *off);
    if (off == NULL)
        return SIM_ENOMEM;
    for (int r = 0; r < nranks; r++)
        off[r + 1] = off[r] + sim_trace_rank_count(t, r);
    const SimEvent **p = malloc((off[nranks] ? off[nranks] : 1) * sizeof *p);
    if (p == NULL) {
        free(off);
        return SIM_ENOMEM;
    }
    for (int r = 0; r < nranks; r++) {
        const SimEvent *ev = sim_trace_rank_events(t, r);
        for (size_t j = off[r]; j < off[r + 1]; j++)
            p[j] = &ev[j - off[r]];
    }
    SimStatus st = report_core(p, off, nranks, clock, 1, out, err, errlen);
    free(off);
    free(p);
    return st;
}

const char *sim_report_clock_key(SimReportClock c) {
    return c == SIM_REPORT_CLOCK_WALL ? "wall" : "sim";
}

const char *sim_report_why_key(SimReportWhy w) {
    switch (w) {
    case SIM_REPORT_WHY_SLOW_COMPUTE: return "slow-compute";
    case SIM_REPORT_WHY_DATA: return "data-wait";
    case SIM_REPORT_WHY_EXPOSED: return "exposed-comm";
    case SIM_REPORT_WHY_COMPUTE: return "compute-bound";
    case SIM_REPORT_WHY_IDLE: return "idle";
    case SIM_REPORT_WHY_NONE: break;
    }
    return "none";
}

void sim_trace_report_why(const SimTraceReport *r, char *buf, size_t len) {
    if (len == 0)
        return;
    buf[0] = '\0';
    if (r->slowest < 0)
        return;
    int s = r->slowest;
    double pct = 100 * r->why_value;
    switch (r->why) {
    case SIM_REPORT_WHY_SLOW_COMPUTE:
        snprintf(buf, len, "rank %d: compute %.1fx the others' mean (a slow rank: the others "
                 "wait for it)", s, r->why_value);
        break;
    case SIM_REPORT_WHY_DATA:
        snprintf(buf, len, "rank %d: waits for data (data wait %.0f%% of its time; more "
                 "loader workers or cheaper samples)", s, pct);
        break;
    case SIM_REPORT_WHY_EXPOSED:
        snprintf(buf, len, "rank %d: exposed communication (%.0f%% of its time not hidden "
                 "under compute)", s, pct);
        break;
    case SIM_REPORT_WHY_COMPUTE:
        snprintf(buf, len, "rank %d: compute-bound (compute %.0f%% of its time, no rank much "
                 "slower than the others)", s, pct);
        break;
    case SIM_REPORT_WHY_IDLE:
        snprintf(buf, len, "rank %d: mostly idle (%.0f%% of its time)", s, pct);
        break;
    case SIM_REPORT_WHY_NONE:
        snprintf(buf, len, "rank %d", s);
        break;
    }
}
