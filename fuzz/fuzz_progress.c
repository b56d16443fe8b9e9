// fuzz/fuzz_progress.c: the learner's progress file
// ($XDG_STATE_HOME/ddplab/progress.json, cli/learn/lesson_progress.c), which
// `ddplab lesson` reads at start and rewrites after every lesson. A file
// that loads is recorded into and saved twice; the second save must load
// back as exactly what the first one did (writing is a fixed point).
#include <stdlib.h>
#include <string.h>

#include "learn/lesson_progress.h" // defines: LessonProgress, lesson_progress_load

#include "fuzz_util.h"

static int same(const LessonProgress *a, const LessonProgress *b) {
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++) {
        const LessonProgressEntry *x = &a->e[i], *y = lesson_progress_find(b, a->e[i].id);
        if (y == NULL || x->completed != y->completed || x->right != y->right ||
            x->asked != y->asked || x->last_played != y->last_played)
            return 0;
    }
    return 1;
}

// Saves p to scratch file 1 and loads it into *out. 0, or -1.
static int round_trip(const LessonProgress *p, LessonProgress *out) {
    char err[512];
    const char *path = fuzz_temp_file(1, (const uint8_t *)"", 0);
    if (path == NULL || lesson_progress_save(p, path, err, sizeof err) != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    return lesson_progress_load(out, path, err, sizeof err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_set_accepted(0);
    const char *path = fuzz_temp_file(0, data, size);
    if (path == NULL)
        return 0;
    LessonProgress p, q, r;
    char err[512];
    int ok = lesson_progress_load(&p, path, err, sizeof err) == 0;
    fuzz_set_accepted(ok);
    if (!ok)
        return 0;
    lesson_progress_record(&p, "fuzz-lesson", 1, 2, 3, 1700000000);
    if (round_trip(&p, &q) != 0 || round_trip(&q, &r) != 0 || !same(&q, &r)) {
        fprintf(stderr, "fuzz_progress: saving a loaded progress file is not a fixed point\n");
        abort();
    }
    lesson_progress_free(&p);
    lesson_progress_free(&q);
    lesson_progress_free(&r);
    return 0;
}
