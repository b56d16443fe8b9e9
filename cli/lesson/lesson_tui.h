// cli/lesson/lesson_tui.h: the lessons as one full-screen program on a
// terminal: the menu (arrow keys, search, filters, progress marks, the
// interview drill), and each lesson on one screen, with its narrative,
// the view of its runs and its questions side by side or stacked, and a
// status line listing the keys that work. Where it was left, each lesson
// resumes; at its end a summary stays on screen, with a review of what was
// missed. lesson_play.h is the same lessons as text, for pipes and tests.
#ifndef DDPLAB_CLI_LESSON_TUI_H
#define DDPLAB_CLI_LESSON_TUI_H

#include "learn/lesson_catalog.h"  // defines: LessonCatalog
#include "learn/lesson_progress.h" // defines: LessonProgress

typedef struct {
    const LessonCatalog *cat;  // the menu's lessons (NULL: only `path`)
    const char *path;          // a lesson to open at once (NULL: the menu); q
                               // from it ends the program
    const char *backend;       // --backend NAME for run and bench blocks, or NULL
    LessonProgress *progress;  // the learner's, updated as lessons are played
    const char *progress_path; // where it is saved (NULL: nowhere)
    unsigned long seed;        // of the choice orders (0: as written)
} LessonTuiOpts;

// 1 when the full-screen player can run here: a terminal on standard input
// and output, and a build with ncurses.
int lesson_tui_available(void);
// Runs the menu (or the lesson) until the learner quits. Returns an exit
// code (CLI_EXIT_OK; CLI_EXIT_INTERNAL when the terminal or the scratch
// directory cannot be used, after saying why on stderr).
int lesson_tui_run(const LessonTuiOpts *o);

#endif
