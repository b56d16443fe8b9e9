// tests/test_cli_async_ps.c: `ddplab run --strategy async-ps` as a user runs it.
//
// - One worker (-n 2, one server; and -n 3 with two servers) equals
//   single-process training: the saved parameters and optimizer state are
//   bit for bit those of --strategy single.
// - --max-staleness 0 with 3 workers (bulk synchronous, the mean of each
//   round) equals DDP with 3 ranks within 1e-5.
// - A fixed straggler: 3 workers, rank 3 2.5x slow, one server, 3 pushes
//   each. With pull and push transfers of p seconds (serialised on the
//   server's link) and a fast compute of c (p < c / 2), by hand:
//     w0.1 applied at 2p+c   staleness 0 (pulled v0, server at v0)
//     w1.1          3p+c             1
//     w0.2          4p+2c            1 (pulled v1 at 2p+c)
//     w1.2          5p+2c            1 (pulled v2 at 3p+c)
//     w2.1          4p+2.5c          4 (pulled v0; four applies before it)
//     w0.3          6p+3c            2 (pulled v3 at 4p+2c)
//     w1.3          7p+3c            2 (pulled v4 at 5p+2c)
//     w2.2          6p+5c            2 (pulled v5 at 4p+2.5c)
//     w2.3          8p+7.5c          0 (pulled v8, the only one left)
//   so the order 0.1 1.1 0.2 1.2 2.1 0.3 1.3 2.2 2.3 with staleness
//   0 1 1 1 4 2 2 2 0 (mean 13/9). The run must print exactly that.
// - The trace holds the "ps" markers and the "ps.wait" of a bounded run.
// - Bad input: one line, exit 2, naming the option.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static const char *steps = "12";

static int run(TcliResult *res, const char *const *more) {
    const char *argv[64];
    int n = 0;
    const char *common[] = {"run", "--data", "blobs", "--model", "mlp:16,32,32,4", "--batch",
                            "8", "--progress", "lines", NULL};
    for (const char *const *a = common; *a; a++)
        argv[n++] = *a;
    for (; *more && n < 62; more++)
        argv[n++] = *more;
    argv[n] = NULL;
    return tcli_run(res, exe, argv, TIMEOUT_S);
}

#define ARUN(res, ...)                                                          \
    do {                                                                       \
        const char *more_[] = {__VA_ARGS__, NULL};                             \
        run(&(res), more_);                                                    \
    } while (0)

// fp32 tensors of a found in b, within tol (0: bit for bit). Returns the
// number compared, or -1 on a difference or a read failure.
static int compare(const char *a, const char *b, double tol) {
    SimStFile fa, fb;
    if (tckpt_load_pair(a, &fa, b, &fb) != 0)
        return -1;
    int n = 0, bad = 0;
    for (int i = 0; !bad && i < fa.ntensors; i++) {
        const SimStTensor *x = &fa.tensors[i], *y = sim_stfile_find(&fb, x->name);
        if (y == NULL || x->dtype != SIM_FP32 || y->dtype != SIM_FP32 || x->ndim != y->ndim)
            continue;
        size_t numel = 1;
        for (int d = 0; d < x->ndim; d++)
            numel *= (size_t)x->shape[d];
        const float *u = x->data, *v = y->data;
        for (size_t j = 0; !bad && j < numel; j++) {
            double diff = fabs((double)u[j] - (double)v[j]);
            if (tol == 0 ? memcmp(&u[j], &v[j], sizeof(float)) != 0
                         : diff > tol * (1 + fabs((double)v[j]))) {
                fprintf(stderr, "%s[%zu]: %.9g vs %.9g\n", x->name, j, u[j], v[j]);
                bad = 1;
            }
        }
        n++;
    }
    sim_stfile_free(&fa);
    sim_stfile_free(&fb);
    return bad ? -1 : n;
}

static int test_one_worker(void) {
    TcliResult a, s;
    const char *pa = tcli_path(dir, "ps1.st"), *ps = tcli_path(dir, "single1.st");
    ARUN(a, "--strategy", "async-ps", "-n", "2", "--steps", steps, "--optimizer", "adam",
         "--save", pa);
    ARUN(s, "--strategy", "single", "--steps", steps, "--optimizer", "adam", "--save", ps);
    CHECK(a.rc == 0 && s.rc == 0);
    CHECK(strstr(a.out, "staleness over") != NULL && strstr(a.out, "mean 0.000, max 0") != NULL);
    int n = compare(pa, ps, 0);
    CHECK(n >= 6); // the mlp's weights and biases, and adam's state
    tcli_result_free(&a);
    // two servers, each with half the parameters: still the same steps
    const char *p2 = tcli_path(dir, "ps2.st");
    ARUN(a, "--strategy", "async-ps", "-n", "3", "--ps-servers", "2", "--steps", steps,
         "--optimizer", "adam", "--save", p2);
    CHECK(a.rc == 0);
    CHECK(compare(p2, ps, 0) >= 6);
    tcli_result_free(&a);
    tcli_result_free(&s);
    return 0;
}

static int test_bsp_equals_ddp(void) {
    TcliResult a, d;
    const char *pa = tcli_path(dir, "bsp.st"), *pd = tcli_path(dir, "ddp.st");
    ARUN(a, "--strategy", "async-ps", "-n", "4", "--max-staleness", "0", "--steps", steps,
         "--fault", "slow-rank:rank=2,factor=3", "--save", pa);
    ARUN(d, "--strategy", "ddp", "-n", "3", "--steps", steps, "--save", pd);
    CHECK(a.rc == 0 && d.rc == 0);
    CHECK(strstr(a.out, "mean 0.000, max 0") != NULL); // every round applied at once
    CHECK(compare(pa, pd, 1e-5) >= 6);
    tcli_result_free(&a);
    tcli_result_free(&d);
    return 0;
}

static int test_schedule(void) {
    TcliResult a;
    ARUN(a, "--strategy", "async-ps", "-n", "4", "--steps", "3", "--fault",
         "slow-rank:rank=3,factor=2.5");
    CHECK(a.rc == 0);
    CHECK(strstr(a.out, "apply order (server:worker.push/staleness): 0:0.1/0 0:1.1/1 0:0.2/1 "
                        "0:1.2/1 0:2.1/4 0:0.3/2 0:1.3/2 0:2.2/2 0:2.3/0\n") != NULL);
    CHECK(strstr(a.out, "staleness over 9 applies: mean 1.444, max 4; histogram: 0:2 1:3 2:3 "
                        "4:1\n") != NULL);
    tcli_result_free(&a);
    return 0;
}

static int test_trace(void) {
    TcliResult a;
    const char *tr = tcli_path(dir, "ps.jsonl");
    ARUN(a, "--strategy", "async-ps", "-n", "4", "--steps", "4", "--max-staleness", "1",
         "--fault", "slow-rank:rank=3,factor=3", "--trace", tr, "--compare-ddp");
    CHECK(a.rc == 0);
    CHECK(strstr(a.out, "comparison with synchronous DDP") != NULL);
    CHECK(strstr(a.out, "reached DDP's final loss") != NULL);
    size_t len = 0;
    char *t = tfile_read(tr, &len);
    CHECK(t != NULL);
    CHECK(strstr(t, "\"ps.wait\"") != NULL);
    CHECK(strstr(t, "\"apply\"") != NULL && strstr(t, "\"pull\"") != NULL &&
          strstr(t, "\"push\"") != NULL);
    free(t);
    tcli_result_free(&a);
    return 0;
}

// Exit 2 and one line naming `opt`.
static int bad(const char *opt, const char *const *more) {
    TcliResult r;
    run(&r, more);
    int ok = r.rc == 2 && tcli_lines(r.err) == 1 && strstr(r.err, opt) != NULL;
    if (!ok)
        fprintf(stderr, "expected one line about %s, exit 2; got %d: %s\n", opt, r.rc, r.err);
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

#define BAD(opt, ...)                                                           \
    do {                                                                       \
        const char *more_[] = {__VA_ARGS__, NULL};                             \
        CHECK(bad(opt, more_) == 0);                                           \
    } while (0)

static int test_bad_input(void) {
    BAD("--ps-servers", "--strategy", "async-ps", "-n", "1");
    BAD("--ps-servers", "--strategy", "async-ps", "-n", "3", "--ps-servers", "3");
    BAD("--max-staleness", "--strategy", "async-ps", "-n", "3", "--max-staleness", "-1");
    BAD("--max-staleness", "--strategy", "ddp", "-n", "3", "--max-staleness", "2");
    BAD("--compare-ddp", "--strategy", "single", "--compare-ddp");
    BAD("--accum", "--strategy", "async-ps", "-n", "3", "--accum", "2");
    BAD("--phantom", "--strategy", "async-ps", "-n", "3", "--phantom");
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tenv_quick())
        steps = "4";
    if (tfile_mkdtemp(dir, sizeof dir, "async_ps") != 0)
        return 1;
    int fails = 0;
    fails += test_one_worker();
    fails += test_bsp_equals_ddp();
    fails += test_schedule();
    fails += test_trace();
    fails += test_bad_input();
    tfile_rmtree(dir);
    if (fails == 0)
        printf("async-ps: all passed\n");
    return fails ? 1 : 0;
}
