// cli/learn/lesson_facts.h: what one finished block of a lesson leaves behind (its
// exit code, what it printed, and for `run` and `bench` its trace) and the
// facts of lessons/FORMAT.md ("Facts of a run") computed from them.
//
//   LessonFacts f;
//   lesson_facts_init(&f);
//   ... lesson_run_block(..., &f, ...) fills exit_code, output and the trace ...
//   double v;
//   char why[256];
//   if (lesson_fact(&f, "buckets", &v, why, sizeof why) != 0)
//       printf("%s\n", why);   // "the run's trace has no DDP bucket plan"
//   lesson_facts_free(&f);
#ifndef DDPLAB_CLI_LESSON_FACTS_H
#define DDPLAB_CLI_LESSON_FACTS_H

#include <stddef.h>

#include "scene.h"  // defines: VizModel
#include "vtrace.h" // defines: VizTrace

typedef struct {
    int exit_code;     // the command's exit code (CLI_EXIT_*)
    char *output;      // what it printed, stdout and stderr together (heap,
                       // NUL-terminated; "" when nothing; never NULL after a run)
    size_t output_len;
    int has_trace;     // 1: trace and model hold the run's trace
    VizTrace trace;
    VizModel *model;
} LessonFacts;

void lesson_facts_init(LessonFacts *f);
// Loads the trace that the block wrote at path into f (replacing any).
// 0, or -1 with err = "PATH: why" (f then has no trace).
int lesson_facts_load_trace(LessonFacts *f, const char *path, char *err, size_t errlen);
void lesson_facts_free(LessonFacts *f);

// The fact called name (exit, iterations, buckets, bucket_params:K, units,
// collectives:NAME, coll_bytes:NAME, peak_bytes:R, loss, loss:I, sim_us,
// exposed_us, out:REGEX) into *v. 0, or -1 with why = what is missing
// ("the run left no trace (exit 3)", "out:...: no match in the output",
// "bucket_params:7: the last plan has 3 buckets (0 to 2)", ...).
int lesson_fact(LessonFacts *f, const char *name, double *v, char *why, size_t whylen);

// The number in s[n] as the facts read printed numbers: blanks around it
// are allowed, and commas between digits ("22,032") are dropped. 0, or -1
// when s is not exactly one number.
int lesson_fact_number(const char *s, size_t n, double *v);

#endif
