// fuzz/fuzz_replay.c: a main() for the fuzz targets in builds without
// libFuzzer: feeds every file named on the command line (directories: every
// file in them, in name order) to LLVMFuzzerTestOneInput once, so the seed
// corpora and the inputs that once crashed a target run as regression tests
// in every build (ASan and TSan included; tests/fuzz.cmake).
//
// A file whose name starts with "ok-" must be accepted by the target and
// one starting with "bad-" rejected (fuzz_accepted); others only must not
// crash. Exit status 0 when every file passed and there was at least one.
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

#define REPLAY_MAX_BYTES (16 << 20) // seeds are small; a bigger file is a mistake

static int failures, files;

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_file(const char *path) {
    // the exact size, so that a read past the input is caught by ASan
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *in = NULL;
    size_t n = 0;
    int ok = f != NULL && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
             st.st_size <= REPLAY_MAX_BYTES;
    if (ok) {
        n = (size_t)st.st_size;
        in = malloc(n ? n : 1);
        ok = in != NULL && fread(in, 1, n, f) == n;
    }
    if (f != NULL)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "FAIL %s: cannot read it (or over %d bytes)\n", path, REPLAY_MAX_BYTES);
        failures++;
        free(in);
        return;
    }
    fuzz_set_accepted(-1);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    files++;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int want = strncmp(base, "ok-", 3) == 0 ? 1 : strncmp(base, "bad-", 4) == 0 ? 0 : -1;
    if (want >= 0 && fuzz_accepted() != want) {
        fprintf(stderr, "FAIL %s: %s, expected %s\n", path,
                fuzz_accepted() == 1 ? "accepted" : "rejected",
                want ? "accepted (ok-)" : "rejected (bad-)");
        failures++;
    }
}

static void replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "FAIL %s: cannot open the directory\n", dir);
        failures++;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (grown == NULL)
                break;
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len)) != NULL)
            snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        replay_file(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            replay_dir(argv[i]);
        else
            replay_file(argv[i]);
    }
    printf("%d input%s replayed, %d failed\n", files, files == 1 ? "" : "s", failures);
    return failures == 0 && files > 0 ? 0 : 1;
}
