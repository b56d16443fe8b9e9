// cli/lesson/lesson_run.h: running a lesson's ```ddplab blocks in this process:
// `run`, `plan`, `bench` or `report` called directly (run_main, plan_main,
// bench_main, report_main)
// with what they print captured, each in a play session's scratch
// directory, which is removed when the session closes.
//
//   LessonSession s;
//   if (lesson_session_open(&s, NULL, err, sizeof err) != 0) ...
//   LessonFacts f;
//   lesson_facts_init(&f);
//   if (lesson_run_block(&s, &lesson.runs[0], &f, err, sizeof err) != 0) ...
//   ... f.exit_code, f.output, lesson_fact(&f, ...) ...
//   lesson_facts_free(&f);
//   lesson_session_close(&s);
#ifndef DDPLAB_CLI_LESSON_RUN_H
#define DDPLAB_CLI_LESSON_RUN_H

#include <stddef.h>

#include "learn/lesson.h"       // defines: LessonRun
#include "learn/lesson_facts.h" // defines: LessonFacts

typedef struct {
    char *dir;           // the scratch directory (heap): traces, captured output,
                         // and whatever the commands write (the working
                         // directory while a block runs)
    const char *backend; // --backend NAME for run and bench blocks, or NULL
    int blocks;          // blocks run so far (numbers their files)
} LessonSession;

// Creates the scratch directory ddplab-lesson-XXXXXX under $TMPDIR (or
// /tmp). 0, or -1 with err.
int lesson_session_open(LessonSession *s, const char *backend, char *err, size_t errlen);
// Removes the scratch directory and everything in it.
void lesson_session_close(LessonSession *s);

// The argv a block runs with: the block's words, then `--trace FILE` for
// run and bench (trace = FILE, or NULL for none; never for a comparison,
// lesson_run_compares) and `--backend NAME` when the session has one (not
// for --phantom, --fault or a comparison: those stay on the cpu backend).
// *argv is [*argc + 1], NULL-terminated; the strings are the block's and
// trace's (free only the array). 0, or -1 (memory).
int lesson_run_argv(const LessonSession *s, const LessonRun *r, const char *trace, int *argc,
                    char ***argv);

// Runs block r with stdout and stderr captured into f->output, its exit
// code in f->exit_code, and its trace (run, bench) loaded when it wrote
// one. f must be initialised (lesson_facts_init); what it held is freed.
// 0 whether the command succeeded or not; -1 with err when the block could
// not be run at all (scratch files, memory, an unknown command).
int lesson_run_block(LessonSession *s, const LessonRun *r, LessonFacts *f, char *err,
                     size_t errlen);

#endif
