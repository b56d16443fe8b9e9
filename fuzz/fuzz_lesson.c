// fuzz/fuzz_lesson.c: a lesson file (lessons/FORMAT.md) parsed from memory,
// then what the player does with a parsed lesson before running anything:
// every narrative item wrapped for the terminal, every question graded
// against its own recorded answer (as written and in a shuffled order, and
// by its digits against a fact), its right answer shown.
#include <stdlib.h>

#include "learn/lesson.h"       // defines: Lesson, lesson_parse_text
#include "learn/lesson_grade.h" // defines: lesson_grade, lesson_grade_shown, lesson_choice_order
#include "learn/lesson_text.h"  // defines: lesson_text_wrap

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // An exact-size copy (no NUL after it): a read past the end is caught.
    char *text = malloc(size ? size : 1);
    if (text == NULL)
        return 0;
    for (size_t i = 0; i < size; i++)
        text[i] = (char)data[i];
    Lesson l;
    char err[512];
    int ok = lesson_parse_text("fuzz.md", text, size, &l, err, sizeof err) == 0;
    fuzz_set_accepted(ok);
    FILE *null = fuzz_devnull();
    for (int i = 0; ok && null && i < l.nitems; i++)
        if (l.items[i].kind == LESSON_ITEM_TEXT)
            lesson_text_wrap(null, l.items[i].text, 72, 2);
    for (int i = 0; ok && i < l.nquestions; i++) {
        const LessonQuestion *q = &l.questions[i];
        char right[512];
        lesson_grade(q, q->answer, NULL);
        lesson_grade(q, "", NULL);
        lesson_grade_right(q, NULL, right, sizeof right);
        // a shuffled order, and the digits rule against a fact
        int order[26];
        double fact = 1.467543364;
        lesson_choice_order(q, 12345, order);
        lesson_grade_shown(q, order, q->answer, &fact);
        lesson_grade_shown(q, order, "b", NULL);
        lesson_grade_shown(q, NULL, "1.4675", &fact);
        lesson_grade_right_shown(q, order, &fact, right, sizeof right);
    }
    lesson_free(&l);
    free(text);
    return 0;
}
