// viz/vtrace_bin.c: loads the binary .ddptrace format (described at the top
// of sim/trace/trace_bin.c): header, string table, fixed-size event records in
// time order, trailer. Records are decoded field by field straight from the
// reader's block into the event array (allocated once, from the header's
// count bounded by the file's size), and every field is checked, so a
// corrupted or cut file gives a message with the byte offset and never a
// read out of bounds.
#include "vtrace.h"
#include "vtrace_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "coll/coll.h"
#include "engine/memory.h"

#define BIN_VERSION 1u
#define BIN_HEADER_SIZE 312u
#define BIN_RECORD_SIZE 112u
#define BIN_TRAILER_SIZE 16u

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static uint64_t rd64(const unsigned char *p) { return rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

static double rdf64(const unsigned char *p) {
    uint64_t v = rd64(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

// The reader ran out of bytes: a read error, or the file ends early.
static SimStatus cut(VtReader *r, const char *what) {
    if (r->ioerr)
        return vtrace_fail(r, SIM_EIO, "byte %" PRIu64 ": read error", vtrace_seen(r));
    return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": truncated: the file ends inside %s",
                       vtrace_seen(r), what);
}

// A fixed text field of the header into dst (field bytes, last one NUL).
static int header_text(const unsigned char *p, char *dst, size_t field) {
    if (p[field - 1] != '\0')
        return -1;
    memcpy(dst, p, field);
    return 0;
}

typedef struct {
    uint32_t nranks;
    uint64_t nevents, nstrings, strbytes;
} BinHeader;

static SimStatus read_header(VtReader *r, VizTrace *t, BinHeader *h) {
    const unsigned char *p = vtrace_need(r, BIN_HEADER_SIZE);
    if (p == NULL)
        return cut(r, "the header");
    uint32_t version = rd32(p + 8), hsize = rd32(p + 12), rsize = rd32(p + 16);
    if (version != BIN_VERSION)
        return vtrace_fail(r, SIM_EINVAL,
                           "byte 8: unknown format version %" PRIu32
                           " (this ddplab reads version %u)",
                           version, BIN_VERSION);
    if (hsize != BIN_HEADER_SIZE)
        return vtrace_fail(r, SIM_EINVAL, "byte 12: bad header size %" PRIu32 " (version 1: %u)",
                           hsize, BIN_HEADER_SIZE);
    if (rsize != BIN_RECORD_SIZE)
        return vtrace_fail(r, SIM_EINVAL, "byte 16: bad event record size %" PRIu32
                           " (version 1: %u)", rsize, BIN_RECORD_SIZE);
    h->nranks = rd32(p + 20);
    h->nevents = rd64(p + 24);
    h->nstrings = rd64(p + 40);
    h->strbytes = rd64(p + 48);
    if (h->nranks < 1 || h->nranks > VTRACE_MAX_RANKS)
        return vtrace_fail(r, SIM_EINVAL, "byte 20: bad rank count %" PRIu32 " (1..%d)", h->nranks,
                           VTRACE_MAX_RANKS);
    // Each string takes at least its 4-byte length, and at most that plus
    // the longest string (which also keeps offsets far from overflowing).
    if (h->strbytes / 4 < h->nstrings || h->nstrings > VTRACE_MAX_STRINGS ||
        h->strbytes > h->nstrings * (4 + (uint64_t)VTRACE_MAX_STR))
        return vtrace_fail(r, SIM_EINVAL,
                           "byte 40: bad string count %" PRIu64 " for a table of %" PRIu64
                           " bytes (each string takes 4 to %u bytes; at most %u strings)",
                           h->nstrings, h->strbytes, 4 + VTRACE_MAX_STR, VTRACE_MAX_STRINGS);
    static const struct { size_t off, len; const char *what; } texts[] = {
        {56, 160, "title"}, {216, 16, "strategy"}, {232, 64, "profile"}};
    char *dst[] = {t->info.title, t->info.strategy, t->info.profile};
    for (int i = 0; i < 3; i++)
        if (header_text(p + texts[i].off, dst[i], texts[i].len) != 0)
            return vtrace_fail(r, SIM_EINVAL, "byte %zu: the %s is not NUL-terminated",
                               texts[i].off, texts[i].what);
    t->info.device_capacity = rd64(p + 296);
    // the views compare it with int64 byte counts (and ddplab writes at most
    // a parsed --device-memory): beyond 2^63 it can only be damage
    if (t->info.device_capacity > (uint64_t)INT64_MAX)
        return vtrace_fail(r, SIM_EINVAL, "byte 296: bad device capacity %" PRIu64
                           " bytes (at most 2^63 - 1)", t->info.device_capacity);
    int32_t nodes = (int32_t)rd32(p + 304);
    if (nodes < 1)
        return vtrace_fail(r, SIM_EINVAL, "byte 304: bad node count %" PRId32, nodes);
    t->info.nodes = nodes;
    t->nranks = (int)h->nranks;
    r->pos += BIN_HEADER_SIZE;
    return SIM_OK;
}

// Reads the string table into tab[0..nstrings] (tab[0] = NULL), each
// string interned in t's pool.
static SimStatus read_strings(VtReader *r, VizTrace *t, const BinHeader *h, const char **tab) {
    uint64_t start = vtrace_offset(r), end = start + h->strbytes;
    tab[0] = NULL;
    for (uint64_t k = 1; k <= h->nstrings; k++) {
        uint64_t at = vtrace_offset(r);
        const unsigned char *p = vtrace_need(r, 4);
        if (p == NULL)
            return cut(r, "the string table");
        uint32_t len = rd32(p);
        if (len > VTRACE_MAX_STR || at + 4 + len > end)
            return vtrace_fail(r, SIM_EINVAL,
                               "byte %" PRIu64 ": string %" PRIu64 " of length %" PRIu32
                               " runs past the string table (which ends at byte %" PRIu64 ")",
                               at, k, len, end);
        r->pos += 4;
        p = vtrace_need(r, len);
        if (p == NULL)
            return cut(r, "the string table");
        const void *nul = memchr(p, '\0', len);
        if (nul != NULL) {
            uint64_t where = at + 4 + (uint64_t)((const unsigned char *)nul - p);
            return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": string %" PRIu64
                               " holds a NUL byte", where, k);
        }
        tab[k] = sim_strpool_intern(t->pool, (const char *)p, len);
        if (tab[k] == NULL)
            return vtrace_fail(r, SIM_ENOMEM, "out of memory");
        r->pos += len;
    }
    if (vtrace_offset(r) != end)
        return vtrace_fail(r, SIM_EINVAL,
                           "byte %" PRIu64 ": the string table ends here, but the header says "
                           "%" PRIu64 " bytes (up to byte %" PRIu64 ")",
                           vtrace_offset(r), h->strbytes, end);
    return SIM_OK;
}

// Decodes the record at p (file offset `at`) into e, checking its fields.
static SimStatus decode(VtReader *r, const unsigned char *p, uint64_t at, uint64_t i,
                        const BinHeader *h, const char **tab, SimEvent *e) {
    e->sim_start = rdf64(p + 0);
    e->sim_end = rdf64(p + 8);
    e->wall_start = rdf64(p + 16);
    e->wall_end = rdf64(p + 24);
    e->bytes = rd64(p + 32);
    e->count = rd64(p + 40);
    e->seq = rd64(p + 48);
    e->value = rdf64(p + 56);
    uint32_t name = rd32(p + 64), label = rd32(p + 68);
    e->rank = (int32_t)rd32(p + 72);
    e->stream = (int16_t)rd16(p + 76);
    e->kind = (int16_t)rd16(p + 78);
    e->coll = (int16_t)rd16(p + 80);
    e->algo = (int16_t)rd16(p + 82);
    e->dtype = (int16_t)rd16(p + 84);
    e->redop = (int16_t)rd16(p + 86);
    e->mem_cat = (int16_t)rd16(p + 88);
    e->mem_space = (int16_t)rd16(p + 90);
    e->step = (int32_t)rd32(p + 92);
    e->nsteps = (int32_t)rd32(p + 96);
    e->chunk = (int32_t)rd32(p + 100);
    e->src = (int32_t)rd32(p + 104);
    e->dst = (int32_t)rd32(p + 108);

    static const char *const tnames[4] = {"sim_start", "sim_end", "wall_start", "wall_end"};
    const double times[4] = {e->sim_start, e->sim_end, e->wall_start, e->wall_end};
    for (unsigned k = 0; k < 4; k++)
        if (!isfinite(times[k]))
            return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": event %" PRIu64
                               ": %s is not a finite time (%g)",
                               at + 8 * k, i, tnames[k], times[k]);
    if (name > h->nstrings || label > h->nstrings)
        return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": event %" PRIu64 ": %s string index %"
                           PRIu32 " out of range (the table has %" PRIu64 " strings)",
                           at + (name > h->nstrings ? 64 : 68), i,
                           name > h->nstrings ? "name" : "label",
                           name > h->nstrings ? name : label, h->nstrings);
    if (e->rank < 0 || (uint32_t)e->rank >= h->nranks)
        return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": event %" PRIu64 ": bad rank %" PRId32
                           " (the trace has %" PRIu32 " ranks)", at + 72, i, e->rank, h->nranks);
    // The enum fields, each in [lo, count): -1 means "none" where allowed.
    int mem = e->kind == SIM_EV_MEMORY;
    const struct { const char *what; int v, lo, count; } f[8] = {
        {"stream", e->stream, 0, SIM_STREAM_COUNT},
        {"kind", e->kind, 0, SIM_EV_KIND_COUNT},
        {"coll", e->coll, -1, SIM_COLL_COUNT},
        {"algo", e->algo, -1, SIM_ALGO_COUNT},
        {"dtype", e->dtype, -1, SIM_DTYPE_COUNT},
        {"redop", e->redop, -1, SIM_REDOP_COUNT},
        {"mem_cat", e->mem_cat, mem ? 0 : -1, SIM_MEM_CAT_COUNT},
        {"mem_space", e->mem_space, mem ? 0 : -1, SIM_MEM_SPACE_COUNT},
    };
    for (unsigned k = 0; k < 8; k++)
        if (f[k].v < f[k].lo || f[k].v >= f[k].count)
            return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": event %" PRIu64 ": bad %s %d"
                               " (%d..%d)", at + 76 + 2 * k, i, f[k].what, f[k].v, f[k].lo,
                               f[k].count - 1);
    e->name = tab[name];
    e->label = tab[label];
    return SIM_OK;
}

// Checks the trailer and that nothing follows it.
static SimStatus read_trailer(VtReader *r, const BinHeader *h) {
    uint64_t at = vtrace_offset(r);
    const unsigned char *p = vtrace_need(r, BIN_TRAILER_SIZE);
    if (p == NULL)
        return cut(r, "the end marker (after all its events)");
    if (memcmp(p, "DDPT-END", 8) != 0)
        return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": no end marker after the %" PRIu64
                           " events (more events than the header says, or a corrupted file)",
                           at, h->nevents);
    if (rd64(p + 8) != h->nevents)
        return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": the end marker counts %" PRIu64
                           " events, the header %" PRIu64, at + 8, rd64(p + 8), h->nevents);
    r->pos += BIN_TRAILER_SIZE;
    if (vtrace_need(r, 1) != NULL)
        return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": unexpected bytes after the end marker",
                           vtrace_offset(r));
    if (r->ioerr)
        return vtrace_fail(r, SIM_EIO, "byte %" PRIu64 ": read error", vtrace_seen(r));
    return SIM_OK;
}

static SimStatus read_events(VtReader *r, VizTrace *t, const BinHeader *h, const char **tab) {
    // Room for every event the header announces, but no more than the file
    // can hold (a corrupted count must not allocate terabytes). A file that
    // is not a regular file (a pipe) grows the array as it reads.
    uint64_t want = h->nevents;
    uint64_t at = vtrace_offset(r), fit = (uint64_t)1 << 16;
    if (r->size != UINT64_MAX)
        fit = r->size > at ? (r->size - at) / BIN_RECORD_SIZE : 0;
    if (want > fit)
        want = fit;
    if (vtrace_reserve(t, (size_t)want) != 0)
        return vtrace_fail(r, SIM_ENOMEM, "out of memory for %" PRIu64 " events", h->nevents);
    double prev = -INFINITY;
    int32_t prev_rank = 0;
    for (uint64_t i = 0; i < h->nevents; i++) {
        uint64_t at = vtrace_offset(r);
        const unsigned char *p = vtrace_need(r, BIN_RECORD_SIZE);
        if (p == NULL) {
            if (r->ioerr)
                return vtrace_fail(r, SIM_EIO, "byte %" PRIu64 ": read error", vtrace_seen(r));
            return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": truncated: %" PRIu64 " of %" PRIu64
                               " events (the file ends inside event %" PRIu64 ")",
                               vtrace_seen(r), i, h->nevents, i);
        }
        if (t->n == t->cap && vtrace_reserve(t, t->n + 1) != 0)
            return vtrace_fail(r, SIM_ENOMEM, "out of memory at event %" PRIu64, i);
        SimEvent *e = &t->ev[t->n];
        SimStatus st = decode(r, p, at, i, h, tab, e);
        if (st != SIM_OK)
            return st;
        if (e->sim_start < prev || (e->sim_start == prev && e->rank < prev_rank))
            return vtrace_fail(r, SIM_EINVAL,
                               "byte %" PRIu64 ": event %" PRIu64 " (%.9g s, rank %" PRId32
                               ") comes before the one ahead of it (%.9g s, rank %" PRId32
                               "): not in time order",
                               at, i, e->sim_start, e->rank, prev, prev_rank);
        prev = e->sim_start;
        prev_rank = e->rank;
        t->n++;
        r->pos += BIN_RECORD_SIZE;
    }
    return SIM_OK;
}

SimStatus vtrace_load_bin(VtReader *r, VizTrace *t) {
    BinHeader h = {0};
    SimStatus st = read_header(r, t, &h);
    if (st != SIM_OK)
        return st;
    // The table's size is bounded by the file's (a regular file), so a bad
    // count cannot ask for a huge allocation.
    if (r->size != UINT64_MAX && h.strbytes > r->size - vtrace_offset(r)) {
        uint64_t at = vtrace_offset(r);
        return vtrace_fail(r, SIM_EINVAL, "byte %" PRIu64 ": truncated: the file ends inside the "
                           "string table (%" PRIu64 " bytes from byte %" PRIu64 ")",
                           r->size, h.strbytes, at);
    }
    const char **tab = malloc(((size_t)h.nstrings + 1) * sizeof *tab);
    if (tab == NULL)
        return vtrace_fail(r, SIM_ENOMEM, "out of memory for %" PRIu64 " strings", h.nstrings);
    st = read_strings(r, t, &h, tab);
    if (st == SIM_OK)
        st = read_events(r, t, &h, tab);
    if (st == SIM_OK)
        st = read_trailer(r, &h);
    free(tab);
    return st;
}
