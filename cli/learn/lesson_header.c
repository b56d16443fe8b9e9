// cli/learn/lesson_header.c: a lesson's header (lessons/FORMAT.md, "Header"): the
// lines between the two '---' at the top of the file, one `key: value` each.
// Every key is required (prerequisites may be empty) and appears once.
#include <stdlib.h>
#include <string.h>

#include "learn/lesson_internal.h"

#define KEYS "id, title, difficulty, prerequisites, minutes, track"

enum { K_ID, K_TITLE, K_DIFFICULTY, K_PREREQS, K_MINUTES, K_TRACK, K_COUNT };
static const char *const key_names[K_COUNT] = {"id",      "title", "difficulty", "prerequisites",
                                               "minutes", "track"};


static int is_fence(const char *s, size_t n) {
    s = lesson_trim(s, &n);
    return n == 3 && memcmp(s, "---", 3) == 0;
}

static int one_of(const char *v, size_t n, const char *const *names, int count) {
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == n && memcmp(v, names[i], n) == 0)
            return i;
    return -1;
}

// prerequisites: comma-separated ids (may be empty).
static int parse_prereqs(const char *path, int line, const char *v, size_t n, Lesson *l, char *err,
                         size_t errlen) {
    char shown[80];
    if (n == 0)
        return 0;
    int cap = 0;
    const char *p = v, *end = v + n;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t k = comma ? (size_t)(comma - p) : (size_t)(end - p);
        const char *id = lesson_trim(p, &k);
        if (!lesson_id_ok(id, k))
            return lesson_fail(err, errlen, path, line,
                               "prerequisites: '%s' is not a lesson id; allowed: ids (lower-case "
                               "letters, digits and '-') separated by commas, or nothing",
                               lesson_shown(id, k, shown));
        if (l->id && strlen(l->id) == k && memcmp(l->id, id, k) == 0)
            return lesson_fail(err, errlen, path, line,
                               "prerequisites: a lesson cannot be its own prerequisite ('%s')",
                               l->id);
        char **a = lesson_grow(l->prereqs, &cap, l->nprereqs, sizeof *a);
        char *s = a ? lesson_strndup(id, k) : NULL;
        if (a)
            l->prereqs = a;
        if (s == NULL)
            return lesson_fail(err, errlen, path, line, "out of memory");
        l->prereqs[l->nprereqs++] = s;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

static int set_key(const char *path, int line, int key, const char *v, size_t n, Lesson *l,
                   char *err, size_t errlen) {
    static const char *const diffs[] = {"beginner", "intermediate", "advanced"};
    static const char *const tracks[] = {"lessons", "spot-the-bug"};
    char shown[80];
    char **dst = NULL;
    switch (key) {
    case K_ID:
        if (!lesson_id_ok(v, n))
            return lesson_fail(err, errlen, path, line,
                               "id: '%s' is not an id; allowed: 1 to 64 lower-case letters, "
                               "digits and '-' (not first)",
                               lesson_shown(v, n, shown));
        dst = &l->id;
        break;
    case K_TITLE:
        if (n == 0)
            return lesson_fail(err, errlen, path, line,
                               "title: is empty; allowed: one line of text");
        dst = &l->title;
        break;
    case K_DIFFICULTY:
        if (one_of(v, n, diffs, 3) < 0)
            return lesson_fail(err, errlen, path, line,
                               "difficulty: '%s' is not a difficulty; allowed: beginner, "
                               "intermediate, advanced",
                               lesson_shown(v, n, shown));
        dst = &l->difficulty;
        break;
    case K_TRACK:
        if (one_of(v, n, tracks, 2) < 0)
            return lesson_fail(err, errlen, path, line,
                               "track: '%s' is not a track; allowed: lessons, spot-the-bug",
                               lesson_shown(v, n, shown));
        dst = &l->track;
        break;
    case K_MINUTES: {
        int m = 0;
        size_t i = 0;
        for (; i < n && i < 4 && v[i] >= '0' && v[i] <= '9'; i++)
            m = m * 10 + (v[i] - '0');
        if (n == 0 || i != n || m < 1 || m > 120)
            return lesson_fail(err, errlen, path, line,
                               "minutes: '%s' is not a duration; allowed: 1 to 120 (minutes)",
                               lesson_shown(v, n, shown));
        l->minutes = m;
        return 0;
    }
    case K_PREREQS:
        return parse_prereqs(path, line, v, n, l, err, errlen);
    }
    if ((*dst = lesson_strndup(v, n)) == NULL)
        return lesson_fail(err, errlen, path, line, "out of memory");
    return 0;
}

int lesson_header_parse(const char *path, const char *text, size_t len, Lesson *l, size_t *body,
                        char *err, size_t errlen) {
    char shown[80];
    size_t off = 0, n;
    const char *s;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) // a UTF-8 byte order mark
        off = 3;
    if (!lesson_next_line(text, len, &off, &s, &n) || !is_fence(s, n))
        return lesson_fail(err, errlen, path, 1,
                           "the lesson has no header; a lesson starts with a '---' line, then "
                           "one 'key: value' line for each of " KEYS ", then '---'");
    int seen[K_COUNT] = {0};
    int line = 1;
    // The prerequisites wait until the id is known (a lesson is not its own).
    const char *pre = NULL;
    size_t npre = 0;
    int preline = 0;
    for (;;) {
        line++;
        if (!lesson_next_line(text, len, &off, &s, &n))
            return lesson_fail(err, errlen, path, 1,
                               "the header is not closed; end it with a '---' line");
        if (is_fence(s, n))
            break;
        size_t k = n;
        const char *t = lesson_trim(s, &k);
        if (k == 0)
            continue;
        const char *colon = memchr(t, ':', k);
        if (colon == NULL)
            return lesson_fail(err, errlen, path, line,
                               "'%s' is not a 'key: value' line; the header holds " KEYS
                               " and ends with '---'",
                               lesson_shown(t, k, shown));
        size_t kn = (size_t)(colon - t);
        const char *key = lesson_trim(t, &kn);
        int ki = one_of(key, kn, key_names, K_COUNT);
        if (ki < 0)
            return lesson_fail(err, errlen, path, line, "unknown header key '%s'; allowed: " KEYS,
                               lesson_shown(key, kn, shown));
        if (seen[ki])
            return lesson_fail(err, errlen, path, line, "'%s' is given twice (first on line %d)",
                               key_names[ki], seen[ki]);
        seen[ki] = line;
        size_t vn = (size_t)(t + k - (colon + 1));
        const char *v = lesson_trim(colon + 1, &vn);
        if (ki == K_PREREQS) {
            pre = v, npre = vn, preline = line;
            continue;
        }
        if (set_key(path, line, ki, v, vn, l, err, errlen) != 0)
            return -1;
    }
    for (int k = 0; k < K_COUNT; k++)
        if (!seen[k])
            return lesson_fail(err, errlen, path, line,
                               "the header has no '%s'; a header holds " KEYS
                               " (prerequisites may be empty)",
                               key_names[k]);
    if (parse_prereqs(path, preline, pre, npre, l, err, errlen) != 0)
        return -1;
    *body = off;
    return 0;
}
