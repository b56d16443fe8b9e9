// cli/learn/lesson_catalog.c: the lessons of a directory (lesson_catalog.h). Each
// file is parsed whole, so a lesson that would fail to play is marked in
// the menu before the learner chooses it.
#include "learn/lesson_catalog.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "learn/lesson.h" // defines: Lesson, lesson_parse_file, lesson_index_load

static char *dup_str(const char *s) {
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

void lesson_catalog_free(LessonCatalog *c) {
    if (c == NULL)
        return;
    for (int i = 0; i < c->n; i++) {
        LessonEntry *e = &c->e[i];
        free(e->path), free(e->section), free(e->id), free(e->title);
        free(e->difficulty), free(e->track), free(e->error);
    }
    free(c->e);
    memset(c, 0, sizeof *c);
}

// Fills entry e (path and section already set) from its file.
static int describe(LessonEntry *e, LessonCheck check) {
    Lesson l;
    char err[512];
    if (lesson_parse_file(e->path, &l, err, sizeof err) != 0) {
        e->error = dup_str(err);
        return e->error ? 0 : -1;
    }
    if (check && check(&l, err, sizeof err) != 0) {
        lesson_free(&l);
        e->error = dup_str(err);
        return e->error ? 0 : -1;
    }
    e->id = dup_str(l.id);
    e->title = dup_str(l.title);
    e->difficulty = dup_str(l.difficulty);
    e->track = dup_str(l.track);
    e->minutes = l.minutes;
    lesson_free(&l);
    return e->id && e->title && e->difficulty && e->track ? 0 : -1;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// 1 when the file at path starts with a lesson header ("---" line).
static int has_header(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    char head[5] = "";
    size_t n = fread(head, 1, 4, f);
    fclose(f);
    return n >= 4 && (memcmp(head, "---\n", 4) == 0 || memcmp(head, "---\r", 4) == 0);
}

// Without an index: the lesson files of dir by name.
static int scan(const char *dir, LessonCheck check, LessonCatalog *c, char *err,
                size_t errlen) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(err, errlen, "%s: cannot read the lessons' directory: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    int n = 0, cap = 0, rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 3, ".md") != 0)
            continue;
        size_t pn = strlen(dir) + len + 2;
        char *path = malloc(pn);
        if (path == NULL) {
            rc = -1;
            break;
        }
        snprintf(path, pn, "%s/%s", dir, de->d_name);
        if (!has_header(path)) {
            free(path);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **t = realloc(names, (size_t)cap * sizeof *t);
            if (t == NULL) {
                free(path);
                rc = -1;
                break;
            }
            names = t;
        }
        names[n++] = path;
    }
    closedir(d);
    if (n > 0)
        qsort(names, (size_t)n, sizeof *names, by_name);
    LessonEntry *all = rc == 0 && n > 0 ? calloc((size_t)n, sizeof *all) : NULL;
    c->e = all ? calloc((size_t)n, sizeof *c->e) : NULL;
    if (rc != 0 || (n > 0 && c->e == NULL))
        rc = -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        all[i].path = names[i];
        names[i] = NULL;
        if (describe(&all[i], check) != 0)
            rc = -1;
    }
    // lessons first, then the spot-the-bug exercises, each by name
    for (int pass = 0; rc == 0 && pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int bug = all[i].track && strcmp(all[i].track, "spot-the-bug") == 0;
            if (pass != bug)
                continue;
            c->e[c->n] = all[i];
            memset(&all[i], 0, sizeof all[i]);
            if ((c->e[c->n++].section = dup_str(bug ? "Spot the bug" : "Lessons")) == NULL)
                rc = -1;
        }
    for (int i = 0; all && i < n; i++) { // what is left after a failure
        LessonEntry *e = &all[i];
        free(e->path), free(e->id), free(e->title), free(e->difficulty), free(e->track);
        free(e->error);
    }
    free(all);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

int lesson_catalog_load(const char *dir, LessonCheck check, LessonCatalog *c, char *err,
                        size_t errlen) {
    memset(c, 0, sizeof *c);
    size_t n = strlen(dir) + sizeof "/index.md";
    char *ipath = malloc(n);
    if (ipath == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(ipath, n, "%s/index.md", dir);
    struct stat st;
    int indexed = stat(ipath, &st) == 0;
    free(ipath);
    if (!indexed) {
        if (scan(dir, check, c, err, errlen) != 0) {
            lesson_catalog_free(c);
            return -1;
        }
        return 0;
    }
    LessonIndex ix;
    if (lesson_index_load(dir, &ix, err, errlen) != 0)
        return -1;
    c->from_index = 1;
    c->e = ix.n > 0 ? calloc((size_t)ix.n, sizeof *c->e) : NULL;
    int rc = ix.n > 0 && c->e == NULL ? -1 : 0;
    for (int i = 0; rc == 0 && i < ix.n; i++) {
        LessonEntry *e = &c->e[c->n++];
        e->path = dup_str(ix.paths[i]);
        e->section = dup_str(ix.sections[i] ? ix.sections[i] : "");
        if (e->path == NULL || e->section == NULL || describe(e, check) != 0)
            rc = -1;
    }
    lesson_index_free(&ix);
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        lesson_catalog_free(c);
    }
    return rc;
}

int lesson_catalog_find(const LessonCatalog *c, const char *name) {
    char *end;
    long k = strtol(name, &end, 10);
    if (end != name && *end == '\0')
        return k >= 1 && k <= c->n ? (int)k - 1 : -1;
    for (int i = 0; i < c->n; i++)
        if (c->e[i].id && strcmp(c->e[i].id, name) == 0)
            return i;
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".md") == 0)
        n -= 3;
    for (int i = 0; i < c->n; i++) {
        const char *base = strrchr(c->e[i].path, '/');
        base = base ? base + 1 : c->e[i].path;
        if (strncmp(base, name, n) == 0 && strcmp(base + n, ".md") == 0)
            return i;
    }
    return -1;
}
