// viz/vtrace_internal.h: what the parts of vtrace (the pool and the trace in
// vtrace.c, the file loaders in vtrace_load.c, vtrace_bin.c and
// vtrace_jsonl.c) share. Private to viz/.
#ifndef DDPLAB_VIZ_VTRACE_INTERNAL_H
#define DDPLAB_VIZ_VTRACE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "vtrace.h"

// The most ranks a loaded trace may name: the engine's limit (a world has
// at most 65536 ranks, sim/engine/world.c). The views keep state per rank, so a
// few-line file naming rank 1048575 cost 600 MB and seconds to open.
#define VTRACE_MAX_RANKS (1 << 16)
// The longest string a binary file may hold.
#define VTRACE_MAX_STR (1u << 20)
// The most distinct strings a binary file may hold.
#define VTRACE_MAX_STRINGS (1u << 24)


// Makes room for at least `want` events in t. 0, or -1 (memory).
int vtrace_reserve(VizTrace *t, size_t want);

// ----------------------------------------------------------------------------
// reading a file in big blocks (vtrace_load.c)

typedef struct {
    FILE *f;
    const char *path;
    unsigned char *buf; // [cap]; buf[pos..len) is not consumed yet
    size_t cap, len, pos;
    uint64_t base;      // file offset of buf[0]
    uint64_t size;      // the file's size when it is a regular file, else UINT64_MAX
    int eof;            // the file has no more bytes
    int ioerr;          // a read failed
    char *err;          // the caller's message buffer
    size_t errlen;
} VtReader;

// Makes at least n unconsumed bytes available in buf (n <= cap). Returns
// a pointer to them, or NULL at the end of the file (or a read error:
// r->ioerr) with fewer than n left.
const unsigned char *vtrace_need(VtReader *r, size_t n);
// The file offset of the next unconsumed byte.
static inline uint64_t vtrace_offset(const VtReader *r) { return r->base + r->pos; }
// The file's size as far as read (the whole size once at the end).
uint64_t vtrace_seen(const VtReader *r);

// Writes "PATH: " + the formatted message into r->err; returns st.
SimStatus vtrace_fail(VtReader *r, SimStatus st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// The loaders: the reader is at offset 0 with the first bytes buffered;
// *t is empty (pool set) and is filled in; on failure the caller empties it.
SimStatus vtrace_load_bin(VtReader *r, VizTrace *t);
SimStatus vtrace_load_jsonl(VtReader *r, VizTrace *t);

// Sorts t's events into (sim_start, rank, position) order, NaN last,
// keeping equal ones in their order. 0, or -1 (memory).
int vtrace_sort(VizTrace *t);

#endif
