// tests/test_files.c: file chores shared by the tests (see test_files.h).
// Files are read through descriptors so that the same code reads a named
// file and a child process's captured output.
#include "test_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tfile_read_fd(int fd, size_t *len) {
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL || lseek(fd, 0, SEEK_SET) < 0) {
        free(buf);
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) { // keep room for the closing NUL
            char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                free(buf);
                return NULL;
            }
            buf = bigger, cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}

char *tfile_read(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    char *text = tfile_read_fd(fd, len);
    close(fd);
    return text;
}

int tfile_write(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t put = fwrite(data, 1, len, f);
    return fclose(f) == 0 && put == len ? 0 : -1;
}

int tfile_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

int tfile_dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

// The directory that holds scratch files.
static const char *scratch_root(void) {
    const char *dir = getenv("TMPDIR");
    return dir != NULL && dir[0] != '\0' ? dir : "/tmp";
}

int tfile_mkdtemp(char *buf, size_t len, const char *tag) {
    int n = snprintf(buf, len, "%s/ddplab-%s-XXXXXX", scratch_root(), tag);
    if (n < 0 || (size_t)n >= len)
        return -1;
    return mkdtemp(buf) != NULL ? 0 : -1;
}

int tfile_temp_fd(const char *tag) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/ddplab-%s-XXXXXX", scratch_root(), tag);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path); // the descriptor keeps the file alive
    return fd;
}

void tfile_rmtree(const char *dir) {
    DIR *d = opendir(dir);
    if (d != NULL) {
        char path[4096];
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (unlink(path) != 0)
                rmdir(path); // an empty directory a failed test left behind
        }
        closedir(d);
    }
    rmdir(dir);
}
