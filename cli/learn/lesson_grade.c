// cli/learn/lesson_grade.c: answers graded (lesson_grade.h).
#include "learn/lesson_grade.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "learn/lesson_facts.h" // defines: lesson_fact_number

// s without the blanks around it: start in *s, length returned.
static size_t trimmed(const char **s) {
    const char *p = *s ? *s : "";
    while (isspace((unsigned char)*p))
        p++;
    size_t n = strlen(p);
    while (n > 0 && isspace((unsigned char)p[n - 1]))
        n--;
    *s = p;
    return n;
}

static int same_ci(const char *a, size_t n, const char *b) {
    size_t m = trimmed(&b);
    if (m != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return 0;
    return 1;
}

// The letter an answer names: "b", "B", "b)", "(b)", "b." -> 'b'; 0 if none.
static int letter_of(const char *s, size_t n) {
    if (n >= 2 && s[0] == '(' && s[n - 1] == ')')
        s++, n -= 2;
    if (n == 2 && (s[1] == ')' || s[1] == '.'))
        n = 1;
    return n == 1 && isalpha((unsigned char)s[0]) ? tolower((unsigned char)s[0]) : 0;
}

static int within(const LessonQuestion *q, double a, double f) {
    double tol = q->tol_relative ? q->tol * fabs(f) : q->tol;
    // rounding: a recorded 0.1 and a computed 0.1 may differ in the last bit
    double eps = 1e-9 * (fabs(f) > 1 ? fabs(f) : 1);
    return fabs(a - f) <= tol + eps;
}

LessonGrade lesson_grade(const LessonQuestion *q, const char *answer, const double *fact) {
    const char *a = answer;
    size_t n = trimmed(&a);
    if (n == 0)
        return LESSON_GRADE_SKIP;
    switch (q->type) {
    case LESSON_Q_NUMBER: {
        double v, want;
        if (lesson_fact_number(a, n, &v) != 0)
            return LESSON_GRADE_INVALID;
        if (fact != NULL)
            want = *fact;
        else if (q->answer == NULL || lesson_fact_number(q->answer, strlen(q->answer), &want) != 0)
            return LESSON_GRADE_WRONG;
        return within(q, v, want) ? LESSON_GRADE_RIGHT : LESSON_GRADE_WRONG;
    }
    case LESSON_Q_CHOICE: {
        int c = letter_of(a, n);
        int named = 0;
        for (int i = 0; i < q->nchoices && c; i++)
            named |= tolower((unsigned char)q->choices[i][0]) == c;
        if (!named)
            return LESSON_GRADE_INVALID;
        const char *r = q->answer;
        size_t rn = trimmed(&r);
        return c == letter_of(r, rn) ? LESSON_GRADE_RIGHT : LESSON_GRADE_WRONG;
    }
    case LESSON_Q_WORD:
    default:
        if (q->answer && same_ci(a, n, q->answer))
            return LESSON_GRADE_RIGHT;
        for (int i = 0; i < q->naccept; i++)
            if (same_ci(a, n, q->accept[i]))
                return LESSON_GRADE_RIGHT;
        return LESSON_GRADE_WRONG;
    }
}

void lesson_grade_number(double v, char *buf, size_t len) {
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.10g", v);
}

void lesson_grade_right(const LessonQuestion *q, const double *fact, char *buf, size_t len) {
    const char *a = q->answer ? q->answer : "";
    if (q->type == LESSON_Q_NUMBER) {
        char num[64], tol[64] = "";
        if (fact != NULL)
            lesson_grade_number(*fact, num, sizeof num);
        else
            snprintf(num, sizeof num, "%s", a);
        if (q->tol > 0 && q->tol_relative) {
            char t[48];
            lesson_grade_number(q->tol * 100, t, sizeof t);
            snprintf(tol, sizeof tol, " (within %s%%)", t);
        } else if (q->tol > 0) {
            char t[48];
            lesson_grade_number(q->tol, t, sizeof t);
            snprintf(tol, sizeof tol, " (within %s)", t);
        }
        snprintf(buf, len, "%s%s", num, tol);
        return;
    }
    if (q->type == LESSON_Q_CHOICE) {
        size_t n = trimmed(&a);
        int c = letter_of(a, n);
        for (int i = 0; i < q->nchoices; i++)
            if (tolower((unsigned char)q->choices[i][0]) == c) {
                snprintf(buf, len, "%s", q->choices[i]);
                return;
            }
    }
    snprintf(buf, len, "%s", a);
}
