// sim/trace/trace_report_ops.c: each kind of op's time on both clocks (see
// trace_report.h, sim_trace_report_ops). Kinds are few (tens), events many:
// a linear search over the kinds, by name pointer first (a loaded trace
// interns its names), then by text.
#include <stdlib.h>
#include <string.h>

#include "trace/trace_report.h"

// The kind an event is counted under, or NULL when it is not an op:
// compute-stream ops (but the waits) by name, collectives by kind.
static const char *kind_name(const SimEvent *e, int *coll) {
    *coll = -1;
    if (e->kind == SIM_EV_COLL && e->coll >= 0 && e->coll < SIM_COLL_COUNT) {
        *coll = e->coll;
        return sim_coll_name((SimCollKind)e->coll);
    }
    if (e->kind != SIM_EV_COMPUTE || e->stream != SIM_STREAM_COMPUTE || e->name == NULL)
        return NULL;
    if (strcmp(e->name, "data.wait") == 0 || strcmp(e->name, "ps.wait") == 0)
        return NULL;
    return e->name;
}

static SimReportOp *find_or_add(SimReportOps *o, size_t *cap, const char *name, int coll) {
    for (int i = 0; i < o->n; i++)
        if (o->op[i].coll == coll && (o->op[i].name == name || strcmp(o->op[i].name, name) == 0))
            return &o->op[i];
    if ((size_t)o->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        SimReportOp *p = realloc(o->op, nc * sizeof *p);
        if (p == NULL)
            return NULL;
        o->op = p;
        *cap = nc;
    }
    SimReportOp *k = &o->op[o->n++];
    memset(k, 0, sizeof *k);
    k->name = name;
    k->coll = coll;
    return k;
}

static int by_wall_desc(const void *a, const void *b) {
    const SimReportOp *x = a, *y = b;
    if (x->wall_s != y->wall_s)
        return x->wall_s < y->wall_s ? 1 : -1;
    return strcmp(x->name, y->name);
}

SimStatus sim_trace_report_ops(const SimEvent *ev, size_t n, SimReportOps *out) {
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        int coll;
        const char *name = kind_name(&ev[i], &coll);
        if (name == NULL)
            continue;
        SimReportOp *k = find_or_add(out, &cap, name, coll);
        if (k == NULL) {
            sim_trace_report_ops_free(out);
            return SIM_ENOMEM;
        }
        k->calls++;
        k->sim_s += ev[i].sim_end - ev[i].sim_start;
        k->wall_s += ev[i].wall_end - ev[i].wall_start;
        if (coll >= 0)
            k->bytes += ev[i].bytes;
    }
    if (out->n > 1)
        qsort(out->op, (size_t)out->n, sizeof *out->op, by_wall_desc);
    return SIM_OK;
}

void sim_trace_report_ops_free(SimReportOps *o) {
    if (o == NULL)
        return;
    free(o->op);
    memset(o, 0, sizeof *o);
}
