// tests/test_cli_run.h: helpers for the tests that run the built `ddplab`
// program as a user would: run it with arguments, capture its exit code,
// stdout and stderr, and count the lines of what it says. Files it leaves
// are read with test_files.h.
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

// Runs exe with the listed arguments (NULL-terminated for it):
// TCLI_RUN(res, exe, timeout_s, "bench", "-n", "2").
#define TCLI_RUN(res, exe, timeout_s, ...)                                     \
    do {                                                                       \
        const char *tcli_args_[] = {__VA_ARGS__, NULL};                        \
        tcli_run(&(res), (exe), tcli_args_, (timeout_s));                      \
    } while (0)

// Runs `exe run a... more...` (each list NULL-terminated, either may be
// NULL; 60 arguments at most) and prints its stderr when it fails. Returns
// the exit status.
int tcli_run_cmd(const char *exe, const char *const *a, const char *const *more,
                 double timeout_s);

// "dir/name" in one of 8 buffers used in turn, so that up to 8 paths made
// by one call site can be alive at once (single-threaded tests only).
const char *tcli_path(const char *dir, const char *name);

// The program a driver runs, from `driver PATH/TO/ddplab`; NULL after
// printing the usage when it is missing.
const char *tcli_exe_arg(int argc, char **argv);

// Lines in s (a final line without '\n' counts).
int tcli_lines(const char *s);

#endif
