// cli/core/optable_help.c: --help made from an option table (see optable.h):
// "  -n, --ranks R" in a 30-column option column, the row's help beside it
// within 79 columns, the default in brackets at the end.
#include "core/optable.h"

#include <string.h>

#include "core/cli.h" // defines: cli_print_exit_codes

enum { HELP_COL = 30, HELP_WIDTH = 79 };

const char *cli_optab_metavar(const CliOptRow *row, char *buf, size_t len) {
    buf[0] = '\0';
    if (row->kind == CLI_OPT_FLAG)
        return buf;
    if (row->metavar)
        return row->metavar;
    if (row->words && row->kind != CLI_OPT_LIST) {
        size_t n = 0;
        for (int i = 0; row->words[i] && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", row->words[i]);
        return buf;
    }
    static const char *const by_kind[] = {
        [CLI_OPT_INT] = "N",       [CLI_OPT_REAL] = "X",     [CLI_OPT_SIZE] = "SIZE",
        [CLI_OPT_NAME] = "NAME",   [CLI_OPT_LIST] = "LIST",  [CLI_OPT_STRING] = "VALUE",
        [CLI_OPT_PATH] = "FILE",   [CLI_OPT_ENUM] = "WORD"};
    return by_kind[row->kind];
}

// The help lines from the cursor's column on; lines too long for the
// columns left are broken at a space.
static void help_text(FILE *out, const char *help, int col) {
    for (const char *p = help; *p; p++) {
        if (*p == ' ' && col + 1 + (int)strcspn(p + 1, " \n") > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_COL, "");
            col = HELP_COL;
            continue;
        }
        fputc(*p, out);
        col++;
        if (*p == '\n') {
            fprintf(out, "%*s", HELP_COL, "");
            col = HELP_COL;
        }
    }
}

// The column the last line of the help text ends at, as help_text leaves it.
static int end_column(const char *help) {
    int col = HELP_COL;
    for (const char *p = help; *p; p++) {
        if (*p == '\n' || (*p == ' ' && col + 1 + (int)strcspn(p + 1, " \n") > HELP_WIDTH))
            col = HELP_COL;
        else
            col++;
    }
    return col;
}

static void help_row(FILE *out, const CliOptRow *row) {
    char head[200], meta[160];
    const char *m = cli_optab_metavar(row, meta, sizeof meta);
    char c = row->shortname;
    int n = snprintf(head, sizeof head, "  %c%c%s--%s%s%s", c ? '-' : ' ', c ? c : ' ',
                     c ? ", " : "  ", row->name, m[0] ? " " : "", m);
    if (n >= HELP_COL)
        fprintf(out, "%s\n%*s", head, HELP_COL, "");
    else
        fprintf(out, "%s%*s", head, HELP_COL - n, "");
    help_text(out, row->help, HELP_COL);
    if (row->deflt) {
        if (end_column(row->help) + 3 + (int)strlen(row->deflt) > HELP_WIDTH)
            fprintf(out, "\n%*s", HELP_COL, "");
        else
            fputc(' ', out);
        fprintf(out, "[%s]", row->deflt);
    }
    fputc('\n', out);
}

void cli_optab_help_section(FILE *out, const CliOptSection *s) {
    if (s->title)
        fprintf(out, "%s\n", s->title);
    int n;
    const CliOptRow *rows = cli_optab_rows(s, &n);
    for (int i = 0; i < n; i++)
        help_row(out, &rows[i]);
    if (s->text)
        s->text(out);
}

void cli_optab_help(FILE *out, const CliOptTable *t) {
    fprintf(out, "usage: %s\n\n%s\n", t->synopsis, t->about);
    for (int i = 0; i < t->nsections; i++) {
        if (i > 0 && t->sections[i].title)
            fputc('\n', out);
        cli_optab_help_section(out, &t->sections[i]);
    }
    if (t->after)
        fprintf(out, "\n%s", t->after);
    fprintf(out, "\nexit codes:\n");
    cli_print_exit_codes(out);
}
