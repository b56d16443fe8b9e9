// cli/lesson/lesson_confine.c: the files a lesson's blocks name stay in its
// scratch directory (lesson_confine.h). The check is on the words as written,
// before anything runs: the blocks run in a fresh directory that only the
// blocks themselves write to, and ddplab makes no links there, so a relative
// path without ".." cannot lead out of it.
#include "lesson/lesson_confine.h"

#include <stdio.h>
#include <string.h>

#include "bench/bench.h" // defines: bench_optab
#include "core/opts.h"   // defines: cli_opt_shown
#include "plan/plan.h"     // defines: plan_optab
#include "report/report.h" // defines: report_opts_files
#include "run/run.h"       // defines: run_optab

const CliOptTable *lesson_command_table(const char *name) {
    if (name == NULL)
        return NULL;
    if (strcmp(name, "run") == 0)
        return run_optab();
    if (strcmp(name, "plan") == 0)
        return plan_optab();
    if (strcmp(name, "bench") == 0)
        return bench_optab();
    return NULL;
}

const char *lesson_confine_why(const char *file) {
    if (file[0] == '/')
        return "an absolute path";
    for (const char *p = file; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return "a '..' component";
        p += n;
        p += *p == '/';
    }
    return NULL;
}

typedef struct {
    const char *path;
    int line;
    char *err;
    size_t errlen;
} Confine;

// 0 when file stays in the scratch directory; else 1 with err = "PATH:LINE:
// WHO: 'VALUE' is outside ..." (who: "--save", "report --png", "report").
static int confine_file(Confine *c, const char *who, const char *value, const char *file,
                        const char *examples) {
    const char *why = lesson_confine_why(file);
    if (why == NULL)
        return 0;
    char shown[72];
    snprintf(c->err, c->errlen,
             "%s:%d: %s: '%s' is outside the scratch directory the lesson's blocks run in "
             "(%s); allowed: a path relative to it without '..' (%s)",
             c->path, c->line, who, cli_opt_shown(value, shown, sizeof shown), why, examples);
    return 1;
}

static int check_file(void *arg, const CliOptRow *row, const char *value, const char *file) {
    char who[80];
    snprintf(who, sizeof who, "--%s", row->name);
    return confine_file(arg, who, value, file, "ck.st, out/m.jsonl");
}

// report has no option table: its two files (the trace, --png's chart)
// are found by report_opts_files.
static int check_report_file(void *arg, const char *opt, const char *file) {
    char who[80];
    snprintf(who, sizeof who, "report%s%s", opt ? " --" : "", opt ? opt : "");
    return confine_file(arg, who, file, file, "t.ddptrace, out/time.png");
}

int lesson_confine_run(const char *path, const LessonRun *r, char *err, size_t errlen) {
    if (r->argc < 1)
        return 0;
    if (strcmp(r->argv[0], "report") == 0) {
        Confine c = {path, r->cmd_line > 0 ? r->cmd_line : r->line, err, errlen};
        return report_opts_files(r->argc, r->argv, check_report_file, &c) == 0 ? 0 : -1;
    }
    const CliOptTable *t = lesson_command_table(r->argv[0]);
    if (t == NULL) // the parser allows no other command; nothing of it runs
        return 0;
    Confine c = {path, r->cmd_line > 0 ? r->cmd_line : r->line, err, errlen};
    int rc = cli_optab_files(t, r->argc, r->argv, check_file, &c);
    if (rc < 0)
        snprintf(err, errlen, "%s:%d: out of memory", path, c.line);
    return rc == 0 ? 0 : -1;
}

int lesson_confine(const Lesson *l, char *err, size_t errlen) {
    for (int i = 0; i < l->nruns; i++)
        if (lesson_confine_run(l->path, &l->runs[i], err, errlen) != 0)
            return -1;
    return 0;
}

int lesson_load(const char *path, Lesson *l, char *err, size_t errlen) {
    if (lesson_parse_file(path, l, err, errlen) != 0)
        return -1;
    if (lesson_confine(l, err, errlen) != 0) {
        lesson_free(l);
        return -1;
    }
    return 0;
}
