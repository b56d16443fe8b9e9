// cli/lesson/lesson_tui_ask.c: the question pane of the lesson screen
// (lesson_tui_internal.h): the question, its options in this attempt's
// order, the answer field, and after the answer the verdict and the
// explanation, which stay on screen until the learner goes on.
#include <stdio.h>
#include <string.h>

#include "learn/lesson_grade.h" // defines: lesson_grade_shown, lesson_choice_order
#include "lesson/lesson_tui_internal.h"

void lesson_tui_ask_order(TuiLesson *s, int q) {
    TuiAnswer *a = &s->answers[q];
    const LessonQuestion *lq = &s->l->questions[q];
    int n = lq->nchoices < 26 ? lq->nchoices : 26;
    if (lq->type == LESSON_Q_CHOICE && n == lq->nchoices) {
        // a new order for every attempt: the seed moves on each time
        lesson_choice_order(lq, s->seed ? s->seed + (unsigned long)q * 7919u : 0, a->order);
        if (s->seed)
            s->seed = s->seed * 6364136223846793005ull + 1442695040888963407ull;
    } else {
        for (int i = 0; i < n; i++)
            a->order[i] = i;
    }
    a->ordered = 1;
}

// The fact a number question is graded against: 1 with *v.
static int ask_fact(TuiLesson *s, const LessonQuestion *q, double *v) {
    char why[256];
    if (q->type != LESSON_Q_NUMBER || q->check == NULL || q->run < 0 ||
        s->facts[q->run].output == NULL)
        return 0;
    return lesson_fact(&s->facts[q->run], q->check, v, why, sizeof why) == 0;
}

// Grades what was typed. An answer that is not of the question's type is
// said so and can be typed again.
static void ask_submit(TuiLesson *s, int qi) {
    const LessonQuestion *q = &s->l->questions[qi];
    TuiAnswer *a = &s->answers[qi];
    double fact;
    int have = ask_fact(s, q, &fact);
    LessonGrade g = lesson_grade_shown(q, a->order, s->typed, have ? &fact : NULL);
    if (g == LESSON_GRADE_INVALID) {
        snprintf(s->message, sizeof s->message, "'%s' is not %s; try again (Enter twice on an empty field skips)",
                 s->typed, q->type == LESSON_Q_NUMBER   ? "a number"
                           : q->type == LESSON_Q_CHOICE ? "one of the letters"
                                                        : "a word");
        return;
    }
    snprintf(a->given, sizeof a->given, "%s", s->typed);
    a->mark = g == LESSON_GRADE_RIGHT ? TUI_MARK_RIGHT
              : g == LESSON_GRADE_SKIP ? TUI_MARK_SKIP
                                       : TUI_MARK_WRONG;
    lesson_grade_right_shown(q, a->order, have ? &fact : NULL, a->right, sizeof a->right);
    s->typed[0] = '\0';
    s->narr_follow = 1;
}

const char *lesson_tui_ask_right(TuiLesson *s, int qi) {
    const LessonQuestion *q = &s->l->questions[qi];
    TuiAnswer *a = &s->answers[qi];
    if (a->mark == TUI_MARK_NONE)
        return "";
    if (a->right[0] == '\0') {
        if (!a->ordered)
            lesson_tui_ask_order(s, qi);
        double fact;
        int have = ask_fact(s, q, &fact);
        lesson_grade_right_shown(q, a->order, have ? &fact : NULL, a->right, sizeof a->right);
    }
    return a->right;
}

// Characters an answer is made of: letters, digits and what numbers use.
// Blanks, brackets and the like stay the view's keys.
static int answer_char(int key) {
    return (key >= 'a' && key <= 'z') || (key >= 'A' && key <= 'Z') ||
           (key >= '0' && key <= '9') || (key != 0 && strchr(".,-+%_", key) != NULL);
}

int lesson_tui_ask_key(TuiLesson *s, int key) {
    int qi = s->stops[s->cur].question;
    size_t n = strlen(s->typed);
    if (key == VIZ_KEY_ENTER) {
        // Enter pages through the narrative; arriving at a question with it
        // must not skip the question, so an empty answer takes two
        if (n == 0 && !s->skip_armed) {
            s->skip_armed = 1;
            snprintf(s->message, sizeof s->message,
                     "no answer typed: type it, or press Enter again to skip the question");
            return 1;
        }
        s->skip_armed = 0;
        ask_submit(s, qi);
        return 1;
    }
    s->skip_armed = 0;
    if (key == VIZ_KEY_BACKSPACE) {
        if (n > 0)
            s->typed[n - 1] = '\0';
        return 1;
    }
    if (key == VIZ_KEY_ESCAPE && n > 0) {
        s->typed[0] = '\0';
        return 1;
    }
    // q on an empty field goes up, as everywhere; inside a word it is a letter
    if (key == 'q' && n == 0)
        return 0;
    if (answer_char(key) && n < TUI_ANSWER_MAX) {
        s->typed[n] = (char)key;
        s->typed[n + 1] = '\0';
        return 1;
    }
    return 0;
}

static const char *kind_word(const LessonQuestion *q) {
    return q->type == LESSON_Q_NUMBER ? "a number" : q->type == LESSON_Q_CHOICE ? "a letter"
                                                                                : "a word";
}

void lesson_tui_ask_lines(TuiLesson *s, int w, TuiLines *out) {
    const TuiStop *st = &s->stops[s->cur];
    if (st->kind != TUI_STOP_QUESTION)
        return;
    int qi = st->question;
    const LessonQuestion *q = &s->l->questions[qi];
    TuiAnswer *a = &s->answers[qi];
    if (!a->ordered)
        lesson_tui_ask_order(s, qi);
    char head[64];
    snprintf(head, sizeof head, "Question %d of %d%s", qi + 1, s->l->nquestions,
             s->review ? " (review)" : "");
    lesson_tui_lines_add(out, head, VIZ_STYLE_TITLE);
    lesson_tui_lines_wrap(out, q->ask, w, 0, VIZ_STYLE_NORMAL);
    for (int i = 0; i < q->nchoices && i < 26; i++) {
        char mark[8];
        snprintf(mark, sizeof mark, "%c) ", 'a' + i);
        lesson_tui_lines_item(out, mark, lesson_choice_text(q, a->order[i]), w, VIZ_STYLE_NORMAL);
    }
    if (a->mark == TUI_MARK_NONE) {
        char field[128];
        snprintf(field, sizeof field, "Your answer (%s): %s_", kind_word(q), s->typed);
        lesson_tui_lines_add(out, field, VIZ_STYLE_SELECTED);
        return;
    }
    char given[128];
    snprintf(given, sizeof given, "Your answer: %s", a->given[0] ? a->given : "(skipped)");
    lesson_tui_lines_add(out, given, VIZ_STYLE_DIM);
    const char *lead = a->mark == TUI_MARK_RIGHT  ? "Right: "
                       : a->mark == TUI_MARK_SKIP ? "Skipped. The answer: "
                                                  : "Not quite. The answer: ";
    lesson_tui_lines_item(out, lead, lesson_tui_ask_right(s, qi),
                          w, a->mark == TUI_MARK_RIGHT ? VIZ_STYLE_DONE : VIZ_STYLE_WARN);
    if (q->explain && *q->explain)
        lesson_tui_lines_wrap(out, q->explain, w, 0, VIZ_STYLE_NORMAL);
}
