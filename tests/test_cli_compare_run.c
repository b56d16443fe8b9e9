// tests/test_cli_compare_run.c: `ddplab run --compare-backends A,B` and
// `--compare-with OPTIONS` through the program:
//   same         cpu,cpu: bit-identical at every stage of every step, exit 0,
//                also with --compare-max-ulp 0
//   buckets      --algo ring against --bucket-cap-mb 0.25 on a model whose
//                rebuilt buckets then split differently: the first
//                difference is step 2's synchronised gradients (step 1 runs
//                DDP's single iteration-0 bucket on both sides), caused by
//                the bucket boundaries; the tensors of the bucket both plans
//                share never differ; each tensor's max ULP equals what the
//                test computes itself from checkpoints of the two runs
//   algorithm    4 ranks, direct against --algo tree: step 1's synchronised
//                gradients, the reduction order named; --compare-max-ulp 0
//                exits 1 with a message
//   optimizer    --lr changed by 1e-7: identical gradients, step 1's
//                parameters after the step, the optimizer's settings named
//   fsdp         FSDP and ZeRO-1 read from the shards: cpu,cpu identical;
//                --algo ring differs first at step 1's synchronised
//                gradients, the ULPs equal the full state dicts'; another
//                strategy or unit plan on side B is refused
//   bad inputs   malformed values, a comparison with the options it cannot
//                take, a side B that is not a valid run, another world size:
//                one line "ddplab run: ..." and exit 2; cpu,cuda without a
//                CUDA build (exit 2) or without a GPU (exit 4); --tf32 with
//                cpu,cuda goes to the cuda side alone, with cpu,cpu it is
//                refused
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ulp.h"
#include "check.h"
#include "formats/safetensors.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"

#define TIMEOUT_S 120.0

static const char *exe;
static char dir[512];

// The report's row of a tensor: its max ULP and "first differs" text.
static int row_of(const char *out, const char *name, uint64_t *max_ulp, char *where,
                  size_t wlen) {
    const char *sec = strstr(out, "final parameters, tensor by tensor");
    if (sec == NULL)
        return 0;
    char pat[128];
    snprintf(pat, sizeof pat, "\n  %s ", name);
    const char *p = strstr(sec, pat);
    if (p == NULL)
        return 0;
    long long n = 0, nd = 0;
    unsigned long long u = 0;
    double mabs = 0;
    int used = 0;
    if (sscanf(p + strlen(pat), "%lld %lld (%*[^)]) %llu %lf %n", &n, &nd, &u, &mabs, &used) <
        4)
        return 0;
    const char *w = p + strlen(pat) + used, *end = strchr(w, '\n');
    size_t len = end ? (size_t)(end - w) : strlen(w);
    snprintf(where, wlen, "%.*s", (int)len, w);
    *max_ulp = u;
    return 1;
}

// ----------------------------------------------------------------------------

static int test_same(void) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "3", "--data", "blobs",
             "--steps", "4", "--compare-backends", "cpu,cpu", "--compare-max-ulp", "0");
    if (r.rc != 0)
        tcli_show("cpu,cpu", &r);
    int rc = r.rc;
    CHECK_EQ_INT(rc, 0);
    CHECK_STR_CONTAINS(r.out, "== side A: --backend cpu");
    CHECK_STR_CONTAINS(r.out, "== side B: --backend cpu");
    CHECK_STR_CONTAINS(r.out, "bit-identical: every tensor at every stage of all 4 steps");
    CHECK_STR_CONTAINS(r.out, "summary: 0 of 6 tensors differ after 4 steps on 3 ranks");
    uint64_t u = 1;
    char where[128];
    CHECK(row_of(r.out, "2.weight", &u, where, sizeof where));
    CHECK_EQ_INT(u, 0);
    CHECK_STR_CONTAINS(where, "never");
    tcli_result_free(&r);
    return 0;
}

// Runs `ddplab run BASE... EXTRA... --save PATH` (EXTRA NULL-terminated).
static int save_side(const char *const *base, const char *const *extra, const char *path) {
    const char *more[16];
    int n = 0;
    for (; extra && extra[n]; n++)
        more[n] = extra[n];
    more[n++] = "--save";
    more[n++] = path;
    more[n] = NULL;
    return tcli_run_cmd(exe, base, more, TIMEOUT_S);
}

// The largest ULP distance of one tensor between two checkpoints.
static int ckpt_ulp(const SimStFile *a, const SimStFile *b, const char *name, uint64_t *out) {
    const SimStTensor *ta = NULL, *tb = NULL;
    for (int i = 0; i < a->ntensors; i++)
        ta = strcmp(a->tensors[i].name, name) == 0 ? &a->tensors[i] : ta;
    for (int i = 0; i < b->ntensors; i++)
        tb = strcmp(b->tensors[i].name, name) == 0 ? &b->tensors[i] : tb;
    CHECK(ta && tb && ta->dtype == SIM_FP32 && ta->ndim == tb->ndim);
    int64_t n = 1;
    for (int d = 0; d < ta->ndim; d++)
        n *= ta->shape[d];
    SimUlpStats u;
    sim_ulp_compare(SIM_FP32, ta->data, tb->data, n, &u);
    *out = u.max_ulp;
    return 0;
}

static const char *const model6[] = {"run", "--strategy", "ddp", "-n", "4", "--algo", "ring",
                                     "--model", "mlp:16,256,256,256,256,256,256,4", "--data",
                                     "blobs:features=16", "--steps", "3", NULL};

// Every tensor's max ULP in the report `out` of BASE against BASE EXTRA
// equals the distance between checkpoints of the two runs (`tensors` of
// them), which this test computes itself.
static int check_against_checkpoints(const char *out, const char *const *base,
                                     const char *const *extra, int tensors) {
    CHECK_EQ_INT(save_side(base, NULL, tcli_path(dir, "a.st")), 0);
    CHECK_EQ_INT(save_side(base, extra, tcli_path(dir, "b.st")), 0);
    SimStFile fa, fb;
    char err[256];
    CHECK(sim_stfile_load(&fa, tcli_path(dir, "a.st"), err, sizeof err) == SIM_OK);
    CHECK(sim_stfile_load(&fb, tcli_path(dir, "b.st"), err, sizeof err) == SIM_OK);
    int bad = 0, checked = 0;
    for (int i = 0; i < fa.ntensors && !bad; i++) {
        const char *name = fa.tensors[i].name;
        if (strchr(name, '/')) // optimizer and trainer state
            continue;
        uint64_t want = 0, got = 0;
        char where[128];
        bad = ckpt_ulp(&fa, &fb, name, &want) != 0 || !row_of(out, name, &got, where,
                                                                sizeof where);
        if (!bad && want != got) {
            fprintf(stderr, "%s: the report says %" PRIu64 " ULPs, the checkpoints %" PRIu64
                    "\n", name, got, want);
            bad = 1;
        }
        checked++;
    }
    sim_stfile_free(&fa);
    sim_stfile_free(&fb);
    CHECK(!bad);
    CHECK_EQ_INT(checked, tensors);
    return 0;
}

static int test_buckets(void) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "4", "--algo", "ring",
             "--model", "mlp:16,256,256,256,256,256,256,4", "--data", "blobs:features=16",
             "--steps", "3", "--compare-with", "--bucket-cap-mb 0.25");
    if (r.rc != 0)
        tcli_show("buckets", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "side B: this command with --bucket-cap-mb 0.25");
    CHECK_STR_CONTAINS(r.out, "first difference: step 2, synchronised gradients: the "
                              "collective, on identical local gradients: bucket boundaries");
    // bucket 0 (12.* to 4.*) is the same in both plans; 2.* and 0.* are split
    const char *never[] = {"12.weight", "10.weight", "8.weight", "6.weight", "4.weight"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
        uint64_t u = 1;
        char where[128];
        CHECK(row_of(r.out, never[i], &u, where, sizeof where));
        CHECK_EQ_INT(u, 0);
        CHECK_STR_CONTAINS(where, "never");
    }
    uint64_t u = 0;
    char where[128];
    CHECK(row_of(r.out, "2.weight", &u, where, sizeof where));
    CHECK_STR_CONTAINS(where, "step 2, synchronised gradients");
    const char *extra[] = {"--bucket-cap-mb", "0.25", NULL};
    int rc = check_against_checkpoints(r.out, model6 + 1, extra, 14);
    tcli_result_free(&r);
    return rc;
}

// FSDP and the ZeRO stages: the parameters and synchronised gradients are
// read from each rank's shards. cpu,cpu is bit-identical (full_shard and
// ZeRO-1's replicated parameters); the ring's reduce-scatter against the
// direct one differs first at step 1's synchronised gradients, with
// identical local gradients, and the final ULPs equal the full state dicts'
// (gathered from the shards by --save); a side B with another strategy or
// another unit plan is refused.
static const char *const fsdp4[] = {"run", "--strategy", "fsdp", "-n", "4", "--data", "blobs",
                                    "--steps", "3", NULL};

static int test_fsdp(void) {
    static const char *const same[][2] = {{"fsdp", "full_shard"}, {"zero1", "zero1"}};
    TcliResult r;
    for (size_t i = 0; i < 2; i++) {
        TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", same[i][0], "-n", "4", "--data",
                 "blobs", "--steps", "3", "--compare-backends", "cpu,cpu", "--compare-max-ulp",
                 "0");
        if (r.rc != 0)
            tcli_show(same[i][1], &r);
        CHECK_EQ_INT(r.rc, 0);
        CHECK_STR_CONTAINS(r.out, "bit-identical: every tensor at every stage of all 3 steps");
        tcli_result_free(&r);
    }
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "fsdp", "-n", "4", "--data", "blobs",
             "--steps", "3", "--compare-with", "--algo ring");
    if (r.rc != 0)
        tcli_show("fsdp ring", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "local gradients                    0            0/");
    CHECK_STR_CONTAINS(r.out, "first difference: step 1, synchronised gradients: the "
                              "collective, on identical local gradients: reduction order: "
                              "another algorithm (--algo ring)");
    const char *extra[] = {"--algo", "ring", NULL};
    int rc = check_against_checkpoints(r.out, fsdp4 + 1, extra, 6);
    tcli_result_free(&r);
    CHECK_EQ_INT(rc, 0);
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "fsdp", "-n", "4", "--data", "blobs",
             "--steps", "2", "--compare-with", "--fsdp-wrap none");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "the two sides shard the parameters differently");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "fsdp", "-n", "4", "--data", "blobs",
             "--steps", "2", "--compare-with", "--strategy zero2");
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "both sides need the same strategy");
    tcli_result_free(&r);
    return 0;
}

static int test_algorithm(void) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs",
             "--steps", "3", "--compare-with", "--algo tree", "--compare-max-ulp", "0");
    CHECK_EQ_INT(r.rc, 1);
    CHECK_STR_CONTAINS(r.out, "first difference: step 1, synchronised gradients: the "
                              "collective, on identical local gradients: reduction order: "
                              "another algorithm (--algo tree)");
    CHECK_STR_CONTAINS(r.err, "--compare-max-ulp 0: a final parameter differs by");
    tcli_result_free(&r);
    // NCCL's double binary tree adds in another order than the ring...
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs",
             "--steps", "3", "--algo", "ring", "--compare-with", "--algo dbtree");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "first difference: step 1, synchronised gradients: the "
                              "collective, on identical local gradients: reduction order: "
                              "another algorithm (--algo dbtree)");
    tcli_result_free(&r);
    // NCCL's choice for this model's small buckets on 4 ranks is the trees
    // (4 steps against the ring's 6, each a link latency): bit for bit
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs",
             "--steps", "3", "--algo", "nccl", "--compare-with", "--algo dbtree",
             "--compare-max-ulp", "0");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "bit-identical: every tensor at every stage of all 3 steps");
    tcli_result_free(&r);
    // ...and serves all_reduce alone: FSDP's reduce-scatters and all-gathers
    // run the ring either way, bit for bit
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "fsdp", "-n", "4", "--data", "blobs",
             "--steps", "3", "--algo", "ring", "--compare-with", "--algo dbtree",
             "--compare-max-ulp", "0");
    if (r.rc != 0)
        tcli_show("fsdp dbtree", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "bit-identical: every tensor at every stage of all 3 steps");
    tcli_result_free(&r);
    return 0;
}

static int test_optimizer(void) {
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "2", "--data", "blobs",
             "--steps", "2", "--compare-with", "--lr 0.0100001");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "first difference: step 1, parameters after the step: the "
                              "optimizer step, on identical gradients of this tensor: the "
                              "optimizer's settings (--lr 0.0100001)");
    CHECK_STR_CONTAINS(r.out, "summary: 6 of 6 tensors differ");
    tcli_result_free(&r);
    return 0;
}

// One bad command: exit `want`, one line on stderr containing `needle`.
static int refused(int want, const char *needle, const char *const *args) {
    TcliResult r;
    const char *full[32] = {"run", "--data", "blobs", "--steps", "2"};
    int n = 5;
    for (; args[n - 5]; n++)
        full[n] = args[n - 5];
    full[n] = NULL;
    tcli_run(&r, exe, full, TIMEOUT_S);
    int ok = r.rc == want && r.err && strstr(r.err, needle) != NULL;
    if (!ok)
        tcli_show(needle, &r);
    tcli_result_free(&r);
    CHECK(ok);
    return 0;
}

static int test_bad_inputs(void) {
#define BAD(needle, ...)                                                       \
    do {                                                                       \
        const char *a_[] = {__VA_ARGS__, NULL};                                \
        if (refused(2, needle, a_))                                            \
            return 1;                                                          \
    } while (0)
    BAD("is not two backends", "--compare-backends", "cpu");
    BAD("is not two backends", "--compare-backends", "cpu,cpu,cpu");
    BAD("names no option", "--compare-with", " ");
    BAD("cannot hold another comparison", "--compare-with", "--compare-backends cpu,cpu");
    BAD("is not a whole number of ULPs", "--compare-backends", "cpu,cpu",
        "--compare-max-ulp", "-1");
    BAD("needs a comparison", "--compare-max-ulp", "3");
    BAD("is not a collective algorithm", "--algo", "butterfly");
    BAD("fsdp and the ZeRO stages need", "--strategy", "fsdp", "-n", "2", "--algo", "tree");
    BAD("cannot be compared stage by stage", "--strategy", "layer-owner", "-n", "2",
        "--compare-backends", "cpu,cpu");
    BAD("the two runs would write the same file", "--trace", "t.ddptrace",
        "--compare-backends", "cpu,cpu");
    BAD("no values to compare", "--phantom", "--compare-backends", "cpu,cpu");
    BAD("a run that fails has nothing to compare", "--strategy", "ddp", "-n", "2", "--fault",
        "crash:rank=1,step=1", "--compare-backends", "cpu,cpu");
    BAD("side B of the comparison", "--compare-with", "--no-such-option");
    BAD("a comparison needs the same world", "--strategy", "ddp", "-n", "2",
        "--compare-with", "-n 3");
    BAD("neither side of 'cpu,cpu' is cuda", "--compare-backends", "cpu,cpu", "--tf32");
#undef BAD
    // cpu,cuda: refused by a build without CUDA, or by a machine without a GPU
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "2", "--data", "blobs",
             "--steps", "2", "--compare-backends", "cpu,cuda");
    if (r.err && strstr(r.err, "no CUDA backend")) {
        CHECK_EQ_INT(r.rc, 2);
    } else if (r.err && strstr(r.err, "no CUDA device")) {
        CHECK_EQ_INT(r.rc, 4);
        CHECK_STR_CONTAINS(r.err, "side B (--backend cuda) failed");
    } else {
        CHECK_EQ_INT(r.rc, 0); // a machine with a GPU
        CHECK_STR_CONTAINS(r.out, "side B: --backend cuda");
    }
    tcli_result_free(&r);
    // cuda's own options go to the cuda side alone: the cpu side runs without
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "ddp", "-n", "2", "--data", "blobs",
             "--steps", "2", "--compare-backends", "cpu,cuda", "--tf32");
    if (r.err && strstr(r.err, "no CUDA backend")) {
        CHECK_EQ_INT(r.rc, 2);
    } else {
        CHECK_STR_CONTAINS(r.out, "== side A: --backend cpu (without cuda's own options, such "
                                  "as --tf32)");
        if (r.rc == 0) // a machine with a GPU: TF32 named among the causes
            CHECK_STR_CONTAINS(r.out, "TF32");
        else
            CHECK_EQ_INT(r.rc, 4);
    }
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_begin(argc, argv, dir, sizeof dir, "cmprun");
    if (exe == NULL)
        return 2;
    int failures = 0;
    RUN(test_same);
    RUN(test_buckets);
    RUN(test_algorithm);
    RUN(test_optimizer);
    RUN(test_fsdp);
    RUN(test_bad_inputs);
    tfile_rmtree(dir);
    if (failures == 0)
        printf("test_cli_compare_run: ok\n");
    return failures != 0;
}
