// tests/test_cli_leaks.c: what a run leaves behind in the process that ran
// it, failed or not. `ddplab run` is run_main (cli/run/run.h), called here
// in-process as a lesson calls it, on a sequence of runs that fail in
// every way a run fails:
//   - a watchdog timeout (4 DDP ranks, uneven inputs without join,
//     --watchdog 0.3): exit 3;
//   - a protocol mismatch (--eval-variant rank0-only: rank 0's metrics
//     all_reduce meets the others' next bucket): exit 3;
//   - bad input found before the ranks start (a model that does not fit the
//     data, a --resume file that does not exist) and after (an --init file
//     that is not a checkpoint): exit 2;
//   - a run stopped by SIGINT (sent by a thread of this test while it
//     trains; this test's own handler is in place around it, as a lesson
//     player's is, and must see the signal once, raised again by the run
//     when it put the handler back): exit 130;
// twice over, after a run that succeeds. After each run: as many file
// descriptors open (/proc/self/fd) and threads alive (/proc/self/task) as
// before, and no temporary (*.tmp.*) in the output directory; a run
// refused as bad input wrote no --metrics file, and one that failed or was
// stopped after some steps kept their lines in it. Memory is checked by the
// ASan build's leak
// checker when this process exits (scripts/test.sh runs it with
// detect_leaks=1).
#include <dirent.h>
#include <signal.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "core/cli.h"       // defines: CLI_EXIT_*
#include "run/run.h"        // defines: run_main
#include "run/run_signal.h" // defines: run_signal_caught
#include "test_cli_run.h"   // defines: tcli_path
#include "test_files.h"

static char dir[512];
static int log_fd = -1; // what the runs print (unlinked temporary)

// Entries of a /proc directory (the descriptor opendir takes counts in
// every reading alike).
static int proc_count(const char *path) {
    return tfile_dir_entries(path);
}

static int tmp_leftovers(void) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp") != NULL) {
            fprintf(stderr, "temporary left: %s/%s\n", dir, e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

// Prints the last lines the runs printed (for a failed check).
static void show_log(void) {
    char *s = tfile_read_fd(log_fd, NULL);
    if (s == NULL)
        return;
    size_t n = strlen(s);
    const char *tail = n > 3000 ? s + n - 3000 : s;
    fprintf(stderr, "--- the runs printed (tail):\n%s\n", tail);
    free(s);
}

// 1 if the runs printed text.
static int log_has(const char *text) {
    char *s = tfile_read_fd(log_fd, NULL);
    int found = s && strstr(s, text) != NULL;
    free(s);
    return found;
}

// run_main(args) with its output in the log; its exit code.
static int run_quiet(const char *const *args) {
    char *argv[64];
    int argc = 0;
    for (; args[argc] && argc < 63; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    int rc = run_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    return rc;
}

static int base_fds, base_threads;

// The run's exit code is want, and nothing is left open or running.
static int check_run(const char *name, const char *const *args, int want) {
    int rc = run_quiet(args);
    int fds = proc_count("/proc/self/fd"), threads = proc_count("/proc/self/task");
    if (rc != want || fds != base_fds || threads != base_threads || tmp_leftovers() != 0) {
        fprintf(stderr, "%s: exit %d (want %d), %d descriptors (before %d), %d threads "
                        "(before %d)\n", name, rc, want, fds, base_fds, threads, base_threads);
        show_log();
        return 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------
// SIGINT from a thread, with this test's own handler around the run

static atomic_int test_sigints; // SIGINTs this test's handler saw
static atomic_int run_over;

static void test_on_sigint(int sig) {
    (void)sig;
    atomic_fetch_add(&test_sigints, 1);
}

// Waits until the run has put its own SIGINT handler in place of this
// test's and has logged a finished step (its --metrics file, arg, is not
// empty: on a busy machine that takes as long as it takes), then sends one
// SIGINT to the process.
static void *interrupter(void *arg) {
    const char *metrics = arg;
    struct timespec nap = {0, 5 * 1000 * 1000};
    for (;;) {
        if (atomic_load(&run_over))
            return NULL;
        struct sigaction cur;
        struct stat st;
        if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != test_on_sigint &&
            stat(metrics, &st) == 0 && st.st_size > 0)
            break;
        nanosleep(&nap, NULL);
    }
    kill(getpid(), SIGINT);
    return NULL;
}

static int interrupted_run(void) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = test_on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    atomic_store(&test_sigints, 0);
    atomic_store(&run_over, 0);
    pthread_t th;
    static char metrics[600];
    snprintf(metrics, sizeof metrics, "%s", tcli_path(dir, "int.jsonl"));
    CHECK(pthread_create(&th, NULL, interrupter, metrics) == 0);
    const char *args[] = {"run", "--strategy", "ddp", "-n", "4", "--steps", "100000000",
                          "--metrics", metrics, "--trace",
                          tcli_path(dir, "int.ddptrace"), NULL};
    int rc = run_quiet(args);
    atomic_store(&run_over, 1);
    pthread_join(th, NULL);
    sigaction(SIGINT, &old, NULL);
    int fds = proc_count("/proc/self/fd"), threads = proc_count("/proc/self/task");
    if (rc != 130 || fds != base_fds || threads != base_threads || tmp_leftovers() ||
        !tfile_exists(tcli_path(dir, "int.jsonl")) ||
        tfile_exists(tcli_path(dir, "int.ddptrace")) ||
        atomic_load(&test_sigints) != 1 || !log_has("ddplab run: interrupted by SIGINT at step ")) {
        fprintf(stderr, "interrupted: exit %d, %d descriptors (before %d), %d threads (before "
                        "%d), %d SIGINTs seen by the caller's handler\n",
                rc, fds, base_fds, threads, base_threads, atomic_load(&test_sigints));
        show_log();
        return 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------

// Every failing run once.
static int failing_runs(void) {
    // the logs a round before kept: each run here must write its own
    const char *logs[] = {"hang.jsonl", "proto.jsonl", "int.jsonl"};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
        unlink(tcli_path(dir, logs[i]));
    const char *hang[] = {"run", "--strategy", "ddp", "-n", "4", "--data", "blobs", "--uneven",
                          "2", "--epochs", "1", "--watchdog", "0.3", "--diagnosis", "none",
                          "--metrics", tcli_path(dir, "hang.jsonl"), "--trace",
                          tcli_path(dir, "hang.ddptrace"), NULL};
    CHECK(check_run("watchdog", hang, CLI_EXIT_DIST) == 0);
    CHECK(tfile_exists(tcli_path(dir, "hang.jsonl"))); // the steps before the hang
    CHECK(tfile_exists(tcli_path(dir, "hang.ddptrace"))); // a hung run keeps its trace
    const char *proto[] = {"run", "--strategy", "ddp", "-n", "4", "--steps", "5",
                           "--eval-variant", "rank0-only", "--eval-every", "1", "--watchdog",
                           "0.5", "--diagnosis", "none", "--metrics",
                           tcli_path(dir, "proto.jsonl"), NULL};
    CHECK(check_run("protocol", proto, CLI_EXIT_DIST) == 0);
    CHECK(tfile_exists(tcli_path(dir, "proto.jsonl"))); // step 1's line, before its evaluation
    const char *model[] = {"run", "--model", "mlp:3,3", "--metrics",
                           tcli_path(dir, "model.jsonl"), NULL};
    CHECK(check_run("bad model", model, CLI_EXIT_USAGE) == 0);
    const char *resume[] = {"run", "--strategy", "ddp", "-n", "2", "--resume",
                            tcli_path(dir, "missing.st"), "--metrics",
                            tcli_path(dir, "resume.jsonl"), NULL};
    CHECK(check_run("missing --resume", resume, CLI_EXIT_USAGE) == 0);
    const char *init[] = {"run", "--strategy", "ddp", "-n", "4", "--init",
                          tcli_path(dir, "garbage.st"), "--save", tcli_path(dir, "g.st"),
                          "--metrics", tcli_path(dir, "init.jsonl"), NULL};
    CHECK(check_run("garbage --init", init, CLI_EXIT_USAGE) == 0);
    CHECK(!tfile_exists(tcli_path(dir, "g.st")));
    CHECK(interrupted_run() == 0);
    CHECK(!tfile_exists(tcli_path(dir, "model.jsonl")) &&
          !tfile_exists(tcli_path(dir, "resume.jsonl")) &&
          !tfile_exists(tcli_path(dir, "init.jsonl")));
    return 0;
}

static int test_failed_runs_leave_nothing(void) {
    static const char garbage[] = "this is not a safetensors file";
    CHECK(tfile_write(tcli_path(dir, "garbage.st"), garbage, sizeof garbage - 1) == 0);
    // A run that succeeds first: whatever a library starts once (thread
    // pools) is then part of the baseline.
    char st[600], metrics[600], trace[600]; // kept: tcli_path's buffers are reused
    snprintf(st, sizeof st, "%s/ok.st", dir);
    snprintf(metrics, sizeof metrics, "%s/ok.jsonl", dir);
    snprintf(trace, sizeof trace, "%s/ok.ddptrace", dir);
    const char *ok[] = {"run", "--strategy", "ddp", "-n", "4", "--steps", "3", "--save", st,
                        "--metrics", metrics, "--trace", trace, NULL};
    base_fds = proc_count("/proc/self/fd");
    base_threads = proc_count("/proc/self/task");
    CHECK(run_quiet(ok) == CLI_EXIT_OK);
    base_fds = proc_count("/proc/self/fd");
    base_threads = proc_count("/proc/self/task");
    CHECK(base_fds > 0 && base_threads >= 1);
    CHECK(tfile_exists(st) && tfile_exists(metrics) && tfile_exists(trace));
    for (int round = 0; round < 2; round++)
        CHECK(failing_runs() == 0);
    CHECK(check_run("ok again", ok, CLI_EXIT_OK) == 0);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(dir, sizeof dir, "leaks") != 0) {
        perror("scratch directory");
        return 1;
    }
    log_fd = tfile_temp_fd("leaks-log");
    if (log_fd < 0) {
        perror("log file");
        return 1;
    }
    int failures = 0;
    RUN(test_failed_runs_leave_nothing);
    close(log_fd);
    tfile_rmtree(dir);
    printf("%d failed\n", failures);
    return failures != 0;
}
