// tests/test_cli_run.c: running the `ddplab` program from a test (see
// test_cli_run.h). Output goes to temporary files rather than pipes, so a
// chatty child can never block on a full pipe while the test waits for it.
#include "test_cli_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp_fd(int fd) {
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        return NULL;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        if (len + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL)
                break;
            buf = nb, cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return buf;
}

static int temp_fd(void) {
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/ddplab-cli-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path); // the descriptor keeps it alive; nothing is left behind
    return fd;
}

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
    int fo = temp_fd(), fe = temp_fd();
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
    res->out = fo >= 0 ? slurp_fd(fo) : NULL;
    res->err = fe >= 0 ? slurp_fd(fe) : NULL;
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

int tcli_lines(const char *s) {
    int n = 0;
    for (const char *p = s; p && *p; p++)
        n += *p == '\n' || p[1] == '\0';
    return n;
}

char *tcli_read_file(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    char *s = slurp_fd(fd);
    close(fd);
    return s;
}

int tcli_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

int tcli_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

int tcli_dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

int tcli_mkdtemp(char *buf, size_t len, const char *tag) {
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/ddplab-%s-XXXXXX", dir && dir[0] ? dir : "/tmp", tag);
    return mkdtemp(buf) ? 0 : -1;
}

void tcli_rmtree(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    char path[4096];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

int tcli_quick(void) {
    const char *q = getenv("DDPLAB_TEST_QUICK");
    return q && strcmp(q, "1") == 0;
}
