// tests/test_cli_signals.c DDPLAB: Ctrl-C and kill as a user gives them.
// Each case starts the program in a scratch directory of its own, waits
// until it is well into its work (a line it prints), sends the signal and
// times how long the process takes to end. Then it checks the directory:
// no temporary left, no output the run did not finish, and the checkpoint
// the run saved before the signal still loads (checksum verified).
//
//   ddplab run (4 DDP ranks, --save every step, --trace, --metrics) on
//     SIGINT and on SIGTERM: exit status 130 / 143 (an exit, not a death
//     by the signal), one line "interrupted by SIGINT at step N of M",
//     only ck.st, at step N - 1, and the --metrics log of steps 1 to N - 1
//     left;
//   one rank (no collective to cancel): stopped at its step boundary;
//   four ranks hung in an all_reduce (uneven inputs, --watchdog 60):
//     stopped by the cancel, not by the watchdog;
//   FSDP with sharded checkpoints: only complete checkpoint files left;
//   ddplab bench and ddplab plan (--sweep): the default action, at once,
//     and no --trace / --plot file;
//   a lesson whose run block trains for ever: the run stops, the lesson
//     stops after it and removes its scratch directory, and the process
//     ends by SIGINT as the lesson player re-raises it.
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

#include "check.h"
#include "formats/safetensors.h" // defines: sim_stfile_load
#include "test_ckpt_util.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"

static const char *exe;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

// A child process with its output in unlinked temporary files.
typedef struct {
    pid_t pid;
    int out, err;      // its stdout and stderr
    int exited;        // 1: ended with exit(code); 0: killed by signal
    int code;          // exit code, or the signal that killed it
    double stop_s;     // seconds from the signal to its end (printed, never asserted)
} Child;

// Starts `exe args...` in dir with stdin from /dev/null and the three
// signals at their default action (whatever this test inherited), with
// extra environment assignments env ("NAME=value", NULL-terminated).
static int child_start(Child *c, const char *dir, const char *const *args,
                       const char *const *env) {
    memset(c, 0, sizeof *c);
    c->out = tfile_temp_fd("sig");
    c->err = tfile_temp_fd("sig");
    if (c->out < 0 || c->err < 0)
        return -1;
    // the child appends, wherever our reads (which seek) leave the offset
    fcntl(c->out, F_SETFL, O_APPEND);
    fcntl(c->err, F_SETFL, O_APPEND);
    const char *argv[64];
    int n = 0;
    argv[n++] = exe;
    for (; args && *args && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    fflush(NULL);
    c->pid = fork();
    if (c->pid < 0)
        return -1;
    if (c->pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(c->out, 1);
        dup2(c->err, 2);
        if (chdir(dir) != 0)
            _exit(126);
        for (; env && *env; env++) {
            char name[64];
            const char *eq = strchr(*env, '=');
            if (eq == NULL || (size_t)(eq - *env) >= sizeof name)
                _exit(126);
            memcpy(name, *env, (size_t)(eq - *env));
            name[eq - *env] = '\0';
            setenv(name, eq + 1, 1);
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    return 0;
}

// What the child printed so far on stdout and stderr, together (heap).
static char *child_output(const Child *c) {
    char *o = tfile_read_fd(c->out, NULL), *e = tfile_read_fd(c->err, NULL);
    size_t no = o ? strlen(o) : 0, ne = e ? strlen(e) : 0;
    char *all = malloc(no + ne + 1);
    if (all) {
        memcpy(all, o ? o : "", no);
        memcpy(all + no, e ? e : "", ne);
        all[no + ne] = '\0';
    }
    free(o);
    free(e);
    return all;
}

// Waits until the child's output holds text. 0, or -1 on a timeout or if
// the child ended first.
static int child_wait_for(Child *c, const char *text, double timeout_s) {
    double t0 = now_s();
    while (now_s() - t0 < timeout_s) {
        char *all = child_output(c);
        int found = all && strstr(all, text) != NULL;
        free(all);
        if (found)
            return 0;
        int status;
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
            fprintf(stderr, "the child ended before printing \"%s\"\n", text);
            c->pid = -1;
            return -1;
        }
        nap_ms(10);
    }
    fprintf(stderr, "no \"%s\" after %.0f s\n", text, timeout_s);
    return -1;
}

static int count_of(const char *s, const char *part) {
    int n = 0;
    for (const char *p = s ? strstr(s, part) : NULL; p; p = strstr(p + 1, part))
        n++;
    return n;
}

// Sends sig and waits for the child to end (killing it after 30 s).
static void child_signal(Child *c, int sig) {
    double t0 = now_s();
    kill(c->pid, sig);
    int status = 0;
    for (;;) {
        pid_t got = waitpid(c->pid, &status, WNOHANG);
        if (got == c->pid || (got < 0 && errno != EINTR))
            break;
        if (now_s() - t0 > 30) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &status, 0);
            break;
        }
        nap_ms(1);
    }
    c->stop_s = now_s() - t0;
    c->pid = -1;
    c->exited = WIFEXITED(status);
    c->code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

static void child_free(Child *c) {
    if (c->pid > 0) {
        kill(c->pid, SIGKILL);
        waitpid(c->pid, NULL, 0);
    }
    if (c->out >= 0)
        close(c->out);
    if (c->err >= 0)
        close(c->err);
}

// Names in dir: 1 if one of them contains part.
static int dir_has(const char *dir, const char *part) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, part) != NULL)
            found = 1;
    closedir(d);
    return found;
}

// Prints dir's entries (for a failed check).
static void dir_show(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    fprintf(stderr, "%s holds:", dir);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            fprintf(stderr, " %s", e->d_name);
    fputc('\n', stderr);
    closedir(d);
}

// 1 when dir/m.jsonl, the --metrics log, holds a whole line for each of
// steps 1 to last and nothing else: the steps finished before the signal.
static int metrics_upto(const char *dir, long long last) {
    size_t len = 0;
    char *text = tfile_read(tcli_path(dir, "m.jsonl"), &len);
    long long n = 0;
    int ok = text != NULL && (len == 0 || text[len - 1] == '\n');
    for (char *p = text; ok && p && *p; n++) {
        char *end = strchr(p, '\n');
        ok = end != NULL && strncmp(p, "{\"step\":", 8) == 0 && atoll(p + 8) == n + 1 &&
             end[-1] == '}';
        p = end ? end + 1 : NULL;
    }
    if (!ok || n != last)
        fprintf(stderr, "m.jsonl: %lld whole lines of steps 1, 2, ... (want 1 to %lld)\n", n,
                last);
    free(text);
    return ok && n == last;
}

// The signal ended the process, not something else: it did not wait for
// the watchdog (whose diagnosis says "never arrived"), and it ended within
// child_signal's 30 s (after which it is killed, and its exit code then
// fails the caller's check). How long it took is printed, never asserted:
// a busy machine is slower at everything, and the run's own step lines,
// buffered in a file, cannot date the signal either.
static int check_stopped_in_time(const Child *c) {
    char *all = child_output(c);
    int waited = count_of(all, "never arrived") > 0;
    free(all);
    if (waited) {
        fprintf(stderr, "the run waited for the watchdog after the signal (ended %.3f s after "
                "it)\n", c->stop_s);
        return 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------
// ddplab run

// Four DDP ranks saving every step; sig after step 3. Checks the exit
// code, the line, and the files.
static int run_ddp_case(int sig) {
    char dir[512];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "sig-run") == 0);
    const char *args[] = {"run", "--strategy", "ddp", "-n", "4", "--steps", "1000000",
                          "--model", "mlp:16,64,64,4", "--save", "ck.st", "--save-every", "1",
                          "--trace", "t.ddptrace", "--metrics", "m.jsonl", "--log-every", "1",
                          NULL};
    Child c;
    int rc = 1;
    if (child_start(&c, dir, args, NULL) != 0 || child_wait_for(&c, "step 3/", 60) != 0)
        goto out;
    child_signal(&c, sig);
    char *all = child_output(&c);
    if (!c.exited || c.code != 128 + sig) {
        fprintf(stderr, "exited %d with %d (want an exit with %d):\n%s\n", c.exited, c.code,
                128 + sig, all ? all : "");
        free(all);
        goto out;
    }
    char want[64];
    snprintf(want, sizeof want, "ddplab run: interrupted by %s at step ",
             sig == SIGINT ? "SIGINT" : "SIGTERM");
    const char *line = all ? strstr(all, want) : NULL;
    long long at = line ? atoll(line + strlen(want)) : -1;
    long long k = tckpt_step(tcli_path(dir, "ck.st"));
    char logged[96], intact[64];
    snprintf(logged, sizeof logged, "--metrics 'm.jsonl' holds steps 1 to %lld, no other file",
             at - 1);
    snprintf(intact, sizeof intact, "'ck.st' at step %lld, is intact", k);
    // the last finished step's checkpoint, or the one before when the
    // signal came while that step's was being written (its write is given
    // up; the line says which one is there)
    if (line == NULL || at < 4 || (k != at - 1 && k != at - 2) || strstr(line, intact) == NULL ||
        strstr(line, logged) == NULL || !metrics_upto(dir, at - 1) ||
        tfile_dir_entries(dir) != 2 || check_stopped_in_time(&c)) {
        fprintf(stderr, "stopped at step %lld, checkpoint at step %lld, output:\n%s\n", at, k,
                all ? all : "");
        dir_show(dir);
        free(all);
        goto out;
    }
    free(all);
    rc = 0;
out:
    child_free(&c);
    tfile_rmtree(dir);
    return rc;
}

static int test_run_sigint(void) {
    return run_ddp_case(SIGINT);
}

static int test_run_sigterm(void) {
    return run_ddp_case(SIGTERM);
}

// Waits until dir/name exists and is not empty. 0, or -1 on a timeout or
// if the child ended first.
static int child_wait_file(Child *c, const char *dir, const char *name, double timeout_s) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    double t0 = now_s();
    while (now_s() - t0 < timeout_s) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size > 0)
            return 0;
        int status;
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
            fprintf(stderr, "the child ended before writing %s\n", name);
            c->pid = -1;
            return -1;
        }
        nap_ms(10);
    }
    fprintf(stderr, "no %s after %.0f s\n", name, timeout_s);
    return -1;
}

// A run (with extra environment env, or NULL) and the text it waits for,
// signalled with SIGINT: exit 130 with the interrupted line in time, and a
// directory that holds only the --metrics log of the steps before the one
// interrupted, if the run has one. wait_text "file:NAME": the run's output
// is not on its streams yet (a live view sets it aside), so the file NAME
// it writes (its --metrics log) is waited for instead; then settle_ms.
static int run_simple_case(const char *const *args, const char *const *env,
                           const char *wait_text, int settle_ms) {
    char dir[512];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "sig-run") == 0);
    int logs = 0;
    for (int i = 0; args[i]; i++)
        logs |= strcmp(args[i], "--metrics") == 0;
    Child c;
    int rc = 1;
    int file = strncmp(wait_text, "file:", 5) == 0;
    if (child_start(&c, dir, args, env) != 0 ||
        (file ? child_wait_file(&c, dir, wait_text + 5, 60) : child_wait_for(&c, wait_text, 60)) !=
            0)
        goto out;
    nap_ms(settle_ms);
    child_signal(&c, SIGINT);
    char *all = child_output(&c);
    const char *want = "ddplab run: interrupted by SIGINT at step ";
    const char *line = all ? strstr(all, want) : NULL;
    long long at = line ? atoll(line + strlen(want)) : -1;
    char logged[96];
    snprintf(logged, sizeof logged, "--metrics 'm.jsonl' holds steps 1 to %lld, nothing else "
             "was written", at - 1);
    if (!c.exited || c.code != 130 || line == NULL ||
        !strstr(line, logs ? logged : "nothing was written") ||
        (logs && !metrics_upto(dir, at - 1)) || tfile_dir_entries(dir) != logs ||
        check_stopped_in_time(&c)) {
        fprintf(stderr, "exited %d with %d after %.3f s:\n%s\n", c.exited, c.code, c.stop_s,
                all ? all : "");
        dir_show(dir);
        free(all);
        goto out;
    }
    free(all);
    rc = 0;
out:
    child_free(&c);
    tfile_rmtree(dir);
    return rc;
}

// One rank: no collective to cancel; the step boundary stops it.
static int test_run_single_rank(void) {
    const char *args[] = {"run", "--steps", "100000000", "--metrics", "m.jsonl", "--trace",
                          "t.json", "--log-every", "1", NULL};
    return run_simple_case(args, NULL, "step 3/", 0);
}

#ifdef DDPLAB_HAVE_SDL
// The live window (SDL's dummy driver): the signal stops the ranks and
// closes the window, which the run's handler, not SDL, caught. The run's
// output is set aside while the view is up, so the test waits for its first
// logged step instead of for a line: the run is under way, its handler in
// place, whatever the machine's load.
static int test_run_sdl_view(void) {
    const char *args[] = {"run", "--steps", "100000000", "--viz", "sdl", "--metrics", "m.jsonl",
                          NULL};
    const char *env[] = {"SDL_VIDEODRIVER=dummy", NULL};
    return run_simple_case(args, env, "file:m.jsonl", 200);
}
#endif

// Four ranks hung in an all_reduce whose watchdog is a minute away.
static int test_run_hung(void) {
    const char *args[] = {"run", "--strategy", "ddp", "-n", "4", "--data", "blobs",
                          "--uneven", "2", "--epochs", "1", "--watchdog", "60", "--diagnosis",
                          "none", "--metrics", "m.jsonl", "--trace", "t.ddptrace",
                          "--log-every", "1", NULL};
    // step 14 of 16 is rank 3's last: the others then wait for it
    return run_simple_case(args, NULL, "step 14/", 300);
}

// FSDP with sharded checkpoints (every rank writes a file): after the
// signal only complete checkpoint files are there, and the index loads.
static int test_run_fsdp(void) {
    char dir[512];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "sig-fsdp") == 0);
    const char *args[] = {"run", "--strategy", "fsdp", "-n", "4", "--steps", "1000000",
                          "--model", "mlp:16,64,64,4", "--save", "ck.st", "--save-every", "1",
                          "--state-dict", "sharded", "--metrics", "m.jsonl", "--log-every",
                          "1", NULL};
    Child c;
    int rc = 1;
    // "step N/" is printed before step N's checkpoint is saved: after "step
    // 6/", step 5's is complete, and the signal may come in step 6's save
    if (child_start(&c, dir, args, NULL) != 0 || child_wait_for(&c, "step 6/", 60) != 0)
        goto out;
    child_signal(&c, SIGTERM);
    char *all = child_output(&c);
    long long k = tckpt_step(tcli_path(dir, "ck.st"));
    // the index and its 4 shard files, nothing of a save that was cut short
    if (!c.exited || c.code != 143 || !all || !strstr(all, "interrupted by SIGTERM") ||
        dir_has(dir, ".tmp") || !dir_has(dir, "m.jsonl") || k < 5 ||
        tfile_dir_entries(dir) != 6 || check_stopped_in_time(&c)) {
        fprintf(stderr, "exited %d with %d, checkpoint at step %lld:\n%s\n", c.exited, c.code,
                k, all ? all : "");
        dir_show(dir);
        free(all);
        goto out;
    }
    free(all);
    rc = 0;
out:
    child_free(&c);
    tfile_rmtree(dir);
    return rc;
}

// ---------------------------------------------------------------------------
// bench, plan, lesson: the default action (nothing of theirs is open for
// writing while they work), or the lesson player's own handler.

// Sends SIGINT to a started child: it must die by SIGINT in time, and dir
// must then hold `entries` entries.
static int killed_check(Child *c, const char *dir, int entries) {
    nap_ms(200);
    child_signal(c, SIGINT);
    if (c->exited || c->code != SIGINT || check_stopped_in_time(c) ||
        tfile_dir_entries(dir) != entries) {
        char *all = child_output(c);
        fprintf(stderr, "exited %d with %d after %.3f s:\n%s\n", c->exited, c->code,
                c->stop_s, all ? all : "");
        free(all);
        dir_show(dir);
        return 1;
    }
    return 0;
}

// args in a fresh directory, signalled once they printed text.
static int killed_case(const char *const *args, const char *text) {
    char dir[512];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "sig-cmd") == 0);
    Child c;
    int rc = 1;
    if (child_start(&c, dir, args, NULL) == 0 && child_wait_for(&c, text, 60) == 0)
        rc = killed_check(&c, dir, 0);
    child_free(&c);
    tfile_rmtree(dir);
    return rc;
}

static int test_bench(void) {
    const char *args[] = {"bench", "-c", "all_reduce", "-n", "4", "-b", "4M", "-e", "4M",
                          "-i", "100000", "--trace", "b.json", "--plot", "b.png", NULL};
    return killed_case(args, "# ddplab bench");
}

static int test_plan(void) {
    char sweep[512] = "ranks=";
    for (int k = 1; k <= 64; k++)
        snprintf(sweep + strlen(sweep), sizeof sweep - strlen(sweep), "%s%d", k > 1 ? "," : "",
                 1024 * k);
    const char *args[] = {"plan", "-m", "gpt3-175b", "--strategy", "fsdp", "--sweep", sweep,
                          "--plot", "p.png", NULL};
    return killed_case(args, "8192 ranks");
}

static const char long_lesson[] =
    "---\n"
    "id: signal-long\n"
    "title: A run that never ends\n"
    "difficulty: beginner\n"
    "prerequisites:\n"
    "minutes: 1\n"
    "track: lessons\n"
    "---\n"
    "\n"
    "# A run that never ends\n"
    "\n"
    "Ctrl-C stops it.\n"
    "\n"
    "```ddplab\n"
    "run --strategy ddp -n 2 --steps 100000000 --model mlp:16,32,4 --save ck.st --save-every 5\n"
    "expect exit 0\n"
    "```\n"
    "\n"
    "The end.\n";

// Waits until the lesson's scratch directory (the one entry of tmp) holds
// the block's checkpoint: its run is training. 0, or -1 after timeout_s.
static int wait_lesson_training(const char *tmp, double timeout_s) {
    double t0 = now_s();
    while (now_s() - t0 < timeout_s) {
        DIR *d = opendir(tmp);
        struct dirent *e;
        int found = 0;
        while (d && (e = readdir(d)) != NULL) {
            char ck[1200];
            snprintf(ck, sizeof ck, "%s/%s/ck.st", tmp, e->d_name);
            if (e->d_name[0] != '.' && tfile_exists(ck))
                found = 1;
        }
        if (d)
            closedir(d);
        if (found)
            return 0;
        nap_ms(10);
    }
    fprintf(stderr, "the lesson's run never saved a checkpoint\n");
    return -1;
}

// The lesson file in dir, its scratch directory under dir/tmp: after the
// signal dir holds the two, and tmp nothing.
static int test_lesson(void) {
    char dir[512];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "sig-lesson") == 0);
    char tmp[600], env_tmp[700];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmp);
    int rc = 1;
    Child c;
    memset(&c, 0, sizeof c);
    c.out = c.err = -1;
    if (tfile_write(tcli_path(dir, "long.md"), long_lesson, strlen(long_lesson)) != 0 ||
        mkdir(tmp, 0700) != 0)
        goto out;
    const char *args[] = {"lesson", "long.md", "--non-interactive", NULL};
    const char *env[] = {env_tmp, NULL};
    if (child_start(&c, dir, args, env) != 0 || wait_lesson_training(tmp, 60) != 0 ||
        killed_check(&c, dir, 2) != 0)
        goto out;
    if (tfile_dir_entries(tmp) != 0) {
        fprintf(stderr, "the lesson's scratch directory was left behind\n");
        dir_show(tmp);
        goto out;
    }
    rc = 0;
out:
    child_free(&c);
    if (tfile_exists(tmp)) {
        DIR *d = opendir(tmp);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            if (e->d_name[0] != '.')
                tfile_rmtree(tcli_path(tmp, e->d_name));
        if (d)
            closedir(d);
    }
    tfile_rmtree(tmp);
    tfile_rmtree(dir);
    return rc;
}

int main(int argc, char **argv) {
    const char *given = tcli_exe_arg(argc, argv);
    if (given == NULL)
        return 2;
    static char abs_exe[4096]; // the children run in directories of their own
    char cwd[2048];
    if (given[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
        snprintf(abs_exe, sizeof abs_exe, "%s/%s", cwd, given);
    else
        snprintf(abs_exe, sizeof abs_exe, "%s", given);
    exe = abs_exe;
    int failures = 0;
    RUN(test_run_sigint);
    RUN(test_run_sigterm);
    RUN(test_run_single_rank);
    RUN(test_run_hung);
#ifdef DDPLAB_HAVE_SDL
    RUN(test_run_sdl_view);
#endif
    RUN(test_run_fsdp);
    RUN(test_bench);
    RUN(test_plan);
    RUN(test_lesson);
    printf("%d failed\n", failures);
    return failures != 0;
}
