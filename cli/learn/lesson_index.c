// cli/learn/lesson_index.c: the lessons' index (dir/index.md) and where the
// lessons are. Every Markdown link to a relative .md path is a lesson, in
// the order written, under the latest "## " heading; each is read as far as
// its header, so that a missing file or two lessons with one id are found
// here, with the index line that names them.
#define _XOPEN_SOURCE 700 // realpath()
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/paths.h"            // defines: cli_paths_exe_dir, cli_paths_in_build_tree
#include "learn/lesson_internal.h"

// The lessons' folder when $DDPLAB_LESSONS is not set: found once per process
// (found_once), since it depends only on where the program is.
static pthread_once_t found_once = PTHREAD_ONCE_INIT;
static const char *found_dir;
static char installed_dir[PATH_MAX];

static void find_dir(void) {
#ifdef DDPLAB_LESSON_DIR
    // a program in its build tree reads the source tree's lessons, so that
    // an edited lesson shows without an install
    if (cli_paths_in_build_tree() && cli_paths_is_dir(DDPLAB_LESSON_DIR)) {
        found_dir = DDPLAB_LESSON_DIR;
        return;
    }
#endif
    char exe[PATH_MAX], dir[PATH_MAX + 64];
    if (cli_paths_exe_dir(exe, sizeof exe) == 0 &&
        snprintf(dir, sizeof dir, "%s/%s", exe, CLI_PATHS_INSTALLED_LESSONS) < (int)sizeof dir &&
        cli_paths_is_dir(dir) && realpath(dir, installed_dir) != NULL) {
        found_dir = installed_dir; // PREFIX/share/ddplab/lessons, without the bin/..
        return;
    }
    found_dir = "lessons"; // the last resort: a lessons/ folder where the program runs
}

const char *lesson_dir(void) {
    const char *e = getenv("DDPLAB_LESSONS");
    if (e != NULL && *e != '\0')
        return e;
    pthread_once(&found_once, find_dir);
    return found_dir;
}

void lesson_index_free(LessonIndex *ix) {
    if (ix == NULL)
        return;
    for (int i = 0; i < ix->n; i++) {
        free(ix->paths[i]);
        free(ix->sections[i]);
    }
    free(ix->paths);
    free(ix->sections);
    memset(ix, 0, sizeof *ix);
}

#if !DDPLAB_HAVE_MD4C

int lesson_index_load(const char *dir, LessonIndex *ix, char *err, size_t errlen) {
    memset(ix, 0, sizeof *ix);
    return lesson_fail(err, errlen, dir, 0,
                       "this build has no md4c: apt-get install libmd4c-dev, then rebuild");
}

#else

typedef struct {
    const char *dir, *ipath;
    LessonLines lines;
    LessonIndex *ix;
    int *link_line; // [ix->n] where each lesson is named
    char **targets; // [ix->n] the links as written
    int cap_paths, cap_sections, cap_lines, cap_targets;
    int in_h2, last_line, failed;
    LessonBuf heading;
    char *section;
} IndexWalk;

static int seen_at(IndexWalk *w, const char *p) {
    int line = lesson_line_of(&w->lines, p);
    if (line > 0)
        w->last_line = line;
    return line;
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *u) {
    IndexWalk *w = u;
    if (type == MD_BLOCK_H && ((MD_BLOCK_H_DETAIL *)detail)->level == 2) {
        w->in_h2 = 1;
        w->heading.n = 0;
    }
    return 0;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *u) {
    IndexWalk *w = u;
    if (type == MD_BLOCK_H && ((MD_BLOCK_H_DETAIL *)detail)->level == 2) {
        w->in_h2 = 0;
        lesson_buf_rtrim(&w->heading);
        free(w->section);
        w->section = lesson_strndup(w->heading.s ? w->heading.s : "", w->heading.n);
        if (w->section == NULL || w->heading.oom) {
            w->failed = 1;
            return -1;
        }
    }
    return 0;
}

// A link's target when it names a lesson: relative, ending in ".md" once
// a "#fragment" or "?query" is dropped. Its length, or 0.
static size_t lesson_target(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) // s[n] need not be a NUL (md4c's own buffers)
        if (s[i] == '#' || s[i] == '?')
            n = i;
    if (n < 4 || s[0] == '/' || memcmp(s + n - 3, ".md", 3) != 0)
        return 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == ':') // a scheme (https:, mailto:)
            return 0;
    return n;
}

static int add_link(IndexWalk *w, const char *href, size_t n, int line) {
    LessonIndex *ix = w->ix;
    size_t dl = strlen(w->dir);
    char **p = lesson_grow(ix->paths, &w->cap_paths, ix->n, sizeof *p);
    if (p)
        ix->paths = p;
    char **s = p ? lesson_grow(ix->sections, &w->cap_sections, ix->n, sizeof *s) : NULL;
    if (s)
        ix->sections = s;
    int *l = s ? lesson_grow(w->link_line, &w->cap_lines, ix->n, sizeof *l) : NULL;
    if (l)
        w->link_line = l;
    char **t = l ? lesson_grow(w->targets, &w->cap_targets, ix->n, sizeof *t) : NULL;
    if (t == NULL)
        return -1;
    w->targets = t;
    char *path = malloc(dl + n + 2);
    char *sec = lesson_strndup(w->section ? w->section : "", w->section ? strlen(w->section) : 0);
    char *tgt = lesson_strndup(href, n);
    if (path == NULL || sec == NULL || tgt == NULL) {
        free(path), free(sec), free(tgt);
        return -1;
    }
    memcpy(path, w->dir, dl);
    path[dl] = '/';
    memcpy(path + dl + 1, href, n);
    path[dl + 1 + n] = '\0';
    ix->paths[ix->n] = dl ? path : memmove(path, path + 1, n + 1);
    ix->sections[ix->n] = sec;
    w->link_line[ix->n] = line;
    w->targets[ix->n] = tgt;
    ix->n++;
    return 0;
}

static int enter_span(MD_SPANTYPE type, void *detail, void *u) {
    IndexWalk *w = u;
    if (type != MD_SPAN_A)
        return 0;
    const MD_ATTRIBUTE *href = &((MD_SPAN_A_DETAIL *)detail)->href;
    int line = seen_at(w, href->text);
    size_t n = href->text ? lesson_target(href->text, href->size) : 0;
    if (n > 0 && add_link(w, href->text, n, line ? line : w->last_line) != 0) {
        w->failed = 1;
        return -1;
    }
    return 0;
}

static int leave_span(MD_SPANTYPE type, void *detail, void *u) {
    (void)type, (void)detail, (void)u;
    return 0;
}

static int on_text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *u) {
    IndexWalk *w = u;
    seen_at(w, s);
    if (w->in_h2 && type != MD_TEXT_HTML)
        lesson_buf_add(&w->heading, type == MD_TEXT_SOFTBR ? " " : s,
                       type == MD_TEXT_SOFTBR ? 1 : n);
    return 0;
}

// Each listed file read as far as its header: readable, once, ids unique.
static int check_lessons(IndexWalk *w, char *err, size_t errlen) {
    LessonIndex *ix = w->ix;
    char **ids = calloc((size_t)ix->n + 1, sizeof *ids);
    int rc = -1;
    if (ids == NULL)
        return lesson_fail(err, errlen, w->ipath, 0, "out of memory");
    for (int i = 0; i < ix->n; i++) {
        int line = w->link_line[i];
        for (int j = 0; j < i; j++)
            if (strcmp(ix->paths[i], ix->paths[j]) == 0) {
                lesson_fail(err, errlen, w->ipath, line, "'%s' is listed twice (first on line %d)",
                            w->targets[i], w->link_line[j]);
                goto done;
            }
        char why[512];
        size_t len, body;
        char *text = lesson_read_file(ix->paths[i], &len, why, sizeof why);
        if (text == NULL) {
            lesson_fail(err, errlen, w->ipath, line, "the link to '%s' names no lesson: %s",
                        w->targets[i], why);
            goto done;
        }
        Lesson l;
        memset(&l, 0, sizeof l);
        int bad = memchr(text, '\0', len) != NULL;
        if (bad)
            lesson_fail(err, errlen, ix->paths[i], 0, "a NUL byte; a lesson is a text file");
        else
            bad = lesson_header_parse(ix->paths[i], text, len, &l, &body, err, errlen) != 0;
        free(text);
        ids[i] = l.id;
        l.id = NULL;
        lesson_free(&l);
        if (bad)
            goto done;
        for (int j = 0; j < i; j++)
            if (strcmp(ids[i], ids[j]) == 0) {
                lesson_fail(err, errlen, w->ipath, line,
                            "'%s' has the id '%s', like '%s' (line %d); ids must be unique",
                            w->targets[i], ids[i], w->targets[j], w->link_line[j]);
                goto done;
            }
    }
    rc = 0;
done:
    for (int i = 0; i < ix->n; i++)
        free(ids[i]);
    free(ids);
    return rc;
}

int lesson_index_load(const char *dir, LessonIndex *ix, char *err, size_t errlen) {
    memset(ix, 0, sizeof *ix);
    IndexWalk w;
    memset(&w, 0, sizeof w);
    w.dir = dir;
    w.ix = ix;
    size_t dl = strlen(dir), len = 0;
    char *ipath = malloc(dl + sizeof "/index.md");
    char *raw = NULL, *text = NULL; // the file, and its copy for md4c (lesson_padded)
    int rc = -1;
    if (ipath == NULL) {
        lesson_fail(err, errlen, dir, 0, "out of memory");
        goto done;
    }
    memcpy(ipath, dir, dl);
    memcpy(ipath + dl, "/index.md", sizeof "/index.md");
    w.ipath = ipath;
    if ((raw = lesson_read_file(ipath, &len, err, errlen)) == NULL)
        goto done;
    if ((text = lesson_padded(raw, len)) == NULL || lesson_lines_init(&w.lines, text, len) != 0) {
        lesson_fail(err, errlen, ipath, 0, "out of memory");
        goto done;
    }
    MD_PARSER p;
    memset(&p, 0, sizeof p);
    p.flags = MD_FLAG_TABLES;
    p.enter_block = enter_block;
    p.leave_block = leave_block;
    p.enter_span = enter_span;
    p.leave_span = leave_span;
    p.text = on_text;
    if (md_parse(text, (MD_SIZE)len, &p, &w) != 0 || w.failed || w.heading.oom) {
        lesson_fail(err, errlen, ipath, 0, "out of memory");
        goto done;
    }
    rc = check_lessons(&w, err, errlen);
done:
    for (int i = 0; i < ix->n; i++)
        free(w.targets[i]);
    free(w.targets);
    free(w.link_line);
    free(w.section);
    lesson_buf_free(&w.heading);
    lesson_lines_free(&w.lines);
    free(text);
    free(raw);
    free(ipath);
    if (rc != 0)
        lesson_index_free(ix);
    return rc;
}

#endif
