// cli/lesson/lesson_run.c: one ```ddplab block run in this process. The command is
// called the way main() would call it, with stdout and stderr pointed at a
// file for the time of the call (what it printed is the block's output,
// which out:REGEX facts search) and the working directory in the session's
// scratch directory (so files a lesson's commands write, checkpoints or
// charts, stay there and one block can read what an earlier one wrote).
#include "lesson/lesson_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"           // defines: bench_main
#include "core/cli.h"              // defines: CLI_EXIT_*
#include "lesson/lesson_confine.h" // defines: lesson_confine_run
#include "plan/plan.h"             // defines: plan_main
#include "report/report.h"         // defines: report_main
#include "run/run.h"               // defines: run_main

int lesson_session_open(LessonSession *s, const char *backend, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->backend = backend;
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || *tmp == '\0')
        tmp = "/tmp";
    size_t n = strlen(tmp) + sizeof "/ddplab-lesson-XXXXXX";
    s->dir = malloc(n);
    if (s->dir == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(s->dir, n, "%s/ddplab-lesson-XXXXXX", tmp);
    if (mkdtemp(s->dir) == NULL) {
        snprintf(err, errlen, "cannot create a scratch directory in %s: %s", tmp,
                 strerror(errno));
        free(s->dir);
        s->dir = NULL;
        return -1;
    }
    return 0;
}

// Removes path and, when it is a directory, everything under it (symbolic
// links are removed, never followed).
static void remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d != NULL) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                size_t n = strlen(path) + strlen(e->d_name) + 2;
                char *sub = malloc(n);
                if (sub == NULL)
                    continue;
                snprintf(sub, n, "%s/%s", path, e->d_name);
                remove_tree(sub);
                free(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

void lesson_session_close(LessonSession *s) {
    if (s == NULL || s->dir == NULL)
        return;
    remove_tree(s->dir);
    free(s->dir);
    s->dir = NULL;
}

// 1 when the block keeps the cpu backend whatever --backend says: a phantom
// run computes nothing (shapes only; the cuda backend refuses it), an
// injected fault's diagnosis is the cpu backend's flight recorder, the
// parameter server (async-ps) is an event simulation of its own on the
// host, and a comparison's figures are the cpu reference's
// (--compare-backends names its own backends).
static int stays_on_cpu(const LessonRun *r) {
    for (int i = 1; i < r->argc; i++) {
        const char *a = r->argv[i], *next = i + 1 < r->argc ? r->argv[i + 1] : "";
        if (strcmp(a, "--phantom") == 0 || strcmp(a, "--fault") == 0 ||
            strncmp(a, "--fault=", 8) == 0 || strcmp(a, "--strategy=async-ps") == 0 ||
            (strcmp(a, "--strategy") == 0 && strcmp(next, "async-ps") == 0))
            return 1;
    }
    return lesson_run_compares(r);
}

int lesson_run_argv(const LessonSession *s, const LessonRun *r, const char *trace, int *argc,
                    char ***argv) {
    int traced = strcmp(r->argv[0], "run") == 0 || strcmp(r->argv[0], "bench") == 0;
    const char *backend = traced && !stays_on_cpu(r) ? s->backend : NULL;
    // A comparison runs twice and writes no trace (both runs would write the
    // one file); a block with its own --trace writes that one.
    if (lesson_run_compares(r) || lesson_run_own_trace(r) != NULL)
        traced = 0;
    int n = r->argc + (traced && trace ? 2 : 0) + (backend ? 2 : 0);
    char **av = malloc((size_t)(n + 1) * sizeof *av);
    if (av == NULL)
        return -1;
    int k = 0;
    for (int i = 0; i < r->argc; i++)
        av[k++] = r->argv[i];
    if (traced && trace) {
        av[k++] = "--trace";
        av[k++] = (char *)trace;
    }
    if (backend) {
        av[k++] = "--backend";
        av[k++] = (char *)backend;
    }
    av[k] = NULL;
    *argc = k;
    *argv = av;
    return 0;
}

// Reads the whole file at fd (from offset 0) into f->output.
static int read_output(int fd, LessonFacts *f) {
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0 || lseek(fd, 0, SEEK_SET) < 0)
        return -1;
    char *buf = malloc((size_t)end + 1);
    if (buf == NULL)
        return -1;
    size_t got = 0;
    while (got < (size_t)end) {
        ssize_t k = read(fd, buf + got, (size_t)end - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    buf[got] = '\0';
    f->output = buf;
    f->output_len = got;
    return 0;
}

// Calls the command with fd 1 and 2 on out_fd and the working directory in
// dir; both are put back before it returns. Returns its exit code, or -1
// (nothing was run) with err.
static int call_captured(int (*cmd)(int, char **), int argc, char **argv, int out_fd,
                         const char *dir, char *err, size_t errlen) {
    int cwd = open(".", O_RDONLY | O_DIRECTORY);
    if (cwd < 0) {
        snprintf(err, errlen, "cannot open the working directory: %s", strerror(errno));
        return -1;
    }
    if (chdir(dir) != 0) {
        snprintf(err, errlen, "cannot enter %s: %s", dir, strerror(errno));
        close(cwd);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    int rc = -1;
    if (saved_out < 0 || saved_err < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(out_fd, STDERR_FILENO) < 0) {
        snprintf(err, errlen, "cannot redirect the output: %s", strerror(errno));
    } else {
        rc = cmd(argc, argv);
        fflush(stdout);
        fflush(stderr);
    }
    if (saved_out >= 0) {
        dup2(saved_out, STDOUT_FILENO);
        close(saved_out);
    }
    if (saved_err >= 0) {
        dup2(saved_err, STDERR_FILENO);
        close(saved_err);
    }
    clearerr(stdout);
    clearerr(stderr);
    if (fchdir(cwd) != 0 && rc >= 0) {
        snprintf(err, errlen, "cannot return to the working directory: %s", strerror(errno));
        rc = -1;
    }
    close(cwd);
    return rc;
}

int lesson_run_block(LessonSession *s, const LessonRun *r, LessonFacts *f, char *err,
                     size_t errlen) {
    lesson_facts_free(f);
    int (*cmd)(int, char **) = NULL;
    if (r->argc < 1 || r->argv == NULL || r->argv[0] == NULL)
        cmd = NULL;
    else if (strcmp(r->argv[0], "run") == 0)
        cmd = run_main;
    else if (strcmp(r->argv[0], "plan") == 0)
        cmd = plan_main;
    else if (strcmp(r->argv[0], "bench") == 0)
        cmd = bench_main;
    else if (strcmp(r->argv[0], "report") == 0)
        cmd = report_main; // of a trace an earlier block wrote (run --trace FILE)
    if (cmd == NULL) {
        snprintf(err, errlen,
                 "'%s' is not a command a lesson runs; allowed: run, plan, bench, report",
                 r->argc > 0 && r->argv && r->argv[0] ? r->argv[0] : "");
        return -1;
    }
    // The players check the whole lesson when they load it (lesson_load); a
    // block handed here some other way is checked all the same, since what
    // it names is written or read with the learner's rights.
    if (lesson_confine_run("the lesson", r, err, errlen) != 0)
        return -1;
    int k = ++s->blocks;
    // a block with its own --trace FILE writes it in the scratch directory
    // (lesson_confine_run); the others, the player's blockK.ddptrace
    const char *own = lesson_run_own_trace(r);
    size_t n = strlen(s->dir) + 32, nt = n + (own ? strlen(own) : 0);
    char *trace = malloc(nt), *out = malloc(n);
    int argc, rc = -1, fd = -1, code;
    char **argv = NULL;
    if (trace == NULL || out == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (own != NULL)
        snprintf(trace, nt, "%s/%s", s->dir, own);
    else
        snprintf(trace, nt, "%s/block%d.ddptrace", s->dir, k);
    snprintf(out, n, "%s/block%d.out", s->dir, k);
    if (lesson_run_argv(s, r, trace, &argc, &argv) != 0) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        goto done;
    }
    code = call_captured(cmd, argc, argv, fd, s->dir, err, errlen);
    if (code < 0)
        goto done;
    f->exit_code = code;
    if (read_output(fd, f) != 0) {
        snprintf(err, errlen, "cannot read back what the command printed (%s)", out);
        goto done;
    }
    if (lesson_run_trace_readable(r) && access(trace, F_OK) == 0 &&
        lesson_facts_load_trace(f, trace, err, errlen) != 0)
        goto done;
    rc = 0;
done:
    if (fd >= 0)
        close(fd);
    free(argv);
    free(trace);
    free(out);
    return rc;
}
