// cli/learn/lesson_util.c: the lesson parser's small shared pieces (see
// lesson_internal.h): strings, messages, files, line lookup and the checks of
// ids, numbers, positions and fact names.
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"    // defines: cli_opt_vline
#include "core/viz_cli.h" // defines: cli_viz_at_ok
#include "learn/lesson_internal.h"

// ---------------------------------------------------------------------------
// LessonBuf

static int buf_reserve(LessonBuf *b, size_t extra) {
    if (b->oom)
        return -1;
    if (b->n + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return -1;
        }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (s == NULL) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void lesson_buf_add(LessonBuf *b, const char *s, size_t n) {
    if (buf_reserve(b, n) != 0)
        return;
    if (n > 0)
        memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void lesson_buf_adds(LessonBuf *b, const char *s) { lesson_buf_add(b, s, strlen(s)); }

void lesson_buf_addc(LessonBuf *b, char c) { lesson_buf_add(b, &c, 1); }

void lesson_buf_rtrim(LessonBuf *b) {
    while (b->n > 0 && (b->s[b->n - 1] == ' ' || b->s[b->n - 1] == '\n'))
        b->n--;
    if (b->s)
        b->s[b->n] = '\0';
}

char *lesson_buf_take(LessonBuf *b) {
    char *s = b->s;
    if (s == NULL && !b->oom)
        s = calloc(1, 1);
    b->s = NULL;
    b->n = b->cap = 0;
    return s;
}

void lesson_buf_free(LessonBuf *b) {
    free(b->s);
    b->s = NULL;
    b->n = b->cap = 0;
}

// ---------------------------------------------------------------------------
// Messages and strings

int lesson_fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...) {
    if (err == NULL || errlen == 0)
        return -1;
    int k = line > 0 ? snprintf(err, errlen, "%s:%d: ", path, line)
                     : snprintf(err, errlen, "%s: ", path);
    if (k < 0)
        k = 0;
    if ((size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        cli_opt_vline(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

const char *lesson_shown(const char *s, size_t n, char *buf) {
    size_t k = 0;
    for (; k < n && k < 60; k++)
        buf[k] = isprint((unsigned char)s[k]) ? s[k] : '?';
    if (k < n)
        memcpy(buf + k, "...", 3), k += 3;
    buf[k] = '\0';
    return buf;
}

char *lesson_strndup(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (d == NULL)
        return NULL;
    if (n > 0)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

int lesson_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int lesson_next_line(const char *text, size_t len, size_t *off, const char **s, size_t *n) {
    if (*off >= len)
        return 0;
    *s = text + *off;
    const char *nl = memchr(*s, '\n', len - *off);
    *n = nl ? (size_t)(nl - *s) : len - *off;
    *off += *n + (nl != NULL);
    return 1;
}

const char *lesson_trim(const char *s, size_t *n) {
    while (*n > 0 && lesson_blank(s[0]))
        s++, (*n)--;
    while (*n > 0 && lesson_blank(s[*n - 1]))
        (*n)--;
    return s;
}

void *lesson_grow(void *arr, int *cap, int n, size_t elem) {
    if (n < *cap)
        return arr;
    if (*cap > INT_MAX / 2)
        return NULL;
    int c = *cap ? *cap * 2 : 8;
    void *p = realloc(arr, (size_t)c * elem);
    if (p != NULL)
        *cap = c;
    return p;
}

char *lesson_padded(const char *text, size_t len) {
    char *c = malloc(len + LESSON_PAD);
    if (c == NULL)
        return NULL;
    if (len > 0)
        memcpy(c, text, len);
    memset(c + len, 0, LESSON_PAD);
    return c;
}

char *lesson_read_file(const char *path, size_t *len, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        lesson_fail(err, errlen, path, 0, "cannot read: %s", strerror(errno));
        return NULL;
    }
    LessonBuf b = {0};
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0 && b.n <= LESSON_MAX_BYTES)
        lesson_buf_add(&b, chunk, k);
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        lesson_buf_free(&b);
        lesson_fail(err, errlen, path, 0, "cannot read: %s", strerror(e));
        return NULL;
    }
    if (b.n > LESSON_MAX_BYTES) {
        lesson_buf_free(&b);
        lesson_fail(err, errlen, path, 0, "is larger than %zu MiB; a lesson is a short text",
                    LESSON_MAX_BYTES >> 20);
        return NULL;
    }
    *len = b.n;
    char *s = lesson_buf_take(&b);
    if (s == NULL)
        lesson_fail(err, errlen, path, 0, "out of memory");
    return s;
}

// ---------------------------------------------------------------------------
// Lines

int lesson_lines_init(LessonLines *ln, const char *text, size_t len) {
    ln->text = text;
    ln->len = len;
    ln->n = 0;
    int cap = 0;
    ln->starts = NULL;
    size_t off = 0;
    for (;;) {
        size_t *st = ln->n < INT_MAX ? lesson_grow(ln->starts, &cap, ln->n, sizeof *st) : NULL;
        if (st == NULL) {
            lesson_lines_free(ln);
            return -1;
        }
        ln->starts = st;
        ln->starts[ln->n++] = off;
        const char *nl = off < len ? memchr(text + off, '\n', len - off) : NULL;
        if (nl == NULL)
            return 0;
        off = (size_t)(nl - text) + 1;
    }
}

void lesson_lines_free(LessonLines *ln) {
    free(ln->starts);
    ln->starts = NULL;
    ln->n = 0;
}

int lesson_line_of(const LessonLines *ln, const char *p) {
    // Compared as integers: p may point into a buffer of md4c's own.
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)ln->text;
    if (p == NULL || a < lo || a - lo >= ln->len || ln->n == 0)
        return 0;
    size_t off = (size_t)(a - lo);
    int l = 0, h = ln->n - 1; // the last line starting at or before off
    while (l < h) {
        int m = l + (h - l + 1) / 2;
        if (ln->starts[m] <= off)
            l = m;
        else
            h = m - 1;
    }
    return l + 1;
}

// ---------------------------------------------------------------------------
// Checks

int lesson_id_ok(const char *s, size_t n) {
    if (n == 0 || n > 64 || s[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return 0;
    return 1;
}

static const char *digits(const char *p) {
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

int lesson_number_ok(const char *s, double *v) {
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    const char *d = digits(p);
    int whole = d > p;
    p = d;
    if (*p == '.') {
        d = digits(p + 1);
        if (!whole && d == p + 1)
            return 0;
        p = d;
    } else if (!whole) {
        return 0;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        d = digits(p);
        if (d == p)
            return 0;
        p = d;
    }
    if (*p != '\0')
        return 0;
    errno = 0;
    double x = strtod(s, NULL);
    if (!isfinite(x))
        return 0;
    *v = x;
    return 1;
}

int lesson_pos_ok(const char *s) {
    return cli_viz_at_ok(s); // exactly what `ddplab replay --at` takes
}

static int all_digits(const char *s) {
    if (*s == '\0' || strlen(s) > 9)
        return 0;
    return *digits(s) == '\0';
}

// Why the player cannot afford regular expression re, or NULL. glibc's
// regcomp copies a bounded repetition {m,n} n times, so nested ones
// multiply (a 30-byte pattern took 3 GB and half a minute), and a
// back-reference \N makes regexec exponential; lessons need neither (+, *
// and [...] say it all). Brackets are skipped up to their first ']' (a
// ']' right after '[' or '[^' is literal): never further than their end.
static const char *regex_problem(const char *re) {
    if (strlen(re) > 256)
        return "needs an extended regular expression after ':' of at most 256 characters";
    for (const char *p = re; *p; p++) {
        if (*p == '[') {
            p += p[1] == '^' ? 2 : 1;
            if (*p == ']')
                p++;
            while (*p && *p != ']')
                p++;
            if (*p == '\0')
                break;
        } else if (*p == '\\' && p[1] >= '1' && p[1] <= '9') {
            return "needs an extended regular expression after ':' without back-references "
                   "(\\1 ... \\9)";
        } else if (*p == '\\' && p[1] != '\0') {
            p++;
        } else if (*p == '{') {
            return "needs an extended regular expression after ':' without a repetition {m,n} "
                   "(use + or *, or \\{ for a brace)";
        }
    }
    return NULL;
}

int lesson_fact_ok(const char *s, int *trace, const char **why) {
    static const char *const plain[] = {"exit", "iterations", "buckets",   "units",
                                        "loss", "sim_us",     "exposed_us"};
    *trace = 1;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(s, plain[i]) == 0) {
            *trace = strcmp(s, "exit") != 0;
            return 0;
        }
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : 0;
    *why = "is not a fact";
    if (colon == NULL)
        return -1;
    const char *arg = colon + 1;
    if ((n == 13 && strncmp(s, "bucket_params", n) == 0) ||
        (n == 10 && strncmp(s, "peak_bytes", n) == 0) || (n == 4 && strncmp(s, "loss", n) == 0)) {
        *why = "needs a number after ':' (a bucket, a rank or an iteration, from 0)";
        return all_digits(arg) ? 0 : -1;
    }
    if ((n == 11 && strncmp(s, "collectives", n) == 0) ||
        (n == 10 && strncmp(s, "coll_bytes", n) == 0)) {
        *why = "needs a collective's name after ':' (AllReduce, AllGather, ...)";
        if (*arg == '\0')
            return -1;
        for (const char *p = arg; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
                return -1;
        return 0;
    }
    if (n == 3 && strncmp(s, "out", n) == 0) {
        *trace = 0;
        if ((*why = regex_problem(arg)) != NULL)
            return -1;
        *why = "needs an extended regular expression after ':' that compiles";
        regex_t re;
        if (*arg == '\0' || regcomp(&re, arg, REG_EXTENDED) != 0)
            return -1;
        regfree(&re);
        return 0;
    }
    return -1;
}
