// cli/learn/lesson_blocks.c: the body of a ```ddplab block (lessons/FORMAT.md,
// "Runs"): the command on the first line (continued by a trailing '\'),
// then `pause POS [caption]` and `expect exit N` lines. A line indented
// under a pause continues its caption. Blank lines are skipped.
#include <stdlib.h>
#include <string.h>

#include "learn/lesson_internal.h"
#include "trace/trace.h"          // defines: sim_trace_file_of

#define POS_ALLOWED                                                                                \
    "N, iN or KIND[:K] (KIND: iteration, phase, bucket-launch, bucket-done, coll, coll-step, "     \
    "gather, free, reduce, memory-peak, marker, fault, any)"



// The first word of s[n] (up to a blank): its length; *rest the text after
// it, trimmed, in *rest / *nrest.
static size_t first_word(const char *s, size_t n, const char **rest, size_t *nrest) {
    size_t w = 0;
    while (w < n && !lesson_blank(s[w]))
        w++;
    *nrest = n - w;
    *rest = lesson_trim(s + w, nrest);
    return w;
}

int lesson_split_argv(const char *cmd, char ***argv, const char **why) {
    // Words are at most as many as the bytes; each word is at most the command's length.
    size_t len = strlen(cmd);
    int cap = 0, argc = 0;
    char **av = NULL;
    char *word = malloc(len + 1);
    *why = "out of memory";
    if (word == NULL)
        return -1;
    const char *p = cmd;
    for (;;) {
        while (lesson_blank(*p) || *p == '\n')
            p++;
        if (*p == '\0')
            break;
        size_t k = 0;
        while (*p && !lesson_blank(*p) && *p != '\n') {
            char q = *p;
            if (q == '\'' || q == '"') {
                p++;
                while (*p && *p != q) {
                    if (q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
                        p++;
                    word[k++] = *p++;
                }
                if (*p != q) {
                    *why = q == '"' ? "has a \" that is not closed" : "has a ' that is not closed";
                    goto fail;
                }
                p++;
            } else {
                if (q == '\\' && p[1] != '\0')
                    p++;
                word[k++] = *p++;
            }
        }
        char **a = lesson_grow(av, &cap, argc + 1, sizeof *a); // room for the NULL too
        char *w = a ? lesson_strndup(word, k) : NULL;
        if (a)
            av = a;
        if (w == NULL) {
            *why = "out of memory";
            goto fail;
        }
        av[argc++] = w;
    }
    if (av == NULL && (av = calloc(1, sizeof *av)) == NULL)
        goto fail;
    av[argc] = NULL;
    free(word);
    *argv = av;
    return argc;
fail:
    for (int i = 0; i < argc; i++)
        free(av[i]);
    free(av);
    free(word);
    return -1;
}

// The command's words: argv[0] must be one of run, plan, bench, report.
static int set_command(const char *path, int line, LessonBuf *cmd, LessonRun *r, char *err,
                       size_t errlen) {
    char shown[80];
    const char *why;
    if (cmd->oom)
        return lesson_fail(err, errlen, path, line, "out of memory");
    r->command = lesson_buf_take(cmd);
    if (r->command == NULL)
        return lesson_fail(err, errlen, path, line, "out of memory");
    r->argc = lesson_split_argv(r->command, &r->argv, &why);
    if (r->argc < 0) {
        r->argc = 0;
        return lesson_fail(err, errlen, path, line, "the command %s", why);
    }
    if (r->argc == 0)
        return lesson_fail(err, errlen, path, line,
                           "the ddplab block has no command; its first line is run ..., "
                           "plan ..., bench ... or report ...");
    const char *w = r->argv[0];
    if (strcmp(w, "run") == 0 || strcmp(w, "plan") == 0 || strcmp(w, "bench") == 0 ||
        strcmp(w, "report") == 0)
        return 0;
    if (strcmp(w, "ddplab") == 0)
        return lesson_fail(err, errlen, path, line,
                           "write the command without the program name: run ..., plan ..., "
                           "bench ... or report ...");
    return lesson_fail(err, errlen, path, line,
                       "unknown command '%s'; allowed: run, plan, bench, report",
                       lesson_shown(w, strlen(w), shown));
}

int lesson_run_compares(const LessonRun *r) {
    if (r->argc < 1 || strcmp(r->argv[0], "run") != 0)
        return 0;
    static const char *const opts[] = {"--compare-backends", "--compare-with"};
    for (int i = 1; i < r->argc; i++)
        for (size_t k = 0; k < sizeof opts / sizeof *opts; k++) {
            size_t n = strlen(opts[k]);
            if (strncmp(r->argv[i], opts[k], n) == 0 &&
                (r->argv[i][n] == '\0' || r->argv[i][n] == '='))
                return 1;
        }
    return 0;
}

const char *lesson_run_own_trace(const LessonRun *r) {
    if (r->argc < 1 || (strcmp(r->argv[0], "run") != 0 && strcmp(r->argv[0], "bench") != 0))
        return NULL;
    const char *own = NULL; // the last one, as the command takes it
    for (int i = 1; i < r->argc; i++) {
        if (strcmp(r->argv[i], "--trace") == 0 && i + 1 < r->argc)
            own = r->argv[++i];
        else if (strncmp(r->argv[i], "--trace=", 8) == 0)
            own = r->argv[i] + 8;
    }
    return own;
}

int lesson_run_trace_readable(const LessonRun *r) {
    const char *own = lesson_run_own_trace(r);
    return own == NULL || sim_trace_file_of(own) != SIM_TRACE_FILE_CHROME;
}

static int add_pause(const char *path, int line, const char *s, size_t n, LessonRun *r, int *cap,
                     char *err, size_t errlen) {
    char shown[80];
    const char *cap_text;
    size_t ncap;
    size_t w = first_word(s, n, &cap_text, &ncap);
    if (w == 0)
        return lesson_fail(err, errlen, path, line,
                           "pause needs a position: pause POS [caption], POS " POS_ALLOWED);
    if (strcmp(r->argv[0], "plan") == 0 || strcmp(r->argv[0], "report") == 0)
        return lesson_fail(err, errlen, path, line,
                           "a %s block takes no pauses (%s makes no trace); pauses are for "
                           "run and bench",
                           r->argv[0], r->argv[0]);
    if (lesson_run_compares(r))
        return lesson_fail(err, errlen, path, line,
                           "a comparison (--compare-backends, --compare-with) takes no pauses: "
                           "it runs twice and makes no trace; pause in a block without it");
    if (!lesson_run_trace_readable(r))
        return lesson_fail(err, errlen, path, line,
                           "a block whose --trace is '%s' takes no pauses: the player pauses "
                           "in a .ddptrace or .jsonl trace",
                           lesson_shown(lesson_run_own_trace(r), strlen(lesson_run_own_trace(r)),
                                        shown));
    char *pos = lesson_strndup(s, w);
    if (pos == NULL)
        return lesson_fail(err, errlen, path, line, "out of memory");
    if (!lesson_pos_ok(pos)) {
        lesson_fail(err, errlen, path, line, "pause: '%s' is not a position; allowed: " POS_ALLOWED,
                    lesson_shown(pos, w, shown));
        free(pos);
        return -1;
    }
    LessonPause *a = lesson_grow(r->pauses, cap, r->npauses, sizeof *a);
    char *c = a ? lesson_strndup(cap_text, ncap) : NULL;
    if (a)
        r->pauses = a;
    if (c == NULL) {
        free(pos);
        return lesson_fail(err, errlen, path, line, "out of memory");
    }
    r->pauses[r->npauses++] = (LessonPause){.pos = pos, .caption = c, .line = line};
    return 0;
}

// `expect exit N`, N from 0 to 255.
static int set_expect(const char *path, int line, const char *s, size_t n, LessonRun *r, int *seen,
                      char *err, size_t errlen) {
    char shown[80];
    const char *rest;
    size_t nrest;
    size_t w = first_word(s, n, &rest, &nrest);
    if (w != 4 || memcmp(s, "exit", 4) != 0)
        return lesson_fail(err, errlen, path, line,
                           "'expect %s' is not an expectation; allowed: expect exit N",
                           lesson_shown(s, n, shown));
    if (*seen)
        return lesson_fail(err, errlen, path, line, "expect exit is given twice (first on line %d)",
                           *seen);
    int v = 0;
    size_t i = 0;
    for (; i < nrest && i < 3 && rest[i] >= '0' && rest[i] <= '9'; i++)
        v = v * 10 + (rest[i] - '0');
    if (nrest == 0 || i != nrest || v > 255)
        return lesson_fail(err, errlen, path, line,
                           "expect exit: '%s' is not an exit code; allowed: a number from 0 to 255",
                           lesson_shown(rest, nrest, shown));
    r->expect_exit = v;
    *seen = line;
    return 0;
}

int lesson_run_parse(const char *path, const char *text, size_t len, int first_line, LessonRun *r,
                     char *err, size_t errlen) {
    char shown[80];
    LessonBuf cmd = {0};
    size_t off = 0, n;
    const char *s;
    int line = first_line - 1, cmd_line = 0, cont = 0, caption = 0, expect = 0, cap = 0;
    r->expect_exit = 0;
    while (lesson_next_line(text, len, &off, &s, &n)) {
        line++;
        size_t k = n;
        const char *t = lesson_trim(s, &k);
        if (cont || (cmd_line == 0 && k > 0)) {
            // The command, and its continuation lines after a trailing '\'.
            if (cmd_line == 0)
                r->cmd_line = cmd_line = line;
            cont = k > 0 && t[k - 1] == '\\';
            if (cont) {
                k--;
                t = lesson_trim(t, &k);
            }
            if (cmd.n > 0 && k > 0)
                lesson_buf_addc(&cmd, ' ');
            lesson_buf_add(&cmd, t, k);
            if (!cont && set_command(path, cmd_line, &cmd, r, err, errlen) != 0)
                goto fail;
            continue;
        }
        if (k == 0) {
            caption = 0;
            continue;
        }
        if (caption && lesson_blank(s[0])) {
            // A caption's continuation line.
            LessonPause *p = &r->pauses[r->npauses - 1];
            size_t old = strlen(p->caption);
            char *c = realloc(p->caption, old + k + 2);
            if (c == NULL) {
                lesson_fail(err, errlen, path, line, "out of memory");
                goto fail;
            }
            if (old > 0)
                c[old++] = ' ';
            memcpy(c + old, t, k);
            c[old + k] = '\0';
            p->caption = c;
            continue;
        }
        caption = 0;
        const char *rest;
        size_t nrest;
        size_t w = first_word(t, k, &rest, &nrest);
        if (w == 5 && memcmp(t, "pause", 5) == 0) {
            if (add_pause(path, line, rest, nrest, r, &cap, err, errlen) != 0)
                goto fail;
            caption = 1;
        } else if (w == 6 && memcmp(t, "expect", 6) == 0) {
            if (set_expect(path, line, rest, nrest, r, &expect, err, errlen) != 0)
                goto fail;
        } else {
            lesson_fail(err, errlen, path, line,
                        "'%s' is not a line of a ddplab block; allowed: the command first, then "
                        "pause POS [caption] and expect exit N",
                        lesson_shown(t, k, shown));
            goto fail;
        }
    }
    if (cont) {
        lesson_fail(err, errlen, path, line,
                    "the command ends with '\\' but the block ends; continue it on the next line "
                    "or drop the '\\'");
        goto fail;
    }
    if (cmd_line == 0) {
        lesson_fail(err, errlen, path, first_line - 1,
                    "the ddplab block has no command; its first line is run ..., plan ... or "
                    "bench ...");
        goto fail;
    }
    lesson_buf_free(&cmd);
    return 0;
fail:
    lesson_buf_free(&cmd);
    return -1;
}

void lesson_run_free(LessonRun *r) {
    free(r->command);
    for (int i = 0; r->argv && i < r->argc; i++)
        free(r->argv[i]);
    free(r->argv);
    for (int i = 0; i < r->npauses; i++) {
        free(r->pauses[i].pos);
        free(r->pauses[i].caption);
    }
    free(r->pauses);
    memset(r, 0, sizeof *r);
}
