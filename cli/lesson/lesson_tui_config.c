// cli/lesson/lesson_tui_config.c: a run block's configuration in one line
// (lesson_tui_config_line). `ddplab run` prints its configuration as a
// table of about thirty lines; the lesson screen shows four of its rows
// (the ones every lesson is about) and the options the block itself set,
// and the whole table is one key away (o).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_tui_internal.h"

// The rows shown, and how they are led in the line.
static const struct {
    const char *key;
    const char *lead;
} config_rows[] = {
    {"strategy", ""},
    {"model", ""},
    {"batch", "batch "},
    {"loss shown", "loss: "},
};
enum { CONFIG_NROWS = 4 };

// Options the rows above already show.
static const char *const config_shown_opts[] = {"--strategy", "-n", "--ranks", "--model"};

typedef struct {
    char *s;
    size_t n, cap;
} Buf;

static void buf_add(Buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t c = (b->n + n + 1) * 2;
        char *t = realloc(b->s, c);
        if (t == NULL)
            return;
        b->s = t;
        b->cap = c;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void buf_puts(Buf *b, const char *s) {
    buf_add(b, s, strlen(s));
}

// The cells of a table row "| key | value |" with the blanks trimmed.
static int row_cells(const char *line, size_t len, const char **k, size_t *kn, const char **v,
                     size_t *vn) {
    if (len < 5 || line[0] != '|' || line[len - 1] != '|')
        return 0;
    const char *bar = memchr(line + 1, '|', len - 1);
    if (bar == NULL || bar == line + len - 1)
        return 0;
    const char *a = line + 1, *ae = bar;
    const char *b = bar + 1, *be = line + len - 1;
    while (a < ae && *a == ' ')
        a++;
    while (ae > a && ae[-1] == ' ')
        ae--;
    while (b < be && *b == ' ')
        b++;
    while (be > b && be[-1] == ' ')
        be--;
    *k = a, *kn = (size_t)(ae - a), *v = b, *vn = (size_t)(be - b);
    return 1;
}

// The value of row key in the table of output (continuation rows, with an
// empty key, joined with a blank). Heap, or NULL.
static char *table_value(const char *output, const char *key) {
    Buf b = {0};
    int in = 0;
    for (const char *p = output; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *k, *v;
        size_t kn, vn;
        if (row_cells(p, len, &k, &kn, &v, &vn)) {
            if (kn == strlen(key) && strncmp(k, key, kn) == 0) {
                in = 1;
                buf_add(&b, v, vn);
            } else if (in && kn == 0) {
                buf_puts(&b, " ");
                buf_add(&b, v, vn);
            } else if (in) {
                break;
            }
        } else if (in) {
            break;
        }
        p = nl ? nl + 1 : p + len;
    }
    return b.s;
}

static int shown_opt(const char *a) {
    for (size_t k = 0; k < sizeof config_shown_opts / sizeof config_shown_opts[0]; k++) {
        size_t n = strlen(config_shown_opts[k]);
        if (strncmp(a, config_shown_opts[k], n) == 0 && (a[n] == '\0' || a[n] == '='))
            return 1;
    }
    return 0;
}

// The block's own options, less those the rows show and the values that
// go with them.
static void config_opts(Buf *b, const LessonRun *r) {
    for (int i = 1; i < r->argc; i++) {
        const char *a = r->argv[i];
        if (shown_opt(a)) {
            if (strchr(a, '=') == NULL && i + 1 < r->argc && r->argv[i + 1][0] != '-')
                i++;
            continue;
        }
        buf_puts(b, b->n ? " " : "");
        buf_puts(b, a);
    }
}

char *lesson_tui_config_line(const LessonRun *r, const char *output) {
    Buf b = {0};
    // "plan: ..." and "bench: ..." say what ran; a run is what lessons mostly show
    if (strcmp(r->argv[0], "run") != 0) {
        buf_puts(&b, r->argv[0]);
        buf_puts(&b, ":");
    }
    size_t lead = b.n;
    for (int k = 0; k < CONFIG_NROWS && output != NULL; k++) {
        char *v = table_value(output, config_rows[k].key);
        if (v == NULL)
            continue;
        // "32 per rank x 1 accumulation step x 4 ranks": the part before the
        // first " x " is what a lesson varies; the rest is the strategy's.
        // "mean over the ranks: all_reduce(loss, AVG)": how, after the colon, is
        // in the table (o)
        if (strcmp(config_rows[k].key, "loss shown") == 0) {
            char *colon = strchr(v, ':');
            if (colon != NULL)
                *colon = '\0';
        }
        if (strcmp(config_rows[k].key, "batch") == 0) {
            char *x = strstr(v, " x 1 accumulation step");
            if (x != NULL)
                *x = '\0';
        }
        buf_puts(&b, b.n > lead ? "; " : lead ? " " : "");
        buf_puts(&b, config_rows[k].lead);
        buf_puts(&b, v);
        free(v);
    }
    Buf o = {0};
    config_opts(&o, r);
    if (o.n > 0) {
        buf_puts(&b, b.n > lead ? "; " : lead ? " " : "");
        buf_puts(&b, o.s);
    }
    free(o.s);
    return b.s;
}
