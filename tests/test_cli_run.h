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

// The start of a driver's main: the program from `driver PATH/TO/ddplab`,
// and a fresh scratch directory ddplab-<tag>-XXXXXX written into dir[len].
// NULL after saying what is missing or failed.
const char *tcli_begin(int argc, char **argv, char *dir, size_t len, const char *tag);

// Lines in s (a final line without '\n' counts).
int tcli_lines(const char *s);

// Prints what the program said (exit status, stdout, stderr) to stderr,
// headed by what, so that a failing check shows the reason.
void tcli_show(const char *what, const TcliResult *r);
// A refusal of bad input: exit 2, nothing on stdout, and one line on stderr
// that starts with prefix ("ddplab report: ") and contains want. Returns 0
// when r is one; otherwise prints r and what is wrong, and returns 1.
int tcli_refused(const TcliResult *r, const char *prefix, const char *want);
// The word after key ("final loss ") in what the program printed, stdout
// first, then stderr (progress and evaluation lines), up to a space, ';',
// '|' or the line's end, into out. Returns 0, or -1 when key is in neither.
int tcli_field(const TcliResult *r, const char *key, char *out, size_t n);

#endif
