// fuzz/fuzz_util.c: see fuzz_util.h.
#include "fuzz_util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The scratch directory and its files, made on first use.
static char temp_dir[512];
static char temp_path[FUZZ_TEMP_FILES][600];
static int accepted = -1;

// The sanitizers' hook run before a report ends the process (declared weak:
// absent in builds without them), so that a finding leaves no scratch files.
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void remove_temp(void) {
    for (int k = 0; k < FUZZ_TEMP_FILES; k++)
        if (temp_path[k][0])
            unlink(temp_path[k]);
    if (temp_dir[0])
        rmdir(temp_dir);
}

const char *fuzz_temp_file(int k, const uint8_t *data, size_t size) {
    if (k < 0 || k >= FUZZ_TEMP_FILES)
        return NULL;
    if (temp_dir[0] == '\0') {
        // Memory-backed /dev/shm when there is one: on a disk the metadata
        // of rewriting a file costs milliseconds, 50 times the input's run.
        const char *tmp = getenv("TMPDIR");
        if (access("/dev/shm", W_OK) == 0)
            tmp = "/dev/shm";
        snprintf(temp_dir, sizeof temp_dir, "%s/ddplab-fuzz-XXXXXX",
                 tmp && tmp[0] ? tmp : "/tmp");
        if (mkdtemp(temp_dir) == NULL) {
            perror("fuzz: mkdtemp");
            temp_dir[0] = '\0';
            return NULL;
        }
        for (int i = 0; i < FUZZ_TEMP_FILES; i++)
            snprintf(temp_path[i], sizeof temp_path[i], "%s/input%d", temp_dir, i);
        atexit(remove_temp);
        if (__sanitizer_set_death_callback != NULL)
            __sanitizer_set_death_callback(remove_temp);
    }
    int fd = open(temp_path[k], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        perror("fuzz: open");
        return NULL;
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            perror("fuzz: write");
            close(fd);
            return NULL;
        }
        done += (size_t)n;
    }
    close(fd);
    return temp_path[k];
}

char *fuzz_strndup(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (s != NULL) {
        if (size > 0)
            memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

FILE *fuzz_devnull(void) {
    static FILE *null;
    if (null == NULL)
        null = fopen("/dev/null", "w");
    return null;
}

void fuzz_set_accepted(int a) { accepted = a; }

int fuzz_accepted(void) { return accepted; }
