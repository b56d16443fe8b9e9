// sim/base/outfile.c: atomic output files (temporary + fsync + rename) and the
// buffered JSON fragment writer used by every JSON writer in sim/.
// Writers stream with stdio instead of building a document tree, because a
// trace can hold millions of events.
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void outfile_release(SimOutFile *o) {
    if (o->c_locale != (locale_t)0) {
        uselocale(o->saved);
        freelocale(o->c_locale);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof(*o));
}

// Sets the thread's numbers to the "C" locale while o is open.
static void use_c_numbers(SimOutFile *o) {
    o->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (o->c_locale != (locale_t)0)
        o->saved = uselocale(o->c_locale);
}

// A destination that is a device, pipe or socket: written in place.
static SimStatus open_in_place(SimOutFile *o, const char *path) {
    o->path = strdup(path);
    o->f = o->path ? fopen(path, "w") : NULL;
    if (o->f == NULL) {
        int nomem = o->path == NULL;
        outfile_release(o);
        return nomem ? SIM_ENOMEM : SIM_EIO;
    }
    use_c_numbers(o);
    return SIM_OK;
}

SimStatus sim_outfile_open(SimOutFile *o, const char *path) {
    static const char suffix[] = ".tmp.XXXXXX";
    memset(o, 0, sizeof(*o));
    if (path == NULL || path[0] == '\0')
        return SIM_EIO;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return open_in_place(o, path);
    size_t len = strlen(path);
    o->tmp = malloc(len + sizeof(suffix));
    o->path = malloc(len + 1);
    if (o->tmp == NULL || o->path == NULL) {
        outfile_release(o);
        return SIM_ENOMEM;
    }
    memcpy(o->path, path, len + 1);
    memcpy(o->tmp, path, len);
    memcpy(o->tmp + len, suffix, sizeof(suffix));
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        outfile_release(o);
        return SIM_EIO;
    }
    // mkstemp creates 0600; a result file should be readable like any other.
    (void)fchmod(fd, 0644);
    o->f = fdopen(fd, "w");
    if (o->f == NULL) {
        close(fd);
        unlink(o->tmp);
        outfile_release(o);
        return SIM_EIO;
    }
    use_c_numbers(o);
    return SIM_OK;
}

// Makes the rename itself durable; a failure here cannot undo the rename,
// so it is ignored (the data is already fsync'ed).
static void sync_parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash == NULL) {
        dir = strdup(".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        dir = malloc(n + 1);
        if (dir != NULL) {
            memcpy(dir, path, n);
            dir[n] = '\0';
        }
    }
    if (dir == NULL)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

void sim_outfile_kill_midway(SimOutFile *o) {
    o->kill_midway = 1;
}

// The armed commit: half the bytes on disk, then SIGKILL (never returns).
static void die_midway(SimOutFile *o) {
    int fd = fileno(o->f);
    struct stat st;
    if (o->tmp != NULL && fstat(fd, &st) == 0)
        (void)ftruncate(fd, st.st_size / 2);
    (void)fsync(fd);
    raise(SIGKILL);
    abort(); // SIGKILL cannot be caught or ignored: not reached
}

SimStatus sim_outfile_commit(SimOutFile *o) {
    if (o->f == NULL)
        return SIM_EIO;
    int bad = ferror(o->f) != 0;
    bad |= fflush(o->f) != 0;
    if (o->kill_midway && !bad)
        die_midway(o);
    if (o->tmp == NULL) { // in place: a device or pipe has nothing to sync or rename
        bad |= fclose(o->f) != 0;
        o->f = NULL;
        outfile_release(o);
        return bad ? SIM_EIO : SIM_OK;
    }
    bad |= fsync(fileno(o->f)) != 0;
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0)
        bad = 1;
    if (bad)
        unlink(o->tmp);
    else
        sync_parent_dir(o->path);
    outfile_release(o);
    return bad ? SIM_EIO : SIM_OK;
}

void sim_outfile_abort(SimOutFile *o) {
    if (o->f != NULL) {
        fclose(o->f);
        if (o->tmp != NULL) // in place: what was written is gone already
            unlink(o->tmp);
    }
    outfile_release(o);
}

// ----------------------------------------------------------------------------
// buffered JSON fragments

void sim_json_begin(SimJsonOut *o, FILE *f) {
    o->f = f;
    o->n = 0;
}

void sim_json_flush(SimJsonOut *o) {
    if (o->n > 0)
        fwrite(o->buf, 1, o->n, o->f);
    o->n = 0;
}

// Appends n bytes, flushing first when they would not fit.
static void json_put(SimJsonOut *o, const void *p, size_t n) {
    if (o->n + n > sizeof(o->buf)) {
        sim_json_flush(o);
        if (n > sizeof(o->buf)) {
            fwrite(p, 1, n, o->f);
            return;
        }
    }
    memcpy(o->buf + o->n, p, n);
    o->n += n;
}

static void json_putc(SimJsonOut *o, char c) {
    if (o->n == sizeof(o->buf))
        sim_json_flush(o);
    o->buf[o->n++] = c;
}

void sim_json_raw(SimJsonOut *o, const char *s) { json_put(o, s, strlen(s)); }

void sim_json_key(SimJsonOut *o, const char *k, int first) {
    sim_json_raw(o, first ? "\"" : ", \"");
    sim_json_raw(o, k);
    sim_json_raw(o, "\": ");
}

// Length of the valid UTF-8 sequence starting at s (2-4), or 0 if the bytes
// there are not one (overlong forms, surrogates and code points above
// U+10FFFF are invalid). s[0] >= 0x80.
static int utf8_seq_len(const unsigned char *s) {
    unsigned char c = s[0];
    int n;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0; // also stops at the terminating NUL
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

void sim_json_str(SimJsonOut *o, const char *str) {
    static const char hex[] = "0123456789abcdef";
    if (str == NULL) {
        json_put(o, "null", 4);
        return;
    }
    const unsigned char *s = (const unsigned char *)str;
    json_putc(o, '"');
    while (*s != '\0') {
        // Copy the longest run of bytes that need no escaping in one go.
        size_t run = 0;
        while (s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
            run++;
        if (run > 0) {
            json_put(o, s, run);
            s += run;
            continue;
        }
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            json_put(o, esc, 2);
            s++;
        } else if (c < 0x20) {
            const char *named = c == '\n'   ? "\\n"
                                : c == '\r' ? "\\r"
                                : c == '\t' ? "\\t"
                                : c == '\b' ? "\\b"
                                : c == '\f' ? "\\f"
                                             : NULL;
            if (named != NULL) {
                json_put(o, named, 2);
            } else {
                char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                json_put(o, u, 6);
            }
            s++;
        } else {
            int n = utf8_seq_len(s);
            if (n == 0) {
                json_put(o, "\\ufffd", 6);
                s++;
            } else {
                json_put(o, s, (size_t)n);
                s += n;
            }
        }
    }
    json_putc(o, '"');
}

void sim_json_num(SimJsonOut *o, double v) {
    if (!isfinite(v)) {
        json_put(o, "null", 4);
        return;
    }
    char buf[40];
    int n = snprintf(buf, sizeof(buf), "%.15g", v);
    if (strtod(buf, NULL) != v)
        n = snprintf(buf, sizeof(buf), "%.17g", v);
    json_put(o, buf, (size_t)n);
}

void sim_json_u64(SimJsonOut *o, uint64_t v) {
    char buf[24];
    int i = (int)sizeof(buf);
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    json_put(o, buf + i, sizeof(buf) - (size_t)i);
}

void sim_json_i64(SimJsonOut *o, int64_t v) {
    if (v < 0) {
        json_putc(o, '-');
        sim_json_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        sim_json_u64(o, (uint64_t)v);
    }
}

void sim_json_milli(SimJsonOut *o, int64_t v) {
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        json_putc(o, '-');
    sim_json_u64(o, u / 1000);
    unsigned frac = (unsigned)(u % 1000);
    if (frac != 0) {
        char d[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
                     (char)('0' + frac % 10)};
        size_t n = 4;
        while (d[n - 1] == '0')
            n--;
        json_put(o, d, n);
    }
}
