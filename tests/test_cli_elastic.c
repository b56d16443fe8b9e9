// tests/test_cli_elastic.c: `ddplab run --elastic MIN:MAX` as a user runs it.
//
// - DDP, 3 ranks, a crash of rank 2 at step 5, checkpoints every 3 steps:
//   one restart, at 2 ranks from step 3; its final parameters equal, bit
//   for bit, those of a run without a crash that took the same steps at the
//   same sizes (steps 1..3 at 3 ranks with --save, then --resume at 2 to
//   the end). The report names the round, the new size, the effective
//   batch, the learning rate and the work lost; the one trace holds both
//   worlds and the "elastic" markers.
//   A run the restart recovers writes no --diagnosis file (the crash's
//   diagnosis is on stderr), as any run that succeeds.
// - More crashes than --max-restarts: the run stops, naming the count (exit
//   3), and the --diagnosis file holds the last world's diagnosis; so does a
//   run left with fewer than MIN ranks.
// - A join grows the world (2 -> 4 ranks).
// - FSDP with a sharded state dict: a departed rank, resumed resharded at 3
//   ranks, ends with the shards a crash-free run at the same sizes writes.
// - Bad input: one line, exit 2, naming the option.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/dtype.h"
#include "check.h"
#include "formats/safetensors.h"
#include "test_ckpt_util.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"

#define TIMEOUT_S 120.0

static const char *exe;
static char dir[512];
static char steps[16] = "10";
static char diag[600]; // --diagnosis: kept out of the working directory

// Runs `ddplab run` with the common arguments and more (NULL-terminated).
// The watchdog ends each crashed round; a limit a busy machine or a
// sanitizer can outlast would fail rounds that did not crash, and every such
// round is one more restart than the test counts.
static int run(TcliResult *res, const char *const *more) {
    const char *argv[64];
    int n = 0;
    const char *common[] = {"run", "--data", "blobs", "--model", "mlp:16,32,32,4", "--batch",
                            "8", "--steps", steps, "--watchdog", tenv_sanitized() ? "4" : "1",
                            "--progress", "lines", "--diagnosis", diag, NULL};
    for (const char *const *a = common; *a; a++)
        argv[n++] = *a;
    for (; *more && n < 62; more++)
        argv[n++] = *more;
    argv[n] = NULL;
    return tcli_run(res, exe, argv, TIMEOUT_S);
}

#define ERUN(res, ...)                                                          \
    do {                                                                       \
        const char *more_[] = {__VA_ARGS__, NULL};                             \
        run(&(res), more_);                                                    \
    } while (0)

// Every tensor of a and b, bit for bit (metadata aside). 0 when equal.
static int same_tensors(const char *a, const char *b) {
    SimStFile fa, fb;
    if (tckpt_load_pair(a, &fa, b, &fb) != 0)
        return -1;
    int bad = fa.ntensors != fb.ntensors || fa.ntensors == 0;
    for (int i = 0; !bad && i < fa.ntensors; i++) {
        const SimStTensor *x = &fa.tensors[i], *y = sim_stfile_find(&fb, x->name);
        size_t bytes = sim_dtype_size(x->dtype);
        for (int d = 0; d < x->ndim; d++)
            bytes *= (size_t)x->shape[d];
        bad = y == NULL || y->dtype != x->dtype || y->ndim != x->ndim ||
              memcmp(x->shape, y->shape, sizeof x->shape) != 0 ||
              memcmp(x->data, y->data, bytes) != 0;
        if (bad)
            fprintf(stderr, "tensor %s differs between %s and %s\n", x->name, a, b);
    }
    sim_stfile_free(&fa);
    sim_stfile_free(&fb);
    return bad;
}

// The number after "key": in a JSON line (-1 if absent).
static double jnum(const char *line, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(line, k);
    return p ? strtod(p + strlen(k), NULL) : -1;
}

static int test_ddp_crash(void) {
    TcliResult res;
    unlink(diag);
    const char *ck = tcli_path(dir, "el.st"), *tr = tcli_path(dir, "el.jsonl");
    ERUN(res, "--strategy", "ddp", "-n", "3", "--elastic", "2:3", "--save", ck, "--save-every",
        "3", "--fault", "crash:rank=2,step=5", "--trace", tr, "--lr-scale", "linear");
    if (res.rc != 0)
        fprintf(stderr, "%s\n%s\n", res.out, res.err);
    CHECK_EQ_INT(res.rc, 0);
    CHECK_STR_CONTAINS(res.err, "rank 2 crashed (injected fault crash:rank=2,step=5)");
    // the run succeeded: the round's diagnosis was shown, but no file written
    CHECK_STR_CONTAINS(res.err, "probable cause: rank 2 crashed");
    CHECK(!tfile_exists(diag));
    CHECK(strstr(res.out, "diagnosis written to") == NULL);
    CHECK_STR_CONTAINS(res.out, "elastic: round 1: rank 2 (participant 2) crashed at step 5; "
                                "world 3 -> 2 ranks; restart 1 of --max-restarts 3");
    CHECK_STR_CONTAINS(res.out, "at step 3; work lost since it: 1 step, 24 samples");
    CHECK_STR_CONTAINS(res.out, "effective batch 8 x 2 ranks x 1 accum = 16 samples per step "
                                "(was 24)");
    CHECK_STR_CONTAINS(res.out, "lr 0.02 = 0.01 x 2 ranks x 1 accum (--lr-scale linear, applied");
    CHECK_STR_CONTAINS(res.out, "it was 0.03, x 2/3");
    CHECK_STR_CONTAINS(res.out, "training finished in round 1 at 2 ranks after 1 restart "
                                "(rendezvous final)");
    tcli_result_free(&res);
    // the same steps at the same sizes, no crash
    const char *r1 = tcli_path(dir, "ref1.st"), *r2 = tcli_path(dir, "ref2.st");
    ERUN(res, "--strategy", "ddp", "-n", "3", "--stop-after", "3", "--save", r1, "--lr-scale",
        "linear");
    CHECK_EQ_INT(res.rc, 0);
    tcli_result_free(&res);
    ERUN(res, "--strategy", "ddp", "-n", "2", "--resume", r1, "--save", r2, "--lr-scale",
        "linear");
    CHECK_EQ_INT(res.rc, 0);
    tcli_result_free(&res);
    CHECK_EQ_INT(tckpt_step(ck), atoi(steps));
    CHECK_EQ_INT(same_tensors(ck, r2), 0);
    // one trace: both worlds, the markers, times that go on
    size_t len = 0;
    char *t = tfile_read(tr, &len);
    CHECK(t != NULL);
    const char *labels[] = {"\"rendezvous\"", "\"restart\"", "\"resume\""};
    for (int i = 0; i < 3; i++)
        CHECK_STR_CONTAINS(t, labels[i]);
    CHECK_STR_CONTAINS(t, "\"elastic\"");
    // times go on: round 1 starts where round 0 stopped plus the last call
    double restart_at = -1, resume_at = -1, latest = 0;
    int restart_step = -1, restart_world = -1;
    for (char *line = t; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        double start = jnum(line, "sim_start");
        if (strstr(line, "\"label\":\"restart\"")) {
            restart_at = start;
            restart_step = (int)jnum(line, "step");
            restart_world = (int)jnum(line, "value");
        } else if (strstr(line, "\"label\":\"resume\"")) {
            resume_at = start;
        } else if (start > latest) {
            latest = start;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(t);
    CHECK(restart_at > 0);
    CHECK_EQ_INT(restart_step, 3);
    CHECK_EQ_INT(restart_world, 2);
    CHECK_NEAR(resume_at, restart_at + 30.0, 1e-9); // 2 of MAX 3: the last call ran out
    CHECK(latest > resume_at);                      // the second world's events follow
    return 0;
}

// The --diagnosis file of a failed run: the last world's diagnosis, naming
// the rank that crashed, and said on stdout once.
static int check_diag_file(const TcliResult *res, const char *crashed) {
    CHECK(tfile_exists(diag));
    char *text = tfile_read(diag, NULL);
    CHECK(text != NULL);
    int named = strstr(text, crashed) != NULL;
    if (!named)
        fprintf(stderr, "%s does not name %s:\n%s\n", diag, crashed, text);
    free(text);
    CHECK(named);
    const char *said = strstr(res->out, "diagnosis written to ");
    CHECK(said != NULL);
    CHECK(strstr(said + 1, "diagnosis written to ") == NULL);
    unlink(diag);
    return 0;
}

static int test_max_restarts(void) {
    TcliResult res;
    unlink(diag);
    ERUN(res, "--strategy", "ddp", "-n", "4", "--elastic", "2:4", "--save",
        tcli_path(dir, "mr.st"), "--save-every", "2", "--fault", "crash:rank=3,step=3",
        "--fault", "crash:rank=1,step=6", "--max-restarts", "1");
    CHECK_EQ_INT(res.rc, 3);
    CHECK_STR_CONTAINS(res.err, "--max-restarts 1: rank 1 (participant 1) crashed at step 6; "
                                "that is restart 2, more than 1 allowed: the run stops");
    if (check_diag_file(&res, "rank 1 crashed"))
        return 1;
    tcli_result_free(&res);
    // fewer than MIN survivors
    ERUN(res, "--strategy", "ddp", "-n", "2", "--elastic", "2:2", "--save",
        tcli_path(dir, "min.st"), "--save-every", "2", "--fault", "crash:rank=1,step=3");
    CHECK_EQ_INT(res.rc, 3);
    CHECK_STR_CONTAINS(res.err, "1 rank left after round 0, fewer than MIN 2: the run stops");
    if (check_diag_file(&res, "rank 1 crashed"))
        return 1;
    tcli_result_free(&res);
    return 0;
}

static int test_join(void) {
    TcliResult res;
    ERUN(res, "--strategy", "ddp", "-n", "2", "--elastic", "2:4", "--save",
        tcli_path(dir, "join.st"), "--save-every", "2", "--membership", "join:step=4,ranks=2",
         "--trace", tcli_path(dir, "join.jsonl"));
    CHECK_EQ_INT(res.rc, 0);
    CHECK_STR_CONTAINS(res.out, "elastic: round 1: 2 ranks asked to join at step 4; world 2 -> "
                                "4 ranks (a membership change: not counted as a restart)");
    CHECK_STR_CONTAINS(res.out, "at step 2; work lost since it: 1 step, 16 samples");
    CHECK_STR_CONTAINS(res.out, "effective batch 8 x 4 ranks x 1 accum = 32 samples");
    CHECK_STR_CONTAINS(res.out, "lr 0.01 unchanged (torchrun does not rescale");
    CHECK_STR_CONTAINS(res.out, "training finished in round 1 at 4 ranks after 0 restarts");
    tcli_result_free(&res);
    char *t = tfile_read(tcli_path(dir, "join.jsonl"), NULL);
    CHECK(t != NULL);
    int joins = 0;
    for (const char *p = t; (p = strstr(p, "\"label\":\"join\"")) != NULL; p++)
        joins++;
    CHECK_STR_CONTAINS(t, "\"rank\":3,\"stream\":\"compute\"");
    free(t);
    CHECK_EQ_INT(joins, 2); // on each rank of the world that stopped
    return 0;
}

static int test_fsdp(void) {
    TcliResult res;
    const char *ck = tcli_path(dir, "fs.st");
    ERUN(res, "--strategy", "fsdp", "--state-dict", "sharded", "-n", "4", "--elastic", "2:4",
        "--save", ck, "--save-every", "3", "--membership", "leave:rank=1,step=5", "--trace",
         tcli_path(dir, "fs.jsonl"));
    if (res.rc != 0)
        fprintf(stderr, "%s\n%s\n", res.out, res.err);
    CHECK_EQ_INT(res.rc, 0);
    CHECK_STR_CONTAINS(res.out, "rank 1 (participant 1) left at step 5; world 4 -> 3 ranks");
    CHECK_STR_CONTAINS(res.out, "resume from");
    tcli_result_free(&res);
    char *t = tfile_read(tcli_path(dir, "fs.jsonl"), NULL);
    CHECK(t != NULL);
    int leaves = 0, restarts = 0;
    for (const char *p = t; (p = strstr(p, "\"label\":\"leave\"")) != NULL; p++)
        leaves++;
    for (const char *p = t; (p = strstr(p, "\"label\":\"restart\"")) != NULL; p++)
        restarts++;
    free(t);
    CHECK_EQ_INT(leaves, 1);   // the rank that left
    CHECK_EQ_INT(restarts, 3); // the three that stayed
    const char *r1 = tcli_path(dir, "fr1.st"), *r2 = tcli_path(dir, "fr2.st");
    ERUN(res, "--strategy", "fsdp", "--state-dict", "sharded", "-n", "4", "--stop-after", "3",
        "--save", r1);
    CHECK_EQ_INT(res.rc, 0);
    tcli_result_free(&res);
    ERUN(res, "--strategy", "fsdp", "--state-dict", "sharded", "-n", "3", "--resume", r1,
        "--save", r2);
    CHECK_EQ_INT(res.rc, 0);
    tcli_result_free(&res);
    for (int g = 0; g < 3; g++) {
        char a[600], b[600];
        snprintf(a, sizeof a, "%s.step%s.shard%d-of-3.safetensors", ck, steps, g);
        snprintf(b, sizeof b, "%s.step%s.shard%d-of-3.safetensors", r2, steps, g);
        CHECK_EQ_INT(same_tensors(a, b), 0);
    }
    return 0;
}

static int test_bad_input(void) {
    char save[600];
    snprintf(save, sizeof save, "%s/bad.st", dir);
    struct {
        const char *args[12];
        const char *msg;
    } cases[] = {
        {{"--strategy", "ddp", "-n", "2", "--elastic", "3:2", "--save", save},
         "--elastic: '3:2' has MIN above MAX"},
        {{"--strategy", "ddp", "-n", "2", "--elastic", "0:2", "--save", save},
         "--elastic: '0:2' has MIN below 1"},
        {{"--strategy", "ddp", "-n", "2", "--elastic", "2", "--save", save},
         "--elastic: '2' is not MIN:MAX"},
        {{"--strategy", "ddp", "-n", "5", "--elastic", "2:4", "--save", save},
         "--ranks: '5' is outside --elastic MIN:MAX; allowed: -n from 2 to 4"},
        {{"--strategy", "ddp", "-n", "2", "--elastic", "2:4"},
         "--elastic: '2:4' needs checkpoints"},
        {{"--strategy", "ddp", "-n", "2", "--elastic", "2:4", "--save", save, "--membership",
          "grow:step=3"},
         "--membership: 'grow:step=3' is not a membership change"},
        {{"--strategy", "ddp", "-n", "2", "--elastic", "2:4", "--save", save, "--membership",
          "leave:rank=5,step=3"},
         "--membership: 'leave:rank=5,step=3' names a rank outside -n"},
        {{"--strategy", "ddp", "-n", "2", "--elastic", "2:4", "--save", save, "--max-restarts",
          "-1"},
         "--max-restarts: '-1' is negative"},
        {{"--strategy", "dp", "-n", "2", "--elastic", "2:4", "--save", save},
         "--strategy: 'dp' cannot be combined with --elastic"},
        {{"--strategy", "ddp", "-n", "2", "--max-restarts", "2"},
         "--max-restarts: '2' needs --elastic MIN:MAX"},
        {{"--strategy", "ddp", "-n", "2", "--membership", "join:step=2"},
         "--membership: 'join:step=2' needs --elastic MIN:MAX"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        TcliResult res;
        run(&res, cases[i].args);
        CHECK_EQ_INT(res.rc, 2);
        CHECK_EQ_INT(tcli_lines(res.err), 1);
        CHECK_STR_CONTAINS(res.err, cases[i].msg);
        CHECK_STR_CONTAINS(res.err, "allowed: ");
        tcli_result_free(&res);
    }
    CHECK(!tfile_exists(save));
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "elastic") != 0)
        return 2;
    snprintf(diag, sizeof diag, "%s/diag.txt", dir);
    if (tenv_quick())
        snprintf(steps, sizeof steps, "8");
    int fails = 0;
    fails += test_ddp_crash();
    fails += test_max_restarts();
    fails += test_join();
    fails += test_fsdp();
    fails += test_bad_input();
    tfile_rmtree(dir);
    if (fails == 0)
        printf("test_cli_elastic: ok\n");
    return fails != 0;
}
