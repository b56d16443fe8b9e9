// cli/learn/lesson_grade.h: grading an answer to a lesson's question
// (lessons/FORMAT.md, "Questions"): a number within the tolerance of the
// fact its run computed, a choice by its letter, a word in any case or any
// accepted spelling. Pure functions, no input or output.
#ifndef DDPLAB_CLI_LESSON_GRADE_H
#define DDPLAB_CLI_LESSON_GRADE_H

#include <stddef.h>

#include "learn/lesson.h" // defines: LessonQuestion

typedef enum {
    LESSON_GRADE_SKIP = 0, // no answer (an empty line)
    LESSON_GRADE_RIGHT,
    LESSON_GRADE_WRONG,
    LESSON_GRADE_INVALID,  // not an answer of the question's type: a number
                           // question's text that is no number, a letter
                           // that names no choice (ask again)
} LessonGrade;

// Grades answer (blanks around it ignored). Number questions are graded
// against *fact, or against the recorded answer when fact is NULL (the fact
// could not be computed); choice and word questions against the recorded
// answer (and the accepted spellings).
LessonGrade lesson_grade(const LessonQuestion *q, const char *answer, const double *fact);

// The right answer as the player shows it: the fact ("3", "1.526", with
// "(within 2%)" when there is a tolerance), "b) the choice's text", or the
// word. Written into buf[len].
void lesson_grade_right(const LessonQuestion *q, const double *fact, char *buf, size_t len);

// A number as the player shows facts: integers in full, others with up to
// ten significant digits.
void lesson_grade_number(double v, char *buf, size_t len);

// The order a choice question shows its options in: order[i] is the index in
// q->choices of the option shown i-th, with the letter 'a' + i. seed 0 keeps
// the order as written (the text mode with --non-interactive, for stable output).
void lesson_choice_order(const LessonQuestion *q, unsigned long seed, int *order /* [q->nchoices] */);
// The text of choice i as written, without its "a) " lead.
const char *lesson_choice_text(const LessonQuestion *q, int i);
// Grades answer as given against the shown order (order NULL: as written).
LessonGrade lesson_grade_shown(const LessonQuestion *q, const int *order, const char *answer, const double *fact);
// The right answer as the learner saw it ("c) ..." with the shown letter).
void lesson_grade_right_shown(const LessonQuestion *q, const int *order, const double *fact, char *buf, size_t len);

#endif
