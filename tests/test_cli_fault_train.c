// tests/test_cli_fault_train.c: the training loop's --fault kinds through
// `ddplab run`, and checkpoints that survive a crash:
//   unused            exit 3 without --find-unused-parameters (rank 1 never
//                     reduces, rank 0 waits until the watchdog), exit 0 with
//                     it, exit 2 for a parameter the model lacks
//   save-crash        killed by SIGKILL while writing step 4's checkpoint: the
//                     file holds step 2's (valid checksum), --resume of it
//                     completes and a later save of the path works beside the
//                     stale temporary, which itself is refused as truncated
//   kill -9           a run saving every step, killed at several moments:
//                     the checkpoint always loads and resumes
//   damaged files     a flipped data byte, a damaged header, a damaged header
//                     length and a cut file are refused by --resume (exit 2)
//   metrics log       a crash (exit 3), a kill -9 and save-crash keep a whole
//                     line for every finished step in the --metrics file
//                     itself, no temporary; --resume into that file cuts it
//                     back to the checkpoint's step and continues it into
//                     the lines of a run never interrupted
//   seeds             no initial broadcast, and ranks reading the same batch
//                     log different losses
//   every kind        leaves its "injected" event in the exported trace
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "formats/safetensors.h"
#include "test_ckpt_util.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"
#include "test_trace_events.h"

#define TIMEOUT_S 20.0

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

// The small run every case starts from (2 DDP ranks, 8 batches per epoch).
#define BASE "--strategy", "ddp", "-n", "2", "--model", "mlp:16,32,4", "--data", \
             "blobs:n=256,features=16,classes=4", "--batch", "16", "--loss-log", "rank0"

// Runs `ddplab run BASE args...`; the result is the caller's to free.
static int run_args(TcliResult *r, const char *const *args) {
    const char *argv[64] = {"run", BASE};
    int n = 0;
    while (argv[n])
        n++;
    for (; *args && n < 62; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    return tcli_run(r, exe, argv, TIMEOUT_S);
}

#define RUN_CASE(res, ...)                                                     \
    do {                                                                       \
        const char *case_args_[] = {__VA_ARGS__, NULL};                        \
        run_args(&(res), case_args_);                                          \
    } while (0)

static void show(const char *what, const TcliResult *r) {
    fprintf(stderr, "%s: rc %d\n  stderr: %.1500s\n", what, r->rc, r->err ? r->err : "");
}

// ----------------------------------------------------------------------------
// the exported trace (JSON lines)






// ----------------------------------------------------------------------------
// unused

static int test_unused(void) {
    TcliResult r;
    const char *trace = in_dir("unused.jsonl");
    RUN_CASE(r, "--steps", "4", "--watchdog", tenv_sanitized() ? "4" : "1", "--fault",
             "unused:rank=1", "--trace", trace, "--diagnosis", in_dir("diag.txt"));
    if (r.rc != 3)
        show("unused without find_unused", &r);
    CHECK_EQ_INT(r.rc, 3);
    // rank 1 stopped at its next forward with PyTorch's message; rank 0
    // waited in the first bucket's all_reduce until the watchdog
    CHECK_STR_CONTAINS(r.err, "ddplab run: ddp (before forward): Expected to have finished "
                              "reduction in the prior iteration");
    CHECK_STR_CONTAINS(r.err, "\nParameter indices which did not receive grad for rank 1: 3\n");
    CHECK_STR_CONTAINS(r.err, "\nddplab's diagnosis: in the backward of step 1, rank 1 gave no "
                              "gradient to 2.bias (index 3)");
    CHECK_STR_CONTAINS(r.err, "watchdog");
    // the diagnosis names the rank that never arrived
    char *diag = tfile_read(in_dir("diag.txt"), NULL);
    CHECK(diag != NULL);
    CHECK_STR_CONTAINS(diag, "rank 1");
    free(diag);
    CHECK(tev_one_injected(trace, 1, "unused: parameter 2.bias") == 0);
    tcli_result_free(&r);
    unlink(in_dir("diag.txt"));

    // TORCH_DISTRIBUTED_DEBUG=DETAIL (any case): PyTorch's text names the
    // parameter too, before the indices
    setenv("TORCH_DISTRIBUTED_DEBUG", "detail", 1);
    RUN_CASE(r, "--steps", "4", "--watchdog", tenv_sanitized() ? "4" : "1", "--fault",
             "unused:rank=1");
    unsetenv("TORCH_DISTRIBUTED_DEBUG");
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "(e.g. list, dict, iterable).\nParameters which did not receive "
                              "grad for rank 1: 2.bias\nParameter indices which did not receive "
                              "grad for rank 1: 3\nddplab's diagnosis: ");
    CHECK(strstr(r.err, "In addition, you can set") == NULL);
    tcli_result_free(&r);

    // with the loss all_reduced for logging, rank 1's logging all_reduce
    // meets rank 0's bucket all_reduce first: a mismatch, diagnosed at once
    RUN_CASE(r, "--steps", "4", "--loss-log", "avg", "--fault", "unused:rank=1", "--diagnosis",
             "none");
    if (r.rc != 3)
        show("unused, loss all_reduced", &r);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "AllReduce #1: rank 1 count 1 != rank 0 count 676");
    tcli_result_free(&r);

    RUN_CASE(r, "--steps", "4", "--fault", "unused:rank=1,param=0.weight,step=2",
             "--find-unused-parameters", "--trace", trace);
    if (r.rc != 0)
        show("unused with find_unused", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK(tev_one_injected(trace, 1, "0.weight takes no part in rank 1's forward from step 2") ==
          0);
    tcli_result_free(&r);

    RUN_CASE(r, "--steps", "4", "--fault", "unused:rank=1,param=fc9.weight");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "no parameter 'fc9.weight'; allowed: 0.weight, 0.bias, 2.weight");
    tcli_result_free(&r);
    const char *dp[] = {"run", "--strategy", "dp", "-n", "2", "--steps", "2", "--fault",
                        "unused:rank=1", NULL};
    tcli_run(&r, exe, dp, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--strategy dp runs every replica's forward from one controller");
    tcli_result_free(&r);
    unlink(trace);
    return 0;
}

// ----------------------------------------------------------------------------
// checkpoints and crashes


// The names in dir that start with prefix: how many, the first in first.
static int entries_with(const char *prefix, char *first, size_t len) {
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n++ == 0 && first)
            snprintf(first, len, "%s", e->d_name);
    closedir(d);
    return n;
}

static void remove_with(const char *prefix) {
    char name[256];
    while (entries_with(prefix, name, sizeof name) > 0)
        unlink(in_dir(name));
}

static int test_save_crash(void) {
    remove_with("ck.st");
    const char *ck = in_dir("ck.st");
    TcliResult r;
    RUN_CASE(r, "--steps", "6", "--save", ck, "--save-every", "2", "--fault",
             "save-crash:step=4");
    CHECK_EQ_INT(r.rc, 128 + SIGKILL);
    tcli_result_free(&r);
    CHECK_EQ_INT(tckpt_step(ck), 2); // the previous checkpoint, intact
    // the temporary it died writing: PATH.tmp.XXXXXX, half a checkpoint
    char tmp[256];
    CHECK_EQ_INT(entries_with("ck.st.tmp.", tmp, sizeof tmp), 1);
    CHECK_EQ_INT((int)strlen(tmp), (int)strlen("ck.st.tmp.XXXXXX"));
    size_t full = 0, half = 0;
    char *a = tfile_read(ck, &full), *b = tfile_read(in_dir(tmp), &half);
    CHECK(a && b);
    CHECK(half > 0 && half < full);
    free(a);
    free(b);
    RUN_CASE(r, "--steps", "6", "--resume", in_dir(tmp));
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "truncated");
    tcli_result_free(&r);
    // resuming the intact file completes, and saving the same path again is
    // not confused by the stale temporary beside it
    RUN_CASE(r, "--steps", "6", "--resume", ck, "--save", ck);
    if (r.rc != 0)
        show("resume after save-crash", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "resumed");
    tcli_result_free(&r);
    CHECK_EQ_INT(tckpt_step(ck), 6);
    CHECK_EQ_INT(entries_with("ck.st.tmp.", NULL, 0), 1);
    // without a step the first save dies: nothing at the path
    remove_with("ck.st");
    RUN_CASE(r, "--steps", "6", "--save", ck, "--save-every", "2", "--fault", "save-crash");
    CHECK_EQ_INT(r.rc, 128 + SIGKILL);
    tcli_result_free(&r);
    CHECK(!tfile_exists(ck));
    // a step at which nothing is saved is bad input
    RUN_CASE(r, "--steps", "6", "--save", ck, "--save-every", "2", "--fault",
             "save-crash:step=3");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "step 3 writes no checkpoint");
    tcli_result_free(&r);
    RUN_CASE(r, "--steps", "6", "--fault", "save-crash");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "it needs --save FILE");
    tcli_result_free(&r);
    remove_with("ck.st");
    return 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

// Starts argv (argv[0] the program) with its streams on /dev/null; the
// child's pid, or -1.
static pid_t spawn_quiet(const char *const *argv) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

// A run that saves after every step, killed with SIGKILL `delay` seconds
// after its first checkpoint appeared: the checkpoint at the path is whole
// (its checksum holds) and the run resumes from it.
static int kill_once(double delay) {
    remove_with("ck.st");
    const char *ck = in_dir("ck.st");
    const char *argv[] = {exe, "run", BASE, "--steps", "1000000", "--save", ck,
                          "--save-every", "1", NULL};
    pid_t pid = spawn_quiet(argv);
    CHECK(pid >= 0);
    double t0 = now_s();
    while (!tfile_exists(ck) && now_s() - t0 < 15)
        sleep_s(0.001);
    sleep_s(delay);
    kill(pid, SIGKILL);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    long long step = tckpt_step(ck);
    CHECK(step >= 1);
    char stop[32];
    snprintf(stop, sizeof stop, "%lld", step + 2);
    TcliResult r;
    RUN_CASE(r, "--steps", "1000000", "--stop-after", stop, "--resume", ck);
    if (r.rc != 0)
        show("resume after kill -9", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "resumed");
    tcli_result_free(&r);
    return 0;
}

static int test_kill9(void) {
    const double delays[] = {0, 0.013, 0.037, 0.071, 0.15};
    int n = tenv_quick() ? 2 : 5;
    for (int i = 0; i < n; i++)
        CHECK(kill_once(delays[i]) == 0);
    remove_with("ck.st");
    return 0;
}

// A refused --resume: exit 2, one line naming the file and `want`.
static int refused(const char *file, const char *want) {
    TcliResult r;
    RUN_CASE(r, "--steps", "20", "--resume", file);
    int ok = r.rc == 2 && tcli_lines(r.err) == 1 && strstr(r.err, "--resume:") &&
             strstr(r.err, file) && strstr(r.err, want);
    if (!ok)
        show(want, &r);
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

static int test_damaged(void) {
    const char *good = in_dir("good.st"), *bad = in_dir("bad.st");
    TcliResult r;
    RUN_CASE(r, "--steps", "10", "--save", good);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    size_t len = 0;
    char *raw = tfile_read(good, &len);
    CHECK(raw != NULL && len > 200);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | (unsigned char)raw[i];
    CHECK(hlen > 20 && 8 + hlen < len);
    // one flipped byte in the data
    raw[len - 5] ^= 0x10;
    CHECK(tfile_write(bad, raw, len) == 0);
    CHECK(refused(bad, "checksum mismatch") == 0);
    raw[len - 5] ^= 0x10;
    // a damaged header: a tensor name changed (still valid JSON)
    char *name = strstr(raw + 8, "\"0.weight\"");
    CHECK(name != NULL && name < raw + 8 + hlen);
    name[1] = '9';
    CHECK(tfile_write(bad, raw, len) == 0);
    CHECK(refused(bad, "checksum mismatch") == 0);
    name[1] = '0';
    // a damaged header: a brace gone, no longer JSON
    raw[8] = 'x';
    CHECK(tfile_write(bad, raw, len) == 0);
    CHECK(refused(bad, "corrupt header") == 0);
    raw[8] = '{';
    // a damaged header length: more than the file holds, or absurd
    raw[2] ^= 1;
    CHECK(tfile_write(bad, raw, len) == 0);
    CHECK(refused(bad, "truncated") == 0);
    raw[2] ^= 1;
    raw[3] = 0x7f;
    CHECK(tfile_write(bad, raw, len) == 0);
    CHECK(refused(bad, "corrupt header: a header length of") == 0);
    raw[3] = 0;
    // a cut file
    CHECK(tfile_write(bad, raw, len / 2) == 0);
    CHECK(refused(bad, "truncated") == 0);
    // and the bytes put back load again
    CHECK(tfile_write(bad, raw, len) == 0);
    CHECK_EQ_INT(tckpt_step(bad), 10);
    free(raw);
    unlink(good);
    unlink(bad);
    return 0;
}

// ----------------------------------------------------------------------------
// the metrics log: every finished step survives whatever ends the run

// The steps of the metrics lines at path (eval lines aside), in order, into
// steps[max]; -1 when a line is not whole JSON ending in '\n'.
static int metrics_steps(const char *path, long long *steps, int max) {
    size_t len = 0;
    char *text = tfile_read(path, &len);
    if (text == NULL)
        return -1;
    int n = 0, bad = len > 0 && text[len - 1] != '\n';
    for (char *line = strtok(text, "\n"); line && !bad; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        const cJSON *step = j ? cJSON_GetObjectItemCaseSensitive(j, "step") : NULL;
        bad = j == NULL;
        if (cJSON_IsNumber(step) && n < max)
            steps[n++] = (long long)step->valuedouble;
        cJSON_Delete(j);
    }
    free(text);
    return bad ? -1 : n;
}

// 1 when path holds exactly steps 1 to last, one line each.
static int holds_steps(const char *path, long long last) {
    long long steps[4096];
    int n = metrics_steps(path, steps, 4096);
    int ok = n == last;
    for (int i = 0; ok && i < n; i++)
        ok = steps[i] == i + 1;
    if (!ok)
        fprintf(stderr, "%s: %d lines (want steps 1 to %lld)\n", path, n, last);
    return ok;
}

// The lines of a and b agree on the training's own fields (sim_s is left
// out: a DDP run resumed from a checkpoint does not reproduce the straight
// run's simulated time).
static int same_metrics(const char *a, const char *b) {
    char *x = tfile_read(a, NULL), *y = tfile_read(b, NULL);
    static const char *const fields[] = {"step", "epoch", "loss", "lr", "grad_norm"};
    int ok = x && y, lines = 0;
    char *sx = NULL, *sy = NULL;
    char *lx = x ? strtok_r(x, "\n", &sx) : NULL, *ly = y ? strtok_r(y, "\n", &sy) : NULL;
    for (; ok && (lx || ly); lx = strtok_r(NULL, "\n", &sx), ly = strtok_r(NULL, "\n", &sy)) {
        cJSON *jx = lx ? cJSON_Parse(lx) : NULL, *jy = ly ? cJSON_Parse(ly) : NULL;
        ok = jx && jy;
        for (size_t k = 0; ok && k < sizeof fields / sizeof fields[0]; k++) {
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(jx, fields[k]);
            const cJSON *q = cJSON_GetObjectItemCaseSensitive(jy, fields[k]);
            ok = cJSON_IsNumber(p) && cJSON_IsNumber(q) && p->valuedouble == q->valuedouble;
        }
        cJSON_Delete(jx);
        cJSON_Delete(jy);
        lines++;
    }
    if (!ok)
        fprintf(stderr, "%s and %s differ at line %d\n", a, b, lines);
    free(x);
    free(y);
    return ok;
}

// A rank crashes in step 5 (the watchdog ends the run, exit 3): the log
// holds steps 1 to 4, in place, with no temporary beside it. Resumed from
// step 3's checkpoint into the same file, it is cut back to step 3 and
// continued: the same lines as a run that was never interrupted.
static int test_metrics_crash(void) {
    remove_with("ck.st");
    remove_with("m.jsonl");
    const char *m = in_dir("m.jsonl"), *ck = in_dir("ck.st");
    CHECK(tfile_write(m, "{\"step\":1}\n", 11) == 0); // a previous run's: replaced
    TcliResult r;
    RUN_CASE(r, "--steps", "8", "--fault", "crash:rank=1,step=5", "--watchdog",
             tenv_sanitized() ? "2" : "0.3", "--diagnosis", "none", "--save", ck,
             "--save-every", "3", "--metrics", m);
    CHECK_EQ_INT(r.rc, 3);
    tcli_result_free(&r);
    CHECK(holds_steps(m, 4));
    CHECK_EQ_INT(entries_with("m.jsonl", NULL, 0), 1);
    CHECK_EQ_INT(tckpt_step(ck), 3);
    RUN_CASE(r, "--steps", "8", "--resume", ck, "--metrics", m);
    if (r.rc != 0)
        show("resume into the log", &r);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    CHECK(holds_steps(m, 8));
    const char *full = in_dir("full.jsonl");
    RUN_CASE(r, "--steps", "8", "--metrics", full);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    CHECK(same_metrics(full, in_dir("m.jsonl")));
    // a line cut short (a power cut) ends what a resumed run keeps
    size_t len = 0;
    char *text = tfile_read(full, &len);
    CHECK(text != NULL && len > 40);
    char *third = strstr(text, "{\"step\":3,");
    CHECK(third != NULL);
    CHECK(tfile_write(in_dir("m.jsonl"), text, (size_t)(third - text) + 20) == 0);
    free(text);
    RUN_CASE(r, "--steps", "8", "--resume", ck, "--metrics", in_dir("m.jsonl"));
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    long long steps[16];
    CHECK_EQ_INT(metrics_steps(in_dir("m.jsonl"), steps, 16), 7); // 1, 2, then 4 to 8
    CHECK(steps[1] == 2 && steps[2] == 4 && steps[6] == 8);
    unlink(full);
    remove_with("m.jsonl");
    remove_with("ck.st");
    return 0;
}

// kill -9 in the middle of a long run: every line is whole and the steps
// run from 1 without a gap; save-crash's SIGKILL in step 4's checkpoint
// keeps step 4's line, written before the save.
static int test_metrics_kill9(void) {
    remove_with("m.jsonl");
    const char *m = in_dir("m.jsonl");
    const char *argv[] = {exe, "run", BASE, "--steps", "1000000", "--metrics", m, NULL};
    pid_t pid = spawn_quiet(argv);
    CHECK(pid >= 0);
    double t0 = now_s();
    size_t len = 0;
    for (char *t = NULL; len < 4000 && now_s() - t0 < 15; sleep_s(0.002)) {
        t = tfile_read(m, &len);
        free(t);
    }
    kill(pid, SIGKILL);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    long long steps[4096];
    int n = metrics_steps(m, steps, 4096);
    CHECK(n >= 10);
    CHECK(holds_steps(m, n));
    CHECK_EQ_INT(entries_with("m.jsonl", NULL, 0), 1);
    remove_with("ck.st");
    TcliResult r;
    RUN_CASE(r, "--steps", "6", "--save", in_dir("ck.st"), "--save-every", "2", "--fault",
             "save-crash:step=4", "--metrics", m);
    CHECK_EQ_INT(r.rc, 128 + SIGKILL);
    tcli_result_free(&r);
    CHECK(holds_steps(m, 4));
    CHECK_EQ_INT(entries_with("m.jsonl", NULL, 0), 1);
    remove_with("ck.st");
    remove_with("m.jsonl");
    return 0;
}

// ----------------------------------------------------------------------------
// seeds, and every kind's event

// --fault seeds: rank 0's first collective is no longer the initial
// broadcast, and two ranks reading the same batch (no-sampler) log
// different losses at step 1 (they start from different weights).
static int test_seeds(void) {
    const char *trace = in_dir("seeds.jsonl");
    for (int fault = 0; fault <= 1; fault++) {
        TcliResult r;
        if (fault)
            RUN_CASE(r, "--steps", "2", "--fault", "no-sampler", "--fault", "seeds", "--trace",
                     trace);
        else
            RUN_CASE(r, "--steps", "2", "--fault", "no-sampler", "--trace", trace);
        CHECK_EQ_INT(r.rc, 0);
        tcli_result_free(&r);
        int n = 0;
        cJSON **coll = tev_read(trace, "coll", NULL, -1, &n);
        const char *first = NULL;
        for (int i = 0; i < n && !first; i++)
            if (tev_num(coll[i], "rank") == 0)
                first = tev_str(coll[i], "coll");
        CHECK(first != NULL);
        CHECK((strcmp(first, "broadcast") == 0) == !fault);
        tev_free(coll, n);
        double loss[2] = {-1, -1};
        cJSON **marks = tev_read(trace, "marker", "end", -1, &n);
        for (int i = 0; i < n; i++)
            if (tev_num(marks[i], "step") == 0 && strcmp(tev_str(marks[i], "name"), "iteration") == 0)
                loss[(int)tev_num(marks[i], "rank") & 1] = tev_num(marks[i], "value");
        tev_free(marks, n);
        CHECK(loss[0] > 0 && loss[1] > 0);
        if (fault)
            CHECK(loss[0] != loss[1]);
        else
            CHECK(loss[0] == loss[1]);
    }
    unlink(trace);
    return 0;
}

// Each kind through the command line: the run completes (save-crash and
// unused aside, tested above) and its event is in the trace.
static int test_events(void) {
    const char *trace = in_dir("ev.jsonl");
    struct {
        const char *fault, *extra, *want;
        int rank;
    } cases[] = {
        {"no-set-epoch", "--shuffle", "epoch 1 repeats epoch 0's order", 0},
        {"no-sampler", NULL, "every rank reads the whole dataset", 0},
        {"loss-not-divided", "--accum", "gradients 2 times too large", 0},
        {"seeds", NULL, "seeds: each rank initialised", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TcliResult r;
        const char *extra = cases[i].extra;
        const char *val = extra && strcmp(extra, "--accum") == 0 ? "2" : "1";
        if (extra)
            RUN_CASE(r, "--epochs", "2", "--fault", cases[i].fault, extra, val, "--trace", trace);
        else
            RUN_CASE(r, "--epochs", "2", "--fault", cases[i].fault, "--trace", trace);
        if (r.rc != 0)
            show(cases[i].fault, &r);
        CHECK_EQ_INT(r.rc, 0);
        // no-sampler: each rank's epoch is the whole dataset (256 / 16)
        if (strcmp(cases[i].fault, "no-sampler") == 0)
            CHECK_STR_CONTAINS(r.out, "16 batches per epoch");
        tcli_result_free(&r);
        CHECK(tev_one_injected(trace, cases[i].rank, cases[i].want) == 0);
    }
    // no-set-epoch's markers: epoch 1 starts where epoch 0 started
    int n = 0;
    TcliResult r;
    RUN_CASE(r, "--epochs", "2", "--fault", "no-set-epoch", "--trace", trace);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    cJSON **marks = tev_read(trace, "marker", NULL, -1, &n);
    double first[2][2] = {{-1, -1}, {-1, -1}};
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(tev_str(marks[i], "name"), "epoch") != 0)
            continue;
        int rank = (int)tev_num(marks[i], "rank"), ep = (int)tev_num(marks[i], "chunk");
        CHECK(rank >= 0 && rank < 2 && ep >= 0 && ep < 2);
        CHECK_EQ_INT(tev_num(marks[i], "count"), 0);
        first[rank][ep] = tev_num(marks[i], "value");
        seen++;
    }
    tev_free(marks, n);
    CHECK_EQ_INT(seen, 4);
    CHECK(first[0][0] >= 0 && first[0][0] == first[0][1]);
    CHECK(first[1][0] >= 0 && first[1][0] == first[1][1] && first[1][0] != first[0][0]);
    unlink(trace);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "faulttrain") != 0)
        return 2;
    int failures = 0;
    RUN(test_unused);
    RUN(test_save_crash);
    RUN(test_kill9);
    RUN(test_damaged);
    RUN(test_metrics_crash);
    RUN(test_metrics_kill9);
    RUN(test_seeds);
    RUN(test_events);
    if (failures == 0)
        tfile_rmtree(dir);
    return failures ? 1 : 0;
}
