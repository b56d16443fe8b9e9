// tests/test_cli_run.h: helpers for the tests that run the built `ddplab`
// program as a user would: run it with arguments, capture its exit code,
// stdout and stderr, and look at the files it leaves.
#ifndef DDPLAB_TESTS_CLI_RUN_H
#define DDPLAB_TESTS_CLI_RUN_H

#include <stddef.h>

typedef struct {
    int rc;     // exit status; 128 + signal if killed; -1 if it could not run
    char *out;  // captured stdout (heap, NUL-terminated)
    char *err;  // captured stderr (heap, NUL-terminated)
} TcliResult;

// Runs `exe args[0] args[1] ...` (args NULL-terminated) with stdin closed,
// killing it after timeout_s seconds. The caller frees res with
// tcli_result_free. Returns res->rc.
int tcli_run(TcliResult *res, const char *exe, const char *const *args, double timeout_s);
void tcli_result_free(TcliResult *res);

// Lines in s (a final line without '\n' counts).
int tcli_lines(const char *s);
// Reads a whole file into a heap string; NULL if it cannot be read.
char *tcli_read_file(const char *path);
int tcli_write_file(const char *path, const char *text);
int tcli_exists(const char *path);
// Entries in a directory other than . and ..; -1 if it cannot be read.
int tcli_dir_entries(const char *dir);
// Creates a fresh directory under $TMPDIR (or /tmp) into buf.
int tcli_mkdtemp(char *buf, size_t len, const char *tag);
// Removes the files of a flat directory, then the directory.
void tcli_rmtree(const char *dir);
// 1 when DDPLAB_TEST_QUICK=1 asks for smaller cases.
int tcli_quick(void);

#endif
