// cli/learn/lesson_catalog.h: the lessons a directory offers, in the order they
// are taught: those dir/index.md names, under its sections; without an
// index (while one is being written), every .md file in dir that starts
// with a lesson header, by file name, under "Lessons" or "Spot the bug"
// by its track. Each entry carries its header, or why it cannot be read.
#ifndef DDPLAB_CLI_LESSON_CATALOG_H
#define DDPLAB_CLI_LESSON_CATALOG_H

#include <stddef.h>

typedef struct {
    char *path;       // dir/FILE.md
    char *section;    // "Lessons", "Spot the bug", ...
    char *id, *title, *difficulty, *track; // NULL when error is set
    int minutes;
    char *error;      // the parser's message, or NULL
} LessonEntry;

typedef struct {
    LessonEntry *e;   // [n]
    int n;
    int from_index;   // 1: dir/index.md listed them
} LessonCatalog;

// 0, or -1 with err (an index that cannot be read or names a missing
// lesson: the parser's message; a directory that cannot be read).
int lesson_catalog_load(const char *dir, LessonCatalog *c, char *err, size_t errlen);
// The entry called name: its number in the list (from 1), its id, or its
// file name with or without ".md". -1 when none.
int lesson_catalog_find(const LessonCatalog *c, const char *name);
void lesson_catalog_free(LessonCatalog *c);

#endif
