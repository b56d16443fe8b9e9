// tests/torch_ref.c: see torch_ref.h.
#include "torch_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_files.h"

#ifndef DDPLAB_TEST_DIR
#error "DDPLAB_TEST_DIR must name the tests/ source directory"
#endif

const char *torchref_python(void) {
    const char *p = getenv("DDPLAB_PYTHON");
    return p && p[0] ? p : "/usr/bin/python3";
}

static int run_argv(char *const *argv) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setenv("OMP_NUM_THREADS", "1", 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int torchref_available(void) {
    char *argv[] = {(char *)torchref_python(), "-c", "import torch, numpy", NULL};
    if (access(argv[0], X_OK) != 0) {
        fprintf(stderr, "SKIP: %s not found (scripts/setup.sh installs python3-torch)\n", argv[0]);
        return 0;
    }
    if (run_argv(argv) != 0) {
        fprintf(stderr, "SKIP: %s cannot import torch (scripts/setup.sh installs python3-torch)\n",
                argv[0]);
        return 0;
    }
    return 1;
}

int torchref_run(const char *script, const char *const *args) {
    char path[4096];
    snprintf(path, sizeof path, "%s/conformance/%s", DDPLAB_TEST_DIR, script);
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)torchref_python();
    argv[n++] = path;
    for (int i = 0; args && args[i] && n < 63; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    return run_argv(argv);
}

int torchref_tmpdir(char *out, size_t len) {
    return tfile_mkdtemp(out, len, "torch");
}

void torchref_rmdir(const char *dir) {
    tfile_rmtree(dir);
}

int torchref_write(const char *dir, const char *name, const void *data, size_t bytes) {
    char p[4352];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return -1;
    size_t w = bytes ? fwrite(data, 1, bytes, f) : 0;
    return (fclose(f) == 0 && w == bytes) ? 0 : -1;
}

int torchref_read(const char *dir, const char *name, void *data, size_t bytes) {
    char p[4352];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    if (!f)
        return -1;
    size_t r = bytes ? fread(data, 1, bytes, f) : 0;
    int extra = fgetc(f) != EOF;
    fclose(f);
    return (r == bytes && !extra) ? 0 : -1;
}

double torchref_max_rel(const float *a, const float *b, size_t n, double floor, size_t *worst) {
    double m = 0;
    size_t wi = 0;
    for (size_t i = 0; i < n; i++) {
        double den = fabs((double)b[i]) > floor ? fabs((double)b[i]) : floor;
        double r = fabs((double)a[i] - (double)b[i]) / den;
        if (!(r <= m)) { // also catches NaN
            m = isnan(r) ? INFINITY : r;
            wi = i;
        }
    }
    if (worst)
        *worst = wi;
    return m;
}
