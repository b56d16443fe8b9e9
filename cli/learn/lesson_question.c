// cli/learn/lesson_question.c: the body of a ```question block (lessons/FORMAT.md,
// "Questions"): `key: value` lines, a value continued on following lines
// that start with blanks (joined by one space), `choice:` once per choice.
// The checks tie the keys to the type: a number question names a fact of
// the latest run and records a number; a choice answer is a choice's letter.
#include <stdlib.h>
#include <string.h>

#include "learn/lesson_internal.h"

#define QKEYS                                                                                      \
    "ask, type, answer, check, tolerance, digits, from, varies, choice, accept, explain"

enum {
    Q_ASK,
    Q_TYPE,
    Q_ANSWER,
    Q_CHECK,
    Q_TOL,
    Q_DIGITS,
    Q_FROM,
    Q_VARIES,
    Q_CHOICE,
    Q_ACCEPT,
    Q_EXPLAIN,
    Q_COUNT
};
static const char *const qkey_names[Q_COUNT] = {
    "ask",  "type",   "answer", "check",  "tolerance", "digits",
    "from", "varies", "choice", "accept", "explain"};

// More significant digits than a double holds are no precision a screen shows.
enum { Q_MAX_DIGITS = 15 };

// The raw values, gathered first and checked once the block is read:
// val[k] for each key (choices separately, one per line).
typedef struct {
    LessonBuf val[Q_COUNT];
    int line[Q_COUNT]; // where each key was given (0: not given)
    LessonBuf *choices;
    int *choice_line;
    int nchoices, cap_choices, cap_lines;
} QRaw;

static void raw_free(QRaw *q) {
    for (int k = 0; k < Q_COUNT; k++)
        lesson_buf_free(&q->val[k]);
    for (int i = 0; i < q->nchoices; i++)
        lesson_buf_free(&q->choices[i]);
    free(q->choices);
    free(q->choice_line);
}

// Reads the lines into raw values. 0 or -1 with err.
static int read_keys(const char *path, const char *text, size_t len, int first_line, QRaw *q,
                     char *err, size_t errlen) {
    char shown[80];
    size_t off = 0, n;
    const char *s;
    int line = first_line - 1;
    LessonBuf *cur = NULL; // the value a continuation line extends
    while (lesson_next_line(text, len, &off, &s, &n)) {
        line++;
        size_t k = n;
        const char *t = lesson_trim(s, &k);
        if (k == 0)
            continue;
        if (lesson_blank(s[0])) {
            if (cur == NULL)
                return lesson_fail(err, errlen, path, line,
                                   "an indented line continues a key's value, but no key comes "
                                   "before it; allowed keys: " QKEYS);
            if (cur->n > 0)
                lesson_buf_addc(cur, ' ');
            lesson_buf_add(cur, t, k);
            continue;
        }
        const char *colon = memchr(t, ':', k);
        size_t kn = colon ? (size_t)(colon - t) : k;
        const char *key = lesson_trim(t, &kn);
        int ki = -1;
        for (int i = 0; i < Q_COUNT && colon; i++)
            if (strlen(qkey_names[i]) == kn && memcmp(key, qkey_names[i], kn) == 0)
                ki = i;
        if (ki < 0)
            return lesson_fail(err, errlen, path, line,
                               colon ? "unknown question key '%s'; allowed: " QKEYS
                                     : "'%s' is not a 'key: value' line; allowed keys: " QKEYS,
                               lesson_shown(key, kn, shown));
        size_t vn = (size_t)(t + k - (colon + 1));
        const char *v = lesson_trim(colon + 1, &vn);
        if (ki == Q_CHOICE) {
            LessonBuf *a = lesson_grow(q->choices, &q->cap_choices, q->nchoices, sizeof *a);
            if (a)
                q->choices = a;
            int *l = a ? lesson_grow(q->choice_line, &q->cap_lines, q->nchoices, sizeof *l) : NULL;
            if (l == NULL)
                return lesson_fail(err, errlen, path, line, "out of memory");
            q->choice_line = l;
            cur = &q->choices[q->nchoices];
            memset(cur, 0, sizeof *cur);
            q->choice_line[q->nchoices++] = line;
            if (!q->line[ki])
                q->line[ki] = line;
        } else {
            if (q->line[ki])
                return lesson_fail(err, errlen, path, line,
                                   "'%s' is given twice (first on line %d)", qkey_names[ki],
                                   q->line[ki]);
            q->line[ki] = line;
            cur = &q->val[ki];
        }
        lesson_buf_add(cur, v, vn);
    }
    for (int k = 0; k < Q_COUNT; k++)
        if (q->val[k].oom)
            return lesson_fail(err, errlen, path, line, "out of memory");
    for (int i = 0; i < q->nchoices; i++)
        if (q->choices[i].oom)
            return lesson_fail(err, errlen, path, line, "out of memory");
    return 0;
}

// "a) text": a lower-case letter, ')', a blank, then some text.
static int choice_ok(const char *s) {
    return s[0] >= 'a' && s[0] <= 'z' && s[1] == ')' && lesson_blank(s[2]) && s[3] != '\0';
}

// The accepted spellings: comma-separated, none empty.
static int set_accept(const char *path, int line, const char *v, LessonQuestion *q, char *err,
                      size_t errlen) {
    int cap = 0;
    const char *p = v;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t k = comma ? (size_t)(comma - p) : strlen(p);
        const char *w = lesson_trim(p, &k);
        if (k == 0)
            return lesson_fail(err, errlen, path, line,
                               "accept: an empty spelling; allowed: spellings separated by commas");
        char **a = lesson_grow(q->accept, &cap, q->naccept, sizeof *a);
        char *d = a ? lesson_strndup(w, k) : NULL;
        if (a)
            q->accept = a;
        if (d == NULL)
            return lesson_fail(err, errlen, path, line, "out of memory");
        q->accept[q->naccept++] = d;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

// The significant digits an answer needs: a whole number, 1 to Q_MAX_DIGITS.
static int set_digits(const char *path, int line, const char *v, LessonQuestion *q, char *err,
                      size_t errlen) {
    char shown[80];
    int n = 0;
    const char *p = v;
    while (*p >= '0' && *p <= '9' && n <= Q_MAX_DIGITS)
        n = n * 10 + (*p++ - '0');
    if (p == v || *p != '\0' || n < 1 || n > Q_MAX_DIGITS)
        return lesson_fail(err, errlen, path, line,
                           "digits: '%s' is not a number of significant digits; allowed: a "
                           "whole number from 1 to %d",
                           lesson_shown(v, strlen(v), shown), Q_MAX_DIGITS);
    q->digits = n;
    return 0;
}

// The figures an answer is worked out from: separated by ';', none empty
// (each as the lesson prints it, with the words that say what it counts).
static int set_from(const char *path, int line, const char *v, LessonQuestion *q, char *err,
                    size_t errlen) {
    int cap = 0;
    for (const char *p = v;;) {
        const char *semi = strchr(p, ';');
        size_t k = semi ? (size_t)(semi - p) : strlen(p);
        const char *w = lesson_trim(p, &k);
        if (k == 0)
            return lesson_fail(err, errlen, path, line,
                               "from: an empty figure; allowed: figures as the lesson shows "
                               "them (\"2 steps\", \"3 buckets\"), separated by ';'");
        char **a = lesson_grow(q->from, &cap, q->nfrom, sizeof *a);
        char *d = a ? lesson_strndup(w, k) : NULL;
        if (a)
            q->from = a;
        if (d == NULL)
            return lesson_fail(err, errlen, path, line, "out of memory");
        q->from[q->nfrom++] = d;
        if (semi == NULL)
            return 0;
        p = semi + 1;
    }
}

// The tolerance: "0.01" (absolute) or "2%" (relative), not negative.
static int set_tolerance(const char *path, int line, const char *v, LessonQuestion *q, char *err,
                         size_t errlen) {
    char shown[80];
    size_t n = strlen(v);
    int rel = n > 0 && v[n - 1] == '%';
    char num[64];
    double t;
    if (n - (size_t)rel >= sizeof num)
        goto bad;
    memcpy(num, v, n - (size_t)rel);
    num[n - (size_t)rel] = '\0';
    if (!lesson_number_ok(num, &t) || t < 0)
        goto bad;
    q->tol = rel ? t / 100.0 : t;
    q->tol_relative = rel;
    return 0;
bad:
    return lesson_fail(err, errlen, path, line,
                       "tolerance: '%s' is not a tolerance; allowed: an absolute amount (0.01) "
                       "or a percentage of the fact (2%%), not negative",
                       lesson_shown(v, n, shown));
}

// The checks that depend on the type, once every key is read.
static int check_question(const char *path, int fence, QRaw *r, const LessonRun *runs, int nruns,
                          LessonQuestion *q, char *err, size_t errlen) {
    char shown[80];
    static const char *const need[] = {"ask", "type", "answer"};
    const int need_k[] = {Q_ASK, Q_TYPE, Q_ANSWER};
    for (int i = 0; i < 3; i++)
        if (!r->line[need_k[i]] || r->val[need_k[i]].n == 0)
            return lesson_fail(err, errlen, path, r->line[need_k[i]] ? r->line[need_k[i]] : fence,
                               "the question has no %s; a question needs ask, type and answer",
                               need[i]);
    const char *type = r->val[Q_TYPE].s;
    if (strcmp(type, "number") == 0)
        q->type = LESSON_Q_NUMBER;
    else if (strcmp(type, "choice") == 0)
        q->type = LESSON_Q_CHOICE;
    else if (strcmp(type, "word") == 0)
        q->type = LESSON_Q_WORD;
    else
        return lesson_fail(err, errlen, path, r->line[Q_TYPE],
                           "type: '%s' is not a question type; allowed: number, choice, word",
                           lesson_shown(type, r->val[Q_TYPE].n, shown));
    // Keys that belong to one type only.
    static const struct {
        int key;
        LessonQType type;
        const char *what;
    } only[] = {{Q_CHECK, LESSON_Q_NUMBER, "number"},
                {Q_TOL, LESSON_Q_NUMBER, "number"},
                {Q_DIGITS, LESSON_Q_NUMBER, "number"},
                {Q_FROM, LESSON_Q_NUMBER, "number"},
                {Q_VARIES, LESSON_Q_NUMBER, "number"},
                {Q_CHOICE, LESSON_Q_CHOICE, "choice"},
                {Q_ACCEPT, LESSON_Q_WORD, "word"}};
    for (size_t i = 0; i < sizeof only / sizeof only[0]; i++)
        if (r->line[only[i].key] && q->type != only[i].type)
            return lesson_fail(err, errlen, path, r->line[only[i].key],
                               "'%s' is for %s questions; this one is type %s",
                               qkey_names[only[i].key], only[i].what, type);
    const char *answer = r->val[Q_ANSWER].s;
    int aline = r->line[Q_ANSWER];
    if (q->type == LESSON_Q_NUMBER) {
        double v;
        int trace;
        const char *why = "";
        if (!lesson_number_ok(answer, &v))
            return lesson_fail(err, errlen, path, aline,
                               "answer: '%s' is not a number; a number question records the "
                               "number its run computes (like 3, 0.25, 1.5e9)",
                               lesson_shown(answer, strlen(answer), shown));
        if (!r->line[Q_CHECK] || r->val[Q_CHECK].n == 0)
            return lesson_fail(err, errlen, path, r->line[Q_CHECK] ? r->line[Q_CHECK] : fence,
                               "a number question needs check: FACT (the fact its answer must "
                               "match); allowed: " LESSON_FACTS);
        const char *check = r->val[Q_CHECK].s;
        if (lesson_fact_ok(check, &trace, &why) != 0)
            return lesson_fail(err, errlen, path, r->line[Q_CHECK], "check: '%s' %s%s",
                               lesson_shown(check, strlen(check), shown), why,
                               strcmp(why, "is not a fact") ? "" : "; allowed: " LESSON_FACTS);
        if (nruns == 0)
            return lesson_fail(err, errlen, path, fence,
                               "a number question checks a fact of the latest run, and no "
                               "ddplab block comes before it");
        const char *latest = runs[nruns - 1].argv[0];
        if (trace && (strcmp(latest, "plan") == 0 || strcmp(latest, "report") == 0))
            return lesson_fail(err, errlen, path, r->line[Q_CHECK],
                               "check: '%s' needs a trace and the latest run is a %s (line "
                               "%d); a %s's facts are exit and out:REGEX",
                               lesson_shown(check, strlen(check), shown), latest,
                               runs[nruns - 1].line, latest);
        if (trace && !lesson_run_trace_readable(&runs[nruns - 1]))
            return lesson_fail(err, errlen, path, r->line[Q_CHECK],
                               "check: '%s' needs a trace the player reads (.ddptrace or "
                               ".jsonl), and the latest run's is '%s' (line %d); its facts are "
                               "exit and out:REGEX",
                               lesson_shown(check, strlen(check), shown),
                               lesson_run_own_trace(&runs[nruns - 1]), runs[nruns - 1].line);
        if (r->line[Q_TOL] && r->line[Q_DIGITS])
            return lesson_fail(err, errlen, path, r->line[Q_DIGITS],
                               "digits: the question has a tolerance already (line %d); "
                               "allowed: one of them",
                               r->line[Q_TOL]);
        if (r->line[Q_TOL] &&
            set_tolerance(path, r->line[Q_TOL], r->val[Q_TOL].s, q, err, errlen) != 0)
            return -1;
        if (r->line[Q_DIGITS] &&
            set_digits(path, r->line[Q_DIGITS], r->val[Q_DIGITS].s ? r->val[Q_DIGITS].s : "", q,
                       err, errlen) != 0)
            return -1;
        if (r->line[Q_FROM] &&
            set_from(path, r->line[Q_FROM], r->val[Q_FROM].s ? r->val[Q_FROM].s : "", q, err,
                     errlen) != 0)
            return -1;
    } else if (q->type == LESSON_Q_CHOICE) {
        if (r->nchoices < 2)
            return lesson_fail(err, errlen, path, r->nchoices ? r->choice_line[0] : fence,
                               "a choice question needs at least 2 choices (choice: a) text), "
                               "this one has %d",
                               r->nchoices);
        char letters[3 * 26 + 1] = ""; // "a, b, c"
        int found = 0;
        for (int i = 0; i < r->nchoices; i++) {
            const char *c = r->choices[i].s ? r->choices[i].s : "";
            if (!choice_ok(c))
                return lesson_fail(err, errlen, path, r->choice_line[i],
                                   "choice: '%s' is not a choice; allowed: choice: L) text, L a "
                                   "lower-case letter",
                                   lesson_shown(c, strlen(c), shown));
            if (strchr(letters, c[0]))
                return lesson_fail(err, errlen, path, r->choice_line[i],
                                   "choice %c) is given twice", c[0]);
            // the player letters the choices a, b, c, ... as it shows them
            if (c[0] != 'a' + i)
                return lesson_fail(err, errlen, path, r->choice_line[i],
                                   "choice %c) comes where %c) belongs; allowed: the choices "
                                   "lettered a, b, c, ... in order",
                                   c[0], 'a' + i);
            size_t k = strlen(letters);
            if (k > 0)
                letters[k++] = ',', letters[k++] = ' ';
            letters[k++] = c[0];
            letters[k] = '\0';
            found |= answer[0] == c[0] && answer[1] == '\0';
        }
        if (!found)
            return lesson_fail(err, errlen, path, aline,
                               "answer: '%s' names no choice; allowed: the letter of a choice (%s)",
                               lesson_shown(answer, strlen(answer), shown), letters);
    }
    return 0;
}

// A text as the learner sees it: its markdown rendered as the narrative's
// is (`--resume` without the backticks). 0, or -1 when out of memory.
static int shown(char **text) {
    char *plain = lesson_md_plain(*text);
    if (plain == NULL)
        return -1;
    free(*text);
    *text = plain;
    return 0;
}

int lesson_question_parse(const char *path, const char *text, size_t len, int first_line,
                          const LessonRun *runs, int nruns, LessonQuestion *q, char *err,
                          size_t errlen) {
    QRaw r;
    memset(&r, 0, sizeof r);
    int rc = -1;
    if (read_keys(path, text, len, first_line, &r, err, errlen) != 0 ||
        check_question(path, first_line - 1, &r, runs, nruns, q, err, errlen) != 0)
        goto done;
    if (r.line[Q_ACCEPT] &&
        set_accept(path, r.line[Q_ACCEPT], r.val[Q_ACCEPT].s ? r.val[Q_ACCEPT].s : "", q, err,
                   errlen) != 0)
        goto done;
    q->ask = lesson_buf_take(&r.val[Q_ASK]);
    q->answer = lesson_buf_take(&r.val[Q_ANSWER]);
    q->check = r.line[Q_CHECK] ? lesson_buf_take(&r.val[Q_CHECK]) : NULL;
    q->varies = r.line[Q_VARIES] && r.val[Q_VARIES].n > 0 ? lesson_buf_take(&r.val[Q_VARIES])
                                                           : NULL;
    q->explain = lesson_buf_take(&r.val[Q_EXPLAIN]);
    if (r.nchoices > 0 && (q->choices = calloc((size_t)r.nchoices, sizeof *q->choices)) == NULL)
        goto oom;
    for (int i = 0; i < r.nchoices; i++, q->nchoices++)
        if ((q->choices[i] = lesson_buf_take(&r.choices[i])) == NULL)
            goto oom;
    if (!q->ask || !q->answer || !q->explain || (r.line[Q_CHECK] && !q->check) ||
        (r.line[Q_VARIES] && r.val[Q_VARIES].n > 0 && !q->varies))
        goto oom;
    if (shown(&q->ask) != 0 || shown(&q->explain) != 0)
        goto oom;
    for (int i = 0; i < q->nchoices; i++)
        if (shown(&q->choices[i]) != 0)
            goto oom;
    // as the screen prints them: `--steps 2` is --steps 2 there
    for (int i = 0; i < q->nfrom; i++)
        if (shown(&q->from[i]) != 0)
            goto oom;
    rc = 0;
    goto done;
oom:
    lesson_fail(err, errlen, path, first_line - 1, "out of memory");
done:
    raw_free(&r);
    return rc;
}

void lesson_question_free(LessonQuestion *q) {
    free(q->ask);
    free(q->answer);
    free(q->check);
    free(q->varies);
    free(q->explain);
    for (int i = 0; i < q->nchoices; i++)
        free(q->choices[i]);
    free(q->choices);
    for (int i = 0; i < q->naccept; i++)
        free(q->accept[i]);
    free(q->accept);
    for (int i = 0; i < q->nfrom; i++)
        free(q->from[i]);
    free(q->from);
    memset(q, 0, sizeof *q);
}
