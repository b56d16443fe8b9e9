// cli/report/report_chrome.c: reads back the Chrome trace JSON that `ddplab run
// --trace FILE.json` writes (sim/trace/trace_export.c), for `ddplab report`: each
// "ph":"X" event becomes a SimEvent again (pid = rank, tid = stream, cat =
// kind, ts / dur in microseconds, the kind's fields in "args"); counters
// ("C") and metadata ("M") are skipped. Replay keeps refusing this format:
// it does not hold every field a view needs, but it holds all the report
// uses. Both clocks come back: ts/dur are the clock the trace was written
// with, and args.sim_start_us / sim_dur_us (or wall_start_us / wall_dur_us)
// the other.
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"     // defines: sim_coll_parse
#include "engine/memory.h" // defines: sim_mem_cat_key, sim_mem_space_name
#include "report/report.h"

// The whole file, NUL-terminated (heap), or NULL with err set.
static char *slurp(const char *path, char *err, size_t errlen, SimStatus *st) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        *st = SIM_EIO;
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int ioerr = ferror(f);
    fclose(f);
    if (buf == NULL) {
        snprintf(err, errlen, "%s: out of memory reading it", path);
        *st = SIM_ENOMEM;
        return NULL;
    }
    if (ioerr) {
        free(buf);
        snprintf(err, errlen, "%s: read error", path);
        *st = SIM_EIO;
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static double num_of(const cJSON *o, const char *k, double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

// Numbers as integers, clamped so that a hostile file cannot make the
// conversion undefined: out of range or not a number gives dflt.
static uint64_t u64_of(const cJSON *o, const char *k) {
    double v = num_of(o, k, 0);
    return v >= 0 && v < 1.8e19 ? (uint64_t)v : 0;
}

static int32_t i32_of(const cJSON *o, const char *k) {
    double v = num_of(o, k, -1);
    return v >= -1 && v <= 2147483647.0 ? (int32_t)v : -1;
}

static const char *str_of(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

// The index whose name fn gives s, or -1.
static int lookup(const char *s, int n, const char *(*fn)(int)) {
    if (s == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(fn(i), s) == 0)
            return i;
    return -1;
}
static const char *kind_name(int i) { return sim_event_kind_name((SimEventKind)i); }
static const char *cat_key(int i) { return sim_mem_cat_key((SimMemCat)i); }
static const char *space_name(int i) { return sim_mem_space_name((SimMemSpace)i); }

// One "X" event as a SimEvent. 0, or -1 with err set.
static int to_event(const cJSON *e, size_t idx, SimEvent *ev, char *err, size_t errlen) {
    memset(ev, 0, sizeof *ev);
    ev->step = ev->nsteps = ev->chunk = ev->src = ev->dst = -1;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
    int kind = lookup(str_of(e, "cat"), SIM_EV_KIND_COUNT, kind_name);
    double pid = num_of(e, "pid", -1), tid = num_of(e, "tid", -1);
    double ts = num_of(e, "ts", -1), dur = num_of(e, "dur", 0);
    if (kind < 0 || !(pid >= 0 && pid <= 65535) || !(tid >= 0 && tid < SIM_STREAM_COUNT) ||
        !(ts >= 0) || !(dur >= 0)) {
        snprintf(err, errlen, "event %zu: not an event of a ddplab trace (cat, pid, tid, ts "
                 "or dur missing or out of range)", idx);
        return -1;
    }
    // ts/dur are one clock and args hold the other (sim/trace/trace_export.c).
    double wts = ts, wdur = dur;
    if (args != NULL && cJSON_GetObjectItemCaseSensitive(args, "sim_start_us") != NULL) {
        ts = num_of(args, "sim_start_us", ts);
        dur = num_of(args, "sim_dur_us", dur);
        if (!(ts >= 0) || !(dur >= 0)) {
            snprintf(err, errlen, "event %zu: bad sim_start_us or sim_dur_us", idx);
            return -1;
        }
    } else if (args != NULL && cJSON_GetObjectItemCaseSensitive(args, "wall_start_us") != NULL) {
        wts = num_of(args, "wall_start_us", ts);
        wdur = num_of(args, "wall_dur_us", dur);
        if (!(wts >= 0) || !(wdur >= 0)) {
            snprintf(err, errlen, "event %zu: bad wall_start_us or wall_dur_us", idx);
            return -1;
        }
    }
    ev->kind = (int16_t)kind;
    ev->rank = (int32_t)pid;
    ev->stream = (int16_t)tid;
    ev->sim_start = ts * 1e-6;
    ev->sim_end = (ts + dur) * 1e-6;
    ev->wall_start = wts * 1e-6;
    ev->wall_end = (wts + wdur) * 1e-6;
    ev->name = str_of(e, "name");
    if (args == NULL)
        return 0;
    ev->label = str_of(args, "label");
    ev->bytes = u64_of(args, "bytes");
    ev->count = u64_of(args, "count");
    ev->seq = u64_of(args, "seq");
    ev->value = num_of(args, "value", 0);
    ev->step = i32_of(args, "step");
    ev->nsteps = i32_of(args, "nsteps");
    ev->chunk = i32_of(args, "chunk");
    ev->src = i32_of(args, "src");
    ev->dst = i32_of(args, "dst");
    SimCollKind ck;
    if (str_of(args, "coll") != NULL && sim_coll_parse(str_of(args, "coll"), &ck) == 0)
        ev->coll = (int16_t)ck;
    int c = lookup(str_of(args, "mem_cat"), SIM_MEM_CAT_COUNT, cat_key);
    int s = lookup(str_of(args, "mem_space"), SIM_MEM_SPACE_COUNT, space_name);
    ev->mem_cat = (int16_t)(c < 0 ? 0 : c);
    ev->mem_space = (int16_t)(s < 0 ? 0 : s);
    return 0;
}

SimStatus report_load_chrome(const char *path, VizTrace *t, char *err, size_t errlen) {
    memset(t, 0, sizeof *t);
    t->info.nodes = 1;
    SimStatus st = SIM_OK;
    char *text = slurp(path, err, errlen, &st);
    if (text == NULL)
        return st;
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *evs = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    if (root == NULL || !cJSON_IsArray(evs)) {
        snprintf(err, errlen, "%s: %s", path,
                 root == NULL ? "not valid JSON (a Chrome trace cut short?)"
                              : "a JSON object without a \"traceEvents\" array");
        cJSON_Delete(root);
        return SIM_EINVAL;
    }
    SimTraceInfo info;
    memset(&info, 0, sizeof info);
    info.nodes = 1;
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(root, "otherData");
    int nranks = (int)num_of(other, "nranks", 0);
    st = viz_trace_init(t, nranks > 0 && nranks <= 65536 ? nranks : 0, &info, path);
    size_t idx = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, evs) {
        if (st != SIM_OK)
            break;
        const char *ph = str_of(e, "ph");
        if (ph == NULL || strcmp(ph, "X") != 0) {
            idx++;
            continue;
        }
        SimEvent ev;
        char why[200];
        if (to_event(e, idx, &ev, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", path, why);
            st = SIM_EINVAL;
            break;
        }
        st = viz_trace_add(t, &ev, NULL);
        idx++;
    }
    cJSON_Delete(root);
    if (st == SIM_ENOMEM)
        snprintf(err, errlen, "%s: out of memory loading it", path);
    if (st != SIM_OK) {
        viz_trace_free(t);
        memset(t, 0, sizeof *t);
    }
    return st;
}
