// sim/formats/npy.c: the .npy reader and writer (see npy.h for the format and what
// is accepted).
//
// Reading checks the whole preamble and header before allocating anything,
// and compares the size the header promises with the file's size, so a
// corrupt shape cannot make ddplab allocate terabytes. The data are then
// read straight into the array (float32, int64) or converted in blocks
// (float64 -> float32, int32 -> int64).
#include "formats/npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/errbuf.h"  // defines: sim_errbuf_fail
#include "base/outfile.h" // defines: SimOutFile

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy code reads and writes host memory as little-endian data"
#endif

static const char NPY_MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
#define NPY_ALIGN 64           // numpy pads headers so the data start 64-aligned
#define NPY_MAX_HEADER (1 << 20) // far beyond any real header (numpy: 10000)
#define NPY_BLOCK 16384        // elements per conversion block
// Byte sizes must fit in a signed 64-bit offset and in size_t.
#define NPY_MAX_BYTES                                                                  \
    ((uint64_t)INT64_MAX < (uint64_t)SIZE_MAX ? (uint64_t)INT64_MAX : (uint64_t)SIZE_MAX)

static const char *const DESCR[] = {"<f4", "<f8", "<i4", "<i8"};
static const size_t TYPE_SIZE[] = {4, 8, 4, 8};

const char *sim_npy_descr(SimNpyType t) {
    return (unsigned)t < 4 ? DESCR[t] : "?";
}

size_t sim_npy_type_size(SimNpyType t) {
    return (unsigned)t < 4 ? TYPE_SIZE[t] : 0;
}

int sim_npy_type_is_float(SimNpyType t) {
    return t == SIM_NPY_F32 || t == SIM_NPY_F64;
}

void sim_npy_free(SimNpyArray *a) {
    if (a == NULL)
        return;
    free(a->f);
    free(a->i);
    memset(a, 0, sizeof *a);
}

const char *sim_npy_shape_str(const SimNpyArray *a, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int d = 0; d < a->ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)a->shape[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, a->ndim == 1 ? ",)" : ")");
    return buf;
}

// ----------------------------------------------------------------------------
// error messages

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
} Ctx;

// Writes "PATH: byte OFF: <reason>" into the error buffer; returns st.
static SimStatus fail(const Ctx *c, SimStatus st, long long off, const char *fmt, ...) {
    if (c->err == NULL || c->errlen == 0)
        return st;
    int n = snprintf(c->err, c->errlen, "%s: byte %lld: ", c->path, off);
    if (n >= 0 && (size_t)n < c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return st;
}

// ----------------------------------------------------------------------------
// the header dict

typedef struct {
    const Ctx *c;
    const char *s;  // the header text (not NUL-terminated)
    size_t len;
    size_t pos;
    long long base; // file offset of s[0]
    long long shape_at; // file offset of the shape tuple, once parsed
} Parser;

static long long at(const Parser *p) {
    return p->base + (long long)p->pos;
}

static void skip_ws(Parser *p) {
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

// Consumes ch after optional whitespace; 0 if it is not there.
static int accept(Parser *p, char ch) {
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ch) {
        p->pos++;
        return 1;
    }
    return 0;
}

static SimStatus expect(Parser *p, char ch, const char *where) {
    if (accept(p, ch))
        return SIM_OK;
    if (p->pos >= p->len)
        return fail(p->c, SIM_EFORMAT, at(p), "header ends early: expected '%c' %s", ch, where);
    return fail(p->c, SIM_EFORMAT, at(p), "header: expected '%c' %s, found '%c'", ch, where,
                p->s[p->pos]);
}

// A quoted string without escapes, copied into out[cap].
static SimStatus parse_string(Parser *p, char *out, size_t cap, const char *what) {
    skip_ws(p);
    long long start = at(p);
    if (p->pos >= p->len)
        return fail(p->c, SIM_EFORMAT, start, "header ends early: expected a quoted string for %s",
                    what);
    if (p->s[p->pos] != '\'' && p->s[p->pos] != '"')
        return fail(p->c, SIM_EFORMAT, start, "header: expected a quoted string for %s", what);
    char q = p->s[p->pos++];
    size_t n = 0;
    while (p->pos < p->len && p->s[p->pos] != q) {
        char ch = p->s[p->pos];
        if (ch == '\\' || ch == '\n' || (unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7f)
            return fail(p->c, SIM_EFORMAT, at(p), "header: unexpected character 0x%02x in %s",
                        (unsigned char)ch, what);
        if (n + 1 >= cap)
            return fail(p->c, SIM_EFORMAT, start, "header: %s is too long", what);
        out[n++] = ch;
        p->pos++;
    }
    if (p->pos >= p->len)
        return fail(p->c, SIM_EFORMAT, start, "header ends inside the string for %s", what);
    p->pos++;
    out[n] = '\0';
    return SIM_OK;
}

static SimStatus parse_descr(Parser *p, SimNpyType *t) {
    char d[64];
    long long start = (skip_ws(p), at(p));
    if (p->pos < p->len && p->s[p->pos] == '[')
        return fail(p->c, SIM_EFORMAT, start,
                    "header field 'descr': structured dtypes (a list of fields) are not "
                    "supported");
    SIM_CHECK(parse_string(p, d, sizeof d, "field 'descr'"));
    for (int k = 0; k < 4; k++)
        if (strcmp(d, DESCR[k]) == 0) {
            *t = (SimNpyType)k;
            return SIM_OK;
        }
    if (d[0] == '>' && (strcmp(d + 1, "f4") == 0 || strcmp(d + 1, "f8") == 0 ||
                        strcmp(d + 1, "i4") == 0 || strcmp(d + 1, "i8") == 0))
        return fail(p->c, SIM_EFORMAT, start,
                    "header field 'descr': '%s' is big-endian; ddplab reads little-endian data "
                    "(save with arr.astype('<%s'))",
                    d, d + 1);
    return fail(p->c, SIM_EFORMAT, start,
                "header field 'descr': unsupported dtype '%s' (ddplab reads <f4, <f8, <i4 and "
                "<i8)",
                d);
}

static SimStatus parse_fortran(Parser *p, int *fortran) {
    skip_ws(p);
    long long start = at(p);
    const char *rest = p->s + p->pos;
    size_t left = p->len - p->pos;
    if (left >= 5 && memcmp(rest, "False", 5) == 0) {
        *fortran = 0;
        p->pos += 5;
    } else if (left >= 4 && memcmp(rest, "True", 4) == 0) {
        *fortran = 1;
        p->pos += 4;
    } else {
        return fail(p->c, SIM_EFORMAT, start,
                    "header field 'fortran_order': expected True or False");
    }
    if (*fortran)
        return fail(p->c, SIM_EFORMAT, start,
                    "header field 'fortran_order': True (Fortran order) is not supported; save "
                    "a C-ordered array (np.ascontiguousarray)");
    return SIM_OK;
}

// One dimension: decimal digits, optionally followed by Python 2's 'L'.
static SimStatus parse_dim(Parser *p, int64_t *v) {
    skip_ws(p);
    long long start = at(p);
    if (p->pos < p->len && p->s[p->pos] == '-')
        return fail(p->c, SIM_EFORMAT, start, "header field 'shape': negative dimension");
    if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
        return fail(p->c, SIM_EFORMAT, start, "header field 'shape': expected a dimension");
    int64_t x = 0;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        int d = p->s[p->pos++] - '0';
        if (x > (INT64_MAX - d) / 10)
            return fail(p->c, SIM_EFORMAT, start,
                        "header field 'shape': dimension does not fit in 64 bits");
        x = x * 10 + d;
    }
    if (p->pos < p->len && p->s[p->pos] == 'L')
        p->pos++;
    *v = x;
    return SIM_OK;
}

// A tuple of dimensions: (), (5,), (3, 4) or (3, 4,). "(5)" is an int in
// Python, not a tuple, and is refused as numpy refuses it.
static SimStatus parse_shape(Parser *p, int *ndim, int64_t *shape, long long *where) {
    skip_ws(p);
    long long start = at(p);
    *where = start;
    SIM_CHECK(expect(p, '(', "to open field 'shape'"));
    int n = 0, trailing_comma = 0;
    while (!accept(p, ')')) {
        if (n == SIM_NPY_MAX_DIMS)
            return fail(p->c, SIM_EFORMAT, start,
                        "header field 'shape': more than %d dimensions", SIM_NPY_MAX_DIMS);
        SIM_CHECK(parse_dim(p, &shape[n++]));
        trailing_comma = accept(p, ',');
        if (!trailing_comma) {
            SIM_CHECK(expect(p, ')', "to close field 'shape'"));
            break;
        }
    }
    if (n == 1 && !trailing_comma)
        return fail(p->c, SIM_EFORMAT, start,
                    "header field 'shape': (N) is not a tuple; expected (N,)");
    *ndim = n;
    return SIM_OK;
}

// Parses the whole dict: exactly the keys descr, fortran_order and shape.
static SimStatus parse_header(Parser *p, SimNpyArray *a) {
    static const char *const keys[] = {"descr", "fortran_order", "shape"};
    unsigned seen = 0;
    int fortran = 0;
    SIM_CHECK(expect(p, '{', "at the start of the header dict"));
    while (!accept(p, '}')) {
        char key[32];
        long long kpos = (skip_ws(p), at(p));
        SIM_CHECK(parse_string(p, key, sizeof key, "a header key"));
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0)
            k++;
        if (k == 3)
            return fail(p->c, SIM_EFORMAT, kpos, "header: unknown key '%s'", key);
        if (seen & (1u << k))
            return fail(p->c, SIM_EFORMAT, kpos, "header: key '%s' appears twice", key);
        seen |= 1u << k;
        SIM_CHECK(expect(p, ':', "after a header key"));
        if (k == 0)
            SIM_CHECK(parse_descr(p, &a->stored));
        else if (k == 1)
            SIM_CHECK(parse_fortran(p, &fortran));
        else
            SIM_CHECK(parse_shape(p, &a->ndim, a->shape, &p->shape_at));
        if (!accept(p, ',')) {
            SIM_CHECK(expect(p, '}', "to close the header dict"));
            break;
        }
    }
    for (int k = 0; k < 3; k++)
        if (!(seen & (1u << k)))
            return fail(p->c, SIM_EFORMAT, p->base, "header: missing key '%s'", keys[k]);
    skip_ws(p);
    if (p->pos != p->len)
        return fail(p->c, SIM_EFORMAT, at(p), "header: unexpected text after the dict");
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// reading

static int read_exact(FILE *f, void *buf, size_t n) {
    return n == 0 || fread(buf, 1, n, f) == n;
}

// Reads the preamble and header; on success *data_off is the offset of the
// first element and a holds type and shape.
static SimStatus read_header(const Ctx *c, FILE *f, long long fsize, SimNpyArray *a,
                             long long *data_off, long long *shape_at) {
    unsigned char pre[12];
    size_t got = fread(pre, 1, 8, f);
    if (got == 0)
        return fail(c, SIM_EFORMAT, 0, "empty file: no .npy header");
    if (got >= 1 && memcmp(pre, NPY_MAGIC, got < 6 ? got : 6) != 0)
        return fail(c, SIM_EFORMAT, 0, "not an .npy file (it does not start with \\x93NUMPY)");
    if (got < 8)
        return fail(c, SIM_EFORMAT, (long long)got,
                    "truncated header: the file ends inside the %d-byte preamble", 8);
    int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3 || minor != 0)
        return fail(c, SIM_EFORMAT, 6,
                    "unsupported .npy format version %d.%d (ddplab reads 1.0, 2.0 and 3.0)",
                    major, minor);
    size_t lenbytes = major == 1 ? 2 : 4;
    if (!read_exact(f, pre + 8, lenbytes))
        return fail(c, SIM_EFORMAT, 8, "truncated header: the file ends inside the header length");
    uint32_t hlen = pre[8] | (uint32_t)pre[9] << 8;
    if (lenbytes == 4)
        hlen |= (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
    long long hoff = 8 + (long long)lenbytes;
    if (fsize >= 0 && hoff + (long long)hlen > fsize)
        return fail(c, SIM_EFORMAT, hoff,
                    "truncated header: it claims %u bytes but the file has %lld after byte %lld",
                    hlen, fsize - hoff, hoff);
    if (hlen > NPY_MAX_HEADER)
        return fail(c, SIM_EFORMAT, 8, "header length %u is implausibly large", hlen);
    char *h = malloc(hlen ? hlen : 1);
    if (h == NULL)
        return fail(c, SIM_ENOMEM, hoff, "out of memory reading the header");
    SimStatus st = SIM_OK;
    if (!read_exact(f, h, hlen)) {
        st = fail(c, SIM_EFORMAT, hoff, "truncated header: the file ends before its %u bytes",
                  hlen);
    } else {
        Parser p = {c, h, hlen, 0, hoff, hoff};
        st = parse_header(&p, a);
        *shape_at = p.shape_at;
    }
    free(h);
    *data_off = hoff + (long long)hlen;
    return st;
}

// Reads numel stored elements into the array's own buffer, converting f8
// and i4 in blocks. Returns 1 on success, 0 on a short read, -1 when the
// conversion block cannot be allocated.
static int read_elements(FILE *f, SimNpyArray *a) {
    if (a->stored == SIM_NPY_F32)
        return read_exact(f, a->f, a->numel * 4);
    if (a->stored == SIM_NPY_I64)
        return read_exact(f, a->i, a->numel * 8);
    size_t esz = sim_npy_type_size(a->stored);
    void *block = malloc(NPY_BLOCK * esz);
    if (block == NULL)
        return -1;
    int ok = 1;
    for (size_t done = 0; ok && done < a->numel; done += NPY_BLOCK) {
        size_t n = a->numel - done < NPY_BLOCK ? a->numel - done : NPY_BLOCK;
        ok = read_exact(f, block, n * esz);
        for (size_t k = 0; ok && k < n; k++) {
            if (a->stored == SIM_NPY_F64)
                a->f[done + k] = (float)((const double *)block)[k];
            else
                a->i[done + k] = ((const int32_t *)block)[k];
        }
    }
    free(block);
    return ok;
}

static SimStatus read_data(const Ctx *c, FILE *f, long long fsize, long long off,
                           long long shape_at, SimNpyArray *a) {
    char sh[256];
    size_t esz = sim_npy_type_size(a->stored);
    size_t numel = 1;
    for (int d = 0; d < a->ndim; d++) {
        uint64_t dim = (uint64_t)a->shape[d];
        if (dim != 0 && numel > NPY_MAX_BYTES / 8 / dim)
            return fail(c, SIM_EFORMAT, shape_at,
                        "header field 'shape': %s holds too many elements (the byte size "
                        "overflows)",
                        sim_npy_shape_str(a, sh, sizeof sh));
        numel *= (size_t)dim;
    }
    a->numel = numel;
    long long bytes = (long long)(numel * esz);
    if (fsize >= 0 && fsize - off < bytes)
        return fail(c, SIM_EFORMAT, fsize,
                    "truncated data: shape %s of %s needs %lld bytes after byte %lld, the file "
                    "has %lld",
                    sim_npy_shape_str(a, sh, sizeof sh), DESCR[a->stored], bytes, off,
                    fsize - off);
    if (fsize >= 0 && fsize - off > bytes)
        return fail(c, SIM_EFORMAT, off + bytes,
                    "%lld extra bytes after the data (shape %s of %s ends here)",
                    fsize - off - bytes, sim_npy_shape_str(a, sh, sizeof sh),
                    DESCR[a->stored]);
    if (numel > 0) {
        if (sim_npy_type_is_float(a->stored))
            a->f = malloc(numel * sizeof(float));
        else
            a->i = malloc(numel * sizeof(int64_t));
        if (a->f == NULL && a->i == NULL)
            return fail(c, SIM_ENOMEM, off, "out of memory for %zu elements", numel);
    }
    errno = 0;
    int got = read_elements(f, a);
    if (got < 0)
        return fail(c, SIM_ENOMEM, off, "out of memory converting %s", DESCR[a->stored]);
    if (got == 0) {
        if (ferror(f))
            return fail(c, SIM_EIO, off, "read error: %s", strerror(errno ? errno : EIO));
        return fail(c, SIM_EFORMAT, off,
                    "truncated data: shape %s of %s needs %lld bytes after byte %lld",
                    sim_npy_shape_str(a, sh, sizeof sh), DESCR[a->stored], bytes, off);
    }
    if (fgetc(f) != EOF) // only reachable when the size was unknown (a pipe)
        return fail(c, SIM_EFORMAT, off + bytes, "extra bytes after the data");
    return SIM_OK;
}

SimStatus sim_npy_read(const char *path, SimNpyArray *out, char *err, size_t errlen) {
    Ctx c = {path ? path : "(null)", err, errlen};
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (out == NULL || path == NULL)
        return SIM_EINVAL;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int e = errno;
        return sim_errbuf_fail(err, errlen, SIM_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat sb;
    long long fsize = -1; // unknown for pipes and devices
    int have_stat = fstat(fileno(f), &sb) == 0;
    if (have_stat && S_ISREG(sb.st_mode))
        fsize = (long long)sb.st_size;
    if (have_stat && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return sim_errbuf_fail(err, errlen, SIM_EIO, "%s: cannot read: it is a directory", path);
    }
    long long off = 0, shape_at = 0;
    SimStatus st = read_header(&c, f, fsize, out, &off, &shape_at);
    if (st == SIM_OK)
        st = read_data(&c, f, fsize, off, shape_at, out);
    fclose(f);
    if (st != SIM_OK)
        sim_npy_free(out);
    return st;
}

// ----------------------------------------------------------------------------
// writing

size_t sim_npy_format_header(char *buf, size_t cap, int major, SimNpyType t, int ndim,
                             const int64_t *shape) {
    if (major < 1 || major > 3 || (unsigned)t >= 4 || ndim < 0 || ndim > SIM_NPY_MAX_DIMS ||
        (ndim > 0 && shape == NULL))
        return 0;
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     DESCR[t]);
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0)
            return 0;
        n += snprintf(dict + n, sizeof dict - (size_t)n, d ? ", %lld" : "%lld",
                      (long long)shape[d]);
    }
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", ndim == 1 ? "," : "");
    size_t pre = major == 1 ? 10 : 12;
    // dict, spaces, '\n': the total is the next multiple of NPY_ALIGN.
    size_t total = (pre + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    size_t hlen = total - pre;
    if (total > cap || (major == 1 && hlen > 65535))
        return 0;
    memcpy(buf, NPY_MAGIC, 6);
    buf[6] = (char)major;
    buf[7] = 0;
    for (size_t k = 0; k < pre - 8; k++)
        buf[8 + k] = (char)((hlen >> (8 * k)) & 0xff);
    memcpy(buf + pre, dict, (size_t)n);
    memset(buf + pre + n, ' ', hlen - (size_t)n - 1);
    buf[total - 1] = '\n';
    return total;
}

SimStatus sim_npy_write(const char *path, SimNpyType t, const void *data, int ndim,
                        const int64_t *shape) {
    char hdr[1024];
    size_t hn = sim_npy_format_header(hdr, sizeof hdr, 1, t, ndim, shape);
    if (path == NULL || hn == 0)
        return SIM_EINVAL;
    size_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] != 0 && numel > NPY_MAX_BYTES / 8 / (uint64_t)shape[d])
            return SIM_EINVAL;
        numel *= (size_t)shape[d];
    }
    if (numel > 0 && data == NULL)
        return SIM_EINVAL;
    SimOutFile o;
    SIM_CHECK(sim_outfile_open(&o, path));
    fwrite(hdr, 1, hn, o.f);
    if (numel > 0)
        fwrite(data, sim_npy_type_size(t), numel, o.f);
    return sim_outfile_commit(&o); // a short write surfaces here as SIM_EIO
}
