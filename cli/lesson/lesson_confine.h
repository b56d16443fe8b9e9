// cli/lesson/lesson_confine.h: a lesson's files stay in its scratch directory.
// A lesson may come from anyone, and its blocks run with the learner's
// rights, so no block may name a file outside the directory it runs in
// (lesson_run.h): a checkpoint saved over a file of the learner's, metrics
// written beside the scratch directory, a profile read from elsewhere. Every
// file a block's command names is found through its command's option table
// (core/optable.h, cli_optab_files: the rows say which values name files),
// and must be a relative path without a ".." component.
//
//   Lesson l;
//   if (lesson_load(path, &l, err, sizeof err) != 0)   // parsed and checked
//       ... err = "PATH:LINE: --save: '/home/u/notes' is outside the scratch
//               directory the lesson's blocks run in (an absolute path); ..."
#ifndef DDPLAB_CLI_LESSON_CONFINE_H
#define DDPLAB_CLI_LESSON_CONFINE_H

#include <stddef.h>

#include "core/optable.h" // defines: CliOptTable
#include "learn/lesson.h" // defines: Lesson, LessonRun

// The option table of a command a lesson runs ("run", "plan", "bench"), or
// NULL for any other word.
const CliOptTable *lesson_command_table(const char *name);

// NULL when file stays in the directory it is taken from (relative, no ".."
// component); else what takes it out ("an absolute path", "a '..' component").
const char *lesson_confine_why(const char *file);

// Checks run block r of the lesson at path: 0, or -1 with err = "PATH:LINE:
// --OPT: 'VALUE' ... ; allowed: ..." naming the first file outside.
int lesson_confine_run(const char *path, const LessonRun *r, char *err, size_t errlen);
// Every run block of l (its path names it in the message).
int lesson_confine(const Lesson *l, char *err, size_t errlen);

// lesson_parse_file, then lesson_confine: a lesson the player may play.
// 0, or -1 with err (l is then empty).
int lesson_load(const char *path, Lesson *l, char *err, size_t errlen);

#endif
