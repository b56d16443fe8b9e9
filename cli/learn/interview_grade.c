// cli/learn/interview_grade.c: reading and grading an answer of `ddplab
// interview`, and printing expected values the way an answer is typed.
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/interview.h"

const char *iv_value_str(const IvValue *v, double x, char *buf, size_t len) {
    if (v->decimals == 0 && fabs(x) < 9e18)
        return iv_grouped((int64_t)llround(x), buf, len);
    if (v->decimals > 0)
        snprintf(buf, len, "%.*f", v->decimals, x);
    else
        snprintf(buf, len, "%.6g", x);
    return buf;
}

const char *iv_tolerance_str(const IvValue *v, char *buf, size_t len) {
    if (v->rel_tol <= 0 && v->abs_tol <= 0)
        snprintf(buf, len, "exactly");
    else if (v->rel_tol <= 0)
        snprintf(buf, len, "within %g%s%s", v->abs_tol, v->unit[0] ? " " : "", v->unit);
    else if (v->abs_tol <= 0)
        snprintf(buf, len, "within %g%%", 100 * v->rel_tol);
    else
        snprintf(buf, len, "within %g%% or %g%s%s", 100 * v->rel_tol, v->abs_tol,
                 v->unit[0] ? " " : "", v->unit);
    return buf;
}

const char *iv_expected(const IvQuestion *q, char *buf, size_t len) {
    buf[0] = '\0';
    if (q->nvalues == 0) {
        snprintf(buf, len, "%c", 'a' + q->correct);
        return buf;
    }
    for (int k = 0; k < q->nvalues; k++) {
        char v[48];
        iv_append(buf, len, "%s%s", k ? " " : "", iv_value_str(&q->val[k], q->val[k].value, v,
                                                                sizeof v));
    }
    return buf;
}

// Rewrites s in place so that the numbers in it are separated by spaces: a
// comma between a digit and exactly three digits is a thousands separator
// and goes; other commas and semicolons become spaces.
static void separate(char *s) {
    size_t o = 0;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        if (c == ',' && i > 0 && isdigit((unsigned char)s[i - 1]) &&
            isdigit((unsigned char)s[i + 1]) && isdigit((unsigned char)s[i + 2]) &&
            isdigit((unsigned char)s[i + 3]) && !isdigit((unsigned char)s[i + 4]))
            continue;
        s[o++] = c == ',' || c == ';' ? ' ' : c;
    }
    s[o] = '\0';
}

// Up to max numbers of s (words and units between them are skipped);
// returns how many there were (may exceed max).
static int numbers(char *s, double *out, int max) {
    int n = 0;
    separate(s);
    for (char *p = s; *p;) {
        int starts = isdigit((unsigned char)p[0]) ||
                     ((p[0] == '.' || p[0] == '-' || p[0] == '+') &&
                      (isdigit((unsigned char)p[1]) ||
                       (p[1] == '.' && isdigit((unsigned char)p[2]))));
        if (!starts) {
            p++;
            continue;
        }
        char *end;
        double x = strtod(p, &end);
        if (end == p) {
            p++;
            continue;
        }
        if (n < max)
            out[n] = x;
        n++;
        p = end;
    }
    return n;
}

static int grade_choice(const IvQuestion *q, const char *answer, char *why, size_t whylen) {
    const char *p = answer;
    while (*p == ' ' || *p == '\t' || *p == '(')
        p++;
    int c = tolower((unsigned char)*p);
    const char *rest = *p ? p + 1 : p;
    while (*rest == ')' || *rest == '.' || *rest == ' ' || *rest == '\t')
        rest++;
    if (c < 'a' || c >= 'a' + IV_NCHOICES || *rest) {
        snprintf(why, whylen, "'%.40s' is not one of the letters a-%c", answer,
                 'a' + IV_NCHOICES - 1);
        return -1;
    }
    if (c - 'a' == q->correct) {
        snprintf(why, whylen, "%c", c);
        return 1;
    }
    snprintf(why, whylen, "%c is not the answer", c);
    return 0;
}

int iv_grade(const IvQuestion *q, const char *answer, char *why, size_t whylen) {
    if (q->nvalues == 0)
        return grade_choice(q, answer, why, whylen);
    char buf[512];
    double x[IV_MAX_VALUES];
    snprintf(buf, sizeof buf, "%s", answer);
    int n = numbers(buf, x, IV_MAX_VALUES);
    if (n != q->nvalues) {
        char names[128] = "";
        for (int k = 0; k < q->nvalues; k++)
            iv_append(names, sizeof names, "%s%s", k ? ", then " : "", q->val[k].name);
        snprintf(why, whylen, "read %d number%s, expected %d (%s)", n, n == 1 ? "" : "s",
                 q->nvalues, names);
        return -1;
    }
    int right = 1;
    why[0] = '\0';
    for (int k = 0; k < q->nvalues; k++) {
        const IvValue *v = &q->val[k];
        double tol = fmax(v->rel_tol * fabs(v->value), v->abs_tol);
        // a hair of slack so that a value printed at the stated precision
        // is never refused for the rounding of its last digit
        int ok = fabs(x[k] - v->value) <= tol * (1 + 1e-9) + 1e-12 * fabs(v->value);
        char e[48], t[64];
        // the number as read, not rounded to the expected precision
        iv_append(why, whylen, "%s%s %.10g", k ? "; " : "", v->name, x[k]);
        if (!ok) {
            iv_append(why, whylen, " is not %s (%s)", iv_value_str(v, v->value, e, sizeof e),
                      iv_tolerance_str(v, t, sizeof t));
            right = 0;
        }
    }
    return right;
}
