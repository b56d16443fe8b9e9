// cli/core/optable_value.c: what each kind of option value accepts (see
// optable.h) and the words a rejected one is told with. Whole numbers read
// as `ddplab run` always read them: digits after an optional sign, the whole
// text, in the row's range.
#include "core/optable_value.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int whole(const CliOptCtx *cx, const CliOptRow *row, const char *text, CliOptValue *v) {
    char range[96];
    snprintf(range, sizeof range, "a whole number from %lld to %lld", row->lo, row->hi);
    const char *allowed = row->allowed ? row->allowed : range;
    char *end = NULL;
    errno = 0;
    long long x = isdigit((unsigned char)text[0]) || text[0] == '-' || text[0] == '+'
                      ? strtoll(text, &end, 10) : 0;
    int junk = end == NULL || end == text || *end != '\0';
    if (junk || errno == ERANGE || x < row->lo || x > row->hi) {
        if (row->what) // the row's own words for every failure
            return cli_optab_reject(cx, row, text);
        return cli_optab_fail(cx, row->name, text,
                              junk ? "is not a whole number"
                                   : x < 0 ? "is negative" : "is out of range",
                              allowed);
    }
    v->i = x;
    return 0;
}

static int real(const CliOptCtx *cx, const CliOptRow *row, const char *text, CliOptValue *v) {
    char *end = NULL;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(x)) {
        if (row->what)
            return cli_optab_reject(cx, row, text);
        return cli_optab_fail(cx, row->name, text, "is not a number",
                              row->allowed ? row->allowed : "a number");
    }
    v->x = x;
    return 0;
}

// Digits with an optional K, M or G (KiB, MiB, GiB), at most row->hi bytes.
static int size(const CliOptCtx *cx, const CliOptRow *row, const char *text, CliOptValue *v) {
    const char *allowed = row->allowed ? row->allowed : "a byte count with an optional K, M or G";
    uint64_t max = (uint64_t)row->hi, n = 0;
    if (text[0] == '-')
        return cli_optab_fail(cx, row->name, text, "is negative", allowed);
    int big = 0;
    const char *p = text;
    for (; isdigit((unsigned char)*p); p++) {
        if (n > max)
            big = 1; // keep scanning, so that garbage is still reported as garbage
        else
            n = n * 10 + (uint64_t)(*p - '0');
    }
    uint64_t mult = 1;
    switch (*p) {
    case 'k': case 'K': mult = (uint64_t)1 << 10; p++; break;
    case 'm': case 'M': mult = (uint64_t)1 << 20; p++; break;
    case 'g': case 'G': mult = (uint64_t)1 << 30; p++; break;
    default: break;
    }
    if (p == text || !isdigit((unsigned char)text[0]) || *p != '\0')
        return cli_optab_fail(cx, row->name, text, "is not a size", allowed);
    if (big || n > max / mult)
        return cli_optab_fail(cx, row->name, text, "is absurdly large", allowed);
    v->bytes = n * mult;
    return 0;
}

static int is_word(const CliOptRow *row, const char *s, size_t len) {
    for (int i = 0; row->words && row->words[i]; i++)
        if (strlen(row->words[i]) == len && strncmp(row->words[i], s, len) == 0)
            return i;
    return -1;
}

// A comma-separated list, not empty; every item one of the row's words when
// it has some (a trailing comma ends the list).
static int list(const CliOptCtx *cx, const CliOptRow *row, const char *text) {
    if (row->words == NULL)
        return 0;
    if (text[0] == '\0')
        return cli_optab_reject(cx, row, text);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || is_word(row, p, n) < 0)
            return cli_optab_reject(cx, row, text);
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

int cli_optab_value(const CliOptCtx *cx, const CliOptRow *row, const char *text,
                    CliOptValue *v) {
    memset(v, 0, sizeof *v);
    v->text = text;
    switch (row->kind) {
    case CLI_OPT_FLAG: v->i = 1; return 0;
    case CLI_OPT_INT: return whole(cx, row, text, v);
    case CLI_OPT_REAL: return real(cx, row, text, v);
    case CLI_OPT_SIZE: return size(cx, row, text, v);
    case CLI_OPT_ENUM:
        v->i = is_word(row, text, strlen(text));
        return v->i < 0 ? cli_optab_reject(cx, row, text) : 0;
    case CLI_OPT_LIST: return list(cx, row, text);
    default: return 0; // NAME, STRING, PATH: the row's apply reads the text
    }
}

void cli_optab_store(const CliOptRow *row, const CliOptValue *v, void *dest) {
    char *at = (char *)dest + row->offset;
    int i = (int)v->i, zero = 0;
    int64_t i64 = (int64_t)v->i;
    uint64_t u64 = row->kind == CLI_OPT_SIZE ? v->bytes : (uint64_t)v->i;
    size_t sz = (size_t)v->bytes;
    switch (row->store) {
    case CLI_STORE_TEXT: memcpy(at, &v->text, sizeof v->text); break;
    case CLI_STORE_INT: memcpy(at, &i, sizeof i); break;
    case CLI_STORE_FALSE: memcpy(at, &zero, sizeof zero); break;
    case CLI_STORE_I64: memcpy(at, &i64, sizeof i64); break;
    case CLI_STORE_U64: memcpy(at, &u64, sizeof u64); break;
    case CLI_STORE_REAL: memcpy(at, &v->x, sizeof v->x); break;
    case CLI_STORE_SIZE: memcpy(at, &sz, sizeof sz); break;
    default: break;
    }
}
