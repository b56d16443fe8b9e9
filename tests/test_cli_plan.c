// tests/test_cli_plan.c: `ddplab plan` as a user runs it.
//   - the seeds' numbers: 7B parameters with fp32 Adam, 16 bytes each: DDP
//     112 GB per GPU, FSDP on 4 GPUs 28 GB, on 8 GPUs 14 GB, from both the
//     formula and the executed ledger; the seeds' table of weights and
//     training memory for ResNet-50, BERT-Large, GPT-3 175B and Llama-3 70B
//     to its printed precision (100 MB / 400 MB, 1.3 GB / ~5 GB, 700 GB /
//     2.8 TB, 280 GB / 1.1 TB), from the presets' exact counts;
//   - the ZeRO paper's Figure 1 (7.5B parameters on 64 GPUs, mixed-precision
//     Adam): 31.4 / 16.6 / 1.9 GB for P_os / P_os+g / P_os+g+p;
//   - a layer that does not fit on any number of GPUs fails honestly, and a
//     configuration that does not fit names the nearest one that does;
//   - --compare, --sweep with --plot, --trace, and bad input (one line each,
//     exit code 2), and Llama-2 70B on 1024 and 16384 ranks in seconds.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

static const char *exe;

#define PLAN(res, ...) TCLI_RUN(res, exe, 120.0, "plan", __VA_ARGS__)

// 1 if s contains every one of the NULL-terminated strings.
static int has_all(const char *s, const char *const *want) {
    for (int i = 0; want[i]; i++)
        if (strstr(s, want[i]) == NULL) {
            fprintf(stderr, "missing \"%s\" in:\n%s\n", want[i], s);
            return 0;
        }
    return 1;
}
#define HAS(s, ...)                                                            \
    do {                                                                       \
        const char *want_[] = {__VA_ARGS__, NULL};                             \
        CHECK(has_all((s), want_));                                            \
    } while (0)

static int test_seven_billion(void) {
    TcliResult r;
    PLAN(r, "--model", "count:params=7000000000", "--amp", "fp32", "--optimizer", "adam",
         "--strategy", "ddp", "--ranks", "4");
    CHECK_EQ_INT(r.rc, 1); // does not fit an 80 GB GPU
    HAS(r.out, "formula: no sharding, 4 + 4 + 8 bytes per parameter over 4 ranks: 112.00 GB",
        "executed model states between steps: 112.00 GB", "DOES NOT FIT");
    tcli_result_free(&r);
    PLAN(r, "--model", "count:params=7000000000", "--amp", "fp32", "--optimizer", "adam",
         "--strategy", "fsdp", "--ranks", "4");
    HAS(r.out, "over 4 ranks: 28.00 GB", "executed model states between steps: 28.00 GB",
        // one flat parameter: the whole model gathered with its gradient
        // (28 + 28 GB) beside the states does not fit; with the states on
        // the host it does (the unit is freed before its reduce-scatter)
        "peak 84.00 GB of 80.00 GB",
        "nearest configuration that fits: --strategy zero3 --ckpt none --offload (peak 56.00 GB "
        "per GPU");
    tcli_result_free(&r);
    // With the states on the host the CPU steps Adam on 1.75B parameters a
    // GPU: 28 bytes each at 57.6 GB/s is 0.85 s, before the copies
    PLAN(r, "--model", "count:params=7000000000", "--amp", "fp32", "--optimizer", "adam",
         "--strategy", "zero3", "--offload", "--ranks", "4");
    CHECK_EQ_INT(r.rc, 0);
    const char *host = strstr(r.out, " + waiting for the host ");
    CHECK(host != NULL);
    double host_ms = atof(host + strlen(" + waiting for the host "));
    CHECK(host_ms > 850.0 && host_ms < 1300.0);
    HAS(r.out, "the host: CPU offload's copies and its optimizer step on the CPU",
        "DGX H100 host CPUs, one GPU's share, 57.6 GB/s per GPU");
    tcli_result_free(&r);
    // A DGX A100's host (two EPYC 7742, DDR4) has two thirds of the bandwidth
    PLAN(r, "--model", "count:params=7000000000", "--amp", "fp32", "--optimizer", "adam",
         "--strategy", "zero3", "--offload", "--ranks", "4", "--system", "dgx-a100");
    CHECK_EQ_INT(r.rc, 0);
    host = strstr(r.out, " + waiting for the host ");
    CHECK(host != NULL);
    double a100_ms = atof(host + strlen(" + waiting for the host "));
    CHECK(a100_ms > 1.3 * host_ms);
    HAS(r.out, "DGX A100 host CPUs, one GPU's share, 38.4 GB/s per GPU");
    tcli_result_free(&r);
    PLAN(r, "--model", "count:params=7000000000", "--amp", "fp32", "--optimizer", "adam",
         "--strategy", "fsdp", "--ranks", "8");
    HAS(r.out, "over 8 ranks: 14.00 GB", "executed model states between steps: 14.00 GB");
    tcli_result_free(&r);
    return 0;
}

static int test_seed_table(void) {
    static const struct {
        const char *model, *weights, *training;
    } rows[] = {
        {"resnet50", "102.2 MB in fp32", "408.9 MB on one GPU"},    // 100 MB, ~400 MB
        {"bert-large", "1.34 GB in fp32", "5.36 GB on one GPU"},   // 1.3 GB, ~5 GB
        {"gpt3-175b", "698.42 GB in fp32", "2793.67 GB on one GPU"}, // 700 GB, ~2.8 TB
        {"llama3-70b", "282.21 GB in fp32", "1128.86 GB on one GPU"}, // 280 GB, ~1.1 TB
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        TcliResult r;
        PLAN(r, "--model", rows[i].model, "--ranks", "1", "--strategy", "single", "--seq", "8");
        HAS(r.out, rows[i].weights, rows[i].training);
        tcli_result_free(&r);
    }
    return 0;
}

static int test_zero_paper(void) {
    static const struct {
        const char *strategy, *want;
    } rows[] = {
        {"zero1", "ZeRO-1 (P_os), 2 + 2 + 12 bytes per parameter over 64 ranks: 31.41 GB"},
        {"zero2", "ZeRO-2 (P_os+g), 2 + 2 + 12 bytes per parameter over 64 ranks: 16.64 GB"},
        {"zero3", "ZeRO-3 (P_os+g+p), 2 + 2 + 12 bytes per parameter over 64 ranks: 1.88 GB"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        TcliResult r;
        PLAN(r, "--model", "count:params=7500000000", "--ranks", "64", "--strategy",
             rows[i].strategy, "--amp", "bf16", "--optimizer", "adam");
        HAS(r.out, rows[i].want);
        tcli_result_free(&r);
    }
    return 0;
}

static int test_llama(void) {
    TcliResult r;
    PLAN(r, "--model", "llama2-7b", "--ranks", "8", "--strategy", "ddp");
    CHECK_EQ_INT(r.rc, 1);
    HAS(r.out, "6,738,415,616 parameters", "DOES NOT FIT", "nearest configuration that fits:",
        "step time", "model FLOPs utilisation");
    tcli_result_free(&r);
    PLAN(r, "--model", "llama2-7b", "--ranks", "8", "--strategy", "fsdp");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "-> fits", "params (sharded)", "activations", "exposed communication");
    tcli_result_free(&r);
    // 70B on 128 nodes and on 2048 nodes of 8: one rank stands for all
    PLAN(r, "--model", "llama2-70b", "--nodes", "128", "--gpus-per-node", "8", "--ckpt", "full");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "68,976,648,192 parameters", "on 1024 x h100 (128 nodes x 8");
    tcli_result_free(&r);
    PLAN(r, "--model", "llama2-70b", "--ranks", "16384", "--quiet");
    HAS(r.out, "does not fit"); // no checkpointing: the activations alone overflow
    tcli_result_free(&r);
    return 0;
}

// FSDP2 (fully_shard) in the planner: at 64 ranks Llama-2 7B's model states
// are FSDP1's (every dim 0 divides well), at 16384 the 70B's are 79.8% more
// than the formula's: a [8192, 8192] weight's 1 row per rank is padded to
// 16384 rows, k/v's [1024, 8192] to 16x (checked by hand: 80 layers of
// 94,208 elements per rank against 52,224, the embeddings' 2 rows against
// 1.95). The refusals follow the run's.
static int test_fsdp2(void) {
    TcliResult r;
    PLAN(r, "--model", "llama2-7b", "--ranks", "64", "--strategy", "fsdp2");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "strategy fsdp2 (fully_shard)", "executed model states between steps: 1.68 GB "
        "(+0.0%");
    tcli_result_free(&r);
    PLAN(r, "--model", "llama2-70b", "--ranks", "16384", "--strategy", "fsdp2", "--ckpt",
         "full");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "executed model states between steps: 121.1 MB (+79.8%");
    tcli_result_free(&r);
    PLAN(r, "--model", "llama2-70b", "--ranks", "16384", "--strategy", "fsdp", "--ckpt", "full");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "executed model states between steps: 67.4 MB (+0.0%");
    tcli_result_free(&r);
    PLAN(r, "--model", "llama2-7b", "--ranks", "8", "--strategy", "fsdp2", "--offload");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab plan: ", "--offload: not modelled for --strategy "
                              "fsdp2"), 0);
    tcli_result_free(&r);
    PLAN(r, "--model", "llama2-7b", "--ranks", "8", "--strategy", "fsdp2", "--sharding",
         "no_shard");
    CHECK_EQ_INT(tcli_refused(&r, "ddplab plan: ", "is not modelled for --strategy fsdp2"), 0);
    tcli_result_free(&r);
    return 0;
}

// The step's "step X ms" figure.
static double step_ms(const char *out) {
    const char *p = strstr(out, "  step ");
    return p ? atof(p + strlen("  step ")) : -1.0;
}

// NCCL's choice at scale: GPT-2 under DDP on 128 nodes. The ring's 2046
// steps per bucket pay a latency each (256 of them a node crossing); the
// double binary tree's only along its first chunk's path, 2 x 10 levels,
// for the same bytes on each link. On one node the ring's bandwidth wins
// and stays.
static int test_nccl_algo(void) {
    TcliResult r;
    PLAN(r, "--model", "gpt2", "--strategy", "ddp", "--ranks", "1024");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "all_reduce: dbtree for 13 of 13 calls (NCCL's choice per call");
    double nccl = step_ms(r.out);
    tcli_result_free(&r);
    PLAN(r, "--model", "gpt2", "--strategy", "ddp", "--ranks", "1024", "--algo", "ring");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "all_reduce: ring for 13 of 13 calls (--algo)");
    double ring = step_ms(r.out);
    tcli_result_free(&r);
    printf("  gpt2 ddp on 1024 ranks: ring %.2f ms, NCCL's choice %.2f ms\n", ring, nccl);
    CHECK(nccl > 0 && ring > 2.0 * nccl); // 67.13 against 26.52 ms
    PLAN(r, "--model", "gpt2", "--strategy", "ddp", "--ranks", "8");
    HAS(r.out, "all_reduce: ring for 13 of 13 calls (NCCL's choice per call");
    tcli_result_free(&r);
    // hybrid sharding all-reduces the shards across nodes in process groups,
    // whose collectives are rings of sends and receives: the line says so
    PLAN(r, "--model", "gpt2", "--ranks", "256", "--sharding", "hybrid_shard", "--algo",
         "dbtree");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "(--algo dbtree; collectives over process groups run as rings)");
    tcli_result_free(&r);
    return 0;
}

static int test_compare_sweep(const char *dir) {
    TcliResult r;
    PLAN(r, "--model", "gpt2", "--ranks", "16", "--compare");
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "| ddp |", "| zero1 |", "| zero2 (shard_grad_op) |", "| zero3 (full_shard) |",
        "| fsdp2 (fully_shard) |", "| full_shard + offload |", "| hybrid_shard |");
    tcli_result_free(&r);
    PLAN(r, "--model", "resnet50", "--ranks", "8", "--compare"); // a count alone, every strategy
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "| dp (DataParallel) |", "| zero3 (full_shard) |");
    tcli_result_free(&r);
    PLAN(r, "--model", "gpt2", "--ranks", "4", "--compare"); // one machine: DataParallel too
    CHECK_EQ_INT(r.rc, 0);
    HAS(r.out, "| dp (DataParallel) |", "| ddp |");
    tcli_result_free(&r);
    const char *png = tcli_path(dir, "sweep.png"), *trace = tcli_path(dir, "plan.json");
    PLAN(r, "--model", "gpt2", "--sweep", "ranks=8,16,32,64", "--plot", png);
    int drawn = r.rc == 0;
    if (drawn) { // the table and the PNG (no chart plugin: refused before planning)
        HAS(r.out, "| 8 |", "| 64 |");
        FILE *f = fopen(png, "rb");
        unsigned char sig[8] = {0};
        CHECK(f != NULL);
        CHECK(fread(sig, 1, 8, f) == 8);
        fclose(f);
        CHECK(sig[1] == 'P' && sig[2] == 'N' && sig[3] == 'G');
    } else {
        CHECK_EQ_INT(r.rc, 2);
        HAS(r.err, "cairo");
    }
    tcli_result_free(&r);
    if (drawn) { // SVG by the name, titled with the model and the GPU
        const char *svg = tcli_path(dir, "sweep.svg");
        PLAN(r, "--model", "gpt2", "--sweep", "ranks=8,16", "--plot", svg);
        CHECK_EQ_INT(r.rc, 0);
        char *text = tfile_read(svg, NULL);
        CHECK(text != NULL);
        int ok = strstr(text, "<title>gpt2, fsdp on h100</title>") != NULL;
        free(text);
        CHECK(ok);
        tcli_result_free(&r);
    }
    PLAN(r, "--model", "gpt2", "--ranks", "8", "--trace", trace, "--quiet");
    CHECK_EQ_INT(r.rc, 0);
    char *text = tfile_read(trace, NULL);
    CHECK(text != NULL);
    int ok = strstr(text, "\"traceEvents\"") != NULL && strstr(text, "AllGather") != NULL;
    free(text);
    CHECK(ok);
    tcli_result_free(&r);
    return 0;
}

static int bad(const char *want, const char *const *args) {
    TcliResult r;
    const char *full[32] = {"plan"};
    int n = 1;
    for (int i = 0; args[i] && n < 31; i++)
        full[n++] = args[i];
    full[n] = NULL;
    tcli_run(&r, exe, full, 60.0);
    int ok = r.rc == 2 && strstr(r.err, want) != NULL && tcli_lines(r.err) == 1 &&
             r.out[0] == '\0';
    if (!ok)
        fprintf(stderr, "want exit 2 and one line with \"%s\"; got %d:\n%s%s\n", want, r.rc,
                r.err, r.out);
    tcli_result_free(&r);
    return ok ? 0 : 1;
}
#define BAD(want, ...)                                                         \
    do {                                                                       \
        const char *args_[] = {__VA_ARGS__, NULL};                             \
        CHECK(bad((want), args_) == 0);                                        \
    } while (0)

static int test_bad_input(void) {
    BAD("llama2-70b", "--model", "llama9"); // unknown: the presets are listed
    BAD("h100", "--gpu", "tpu9");
    BAD("--strategy: 'pipeline' is not a strategy; allowed: single, dp, ddp, fsdp",
        "--strategy", "pipeline");
    BAD("is not a multiple of --gpus-per-node 8", "--ranks", "12");
    BAD("--nodes: '3' does not divide the 8 ranks", "--nodes", "3");
    BAD("needs 2 or more nodes", "--strategy", "fsdp", "--sharding", "hybrid_shard");
    BAD("at most 268435456", "--micro-batch", "1000000");
    BAD("longer than the model's context", "--seq", "100000");
    BAD("--sweep: 'ranks=8,x'", "--sweep", "ranks=8,x");
    BAD("--plot: needs --sweep", "--plot", "a.png");
    BAD("must end in .png, .svg or .pdf", "--sweep", "ranks=8", "--plot", "a.gif");
    BAD("--ranks: '0' is out of range", "--ranks", "0");
    BAD("is not an option", "--frobnicate");
    BAD("'dp' (DataParallel) drives the GPUs of one machine", "--strategy", "dp", "--ranks",
        "16");
    BAD("'dp' (DataParallel) splits each batch over 2 or more GPUs", "--strategy", "dp",
        "--ranks", "1");
    BAD("--nodes: 9000 x 8 GPUs is 72000 ranks", "--nodes", "9000", "--gpus-per-node", "8");
    BAD("--algo: 'tree' is not an algorithm the planner prices; allowed: nccl, ring, dbtree",
        "--algo", "tree");
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    char dir[] = "/tmp/ddplab-plan-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    int fails = 0;
    fails += test_seven_billion();
    fails += test_seed_table();
    fails += test_zero_paper();
    fails += test_llama();
    fails += test_fsdp2();
    fails += test_nccl_algo();
    fails += test_compare_sweep(dir);
    fails += test_bad_input();
    tfile_rmtree(dir);
    if (fails == 0)
        printf("ok\n");
    return fails ? 1 : 0;
}
