// sim/trace/trace_bin.c: the binary trace file (.ddptrace) that `ddplab replay`
// loads (viz/vtrace.h reads it back), and the writer that picks a format by
// the file's name.
//
// Format version 1. Every integer is little-endian; doubles are IEEE 754
// binary64 stored as the little-endian uint64 of their bits (NaN kept).
// Offsets are in bytes from the start of the file.
//
//   header (312 bytes)
//     0    8  magic "DDPTRACE"
//     8    4  u32 format version (1)
//     12   4  u32 header size (312: where the string table starts)
//     16   4  u32 event record size (112)
//     20   4  u32 nranks (1 .. 1048576); every event's rank is below it
//     24   8  u64 nevents (records that follow the string table)
//     32   8  u64 dropped (events the run recorded beyond its per-rank limit)
//     40   8  u64 nstrings (entries in the string table; index 0 is not one)
//     48   8  u64 string table size in bytes
//     56 160  title     (SimTraceInfo; NUL-padded, the last byte always NUL)
//     216 16  strategy  (the same)
//     232 64  profile   (the same)
//     296  8  u64 device_capacity (bytes per rank; 0 = unlimited)
//     304  4  i32 nodes (>= 1)
//     308  4  u32 reserved, 0
//
//   string table (the size the header gives): nstrings entries, each a u32
//     length (at most 1048576: the writer refuses a longer name with
//     SIM_EINVAL) then that many bytes, no NUL inside and none after.
//     Entry k (k = 1 .. nstrings, in order of first use by the events) is
//     string index k; index 0 stands for NULL. Every distinct name and
//     label the events use is there once, by content.
//
//   events: nevents records of 112 bytes in merged time order (sim_start,
//   then rank, then recording order: sim_trace_order), each SimEvent field
//   written on its own, in this order:
//     0  f64 sim_start    8  f64 sim_end    16 f64 wall_start  24 f64 wall_end
//     32 u64 bytes        40 u64 count      48 u64 seq         56 f64 value
//     64 u32 name (string index)            68 u32 label (string index)
//     72 i32 rank
//     76 i16 stream   78 i16 kind   80 i16 coll   82 i16 algo
//     84 i16 dtype    86 i16 redop  88 i16 mem_cat 90 i16 mem_space
//     92 i32 step     96 i32 nsteps 100 i32 chunk 104 i32 src  108 i32 dst
//
//   trailer (16 bytes): "DDPT-END", then u64 nevents again. A file cut
//   short anywhere lacks it, so truncation is always detected; nothing may
//   follow it.
//
// A reader refuses other versions, and header or record sizes other than
// the version's. The file is written atomically (outfile.h).
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "trace/trace_order.h"

#define BIN_VERSION 1u
#define BIN_HEADER_SIZE 312u
#define BIN_RECORD_SIZE 112u
#define BIN_MAX_STR (1u << 20) // longest string a file may hold

// ----------------------------------------------------------------------------
// little-endian encoding into a byte buffer

static void le16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void le32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void lef64(unsigned char *p, double d) {
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    le64(p, v);
}

// A buffered binary writer: records are encoded into buf and written in
// large blocks (stdio errors surface at sim_outfile_commit).
typedef struct {
    FILE *f;
    size_t n;
    unsigned char buf[1 << 16];
} BinOut;

static unsigned char *bin_reserve(BinOut *o, size_t n) {
    if (sizeof o->buf - o->n < n) {
        fwrite(o->buf, 1, o->n, o->f);
        o->n = 0;
    }
    unsigned char *p = o->buf + o->n;
    o->n += n;
    return p;
}

static void bin_flush(BinOut *o) {
    fwrite(o->buf, 1, o->n, o->f);
    o->n = 0;
}

// ----------------------------------------------------------------------------
// string table: distinct strings by content, in order of first use

typedef struct {
    const char **strs;  // [n] index k+1 in the file is strs[k]
    uint32_t *lens;     // [n]
    size_t n, cap;
    uint32_t *slots;    // [nslots] k+1, 0 = empty; at most half full
    size_t nslots;
    uint64_t bytes;     // the table's size in the file
    // A direct-mapped cache of pointer -> index: events share a few static
    // strings, so most lookups end here without hashing the content.
    const char *cache_ptr[256];
    uint32_t cache_idx[256];
} BinStrs;

static uint64_t bin_hash(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ULL; // FNV-1a
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static size_t bin_slot(const BinStrs *t, const char *s, size_t len) {
    size_t mask = t->nslots - 1, i = (size_t)bin_hash(s, len) & mask;
    while (t->slots[i] != 0) {
        size_t k = t->slots[i] - 1;
        if (t->lens[k] == len && memcmp(t->strs[k], s, len) == 0)
            break;
        i = (i + 1) & mask;
    }
    return i;
}

static int bin_rehash(BinStrs *t) {
    size_t n = t->nslots ? t->nslots * 2 : 256;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    for (size_t k = 0; k < t->n; k++)
        t->slots[bin_slot(t, t->strs[k], t->lens[k])] = (uint32_t)(k + 1);
    return 0;
}

// The file's index of s (0 for NULL), adding it when new. Returns 0 and
// *idx, or SIM_ENOMEM / SIM_EINVAL (a string too long or too many).
static SimStatus bin_index(BinStrs *t, const char *s, uint32_t *idx) {
    if (s == NULL) {
        *idx = 0;
        return SIM_OK;
    }
    size_t c = ((uintptr_t)s >> 3) & 255;
    if (t->cache_ptr[c] == s) {
        *idx = t->cache_idx[c];
        return SIM_OK;
    }
    size_t len = strlen(s);
    if (len > BIN_MAX_STR)
        return SIM_EINVAL;
    if ((t->n + 1) * 2 > t->nslots && bin_rehash(t) != 0)
        return SIM_ENOMEM;
    size_t i = bin_slot(t, s, len);
    if (t->slots[i] == 0) {
        if (t->n >= UINT32_MAX - 1)
            return SIM_EINVAL;
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 64;
            const char **strs = realloc(t->strs, cap * sizeof *strs);
            if (strs == NULL)
                return SIM_ENOMEM;
            t->strs = strs;
            uint32_t *lens = realloc(t->lens, cap * sizeof *lens);
            if (lens == NULL)
                return SIM_ENOMEM;
            t->lens = lens;
            t->cap = cap;
        }
        t->strs[t->n] = s;
        t->lens[t->n] = (uint32_t)len;
        t->n++;
        t->slots[i] = (uint32_t)t->n;
        t->bytes += 4 + len;
    }
    t->cache_ptr[c] = s;
    t->cache_idx[c] = t->slots[i];
    *idx = t->slots[i];
    return SIM_OK;
}

static void bin_strs_free(BinStrs *t) {
    free(t->strs);
    free(t->lens);
    free(t->slots);
}

// ----------------------------------------------------------------------------
// sections

static void put_text(unsigned char *p, const char *s, size_t field) {
    memset(p, 0, field);
    size_t len = strnlen(s, field - 1);
    memcpy(p, s, len);
}

static void bin_header(BinOut *o, const SimTrace *t, size_t n, const BinStrs *strs) {
    const SimTraceInfo *info = sim_trace_info(t);
    unsigned char *p = bin_reserve(o, BIN_HEADER_SIZE);
    memset(p, 0, BIN_HEADER_SIZE);
    memcpy(p, "DDPTRACE", 8);
    le32(p + 8, BIN_VERSION);
    le32(p + 12, BIN_HEADER_SIZE);
    le32(p + 16, BIN_RECORD_SIZE);
    le32(p + 20, (uint32_t)sim_trace_nranks(t));
    le64(p + 24, n);
    le64(p + 32, sim_trace_dropped(t));
    le64(p + 40, strs->n);
    le64(p + 48, strs->bytes);
    put_text(p + 56, info->title, 160);
    put_text(p + 216, info->strategy, 16);
    put_text(p + 232, info->profile, 64);
    le64(p + 296, info->device_capacity);
    le32(p + 304, (uint32_t)(info->nodes < 1 ? 1 : info->nodes));
}

static void bin_strings(BinOut *o, const BinStrs *strs) {
    for (size_t k = 0; k < strs->n; k++) {
        le32(bin_reserve(o, 4), strs->lens[k]);
        // A long string goes in pieces that fit the buffer.
        const char *s = strs->strs[k];
        size_t left = strs->lens[k];
        while (left > 0) {
            size_t part = left < 4096 ? left : 4096;
            memcpy(bin_reserve(o, part), s, part);
            s += part;
            left -= part;
        }
    }
}

static void bin_record(BinOut *o, const SimEvent *e, uint32_t name, uint32_t label) {
    unsigned char *p = bin_reserve(o, BIN_RECORD_SIZE);
    lef64(p + 0, e->sim_start);
    lef64(p + 8, e->sim_end);
    lef64(p + 16, e->wall_start);
    lef64(p + 24, e->wall_end);
    le64(p + 32, e->bytes);
    le64(p + 40, e->count);
    le64(p + 48, e->seq);
    lef64(p + 56, e->value);
    le32(p + 64, name);
    le32(p + 68, label);
    le32(p + 72, (uint32_t)e->rank);
    le16(p + 76, (uint16_t)e->stream);
    le16(p + 78, (uint16_t)e->kind);
    le16(p + 80, (uint16_t)e->coll);
    le16(p + 82, (uint16_t)e->algo);
    le16(p + 84, (uint16_t)e->dtype);
    le16(p + 86, (uint16_t)e->redop);
    le16(p + 88, (uint16_t)e->mem_cat);
    le16(p + 90, (uint16_t)e->mem_space);
    le32(p + 92, (uint32_t)e->step);
    le32(p + 96, (uint32_t)e->nsteps);
    le32(p + 100, (uint32_t)e->chunk);
    le32(p + 104, (uint32_t)e->src);
    le32(p + 108, (uint32_t)e->dst);
}

// ----------------------------------------------------------------------------

static const SimEvent *key_event(const SimTrace *t, const SimTraceKey *k) {
    return sim_trace_rank_events(t, k->rank) + k->pos;
}

SimStatus sim_trace_write_bin(const SimTrace *t, const char *path) {
    if (t == NULL || path == NULL || sim_trace_nranks(t) > (1 << 20))
        return SIM_EINVAL;
    size_t n;
    SimTraceKey *keys = sim_trace_order(t, &n);
    // idx[2i], idx[2i+1]: event i's name and label in the string table.
    uint32_t *idx = n > 0 && n <= SIZE_MAX / (2 * sizeof *idx) ? malloc(2 * n * sizeof *idx) : NULL;
    BinOut *o = malloc(sizeof *o);
    BinStrs *strs = calloc(1, sizeof *strs);
    SimStatus st = SIM_OK;
    if ((n > 0 && (keys == NULL || idx == NULL)) || o == NULL || strs == NULL)
        st = SIM_ENOMEM;
    for (size_t i = 0; st == SIM_OK && i < n; i++) {
        const SimEvent *e = key_event(t, &keys[i]);
        st = bin_index(strs, e->name, &idx[2 * i]);
        if (st == SIM_OK)
            st = bin_index(strs, e->label, &idx[2 * i + 1]);
    }
    SimOutFile f;
    if (st == SIM_OK)
        st = sim_outfile_open(&f, path);
    if (st == SIM_OK) {
        o->f = f.f;
        o->n = 0;
        bin_header(o, t, n, strs);
        bin_strings(o, strs);
        for (size_t i = 0; i < n; i++)
            bin_record(o, key_event(t, &keys[i]), idx[2 * i], idx[2 * i + 1]);
        unsigned char *p = bin_reserve(o, 16);
        memcpy(p, "DDPT-END", 8);
        le64(p + 8, n);
        bin_flush(o);
        st = sim_outfile_commit(&f);
    }
    if (strs != NULL)
        bin_strs_free(strs);
    free(strs);
    free(o);
    free(idx);
    free(keys);
    return st;
}

static int has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

SimTraceFile sim_trace_file_of(const char *path) {
    return has_suffix(path, ".ddptrace") ? SIM_TRACE_FILE_BIN
           : has_suffix(path, ".jsonl")  ? SIM_TRACE_FILE_JSONL
                                         : SIM_TRACE_FILE_CHROME;
}

SimStatus sim_trace_write_auto(const SimTrace *t, const char *path) {
    if (t == NULL || path == NULL)
        return SIM_EINVAL;
    switch (sim_trace_file_of(path)) {
    case SIM_TRACE_FILE_BIN:
        return sim_trace_write_bin(t, path);
    case SIM_TRACE_FILE_JSONL:
        return sim_trace_write_jsonl(t, path);
    default:
        return sim_trace_write_chrome(t, path, 0);
    }
}
