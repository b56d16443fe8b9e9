// cli/core/optable_man.c: the man page ddplab(1) made from the commands'
// option tables (see optable_docs.h), so that it lists what the parsers take.
// Text from the help (about, rows) is filled by roff; text printed for a
// terminal (fault kinds, examples, the help of commands without a table) is
// kept as it is, in no-fill blocks.
#include "core/optable_docs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h" // defines: cli_print_exit_codes

// s[0 .. n) for roff: '\' as \e, '-' as \- (a minus, as options are typed);
// filled text loses its leading spaces.
static void roff_span(FILE *out, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            fputs("\\e", out);
        else if (s[i] == '-')
            fputs("\\-", out);
        else
            fputc(s[i], out);
    }
}

// Lines of text: each kept as a line of the source, guarded with \& where
// roff would read it as a request (a leading '.' or '\'').
static void roff_lines(FILE *out, const char *text, int fill) {
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *line = p;
        if (fill)
            while (n > 0 && *line == ' ')
                line++, n--;
        if (n > 0 && (*line == '.' || *line == '\''))
            fputs("\\&", out);
        roff_span(out, line, n);
        fputc('\n', out);
        p = line + n + (line[n] == '\n');
    }
}

// What fn prints for a terminal, as a no-fill block.
static void roff_printed(FILE *out, void (*fn)(FILE *)) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL)
        return;
    fn(mem);
    fclose(mem);
    fputs(".PP\n.nf\n", out);
    roff_lines(out, buf, 0);
    fputs(".fi\n", out);
    free(buf);
}

static void roff_block(FILE *out, const char *text) {
    fputs(".PP\n.nf\n", out);
    roff_lines(out, text, 0);
    fputs(".fi\n", out);
}

// A heading on one line, without its colon and without the note of help's
// brackets.
static void roff_heading(FILE *out, const char *macro, const char *title) {
    size_t n = strlen(title), note = strlen(CLI_OPTAB_IN_BRACKETS);
    while (n > 0 && (title[n - 1] == ':' || title[n - 1] == '\n'))
        n--;
    if (n >= note && strncmp(title + n - note, CLI_OPTAB_IN_BRACKETS, note) == 0)
        n -= note;
    fprintf(out, "%s \"", macro);
    for (size_t i = 0; i < n; i++) {
        if (title[i] == '\n')
            fputc(' ', out);
        else if (title[i] == '-')
            fputs("\\-", out);
        else if (title[i] != '"')
            fputc(title[i], out);
    }
    fputs("\"\n", out);
}

static void man_row(FILE *out, const CliOptRow *row) {
    char meta[160];
    const char *m = cli_optab_metavar(row, meta, sizeof meta);
    fputs(".TP\n", out);
    if (row->shortname)
        fprintf(out, "\\fB\\-%c\\fR, ", row->shortname);
    fputs("\\fB\\-\\-", out);
    roff_span(out, row->name, strlen(row->name));
    fputs("\\fR", out);
    if (m[0]) {
        fputs(" \\fI", out);
        roff_span(out, m, strlen(m));
        fputs("\\fR", out);
    }
    fputc('\n', out);
    roff_lines(out, row->help, 1);
    if (row->deflt) {
        fputs(".br\nDefault: ", out);
        roff_span(out, row->deflt, strlen(row->deflt));
        fputc('\n', out);
    }
}

static void man_table(FILE *out, const CliOptTable *t) {
    fputs(".PP\n.B ", out);
    roff_span(out, t->synopsis, strlen(t->synopsis));
    fputs("\n.PP\n", out);
    roff_lines(out, t->about, 1);
    for (int s = 0; s < t->nsections; s++) {
        const CliOptSection *sec = &t->sections[s];
        if (sec->title)
            roff_heading(out, ".SS", sec->title);
        int n;
        const CliOptRow *rows = cli_optab_rows(sec, &n);
        for (int i = 0; i < n; i++)
            man_row(out, &rows[i]);
        if (sec->text)
            roff_printed(out, sec->text);
    }
    if (t->after) {
        roff_heading(out, ".SS", "notes and examples");
        roff_block(out, t->after);
    }
}

static void man_command(FILE *out, const CliOptCommand *c) {
    char title[64];
    int n = snprintf(title, sizeof title, "ddplab %s", c->name);
    for (int i = 0; i < n; i++)
        title[i] = (char)toupper((unsigned char)title[i]);
    roff_heading(out, ".SH", title);
    if (c->table)
        man_table(out, c->table);
    else if (c->help)
        roff_printed(out, c->help);
}

void cli_optab_man(FILE *out, const CliOptProgram *p) {
    fprintf(out, ".\\\" ddplab(1), made by 'ddplab help --man' from the option tables\n");
    fprintf(out, ".TH DDPLAB 1 \"\" \"ddplab %s\" \"User Commands\"\n", p->version);
    // ragged right and no hyphens: option lists, specs and names are long
    // words that a justified line could not stretch around, nor break
    fputs(".ad l\n.nh\n", out);
    fputs(".SH NAME\nddplab \\- a distributed\\-training laboratory\n", out);
    fputs(".SH SYNOPSIS\n.B ddplab\n.RI [ command \" [\" options ]]\n", out);
    fputs(".SH DESCRIPTION\n", out);
    roff_lines(out, p->description, 1);
    fputs(".PP\nWithout a command, ddplab opens the lessons' menu.\n", out);
    fputs(".SH COMMANDS\n", out);
    for (int i = 0; i < p->ncommands; i++) {
        fputs(".TP\n.B ", out);
        roff_span(out, p->commands[i].name, strlen(p->commands[i].name));
        fputc('\n', out);
        roff_lines(out, p->commands[i].summary, 1);
    }
    for (int i = 0; i < p->ncommands; i++)
        man_command(out, &p->commands[i]);
    fputs(".SH \"EXIT STATUS\"\n", out);
    roff_printed(out, cli_print_exit_codes);
    fputs(".SH \"SEE ALSO\"\n", out);
    fputs("\\fBddplab help\\fR \\fIcommand\\fR, \\fBddplab\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR;"
          " \\fBddplab completion bash\\fR for the bash completion.\n", out);
}
