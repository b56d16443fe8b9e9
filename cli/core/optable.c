// cli/core/optable.c: walking a command line against an option table (see
// optable.h): finding each option's row, taking its value, and the one
// wording of every message, so that run, plan and bench refuse bad input
// in the same words.
#include "core/optable.h"

#include <stdlib.h>
#include <string.h>

#include "core/optable_value.h" // defines: cli_optab_value, cli_optab_store
#include "core/opts.h"          // defines: cli_opt_shown, cli_opt_vline

const CliOptRow *cli_optab_rows(const CliOptSection *s, int *n) {
    if (s->rows_of)
        return s->rows_of(n);
    *n = s->nrows;
    return s->rows;
}

static const CliOptRow *find_in(const CliOptRow *rows, int n, const char *name, size_t len) {
    for (int i = 0; i < n; i++)
        if (strlen(rows[i].name) == len && strncmp(rows[i].name, name, len) == 0)
            return &rows[i];
    return NULL;
}

const CliOptRow *cli_optab_find(const CliOptTable *t, const char *name, size_t len,
                                const CliOptSection **sec) {
    for (int s = 0; s < t->nsections; s++) {
        int n;
        const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
        const CliOptRow *row = find_in(rows, n, name, len);
        if (row) {
            if (sec)
                *sec = &t->sections[s];
            return row;
        }
    }
    return NULL;
}

static const CliOptRow *find_short(const CliOptTable *t, char c, const CliOptSection **sec) {
    for (int s = 0; s < t->nsections; s++) {
        int n;
        const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
        for (int i = 0; i < n; i++)
            if (rows[i].shortname && rows[i].shortname == c) {
                *sec = &t->sections[s];
                return &rows[i];
            }
    }
    return NULL;
}

// ----------------------------------------------------------------------------
// messages

void cli_optab_verror(const char *prog, const char *fmt, va_list ap) {
    char msg[1200];
    cli_opt_vline(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "%s: %s\n", prog, msg);
}

void cli_optab_error(const char *prog, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_optab_verror(prog, fmt, ap);
    va_end(ap);
}

int cli_optab_fail(const CliOptCtx *cx, const char *opt, const char *val, const char *what,
                   const char *allowed) {
    char vbuf[72];
    cli_optab_error(cx->prog, "--%s: '%s' %s; allowed: %s", opt,
                    cli_opt_shown(val, vbuf, sizeof vbuf), what, allowed);
    return CLI_OPTAB_ERROR;
}

// The row's words joined by ", " into buf, after `lead`.
static const char *joined(const CliOptRow *row, const char *lead, char *buf, size_t len) {
    size_t n = (size_t)snprintf(buf, len, "%s", lead);
    for (int i = 0; row->words && row->words[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", row->words[i]);
    return buf;
}

int cli_optab_reject(const CliOptCtx *cx, const CliOptRow *row, const char *val) {
    char what[160], allowed[600];
    snprintf(what, sizeof what, "is not %s", row->what ? row->what : "an allowed value");
    const char *al = row->allowed;
    if (al == NULL)
        al = joined(row, row->kind == CLI_OPT_LIST ? "a comma-separated list of " : "", allowed,
                    sizeof allowed);
    return cli_optab_fail(cx, row->name, val, what, al);
}

// ----------------------------------------------------------------------------
// the command line

// The value's check, the row's apply and its store; then it counts as given.
static int take(const CliOptCtx *cx, const CliOptSection *sec, const CliOptRow *row,
                const char *text) {
    CliOptValue v;
    if (cli_optab_value(cx, row, text, &v) != 0)
        return CLI_OPTAB_ERROR;
    void *dest = (char *)cx->dest + (sec ? sec->dest_offset : 0);
    if (row->apply && row->apply(cx, row, &v, dest) != 0)
        return CLI_OPTAB_ERROR;
    cli_optab_store(row, &v, dest);
    if (cx->given && row->id > 0)
        cx->given[row->id] = text;
    return CLI_OPTAB_OK;
}

// Where the word at argv[*i] leads: its row and its value.
typedef enum { WORD_OK, WORD_UNKNOWN, WORD_FLAG_VALUE, WORD_NO_VALUE } WordIs;

// The option at argv[*i] and its value (attached after '=' or to a short
// name, else the next argument, which *i then moves past). The parser and
// the walk of the files (cli_optab_files) both take words this way, so that
// the walk sees each value the parser would.
static WordIs take_word(const CliOptTable *t, int argc, char **argv, int *i,
                        const CliOptRow **rowp, const CliOptSection **secp, const char **valp) {
    const char *a = argv[*i], *val = NULL;
    const CliOptRow *row = NULL;
    const CliOptSection *sec = NULL;
    if (a[0] == '-' && a[1] == '-' && a[2]) {
        const char *eq = strchr(a + 2, '=');
        row = cli_optab_find(t, a + 2, eq ? (size_t)(eq - (a + 2)) : strlen(a + 2), &sec);
        if (row && eq)
            val = eq + 1;
    } else if (a[0] == '-' && a[1] && a[1] != '-') {
        row = find_short(t, a[1], &sec);
        if (row && a[2])
            val = a + 2;
    }
    *rowp = row;
    *secp = sec;
    *valp = val;
    if (row == NULL)
        return WORD_UNKNOWN;
    if (row->kind == CLI_OPT_FLAG && val != NULL)
        return WORD_FLAG_VALUE;
    if (row->kind != CLI_OPT_FLAG && val == NULL) {
        if (*i + 1 >= argc)
            return WORD_NO_VALUE;
        *valp = argv[++*i];
    }
    return WORD_OK;
}

static int parse_one(const CliOptTable *t, int argc, char **argv, int *i, CliOptCtx *cx) {
    const char *a = argv[*i], *val;
    const CliOptRow *row;
    const CliOptSection *sec;
    char vbuf[72], meta[160];
    switch (take_word(t, argc, argv, i, &row, &sec, &val)) {
    case WORD_UNKNOWN:
        cli_optab_error(cx->prog, "'%s' is not an option; allowed: see '%s --help'",
                        cli_opt_shown(a, vbuf, sizeof vbuf), cx->prog);
        return CLI_OPTAB_ERROR;
    case WORD_FLAG_VALUE:
        cli_optab_error(cx->prog, "--%s: takes no value (got '%s'); allowed: --%s alone",
                        row->name, cli_opt_shown(val, vbuf, sizeof vbuf), row->name);
        return CLI_OPTAB_ERROR;
    case WORD_NO_VALUE:
        cli_optab_error(cx->prog, "--%s: missing value; allowed: %s (see '%s --help')",
                        row->name, cli_optab_metavar(row, meta, sizeof meta), cx->prog);
        return CLI_OPTAB_ERROR;
    case WORD_OK:
        break;
    }
    return take(cx, sec, row, val ? val : "");
}

int cli_optab_parse(const CliOptTable *t, int argc, char **argv, CliOptCtx *cx) {
    // help wins over everything else on the line, as it does for most tools
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return CLI_OPTAB_HELP;
    for (int i = 1; i < argc; i++)
        if (parse_one(t, argc, argv, &i, cx) != CLI_OPTAB_OK)
            return CLI_OPTAB_ERROR;
    return CLI_OPTAB_OK;
}

int cli_optab_set(const CliOptRow *rows, int n, const CliOptCtx *cx, const char *name,
                  const char *text) {
    const CliOptRow *row = find_in(rows, n, name, strlen(name));
    if (row == NULL) {
        cli_optab_error(cx->prog, "'--%s' is not an option; allowed: see '%s --help'", name,
                        cx->prog);
        return CLI_OPTAB_ERROR;
    }
    return take(cx, NULL, row, row->kind == CLI_OPT_FLAG ? "" : text);
}

// ----------------------------------------------------------------------------
// the files a command line names

CliOptFile cli_optab_row_file(const CliOptRow *row) {
    return row->kind == CLI_OPT_PATH ? CLI_FILE_VALUE : row->file;
}

static int walk_files(const CliOptTable *t, int argc, char **argv, CliOptFileVisit visit,
                      void *arg);

// The options inside a CLI_FILE_OPTIONS value, split at blanks as the
// command splits them (run_compare.c), walked as a command line of their own.
// Each word of it is shorter than the value, so a value nested in it again
// is shorter still, and the walk ends.
static int walk_inner(const CliOptTable *t, const char *value, CliOptFileVisit visit,
                      void *arg) {
    size_t n = strlen(value);
    char *copy = malloc(n + 1);
    // words of one character between single blanks: at most (n + 1) / 2,
    // after the command's name and before the NULL
    char **words = malloc((n / 2 + 3) * sizeof *words);
    int rc = -1;
    if (copy && words) {
        memcpy(copy, value, n + 1);
        int k = 0;
        words[k++] = (char *)t->name; // argv[0], as for the command itself
        for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w;
             w = strtok_r(NULL, " \t", &save))
            words[k++] = w;
        words[k] = NULL;
        rc = walk_files(t, k, words, visit, arg);
    }
    free(words);
    free(copy);
    return rc;
}

static int walk_files(const CliOptTable *t, int argc, char **argv, CliOptFileVisit visit,
                      void *arg) {
    for (int i = 1; i < argc; i++) {
        const CliOptRow *row;
        const CliOptSection *sec;
        const char *val;
        if (take_word(t, argc, argv, &i, &row, &sec, &val) != WORD_OK)
            return 0; // the command refuses this word before it opens any file
        int rc = 0;
        switch (cli_optab_row_file(row)) {
        case CLI_FILE_NONE:
            break;
        case CLI_FILE_VALUE:
            rc = visit(arg, row, val, val);
            break;
        case CLI_FILE_SPEC: {
            const char *f = row->file_in ? row->file_in(val) : NULL;
            if (f)
                rc = visit(arg, row, val, f);
            break;
        }
        case CLI_FILE_OPTIONS:
            rc = walk_inner(t, val, visit, arg);
            break;
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

int cli_optab_files(const CliOptTable *t, int argc, char **argv, CliOptFileVisit visit,
                    void *arg) {
    return walk_files(t, argc, argv, visit, arg);
}
