// cli/learn/lesson_catalog.h: the lessons a directory offers, in the order they
// are taught: those dir/index.md names, under its sections; without an
// index (while one is being written), every .md file in dir that starts
// with a lesson header, by file name, under "Lessons" or "Spot the bug"
// by its track. Each entry carries its header, or why it cannot be read.
#ifndef DDPLAB_CLI_LESSON_CATALOG_H
#define DDPLAB_CLI_LESSON_CATALOG_H

#include <stddef.h>

#include "learn/lesson.h" // defines: Lesson

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

// What a player checks of a lesson besides its form (the lesson player: that
// its blocks name no file outside its scratch directory, lesson_confine.h):
// 0, or -1 with err in the parser's "PATH:LINE: ..." form.
typedef int (*LessonCheck)(const Lesson *l, char *err, size_t errlen);

// 0, or -1 with err (an index that cannot be read or names a missing
// lesson: the parser's message; a directory that cannot be read). A lesson
// that check (NULL: none) refuses is listed with its message as its error,
// like one that does not parse.
int lesson_catalog_load(const char *dir, LessonCheck check, LessonCatalog *c, char *err,
                        size_t errlen);
// The entry called name: its number in the list (from 1), its id, or its
// file name with or without ".md". -1 when none.
int lesson_catalog_find(const LessonCatalog *c, const char *name);
void lesson_catalog_free(LessonCatalog *c);

#endif
