// viz/vtrace_jsonl.c: loads the JSON lines that sim_trace_write_jsonl writes:
// one object per line, parsed with cJSON, enum names mapped back to their
// values through the engine's own name functions (so a name the engine
// spells differently tomorrow still reads back). The writer spells a value
// out of range (the -1 that means "none", e.g. a compute event's coll) "?",
// which reads back as -1. Integers above 2^53 (FLOP counts) are read from
// the line's text, since cJSON keeps numbers as doubles. Lines may come in
// any order; the events are sorted afterwards.
#include "vtrace.h"
#include "vtrace_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "coll/coll.h"
#include "engine/memory.h"

typedef struct {
    VtReader *r;
    uint64_t line;    // 1-based
    const char *text; // the line, len bytes, not NUL-terminated
    size_t len;
} Line;

#define LINE_FAIL(L, ...) vtrace_fail((L)->r, SIM_EINVAL, __VA_ARGS__)

// ----------------------------------------------------------------------------
// raw field text: the value of a top-level key in a line cJSON accepted

static size_t skip_ws(const char *s, size_t i, size_t n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

// s[i] is '"': the index after the closing quote.
static size_t skip_string(const char *s, size_t i, size_t n) {
    for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i + 1;
}

// The index after the value that starts at s[i] (valid JSON).
static size_t skip_value(const char *s, size_t i, size_t n) {
    if (i < n && s[i] == '"')
        return skip_string(s, i, n);
    int depth = 0;
    while (i < n) {
        char c = s[i];
        if (c == '"') {
            i = skip_string(s, i, n);
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (depth == 0)
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (c == ',' && depth == 0)
            return i;
        i++;
    }
    return i;
}

// The text of key's value in the line's object (the first one, as cJSON
// finds it), or NULL.
static const char *raw_value(const Line *L, const char *key) {
    const char *s = L->text;
    size_t n = L->len, klen = strlen(key), i = skip_ws(s, 0, n);
    if (i >= n || s[i] != '{')
        return NULL;
    i++;
    while (i < n) {
        i = skip_ws(s, i, n);
        if (i >= n || s[i] != '"')
            return NULL;
        size_t k0 = i + 1;
        i = skip_string(s, i, n);
        int match = i - 1 - k0 == klen && memcmp(s + k0, key, klen) == 0;
        i = skip_ws(s, i, n);
        if (i >= n || s[i] != ':')
            return NULL;
        i = skip_ws(s, i + 1, n);
        if (match)
            return s + i;
        i = skip_ws(s, skip_value(s, i, n), n);
        if (i >= n || s[i] != ',')
            return NULL;
        i++;
    }
    return NULL;
}

// ----------------------------------------------------------------------------
// fields

// The keys an event line has, in the order the writer puts them.
enum {
    K_RANK, K_STREAM, K_KIND, K_NAME, K_LABEL, K_SIM_START, K_SIM_END, K_WALL_START,
    K_WALL_END, K_BYTES, K_COUNT, K_SEQ, K_COLL, K_ALGO, K_DTYPE, K_REDOP, K_STEP,
    K_NSTEPS, K_CHUNK, K_SRC, K_DST, K_MEM_CAT, K_MEM_SPACE, K_VALUE,
    K_COUNT_KEYS
};
static const char *const keys[K_COUNT_KEYS] = {
    "rank", "stream", "kind", "name", "label", "sim_start", "sim_end", "wall_start", "wall_end",
    "bytes", "count", "seq", "coll", "algo", "dtype", "redop", "step", "nsteps", "chunk", "src",
    "dst", "mem_cat", "mem_space", "value",
};

// Finds each known key among o's members (the first of duplicates, as
// cJSON_GetObjectItem would) in one pass: a line in the writer's order
// costs one comparison per key.
static void collect(const cJSON *o, const cJSON **f) {
    for (int k = 0; k < K_COUNT_KEYS; k++)
        f[k] = NULL;
    int guess = 0;
    for (const cJSON *c = o->child; c != NULL; c = c->next) {
        if (c->string == NULL)
            continue;
        int k = -1;
        if (guess < K_COUNT_KEYS && strcmp(c->string, keys[guess]) == 0)
            k = guess;
        for (int j = 0; k < 0 && j < K_COUNT_KEYS; j++)
            if (strcmp(c->string, keys[j]) == 0)
                k = j;
        if (k < 0)
            continue; // a key of a later version
        if (f[k] == NULL)
            f[k] = c;
        guess = k + 1;
    }
}


// Reads a non-negative integer field into *out (absent: 0). 0, or the error.
static SimStatus get_u64(const Line *L, const cJSON *const *f, int k, uint64_t *out) {
    const cJSON *v = f[k];
    const char *key = keys[k];
    *out = 0;
    if (v == NULL)
        return SIM_OK;
    double d = v->valuedouble;
    if (!cJSON_IsNumber(v) || !(d >= 0) || d != floor(d) || d > 18446744073709551616.0)
        goto bad;
    if (d < 9007199254740992.0) { // below 2^53 the double is exact
        *out = (uint64_t)d;
        return SIM_OK;
    }
    // From 2^53 on, the digits of the line (cJSON rounded them).
    const char *p = raw_value(L, key), *end = L->text + L->len, *q = p;
    uint64_t x = 0;
    for (; p != NULL && q < end && *q >= '0' && *q <= '9'; q++) {
        unsigned dig = (unsigned)(*q - '0');
        if (x > (UINT64_MAX - dig) / 10)
            goto bad;
        x = x * 10 + dig;
    }
    if (p != NULL && q > p && (q == end || (*q != '.' && *q != 'e' && *q != 'E'))) {
        *out = x; // plain digits: exact
        return SIM_OK;
    }
    if (d >= 18446744073709551616.0) // 1.8e19 and the like: as close as a double gets
        goto bad;
    *out = (uint64_t)d;
    return SIM_OK;
bad:
    return LINE_FAIL(L, "line %llu: \"%s\" must be a whole number from 0 to 2^64-1",
                     (unsigned long long)L->line, key);
}

// Reads an integer field in [lo, hi] into *out (absent: def).
static SimStatus get_int(const Line *L, const cJSON *const *f, int k, int required,
                         long long lo, long long hi, long long def, long long *out) {
    const cJSON *v = f[k];
    const char *key = keys[k];
    *out = def;
    if (v == NULL && !required)
        return SIM_OK;
    if (v == NULL)
        return LINE_FAIL(L, "line %llu: no \"%s\"", (unsigned long long)L->line, key);
    double d = v->valuedouble;
    if (!cJSON_IsNumber(v) || d != floor(d) || d < (double)lo || d > (double)hi)
        return LINE_FAIL(L, "line %llu: bad %s (a whole number from %lld to %lld)",
                         (unsigned long long)L->line, key, lo, hi);
    *out = (long long)d;
    return SIM_OK;
}

// Reads a time field (finite seconds) into *out (absent and optional: 0).
static SimStatus get_time(const Line *L, const cJSON *const *f, int k, int required,
                          double *out) {
    const cJSON *v = f[k];
    const char *key = keys[k];
    *out = 0;
    if (v == NULL && !required)
        return SIM_OK;
    if (v == NULL)
        return LINE_FAIL(L, "line %llu: no \"%s\"", (unsigned long long)L->line, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return LINE_FAIL(L, "line %llu: %s is not a finite time in seconds",
                         (unsigned long long)L->line, key);
    *out = v->valuedouble;
    return SIM_OK;
}

// A string field, pooled (absent or null: NULL).
static SimStatus get_str(const Line *L, VizTrace *t, const cJSON *const *f, int k,
                         const char **out) {
    const cJSON *v = f[k];
    const char *key = keys[k];
    *out = NULL;
    if (v == NULL || cJSON_IsNull(v))
        return SIM_OK;
    if (!cJSON_IsString(v) || v->valuestring == NULL)
        return LINE_FAIL(L, "line %llu: \"%s\" must be a string or null",
                         (unsigned long long)L->line, key);
    *out = sim_strpool_intern(t->pool, v->valuestring, strlen(v->valuestring));
    if (*out == NULL)
        return vtrace_fail(L->r, SIM_ENOMEM, "line %llu: out of memory",
                           (unsigned long long)L->line);
    return SIM_OK;
}

// The enums by name. Each maps a value to its name like the engine's name
// function for that enum.
typedef const char *(*NameFn)(int v);
static const char *nm_stream(int v) { return sim_stream_name((SimStream)v); }
static const char *nm_kind(int v) { return sim_event_kind_name((SimEventKind)v); }
static const char *nm_coll(int v) { return sim_coll_name((SimCollKind)v); }
static const char *nm_algo(int v) { return sim_algo_name((SimAlgo)v); }
static const char *nm_dtype(int v) { return sim_dtype_name((SimDtype)v); }
static const char *nm_redop(int v) { return sim_redop_name((SimRedOp)v); }
static const char *nm_mem_cat(int v) { return sim_mem_cat_key((SimMemCat)v); }
static const char *nm_mem_space(int v) { return sim_mem_space_name((SimMemSpace)v); }

// Reads enum field key (names fn(0..count-1); "?" -> -1 when none_ok)
// into *out (absent and optional: def).
static SimStatus get_enum(const Line *L, const cJSON *const *f, int k, NameFn fn, int count,
                          int required, int none_ok, int def, int16_t *out) {
    const cJSON *v = f[k];
    const char *key = keys[k];
    *out = (int16_t)def;
    if (v == NULL && !required)
        return SIM_OK;
    if (v == NULL)
        return LINE_FAIL(L, "line %llu: no \"%s\"", (unsigned long long)L->line, key);
    if (cJSON_IsString(v) && v->valuestring != NULL) {
        for (int e = 0; e < count; e++)
            if (strcmp(v->valuestring, fn(e)) == 0) {
                *out = (int16_t)e;
                return SIM_OK;
            }
        if (none_ok && strcmp(v->valuestring, "?") == 0) {
            *out = -1;
            return SIM_OK;
        }
    }
    char shown[48];
    if (cJSON_IsString(v) && v->valuestring != NULL)
        snprintf(shown, sizeof shown, "\"%.40s\"", v->valuestring);
    else
        snprintf(shown, sizeof shown, "(not a string)");
    return LINE_FAIL(L, "line %llu: bad %s %s (expected %s, %s, ...)",
                     (unsigned long long)L->line, key, shown, fn(0), fn(1));
}

// One line's object into e.
static SimStatus parse_event(const Line *L, VizTrace *t, const cJSON *o, SimEvent *e) {
    long long rank, step, nsteps, chunk, src, dst;
    SimStatus st;
    const cJSON *f[K_COUNT_KEYS];
    collect(o, f);
    memset(e, 0, sizeof *e);
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((st = (call)) != SIM_OK)                                                               \
            return st;                                                                             \
    } while (0)
    TRY(get_int(L, f, K_RANK, 1, 0, VTRACE_MAX_RANKS - 1, 0, &rank));
    TRY(get_enum(L, f, K_STREAM, nm_stream, SIM_STREAM_COUNT, 1, 0, 0, &e->stream));
    TRY(get_enum(L, f, K_KIND, nm_kind, SIM_EV_KIND_COUNT, 1, 0, 0, &e->kind));
    TRY(get_str(L, t, f, K_NAME, &e->name));
    TRY(get_str(L, t, f, K_LABEL, &e->label));
    TRY(get_time(L, f, K_SIM_START, 1, &e->sim_start));
    TRY(get_time(L, f, K_SIM_END, 1, &e->sim_end));
    TRY(get_time(L, f, K_WALL_START, 0, &e->wall_start));
    TRY(get_time(L, f, K_WALL_END, 0, &e->wall_end));
    TRY(get_u64(L, f, K_BYTES, &e->bytes));
    TRY(get_u64(L, f, K_COUNT, &e->count));
    TRY(get_u64(L, f, K_SEQ, &e->seq));
    TRY(get_enum(L, f, K_COLL, nm_coll, SIM_COLL_COUNT, 0, 1, 0, &e->coll));
    TRY(get_enum(L, f, K_ALGO, nm_algo, SIM_ALGO_COUNT, 0, 1, 0, &e->algo));
    TRY(get_enum(L, f, K_DTYPE, nm_dtype, SIM_DTYPE_COUNT, 0, 1, 0, &e->dtype));
    TRY(get_enum(L, f, K_REDOP, nm_redop, SIM_REDOP_COUNT, 0, 1, 0, &e->redop));
    TRY(get_int(L, f, K_STEP, 0, INT32_MIN, INT32_MAX, -1, &step));
    TRY(get_int(L, f, K_NSTEPS, 0, INT32_MIN, INT32_MAX, -1, &nsteps));
    TRY(get_int(L, f, K_CHUNK, 0, INT32_MIN, INT32_MAX, -1, &chunk));
    TRY(get_int(L, f, K_SRC, 0, INT32_MIN, INT32_MAX, -1, &src));
    TRY(get_int(L, f, K_DST, 0, INT32_MIN, INT32_MAX, -1, &dst));
    TRY(get_enum(L, f, K_MEM_CAT, nm_mem_cat, SIM_MEM_CAT_COUNT, 0, 0, 0, &e->mem_cat));
    TRY(get_enum(L, f, K_MEM_SPACE, nm_mem_space, SIM_MEM_SPACE_COUNT, 0, 0, 0, &e->mem_space));
#undef TRY
    const cJSON *v = f[K_VALUE];
    if (cJSON_IsNumber(v))
        e->value = v->valuedouble;
    else if (cJSON_IsNull(v))
        e->value = NAN; // the writer's spelling of a NaN loss
    else if (v != NULL)
        return LINE_FAIL(L, "line %llu: \"value\" must be a number or null",
                         (unsigned long long)L->line);
    e->rank = (int32_t)rank;
    e->step = (int32_t)step;
    e->nsteps = (int32_t)nsteps;
    e->chunk = (int32_t)chunk;
    e->src = (int32_t)src;
    e->dst = (int32_t)dst;
    return SIM_OK;
}

static SimStatus parse_line(const Line *L, VizTrace *t) {
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(L->text, L->len, &end, 0);
    if (o == NULL) {
        size_t col = end != NULL && end >= L->text && end <= L->text + L->len
                         ? (size_t)(end - L->text) + 1 : 1;
        return LINE_FAIL(L, "line %llu: not valid JSON (column %zu)", (unsigned long long)L->line,
                         col);
    }
    SimStatus st = SIM_OK;
    size_t rest = end != NULL ? (size_t)(end - L->text) : L->len;
    if (skip_ws(L->text, rest, L->len) != L->len)
        st = LINE_FAIL(L, "line %llu: text after the object (column %zu)",
                       (unsigned long long)L->line, rest + 1);
    else if (!cJSON_IsObject(o))
        st = LINE_FAIL(L, "line %llu: not a JSON object", (unsigned long long)L->line);
    else if (t->n == t->cap && vtrace_reserve(t, t->n + 1) != 0)
        st = vtrace_fail(L->r, SIM_ENOMEM, "line %llu: out of memory", (unsigned long long)L->line);
    SimEvent e;
    if (st == SIM_OK)
        st = parse_event(L, t, o, &e);
    cJSON_Delete(o);
    if (st != SIM_OK)
        return st;
    t->ev[t->n++] = e;
    if (e.rank >= t->nranks)
        t->nranks = e.rank + 1;
    return SIM_OK;
}

SimStatus vtrace_load_jsonl(VtReader *r, VizTrace *t) {
    Line L = {.r = r, .line = 1};
    for (;; L.line++) {
        size_t avail = r->len - r->pos;
        const char *s = (const char *)r->buf + r->pos;
        const char *nl = memchr(s, '\n', avail);
        while (nl == NULL && !r->eof) {
            if (avail >= r->cap)
                return LINE_FAIL(&L, "line %llu: longer than %zu bytes",
                                 (unsigned long long)L.line, r->cap);
            (void)vtrace_need(r, avail + 1);
            avail = r->len - r->pos;
            s = (const char *)r->buf + r->pos;
            nl = memchr(s, '\n', avail);
        }
        if (r->ioerr)
            return vtrace_fail(r, SIM_EIO, "line %llu: read error", (unsigned long long)L.line);
        if (nl == NULL && avail == 0)
            break;
        L.text = s;
        L.len = nl != NULL ? (size_t)(nl - s) : avail;
        if (skip_ws(s, 0, L.len) < L.len) { // blank lines are allowed
            SimStatus st = parse_line(&L, t);
            if (st != SIM_OK)
                return st;
        }
        r->pos += L.len + (nl != NULL);
    }
    if (t->n == 0)
        return vtrace_fail(r, SIM_EINVAL, "line 1: no events");
    if (vtrace_sort(t) != 0)
        return vtrace_fail(r, SIM_ENOMEM, "out of memory sorting %zu events", t->n);
    return SIM_OK;
}
