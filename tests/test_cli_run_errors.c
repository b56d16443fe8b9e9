// tests/test_cli_run_errors.c: `ddplab run` with bad input. Every case must
// exit with code 2 after exactly one line on stderr that names the option
// and what is wrong (the file, the index, the shapes), print nothing on
// stdout, and write nothing: each case runs with --metrics, --save and
// --trace pointing into a scratch directory that must hold afterwards only
// the inputs put there first.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "formats/npy.h"
#include "formats/safetensors.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 60.0

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

// Runs `ddplab run ARGS... --metrics D/m.jsonl --save D/c.st --trace D/t.json`
// and checks the failure: exit 2, one line containing every `want`, no
// stdout, and the directory still holding `inputs` entries.
static int expect_bad(const char *const *args, const char *const *want, int inputs) {
    const char *argv[48];
    int n = 0;
    argv[n++] = "run";
    for (; *args && n < 40; args++)
        argv[n++] = *args;
    argv[n++] = "--metrics";
    argv[n++] = in_dir("m.jsonl");
    argv[n++] = "--save";
    argv[n++] = in_dir("c.st");
    argv[n++] = "--trace";
    argv[n++] = in_dir("t.json");
    argv[n] = NULL;
    TcliResult r;
    tcli_run(&r, exe, argv, TIMEOUT_S);
    int ok = r.rc == 2 && tcli_lines(r.err) == 1 && strncmp(r.err, "ddplab run: ", 12) == 0 &&
             r.out[0] == '\0' && tfile_dir_entries(dir) == inputs;
    for (; *want && ok; want++)
        ok = strstr(r.err, *want) != NULL;
    if (!ok) {
        fprintf(stderr, "case:");
        for (int i = 1; argv[i]; i++)
            fprintf(stderr, " %s", argv[i]);
        fprintf(stderr, "\n  rc %d, %d entries in the directory (expected %d)\n  stderr: %s"
                        "  stdout: %.300s\n",
                r.rc, tfile_dir_entries(dir), inputs, r.err, r.out);
    }
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

#define BAD(inputs, ARGS, ...)                                                 \
    do {                                                                       \
        const char *args_[] = {ARGS, NULL};                                    \
        const char *want_[] = {__VA_ARGS__, NULL};                             \
        CHECK(expect_bad(args_, want_, (inputs)) == 0);                        \
    } while (0)
#define A(...) __VA_ARGS__

static int test_options(void) {
    BAD(0, A("--strategy", "fsdp3"), "--strategy: 'fsdp3' is not a strategy",
        "fsdp");
    BAD(0, A("--strategy", "fsdp2", "-n", "4", "--cpu-offload"),
        "--cpu-offload: not modelled for --strategy fsdp2", "--strategy fsdp --cpu-offload");
    BAD(0, A("--strategy", "fsdp2", "-n", "4", "--state-dict", "local"),
        "--state-dict: 'local' saves flat parameters", "sharded (the default), full");
    BAD(0, A("--strategy", "fsdp2", "-n", "4", "--nodes", "2", "--sharding", "hybrid_shard"),
        "'hybrid_shard' is not modelled for --strategy fsdp2", "--strategy fsdp --sharding");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--sharding", "full_shard"),
        "--sharding: needs --strategy fsdp");
    BAD(0, A("--strategy", "zero2", "-n", "2", "--sharding", "full_shard"),
        "--sharding: 'full_shard' contradicts --strategy zero2");
    BAD(0, A("--strategy", "fsdp", "-n", "4", "--sharding", "hybrid_shard"),
        "needs --nodes 2 or more");
    BAD(0, A("--strategy", "fsdp", "-n", "2", "--param-dtype", "fp8"),
        "--param-dtype: 'fp8' is not a dtype");
    BAD(0, A("--strategy", "fsdp", "-n", "2", "--fsdp-wrap", "block"),
        "--fsdp-wrap block: an MLP has no transformer blocks");
    BAD(0, A("--strategy", "dp"), "--ranks: '1' device for --strategy dp", "-n 2 or more");
    BAD(0, A("--strategy", "dp", "-n", "1"), "DataParallel splits each batch over 2 or more");
    BAD(0, A("--strategy", "dp", "-n", "2", "--bucket-cap-mb", "1"),
        "--bucket-cap-mb: needs --strategy ddp");
    BAD(0, A("--strategy", "ddp", "--accum", "0"), "--accum: '0'");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--bucket-cap-mb", "0"), "--bucket-cap-mb: '0' is not above 0");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--bucket-cap-mb", "-1"), "--bucket-cap-mb: '-1'");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--static-graph", "--model", "mlp:16,8,4,unused"),
        "--static-graph: the model's unused branch changes the graph");
    BAD(0, A("--find-unused-parameters"), "--find-unused-parameters: needs --strategy ddp");
    BAD(0, A("--strategy", "ddp", "-n", "3", "--nodes", "2"), "--nodes: '2' does not divide");
    BAD(0, A("--strategy", "ddp", "--accum-sync", "sometimes"), "--accum-sync: 'sometimes'");
    BAD(0, A("--strategy", "ring"), "--strategy: 'ring' is not a strategy");
    BAD(0, A("--ranks", "2"), "--ranks: '2'", "allowed: 1");
    BAD(0, A("--frobnicate"), "'--frobnicate' is not an option");
    BAD(0, A("--model", "mlp:16"), "--model:");
    BAD(0, A("--model", "transformer:3"), "--model:");
    BAD(0, A("--lr", "-0.1"), "--lr: '-0.1' is negative");
    BAD(0, A("--lr", "fast"), "--lr: 'fast' is not a number");
    BAD(0, A("--batch", "0"), "--batch: '0'", "1 to 1048576");
    BAD(0, A("--steps", "-3"), "--steps: '-3' is negative");
    BAD(0, A("--steps", "10", "--epochs", "2"), "--epochs: cannot be combined with --steps");
    BAD(0, A("--shuffle", "2"), "--shuffle: '2' is not 0 or 1");
    BAD(0, A("--amp", "fp8"), "--amp: 'fp8'");
    BAD(0, A("--optimizer", "adamw", "--momentum", "0.9"), "--momentum:");
    BAD(0, A("--progress", "fancy"), "--progress: 'fancy'");
    BAD(0, A("--backend", "nosuch"), "--backend: 'nosuch' is not a backend");
    BAD(0, A("--profile", "nosuch"), "--profile: unknown profile \"nosuch\"");
    BAD(0, A("--gpu", "v100"), "--gpu: unknown device \"v100\"", "h100 (80 GB)", "rtx4090");
    BAD(0, A("--gpu", "a100"), "--gpu: unknown device \"a100\" (did you mean a100-40 or a100-80?)");
    BAD(0, A("--save-every", "5", "extra"), "'extra' is not an option");
    return 0;
}

// --comm-hook powersgd and its options: ddp only, the hook's own options
// only with it, a rank of 1 or more, compression from iteration 2 on
// (PowerSGDState's rule), and not under Join.
static int test_powersgd_options(void) {
    BAD(0, A("--comm-hook", "powersgd"), "--comm-hook: needs --strategy ddp");
    BAD(0, A("--strategy", "fsdp", "-n", "2", "--powersgd-rank", "2"),
        "--powersgd-rank: needs --strategy ddp");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--powersgd-start", "5"),
        "--powersgd-start: needs --comm-hook powersgd");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--comm-hook", "powersgd", "--powersgd-rank", "0"),
        "--powersgd-rank: '0' is out of range", "from 1 to");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--comm-hook", "powersgd", "--powersgd-start",
             "1"), "--powersgd-start: '1' is out of range", "from 2 to");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--uneven", "2", "--join", "--comm-hook",
             "powersgd"), "--comm-hook: 'powersgd' cannot be combined with --join");
    BAD(0, A("--strategy", "ddp", "-n", "2", "--comm-hook", "powersgd2"),
        "--comm-hook: 'powersgd2'", "powersgd");
    return 0;
}

static int test_files(void) {
    BAD(0, A("--text", in_dir("missing.txt")), "--text:", "missing.txt", "cannot be read");
    BAD(0, A("--resume", in_dir("missing.st")), "--resume:", "missing.st", "cannot be read");
    BAD(0, A("--init", dir), "--init:", "is a directory");
    BAD(0, A("--data", in_dir("X.npy")), "--data:", "needs --labels");
    BAD(0, A("--labels", in_dir("y.npy")), "--labels:", "needs --data X.npy");
    const char *args[] = {"run", "--metrics", "/nonexistent-dir/m.jsonl", NULL};
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--metrics: '/nonexistent-dir/m.jsonl' is in no existing directory");
    tcli_result_free(&r);
    const char *missing[] = {"run", "--batch", NULL};
    tcli_run(&r, exe, missing, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--batch: missing value");
    tcli_result_free(&r);
    const char *every[] = {"run", "--save-every", "5", NULL};
    tcli_run(&r, exe, every, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 2);
    CHECK_STR_CONTAINS(r.err, "--save-every: '5' needs --save FILE");
    tcli_result_free(&r);
    return 0;
}

static int test_data_vs_model(void) {
    BAD(0, A("--model", "mlp:8,16,4"), "--data: blobs has 16 features per sample",
        "first width is 8");
    BAD(0, A("--model", "mlp:16,16,3"), "4 classes (labels 0..3)", "last width is only 3");
    BAD(0, A("--data", "teacher", "--model", "mlp:16,8,4"), "float targets (regression)");
    BAD(0, A("--data", "teacher", "--model", "mlp:16,8,3,mse"), "4 targets per sample",
        "last width is 3");
    BAD(0, A("--data", "arith", "--model", "gpt:layers=1,embd=16,heads=2,ctx=8,vocab=5"),
        "distinct tokens", "vocab is 5");
    BAD(0, A("--data", "blobs", "--model", "gpt:layers=1,embd=16,heads=2,ctx=8,vocab=64"),
        "gpt model trains on tokens");
    BAD(0, A("--data", "blobs:n=40", "--batch", "64"),
        "--batch: '64' is larger than the dataset (40 samples");
    BAD(0, A("--data", "blobs:colour=red"), "--data:", "colour");
    return 0;
}

// --batch against one replica's samples: a rank's share under DDP (ceil(N/R),
// floor(N/R) with the sampler's drop_last), the whole dataset under dp,
// whose --batch is the whole batch that one loader draws.
static int test_batch_bounds(void) {
    BAD(0, A("--strategy", "ddp", "-n", "8", "--data", "blobs:n=64,features=8,classes=3",
             "--model", "mlp:8,16,3", "--batch", "9"),
        "--batch: '9' is larger than the dataset (64 samples in blobs, per rank); "
        "allowed: 1..8");
    BAD(0, A("--strategy", "ddp", "-n", "3", "--data", "blobs:n=10", "--batch", "5"),
        "--batch: '5' is larger than the dataset (10 samples in blobs, per rank); "
        "allowed: 1..4");
    BAD(0, A("--strategy", "ddp", "-n", "3", "--data", "blobs:n=10", "--batch", "4",
             "--sampler-drop-last", "1"),
        "--batch: '4' is larger than the dataset (10 samples in blobs, per rank); "
        "allowed: 1..3");
    BAD(0, A("--strategy", "ddp", "-n", "12", "--data", "blobs:n=10", "--batch", "1",
             "--sampler-drop-last", "1"),
        "--sampler-drop-last: '1' leaves no sample for a rank (10 samples in blobs over 12 "
        "ranks); allowed: 0, or a dataset of at least 12 samples");
    BAD(0, A("--strategy", "dp", "-n", "8", "--data", "blobs:n=64,features=8,classes=3",
             "--model", "mlp:8,16,3", "--batch", "65"),
        "--batch: '65' is larger than the dataset (64 samples in blobs); allowed: 1..64");
    BAD(0, A("--sampler-drop-last", "2"), "--sampler-drop-last: '2' is not 0 or 1");
    // TORCH_DISTRIBUTED_DEBUG other than OFF, INFO or DETAIL: PyTorch's text
    setenv("TORCH_DISTRIBUTED_DEBUG", "verbose", 1);
    BAD(0, A("--steps", "1"), "ddplab run: TORCH_DISTRIBUTED_DEBUG: 'verbose': The value of "
                              "TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.\n");
    unsetenv("TORCH_DISTRIBUTED_DEBUG");
    // the case that was refused as "allowed: 1..8": 13 of 64 samples, split
    // over the 8 devices by torch.chunk
    TcliResult r;
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--strategy", "dp", "-n", "8", "--data",
             "blobs:n=64,features=8,classes=3", "--model", "mlp:8,16,3", "--batch", "13",
             "--steps", "2");
    if (r.rc != 0)
        fprintf(stderr, "dp --batch 13: rc %d\n%s", r.rc, r.err);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "done: 2 steps");
    tcli_result_free(&r);
    return 0;
}

// X.npy [n, 4] (with a NaN at sample 2 when nan is set) and y.npy [n]
// labels (a 7 at index 6 when big is set).
static int write_npy(int n, int nan, int big) {
    float *x = calloc((size_t)n * 4 + 1, sizeof(float));
    int64_t *y = calloc((size_t)n + 1, sizeof(int64_t));
    CHECK(x && y);
    for (int i = 0; i < n * 4; i++)
        x[i] = (float)((i * 37) % 11) * 0.1f;
    for (int i = 0; i < n; i++)
        y[i] = i % 3;
    if (nan && n > 2)
        x[2 * 4 + 1] = NAN;
    if (big && n > 6)
        y[6] = 7;
    int64_t xs[2] = {n, 4}, ys[1] = {n};
    CHECK_EQ_INT(sim_npy_write(in_dir("X.npy"), SIM_NPY_F32, x, 2, xs), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(in_dir("y.npy"), SIM_NPY_I64, y, 1, ys), SIM_OK);
    free(x);
    free(y);
    return 0;
}

static int test_bad_data(void) {
    CHECK(write_npy(10, 0, 1) == 0);
    BAD(2, A("--data", in_dir("X.npy"), "--labels", in_dir("y.npy"), "--model", "mlp:4,8,3",
             "--batch", "4"), "--labels:", "y.npy", "index 6");
    CHECK(write_npy(10, 1, 0) == 0);
    BAD(2, A("--data", in_dir("X.npy"), "--labels", in_dir("y.npy"), "--batch", "4"), "--data:",
        "X.npy", "sample 2", "NaN");
    CHECK(write_npy(0, 0, 0) == 0);
    BAD(2, A("--data", in_dir("X.npy"), "--labels", in_dir("y.npy")), "--data:", "empty");
    CHECK(tfile_write(in_dir("X.npy"), "not numpy", 9) == 0);
    BAD(2, A("--data", in_dir("X.npy"), "--labels", in_dir("y.npy")), "--data:", "X.npy");
    unlink(in_dir("X.npy"));
    unlink(in_dir("y.npy"));
    CHECK(tfile_write(in_dir("empty.txt"), "", 0) == 0);
    BAD(1, A("--text", in_dir("empty.txt")), "--text:", "empty.txt");
    unlink(in_dir("empty.txt"));
    return 0;
}

// A good checkpoint (10 steps of adamw), then files damaged in every way.
static int test_checkpoints(void) {
    char good[600];
    snprintf(good, sizeof good, "%s", in_dir("good.st"));
    const char *args[] = {"run", "--optimizer", "adamw", "--steps", "10", "--save", good, NULL};
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    size_t len = 0;
    char *raw = tfile_read(good, &len);
    CHECK(raw != NULL);
    BAD(1, A("--optimizer", "adamw", "--steps", "20", "--resume", good, "--batch", "16"),
        "--resume:", "was saved with --batch 32, this run has 16");
    BAD(1, A("--steps", "20", "--resume", good), "--resume:", "--optimizer adamw");
    BAD(1, A("--optimizer", "adamw", "--steps", "5", "--resume", good),
        "--steps: 10 steps are already done");
    BAD(1, A("--optimizer", "adamw", "--model", "mlp:16,32,4", "--steps", "20", "--resume",
             good), "--resume:", "tensor '0.weight' has shape [64, 16] in the file, the model "
             "expects [32, 16]");
    BAD(1, A("--model", "mlp:16,32,4", "--init", good), "--init:", "has shape [64, 16]");
    raw[len - 9] ^= 4;
    CHECK(tfile_write(in_dir("flipped.st"), raw, len) == 0);
    BAD(2, A("--optimizer", "adamw", "--steps", "20", "--resume", in_dir("flipped.st")),
        "--resume:", "flipped.st", "checksum mismatch");
    CHECK(tfile_write(in_dir("cut.st"), raw, len - 100) == 0);
    BAD(3, A("--optimizer", "adamw", "--steps", "20", "--resume", in_dir("cut.st")),
        "--resume:", "cut.st", "truncated");
    BAD(3, A("--init", in_dir("cut.st")), "--init:", "truncated");
    CHECK(tfile_write(in_dir("text.st"), "hello, world\n", 13) == 0);
    BAD(4, A("--resume", in_dir("text.st")), "--resume:", "text.st", "not a safetensors file");
    free(raw);
    return 0;
}

// src resealed into dst (a fresh checksum, as the writer computes it) with
// element k of tensor `name` set to v: a file whose only fault is the value.
static int write_poisoned(const char *src, const char *dst, const char *name, size_t k,
                          float v) {
    SimStFile f;
    char err[512];
    CHECK(sim_stfile_load(&f, src, err, sizeof err) == SIM_OK);
    SimStMeta *meta = calloc((size_t)f.nmeta + 1, sizeof *meta);
    float *copy = NULL;
    int nmeta = 0, found = 0;
    for (int i = 0; meta && i < f.nmeta; i++)
        if (strcmp(f.meta[i].key, SIM_STFILE_CHECKSUM_KEY) != 0)
            meta[nmeta++] = f.meta[i];
    for (int i = 0; i < f.ntensors && !found; i++) {
        SimStTensor *t = &f.tensors[i];
        if (strcmp(t->name, name) != 0 || t->dtype != SIM_FP32)
            continue;
        size_t n = 1;
        for (int d = 0; d < t->ndim; d++)
            n *= (size_t)t->shape[d];
        copy = k < n ? malloc(n * sizeof *copy) : NULL;
        if (copy) {
            memcpy(copy, t->data, n * sizeof *copy);
            copy[k] = v;
            t->data = copy;
            found = 1;
        }
    }
    SimStatus st = meta && found ? sim_stfile_save(dst, f.tensors, f.ntensors, meta, nmeta, err,
                                                   sizeof err)
                                 : SIM_EINVAL;
    if (st != SIM_OK)
        fprintf(stderr, "cannot write %s with %s[%zu] changed: %s\n", dst, name, k, err);
    free(copy);
    free(meta);
    sim_stfile_free(&f);
    return st == SIM_OK ? 0 : 1;
}

// Weights a run would start from that are not finite (--init, --resume,
// and an FSDP shard file behind a sharded index) are refused like NaN in
// data: the tensor, the element and what it holds.
static int test_nonfinite_weights(void) {
    int before = tfile_dir_entries(dir); // what the cases before left
    char good[600], bad[600];
    snprintf(good, sizeof good, "%s", in_dir("w.st"));
    snprintf(bad, sizeof bad, "%s", in_dir("nan.st"));
    const char *args[] = {"run",   "--optimizer", "adamw", "--model", "mlp:16,8,4,bn",
                          "--steps", "3",         "--save", good,     NULL};
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    int in = before + 2; // good and bad
    CHECK(write_poisoned(good, bad, "0.weight", 21, NAN) == 0);
    BAD(in, A("--model", "mlp:16,8,4,bn", "--init", bad), "--init: ",
        "nan.st: tensor '0.weight' element 21 (at [1, 5] of [8, 16]) is NaN; a run cannot "
        "start from non-finite weights");
    BAD(in, A("--optimizer", "adamw", "--model", "mlp:16,8,4,bn", "--steps", "6", "--resume",
              bad), "--resume: ", "tensor '0.weight' element 21 (at [1, 5] of [8, 16]) is NaN");
    CHECK(write_poisoned(good, bad, "3.bias", 3, INFINITY) == 0);
    BAD(in, A("--model", "mlp:16,8,4,bn", "--init", bad),
        "tensor '3.bias' element 3 (at [3] of [4]) is +inf");
    CHECK(write_poisoned(good, bad, "1.running_var", 0, -INFINITY) == 0);
    BAD(in, A("--model", "mlp:16,8,4,bn", "--init", bad), "tensor '1.running_var' element 0",
        "is -inf");
    CHECK(write_poisoned(good, bad, "optimizer/state.2.exp_avg_sq", 7, NAN) == 0);
    BAD(in, A("--optimizer", "adamw", "--model", "mlp:16,8,4,bn", "--steps", "6", "--resume",
              bad), "--resume: ", "tensor 'optimizer/state.2.exp_avg_sq' element 7",
        "is NaN; a run cannot start from non-finite state");
    // --init takes only the weights: the optimizer's state is not read
    const char *init[] = {"run", "--model", "mlp:16,8,4,bn", "--steps", "1", "--init", bad, NULL};
    tcli_run(&r, exe, init, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    unlink(good);
    unlink(bad);

    // a sharded FSDP checkpoint: the index and one file per shard
    char idx[600], shard[700];
    snprintf(idx, sizeof idx, "%s", in_dir("fs.st"));
    const char *fsdp[] = {"run", "--strategy", "fsdp", "-n", "2", "--steps", "2", "--save", idx,
                          "--state-dict", "sharded", NULL};
    tcli_run(&r, exe, fsdp, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    snprintf(shard, sizeof shard, "%s.step2.shard1-of-2.safetensors", idx);
    CHECK(tfile_exists(shard));
    CHECK(write_poisoned(shard, shard, "2.weight", 0, NAN) == 0);
    BAD(before + 3, A("--strategy", "fsdp", "-n", "2", "--steps", "4", "--resume", idx), "--resume",
        "shard1-of-2.safetensors: tensor '2.weight' element 0", "is NaN");
    unlink(shard);
    snprintf(shard, sizeof shard, "%s.step2.shard0-of-2.safetensors", idx);
    unlink(shard);
    unlink(idx);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "runerr") != 0)
        return 2;
    int failures = 0;
    RUN(test_options);
    RUN(test_powersgd_options);
    RUN(test_files);
    RUN(test_data_vs_model);
    RUN(test_batch_bounds);
    RUN(test_bad_data);
    RUN(test_checkpoints);
    RUN(test_nonfinite_weights);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
