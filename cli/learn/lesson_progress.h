// cli/learn/lesson_progress.h: what the learner has done, kept between sessions in
// $XDG_STATE_HOME/ddplab/progress.json (default ~/.local/state/ddplab/):
// for each lesson id, whether it was played to the end, the questions
// answered right out of those asked in the latest play, and when it was
// last played. The file is JSON, written atomically:
//
//   {"version": 1, "lessons": {"ddp-buckets": {"completed": true,
//     "right": 2, "asked": 3, "last_played": "2025-03-01T09:30:00Z",
//     "at": 4, "answers": "rw-"}}}
//
// "at" is the section the full-screen player resumes at (0: the start), and
// "answers" one mark per question of the lesson, in order: r right, w wrong,
// s skipped, - not asked yet (what its summary and review mode read).
#ifndef DDPLAB_CLI_LESSON_PROGRESS_H
#define DDPLAB_CLI_LESSON_PROGRESS_H

#include <stddef.h>
#include <time.h>

typedef struct {
    char *id;
    int completed;      // played to the end at least once
    int right, asked;   // questions of the latest play
    time_t last_played; // 0: never
    int at;             // the section to resume at (0: the start)
    char *answers;      // a mark per question ("rw-s"), or NULL
} LessonProgressEntry;

typedef struct {
    LessonProgressEntry *e; // [n]
    int n, cap;
} LessonProgress;

// The file's path (heap): $XDG_STATE_HOME/ddplab/progress.json when that is
// set to an absolute path, else $HOME/.local/state/ddplab/progress.json;
// NULL when neither is known.
char *lesson_progress_path(void);

// Reads the file at path into p (a missing file is no progress yet). 0, or
// -1 with err when it exists but cannot be read or is not such a file (p is
// then empty, and saving replaces the file).
int lesson_progress_load(LessonProgress *p, const char *path, char *err, size_t errlen);
// The entry of lesson id, or NULL.
const LessonProgressEntry *lesson_progress_find(const LessonProgress *p, const char *id);
// Records a play of lesson id: completed is kept once set; right, asked
// and the time are replaced. 0, or -1 (memory).
int lesson_progress_record(LessonProgress *p, const char *id, int completed, int right,
                           int asked, time_t when);
// Records where a play of lesson id stands: the section to resume at and
// the marks of its questions (copied; NULL keeps none). 0, or -1 (memory).
int lesson_progress_record_at(LessonProgress *p, const char *id, int at, const char *answers);
// Writes p to path atomically, creating its directories. 0, or -1 with err.
int lesson_progress_save(const LessonProgress *p, const char *path, char *err, size_t errlen);
void lesson_progress_free(LessonProgress *p);

#endif
