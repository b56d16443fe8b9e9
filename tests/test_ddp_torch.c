// tests/test_ddp_torch.c: `ddplab run --strategy ddp -n R` against PyTorch's
// own DistributedDataParallel on the gloo backend, with R real processes on
// this machine (tests/conformance/ddp_ref.py; loopback only, every process
// killed after a deadline).
//
// For each case:
//   1. ddplab writes the model's initial weights once (one step at lr 0,
//      --save init_<model>.st);
//   2. ddplab trains from them with --strategy ddp -n R (--init), writing
//      --metrics (rank 0's loss per step) and --save final.st;
//   3. ddp_ref.py builds the same torch module in each of R processes, loads
//      init_<model>.st by name (strict), wraps it in DDP with torch's
//      defaults, and trains on the batches of a real DistributedSampler +
//      DataLoader over ddplab's per-epoch sample order;
//   4. the per-step losses -- rank 0's own, and the one all-reduced across
//      ranks for logging (--loss-log avg; torch: all_reduce SUM / R) -- and
//      the final parameters must agree (torch also checks that all its
//      ranks end with identical parameters).
// The cases cover SGD + momentum and AdamW + clip + warmup-cosine, an MLP and
// a 2-layer MiniGPT, R = 2, 3, 4, accumulation of 2 micro-batches with
// no_sync and without it (--accum-sync every), shuffle on and off, and data
// sizes that make DistributedSampler pad the epoch and leave a short last
// batch on every rank (asserted from the batch sizes torch saw).
// The cases of one world size share one launch of R processes.
// Exits 77 (skipped) when python3-torch is not installed.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"
#include "test_train_ref.h"
#include "torch_ref.h"

#define DDPLAB_TIMEOUT_S 60.0
#define TORCH_TIMEOUT_S "150" // one launch of R processes, all its cases
// Tolerances, relative (the measured differences are in docs/data-parallelism.md):
// losses of every step within LOSS_TOL; each parameter tensor within
// NORM_TOL in the 2-norm of the difference; each element within the case's
// tolerance (|value| below PARAM_FLOOR compared at PARAM_FLOOR's scale).
// gloo and ddplab sum the ranks' shares of a gradient in different orders,
// so three or four ranks differ in the last bit of a sum; AdamW's
// m / sqrt(v) turns that into a larger element-wise difference where
// gradients nearly cancel (see test_cli_run_torch.c).
#define LOSS_TOL 1e-5
#define NORM_TOL 1e-5
#define PARAM_FLOOR 1e-2
#define SGD_TOL 1e-5
#define ADAMW_TOL 1e-4
// AdamW's learning rate and warmup steps (string literals for both sides).
#define ADAMW_LR "0.005"
#define ADAMW_WARMUP "2"

// The data: 91 samples (MLP) and 59 windows of 16 tokens (MiniGPT). Per
// rank, DistributedSampler gives ceil(N / R) samples, padding the epoch
// since no R used here divides N, and batches of 8 (MLP) or 7 (MiniGPT)
// leave a short last batch at every such R.
#define MLP_N 91
#define MLP_D 8
#define MLP_SPEC "mlp:8,32,32,4"
#define GPT_SPEC "gpt:layers=2,embd=32,heads=4,ctx=16,vocab=24"
#define GPT_TEXT "ddplab and pytorch must see the same numbers, step by step; then again. ddp!"

static const char *exe;
static char dir[512];

typedef struct {
    int ranks;
    int gpt;
    int adamw;
    int accum;
    int no_sync;  // with accum > 1: 1 = no_sync, 0 = --accum-sync every
    int shuffle;
} Case;

// ranks, gpt, adamw, accum, no_sync, shuffle
static const Case cases[] = {
    {2, 0, 0, 1, 0, 1}, {2, 0, 0, 1, 0, 0}, {2, 0, 1, 2, 1, 1}, {2, 1, 0, 2, 1, 1},
    {2, 1, 1, 1, 0, 1}, {3, 0, 0, 2, 1, 1}, {3, 0, 1, 2, 0, 1}, {3, 1, 0, 1, 0, 1},
    {3, 1, 1, 2, 0, 1}, {4, 0, 0, 2, 0, 1}, {4, 0, 1, 1, 0, 1}, {4, 1, 0, 2, 1, 1},
    {4, 1, 1, 2, 1, 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

static void case_dir(int k, char *out, size_t len) { snprintf(out, len, "%s/case%02d", dir, k); }

static int steps_of(const Case *c) { return c->gpt ? 6 : 8; }

static void describe(const Case *c, char *out, size_t len) {
    snprintf(out, len, "R=%d %s %s accum %d%s%s", c->ranks, c->gpt ? "minigpt" : "mlp",
             c->adamw ? "adamw + clip + warmup-cosine" : "sgd + momentum", c->accum,
             c->accum > 1 ? (c->no_sync ? " (no_sync)" : " (sync every)") : "",
             c->shuffle ? "" : ", shuffle off");
}

// ddplab's data options for the case's model, into a[] (NULL-terminated).
static void data_args(const Case *c, const char **a) {
    static char x[600], y[600], t[600];
    snprintf(x, sizeof x, "%s", in_dir("X.npy"));
    snprintf(y, sizeof y, "%s", in_dir("y.npy"));
    snprintf(t, sizeof t, "%s", in_dir("text.txt"));
    int n = 0;
    if (c->gpt) {
        a[n++] = "--text";
        a[n++] = t;
    } else {
        a[n++] = "--data";
        a[n++] = x;
        a[n++] = "--labels";
        a[n++] = y;
    }
    a[n] = NULL;
}

// The initial weights of each model, written once by a single-rank run.
static int write_inits(void) {
    for (int gpt = 0; gpt < 2; gpt++) {
        Case c = {1, gpt, 0, 1, 0, 1};
        const char *d[8];
        data_args(&c, d);
        char init[600];
        snprintf(init, sizeof init, "%s/init_%s.st", dir, gpt ? "gpt" : "mlp");
        const char *first[] = {"--model", gpt ? GPT_SPEC : MLP_SPEC, "--batch", "4", "--steps",
                               "1", "--lr", "0", "--seed", "3", "--save", init, NULL};
        CHECK_EQ_INT(tcli_run_cmd(exe, d, first, DDPLAB_TIMEOUT_S), 0);
    }
    return 0;
}

// Step 2 for case k: ddplab's DDP run, and case.txt for ddp_ref.py.
static int run_ddplab(int k) {
    const Case *c = &cases[k];
    char cd[560], init[600], final[600], metrics[600], ranks[8], steps[8], accum[8], text[2048];
    case_dir(k, cd, sizeof cd);
    CHECK(mkdir(cd, 0700) == 0);
    snprintf(init, sizeof init, "%s/init_%s.st", dir, c->gpt ? "gpt" : "mlp");
    snprintf(final, sizeof final, "%s/final.st", cd);
    snprintf(metrics, sizeof metrics, "%s/m.jsonl", cd);
    snprintf(ranks, sizeof ranks, "%d", c->ranks);
    snprintf(steps, sizeof steps, "%d", steps_of(c));
    snprintf(accum, sizeof accum, "%d", c->accum);
    const char *argv[64];
    int n = 0;
    data_args(c, argv);
    while (argv[n])
        n++;
    const char *common[] = {"--strategy", "ddp", "-n", ranks, "--model",
                            c->gpt ? GPT_SPEC : MLP_SPEC, "--batch", c->gpt ? "7" : "8",
                            "--steps", steps, "--accum", accum, "--accum-sync",
                            c->no_sync ? "last" : "every", "--shuffle", c->shuffle ? "1" : "0",
                            "--seed", "7", "--init", init, "--loss-log", "avg",
                            "--metrics", metrics, "--save", final, NULL};
    for (int i = 0; common[i]; i++)
        argv[n++] = common[i];
    argv[n] = NULL;
    const char *sgd[] = {TTRAIN_SGD_OPTS, NULL};
    const char *adamw[] = {TTRAIN_ADAMW_OPTS(ADAMW_LR, ADAMW_WARMUP), NULL};
    CHECK_EQ_INT(tcli_run_cmd(exe, argv, c->adamw ? adamw : sgd, DDPLAB_TIMEOUT_S), 0);

    const char *d[8];
    data_args(c, d);
    int len = snprintf(text, sizeof text,
                       "spec=%s\nbatch=%s\nsteps=%s\nseed=7\nshuffle=%d\nranks=%d\naccum=%d\n"
                       "no_sync=%d\ninit=%s\nfinal=%s\n%s\n",
                       c->gpt ? GPT_SPEC : MLP_SPEC, c->gpt ? "7" : "8", steps, c->shuffle,
                       c->ranks, c->accum, c->no_sync, init, final,
                       c->adamw ? TTRAIN_ADAMW_CASE(ADAMW_LR, ADAMW_WARMUP) : TTRAIN_SGD_CASE);
    if (c->gpt)
        len += snprintf(text + len, sizeof text - (size_t)len, "text=%s\n", d[1]);
    else
        len += snprintf(text + len, sizeof text - (size_t)len, "x=%s\ny=%s\n", d[1], d[3]);
    CHECK(tfile_write(tcli_path(cd, "case.txt"), text, (size_t)len) == 0);
    return 0;
}

// Largest relative difference of ddplab's losses from torch's, reported
// with the step when over LOSS_TOL.
static double loss_diff(const char *what, const char *kind, const float *ours,
                        const float *ref, int steps) {
    size_t at = 0;
    double rel = torchref_max_rel(ours, ref, (size_t)steps, 1e-6, &at);
    if (!(rel <= LOSS_TOL))
        fprintf(stderr, "  %s: %s loss of step %zu: ddplab %.9g, torch %.9g\n", what, kind,
                at + 1, (double)ours[at], (double)ref[at]);
    return rel;
}

// Step 4 for case k, after ddp_ref.py ran it.
static int compare_case(int k) {
    const Case *c = &cases[k];
    char cd[600], what[160];
    case_dir(k, cd, sizeof cd);
    describe(c, what, sizeof what);
    int steps = steps_of(c), micro = steps * c->accum;
    float ours[16], ours0[16], ref[16], ref_avg[16];
    CHECK_EQ_INT(ttrain_read_losses(tcli_path(cd, "m.jsonl"), ours, ours0, 16), steps);
    CHECK(torchref_read(cd, "ref_losses.r0.f32", ref, (size_t)steps * sizeof(float)) == 0);
    CHECK(torchref_read(cd, "ref_losses_avg.r0.f32", ref_avg, (size_t)steps * sizeof(float)) ==
          0);
    // The case covers what it claims: DistributedSampler padded the epoch
    // (N not a multiple of R) and some micro-batch was short, on every rank.
    int n = c->gpt ? (int)strlen(GPT_TEXT) - 17 : MLP_N, b = c->gpt ? 7 : 8;
    CHECK(n % c->ranks != 0);
    for (int r = 0; r < c->ranks; r++) {
        int32_t sizes[64];
        char name[64];
        snprintf(name, sizeof name, "ref_batches.r%d.i32", r);
        CHECK(torchref_read(cd, name, sizes, (size_t)micro * sizeof(int32_t)) == 0);
        int shortest = b;
        for (int i = 0; i < micro; i++)
            shortest = sizes[i] < shortest ? sizes[i] : shortest;
        CHECK(shortest < b);
        CHECK(shortest >= 1);
    }
    // rank 0's own loss, and the loss all-reduced across ranks for logging
    double rel0 = loss_diff(what, "rank 0's", ours0, ref, steps);
    double rel_avg = loss_diff(what, "all-reduced", ours, ref_avg, steps);
    CHECK(rel0 <= LOSS_TOL);
    CHECK(rel_avg <= LOSS_TOL);
    double rel = rel0 > rel_avg ? rel0 : rel_avg;
    CHECK(ref[steps - 1] < ref[0]); // it trained
    double worst = 0, worst_norm = 0;
    const TtrainTol tol = {c->adamw ? ADAMW_TOL : SGD_TOL, NORM_TOL, PARAM_FLOOR};
    CHECK_EQ_INT(
        ttrain_compare_params(tcli_path(cd, "final.st"), cd, &tol, 0, &worst, &worst_norm), 0);
    printf("  %-66s losses %.4f -> %.4f, rel. difference: loss %.2g, tensor %.2g, element %.2g\n",
           what, (double)ref[0], (double)ref[steps - 1], rel, worst_norm, worst);
    return 0;
}

// Every case of world size R: ddplab runs, one launch of R torch
// processes for all of them, then the comparisons.
static int run_world(int ranks) {
    const char *args[NCASES + 3];
    static char dirs[NCASES][600];
    int n = 0;
    args[n++] = ranks == 2 ? "2" : ranks == 3 ? "3" : "4";
    args[n++] = TORCH_TIMEOUT_S;
    for (int k = 0; k < NCASES; k++) {
        if (cases[k].ranks != ranks)
            continue;
        CHECK_EQ_INT(run_ddplab(k), 0);
        case_dir(k, dirs[k], sizeof dirs[k]);
        args[n++] = dirs[k];
    }
    args[n] = NULL;
    if (n == 2)
        return 0;
    CHECK_EQ_INT(torchref_run("ddp_ref.py", args), 0);
    for (int k = 0; k < NCASES; k++)
        if (cases[k].ranks == ranks)
            CHECK_EQ_INT(compare_case(k), 0);
    return 0;
}

static int test_two_ranks(void) { return run_world(2); }
static int test_three_ranks(void) { return run_world(3); }
static int test_four_ranks(void) { return run_world(4); }

int main(int argc, char **argv) {
    int rc = ttrain_start(argc, argv, &exe, dir, sizeof dir);
    if (rc >= 0)
        return rc;
    int failures = 0;
    if (ttrain_write_mlp_data(dir, MLP_N, MLP_D, 2024) != 0 ||
        tfile_write(in_dir("text.txt"), GPT_TEXT, strlen(GPT_TEXT)) != 0 || write_inits() != 0)
        return 1;
    RUN(test_two_ranks);
    RUN(test_three_ranks);
    RUN(test_four_ranks);
    for (int k = 0; k < NCASES; k++) {
        char cd[600];
        case_dir(k, cd, sizeof cd);
        tfile_rmtree(cd);
    }
    torchref_rmdir(dir);
    return failures ? 1 : 0;
}
