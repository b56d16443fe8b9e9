// tests/test_vtrace_util.c: trace comparisons (see test_vtrace_util.h).
#include "test_vtrace_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int same_double(double a, double b) {
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y || (a != a && b != b);
}

static int same_str(const char *a, const char *b) {
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int tvt_same_event(const SimEvent *a, const SimEvent *b, size_t i, int skip_wall) {
#define DIFF_D(f)                                                                                  \
    if (!same_double(a->f, b->f)) {                                                                \
        fprintf(stderr, "event %zu: %s %.17g != %.17g\n", i, #f, a->f, b->f);                      \
        return 0;                                                                                  \
    }
#define DIFF_I(f)                                                                                  \
    if (a->f != b->f) {                                                                            \
        fprintf(stderr, "event %zu: %s %" PRId64 " != %" PRId64 "\n", i, #f, (int64_t)a->f,        \
                (int64_t)b->f);                                                                    \
        return 0;                                                                                  \
    }
#define DIFF_S(f)                                                                                  \
    if (!same_str(a->f, b->f)) {                                                                   \
        fprintf(stderr, "event %zu: %s \"%s\" != \"%s\"\n", i, #f, a->f ? a->f : "(null)",         \
                b->f ? b->f : "(null)");                                                           \
        return 0;                                                                                  \
    }
    DIFF_D(sim_start) DIFF_D(sim_end)
    if (!skip_wall) {
        DIFF_D(wall_start) DIFF_D(wall_end)
    }
    DIFF_I(bytes) DIFF_I(count) DIFF_I(seq) DIFF_D(value)
    DIFF_S(name) DIFF_S(label)
    DIFF_I(rank) DIFF_I(stream) DIFF_I(kind) DIFF_I(coll) DIFF_I(algo) DIFF_I(dtype)
    DIFF_I(redop) DIFF_I(mem_cat) DIFF_I(mem_space)
    DIFF_I(step) DIFF_I(nsteps) DIFF_I(chunk) DIFF_I(src) DIFF_I(dst)
#undef DIFF_D
#undef DIFF_I
#undef DIFF_S
    return 1;
}

int tvt_same_events(const SimEvent *a, const SimEvent *b, size_t n, int skip_wall) {
    for (size_t i = 0; i < n; i++)
        if (!tvt_same_event(&a[i], &b[i], i, skip_wall))
            return 0;
    return 1;
}

int tvt_same_info(const SimTraceInfo *a, const SimTraceInfo *b) {
    if (strcmp(a->title, b->title) != 0 || strcmp(a->strategy, b->strategy) != 0 ||
        strcmp(a->profile, b->profile) != 0 || a->device_capacity != b->device_capacity ||
        a->nodes != b->nodes) {
        fprintf(stderr, "info differs: \"%s\" \"%s\" \"%s\" %" PRIu64 " %d vs \"%s\" \"%s\" "
                "\"%s\" %" PRIu64 " %d\n", a->title, a->strategy, a->profile,
                a->device_capacity, a->nodes, b->title, b->strategy, b->profile,
                b->device_capacity, b->nodes);
        return 0;
    }
    return 1;
}
