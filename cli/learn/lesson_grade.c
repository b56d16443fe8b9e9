// cli/learn/lesson_grade.c: answers graded (lesson_grade.h).
#include "learn/lesson_grade.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/sampler.h"       // defines: SimSplitMix, sim_splitmix_below
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

// Two decimal figures that are the same number may differ in the last
// bit of their doubles (a recorded 0.1 and a computed 0.1).
static double slack(double f) {
    return 1e-9 * (fabs(f) > 1 ? fabs(f) : 1);
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
    return fabs(a - f) <= tol + slack(f);
}

// ---------------------------------------------------------------------------
// Numbers by their digits

// How a decimal number is written: the power of ten of its last digit (-5
// for 1.46754, 0 for 1200, 2 for 1.4e3) and its significant digits (6, 4,
// 2). 0, or -1 when s[n] is no plain decimal number.
typedef struct {
    int last; // 10^last is the unit of the last digit
    int sig;  // digits from the first nonzero one to the last (0 for a zero)
} Digits;

static int digits_of(const char *s, size_t n, Digits *d) {
    size_t i = 0;
    int frac = 0, sig = 0, point = 0, any = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < n; i++) {
        char c = s[i];
        if (c == ',' && any && !point && i + 1 < n && isdigit((unsigned char)s[i + 1]))
            continue; // a thousands separator, as lesson_fact_number reads it
        if (c == '.' && !point) {
            point = 1;
            continue;
        }
        if (!isdigit((unsigned char)c))
            break;
        any = 1;
        frac += point;
        if (sig > 0 || c != '0')
            sig++;
    }
    long ex = 0;
    if (any && i < n && (s[i] == 'e' || s[i] == 'E')) {
        char *end;
        char buf[16];
        size_t k = n - i - 1 < sizeof buf - 1 ? n - i - 1 : sizeof buf - 1;
        memcpy(buf, s + i + 1, k);
        buf[k] = '\0';
        ex = strtol(buf, &end, 10);
        if (end == buf || *end != '\0' || ex < -400 || ex > 400)
            return -1;
        i = n;
    }
    if (!any || i != n)
        return -1;
    d->last = (int)ex - frac;
    d->sig = sig;
    return 0;
}

// v written with its last digit at 10^last, in fixed notation.
static void fixed(double v, int last, char *buf, size_t len) {
    if (last < 0) {
        snprintf(buf, len, "%.*f", -last, v);
    } else {
        double unit = pow(10, last);
        snprintf(buf, len, "%.0f", round(v / unit) * unit);
    }
}

// v with sig significant digits, in fixed notation ("%.*g" without its
// exponent form; zeros: 1 keeps its trailing zeros, as "%#.*g"): the digits
// of buf into *d.
static void with_sig(double v, int sig, int zeros, char *buf, size_t len, Digits *d) {
    char g[64];
    snprintf(g, sizeof g, zeros ? "%#.*g" : "%.*g", sig, v);
    if (digits_of(g, strlen(g), d) != 0)
        d->last = 0, d->sig = 0;
    fixed(v, d->last, buf, len);
}

static int is_loss(const char *check) {
    return strcmp(check, "loss") == 0 || strncmp(check, "loss:", 5) == 0;
}

void lesson_grade_figure(const char *check, double v, char *buf, size_t len) {
    const char *c = check ? check : "";
    Digits d;
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v);
    } else if (is_loss(c)) {
        // the summary's %.6g or the step lines' %.6f: the one with fewer digits
        char f[64];
        Digits df;
        snprintf(f, sizeof f, "%.6f", v);
        with_sig(v, 6, 0, buf, len, &d);
        if (digits_of(f, strlen(f), &df) == 0 && df.last > d.last)
            snprintf(buf, len, "%s", f);
    } else if (strcmp(c, "sim_us") == 0 || strcmp(c, "exposed_us") == 0) {
        with_sig(v, 6, 0, buf, len, &d);
    } else {
        // a figure the command printed, read back: its shortest form
        int sig = 1;
        for (; sig < 15; sig++) {
            char g[64];
            snprintf(g, sizeof g, "%.*g", sig, v);
            if (fabs(strtod(g, NULL) - v) <= 1e-12 * fabs(v))
                break;
        }
        with_sig(v, sig, 0, buf, len, &d);
    }
}

// What a number question asks for when it has no tolerance: an answer's
// last digit at 10^need or finer, and within half that digit of the fact or
// of the figure the precision comes from (a learner who rounds the screen's
// figure again is not wrong for the double rounding: 1.4676 for a fact
// 1.467549 shown as 1.46755).
typedef struct {
    int exact;      // a count: the fact itself
    int need;       // the coarsest last digit allowed (a power of ten)
    int sig;        // the significant digits that makes
    int told;       // 1: sig is not simply the figure's digits (say it)
    double shown;   // the figure's value
    char figure[64];
} Precision;

static void precision_of(const LessonQuestion *q, double f, Precision *p) {
    Digits d;
    memset(p, 0, sizeof *p);
    if (q->digits > 0) {
        with_sig(f, q->digits, 1, p->figure, sizeof p->figure, &d);
        p->need = d.last;
        p->sig = q->digits;
        p->told = 1;
    } else {
        lesson_grade_figure(q->check, f, p->figure, sizeof p->figure);
        if (f == floor(f) && fabs(f) < 1e15) {
            p->exact = 1;
            return;
        }
        if (digits_of(p->figure, strlen(p->figure), &d) != 0)
            d.last = 0, d.sig = 1;
        // four digits and more: the last may be left off (1.4675 for 1.46754)
        int drop = d.sig >= 4;
        p->need = d.last + drop;
        p->sig = d.sig - drop;
        p->told = drop;
    }
    p->shown = strtod(p->figure, NULL);
}

static LessonGrade by_digits(const LessonQuestion *q, const char *a, size_t n, double v,
                             double f) {
    Precision p;
    Digits d;
    precision_of(q, f, &p);
    if (p.exact)
        return fabs(v - f) <= slack(f) ? LESSON_GRADE_RIGHT : LESSON_GRADE_WRONG;
    if (digits_of(a, n, &d) != 0 || d.last > p.need)
        return LESSON_GRADE_WRONG; // too few digits, whatever their value
    // the fact or the figure, rounded to the answer's own last digit
    double half = 0.5 * pow(10, d.last) + slack(f);
    return fabs(v - f) <= half || fabs(v - p.shown) <= half ? LESSON_GRADE_RIGHT
                                                             : LESSON_GRADE_WRONG;
}

static LessonGrade grade_number(const LessonQuestion *q, const char *a, size_t n,
                                const double *fact) {
    double v, want;
    if (lesson_fact_number(a, n, &v) != 0)
        return LESSON_GRADE_INVALID;
    if (fact != NULL)
        want = *fact;
    else if (q->answer == NULL || lesson_fact_number(q->answer, strlen(q->answer), &want) != 0)
        return LESSON_GRADE_WRONG;
    if (q->tol > 0)
        return within(q, v, want) ? LESSON_GRADE_RIGHT : LESSON_GRADE_WRONG;
    return by_digits(q, a, n, v, want);
}

// ---------------------------------------------------------------------------
// Choices in the order shown

void lesson_choice_order(const LessonQuestion *q, unsigned long seed, int *order) {
    for (int i = 0; i < q->nchoices; i++)
        order[i] = i;
    if (seed == 0)
        return;
    SimSplitMix g;
    sim_splitmix_seed(&g, (uint64_t)seed);
    for (int i = q->nchoices - 1; i > 0; i--) { // Fisher-Yates
        int j = (int)sim_splitmix_below(&g, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

const char *lesson_choice_text(const LessonQuestion *q, int i) {
    if (i < 0 || i >= q->nchoices || q->choices[i] == NULL)
        return "";
    const char *c = q->choices[i];
    size_t lead = strcspn(c, ")");
    if (c[lead] != ')' || lead > 3)
        return c;
    c += lead + 1;
    while (isspace((unsigned char)*c))
        c++;
    return c;
}

// The index in q->choices of the choice whose written letter is c (-1: none).
static int written(const LessonQuestion *q, int c) {
    for (int i = 0; i < q->nchoices; i++)
        if (tolower((unsigned char)q->choices[i][0]) == c)
            return i;
    return -1;
}

// The index in q->choices of the choice the learner's letter c names in the
// shown order (-1: none).
static int named(const LessonQuestion *q, const int *order, int c) {
    if (order == NULL)
        return written(q, c);
    int i = c - 'a';
    return c && i >= 0 && i < q->nchoices ? order[i] : -1;
}

// The index in q->choices of the recorded answer (-1: none).
static int right_choice(const LessonQuestion *q) {
    const char *r = q->answer;
    size_t rn = trimmed(&r);
    return written(q, letter_of(r, rn));
}

LessonGrade lesson_grade_shown(const LessonQuestion *q, const int *order, const char *answer,
                               const double *fact) {
    const char *a = answer;
    size_t n = trimmed(&a);
    if (n == 0)
        return LESSON_GRADE_SKIP;
    switch (q->type) {
    case LESSON_Q_NUMBER:
        return grade_number(q, a, n, fact);
    case LESSON_Q_CHOICE: {
        int i = named(q, order, letter_of(a, n));
        if (i < 0)
            return LESSON_GRADE_INVALID;
        return i == right_choice(q) ? LESSON_GRADE_RIGHT : LESSON_GRADE_WRONG;
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

LessonGrade lesson_grade(const LessonQuestion *q, const char *answer, const double *fact) {
    return lesson_grade_shown(q, NULL, answer, fact);
}

void lesson_grade_number(double v, char *buf, size_t len) {
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.10g", v);
}

// The right number as the player shows it, with what an answer needs.
static void right_number(const LessonQuestion *q, const double *fact, char *buf, size_t len) {
    const char *a = q->answer ? q->answer : "";
    double f;
    if (fact != NULL)
        f = *fact;
    else if (lesson_fact_number(a, strlen(a), &f) != 0) {
        snprintf(buf, len, "%s", a);
        return;
    }
    char num[64], t[48];
    if (q->tol > 0) {
        lesson_grade_number(f, num, sizeof num);
        lesson_grade_number(q->tol_relative ? q->tol * 100 : q->tol, t, sizeof t);
        snprintf(buf, len, "%s (within %s%s)", num, t, q->tol_relative ? "%" : "");
        return;
    }
    Precision p;
    precision_of(q, f, &p);
    // the digits it takes are worth saying where they are not all the figure's
    if (p.exact || !p.told)
        snprintf(buf, len, "%s", p.figure);
    else
        snprintf(buf, len, "%s (%d significant digit%s or more)", p.figure, p.sig,
                 p.sig == 1 ? "" : "s");
}

void lesson_grade_right_shown(const LessonQuestion *q, const int *order, const double *fact,
                              char *buf, size_t len) {
    if (q->type == LESSON_Q_NUMBER) {
        right_number(q, fact, buf, len);
        return;
    }
    int r = q->type == LESSON_Q_CHOICE ? right_choice(q) : -1;
    if (r >= 0 && order == NULL) {
        snprintf(buf, len, "%s", q->choices[r]);
        return;
    }
    for (int i = 0; r >= 0 && i < q->nchoices; i++)
        if (order[i] == r) {
            snprintf(buf, len, "%c) %s", 'a' + i, lesson_choice_text(q, r));
            return;
        }
    snprintf(buf, len, "%s", q->answer ? q->answer : "");
}

void lesson_grade_right(const LessonQuestion *q, const double *fact, char *buf, size_t len) {
    lesson_grade_right_shown(q, NULL, fact, buf, len);
}
