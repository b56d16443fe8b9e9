// tests/test_cli_fault_reach.c: faults that can never fire are refused, for
// every kind, through `ddplab run`:
//   before the run   a step past the run's end (--steps, --epochs with
//                    accumulation, --stop-after), a step before a resumed
//                    run's first, a rank the world lacks, no-set-epoch in a
//                    run that stays in epoch 0, loss-not-divided without
//                    accumulation, a second fault of a kind a run takes
//                    once, two faults on one collective: exit 2, one line on
//                    stderr in the words "--fault 'SPEC': ...; this run
//                    (steps A to B) ...", nothing on stdout, and the files
//                    named by --metrics, --save and --trace untouched;
//   when the step    a collective the step never launches (coll= past the
//   ends             step's count, which depends on the strategy and the
//                    bucket plan): exit 2 at once (no watchdog), one line
//                    naming how many collectives the rank launched, no
//                    checkpoint and no trace;
//   at the boundary  the last step, the first step of epoch 1 and the last
//                    collective of a step are accepted and fire.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 30.0

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

// 2 DDP ranks, 8 batches of 16 per epoch; every case adds its own length.
#define BASE "--strategy", "ddp", "-n", "2", "--model", "mlp:16,32,4", "--data", \
             "blobs:n=256,features=16,classes=4", "--batch", "16", "--loss-log", "rank0", \
             "--watchdog", "5", "--diagnosis", "none"

static const char old_metrics[] = "{\"step\":1,\"loss\":0.5}\n";

// Runs `ddplab run BASE args... --metrics m.jsonl --save out.st --trace
// t.jsonl` over a metrics file that holds old_metrics; the result is the
// caller's to free.
static void run_case(TcliResult *r, const char *const *args) {
    const char *argv[64] = {"run", BASE};
    int n = 0;
    while (argv[n])
        n++;
    for (; *args && n < 56; args++)
        argv[n++] = *args;
    argv[n++] = "--metrics";
    argv[n++] = in_dir("m.jsonl");
    argv[n++] = "--save";
    argv[n++] = in_dir("out.st");
    argv[n++] = "--trace";
    argv[n++] = in_dir("t.jsonl");
    argv[n] = NULL;
    unlink(in_dir("out.st"));
    unlink(in_dir("t.jsonl"));
    tfile_write(in_dir("m.jsonl"), old_metrics, sizeof old_metrics - 1);
    tcli_run(r, exe, argv, TIMEOUT_S);
}

static int metrics_untouched(void) {
    size_t len = 0;
    char *m = tfile_read(in_dir("m.jsonl"), &len);
    int same = m && len == sizeof old_metrics - 1 && memcmp(m, old_metrics, len) == 0;
    free(m);
    return same;
}

// A refusal before the run: exit 2, one line holding every want, no stdout,
// no checkpoint, no trace, the metrics file as it was.
static int refused_before(const char *const *args, const char *const *want) {
    TcliResult r;
    run_case(&r, args);
    int ok = r.rc == 2 && tcli_lines(r.err) == 1 &&
             strncmp(r.err, "ddplab run: --fault '", 21) == 0 && r.out[0] == '\0' &&
             !tfile_exists(in_dir("out.st")) && !tfile_exists(in_dir("t.jsonl")) &&
             metrics_untouched();
    for (; *want && ok; want++)
        ok = strstr(r.err, *want) != NULL;
    if (!ok) {
        fprintf(stderr, "case:");
        for (int i = 0; args[i]; i++)
            fprintf(stderr, " %s", args[i]);
        fprintf(stderr, "\n  rc %d, checkpoint %d, trace %d, metrics untouched %d\n"
                        "  stderr: %s  stdout: %.300s\n",
                r.rc, tfile_exists(in_dir("out.st")), tfile_exists(in_dir("t.jsonl")),
                metrics_untouched(), r.err, r.out);
    }
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

#define BEFORE(ARGS, ...)                                                      \
    do {                                                                       \
        const char *args_[] = {ARGS, NULL};                                    \
        const char *want_[] = {__VA_ARGS__, NULL};                             \
        CHECK(refused_before(args_, want_) == 0);                              \
    } while (0)
#define A(...) __VA_ARGS__

static int test_steps(void) {
    BEFORE(A("--steps", "3", "--fault", "crash:rank=1,step=99"),
           "--fault 'crash:rank=1,step=99': step 99 is never run; this run (steps 1 to 3) ends "
           "at step 3");
    BEFORE(A("--steps", "3", "--fault", "skip:rank=1,step=4"),
           "'skip:rank=1,step=4': step 4 is never run; this run (steps 1 to 3) ends at step 3");
    BEFORE(A("--steps", "20", "--stop-after", "5", "--fault", "mismatch:rank=0,step=6"),
           "step 6 is never run; this run (steps 1 to 5) ends at step 5 (--stop-after 5)");
    // --epochs 2 of 8 batches with --accum 2: 8 optimizer steps
    BEFORE(A("--epochs", "2", "--accum", "2", "--fault", "reorder:rank=1,step=9"),
           "step 9 is never run; this run (steps 1 to 8) ends at step 8");
    BEFORE(A("--steps", "3", "--fault", "unused:rank=1,step=50", "--find-unused-parameters"),
           "'unused:rank=1,step=50': step 50 is never run; this run (steps 1 to 3) ends at "
           "step 3");
    BEFORE(A("--steps", "3", "--fault", "slow-rank:rank=1,factor=2,step=4"),
           "step 4 is never run; this run (steps 1 to 3) ends at step 3");
    BEFORE(A("--steps", "3", "--fault", "save-crash:step=5"),
           "step 5 writes no checkpoint; this run (steps 1 to 3) saves at step 3 (its end)");
    return 0;
}

// A resumed run starts after its checkpoint's step: a fault aimed at one
// collective of an earlier step never fires; one that applies from a step
// on applies at once.
static int test_resumed(void) {
    char ck[600]; // kept: in_dir's buffers are reused
    snprintf(ck, sizeof ck, "%s", in_dir("half.st"));
    const char *first[] = {"run", BASE, "--steps", "6", "--stop-after", "3", "--save", ck, NULL};
    TcliResult r;
    tcli_run(&r, exe, first, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    BEFORE(A("--steps", "6", "--resume", ck, "--fault", "crash:rank=1,step=2"),
           "step 2 is never run; this run (steps 4 to 6, resumed from step 3) starts at step 4");
    BEFORE(A("--steps", "6", "--resume", ck, "--fault", "skip:rank=0,step=3,coll=1"),
           "step 3 is never run; this run (steps 4 to 6, resumed from step 3) starts at step 4");
    BEFORE(A("--steps", "6", "--stop-after", "3", "--resume", ck, "--fault",
             "slow-rank:rank=1,factor=2"),
           "this run (resumed from step 3, its end) has no step left");
    const char *from[] = {"run", BASE, "--steps", "6", "--resume", ck, "--fault",
                          "slow-rank:rank=1,factor=2,step=2", NULL};
    tcli_run(&r, exe, from, TIMEOUT_S);
    if (r.rc != 0)
        tcli_show("slow-rank from a step before the resumed one", &r);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    unlink(ck);
    return 0;
}

static int test_ranks_and_kinds(void) {
    BEFORE(A("--steps", "3", "--fault", "slow-link:rank=2,factor=4"),
           "--fault 'slow-link:rank=2,factor=4': rank 2 does not exist; this run has ranks 0 to "
           "1 (-n 2)");
    BEFORE(A("--steps", "3", "--fault", "crash:rank=7,step=1"), "rank 7 does not exist");
    // 8 batches a step with --accum 1: 8 steps in epoch 0
    BEFORE(A("--steps", "8", "--fault", "no-set-epoch"),
           "--fault 'no-set-epoch': epoch 1 is never reached, so no set_epoch call is missed; "
           "this run (steps 1 to 8) ends at step 8 in epoch 0, whose 8 batches make 8 steps");
    BEFORE(A("--steps", "3", "--fault", "loss-not-divided"),
           "--fault 'loss-not-divided': with --accum 1 the loss divided by 1 is the loss itself");
    BEFORE(A("--steps", "3", "--fault", "seeds", "--fault", "seeds"),
           "a second seeds fault (the first is 'seeds')", "would never apply");
    BEFORE(A("--steps", "3", "--fault", "no-sampler", "--fault", "no-sampler"),
           "a second no-sampler fault");
    BEFORE(A("--steps", "3", "--fault", "save-crash:step=3", "--fault", "save-crash"),
           "--fault 'save-crash': a second save-crash fault (the first is 'save-crash:step=3')");
    BEFORE(A("--steps", "3", "--fault", "skip:rank=1,step=2", "--fault",
             "crash:rank=1,step=2,coll=0"),
           "--fault 'crash:rank=1,step=2,coll=0': rank 1's collective 0 of step 2 is already the "
           "target of --fault 'skip:rank=1,step=2'", "never fire");
    BEFORE(A("--steps", "3", "--fault", "reorder:rank=1,step=2,coll=1", "--fault",
             "mismatch:rank=1,step=2,coll=2"),
           "rank 1's collective 2 of step 2 is already the target of --fault "
           "'reorder:rank=1,step=2,coll=1'");
    return 0;
}

// The last line of s (its final '\n' aside), or s.
static const char *last_line(const char *s) {
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '\n')
        n--;
    while (n > 0 && s[n - 1] != '\n')
        n--;
    return s + n;
}

// Found when the step ends: exit 2 at once (not by the watchdog, which
// would name itself), one line after the progress lines of the steps
// before, no checkpoint, no trace.
static int refused_after(const char *const *args, const char *want) {
    TcliResult r;
    run_case(&r, args);
    const char *line = last_line(r.err);
    int ok = r.rc == 2 && strstr(line, want) != NULL &&
             strncmp(line, "ddplab run: --fault '", 21) == 0 && strstr(r.err, "watchdog") == NULL &&
             !tfile_exists(in_dir("out.st")) && !tfile_exists(in_dir("t.jsonl"));
    // every line before it is a step's progress line
    for (const char *p = r.err; ok && p < line; p = strchr(p, '\n') + 1)
        ok = strncmp(p, "step ", 5) == 0;
    if (!ok) {
        fprintf(stderr, "case %s: rc %d, checkpoint %d, trace %d\n  stderr: %s\n",
                args[3], r.rc, tfile_exists(in_dir("out.st")),
                tfile_exists(in_dir("t.jsonl")), r.err);
    }
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

#define AFTER(WANT, ...)                                                       \
    do {                                                                       \
        const char *args_[] = {"--steps", "3", "--fault", __VA_ARGS__, NULL};  \
        CHECK(refused_after(args_, WANT) == 0);                                \
    } while (0)

static int test_collectives(void) {
    // step 2 launches the rebuilt bucket order's broadcast and the one
    // bucket's all_reduce (the logged loss is rank 0's: no third)
    AFTER("--fault 'skip:rank=1,step=2,coll=999': collective 999 of step 2 is never launched; "
          "step 2 launched 2 collectives (coll=0 to 1)",
          "skip:rank=1,step=2,coll=999");
    AFTER("collective 2 of step 3 is never launched; step 3 launched 1 collective (coll=0 to 0)",
          "mismatch:rank=0,step=3,coll=2");
    AFTER("collective 5 of step 1 is never launched", "reorder:rank=1,step=1,coll=5");
    AFTER("collective 1 of step 3 is never launched", "crash:rank=1,step=3,coll=1");
    return 0;
}

// The last step, the first step of epoch 1 and a step's last collective
// are in reach: the faults fire (their run completes, or fails as the fault
// makes it fail).
static int test_boundaries(void) {
    TcliResult r;
    const char *slow[] = {"run", BASE, "--steps", "3", "--fault",
                          "slow-rank:rank=1,factor=2,step=3", NULL};
    tcli_run(&r, exe, slow, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    const char *epoch[] = {"run", BASE, "--steps", "9", "--fault", "no-set-epoch", NULL};
    tcli_run(&r, exe, epoch, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    const char *accum[] = {"run", BASE, "--steps", "2", "--accum", "2", "--fault",
                           "loss-not-divided", NULL};
    tcli_run(&r, exe, accum, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    // step 3's one collective, skipped: rank 0 waits for it until the watchdog
    const char *last[] = {"run", BASE, "--steps", "3", "--watchdog", "0.3", "--fault",
                          "skip:rank=1,step=3,coll=0", NULL};
    tcli_run(&r, exe, last, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "watchdog");
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "faultreach") != 0)
        return 2;
    int failures = 0;
    RUN(test_steps);
    RUN(test_resumed);
    RUN(test_ranks_and_kinds);
    RUN(test_collectives);
    RUN(test_boundaries);
    if (failures == 0)
        tfile_rmtree(dir);
    return failures ? 1 : 0;
}
