// tests/test_cli_run.c: running the `ddplab` program from a test (see
// test_cli_run.h). Output goes to temporary files rather than pipes, so a
// chatty child can never block on a full pipe while the test waits for it.
#include "test_cli_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int wait_with_timeout(pid_t pid, double timeout_s) {
    struct timespec nap = {0, 5 * 1000 * 1000};
    double start = now_s();
    int status = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR)
            return -1;
        if (now_s() - start > timeout_s) {
            fprintf(stderr, "tcli_run: killing the child after %.0f s\n", timeout_s);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        nanosleep(&nap, NULL);
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

int tcli_run(TcliResult *res, const char *exe, const char *const *args, double timeout_s) {
    const char *argv[64];
    int n = 0;
    argv[n++] = exe;
    for (; args && *args && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    memset(res, 0, sizeof *res);
    res->rc = -1;
    int fo = tfile_temp_fd("cli"), fe = tfile_temp_fd("cli");
    if (fo < 0 || fe < 0) {
        perror("tcli_run: temporary file");
        goto done;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("tcli_run: fork");
        goto done;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(exe, (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    res->rc = wait_with_timeout(pid, timeout_s);
done:
    res->out = fo >= 0 ? tfile_read_fd(fo, NULL) : NULL;
    res->err = fe >= 0 ? tfile_read_fd(fe, NULL) : NULL;
    if (fo >= 0)
        close(fo);
    if (fe >= 0)
        close(fe);
    if (res->out == NULL)
        res->out = calloc(1, 1);
    if (res->err == NULL)
        res->err = calloc(1, 1);
    return res->rc;
}

void tcli_result_free(TcliResult *res) {
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}

int tcli_run_cmd(const char *exe, const char *const *a, const char *const *more,
                 double timeout_s) {
    const char *argv[64];
    int n = 0;
    argv[n++] = "run";
    for (; a && *a && n < 40; a++)
        argv[n++] = *a;
    for (; more && *more && n < 62; more++)
        argv[n++] = *more;
    argv[n] = NULL;
    TcliResult r;
    tcli_run(&r, exe, argv, timeout_s);
    if (r.rc != 0)
        fprintf(stderr, "ddplab run failed (%d): %s\n", r.rc, r.err);
    int rc = r.rc;
    tcli_result_free(&r);
    return rc;
}

const char *tcli_path(const char *dir, const char *name) {
    static char paths[8][600];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

int tcli_lines(const char *s) {
    int n = 0;
    for (const char *p = s; p && *p; p++)
        n += *p == '\n' || p[1] == '\0';
    return n;
}

const char *tcli_exe_arg(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH/TO/ddplab\n", argc > 0 ? argv[0] : "test");
        return NULL;
    }
    return argv[1];
}

void tcli_show(const char *what, const TcliResult *r) {
    fprintf(stderr, "%s: rc %d\n  stdout: %.3000s\n  stderr: %.1500s\n", what, r->rc,
            r->out ? r->out : "", r->err ? r->err : "");
}

int tcli_refused(const TcliResult *r, const char *prefix, const char *want) {
    if (r->rc != 2)
        tcli_show("expected exit 2", r);
    CHECK_EQ_INT(r->rc, 2);
    CHECK(strncmp(r->err, prefix, strlen(prefix)) == 0);
    CHECK_EQ_INT(tcli_lines(r->err), 1);
    CHECK_STR_CONTAINS(r->err, want);
    CHECK(r->out == NULL || r->out[0] == '\0');
    return 0;
}

const char *tcli_begin(int argc, char **argv, char *dir, size_t len, const char *tag) {
    const char *exe = tcli_exe_arg(argc, argv);
    if (exe != NULL && tfile_mkdtemp(dir, len, tag) != 0) {
        fprintf(stderr, "cannot make a scratch directory for %s\n", tag);
        return NULL;
    }
    return exe;
}

int tcli_field(const TcliResult *r, const char *key, char *out, size_t n) {
    const char *p = r->out ? strstr(r->out, key) : NULL;
    if (p == NULL && r->err)
        p = strstr(r->err, key);
    out[0] = '\0';
    if (p == NULL)
        return -1;
    p += strlen(key);
    snprintf(out, n, "%.*s", (int)strcspn(p, "\n ;|"), p);
    return 0;
}
