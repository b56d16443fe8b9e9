// tests/test_cli_docs.c: what the option tables (cli/core/optable.h) make
// lists exactly what the parsers take. For run, plan and bench: the options
// --help names are the table's rows, and each one it names is taken by the
// command (it runs, and the parser speaks of the word after it, or of the
// option's missing value); the man page's section of the command and its part
// of the bash completion list the same rows, the completion with the words an
// option takes. With groff, the man page passes `groff -man -ww -z` without a
// word (typeset and for a terminal); with bash, the completion script loads
// and completes.
//
// usage: test_cli_docs PATH/TO/ddplab [--groff=PATH] [--bash=PATH]
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h" // defines: bench_optab
#include "check.h"
#include "plan/plan.h" // defines: plan_optab
#include "run/run.h"   // defines: run_optab
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 60.0
#define MAX_NAMES 256

static const char *exe;

typedef struct {
    char name[MAX_NAMES][48];
    int n;
} Names;

static void add(Names *s, const char *name, size_t len) {
    if (s->n < MAX_NAMES && len < sizeof s->name[0])
        snprintf(s->name[s->n++], sizeof s->name[0], "%.*s", (int)len, name);
}

static int has(const Names *s, const char *name) {
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->name[i], name) == 0)
            return 1;
    return 0;
}

// 0 when a and b hold the same names; else says which are missing where.
static int same(const Names *a, const char *what_a, const Names *b, const char *what_b,
                const char *cmd) {
    int bad = 0;
    for (int i = 0; i < a->n; i++)
        if (!has(b, a->name[i]))
            fprintf(stderr, "%s: --%s is in %s, not in %s\n", cmd, a->name[i], what_a, what_b),
                bad = 1;
    for (int i = 0; i < b->n; i++)
        if (!has(a, b->name[i]))
            fprintf(stderr, "%s: --%s is in %s, not in %s\n", cmd, b->name[i], what_b, what_a),
                bad = 1;
    return bad;
}

static void table_names(const CliOptTable *t, Names *out) {
    out->n = 0;
    for (int s = 0; s < t->nsections; s++) {
        int n;
        const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
        for (int i = 0; i < n; i++)
            add(out, rows[i].name, strlen(rows[i].name));
    }
}

static size_t name_len(const char *p) {
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '-')
        n++;
    return n;
}

// The options --help lists: lines "  -n, --ranks R ..." and "      --seed N ...".
static void help_names(const char *help, Names *out) {
    out->n = 0;
    for (const char *l = help; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        const char *p = NULL;
        if (strncmp(l, "      --", 8) == 0)
            p = l + 8;
        else if (l[0] == ' ' && l[1] == ' ' && l[2] == '-' && l[3] != '-' && l[4] == ',' &&
                 strncmp(l + 5, " --", 3) == 0)
            p = l + 8;
        if (p)
            add(out, p, name_len(p));
    }
}

// The command's section of the man page: from its .SH to the next .SH.
static char *man_section(const char *man, const char *cmd) {
    char head[64];
    snprintf(head, sizeof head, ".SH \"DDPLAB ");
    for (size_t i = 0; cmd[i] && i < 40; i++)
        snprintf(head + strlen(head), sizeof head - strlen(head), "%c",
                 toupper((unsigned char)cmd[i]));
    strcat(head, "\"\n");
    const char *at = strstr(man, head);
    if (at == NULL)
        return NULL;
    const char *end = strstr(at + 1, "\n.SH ");
    size_t n = end ? (size_t)(end - at) : strlen(at);
    char *s = malloc(n + 1);
    memcpy(s, at, n);
    s[n] = '\0';
    return s;
}

// The options of a man section: the tags after .TP, "\fB\-\-ranks\fR".
static void man_names(const char *sec, Names *out) {
    out->n = 0;
    for (const char *p = strstr(sec, ".TP\n"); p; p = strstr(p + 1, ".TP\n")) {
        const char *tag = strstr(p, "\\fB\\-\\-");
        if (tag == NULL || tag > strchr(p + 4, '\n'))
            continue;
        tag += 7;
        char name[48];
        size_t n = 0;
        while (*tag && strncmp(tag, "\\fR", 3) != 0 && n + 1 < sizeof name) {
            if (strncmp(tag, "\\-", 2) == 0)
                name[n++] = '-', tag += 2;
            else
                name[n++] = *tag++;
        }
        add(out, name, n);
    }
}

// The command's block of the completion script, "    run)\n" to the next
// ";;" that ends its word list.
static char *bash_block(const char *script, const char *cmd) {
    char head[64];
    snprintf(head, sizeof head, "\n    %s)\n", cmd);
    const char *at = strstr(script, head);
    const char *end = at ? strstr(at, "\" ;;\n") : NULL;
    if (end == NULL)
        return NULL;
    size_t n = (size_t)(end - at);
    char *s = malloc(n + 1);
    memcpy(s, at, n);
    s[n] = '\0';
    return s;
}

// The options the block offers after an option, its words="..." list: the
// long ones by name, the short ones as "-n".
static void bash_names(const char *block, Names *longs, Names *shorts) {
    longs->n = shorts->n = 0;
    const char *w = strstr(block, "words=\"");
    for (const char *p = w ? w + 7 : ""; *p; p += strcspn(p, " ") + (p[strcspn(p, " ")] != 0)) {
        if (strncmp(p, "--", 2) == 0)
            add(longs, p + 2, name_len(p + 2));
        else if (p[0] == '-')
            add(shorts, p, 2);
    }
}

static char *capture(const char *const *args) {
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    if (r.rc != 0) {
        tcli_show("capture", &r);
        tcli_result_free(&r);
        return NULL;
    }
    char *out = r.out;
    r.out = NULL;
    tcli_result_free(&r);
    return out;
}

// The row's short name in help ("-n, --ranks"), its values in the completion.
static int check_row(const CliOptRow *row, const char *help, const char *block,
                     const Names *shorts) {
    char want[160];
    if (row->shortname) {
        snprintf(want, sizeof want, "  -%c, --%s", row->shortname, row->name);
        CHECK_STR_CONTAINS(help, want);
        snprintf(want, sizeof want, "-%c", row->shortname);
        CHECK(has(shorts, want));
    }
    if (row->kind == CLI_OPT_FLAG || row->words == NULL)
        return 0;
    int n = snprintf(want, sizeof want, "--%s)\n            _ddplab_words %s", row->name,
                     row->kind == CLI_OPT_LIST ? "list" : "one");
    for (int i = 0; row->words[i] && n < (int)sizeof want; i++)
        n += snprintf(want + n, sizeof want - (size_t)n, " %s", row->words[i]);
    CHECK_STR_CONTAINS(block, want);
    return 0;
}

// The parser takes --name: a value-taking option without its value is
// refused for that; a flag is taken and the word after it refused.
static int check_taken(const char *cmd, const CliOptTable *t, const char *name) {
    const CliOptRow *row = cli_optab_find(t, name, strlen(name), NULL);
    if (row == NULL) {
        fprintf(stderr, "%s --help names --%s, which the table does not have\n", cmd, name);
        return 1;
    }
    if (strcmp(name, "help") == 0)
        return 0;
    char opt[64], want[128];
    snprintf(opt, sizeof opt, "--%s", name);
    const char *next = "--no-such-option-here";
    const char *args[] = {cmd, opt, row->kind == CLI_OPT_FLAG ? next : NULL, NULL};
    if (row->kind == CLI_OPT_FLAG)
        snprintf(want, sizeof want, "'%s' is not an option", next);
    else
        snprintf(want, sizeof want, "--%s: missing value", name);
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "ddplab %s: ", cmd);
    int bad = tcli_refused(&r, prefix, want);
    tcli_result_free(&r);
    return bad;
}

static int check_command(const char *cmd, const CliOptTable *t, const char *man,
                         const char *script) {
    const char *args[] = {cmd, "--help", NULL};
    char *help = capture(args);
    char *sec = man_section(man, cmd);
    char *block = bash_block(script, cmd);
    CHECK(help && sec && block);
    static Names rows, in_help, in_man, in_bash, shorts; // large: not on the stack
    table_names(t, &rows);
    help_names(help, &in_help);
    man_names(sec, &in_man);
    bash_names(block, &in_bash, &shorts);
    CHECK(rows.n > 10);
    CHECK(same(&rows, "the table", &in_help, "--help", cmd) == 0);
    CHECK(same(&rows, "the table", &in_man, "the man page", cmd) == 0);
    CHECK(same(&rows, "the table", &in_bash, "the completion", cmd) == 0);
    int bad = 0;
    for (int s = 0; s < t->nsections; s++) {
        int n;
        const CliOptRow *r = cli_optab_rows(&t->sections[s], &n);
        for (int i = 0; i < n; i++)
            bad |= check_row(&r[i], help, block, &shorts);
    }
    for (int i = 0; i < in_help.n; i++)
        bad |= check_taken(cmd, t, in_help.name[i]);
    CHECK_EQ_INT(bad, 0);
    free(help);
    free(sec);
    free(block);
    return 0;
}

// groff's own checks of the page, every warning on, typeset (ps) and as man
// shows it on a terminal (utf8: a line it cannot adjust is a warning there).
static int check_groff(const char *groff, const char *dir, const char *man) {
    const char *path = tcli_path(dir, "ddplab.1");
    CHECK(tfile_write(path, man, strlen(man)) == 0);
    static const char *const devices[] = {"-Tps", "-Tutf8"};
    for (int i = 0; i < 2; i++) {
        TcliResult r;
        TCLI_RUN(r, groff, TIMEOUT_S, "-man", "-ww", "-z", devices[i], path);
        if (r.rc != 0 || r.err[0] != '\0')
            tcli_show(devices[i], &r);
        CHECK_EQ_INT(r.rc, 0);
        CHECK_EQ_INT(r.err[0], '\0');
        tcli_result_free(&r);
    }
    return 0;
}

// The script loads, and completes what a user types: a command, an option,
// an option's word, a list's next item.
static int check_bash(const char *bash, const char *dir, const char *script) {
    const char *path = tcli_path(dir, "ddplab.bash");
    CHECK(tfile_write(path, script, strlen(script)) == 0);
    static const char *const cases[][2] = {
        {"ddplab pl", "plan"},
        {"ddplab run --strat", "--strategy"},
        {"ddplab run --strategy z", "zero1 zero2 zero3"},
        {"ddplab bench -c all_r", "all_reduce"},
        {"ddplab run --viz-stops iteration,bucket-l", "iteration,bucket-launch"},
        {"ddplab plan --amp ", "bf16 fp16 fp32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char prog[1024];
        snprintf(prog, sizeof prog,
                 "source '%s' || exit 3; COMP_LINE='%s'; read -ra COMP_WORDS <<< \"$COMP_LINE\";"
                 " [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=(''); "
                 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ddplab; echo \"${COMPREPLY[*]}\"",
                 path, cases[i][0]);
        TcliResult r;
        TCLI_RUN(r, bash, TIMEOUT_S, "-c", prog);
        if (r.rc != 0 || strncmp(r.out, cases[i][1], strlen(cases[i][1])) != 0) {
            fprintf(stderr, "completing '%s': want '%s'\n", cases[i][0], cases[i][1]);
            tcli_show("bash", &r);
            tcli_result_free(&r);
            return 1;
        }
        tcli_result_free(&r);
    }
    return 0;
}

int main(int argc, char **argv) {
    char dir[512];
    exe = tcli_begin(argc, argv, dir, sizeof dir, "docs");
    if (exe == NULL)
        return 2;
    const char *groff = NULL, *bash = NULL;
    for (int i = 2; i < argc; i++) {
        if (strncmp(argv[i], "--groff=", 8) == 0)
            groff = argv[i] + 8;
        else if (strncmp(argv[i], "--bash=", 7) == 0)
            bash = argv[i] + 7;
    }
    const char *man_args[] = {"help", "--man", NULL};
    const char *bash_args[] = {"completion", "bash", NULL};
    char *man = capture(man_args);
    char *script = capture(bash_args);
    CHECK(man && script);
    int failures = 0;
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "completion", "zsh"); // the one shell it completes is bash
    failures += tcli_refused(&r, "ddplab completion: ", "allowed: bash");
    tcli_result_free(&r);
    failures += check_command("run", run_optab(), man, script);
    failures += check_command("plan", plan_optab(), man, script);
    failures += check_command("bench", bench_optab(), man, script);
    if (groff)
        failures += check_groff(groff, dir, man);
    else
        printf("groff not found: the man page's roff is not checked\n");
    if (bash)
        failures += check_bash(bash, dir, script);
    else
        printf("bash not found: the completion script is not loaded\n");
    free(man);
    free(script);
    tfile_rmtree(dir);
    if (failures == 0)
        printf("ok\n");
    return failures ? 1 : 0;
}
