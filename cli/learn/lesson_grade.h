// cli/learn/lesson_grade.h: grading an answer to a lesson's question
// (lessons/FORMAT.md, "Questions"): a number against the fact its run
// computed, to the precision the screen showed it with (or within the
// question's tolerance), a choice by its letter in the order the learner
// saw the choices, a word in any case or any accepted spelling. Pure
// functions, no input or output.
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

// Grades answer (blanks around it ignored), the choices as written. Number
// questions are graded against *fact, or against the recorded answer when
// fact is NULL (the fact could not be computed); choice and word questions
// against the recorded answer (and the accepted spellings).
//
// A number is right within the question's tolerance when it has one.
// Otherwise it is right when it is the fact rounded to the answer's own last
// digit (1.4675 and 1.46754 for 1.467543364) and that digit is fine enough:
// at the question's `digits:` significant digits, else at the screen's
// figure for the fact (lesson_grade_figure) less its last digit when that
// figure has 4 significant digits or more (1.46754: 5 digits; 21.5: all 3).
// A fact that is a whole number with no `digits:` (a count) is exact.
LessonGrade lesson_grade(const LessonQuestion *q, const char *answer, const double *fact);

// The order a choice question shows its options in: order[i] is the index in
// q->choices of the option shown i-th, with the letter 'a' + i. seed 0 keeps
// the order as written (the text mode with --non-interactive, for stable output).
void lesson_choice_order(const LessonQuestion *q, unsigned long seed,
                         int *order /* [q->nchoices] */);
// The text of choice i as written, without its "a) " lead.
const char *lesson_choice_text(const LessonQuestion *q, int i);
// Grades answer as given against the shown order (order NULL: as written).
LessonGrade lesson_grade_shown(const LessonQuestion *q, const int *order, const char *answer,
                               const double *fact);
// The right answer as the learner saw it ("c) ..." with the shown letter).
void lesson_grade_right_shown(const LessonQuestion *q, const int *order, const double *fact,
                              char *buf, size_t len);

// The right answer as the player shows it, the choices as written: the fact
// as the screen shows it ("3", "1.46754 (5 significant digits or more)",
// "1.526 (within 2%)"), "b) the choice's text", or the word. Written into
// buf[len].
void lesson_grade_right(const LessonQuestion *q, const double *fact, char *buf, size_t len);

// A number as the player shows facts: integers in full, others with up to
// ten significant digits.
void lesson_grade_number(double v, char *buf, size_t len);

// The figure the player's screen shows for the fact called check (a
// LessonQuestion's check) of value v, in fixed notation: a loss as the
// summary line and the step lines print it (%.6g or %.6f, whichever has
// fewer digits), sim_us and exposed_us with 6 significant digits (the
// summary's %.6g), a whole number in full, any other fact (out:REGEX, the
// command's own words) in its shortest form ("21.5", "0.7"). What the
// precision of an answer is measured against.
void lesson_grade_figure(const char *check, double v, char *buf, size_t len);

#endif
