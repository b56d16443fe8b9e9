// tests/test_lesson_confine.c: a lesson's blocks name no file outside the
// scratch directory they run in (cli/lesson/lesson_confine.c), in-process.
//
// - Coverage: every row of run's, plan's and bench's option tables whose
//   placeholder or help speaks of a file (FILE, PATH, DIR, X.npy, "a file",
//   "directory", ...) says what of its value names a file (CliOptFile in
//   core/optable.h), unless it is listed below with the reason it names
//   none. A row added with a file in its value and nothing said fails here.
// - Every row that names a file refuses an absolute path and a '..'
//   component in each form the parser takes (--opt V, --opt=V, -o V, -oV),
//   with the lesson's "PATH:LINE: --opt: ..." message, and takes a relative
//   path inside; a spec (file:PATH) and a comparison's options
//   (--compare-with) are looked into.
// - The walk sees what the parser sees: a value that looks like an option
//   is still the value; after a word the parser refuses, nothing runs.
// - The player's own entry (lesson_run_block) refuses such a block too,
//   before it creates any file.
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/optable.h"
#include "learn/lesson.h"
#include "lesson/lesson_confine.h"
#include "lesson/lesson_run.h"
#include "test_files.h"

static const char *const commands[] = {"run", "plan", "bench"};

// Rows whose help speaks of a file that their value does not name.
static const struct {
    const char *cmd, *opt, *why;
} not_files[] = {
    {"run", "state-dict", "the checkpoint's layout; --save names it"},
};

// 1 when a word of hay starts with needle, in any case ("file" is in "a
// file" and "files", not in "profile").
static int has_word(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (const char *p = hay; p && *p; p++) {
        if (p > hay && isalpha((unsigned char)p[-1]))
            continue;
        size_t k = 0;
        while (k < n && p[k] && tolower((unsigned char)p[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

// 1 when the row's placeholder or help speaks of a file or a directory.
static int speaks_of_file(const CliOptRow *row) {
    const char *m = row->metavar ? row->metavar : "";
    if (strstr(m, "FILE") || strstr(m, "PATH") || strstr(m, "DIR"))
        return 1;
    for (const char *p = strchr(m, '.'); p; p = strchr(p + 1, '.'))
        if (islower((unsigned char)p[1])) // an extension: X.npy, FILE.png
            return 1;
    const char *h = row->help ? row->help : "";
    return has_word(h, "file") || has_word(h, "director") || has_word(h, "path");
}

static int exempt(const char *cmd, const char *opt) {
    for (size_t i = 0; i < sizeof not_files / sizeof *not_files; i++)
        if (strcmp(not_files[i].cmd, cmd) == 0 && strcmp(not_files[i].opt, opt) == 0)
            return 1;
    return 0;
}

static int test_coverage(void) {
    int bad = 0, files = 0;
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        const CliOptTable *t = lesson_command_table(commands[c]);
        CHECK(t != NULL);
        for (int s = 0; s < t->nsections; s++) {
            int n;
            const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
            for (int i = 0; i < n; i++) {
                const CliOptRow *row = &rows[i];
                CliOptFile f = cli_optab_row_file(row);
                files += f != CLI_FILE_NONE;
                if (f == CLI_FILE_SPEC && row->file_in == NULL) {
                    fprintf(stderr, "%s --%s: a spec row without file_in\n", commands[c],
                            row->name);
                    bad++;
                }
                if (f == CLI_FILE_NONE && speaks_of_file(row) && !exempt(commands[c], row->name)) {
                    fprintf(stderr,
                            "%s --%s speaks of a file but its row names none: set .file "
                            "(core/optable.h, CliOptFile), or list it in not_files with why\n",
                            commands[c], row->name);
                    bad++;
                }
                // the rows that name a file are what the heuristic is for: it
                // must see each of them (a comparison's options aside)
                if ((f == CLI_FILE_VALUE || f == CLI_FILE_SPEC) && !speaks_of_file(row)) {
                    fprintf(stderr, "%s --%s names a file that speaks_of_file misses\n",
                            commands[c], row->name);
                    bad++;
                }
                if (f != CLI_FILE_NONE && exempt(commands[c], row->name)) {
                    fprintf(stderr, "%s --%s names a file: drop it from not_files\n",
                            commands[c], row->name);
                    bad++;
                }
            }
        }
    }
    // every entry of not_files is a row that speaks of a file (so that a
    // renamed or reworded one is noticed)
    for (size_t i = 0; i < sizeof not_files / sizeof *not_files; i++) {
        const CliOptTable *t = lesson_command_table(not_files[i].cmd);
        const CliOptRow *row =
            t ? cli_optab_find(t, not_files[i].opt, strlen(not_files[i].opt), NULL) : NULL;
        if (row == NULL || !speaks_of_file(row)) {
            fprintf(stderr, "not_files: %s --%s is no row that speaks of a file\n",
                    not_files[i].cmd, not_files[i].opt);
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(files >= 20); // run, plan and bench together name this many files
    return 0;
}

// ---------------------------------------------------------------------------
// refusals

// A block of words as the lesson parser makes it (argv NULL-terminated).
static int check_block(const char *const *words, const char *want, const char *what) {
    LessonRun r;
    memset(&r, 0, sizeof r);
    r.line = 11;
    r.cmd_line = 12;
    char *argv[16];
    int argc = 0;
    for (; words[argc] && argc < 15; argc++)
        argv[argc] = (char *)words[argc];
    argv[argc] = NULL;
    r.argc = argc;
    r.argv = argv;
    char err[1024] = "";
    int rc = lesson_confine_run("l.md", &r, err, sizeof err);
    if (want == NULL) {
        if (rc != 0)
            fprintf(stderr, "%s: refused: %s\n", what, err);
        CHECK_EQ_INT(rc, 0);
        return 0;
    }
    if (rc == 0)
        fprintf(stderr, "%s: not refused\n", what);
    CHECK_EQ_INT(rc, -1);
    CHECK(strncmp(err, "l.md:12: ", 9) == 0);
    CHECK_STR_CONTAINS(err, want);
    CHECK_STR_CONTAINS(err, "outside the scratch directory");
    CHECK_STR_CONTAINS(err, "allowed: ");
    CHECK(strchr(err, '\n') == NULL);
    return 0;
}

// The samples of a spec row's value around a file, by option name.
static const struct {
    const char *opt, *before, *after;
} spec_samples[] = {
    {"rendezvous", "file:", ""},
};

// The first row of t that takes a whole file (for --compare-with's sample).
static const CliOptRow *a_file_row(const CliOptTable *t) {
    for (int s = 0; s < t->nsections; s++) {
        int n;
        const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
        for (int i = 0; i < n; i++)
            if (cli_optab_row_file(&rows[i]) == CLI_FILE_VALUE)
                return &rows[i];
    }
    return NULL;
}

// The value of row with file inside it: "%s" for VALUE, the sample for a
// spec, another option for OPTIONS. 0, or -1 when the test has no sample.
static int value_of(const CliOptTable *t, const CliOptRow *row, const char *file, char *buf,
                    size_t len) {
    switch (cli_optab_row_file(row)) {
    case CLI_FILE_VALUE:
        snprintf(buf, len, "%s", file);
        return 0;
    case CLI_FILE_SPEC:
        for (size_t i = 0; i < sizeof spec_samples / sizeof *spec_samples; i++)
            if (strcmp(spec_samples[i].opt, row->name) == 0) {
                snprintf(buf, len, "%s%s%s", spec_samples[i].before, file,
                         spec_samples[i].after);
                return 0;
            }
        fprintf(stderr, "--%s: add a sample of its spec to spec_samples\n", row->name);
        return -1;
    case CLI_FILE_OPTIONS: {
        const CliOptRow *inner = a_file_row(t);
        if (inner == NULL)
            return -1;
        snprintf(buf, len, "--%s %s", inner->name, file);
        return 0;
    }
    case CLI_FILE_NONE:
        break;
    }
    return -1;
}

static int test_refusals(void) {
    static const char *const outside[] = {"/etc/passwd", "../x", "a/../../x", "..", "./../x",
                                          "a/..", "//x"};
    static const char *const inside[] = {"x", "sub/x", "./x", "..x", "x..", "a/...b", "x/"};
    int rows_checked = 0;
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        const CliOptTable *t = lesson_command_table(commands[c]);
        for (int s = 0; s < t->nsections; s++) {
            int n;
            const CliOptRow *rows = cli_optab_rows(&t->sections[s], &n);
            for (int i = 0; i < n; i++) {
                const CliOptRow *row = &rows[i];
                if (cli_optab_row_file(row) == CLI_FILE_NONE)
                    continue;
                rows_checked++;
                char want[96], what[512], val[256], eq[300], shortv[300];
                snprintf(want, sizeof want, "--%s: ", row->name);
                for (int in = 0; in < 2; in++) {
                    const char *const *files = in ? inside : outside;
                    size_t nf = in ? sizeof inside / sizeof *inside
                                   : sizeof outside / sizeof *outside;
                    for (size_t k = 0; k < nf; k++) {
                        CHECK_EQ_INT(value_of(t, row, files[k], val, sizeof val), 0);
                        const char *expect = in ? NULL : want;
                        if (cli_optab_row_file(row) == CLI_FILE_OPTIONS && !in)
                            expect = ": "; // the inner option's message
                        char opt[96];
                        snprintf(opt, sizeof opt, "--%s", row->name);
                        snprintf(what, sizeof what, "%s %s %s", commands[c], opt, val);
                        const char *w1[] = {commands[c], opt, val, NULL};
                        if (check_block(w1, expect, what))
                            return 1;
                        snprintf(eq, sizeof eq, "--%s=%s", row->name, val);
                        const char *w2[] = {commands[c], eq, NULL};
                        if (check_block(w2, expect, eq))
                            return 1;
                        if (row->shortname) {
                            char so[3] = {'-', row->shortname, '\0'};
                            const char *w3[] = {commands[c], so, val, NULL};
                            if (check_block(w3, expect, what))
                                return 1;
                            snprintf(shortv, sizeof shortv, "-%c%s", row->shortname, val);
                            const char *w4[] = {commands[c], shortv, NULL};
                            if (check_block(w4, expect, shortv))
                                return 1;
                        }
                    }
                }
            }
        }
    }
    CHECK(rows_checked >= 20);
    // by name, the options the lessons' audit named
    static const char *const named[][3] = {
        {"run", "--save", "/home/someone/notes.txt"}, {"run", "--init", "/x.st"},
        {"run", "--resume", "../ck.st"},             {"run", "--metrics", "../X"},
        {"run", "--trace", "/tmp/t.ddptrace"},        {"run", "--png", "../f.png"},
        {"run", "--plot", "/f.png"},                  {"run", "--plot-memory", "../m.png"},
        {"run", "--diagnosis", "/tmp/d.txt"},         {"run", "--rendezvous", "file:/tmp/id"},
        {"run", "--profile", "/tmp/p.json"},          {"run", "--gpu", "../g.json"},
        {"run", "--data", "/tmp/x.npy"},              {"run", "--labels", "../y.npy"},
        {"run", "--text", "/etc/passwd"},             {"plan", "--system", "/tmp/s.json"},
        {"plan", "--gpu", "../g.json"},               {"plan", "--plot", "/p.png"},
        {"plan", "--trace", "../t.json"},             {"bench", "--calibrate", "/tmp/c.json"},
        {"bench", "--profile", "../p.json"},          {"bench", "--gpu", "/g.json"},
        {"bench", "--trace", "../t.json"},            {"bench", "--plot", "/b.png"},
        {"run", "--compare-with", "--algo ring --save /tmp/ck.st"},
    };
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        const char *w[] = {named[i][0], named[i][1], named[i][2], NULL};
        char what[128];
        snprintf(what, sizeof what, "%s %s %s", named[i][0], named[i][1], named[i][2]);
        if (check_block(w, ": '", what))
            return 1;
    }
    // the tcp and env rendezvous name no file; a built-in profile is a name
    const char *tcp[] = {"run", "--rendezvous", "tcp:10.0.0.1:29500", "-p", "dgx-h100", NULL};
    if (check_block(tcp, NULL, "tcp rendezvous"))
        return 1;
    return 0;
}

// The walk takes words as the parser does.
static int test_walk(void) {
    // the word after a valued option is its value, even when it looks like one
    const char *a[] = {"run", "--model", "--save", "/tmp/x", NULL}; // --save's value? no:
    // --model takes "--save" as its value, so /tmp/x is a stray word the
    // parser refuses: nothing runs, and the walk stops there too
    if (check_block(a, NULL, "a value that looks like an option"))
        return 1;
    const char *b[] = {"run", "--steps", "1", "--trace", "--metrics", NULL};
    if (check_block(b, NULL, "--trace's value is '--metrics'"))
        return 1;
    const char *b2[] = {"run", "--metrics", "--trace=/x", NULL};
    if (check_block(b2, NULL, "--metrics' value is '--trace=/x', a relative name"))
        return 1;
    // an unknown option: the parser stops at it, so what follows never runs
    const char *c[] = {"run", "--frobnicate", "--save", "/tmp/x", NULL};
    if (check_block(c, NULL, "after an unknown option"))
        return 1;
    // before it, the files are checked
    const char *d[] = {"run", "--save", "/tmp/x", "--frobnicate", NULL};
    if (check_block(d, "--save: '/tmp/x'", "before an unknown option"))
        return 1;
    // --help anywhere runs nothing, but the walk is stricter than that
    const char *e[] = {"plan", "--trace", "/tmp/x", "--help", NULL};
    if (check_block(e, "--trace: '/tmp/x'", "with --help"))
        return 1;
    // a flag's word is no value; the next one is an option again
    const char *f[] = {"run", "--phantom", "--init", "../w.st", NULL};
    if (check_block(f, "--init: '../w.st'", "after a flag"))
        return 1;
    // tabs split a comparison's options too, as run_compare.c splits them
    const char *g[] = {"run", "--compare-with", "--algo\tring\t--trace\t/t", NULL};
    if (check_block(g, "--trace: '/t'", "tabs in --compare-with"))
        return 1;
    // not a command a lesson runs: nothing to look into (the parser refuses it)
    const char *h[] = {"replay", "/tmp/x", NULL};
    if (check_block(h, NULL, "replay"))
        return 1;
    return 0;
}

static int test_why(void) {
    CHECK(lesson_confine_why("ck.st") == NULL);
    CHECK(lesson_confine_why("a/b/c") == NULL);
    CHECK(lesson_confine_why("...") == NULL);
    CHECK(lesson_confine_why("") == NULL);
    CHECK_STR_CONTAINS(lesson_confine_why("/x"), "absolute");
    CHECK_STR_CONTAINS(lesson_confine_why(".."), "'..'");
    CHECK_STR_CONTAINS(lesson_confine_why("a/../b"), "'..'");
    CHECK_STR_CONTAINS(lesson_confine_why("a//.."), "'..'");
    return 0;
}

// A lesson parsed from text, then checked as the player loads it.
static int test_lesson(void) {
    static const char *const text =
        "---\nid: t\ntitle: t\ndifficulty: beginner\nprerequisites:\nminutes: 1\n"
        "track: lessons\n---\n\nText.\n\n"
        "```ddplab\nplan --model gpt2 -n 8\n```\n\n"
        "```ddplab\n"
        "run --steps 1 \\\n"
        "    --save ../../ck.st\n"
        "```\n";
    Lesson l;
    char err[1024];
    CHECK_EQ_INT(lesson_parse_text("t.md", text, strlen(text), &l, err, sizeof err), 0);
    CHECK_EQ_INT(l.nruns, 2);
    CHECK_EQ_INT(l.runs[1].cmd_line, 17);
    CHECK_EQ_INT(lesson_confine(&l, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "t.md:17: --save: '../../ck.st' is outside the scratch directory");
    // the player's entry refuses the block before it makes any file
    LessonSession s;
    CHECK_EQ_INT(lesson_session_open(&s, NULL, err, sizeof err), 0);
    LessonFacts f;
    lesson_facts_init(&f);
    err[0] = '\0';
    CHECK_EQ_INT(lesson_run_block(&s, &l.runs[1], &f, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "--save: '../../ck.st'");
    CHECK_EQ_INT(s.blocks, 0);
    DIR *d = opendir(s.dir);
    CHECK(d != NULL);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        entries += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    CHECK_EQ_INT(entries, 0);
    lesson_facts_free(&f);
    lesson_session_close(&s);
    lesson_free(&l);
    return 0;
}

// A report block: its trace and --png's chart must stay in the scratch
// directory as every run's files do; one that does reads the trace an
// earlier block wrote there and prints the tables.
static int test_report(void) {
    static const char *const text =
        "---\nid: t\ntitle: t\ndifficulty: beginner\nprerequisites:\nminutes: 1\n"
        "track: lessons\n---\n\n"
        "```ddplab\nrun --strategy ddp --steps 2 -n 2 --trace t.ddptrace\n```\n\n"
        "```ddplab\nreport t.ddptrace --from-step 1\n```\n\n"
        "```ddplab\nreport --clock sim ../t.ddptrace\n```\n\n"
        "```ddplab\nreport t.ddptrace --png=/tmp/time.png\n```\n";
    Lesson l;
    char err[1024];
    CHECK_EQ_INT(lesson_parse_text("t.md", text, strlen(text), &l, err, sizeof err), 0);
    CHECK_EQ_INT(l.nruns, 4);
    CHECK_EQ_INT(lesson_confine_run("t.md", &l.runs[0], err, sizeof err), 0);
    CHECK_EQ_INT(lesson_confine_run("t.md", &l.runs[1], err, sizeof err), 0);
    CHECK_EQ_INT(lesson_confine_run("t.md", &l.runs[2], err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "t.md:19: report: '../t.ddptrace' is outside the scratch directory");
    CHECK_EQ_INT(lesson_confine_run("t.md", &l.runs[3], err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "t.md:23: report --png: '/tmp/time.png' is outside");
    CHECK_STR_CONTAINS(err, "(an absolute path)");
    LessonSession s;
    CHECK_EQ_INT(lesson_session_open(&s, NULL, err, sizeof err), 0);
    LessonFacts f;
    lesson_facts_init(&f);
    CHECK_EQ_INT(lesson_run_block(&s, &l.runs[0], &f, err, sizeof err), 0);
    CHECK_EQ_INT(f.exit_code, 0);
    CHECK(f.has_trace); // read back from the block's own --trace
    CHECK_EQ_INT(f.trace.nranks, 2);
    CHECK_EQ_INT(lesson_run_block(&s, &l.runs[1], &f, err, sizeof err), 0);
    CHECK_EQ_INT(f.exit_code, 0);
    CHECK(!f.has_trace);
    CHECK_STR_CONTAINS(f.output, "time per rank, over its steps");
    CHECK_STR_CONTAINS(f.output, "compute + data wait + exposed comm + idle = total on every "
                                 "rank: yes");
    CHECK_EQ_INT(lesson_run_block(&s, &l.runs[2], &f, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "'../t.ddptrace' is outside");
    lesson_facts_free(&f);
    lesson_session_close(&s);
    lesson_free(&l);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_coverage);
    RUN(test_refusals);
    RUN(test_walk);
    RUN(test_why);
    RUN(test_lesson);
    RUN(test_report);
    return failures ? 1 : 0;
}
