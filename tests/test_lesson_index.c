// tests/test_lesson_index.c: the lessons' index (lesson_index_load) and
// lesson_dir(): lessons in the order index.md links them, each under its
// latest "## " heading; links that name no lesson file skipped; a missing
// file, a file listed twice and two lessons with one id rejected with the
// index's line; a bad header in a listed lesson reported with its own line.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "learn/lesson.h"
#include "test_files.h"

static int put(const char *dir, const char *name, const char *text) {
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tfile_write(path, text, strlen(text));
}

static int put_lesson(const char *dir, const char *name, const char *id) {
    char text[256];
    snprintf(text, sizeof text,
             "---\nid: %s\ntitle: Lesson %s\ndifficulty: beginner\nprerequisites:\nminutes: "
             "5\ntrack: lessons\n---\n\nText.\n",
             id, id);
    return put(dir, name, text);
}

static const char *index_good =
    "# Lessons\n" // 1
    "\n"          // 2
    "The format is described elsewhere (see [the site](https://example.org/FORMAT.md)).\n"
    "\n"                                                           // 4
    "## Lessons\n"                                                 // 5
    "\n"                                                           // 6
    "1. [Ring all-reduce](ring.md): chunks go round.\n"            // 7
    "2. [DDP buckets](./ddp-buckets.md#top) and [more](#anchor)\n" // 8
    "\n"                                                           // 9
    "### Advanced\n"                                               // 10
    "\n"                                                           // 11
    "- [FSDP](fsdp.md)\n"                                          // 12
    "\n"                                                           // 13
    "## Spot the bug\n"                                            // 14
    "\n"                                                           // 15
    "- [A hang](bug-hang.md)\n"                                    // 16
    "- ![picture](pic.png)\n";                                     // 17

static int test_index(const char *dir) {
    char err[512];
    CHECK_EQ_INT(put(dir, "index.md", index_good), 0);
    CHECK_EQ_INT(put_lesson(dir, "ring.md", "ring"), 0);
    CHECK_EQ_INT(put_lesson(dir, "ddp-buckets.md", "ddp-buckets"), 0);
    CHECK_EQ_INT(put_lesson(dir, "fsdp.md", "fsdp"), 0);
    CHECK_EQ_INT(put_lesson(dir, "bug-hang.md", "bug-hang"), 0);
    LessonIndex ix;
    int rc = lesson_index_load(dir, &ix, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(ix.n, 4);
    static const char *const names[] = {"ring.md", "./ddp-buckets.md", "fsdp.md", "bug-hang.md"};
    static const char *const sections[] = {"Lessons", "Lessons", "Lessons", "Spot the bug"};
    for (int i = 0; i < 4; i++) {
        char want[1100];
        snprintf(want, sizeof want, "%s/%s", dir, names[i]);
        CHECK(strcmp(ix.paths[i], want) == 0);
        CHECK(strcmp(ix.sections[i], sections[i]) == 0);
    }
    // Each path is a lesson that parses.
    Lesson l;
    CHECK_EQ_INT(lesson_parse_file(ix.paths[1], &l, err, sizeof err), 0);
    CHECK(strcmp(l.id, "ddp-buckets") == 0);
    lesson_free(&l);
    lesson_index_free(&ix);
    CHECK(ix.n == 0 && ix.paths == NULL);
    lesson_index_free(&ix);

    // Links before any "## " heading have the section "".
    CHECK_EQ_INT(put(dir, "index.md", "See [ring](ring.md).\n\n## Later\n\n- [fsdp](fsdp.md)\n"),
                 0);
    CHECK_EQ_INT(lesson_index_load(dir, &ix, err, sizeof err), 0);
    CHECK_EQ_INT(ix.n, 2);
    CHECK(strcmp(ix.sections[0], "") == 0 && strcmp(ix.sections[1], "Later") == 0);
    lesson_index_free(&ix);

    // An index that links no lesson is empty, not an error.
    CHECK_EQ_INT(put(dir, "index.md", "# Nothing yet\n"), 0);
    CHECK_EQ_INT(lesson_index_load(dir, &ix, err, sizeof err), 0);
    CHECK_EQ_INT(ix.n, 0);
    lesson_index_free(&ix);
    return 0;
}

static int expect_error(const char *dir, const char *index, const char *want) {
    char err[512];
    LessonIndex ix;
    CHECK_EQ_INT(put(dir, "index.md", index), 0);
    CHECK_EQ_INT(lesson_index_load(dir, &ix, err, sizeof err), -1);
    CHECK_EQ_INT(ix.n, 0);
    CHECK(ix.paths == NULL && ix.sections == NULL);
    CHECK_STR_CONTAINS(err, want);
    lesson_index_free(&ix);
    return 0;
}

static int test_index_errors(const char *dir) {
    char want[1600];
    CHECK_EQ_INT(put_lesson(dir, "copy.md", "ring"), 0);
    snprintf(want, sizeof want,
             "%s/index.md:4: 'copy.md' has the id 'ring', like 'ring.md' (line 3); ids must be "
             "unique",
             dir);
    if (expect_error(dir, "## Lessons\n\n- [a](ring.md)\n- [b](copy.md)\n", want))
        return 1;
    snprintf(want, sizeof want,
             "%s/index.md:5: the link to 'gone.md' names no lesson: %s/gone.md: cannot read: No "
             "such file or directory",
             dir, dir);
    if (expect_error(dir, "## Lessons\n\n- [a](ring.md)\n\n[b](gone.md)\n", want))
        return 1;
    snprintf(want, sizeof want, "%s/index.md:4: 'ring.md' is listed twice (first on line 3)", dir);
    if (expect_error(dir, "## Lessons\n\n- [a](ring.md)\n- [a again](ring.md)\n", want))
        return 1;
    // A listed file with a bad header: the lesson's own line.
    CHECK_EQ_INT(put(dir, "bad.md", "---\nid: bad\nlevel: 3\n---\n"), 0);
    snprintf(want, sizeof want, "%s/bad.md:3: unknown header key 'level'", dir);
    if (expect_error(dir, "- [bad](bad.md)\n", want))
        return 1;
    // No index at all.
    char empty[512];
    CHECK_EQ_INT(tfile_mkdtemp(empty, sizeof empty, "lesson-none"), 0);
    LessonIndex ix;
    char err[512];
    CHECK_EQ_INT(lesson_index_load(empty, &ix, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "/index.md: cannot read: No such file or directory");
    tfile_rmtree(empty);
    return 0;
}

// Mutated copies of the good index: loaded or rejected, never a crash.
static int test_index_mutations(const char *dir) {
    size_t len = strlen(index_good);
    char *buf = malloc(len + 64), err[512];
    CHECK(buf != NULL);
    unsigned long s = 12345;
    int loaded = 0, rounds = 300;
    for (int round = 0; round < rounds; round++) {
        size_t n = len;
        memcpy(buf, index_good, len);
        for (int e = 0; e < 4; e++) {
            s = s * 6364136223846793005UL + 1442695040888963407UL;
            size_t at = (s >> 33) % n;
            char c = "[]()#\n `<>!*-:/.\\"[(s >> 20) % 16];
            if ((s >> 16) & 1)
                buf[at] = c;
            else
                memmove(buf + at, buf + at + 1, n - at - 1), n--;
        }
        char path[1100];
        snprintf(path, sizeof path, "%s/index.md", dir);
        CHECK_EQ_INT(tfile_write(path, buf, n), 0);
        LessonIndex ix;
        int rc = lesson_index_load(dir, &ix, err, sizeof err);
        CHECK(rc == 0 || rc == -1);
        if (rc == 0) {
            loaded++;
            CHECK(ix.n >= 0 && ix.n <= 8);
            for (int i = 0; i < ix.n; i++)
                CHECK(ix.paths[i] != NULL && ix.sections[i] != NULL);
        } else {
            CHECK(ix.n == 0 && ix.paths == NULL && strchr(err, '\n') == NULL && err[0]);
        }
        lesson_index_free(&ix);
    }
    free(buf);
    printf("index mutations: %d of %d loaded\n", loaded, rounds);
    CHECK(loaded > 0);
    return 0;
}

static int test_dir(void) {
    setenv("DDPLAB_LESSONS", "/some/where", 1);
    CHECK(strcmp(lesson_dir(), "/some/where") == 0);
    setenv("DDPLAB_LESSONS", "", 1); // empty counts as unset
    const char *d = lesson_dir();
    unsetenv("DDPLAB_LESSONS");
    CHECK(strcmp(lesson_dir(), d) == 0);
    // The source tree's lessons/, compiled in.
    CHECK(strcmp(d, DDPLAB_SOURCE_LESSONS) == 0);
    return 0;
}

int main(void) {
    int failures = 0;
    char dir[512];
    if (tfile_mkdtemp(dir, sizeof dir, "lesson-index") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    int rc = test_index(dir);
    printf("%s test_index\n", rc == 0 ? "ok    " : "FAILED");
    failures += rc != 0;
    rc = test_index_errors(dir);
    printf("%s test_index_errors\n", rc == 0 ? "ok    " : "FAILED");
    failures += rc != 0;
    rc = test_index_mutations(dir);
    printf("%s test_index_mutations\n", rc == 0 ? "ok    " : "FAILED");
    failures += rc != 0;
    RUN(test_dir);
    tfile_rmtree(dir);
    return failures != 0;
}
