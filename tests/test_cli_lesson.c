// tests/test_cli_lesson.c DDPLAB FIXTURES: `ddplab lesson` run as a learner
// runs it, on the small lessons in tests/lessons/ (FIXTURES). Checks: every
// fixture passes --non-interactive (pauses drawn as text frames); a wrong
// recorded answer, a wrong expected exit code and a pause at no event fail
// with FILE:LINE messages; a hang expected as exit 3 passes; answers typed
// on stdin are graded (right, wrong, within the tolerance, a choice's
// letter, a word in another case or an accepted spelling, not an answer,
// skipped); progress is written and shown in the menu; the menu's text
// (from index.md, and without one); `ddplab` alone opens it; bad input
// exits 2; a lesson whose blocks name a file outside the scratch directory
// is refused before anything runs, and the file is left as it was.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 120.0

static const char *exe, *fixtures;
static char scratch[512];  // a directory for this test's files
static char state[600];    // XDG_STATE_HOME of every run
static const char *tmpdir; // TMPDIR of the runs (NULL: as inherited)

// Runs `exe args...` with env XDG_STATE_HOME=state (and DDPLAB_LESSONS=
// lessons unless NULL), stdin holding input (NULL: /dev/null).
static int run_env(TcliResult *res, const char *input, const char *lessons,
                   const char *const *args) {
    const char *argv[32];
    int n = 0;
    argv[n++] = exe;
    for (; args && *args && n < 31; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    memset(res, 0, sizeof *res);
    res->rc = -1;
    int fo = tfile_temp_fd("lesson"), fe = tfile_temp_fd("lesson");
    int fi = input ? tfile_temp_fd("lesson") : open("/dev/null", O_RDONLY);
    if (fo < 0 || fe < 0 || fi < 0)
        goto done;
    if (input && (write(fi, input, strlen(input)) != (ssize_t)strlen(input) ||
                  lseek(fi, 0, SEEK_SET) != 0))
        goto done;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        goto done;
    if (pid == 0) {
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        setenv("XDG_STATE_HOME", state, 1);
        if (tmpdir)
            setenv("TMPDIR", tmpdir, 1);
        if (lessons)
            setenv("DDPLAB_LESSONS", lessons, 1);
        else
            unsetenv("DDPLAB_LESSONS");
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    for (int waited = 0;; waited++) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            break;
        if (waited > TIMEOUT_S * 100) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "killed %s after %.0f s\n", exe, TIMEOUT_S);
            break;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    res->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
done:
    res->out = fo >= 0 ? tfile_read_fd(fo, NULL) : NULL;
    res->err = fe >= 0 ? tfile_read_fd(fe, NULL) : NULL;
    if (fo >= 0)
        close(fo);
    if (fe >= 0)
        close(fe);
    if (fi >= 0)
        close(fi);
    if (res->out == NULL)
        res->out = calloc(1, 1);
    if (res->err == NULL)
        res->err = calloc(1, 1);
    return res->rc;
}

#define PLAY(res, input, lessons, ...)                                                            \
    do {                                                                                         \
        const char *play_args_[] = {__VA_ARGS__, NULL};                                          \
        run_env(&(res), (input), (lessons), play_args_);                                         \
    } while (0)

static const char *fixture(const char *name) {
    return tcli_path(fixtures, name);
}

// Occurrences of needle in hay.
static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

// A copy of the lesson at src in the scratch directory, named out, with
// `from` replaced by `to` (once); its path, and in *line the 1-based line
// where `to` is.
static const char *variant(const char *src, const char *out, const char *from, const char *to,
                           int *line) {
    size_t len;
    char *text = tfile_read(src, &len);
    if (text == NULL)
        return NULL;
    char *at = strstr(text, from);
    if (at == NULL) {
        free(text);
        return NULL;
    }
    size_t pre = (size_t)(at - text), fl = strlen(from), tl = strlen(to);
    char *v = malloc(len - fl + tl + 1);
    memcpy(v, text, pre);
    memcpy(v + pre, to, tl);
    memcpy(v + pre + tl, at + fl, len - pre - fl + 1);
    if (line) {
        *line = 1;
        for (size_t i = 0; i < pre; i++)
            *line += text[i] == '\n';
    }
    const char *path = tcli_path(scratch, out);
    int rc = tfile_write(path, v, strlen(v));
    free(v);
    free(text);
    return rc == 0 ? path : NULL;
}

// The line of the fence that opens the block containing the line `line`.
static int fence_before(const char *path, int line) {
    char *text = tfile_read(path, NULL);
    int fence = 0, l = 1;
    for (const char *p = text; p && *p && l <= line; l++) {
        if (strncmp(p, "```", 3) == 0 && p[3] != '\n')
            fence = l;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    free(text);
    return fence;
}

static int test_fixtures_pass(void) {
    static const char *const names[] = {"play-ddp.md", "play-plan.md", "play-grade.md",
                                        "play-tmux.md", "play-hang.md"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        TcliResult r;
        PLAY(r, NULL, NULL, "lesson", fixture(names[i]), "--non-interactive", "--viz", "text");
        if (r.rc != 0)
            fprintf(stderr, "%s:\n%s\n", names[i], r.err);
        CHECK_EQ_INT(r.rc, 0);
        CHECK_STR_CONTAINS(r.out, "End of the lesson");
        if (strcmp(names[i], "play-ddp.md") == 0) {
            CHECK_STR_CONTAINS(r.out, "$ ddplab run --strategy ddp -n 2 --steps 3");
            CHECK_STR_CONTAINS(r.out, "-- pause at bucket-launch:0 (event ");
            CHECK_STR_CONTAINS(r.out, "-- pause at i2 (event ");
            // the frame: rank boxes, the caption as the lesson's text
            CHECK_STR_CONTAINS(r.out, "rank 1");
            CHECK_STR_CONTAINS(r.out, "The first bucket launches.");
            CHECK_STR_CONTAINS(r.out, "-> exit 0; 3 iterations");
            CHECK_STR_CONTAINS(r.out, "Right: 3");
            CHECK_STR_CONTAINS(r.out, "Right: 10");
            CHECK_STR_CONTAINS(r.out, "Right: b) Broadcast");
            CHECK_STR_CONTAINS(r.out, "Right: DistributedDataParallel");
            CHECK_STR_CONTAINS(r.out, "6 of 6 questions answered right");
            // the narrative is printed once: text frames carry only the captions
            CHECK_EQ_INT(count(r.out, "A DDP run of two ranks"), 1);
            CHECK_EQ_INT(count(r.out, "Iteration 2 uses the rebuilt plan."), 1);
        }
        if (strcmp(names[i], "play-hang.md") == 0) {
            CHECK_STR_CONTAINS(r.out, "-> exit 3");
            CHECK_STR_CONTAINS(r.out, "watchdog");
        }
        tcli_result_free(&r);
    }
    return 0;
}

static int test_wrong_answer(void) {
    int line;
    const char *path = variant(fixture("play-ddp.md"), "wrong.md", "answer: 3", "answer: 4", &line);
    CHECK(path != NULL);
    TcliResult r;
    PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
    CHECK_EQ_INT(r.rc, 1);
    char want[1024];
    snprintf(want, sizeof want,
             "%s:%d: the recorded answer is 4 but the run computed 3 (fact buckets)", path,
             fence_before(path, line));
    CHECK_STR_CONTAINS(r.err, want);
    CHECK_STR_CONTAINS(r.err, "1 check failed");
    // the learner is graded against the fact, so the transcript says 3
    CHECK_STR_CONTAINS(r.out, "Not quite. The answer: 3");
    tcli_result_free(&r);

    // an out: fact of a plan, out of its tolerance
    path = variant(fixture("play-plan.md"), "wrong-plan.md", "answer: 3.02", "answer: 3.5", &line);
    CHECK(path != NULL);
    PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
    CHECK_EQ_INT(r.rc, 1);
    snprintf(want, sizeof want,
             "%s:%d: the recorded answer is 3.5 but the run computed 3.02 (fact out:fits: peak "
             "([0-9.]+) GB)", path, fence_before(path, line));
    CHECK_STR_CONTAINS(r.err, want);
    tcli_result_free(&r);

    // a fact that varies from machine to machine: a note with both numbers
    path = variant(fixture("play-ddp.md"), "wrong-varies.md", "answer: 3",
                   "answer: 4\nvaries: the moon", &line);
    CHECK(path != NULL);
    PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
    CHECK_EQ_INT(r.rc, 0);
    snprintf(want, sizeof want,
             "%s:%d: note: the recorded answer is 4, this machine computed 3 (it varies with "
             "the moon)", path, fence_before(path, line));
    CHECK_STR_CONTAINS(r.err, want);
    CHECK(strstr(r.err, "check failed") == NULL);
    tcli_result_free(&r);
    return 0;
}

static int test_expect_exit(void) {
    // the hang without `expect exit 3`: the block's output ends the message
    int line;
    const char *path = variant(fixture("play-hang.md"), "hang.md", "expect exit 3\n", "", &line);
    CHECK(path != NULL);
    TcliResult r;
    PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
    CHECK_EQ_INT(r.rc, 1);
    char want[1024];
    snprintf(want, sizeof want, "%s:%d: `ddplab run --strategy ddp -n 2", path,
             fence_before(path, line - 1));
    CHECK_STR_CONTAINS(r.err, want);
    CHECK_STR_CONTAINS(r.err, "ended with exit 3, but the lesson expects 0; the last lines");
    CHECK_STR_CONTAINS(r.err, "  | ddplab run: ");
    CHECK_STR_CONTAINS(r.err, "watchdog timeout");
    tcli_result_free(&r);

    // a plan that fits, said not to
    path = variant(fixture("play-plan.md"), "fits.md", "plan -m gpt2 -n 8 --strategy ddp\n",
                   "plan -m gpt2 -n 8 --strategy ddp\nexpect exit 1\n", &line);
    CHECK(path != NULL);
    PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
    CHECK_EQ_INT(r.rc, 1);
    CHECK_STR_CONTAINS(r.err, "ended with exit 0, but the lesson expects 1");
    tcli_result_free(&r);
    return 0;
}

static int test_bad_pause(void) {
    const char *path = variant(fixture("play-tmux.md"), "pause.md", "pause bucket-launch:0",
                               "pause bucket-launch:99", NULL);
    CHECK(path != NULL);
    TcliResult r;
    PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
    CHECK_EQ_INT(r.rc, 1);
    CHECK_STR_CONTAINS(r.err, "pause: --at bucket-launch:99: the trace has no such event");
    tcli_result_free(&r);

    // a pause in a run that left no trace (it refused its options)
    path = variant(fixture("play-tmux.md"), "pause2.md", "pause bucket-launch:0",
                   "expect exit 2\npause bucket-launch:0", NULL);
    CHECK(path != NULL);
    path = variant(path, "pause3.md", "--steps 2", "--steps 2 --frobnicate", NULL);
    CHECK(path != NULL);
    PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
    CHECK_EQ_INT(r.rc, 1);
    CHECK_STR_CONTAINS(r.out, "'--frobnicate' is not an option");
    CHECK_STR_CONTAINS(r.err, "pause bucket-launch:0: the command left no trace to pause in "
                              "(exit 2)");
    CHECK_STR_CONTAINS(r.err, "check iterations: iterations: the command left no trace");
    tcli_result_free(&r);
    return 0;
}

static int test_grading(void) {
    TcliResult r;
    // right: exact, within 50% of 2, the letter in upper case, an accepted word
    PLAY(r, "2\n2.9\nC\ndistributeddataparallel\n", NULL, "lesson", fixture("play-grade.md"),
         "--viz", "text");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(count(r.out, "Right: "), 4);
    CHECK_STR_CONTAINS(r.out, "Right: 2 (within 50%)");
    CHECK_STR_CONTAINS(r.out, "Right: c) this one");
    CHECK_STR_CONTAINS(r.out, "4 of 4 questions answered right");
    tcli_result_free(&r);

    // wrong: another number, outside the tolerance, not a letter (asked
    // again), a wrong letter, a wrong word
    PLAY(r, "3\n3.2\nx\na\nfsdp\n", NULL, "lesson", fixture("play-grade.md"));
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(count(r.out, "Not quite. The answer: "), 4);
    CHECK_STR_CONTAINS(r.out, "Not quite. The answer: 2\n");
    CHECK_STR_CONTAINS(r.out, "'x' is not a letter.");
    CHECK_STR_CONTAINS(r.out, "Not quite. The answer: ddp");
    CHECK_STR_CONTAINS(r.out, "It says so.");
    CHECK_STR_CONTAINS(r.out, "0 of 4 questions answered right");
    tcli_result_free(&r);

    // empty lines skip; the end of the input skips the rest
    PLAY(r, "\n1.5\n", NULL, "lesson", fixture("play-grade.md"));
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(count(r.out, "Skipped. The answer: "), 3);
    CHECK_STR_CONTAINS(r.out, "Right: 2 (within 50%)");
    CHECK_STR_CONTAINS(r.out, "1 of 4 questions answered right");
    tcli_result_free(&r);

    // a number question that gets no number is asked again
    PLAY(r, "two\n2\n", NULL, "lesson", fixture("play-grade.md"));
    CHECK_STR_CONTAINS(r.out, "'two' is not a number.");
    CHECK_STR_CONTAINS(r.out, "Right: 2\n");
    tcli_result_free(&r);
    return 0;
}

static int test_progress(void) {
    char path[700];
    snprintf(path, sizeof path, "%s/ddplab/progress.json", state);
    unlink(path);
    TcliResult r;
    // --non-interactive (tests, read-throughs) records nothing
    PLAY(r, NULL, NULL, "lesson", fixture("play-grade.md"), "--non-interactive");
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    CHECK(!tfile_exists(path));
    PLAY(r, "2\n2.9\nC\nddp\n", NULL, "lesson", fixture("play-grade.md"));
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    char *json = tfile_read(path, NULL);
    CHECK(json != NULL);
    CHECK_STR_CONTAINS(json, "\"play-grade\"");
    CHECK_STR_CONTAINS(json, "\"completed\":\ttrue");
    CHECK_STR_CONTAINS(json, "\"right\":\t4");
    CHECK_STR_CONTAINS(json, "\"asked\":\t4");
    // the time it was played, in UTC
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char year[16];
    strftime(year, sizeof year, "\"%Y-", &tm);
    CHECK_STR_CONTAINS(json, year);
    free(json);

    // a second play replaces the score; the menu shows it
    PLAY(r, "1\n9\na\nx\n", NULL, "lesson", fixture("play-grade.md"));
    tcli_result_free(&r);
    PLAY(r, NULL, fixtures, "lesson");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "[x] play-grade  beginner       1 min   0/4  Answers graded");
    CHECK_STR_CONTAINS(r.out, "[ ] play-ddp ");
    tcli_result_free(&r);

    // a corrupt file is reported and replaced
    CHECK(tfile_write(path, "{not json", 9) == 0);
    PLAY(r, "2\n\n\n\n", NULL, "lesson", fixture("play-grade.md"));
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.err, "not a ddplab progress file");
    tcli_result_free(&r);
    json = tfile_read(path, NULL);
    CHECK(json != NULL);
    CHECK_STR_CONTAINS(json, "\"right\":\t1");
    free(json);
    return 0;
}

static int test_menu(void) {
    TcliResult r;
    // `ddplab` alone: the menu (stdin is no terminal: the list, and how to start)
    PLAY(r, NULL, fixtures, NULL);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "ddplab lessons (");
    CHECK_STR_CONTAINS(r.out, "/index.md)");
    CHECK_STR_CONTAINS(r.out, "\nLessons\n    1  [");
    CHECK_STR_CONTAINS(r.out, "] play-ddp    beginner       1 min        Facts of a DDP run");
    CHECK_STR_CONTAINS(r.out, "\nSpot the bug\n    5  [");
    CHECK_STR_CONTAINS(r.out, "] play-hang   intermediate   1 min        A hang, diagnosed");
    CHECK_STR_CONTAINS(r.out, "Start one with: ddplab lesson ID (or its number), e.g. ddplab "
                              "lesson play-ddp");
    CHECK_EQ_INT(strlen(r.err), 0);
    tcli_result_free(&r);

    // --list and --lessons DIR; a lesson by its number
    PLAY(r, NULL, NULL, "lesson", "--list", "--lessons", fixtures);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "    4  [");
    tcli_result_free(&r);
    PLAY(r, NULL, NULL, "lesson", "3", "--lessons", fixtures, "--non-interactive");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "[lesson play-grade: beginner");
    tcli_result_free(&r);
    PLAY(r, NULL, fixtures, "lesson", "play-hang", "--non-interactive");
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);

    // without an index: the lesson files by name, by track; a broken one marked
    char dir[700];
    snprintf(dir, sizeof dir, "%s/noindex", scratch);
    CHECK(mkdir(dir, 0700) == 0);
    const char *names[] = {"play-hang.md", "play-tmux.md"};
    for (int i = 0; i < 2; i++) {
        char *t = tfile_read(fixture(names[i]), NULL);
        CHECK(t != NULL);
        CHECK(tfile_write(tcli_path(dir, names[i]), t, strlen(t)) == 0);
        free(t);
    }
    const char *bad = "---\nid: broken\ntitle: x\n---\n";
    CHECK(tfile_write(tcli_path(dir, "a-broken.md"), bad, strlen(bad)) == 0);
    const char *notes = "# Notes\n\nnot a lesson\n";
    CHECK(tfile_write(tcli_path(dir, "README.md"), notes, strlen(notes)) == 0);
    PLAY(r, NULL, dir, "lesson");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "\nLessons\n    1  [!] ");
    CHECK_STR_CONTAINS(r.out, "a-broken.md:");
    CHECK_STR_CONTAINS(r.out, "    2  [");
    CHECK_STR_CONTAINS(r.out, "] play-tmux ");
    CHECK_STR_CONTAINS(r.out, "\nSpot the bug\n    3  [");
    CHECK(strstr(r.out, "Notes") == NULL);
    tcli_result_free(&r);
    PLAY(r, NULL, dir, "lesson", "a-broken");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "a-broken.md:");
    tcli_result_free(&r);
    tfile_rmtree(dir);
    return 0;
}

static int test_bad_input(void) {
    TcliResult r;
    PLAY(r, NULL, fixtures, "lesson", "no-such-lesson");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "no lesson 'no-such-lesson' in ");
    tcli_result_free(&r);

    PLAY(r, NULL, fixtures, "lesson", "99");
    CHECK_EQ_INT(r.rc, 2);
    tcli_result_free(&r);

    // a malformed file: the parser's FILE:LINE message
    const char *path =
        variant(fixture("play-grade.md"), "malformed.md", "type: choice", "type: colour", NULL);
    CHECK(path != NULL);
    PLAY(r, NULL, NULL, "lesson", path);
    CHECK_EQ_INT(r.rc, 2);
    char want[700];
    snprintf(want, sizeof want, "ddplab lesson: %s:", path);
    CHECK_STR_CONTAINS(r.err, want);
    tcli_result_free(&r);

    PLAY(r, NULL, NULL, "lesson", tcli_path(scratch, "missing.md"));
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "missing.md");
    tcli_result_free(&r);

    static const char *const cases[][4] = {
        {"--frobnicate", NULL, NULL, "unknown option '--frobnicate'"},
        {"--viz", "colour", NULL, "--viz: 'colour' is not a view"},
        {"--viz", NULL, NULL, "--viz needs a value"},
        {"--non-interactive", "--viz=ncurses", NULL, "--non-interactive shows pauses as text"},
        {"--backend", "nosuch", NULL, "--backend: 'nosuch' is not in this build"},
        {"a", "b", NULL, "one lesson at a time"},
        {"--lessons", "/nonexistent-dir", NULL, "/nonexistent-dir"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"lesson", cases[i][0], cases[i][1], NULL};
        run_env(&r, NULL, NULL, args);
        if (r.rc != 2 || strstr(r.err, cases[i][3]) == NULL)
            fprintf(stderr, "case %zu: rc %d: %s\n", i, r.rc, r.err);
        CHECK_EQ_INT(r.rc, 2);
        CHECK_STR_CONTAINS(r.err, cases[i][3]);
        tcli_result_free(&r);
    }

    PLAY(r, NULL, NULL, "lesson", "--help");
    CHECK_EQ_INT(r.rc, 0);
    static const char *const help[] = {"usage: ddplab lesson [NAME|FILE]", "--viz text|ncurses|sdl",
                                       "--non-interactive", "--backend NAME", "--list",
                                       "--lessons DIR", "exit codes:", "1  a check failed",
                                       "2  bad input", "progress.json"};
    for (size_t i = 0; i < sizeof help / sizeof help[0]; i++)
        CHECK_STR_CONTAINS(r.out, help[i]);
    tcli_result_free(&r);
    return 0;
}

// A lesson that names a file outside its scratch directory (in any block,
// for reading or writing) is refused when it is loaded: one line with the
// lesson's FILE:LINE, exit 2, nothing run (no scratch directory made, an
// earlier block not run), the file outside untouched and nothing new
// beside the scratch directory.
static int test_confine(void) {
    char tmp[700], bad_dir[700];
    snprintf(tmp, sizeof tmp, "%s/tmp", scratch);
    snprintf(bad_dir, sizeof bad_dir, "%s/bad-lessons", scratch);
    CHECK(mkdir(tmp, 0700) == 0);
    CHECK(mkdir(bad_dir, 0700) == 0);
    char target[700];
    snprintf(target, sizeof target, "%s/precious.txt", scratch);
    static const char precious[] = "the learner's own notes\n";
    CHECK(tfile_write(target, precious, strlen(precious)) == 0);
    struct stat before;
    CHECK(stat(target, &before) == 0);
    // each: the block's command ('%s' is the file outside) and the option
    static const char *const cases[][2] = {
        {"run --steps 1 --save %s", "--save"},
        {"run --steps 1 --metrics ../escaped.jsonl", "--metrics"},
        {"run --steps 1 --trace=../../escaped.ddptrace", "--trace"},
        {"run --steps 1 --init %s", "--init"},
        {"run --strategy ddp -n 2 --steps 1 --diagnosis %s", "--diagnosis"},
        {"run --steps 1 --png %s", "--png"},
        {"run --steps 1 -p../escaped.json", "--profile"},
        {"run --steps 1 --compare-with '--algo ring --save %s'", "--save"},
        {"plan --model gpt2 -n 8 --trace %s", "--trace"},
        {"bench -n 2 -e 1K --calibrate %s", "--calibrate"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[1024], text[2048];
        snprintf(cmd, sizeof cmd, cases[i][0], target);
        // a first block that would write a file, then the one that names
        // the file outside (its command on line 17)
        snprintf(text, sizeof text,
                 "---\nid: confine\ntitle: Confined\ndifficulty: beginner\nprerequisites:\n"
                 "minutes: 1\ntrack: lessons\n---\n\nText.\n\n"
                 "```ddplab\nrun --steps 1 --save first.st\n```\n\n"
                 "```ddplab\n%s\n```\n",
                 cmd);
        const char *path = tcli_path(bad_dir, "confine.md");
        CHECK(tfile_write(path, text, strlen(text)) == 0);
        TcliResult r;
        tmpdir = tmp;
        PLAY(r, NULL, NULL, "lesson", path, "--non-interactive");
        tmpdir = NULL;
        char want[1024];
        snprintf(want, sizeof want, "ddplab lesson: %s:17: %s: '", path, cases[i][1]);
        if (r.rc != 2 || strstr(r.err, want) == NULL)
            fprintf(stderr, "case %zu (%s): rc %d\n%s%s", i, cmd, r.rc, r.out, r.err);
        CHECK_EQ_INT(r.rc, 2);
        CHECK(r.rc < 128);
        CHECK_EQ_INT(tcli_lines(r.err), 1);
        CHECK_STR_CONTAINS(r.err, want);
        CHECK_STR_CONTAINS(r.err, "outside the scratch directory");
        CHECK_EQ_INT((int)strlen(r.out), 0);
        tcli_result_free(&r);
        // the file outside is as it was, and nothing was made
        size_t len = 0;
        char *now = tfile_read(target, &len);
        CHECK(now != NULL && len == strlen(precious) && memcmp(now, precious, len) == 0);
        free(now);
        struct stat after;
        CHECK(stat(target, &after) == 0);
        CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec && after.st_ino == before.st_ino);
        CHECK_EQ_INT(tfile_dir_entries(tmp), 0);
        CHECK(!tfile_exists(tcli_path(scratch, "escaped.ddptrace")));
        CHECK(!tfile_exists(tcli_path(scratch, "escaped.json")));
    }
    // the menu lists such a lesson with its message, as one that does not parse
    TcliResult r;
    PLAY(r, NULL, bad_dir, "lesson", "--list");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "[!] ");
    CHECK_STR_CONTAINS(r.out, "outside the scratch directory");
    tcli_result_free(&r);
    tfile_rmtree(bad_dir);
    tfile_rmtree(tmp);
    unlink(target);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PATH/TO/ddplab FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    fixtures = argv[2];
    if (tfile_mkdtemp(scratch, sizeof scratch, "cli-lesson") != 0)
        return 1;
    snprintf(state, sizeof state, "%s/state", scratch);
    int failures = 0;
    RUN(test_fixtures_pass);
    RUN(test_wrong_answer);
    RUN(test_expect_exit);
    RUN(test_bad_pause);
    RUN(test_grading);
    RUN(test_progress);
    RUN(test_menu);
    RUN(test_bad_input);
    RUN(test_confine);
    // the state directory holds ddplab/progress.json
    char sub[700];
    snprintf(sub, sizeof sub, "%s/ddplab", state);
    tfile_rmtree(sub);
    tfile_rmtree(state);
    tfile_rmtree(scratch);
    return failures ? 1 : 0;
}
