// tests/test_choice_lint.c LESSONS [-v]: the choices of multiple-choice
// questions do not give their answer away. Over every choice question of
// the lessons (LESSONS/*.md) and, apart, over the interview drill's
// multiple-choice topics generated for many seeds: the right option may be the longest or
// the shortest of its question (by characters, ties included) in at most
// LINT_MAX_EXTREME of the questions, where chance alone puts it at half for
// four options; no one place by length (the longest, the second longest,
// ...) may hold the right option in more than LINT_MAX_PLACE of them (else
// "the second longest" would be the tell); and no option may name a verdict
// ("correct", "wrong", "misconception", "myth", ...). The interview's right
// letter must also fall on each of a-d about as often. -v lists the
// questions where the right option is the longest or the shortest.
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "learn/interview.h"
#include "learn/lesson.h"
#include "learn/lesson_grade.h"

// Half is what a shuffle of four options of random lengths gives; the
// options must do better than chance, with room to spare.
#define LINT_MAX_EXTREME 0.40
#define LINT_MAX_PLACE 0.60
#define LINT_PLACES 26
#define LINT_SEEDS 40

// Words with which an option speaks of its own truth.
static const char *const verdicts[] = {"correct",       "incorrect",      "wrong",
                                       "right answer",  "misconception",  "myth",
                                       "common mistake", "mistaken",      "true answer",
                                       "false belief"};

typedef struct {
    const char *what; // "lessons", "interview"
    int questions, longest, shortest, verdict;
    int place[LINT_PLACES]; // questions whose right option has k longer ones
} Tally;

// Characters of s (UTF-8 code points).
static int chars(const char *s) {
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

// The verdict word in s (case and word boundaries ignored), or NULL.
static const char *verdict_in(const char *s) {
    for (size_t v = 0; v < sizeof verdicts / sizeof verdicts[0]; v++) {
        size_t n = strlen(verdicts[v]);
        for (const char *p = s; *p; p++) {
            if ((p > s && isalpha((unsigned char)p[-1])) || strncasecmp(p, verdicts[v], n) != 0)
                continue;
            if (!isalpha((unsigned char)p[n]))
                return verdicts[v];
        }
    }
    return NULL;
}

// One question: its options' texts, the right one's index, where it comes
// from for the messages; quiet: its verdict words are counted elsewhere.
static void tally(Tally *t, const char *const *opt, int n, int right, const char *where,
                  int verbose, int quiet) {
    int len = chars(opt[right]), longest = 1, shortest = 1, longer = 0;
    for (int i = 0; i < n; i++) {
        const char *w = verdict_in(opt[i]);
        if (w != NULL && !quiet) {
            fprintf(stderr, "%s: option %c names a verdict ('%s'): %s\n", where, 'a' + i, w,
                    opt[i]);
            t->verdict++;
        }
        if (i == right)
            continue;
        longest &= len >= chars(opt[i]);
        shortest &= len <= chars(opt[i]);
        longer += chars(opt[i]) > len;
    }
    t->questions++;
    t->longest += longest;
    t->shortest += shortest;
    t->place[longer < LINT_PLACES ? longer : LINT_PLACES - 1]++;
    if (verbose && (longest || shortest))
        printf("%s: the right option (%c) is the %s\n", where, 'a' + right,
               longest ? "longest" : "shortest");
}

static int is_lesson(const char *name) {
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".md") == 0 && strcmp(name, "FORMAT.md") != 0 &&
           strcmp(name, "README.md") != 0 && strcmp(name, "index.md") != 0;
}

static int lint_lessons(const char *dir, Tally *t, int verbose) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        perror(dir);
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!is_lesson(e->d_name))
            continue;
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        Lesson l;
        if (lesson_parse_file(path, &l, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            rc = -1;
            continue;
        }
        for (int k = 0; k < l.nquestions; k++) {
            const LessonQuestion *q = &l.questions[k];
            if (q->type != LESSON_Q_CHOICE)
                continue;
            const char *opt[26];
            for (int i = 0; i < q->nchoices && i < 26; i++)
                opt[i] = lesson_choice_text(q, i);
            char where[1100];
            snprintf(where, sizeof where, "%s:%d", path, q->line);
            tally(t, opt, q->nchoices, q->answer[0] - 'a', where, verbose, 0);
        }
        lesson_free(&l);
    }
    closedir(d);
    return rc;
}

// One multiple-choice topic of n items, over LINT_SEEDS seeds.
static int lint_topic(IvTopic topic, int n, Tally *t, int *letters, int verbose) {
    for (int s = 0; s < LINT_SEEDS; s++)
        for (int k = 0; k < n; k++) {
            IvQuestion q;
            char err[256];
            uint64_t seed = 0x5EEDull * (uint64_t)(s + 1) + 7;
            if (iv_generate(topic, seed, k, &q, err, sizeof err) != 0) {
                fprintf(stderr, "interview: %s\n", err);
                return -1;
            }
            const char *opt[IV_NCHOICES];
            for (int i = 0; i < IV_NCHOICES; i++)
                opt[i] = q.choice[i];
            char where[160];
            snprintf(where, sizeof where, "interview %s, seed %llu, question %d (%.50s...)",
                     iv_topic_name(topic), (unsigned long long)seed, k, q.text);
            // each item's words once: every seed shows the same texts
            tally(t, opt, IV_NCHOICES, q.correct, where, verbose && s == 0, s > 0);
            letters[q.correct]++;
        }
    return 0;
}

// The multiple-choice topics as drills ask them: every item, each with the
// options the seed draws and shuffles.
static int lint_interview(Tally *t, int *letters, int verbose) {
    for (int topic = 0; topic < IV_TOPIC_COUNT; topic++) {
        int n;
        if (iv_choice_items((IvTopic)topic, &n) == NULL)
            continue;
        if (lint_topic((IvTopic)topic, n, t, letters, verbose) != 0)
            return -1;
    }
    return 0;
}

// Prints the tally; 1 when it fails the lint.
static int judge(const Tally *t) {
    double ext = t->questions ? (double)(t->longest + t->shortest) / t->questions : 0;
    int most = 0;
    for (int k = 1; k < LINT_PLACES; k++)
        most = t->place[k] > t->place[most] ? k : most;
    double place = t->questions ? (double)t->place[most] / t->questions : 0;
    printf("%s: %d choice questions; the right option is the longest in %d, the shortest in "
           "%d (%.0f%% together, at most %.0f%% allowed); %d options name a verdict\n",
           t->what, t->questions, t->longest, t->shortest, 100 * ext, 100 * LINT_MAX_EXTREME,
           t->verdict);
    printf("%s: the right option has %d longer options in %.0f%% of the questions (at most "
           "%.0f%% allowed)\n",
           t->what, most, 100 * place, 100 * LINT_MAX_PLACE);
    return t->questions == 0 || ext > LINT_MAX_EXTREME || place > LINT_MAX_PLACE ||
           t->verdict > 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_choice_lint LESSONS [-v]\n");
        return 2;
    }
    int verbose = argc > 2 && strcmp(argv[2], "-v") == 0;
    Tally lessons = {.what = "lessons"}, drill = {.what = "interview"};
    int letters[IV_NCHOICES] = {0}, failures = 0;
    if (lint_lessons(argv[1], &lessons, verbose) != 0 ||
        lint_interview(&drill, letters, verbose) != 0)
        return 1;
    failures += judge(&lessons);
    failures += judge(&drill);
    // the drill places the right option by its seed: each letter near a quarter
    for (int i = 0; i < IV_NCHOICES; i++) {
        double share = (double)letters[i] / drill.questions;
        printf("interview: the right option is %c) in %.0f%% of the questions\n", 'a' + i,
               100 * share);
        failures += share < 0.15 || share > 0.35;
    }
    return failures ? 1 : 0;
}
