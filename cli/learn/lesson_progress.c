// cli/learn/lesson_progress.c: the learner's progress file (lesson_progress.h),
// read with cJSON and written through sim/base/outfile.h (a temporary beside the
// file, renamed over it), so an interrupted write never leaves half a file.
#include "learn/lesson_progress.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/outfile.h" // defines: SimOutFile, sim_outfile_*

// Entries a progress file may hold: far more lessons than there are, few
// enough that looking each up among the others stays quick (200000 took a
// minute to load).
#define PROGRESS_MAX_LESSONS 4096

static char *join(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

char *lesson_progress_path(void) {
    const char *x = getenv("XDG_STATE_HOME");
    if (x != NULL && x[0] == '/') // the spec: relative values are ignored
        return join(x, "/ddplab/progress.json");
    const char *h = getenv("HOME");
    if (h != NULL && h[0] != '\0')
        return join(h, "/.local/state/ddplab/progress.json");
    return NULL;
}

// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
static long long days_from_civil(long long y, int m, int d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

// "2025-03-01T09:30:00Z" -> seconds since the epoch (0 when malformed).
static time_t parse_time(const char *s) {
    int y, mo, d, h, mi, se;
    char z;
    if (s == NULL || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &z) != 7 ||
        z != 'Z' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return 0;
    return (time_t)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se);
}

static void format_time(time_t t, char *buf, size_t len) {
    struct tm tm;
    if (t <= 0 || gmtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, len, "%s", "");
}

static LessonProgressEntry *find(const LessonProgress *p, const char *id) {
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->e[i].id, id) == 0)
            return &p->e[i];
    return NULL;
}

const LessonProgressEntry *lesson_progress_find(const LessonProgress *p, const char *id) {
    return find(p, id);
}

static LessonProgressEntry *add(LessonProgress *p, const char *id) {
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        LessonProgressEntry *e = realloc(p->e, (size_t)cap * sizeof *e);
        if (e == NULL)
            return NULL;
        p->e = e;
        p->cap = cap;
    }
    LessonProgressEntry *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    e->id = join(id, "");
    if (e->id == NULL)
        return NULL;
    p->n++;
    return e;
}

int lesson_progress_record(LessonProgress *p, const char *id, int completed, int right,
                           int asked, time_t when) {
    LessonProgressEntry *e = find(p, id);
    if (e == NULL && (e = add(p, id)) == NULL)
        return -1;
    e->completed = e->completed || completed;
    e->right = right;
    e->asked = asked;
    e->last_played = when;
    return 0;
}

int lesson_progress_record_at(LessonProgress *p, const char *id, int at, const char *answers) {
    LessonProgressEntry *e = find(p, id);
    if (e == NULL && (e = add(p, id)) == NULL)
        return -1;
    char *copy = answers ? join(answers, "") : NULL;
    if (answers != NULL && copy == NULL)
        return -1;
    free(e->answers);
    e->answers = copy;
    e->at = at > 0 ? at : 0;
    return 0;
}

void lesson_progress_free(LessonProgress *p) {
    if (p == NULL)
        return;
    for (int i = 0; i < p->n; i++) {
        free(p->e[i].id);
        free(p->e[i].answers);
    }
    free(p->e);
    memset(p, 0, sizeof *p);
}

static int int_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9 ? (int)v->valuedouble
                                                                           : 0;
}

int lesson_progress_load(LessonProgress *p, const char *path, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *t = cap <= ((size_t)16 << 20) ? realloc(text, cap) : NULL;
            if (t == NULL) {
                snprintf(err, errlen, "%s: too large for a progress file", path);
                goto done;
            }
            text = t;
        }
        size_t k = fread(text + n, 1, 4096, f);
        n += k;
        if (k < 4096)
            break;
    }
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    const cJSON *lessons = cJSON_GetObjectItemCaseSensitive(root, "lessons");
    if (!cJSON_IsObject(root) || !cJSON_IsObject(lessons)) {
        snprintf(err, errlen, "%s: not a ddplab progress file (JSON with \"lessons\")", path);
        cJSON_Delete(root);
        goto done;
    }
    if (cJSON_GetArraySize(lessons) > PROGRESS_MAX_LESSONS) {
        snprintf(err, errlen, "%s: more than %d lessons, not a ddplab progress file", path,
                 PROGRESS_MAX_LESSONS);
        cJSON_Delete(root);
        goto done;
    }
    rc = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, lessons) {
        if (!cJSON_IsObject(l) || l->string == NULL || find(p, l->string) != NULL)
            continue;
        LessonProgressEntry *e = add(p, l->string);
        if (e == NULL) {
            snprintf(err, errlen, "%s: out of memory", path);
            rc = -1;
            break;
        }
        e->completed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "completed"));
        e->right = int_of(l, "right");
        e->asked = int_of(l, "asked");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(l, "last_played");
        e->last_played = cJSON_IsString(t) ? parse_time(t->valuestring) : 0;
        e->at = int_of(l, "at");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(l, "answers");
        if (cJSON_IsString(a) && strlen(a->valuestring) < 1024 &&
            strspn(a->valuestring, "rws-") == strlen(a->valuestring))
            e->answers = join(a->valuestring, "");
    }
    cJSON_Delete(root);
done:
    fclose(f);
    free(text);
    if (rc != 0)
        lesson_progress_free(p);
    return rc;
}

// mkdir -p of the directory that holds path.
static int make_parent(const char *path, char *err, size_t errlen) {
    char *dir = join(path, "");
    if (dir == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        for (char *p = dir + 1;; p++) {
            char c = *p;
            if (c != '/' && c != '\0')
                continue;
            *p = '\0';
            if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
                rc = -1;
                break;
            }
            *p = c;
            if (c == '\0')
                break;
        }
    }
    free(dir);
    return rc;
}

int lesson_progress_save(const LessonProgress *p, const char *path, char *err, size_t errlen) {
    if (make_parent(path, err, errlen) != 0)
        return -1;
    cJSON *root = cJSON_CreateObject(), *lessons = cJSON_CreateObject();
    int ok = root && lessons && cJSON_AddNumberToObject(root, "version", 1) &&
             cJSON_AddItemToObject(root, "lessons", lessons);
    if (!ok)
        cJSON_Delete(lessons); // not yet owned by root
    for (int i = 0; ok && i < p->n; i++) {
        const LessonProgressEntry *e = &p->e[i];
        char when[32];
        format_time(e->last_played, when, sizeof when);
        cJSON *o = cJSON_AddObjectToObject(lessons, e->id);
        ok = o && cJSON_AddBoolToObject(o, "completed", e->completed) &&
             cJSON_AddNumberToObject(o, "right", e->right) &&
             cJSON_AddNumberToObject(o, "asked", e->asked) &&
             cJSON_AddStringToObject(o, "last_played", when) &&
             cJSON_AddNumberToObject(o, "at", e->at) &&
             (e->answers == NULL || cJSON_AddStringToObject(o, "answers", e->answers));
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (text == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    SimOutFile of;
    int rc = -1;
    if (sim_outfile_open(&of, path) != SIM_OK) {
        snprintf(err, errlen, "cannot create %s", path);
    } else {
        fputs(text, of.f);
        fputc('\n', of.f);
        if (sim_outfile_commit(&of) == SIM_OK)
            rc = 0;
        else
            snprintf(err, errlen, "cannot write %s (disk full?)", path);
    }
    cJSON_free(text);
    return rc;
}
