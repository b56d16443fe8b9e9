// viz/vtrace_load.c: viz_trace_load. Opens the file, reads it in big blocks
// (VtReader), tells the format by its first bytes and hands over to the
// binary (vtrace_bin.c) or JSON lines (vtrace_jsonl.c) loader. Chrome trace
// JSON, which ddplab only exports, is recognised and refused with a hint.
#include "vtrace.h"
#include "vtrace_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define READ_BLOCK ((size_t)4 << 20) // 4 MiB: room for the longest string too

// ----------------------------------------------------------------------------
// reader

const unsigned char *vtrace_need(VtReader *r, size_t n) {
    if (r->len - r->pos >= n)
        return r->buf + r->pos;
    if (n > r->cap)
        return NULL;
    // Move what is left to the front, then fill the rest of the block.
    size_t left = r->len - r->pos;
    memmove(r->buf, r->buf + r->pos, left);
    r->base += r->pos;
    r->pos = 0;
    r->len = left;
    while (r->len < n && !r->eof) {
        size_t got = fread(r->buf + r->len, 1, r->cap - r->len, r->f);
        r->len += got;
        if (got == 0) {
            r->eof = 1;
            r->ioerr = ferror(r->f) != 0;
        }
    }
    return r->len >= n ? r->buf : NULL;
}

uint64_t vtrace_seen(const VtReader *r) { return r->base + r->len; }

SimStatus vtrace_fail(VtReader *r, SimStatus st, const char *fmt, ...) {
    if (r->err == NULL || r->errlen == 0)
        return st;
    int k = snprintf(r->err, r->errlen, "%s: ", r->path);
    if (k >= 0 && (size_t)k < r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return st;
}

// ----------------------------------------------------------------------------
// format detection

// The first byte that is not JSON white space in p[0..n), or -1.
static int first_text_byte(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return p[i];
    return -1;
}

// 1 if the first JSON object of p[0..n) opens with the key "traceEvents"
// (the Chrome trace format ddplab writes), allowing white space.
static int is_chrome(const unsigned char *p, size_t n) {
    static const char key[] = "\"traceEvents\"";
    size_t i = 0;
    while (i < n && p[i] != '{')
        i++;
    for (i++; i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'); i++)
        ;
    return n - i >= sizeof key - 1 && memcmp(p + i, key, sizeof key - 1) == 0;
}

static SimStatus load_from(VtReader *r, VizTrace *t) {
    // 64 bytes are enough to tell the formats apart (fewer in a short file).
    const unsigned char *p = vtrace_need(r, 64);
    size_t have = r->len;
    if (p == NULL && r->ioerr)
        return vtrace_fail(r, SIM_EIO, "byte 0: read error: %s", strerror(errno));
    p = r->buf;
    if (have == 0)
        return vtrace_fail(r, SIM_EINVAL, "byte 0: empty file, not a ddplab trace");
    if (have >= 8 ? memcmp(p, "DDPTRACE", 8) == 0 : memcmp(p, "DDPTRACE", have) == 0)
        return vtrace_load_bin(r, t);
    int c = first_text_byte(p, have);
    if (c == '{' && is_chrome(p, have))
        return vtrace_fail(r, SIM_EINVAL,
                           "byte 0: a Chrome trace JSON, which ddplab exports but does not "
                           "replay; record with --trace FILE.ddptrace (or FILE.jsonl)");
    if (c == '[')
        return vtrace_fail(r, SIM_EINVAL,
                           "byte 0: a JSON array (a Chrome trace?), not a ddplab trace; "
                           "record with --trace FILE.ddptrace");
    if (c == '{')
        return vtrace_load_jsonl(r, t);
    if (c < 0 && r->eof)
        return vtrace_fail(r, SIM_EINVAL, "line 1: only white space, not a ddplab trace");
    return vtrace_fail(r, SIM_EINVAL,
                       "byte 0: not a ddplab trace (neither a .ddptrace file nor JSON lines)");
}

SimStatus viz_trace_load(const char *path, VizTrace *t, char *err, size_t errlen) {
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (t == NULL)
        return SIM_EINVAL;
    memset(t, 0, sizeof *t);
    t->info.nodes = 1;
    VtReader r = {.path = path != NULL ? path : "(null)", .err = err, .errlen = errlen,
                  .size = UINT64_MAX};
    if (path == NULL)
        return vtrace_fail(&r, SIM_EINVAL, "no file name");
    r.f = fopen(path, "rb");
    if (r.f == NULL)
        return vtrace_fail(&r, SIM_EIO, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fileno(r.f), &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            fclose(r.f);
            return vtrace_fail(&r, SIM_EIO, "is a directory");
        }
        if (S_ISREG(sb.st_mode))
            r.size = (uint64_t)sb.st_size;
    }
    // A regular file smaller than a block needs no more than its size
    // (every read asks for bytes of the file), and at least 4 KiB.
    r.cap = READ_BLOCK;
    if (r.size < READ_BLOCK)
        r.cap = r.size < 4096 ? 4096 : (size_t)r.size + 1;
    r.buf = malloc(r.cap);
    SimStatus st = r.buf == NULL ? SIM_ENOMEM : viz_trace_init(t, 0, NULL, path);
    if (st == SIM_ENOMEM)
        vtrace_fail(&r, st, "out of memory");
    if (st == SIM_OK)
        st = load_from(&r, t);
    free(r.buf);
    fclose(r.f);
    if (st != SIM_OK) {
        viz_trace_free(t);
        return st;
    }
    // Give back what a growing array left unused (a large trace stays long).
    if (t->cap > t->n && t->n > 0) {
        SimEvent *ev = realloc(t->ev, t->n * sizeof *ev);
        if (ev != NULL) {
            t->ev = ev;
            t->cap = t->n;
        }
    }
    return SIM_OK;
}
