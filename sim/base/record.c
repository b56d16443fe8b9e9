// sim/base/record.c: named numbers as one line of text (see record.h).
#include "base/record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// writing

void sim_rec_out_init(SimRecOut *o) {
    memset(o, 0, sizeof *o);
}

void sim_rec_out_free(SimRecOut *o) {
    free(o->buf);
    memset(o, 0, sizeof *o);
}

static void put(SimRecOut *o, const char *s, size_t n) {
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (o->len + n + 1 > cap)
            cap *= 2;
        char *b = realloc(o->buf, cap);
        if (b == NULL) {
            o->oom = 1;
            return;
        }
        o->buf = b;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void put_name(SimRecOut *o, const char *name) {
    if (o->len > 0)
        put(o, " ", 1);
    put(o, name, strlen(name));
    put(o, "=", 1);
}

static void put_i64(SimRecOut *o, int64_t v) {
    char s[32];
    int n = snprintf(s, sizeof s, "%" PRId64, v);
    put(o, s, (size_t)n);
}

static void put_f64(SimRecOut *o, double v) {
    char s[40];
    int n = snprintf(s, sizeof s, "%.17g", v); // reads back bit for bit
    put(o, s, (size_t)n);
}

void sim_rec_i64(SimRecOut *o, const char *name, int64_t v) {
    put_name(o, name);
    put_i64(o, v);
}

void sim_rec_f64(SimRecOut *o, const char *name, double v) {
    put_name(o, name);
    put_f64(o, v);
}

void sim_rec_i64s(SimRecOut *o, const char *name, const int64_t *v, size_t n) {
    put_name(o, name);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            put(o, ",", 1);
        put_i64(o, v[i]);
    }
}

void sim_rec_f64s(SimRecOut *o, const char *name, const double *v, size_t n) {
    put_name(o, name);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            put(o, ",", 1);
        put_f64(o, v[i]);
    }
}

char *sim_rec_take(SimRecOut *o) {
    if (o->oom) {
        sim_rec_out_free(o);
        return NULL;
    }
    if (o->buf == NULL) // no field at all: the empty record
        put(o, "", 0);
    char *s = o->buf;
    memset(o, 0, sizeof *o);
    return s;
}

// ----------------------------------------------------------------------------
// reading

void sim_rec_in_init(SimRecIn *in, const char *text) {
    in->p = text;
    in->bad = text == NULL;
}

// Moves past "name=" when the next field has that name.
static int take_name(SimRecIn *in, const char *name) {
    if (in->bad)
        return 0;
    while (*in->p == ' ')
        in->p++;
    size_t n = strlen(name);
    if (strncmp(in->p, name, n) != 0 || in->p[n] != '=') {
        in->bad = 1;
        return 0;
    }
    in->p += n + 1;
    return 1;
}

static int at_field_end(const char *p) {
    return *p == '\0' || *p == ' ';
}

// One value, followed by ',' (more), ' ' or the end (last).
static int take_i64(SimRecIn *in, int64_t *v) {
    const char *s = in->p;
    if (!((*s >= '0' && *s <= '9') || *s == '-')) {
        in->bad = 1;
        return 0;
    }
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE || !(at_field_end(end) || *end == ',')) {
        in->bad = 1;
        return 0;
    }
    *v = (int64_t)x;
    in->p = end;
    return 1;
}

static int take_f64(SimRecIn *in, double *v) {
    const char *s = in->p;
    if (at_field_end(s) || *s == ',') {
        in->bad = 1;
        return 0;
    }
    char *end;
    double x = strtod(s, &end);
    if (end == s || !(at_field_end(end) || *end == ',')) {
        in->bad = 1;
        return 0;
    }
    *v = x;
    in->p = end;
    return 1;
}

// After a list's value: 1 when another follows (the ',' taken), else 0.
static int more(SimRecIn *in) {
    if (*in->p != ',')
        return 0;
    in->p++;
    return 1;
}

int64_t sim_rec_get_i64(SimRecIn *in, const char *name) {
    int64_t v = 0;
    if (take_name(in, name) && take_i64(in, &v) && *in->p == ',')
        in->bad = 1; // a list where one value was written
    return in->bad ? 0 : v;
}

double sim_rec_get_f64(SimRecIn *in, const char *name) {
    double v = 0;
    if (take_name(in, name) && take_f64(in, &v) && *in->p == ',')
        in->bad = 1;
    return in->bad ? 0 : v;
}

size_t sim_rec_get_i64s_upto(SimRecIn *in, const char *name, int64_t *out, size_t max) {
    if (!take_name(in, name))
        return 0;
    size_t n = 0;
    if (at_field_end(in->p))
        return 0; // the empty list
    do {
        int64_t v;
        if (n == max || !take_i64(in, &v)) {
            in->bad = 1;
            return 0;
        }
        out[n++] = v;
    } while (more(in));
    return n;
}

void sim_rec_get_i64s(SimRecIn *in, const char *name, int64_t *out, size_t n) {
    size_t got = sim_rec_get_i64s_upto(in, name, out, n);
    if (got != n)
        in->bad = 1;
}

void sim_rec_get_f64s(SimRecIn *in, const char *name, double *out, size_t n) {
    if (!take_name(in, name))
        return;
    if (at_field_end(in->p)) {
        if (n != 0)
            in->bad = 1;
        return;
    }
    size_t got = 0;
    do {
        double v;
        if (got == n || !take_f64(in, &v)) {
            in->bad = 1;
            return;
        }
        out[got++] = v;
    } while (more(in));
    if (got != n)
        in->bad = 1;
}

int sim_rec_end(const SimRecIn *in) {
    if (in->bad)
        return -1;
    const char *p = in->p;
    while (*p == ' ')
        p++;
    return *p == '\0' ? 0 : -1;
}
