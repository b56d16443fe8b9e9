// tests/test_cli_fault_comm.c: the collective-level --fault kinds through
// `ddplab run`, on a DDP run of 4 ranks whose buckets from step 2 on are
// (bytes) 1,058,832 / 2,048 / 32,768 / 1,088 / 1,088 / 1,088, so that
// step 3's collectives 0-5 are the six buckets' all_reduces and 6 the
// loss's (checked first, with --print-buckets):
//   skip      a middle bucket: exit 3, the protocol check names the sizes;
//             the loss's all_reduce of the last step: exit 3 after the
//             watchdog, which names the rank that never arrived
//   mismatch  count and op: exit 3 naming the rank and the collective
//   reorder   buckets of unequal sizes: exit 3 (protocol); of equal sizes:
//             exit 0, and the checkpoint's parameters of exactly those two
//             buckets differ from the fault-free run's
//   crash     exit 3 within the watchdog's bound; stderr says which rank
//             crashed where
//   slow-rank exit 0; the straggler's compute takes 3x as long, the run's
//             simulated time grows by the others' waiting
//   slow-link exit 0; every bucket's all_reduce takes 4x as long
// Each leaves its one "injected" event in the exported trace.
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "formats/safetensors.h"
#include "test_ckpt_util.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"
#include "test_trace_events.h"

#define TIMEOUT_S 60.0

static const char *exe;
static char dir[512];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *in_dir(const char *name) {
    return tcli_path(dir, name);
}

// The watchdog's limit: long enough that no rank of a fault-free stretch
// is taken for hung while a busy machine or a sanitizer slows it down, short
// enough to keep the hang cases quick.
static const char *watchdog_s(void) { return tenv_sanitized() ? "5" : "2"; }

#define BASE "--strategy", "ddp", "-n", "4", "--data", "blobs", "--model",                    \
             "mlp:16,16,16,16,512,512,4", "--bucket-cap-mb", "0.001", "--steps", "3",        \
             "--watchdog", watchdog_s(), "--diagnosis", "none"

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
    fprintf(stderr, "%s: rc %d\n  stderr: %.2000s\n", what, r->rc, r->err ? r->err : "");
}

// ----------------------------------------------------------------------------
// the exported trace (JSON lines)






// The summed simulated duration of rank's events of a kind (name NULL: any).
static double total_time(const char *trace, const char *kind, int rank, const char *name) {
    int n = 0;
    cJSON **ev = tev_read(trace, kind, NULL, rank, &n);
    double t = 0;
    for (int i = 0; i < n; i++)
        if (name == NULL || strcmp(tev_str(ev[i], "name"), name) == 0)
            t += tev_num(ev[i], "sim_end") - tev_num(ev[i], "sim_start");
    tev_free(ev, n);
    return t;
}

// "simulated time 0.001018 s" of the summary, or -1.
static double sim_time(const char *out) {
    const char *p = out ? strstr(out, "simulated time ") : NULL;
    return p ? atof(p + strlen("simulated time ")) : -1;
}

// ----------------------------------------------------------------------------

static int test_bucket_plan(void) {
    TcliResult r;
    RUN_CASE(r, "--print-buckets");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "rebuilt after the first backward from the gradient-ready order: 6 "
                              "buckets");
    CHECK_STR_CONTAINS(r.out, "bucket 1: 2,048 bytes");
    CHECK_STR_CONTAINS(r.out, "bucket 2: 32,768 bytes");
    CHECK_STR_CONTAINS(r.out, "bucket 3: 1,088 bytes (limit 1,048): 4.bias 4.weight");
    CHECK_STR_CONTAINS(r.out, "bucket 4: 1,088 bytes (limit 1,048): 2.bias 2.weight");
    tcli_result_free(&r);
    return 0;
}

static int test_skip_middle(void) {
    TcliResult r;
    const char *trace = in_dir("skip.jsonl");
    RUN_CASE(r, "--fault", "skip:rank=1,step=3,coll=1", "--trace", trace);
    if (r.rc != 3)
        show("skip", &r);
    CHECK_EQ_INT(r.rc, 3);
    // rank 1's #12 is bucket 2 (8192 elements); the others' is bucket 1 (512)
    CHECK_STR_CONTAINS(r.err, "AllReduce #12: rank 1 count 8192 != rank 0 count 512");
    CHECK(tev_one_injected(trace, 1, "fault skip:rank=1,step=3,coll=1: rank 1 skips AllReduce #12 "
                                 "(512 x fp32) (step 3, collective 1)") == 0);
    tcli_result_free(&r);
    // the views stop at it and caption it (here: a replay of the failed run)
    TCLI_RUN(r, exe, TIMEOUT_S, "replay", trace, "--viz", "text", "--viz-stops", "fault",
             "--viz-width", "200");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "> rank 1: injected fault skip:rank=1,step=3,coll=1: rank 1 skips "
                              "AllReduce #12 (512 x fp32)");
    tcli_result_free(&r);
    return 0;
}

static int test_skip_last_hangs(void) {
    TcliResult r;
    double w0 = now_s();
    RUN_CASE(r, "--fault", "skip:rank=1,step=3,coll=6");
    double wall = now_s() - w0;
    if (r.rc != 3)
        show("skip last", &r);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "watchdog");
    CHECK_STR_CONTAINS(r.err, "rank 1 never arrived");
    printf("  ended by the watchdog after %.2f s\n", wall);
    tcli_result_free(&r);
    return 0;
}

static int test_mismatch(void) {
    TcliResult r;
    const char *trace = in_dir("mismatch.jsonl");
    RUN_CASE(r, "--fault", "mismatch:rank=2,step=3,coll=2", "--trace", trace);
    if (r.rc != 3)
        show("mismatch count", &r);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "AllReduce #13: rank 2 count 8191 != rank 0 count 8192");
    CHECK(tev_one_injected(trace, 2, "rank 2 calls AllReduce #13 (8192 x fp32) with 8191 elements "
                                 "instead of 8192") == 0);
    tcli_result_free(&r);

    RUN_CASE(r, "--fault", "mismatch:rank=2,step=3,coll=2,as=op", "--trace", trace);
    if (r.rc != 3)
        show("mismatch op", &r);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "collective #13: rank 2 called Broadcast, rank 0 called AllReduce");
    CHECK(tev_one_injected(trace, 2, "rank 2 calls AllReduce #13 (8192 x fp32) as a Broadcast from "
                                 "rank 0") == 0);
    tcli_result_free(&r);
    return 0;
}

static int test_reorder_unequal(void) {
    TcliResult r;
    const char *trace = in_dir("reorder.jsonl");
    RUN_CASE(r, "--fault", "reorder:rank=1,step=3,coll=1", "--trace", trace);
    if (r.rc != 3)
        show("reorder", &r);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "AllReduce #12: rank 1 count 8192 != rank 0 count 512");
    CHECK(tev_one_injected(trace, 1, "rank 1 launches collective 2 of step 3, AllReduce #12 (8192 x "
                                 "fp32), before collective 1, AllReduce #13 (512 x fp32)") == 0);
    tcli_result_free(&r);
    return 0;
}

// 1 if tensor `name` holds the same bytes in both files.
static int same_tensor(const SimStFile *a, const SimStFile *b, const char *name, int *same) {
    const SimStTensor *x = sim_stfile_find(a, name), *y = sim_stfile_find(b, name);
    CHECK(x && y && x->ndim == y->ndim);
    size_t n = 1;
    for (int d = 0; d < x->ndim; d++) {
        CHECK_EQ_INT(x->shape[d], y->shape[d]);
        n *= (size_t)x->shape[d];
    }
    *same = memcmp(x->data, y->data, n * sizeof(float)) == 0;
    return 0;
}

static int test_reorder_equal_swaps(void) {
    TcliResult r;
    const char *clean = in_dir("clean.st"), *swapped = in_dir("swapped.st");
    const char *trace = in_dir("swap.jsonl");
    RUN_CASE(r, "--save", clean);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    RUN_CASE(r, "--save", swapped, "--fault", "reorder:rank=1,step=3,coll=3", "--trace", trace);
    if (r.rc != 0)
        show("reorder of equal buckets", &r);
    CHECK_EQ_INT(r.rc, 0); // nothing notices
    tcli_result_free(&r);
    CHECK(tev_one_injected(trace, 1, "rank 1 launches collective 4 of step 3, AllReduce #14 (272 x "
                                 "fp32), before collective 3, AllReduce #15 (272 x fp32)") == 0);
    // rank 0 saves: its buckets 3 (4.*) and 4 (2.*) received rank 1's
    // gradients of the other one; everything else is as without the fault
    SimStFile a, b;
    CHECK(tckpt_load_pair(clean, &a, swapped, &b) == 0);
    int same[6];
    const char *names[6] = {"4.weight", "4.bias", "2.weight", "2.bias", "10.weight", "0.weight"};
    for (int i = 0; i < 6; i++)
        CHECK(same_tensor(&a, &b, names[i], &same[i]) == 0);
    sim_stfile_free(&a);
    sim_stfile_free(&b);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(same[i], 0);
    CHECK_EQ_INT(same[4], 1);
    CHECK_EQ_INT(same[5], 1);
    return 0;
}

static int test_crash(void) {
    TcliResult r;
    const char *trace = in_dir("crash.jsonl");
    double w0 = now_s();
    RUN_CASE(r, "--fault", "crash:rank=2,step=3,coll=2", "--trace", trace);
    double wall = now_s() - w0;
    if (r.rc != 3)
        show("crash", &r);
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "ddplab run: ddp (backward): rank 2 crashed (injected fault "
                              "crash:rank=2,step=3,coll=2) as it was about to launch AllReduce "
                              "#13 in step 3");
    CHECK_STR_CONTAINS(r.err, "watchdog");
    // the watchdog ended it, as the diagnosis says
    printf("  ended by the watchdog after %.2f s\n", wall);
    CHECK(tev_one_injected(trace, 2, "rank 2 crashed as it was about to launch AllReduce #13 (8192 "
                                 "x fp32) (step 3, collective 2)") == 0);
    tcli_result_free(&r);
    return 0;
}

static int test_slow_rank(void) {
    TcliResult r;
    const char *clean = in_dir("clean.jsonl"), *slow = in_dir("slow.jsonl");
    RUN_CASE(r, "--trace", clean);
    CHECK_EQ_INT(r.rc, 0);
    double t0 = sim_time(r.out);
    tcli_result_free(&r);
    RUN_CASE(r, "--fault", "slow-rank:rank=1,factor=3", "--trace", slow);
    if (r.rc != 0)
        show("slow-rank", &r);
    CHECK_EQ_INT(r.rc, 0);
    double t1 = sim_time(r.out);
    tcli_result_free(&r);
    CHECK(t0 > 0 && t1 > 0);
    // the straggler computes 3x as long (the compute before step 1, the
    // weights' initialisation, is not slowed: it is a tiny part)
    double c0 = total_time(clean, "compute", 1, NULL), c1 = total_time(slow, "compute", 1, NULL);
    CHECK(c1 > 2.9 * c0 && c1 <= 3.0 * c0 * (1 + 1e-9));
    CHECK_NEAR(total_time(slow, "compute", 0, NULL), total_time(clean, "compute", 0, NULL),
               1e-12);
    // rank 0 waits for it at every collective: the run takes about as
    // much longer as rank 1's extra compute
    CHECK(t1 - t0 > 0.8 * (c1 - c0) && t1 - t0 < 1.2 * (c1 - c0));
    CHECK(tev_one_injected(slow, 1, "rank 1 computes 3 times slower from step 1 on") == 0);
    return 0;
}

static int test_slow_link(void) {
    TcliResult r;
    const char *clean = in_dir("clean.jsonl"), *slow = in_dir("link.jsonl");
    RUN_CASE(r, "--trace", clean);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    RUN_CASE(r, "--fault", "slow-link:rank=1,factor=4", "--trace", slow);
    if (r.rc != 0)
        show("slow-link", &r);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    // every collective has rank 1 in each step: 4x, whichever rank looks
    for (int rank = 0; rank < 4; rank++) {
        double a = total_time(clean, "coll", rank, "AllReduce");
        double b = total_time(slow, "coll", rank, "AllReduce");
        CHECK(a > 0);
        CHECK_NEAR(b / a, 4.0, 1e-4); // times in the file have 15 digits or so
    }
    CHECK(tev_one_injected(slow, 1, "transfers to and from rank 1 take 4 times as long") == 0);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tfile_mkdtemp(dir, sizeof dir, "fault-comm") != 0)
        return 1;
    int failures = 0;
    RUN(test_bucket_plan);
    RUN(test_skip_middle);
    RUN(test_skip_last_hangs);
    RUN(test_mismatch);
    RUN(test_reorder_unequal);
    RUN(test_reorder_equal_swaps);
    RUN(test_crash);
    RUN(test_slow_rank);
    RUN(test_slow_link);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
