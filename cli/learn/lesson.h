// cli/learn/lesson.h: lessons as data (lessons/FORMAT.md): a lesson file parsed
// with md4c into narrative items, runs and questions, and the index that
// orders them. Pure parsing: no runs, no terminal.
//
//   Lesson l;
//   char err[256];
//   if (lesson_parse_file("lessons/ddp-buckets.md", &l, err, sizeof err) != 0)
//       fprintf(stderr, "%s\n", err);   // "lessons/ddp-buckets.md:12: ..."
//   ...
//   lesson_free(&l);
#ifndef DDPLAB_CLI_LESSON_H
#define DDPLAB_CLI_LESSON_H

#include <stddef.h>

typedef struct {
    char *pos;      // as `ddplab replay --at` takes it: "bucket-launch:0", "i1", "57"
    char *caption;  // may be "" (never NULL)
    int line;       // in the lesson file, 1-based
} LessonPause;

typedef struct {
    char *command;  // the whole command, continuation lines joined by spaces
    int argc;       // argv split on blanks (quotes '...' and "..." group words)
    char **argv;    // [argc + 1], NULL-terminated; argv[0] is "run", "plan", "bench" or "report"
    LessonPause *pauses;
    int npauses;
    int expect_exit; // default 0
    int line;
    int cmd_line;   // the line the command starts on (the block's next line, or later)
} LessonRun;

typedef enum { LESSON_Q_NUMBER = 0, LESSON_Q_CHOICE, LESSON_Q_WORD } LessonQType;

typedef struct {
    char *ask;
    LessonQType type;
    char *answer;    // the recorded answer (choice: the letter, "b")
    char *check;     // number questions: the fact name ("buckets", "out:peak ([0-9.]+)")
    double tol;      // tolerance (0: none given; the answer is graded by its digits)
    int tol_relative; // 1: tol is a fraction of the fact (given as "2%": 0.02)
    int digits;      // number questions: the significant digits the answer needs
                     // (0: as many as the screen shows the fact with, less one)
    char **from;     // number questions: [nfrom] the figures the answer is worked
                     // out from, as the screen shows them ("2 steps", "3 buckets")
    int nfrom;
    char *varies;    // number questions: why the fact may differ between machines
                     // (NULL: it may not; --non-interactive then fails on a difference)
    char **choices;  // choice questions: [nchoices] "a) text" as written
    int nchoices;
    char **accept;   // word questions: [naccept] other spellings
    int naccept;
    char *explain;   // may be ""
    int run;         // index of the latest run block before it (-1: none)
    int line;
} LessonQuestion;

typedef enum { LESSON_ITEM_TEXT = 0, LESSON_ITEM_RUN, LESSON_ITEM_QUESTION } LessonItemKind;

typedef struct {
    LessonItemKind kind;
    char *text;      // TEXT: the narrative as plain text (markup removed; paragraphs
                     // separated by a blank line; list items start with "- ", or
                     // "1. " in numbered lists; headings are their own paragraph)
    int index;       // RUN / QUESTION: index into runs / questions
    int line;
} LessonItem;

typedef struct {
    char *path;
    char *id, *title, *difficulty, *track;
    char **prereqs;
    int nprereqs;
    int minutes;
    LessonItem *items;
    int nitems;
    LessonRun *runs;
    int nruns;
    LessonQuestion *questions;
    int nquestions;
} Lesson;

// Parses the lesson in text[len] (path names it in messages). Returns 0, or
// -1 with err = "PATH:LINE: problem" (a missing or bad header key, an
// unknown block key, a run with no command or an unknown command, a bad
// pause position, a question without ask / answer / type, a number question
// without check or with an answer that is not a number, a choice answer
// that names no choice, ...); *l is then empty (safe to free).
int lesson_parse_text(const char *path, const char *text, size_t len, Lesson *l, char *err,
                      size_t errlen);
int lesson_parse_file(const char *path, Lesson *l, char *err, size_t errlen);
void lesson_free(Lesson *l);

// 1 when run block r is a comparison (`run` with --compare-backends or
// --compare-with): it runs twice and writes no trace, so it takes no pauses
// and no trace facts, only out:REGEX and exit.
int lesson_run_compares(const LessonRun *r);

// The file a `run` or `bench` block names with its own --trace FILE, or
// NULL. The player writes the block's trace there instead of a file of its
// own, so that a later `report FILE` block reads it; a FILE that is not a
// .ddptrace or .jsonl (a Chrome trace, .json) gives no trace facts and
// takes no pauses.
const char *lesson_run_own_trace(const LessonRun *r);
// 1 when the block's trace is one the player reads back for its pauses and
// trace facts: the player's own, or an own --trace that is .ddptrace/.jsonl.
int lesson_run_trace_readable(const LessonRun *r);

// The index: every lesson file named by a Markdown link in dir/index.md, in
// order, and the section (the latest "## " heading: "Lessons", "Spot the
// bug") each is listed under.
typedef struct {
    int n;
    char **paths;    // [n] dir/FILE.md
    char **sections; // [n]
} LessonIndex;

int lesson_index_load(const char *dir, LessonIndex *ix, char *err, size_t errlen);
void lesson_index_free(LessonIndex *ix);

// Where the lessons are: $DDPLAB_LESSONS; else, for a program that runs from
// its build tree, the source tree's lessons/ (compiled in); else installed
// beside the program, PREFIX/share/ddplab/lessons for PREFIX/bin/ddplab;
// else "lessons" under the working directory.
const char *lesson_dir(void);

#endif
