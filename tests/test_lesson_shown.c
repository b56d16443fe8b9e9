// tests/test_lesson_shown.c DDPLAB LESSON.md [--expect-unshown LINE,...] [-v]:
// every number question of a lesson asks for something the learner was
// shown. The lesson is played as the suite plays it (`ddplab lesson FILE
// --non-interactive --viz text`) for its transcript, and its blocks are run
// here for their facts. Each number question passes when, in the
// transcript between the start of its run block and its prompt (the
// question's own text included), a printed figure grades right against the
// fact (so it is shown to the precision the question asks for); or, for a
// question with from:, when each of those figures is printed anywhere
// before its prompt. --expect-unshown: the questions (by the line of their
// fence) that must fail, for the checker's own fixture; -v prints where each
// answer was found.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/lesson.h"
#include "learn/lesson_facts.h"
#include "learn/lesson_grade.h"
#include "lesson/lesson_run.h"
#include "test_cli_run.h"

// How long the lesson may play: the build sets it (tests/cli_lesson.cmake),
// longer under the sanitizers, where lesson 28 alone plays for 4-6 minutes.
#ifndef DDPLAB_LESSON_PLAY_TIMEOUT_S
#define DDPLAB_LESSON_PLAY_TIMEOUT_S 280
#endif
#define PLAY_TIMEOUT_S ((double)DDPLAB_LESSON_PLAY_TIMEOUT_S)
#define MAX_EXPECT 32

typedef struct {
    const char *path;
    const Lesson *l;
    const char *text; // the transcript
    LessonFacts *facts; // [nruns]
    int verbose;
} Shown;

// The runs' facts, computed in this process (the same commands as the
// player's; the simulator is deterministic).
static int run_blocks(const Lesson *l, LessonFacts *facts) {
    LessonSession s;
    char err[512];
    if (lesson_session_open(&s, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < l->nruns && rc == 0; i++)
        if ((rc = lesson_run_block(&s, &l->runs[i], &facts[i], err, sizeof err)) != 0)
            fprintf(stderr, "%s:%d: %s\n", l->path, l->runs[i].line, err);
    lesson_session_close(&s);
    return rc;
}

// Where run k's command starts in the transcript ("$ ddplab COMMAND"), the
// runs found in order; NULL when it is not there.
static const char *run_start(const Shown *s, int k) {
    const char *at = s->text;
    for (int i = 0; i <= k && at; i++) {
        char head[2048];
        snprintf(head, sizeof head, "\n$ ddplab %s\n", s->l->runs[i].command);
        at = strstr(at, head);
        if (at && i < k)
            at++;
    }
    return at;
}

// Where question k's prompt ends: the "Your answer" line after its
// "Question K of N" heading. *start: the heading. NULL when not there.
static const char *prompt_end(const Shown *s, int k, const char **start) {
    char head[64];
    snprintf(head, sizeof head, "\nQuestion %d of %d\n", k + 1, s->l->nquestions);
    *start = strstr(s->text, head);
    return *start ? strstr(*start, "\nYour answer (") : NULL;
}

static int is_word(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

// The next figure in [p, end): digits with an optional fraction, thousands
// separators ("1,048,576") and exponent, not glued to a word before it
// ("llama2", "c1"). Its text into tok; the position after it returned (NULL:
// no more).
static const char *next_figure(const char *p, const char *end, const char *text, char *tok,
                               size_t len) {
    for (; p < end; p++) {
        if (!isdigit((unsigned char)*p))
            continue;
        if (p > text && is_word(p[-1]))
            continue;
        const char *q = p;
        size_t n = 0;
        while (q < end && n + 1 < len) {
            if (isdigit((unsigned char)*q)) {
                tok[n++] = *q++;
            } else if (*q == ',' && end - q > 3 && isdigit((unsigned char)q[1]) &&
                       isdigit((unsigned char)q[2]) && isdigit((unsigned char)q[3]) &&
                       (end - q == 4 || !isdigit((unsigned char)q[4])) && !memchr(tok, '.', n)) {
                q++; // a thousands separator
            } else if (*q == '.' && q + 1 < end && isdigit((unsigned char)q[1]) &&
                       !memchr(tok, '.', n)) {
                tok[n++] = *q++;
            } else if ((*q == 'e' || *q == 'E') && q + 1 < end &&
                       (isdigit((unsigned char)q[1]) ||
                        ((q[1] == '-' || q[1] == '+') && q + 2 < end &&
                         isdigit((unsigned char)q[2])))) {
                tok[n++] = *q++;
                if (*q == '-' || *q == '+')
                    tok[n++] = *q++;
                while (q < end && isdigit((unsigned char)*q) && n + 1 < len)
                    tok[n++] = *q++;
                break;
            } else {
                break;
            }
        }
        tok[n] = '\0';
        return q;
    }
    return NULL;
}

// The line of the transcript around p, for -v and the messages.
static void line_at(const char *text, const char *p, char *buf, size_t len) {
    const char *a = p, *b = p;
    while (a > text && a[-1] != '\n')
        a--;
    while (*b && *b != '\n')
        b++;
    snprintf(buf, len, "%.*s", (int)(b - a > 200 ? 200 : b - a), a);
}

// A figure in [from, end) that grades right against fact: 1 (with where), 0.
static int fact_shown(const Shown *s, const LessonQuestion *q, double fact, const char *from,
                      const char *end, const char **where) {
    char tok[64];
    for (const char *p = from; (p = next_figure(p, end, s->text, tok, sizeof tok)) != NULL;) {
        if (lesson_grade(q, tok, &fact) == LESSON_GRADE_RIGHT) {
            *where = p - strlen(tok);
            return 1;
        }
    }
    return 0;
}

// s[0..n) with every run of blanks and line ends as one space, lower case.
static char *squeezed(const char *s, size_t n) {
    char *d = malloc(n + 1);
    size_t k = 0;
    if (d == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)s[i])) {
            if (k > 0 && d[k - 1] != ' ')
                d[k++] = ' ';
        } else {
            d[k++] = (char)tolower((unsigned char)s[i]);
        }
    }
    d[k] = '\0';
    return d;
}

// The figure f (from:) appears in hay (squeezed) as a whole: not inside a
// longer word or number.
static int phrase_in(const char *hay, const char *f) {
    char *want = squeezed(f, strlen(f));
    int found = 0;
    size_t n = want ? strlen(want) : 0;
    for (const char *p = hay; want && !found && (p = strstr(p, want)) != NULL; p++)
        found = (p == hay || !is_word(p[-1])) && !is_word(p[n]);
    free(want);
    return found;
}

// Checks question k: 0 when its answer was shown, 1 when not (said why).
static int check_question(const Shown *s, int k) {
    const LessonQuestion *q = &s->l->questions[k];
    const char *head, *end = prompt_end(s, k, &head);
    if (end == NULL) {
        fprintf(stderr, "%s:%d: question %d is not in the transcript\n", s->path, q->line, k + 1);
        return 1;
    }
    if (q->nfrom > 0) {
        char *hay = squeezed(s->text, (size_t)(end - s->text));
        int bad = 0;
        for (int i = 0; hay && i < q->nfrom; i++)
            if (!phrase_in(hay, q->from[i])) {
                fprintf(stderr, "%s:%d: question %d: from: '%s' is printed nowhere before its "
                        "prompt\n", s->path, q->line, k + 1, q->from[i]);
                bad = 1;
            }
        free(hay);
        if (s->verbose && !bad)
            printf("%s:%d: question %d: from: every figure shown\n", s->path, q->line, k + 1);
        return bad || hay == NULL;
    }
    double fact;
    char why[512], right[256];
    if (q->run < 0 || lesson_fact(&s->facts[q->run], q->check, &fact, why, sizeof why) != 0) {
        fprintf(stderr, "%s:%d: question %d: no fact %s: %s\n", s->path, q->line, k + 1,
                q->check, q->run < 0 ? "no run" : why);
        return 1;
    }
    lesson_grade_right(q, &fact, right, sizeof right);
    const char *from = run_start(s, q->run), *where;
    if (from == NULL || from > head)
        from = s->text;
    if (fact_shown(s, q, fact, from, end, &where)) {
        if (s->verbose) {
            char line[256];
            line_at(s->text, where, line, sizeof line);
            printf("%s:%d: question %d (%s = %s) shown: %s\n", s->path, q->line, k + 1,
                   q->check, right, line);
        }
        return 0;
    }
    fprintf(stderr, "%s:%d: question %d asks for %s (%s), which is printed nowhere between "
            "its run and its prompt to the precision it asks for; ask for a figure that was "
            "shown, give the precision with digits:, or name the figures it is worked out "
            "from with from:\n", s->path, q->line, k + 1, right, q->check);
    return 1;
}

// "12,40" -> lines[] = {12, 40}; the count, or -1.
static int parse_lines(const char *v, int *lines) {
    int n = 0;
    for (const char *p = v; *p && n < MAX_EXPECT;) {
        char *e;
        long x = strtol(p, &e, 10);
        if (e == p)
            return -1;
        lines[n++] = (int)x;
        p = *e == ',' ? e + 1 : e;
    }
    return n;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_lesson_shown DDPLAB LESSON.md [--expect-unshown LINE,...] "
                "[-v]\n");
        return 2;
    }
    int expect[MAX_EXPECT], nexpect = 0, verbose = 0;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "--expect-unshown") == 0 && i + 1 < argc)
            nexpect = parse_lines(argv[++i], expect);
    }
    if (nexpect < 0)
        return 2;
    Lesson l;
    char err[512];
    if (lesson_parse_file(argv[2], &l, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    TcliResult r;
    const char *args[] = {"lesson", argv[2], "--non-interactive", "--viz", "text", NULL};
    tcli_run(&r, argv[1], args, PLAY_TIMEOUT_S);
    LessonFacts *facts = calloc(l.nruns > 0 ? (size_t)l.nruns : 1, sizeof *facts);
    for (int i = 0; facts && i < l.nruns; i++)
        lesson_facts_init(&facts[i]);
    int failures = 0;
    if (r.rc != 0) {
        tcli_show("the lesson does not play", &r);
        failures++;
    } else if (facts == NULL || run_blocks(&l, facts) != 0) {
        failures++;
    } else {
        Shown s = {argv[2], &l, r.out, facts, verbose};
        for (int k = 0; k < l.nquestions; k++) {
            if (l.questions[k].type != LESSON_Q_NUMBER)
                continue;
            int bad = check_question(&s, k), want = 0;
            for (int i = 0; i < nexpect; i++)
                want |= expect[i] == l.questions[k].line;
            if (bad != want && want)
                fprintf(stderr, "%s:%d: question %d was meant to fail the check\n", argv[2],
                        l.questions[k].line, k + 1);
            failures += bad != want;
        }
    }
    for (int i = 0; facts && i < l.nruns; i++)
        lesson_facts_free(&facts[i]);
    free(facts);
    tcli_result_free(&r);
    lesson_free(&l);
    if (failures == 0)
        printf("%s: every number question asks for what was shown\n", argv[2]);
    return failures ? 1 : 0;
}
