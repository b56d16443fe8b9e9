// sim/trace/trace_export.c: writes a trace as Chrome trace JSON (for Perfetto and
// chrome://tracing) or as JSON lines, streaming event by event in time order
// (traces can hold millions of events, so no document tree is built), into a
// file replaced atomically (see outfile.h).
//
// Chrome format: {"traceEvents":[...]} of "X" (complete) events with ts and
// dur in microseconds, pid = rank and tid = stream, plus "M" metadata events
// naming each process "rank N" and each thread after its stream. Memory
// events also feed one counter track ("ph":"C") per rank and space, "device
// memory (MiB)" / "host memory (MiB)", with the ledger's current bytes by
// category (sim_mem_cat_key; backing stores left out), rebuilt from the
// events in order, so Perfetto draws the stacked memory timeline.
#include "trace/trace.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "base/dtype.h"
#include "base/outfile.h"
#include "coll/coll.h"
#include "trace/mem_cat.h"
#include "trace/trace_order.h"

// ----------------------------------------------------------------------------
// field writers: each writes `,"key":value`

static void put_key(SimJsonOut *o, const char *key) {
    sim_json_raw(o, ",\"");
    sim_json_raw(o, key); // keys are literals of this file: nothing to escape
    sim_json_raw(o, "\":");
}

static void put_i64(SimJsonOut *o, const char *key, int64_t v) {
    put_key(o, key);
    sim_json_i64(o, v);
}

static void put_u64(SimJsonOut *o, const char *key, uint64_t v) {
    put_key(o, key);
    sim_json_u64(o, v);
}

static void put_num(SimJsonOut *o, const char *key, double v) {
    put_key(o, key);
    sim_json_num(o, v);
}

static void put_str(SimJsonOut *o, const char *key, const char *v) {
    put_key(o, key);
    sim_json_str(o, v);
}

static int ev_is_collective(const SimEvent *e) {
    return e->kind == SIM_EV_COLL || e->kind == SIM_EV_COLL_STEP || e->kind == SIM_EV_XFER;
}

static const char *ev_name(const SimEvent *e) {
    return e->name != NULL ? e->name : sim_event_kind_name((SimEventKind)e->kind);
}

// ----------------------------------------------------------------------------
// Chrome trace JSON

// Seconds -> whole nanoseconds, for ts and dur (written as microseconds with
// three decimals). Start and end are rounded separately and dur is their
// difference, so an event nested in another stays inside after rounding. A
// time that is not finite (or beyond ~290 years) becomes 0: Chrome needs a
// number there.
static int64_t chrome_ns(double secs) {
    double ns = round(secs * 1e9);
    return isfinite(ns) && fabs(ns) < 9e18 ? (int64_t)ns : 0;
}

// The kind-specific fields of e, as Chrome "args".
static void chrome_args(SimJsonOut *o, const SimEvent *e, int use_wall) {
    sim_json_raw(o, ",\"args\":{\"kind\":");
    sim_json_str(o, sim_event_kind_name((SimEventKind)e->kind));
    put_u64(o, "seq", e->seq);
    put_u64(o, "bytes", e->bytes);
    put_u64(o, "count", e->count);
    if (ev_is_collective(e)) {
        put_str(o, "coll", sim_coll_name((SimCollKind)e->coll));
        put_str(o, "algo", sim_algo_name((SimAlgo)e->algo));
        put_str(o, "dtype", sim_dtype_name((SimDtype)e->dtype));
        if (sim_coll_is_reduction((SimCollKind)e->coll))
            put_str(o, "redop", sim_redop_name((SimRedOp)e->redop));
    } else if (e->kind == SIM_EV_COMPUTE) {
        put_str(o, "dtype", sim_dtype_name((SimDtype)e->dtype));
    }
    if (e->step >= 0) {
        put_i64(o, "step", e->step);
        put_i64(o, "nsteps", e->nsteps);
    }
    if (e->chunk >= 0)
        put_i64(o, "chunk", e->chunk);
    if (e->src >= 0)
        put_i64(o, "src", e->src);
    if (e->dst >= 0)
        put_i64(o, "dst", e->dst);
    if (e->label != NULL)
        put_str(o, "label", e->label);
    if (e->kind == SIM_EV_MEMORY) {
        put_str(o, "mem_cat", sim_mem_cat_key((SimMemCat)e->mem_cat));
        put_str(o, "mem_space", sim_mem_space_name((SimMemSpace)e->mem_space));
    }
    if (e->kind == SIM_EV_MARKER)
        put_num(o, "value", e->value);
    // The clock not used for ts/dur, so both are in the file.
    if (use_wall) {
        put_num(o, "sim_start_us", e->sim_start * 1e6);
        put_num(o, "sim_dur_us", (e->sim_end - e->sim_start) * 1e6);
    } else {
        put_num(o, "wall_start_us", e->wall_start * 1e6);
        put_num(o, "wall_dur_us", (e->wall_end - e->wall_start) * 1e6);
    }
    sim_json_raw(o, "}");
}

static void chrome_event(SimJsonOut *o, const SimEvent *e, int use_wall) {
    int64_t t0 = chrome_ns(use_wall ? e->wall_start : e->sim_start);
    int64_t t1 = chrome_ns(use_wall ? e->wall_end : e->sim_end);
    sim_json_raw(o, ",\n{\"name\":");
    sim_json_str(o, ev_name(e));
    put_str(o, "cat", sim_event_kind_name((SimEventKind)e->kind));
    sim_json_raw(o, ",\"ph\":\"X\",\"ts\":");
    sim_json_milli(o, t0);
    sim_json_raw(o, ",\"dur\":");
    sim_json_milli(o, t1 > t0 ? t1 - t0 : 0);
    put_i64(o, "pid", e->rank);
    put_i64(o, "tid", e->stream);
    chrome_args(o, e, use_wall);
    sim_json_raw(o, "}");
}

// The ledger as the memory events rebuild it: bytes [rank][space][cat].
typedef struct {
    int64_t *cur; // NULL until the first memory event
    int nranks;
} ChromeMem;

// After memory event e: the counter record of its rank and space, with the
// current bytes of every counted category in MiB.
static void chrome_counter(SimJsonOut *o, ChromeMem *m, const SimEvent *e, int use_wall) {
    if (e->rank < 0 || e->rank >= m->nranks || e->mem_space < 0 ||
        e->mem_space >= SIM_MEM_SPACE_COUNT || e->mem_cat < 0 || e->mem_cat >= SIM_MEM_CAT_COUNT)
        return;
    if (m->cur == NULL) {
        m->cur = calloc((size_t)m->nranks * SIM_MEM_SPACE_COUNT * SIM_MEM_CAT_COUNT,
                        sizeof *m->cur);
        if (m->cur == NULL)
            return; // the counters are a view of the events: leave them out
    }
    int64_t *cur = m->cur + ((size_t)e->rank * SIM_MEM_SPACE_COUNT + (size_t)e->mem_space) *
                                SIM_MEM_CAT_COUNT;
    int alloc = e->label != NULL && e->label[0] == 'a';
    cur[e->mem_cat] += alloc ? (int64_t)e->bytes : -(int64_t)e->bytes;
    sim_json_raw(o, ",\n{\"name\":");
    sim_json_str(o, e->mem_space == SIM_MEM_HOST ? "host memory (MiB)" : "device memory (MiB)");
    sim_json_raw(o, ",\"ph\":\"C\",\"ts\":");
    sim_json_milli(o, chrome_ns(use_wall ? e->wall_start : e->sim_start));
    put_i64(o, "pid", e->rank);
    sim_json_raw(o, ",\"args\":{");
    for (int c = 0; c < SIM_MEM_CAT_COUNT; c++) {
        if (c == SIM_MEM_BACKING)
            continue;
        sim_json_raw(o, c ? ",\"" : "\"");
        sim_json_raw(o, sim_mem_cat_key((SimMemCat)c)); // keys: nothing to escape
        sim_json_raw(o, "\":");
        sim_json_num(o, (double)cur[c] / 1048576.0);
    }
    sim_json_raw(o, "}}");
}

// One metadata record naming or ordering a process (tid 0) or a thread;
// `first` says whether it opens the array (no comma). A string value when
// sval is set, else the number ival.
static void chrome_meta(SimJsonOut *o, int first, const char *what, int pid, int tid,
                        const char *key, const char *sval, int ival) {
    sim_json_raw(o, first ? "\n{\"name\":\"" : ",\n{\"name\":\"");
    sim_json_raw(o, what);
    sim_json_raw(o, "\",\"ph\":\"M\",\"pid\":");
    sim_json_i64(o, pid);
    sim_json_raw(o, ",\"tid\":");
    sim_json_i64(o, tid);
    sim_json_raw(o, ",\"args\":{\"");
    sim_json_raw(o, key);
    sim_json_raw(o, "\":");
    if (sval != NULL)
        sim_json_str(o, sval);
    else
        sim_json_i64(o, ival);
    sim_json_raw(o, "}}");
}

// Names every rank that has events ("rank N", sorted by rank) and every
// stream it used. used is [nranks * SIM_STREAM_COUNT].
static void chrome_metadata(SimJsonOut *o, int nranks, const unsigned char *used) {
    int first = 1;
    char pname[32];
    for (int r = 0; r < nranks; r++) {
        const unsigned char *u = used + (size_t)r * SIM_STREAM_COUNT;
        int any = 0;
        for (int s = 0; s < SIM_STREAM_COUNT; s++)
            any |= u[s];
        if (!any)
            continue;
        snprintf(pname, sizeof(pname), "rank %d", r);
        chrome_meta(o, first, "process_name", r, 0, "name", pname, 0);
        first = 0;
        chrome_meta(o, 0, "process_sort_index", r, 0, "sort_index", NULL, r);
        for (int s = 0; s < SIM_STREAM_COUNT; s++) {
            if (!u[s])
                continue;
            chrome_meta(o, 0, "thread_name", r, s, "name", sim_stream_name((SimStream)s), 0);
            chrome_meta(o, 0, "thread_sort_index", r, s, "sort_index", NULL, s);
        }
    }
    if (first) // no events: keep the array well-formed with one record
        chrome_meta(o, 1, "process_name", 0, 0, "name", "rank 0", 0);
}

SimStatus sim_trace_write_chrome(const SimTrace *t, const char *path, int use_wall) {
    if (t == NULL || path == NULL)
        return SIM_EINVAL;
    int nranks = sim_trace_nranks(t);
    size_t n;
    SimTraceKey *keys = sim_trace_order(t, &n);
    unsigned char *used = calloc((size_t)nranks * SIM_STREAM_COUNT, 1);
    SimJsonOut *o = malloc(sizeof(*o));
    if ((n > 0 && keys == NULL) || used == NULL || o == NULL) {
        free(keys);
        free(used);
        free(o);
        return SIM_ENOMEM;
    }
    for (int r = 0; r < nranks; r++) {
        const SimEvent *ev = sim_trace_rank_events(t, r);
        for (size_t i = 0; i < sim_trace_rank_count(t, r); i++)
            if (ev[i].stream >= 0 && ev[i].stream < SIM_STREAM_COUNT)
                used[(size_t)r * SIM_STREAM_COUNT + (size_t)ev[i].stream] = 1;
    }
    SimOutFile f;
    SimStatus st = sim_outfile_open(&f, path);
    if (st == SIM_OK) {
        sim_json_begin(o, f.f);
        sim_json_raw(o, "{\"traceEvents\":[");
        chrome_metadata(o, nranks, used);
        ChromeMem mem = {NULL, nranks};
        for (size_t i = 0; i < n; i++) {
            const SimEvent *e = sim_trace_rank_events(t, keys[i].rank) + keys[i].pos;
            chrome_event(o, e, use_wall);
            if (e->kind == SIM_EV_MEMORY)
                chrome_counter(o, &mem, e, use_wall);
        }
        free(mem.cur);
        sim_json_raw(o, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"format\":"
                        "\"ddplab-trace\",\"clock\":");
        sim_json_str(o, use_wall ? "wall" : "simulated");
        put_i64(o, "nranks", nranks);
        put_u64(o, "events", n);
        put_u64(o, "dropped_events", sim_trace_dropped(t));
        sim_json_raw(o, "}}\n");
        sim_json_flush(o);
        st = sim_outfile_commit(&f);
    }
    free(keys);
    free(used);
    free(o);
    return st;
}

// ----------------------------------------------------------------------------
// JSON lines: every field of every event, enums as names, times in seconds;
// memory events add mem_cat (sim_mem_cat_key) and mem_space

static void jsonl_event(SimJsonOut *o, const SimEvent *e) {
    sim_json_raw(o, "{\"rank\":");
    sim_json_i64(o, e->rank);
    put_str(o, "stream", sim_stream_name((SimStream)e->stream));
    put_str(o, "kind", sim_event_kind_name((SimEventKind)e->kind));
    put_str(o, "name", e->name);
    put_str(o, "label", e->label);
    put_num(o, "sim_start", e->sim_start);
    put_num(o, "sim_end", e->sim_end);
    put_num(o, "wall_start", e->wall_start);
    put_num(o, "wall_end", e->wall_end);
    put_u64(o, "bytes", e->bytes);
    put_u64(o, "count", e->count);
    put_u64(o, "seq", e->seq);
    put_str(o, "coll", sim_coll_name((SimCollKind)e->coll));
    put_str(o, "algo", sim_algo_name((SimAlgo)e->algo));
    put_str(o, "dtype", sim_dtype_name((SimDtype)e->dtype));
    put_str(o, "redop", sim_redop_name((SimRedOp)e->redop));
    put_i64(o, "step", e->step);
    put_i64(o, "nsteps", e->nsteps);
    put_i64(o, "chunk", e->chunk);
    put_i64(o, "src", e->src);
    put_i64(o, "dst", e->dst);
    if (e->kind == SIM_EV_MEMORY) {
        put_str(o, "mem_cat", sim_mem_cat_key((SimMemCat)e->mem_cat));
        put_str(o, "mem_space", sim_mem_space_name((SimMemSpace)e->mem_space));
    }
    if (e->kind == SIM_EV_MARKER)
        put_num(o, "value", e->value);
    sim_json_raw(o, "}\n");
}

SimStatus sim_trace_write_jsonl(const SimTrace *t, const char *path) {
    if (t == NULL || path == NULL)
        return SIM_EINVAL;
    size_t n;
    SimTraceKey *keys = sim_trace_order(t, &n);
    SimJsonOut *o = malloc(sizeof(*o));
    if ((n > 0 && keys == NULL) || o == NULL) {
        free(keys);
        free(o);
        return SIM_ENOMEM;
    }
    SimOutFile f;
    SimStatus st = sim_outfile_open(&f, path);
    if (st == SIM_OK) {
        sim_json_begin(o, f.f);
        for (size_t i = 0; i < n; i++)
            jsonl_event(o, sim_trace_rank_events(t, keys[i].rank) + keys[i].pos);
        sim_json_flush(o);
        st = sim_outfile_commit(&f);
    }
    free(keys);
    free(o);
    return st;
}
