// tests/test_cli_run_resume.c: checkpoints through `ddplab run`.
//
// Resume is exact: a run of 20 steps and a run interrupted after 10 steps
// (--stop-after 10 --save, the schedule still spanning 20) then resumed
// give the same --metrics lines (step, epoch, loss, lr, loss scale, grad
// norm, skipped, simulated time: every field but the wall-clock ones) and
// byte-identical final checkpoints. Covered: BatchNorm buffers, SGD with
// Nesterov momentum, warmup-cosine, clipping, epochs crossed with their
// reshuffle, AdamW with fp16 GradScaler and accumulation, a branch unused
// on odd steps, MiniGPT, and a plain "10 steps, then --resume --steps 20".
// --init loads the weights alone.
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "formats/safetensors.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"

#define TIMEOUT_S 120.0

static const char *exe;
static char dir[512];

static void path_of(char *out, const char *name) {
    snprintf(out, 600, "%s/%s", dir, name);
}

// Runs `ddplab run` with base (NULL-terminated) and more (NULL-terminated).
static int run_ok(const char *const *base, const char *const *more) {
    return tcli_run_cmd(exe, base, more, TIMEOUT_S);
}

// The lines of a metrics file, parsed (heap; *n entries).
static cJSON **read_metrics(const char *path, int *n) {
    char *text = tfile_read(path, NULL);
    *n = 0;
    if (text == NULL)
        return NULL;
    int lines = tcli_lines(text);
    cJSON **out = calloc((size_t)lines + 1, sizeof *out);
    for (char *line = strtok(text, "\n"); line && out; line = strtok(NULL, "\n"))
        out[(*n)++] = cJSON_Parse(line);
    free(text);
    return out;
}

static void free_metrics(cJSON **m, int n) {
    for (int i = 0; i < n; i++)
        cJSON_Delete(m[i]);
    free(m);
}

// The fields that must agree between an interrupted and a straight run.
static const char *const exact_fields[] = {"step", "epoch", "loss", "lr", "loss_scale",
                                           "grad_norm", "skipped", "sim_s"};

static int same_line(const cJSON *a, const cJSON *b) {
    for (size_t k = 0; k < sizeof exact_fields / sizeof exact_fields[0]; k++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, exact_fields[k]);
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, exact_fields[k]);
        if (x == NULL || y == NULL || x->type != y->type ||
            (cJSON_IsNumber(x) && x->valuedouble != y->valuedouble)) {
            fprintf(stderr, "field %s differs: %.17g vs %.17g\n", exact_fields[k],
                    x ? x->valuedouble : -1.0, y ? y->valuedouble : -1.0);
            return 0;
        }
    }
    return 1;
}

// full.jsonl must equal first.jsonl followed by second.jsonl.
static int metrics_agree(const char *full, const char *first, const char *second, int steps) {
    int nf = 0, n1 = 0, n2 = 0;
    cJSON **f = read_metrics(full, &nf), **a = read_metrics(first, &n1),
          **b = read_metrics(second, &n2);
    int ok = f && a && b && nf == steps && n1 + n2 == steps;
    for (int i = 0; ok && i < nf; i++) {
        ok = f[i] != NULL && same_line(f[i], i < n1 ? a[i] : b[i - n1]);
        if (!ok)
            fprintf(stderr, "metrics differ at line %d of %s\n", i + 1, full);
    }
    if (nf != steps || n1 + n2 != steps)
        fprintf(stderr, "%d + %d lines against %d (expected %d)\n", n1, n2, nf, steps);
    free_metrics(f, nf);
    free_metrics(a, n1);
    free_metrics(b, n2);
    return ok;
}

static int same_file(const char *p, const char *q) {
    size_t a = 0, b = 0;
    char *x = tfile_read(p, &a), *y = tfile_read(q, &b);
    int same = x && y && a == b && memcmp(x, y, a) == 0;
    free(x);
    free(y);
    return same;
}

// Straight run of `steps`, and the same run stopped at half and resumed.
static int check_resume(const char *const *opts, int steps) {
    char full[600], first[600], second[600], ck_full[600], ck_half[600], n[16], half[16];
    path_of(full, "full.jsonl");
    path_of(first, "first.jsonl");
    path_of(second, "second.jsonl");
    path_of(ck_full, "full.st");
    path_of(ck_half, "half.st");
    snprintf(n, sizeof n, "%d", steps);
    snprintf(half, sizeof half, "%d", steps / 2);
    const char *a[] = {"--steps", n, "--metrics", full, "--save", ck_full, NULL};
    const char *b[] = {"--steps", n, "--stop-after", half, "--metrics", first, "--save", ck_half,
                       NULL};
    const char *c[] = {"--steps", n, "--resume", ck_half, "--metrics", second, "--save", ck_half,
                       NULL};
    // the resumed run's log is new: an earlier case's (of more steps) would
    // keep its lines up to this case's checkpoint (the log is cut back to
    // the steps before the run's first, not started afresh)
    unlink(second);
    CHECK_EQ_INT(run_ok(opts, a), 0);
    CHECK_EQ_INT(run_ok(opts, b), 0);
    CHECK_EQ_INT(run_ok(opts, c), 0);
    CHECK(metrics_agree(full, first, second, steps));
    CHECK(same_file(ck_full, ck_half)); // every tensor and every metadata value
    return 0;
}

static int test_resume_sgd_bn(void) {
    const char *opts[] = {"--model", "mlp:16,32,32,4,bn", "--data", "blobs:n=200", "--momentum",
                          "0.9", "--nesterov", "--lr", "0.05", "--lr-schedule", "cosine",
                          "--warmup", "4", "--clip-grad-norm", "0.5", NULL};
    return check_resume(opts, 20); // 7 batches per epoch: two reshuffles on the way
}

static int test_resume_adamw_amp(void) {
    const char *opts[] = {"--model", "mlp:16,32,4,unused", "--data", "blobs:n=300",
                          "--optimizer", "adamw", "--amp", "fp16", "--growth-interval", "3",
                          "--accum", "2", "--batch", "16", "--lr-schedule", "linear",
                          "--warmup", "2", NULL};
    return check_resume(opts, 16);
}

static int test_resume_gpt(void) {
    const char *opts[] = {"--model", "gpt:layers=1,embd=16,heads=2,ctx=16,vocab=16", "--data",
                          "arith:lines=100", "--batch", "8", "--optimizer", "adam", NULL};
    return check_resume(opts, tenv_quick() ? 6 : 12);
}

// The plain case: 10 steps with --save, then --resume with --steps 20.
static int test_resume_constant(void) {
    char full[600], first[600], second[600], ck[600];
    path_of(full, "full.jsonl");
    path_of(first, "first.jsonl");
    path_of(second, "second.jsonl");
    path_of(ck, "ten.st");
    const char *opts[] = {"--momentum", "0.9", "--data", "blobs:n=256", NULL};
    const char *a[] = {"--steps", "20", "--metrics", full, NULL};
    const char *b[] = {"--steps", "10", "--metrics", first, "--save", ck, NULL};
    const char *c[] = {"--steps", "20", "--metrics", second, "--resume", ck, NULL};
    unlink(second); // a new log for the resumed run, as above
    CHECK_EQ_INT(run_ok(opts, a), 0);
    CHECK_EQ_INT(run_ok(opts, b), 0);
    CHECK_EQ_INT(run_ok(opts, c), 0);
    CHECK(metrics_agree(full, first, second, 20));
    return 0;
}

// --save-every writes the state of its step, atomically, over the same file.
static int test_save_every(void) {
    char ck[600], err[512];
    path_of(ck, "every.st");
    const char *a[] = {"--steps", "7", "--save", ck, "--save-every", "3", NULL};
    unlink(ck);
    int before = tfile_dir_entries(dir);
    CHECK_EQ_INT(run_ok(a, NULL), 0);
    SimStFile f;
    CHECK_EQ_INT(sim_stfile_load(&f, ck, err, sizeof err), SIM_OK);
    CHECK(strcmp(sim_stfile_meta(&f, "step"), "7") == 0); // the end wins
    sim_stfile_free(&f);
    CHECK_EQ_INT(tfile_dir_entries(dir), before + 1);      // no temporaries left
    return 0;
}

// --init takes the weights and nothing else.
static int test_init(void) {
    char a_st[600], b_st[600], err[512];
    path_of(a_st, "a.st");
    path_of(b_st, "b.st");
    const char *a[] = {"--steps", "10", "--momentum", "0.9", "--save", a_st, NULL};
    const char *b[] = {"--steps", "1", "--lr", "0", "--init", a_st, "--save", b_st, NULL};
    CHECK_EQ_INT(run_ok(a, NULL), 0);
    CHECK_EQ_INT(run_ok(b, NULL), 0);
    SimStFile fa, fb;
    CHECK_EQ_INT(sim_stfile_load(&fa, a_st, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_stfile_load(&fb, b_st, err, sizeof err), SIM_OK);
    CHECK(strcmp(sim_stfile_meta(&fb, "step"), "1") == 0); // a fresh run's counters
    int model_tensors = 0;
    for (int i = 0; i < fa.ntensors; i++) {
        const SimStTensor *x = &fa.tensors[i];
        if (strchr(x->name, '/'))
            continue;
        const SimStTensor *y = sim_stfile_find(&fb, x->name);
        CHECK(y != NULL);
        size_t bytes = 4;
        for (int d = 0; d < x->ndim; d++)
            bytes *= (size_t)x->shape[d];
        CHECK(memcmp(x->data, y->data, bytes) == 0); // lr 0: the loaded weights, unchanged
        model_tensors++;
    }
    CHECK_EQ_INT(model_tensors, 6);
    sim_stfile_free(&fa);
    sim_stfile_free(&fb);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "runresume") != 0)
        return 2;
    int failures = 0;
    RUN(test_resume_sgd_bn);
    RUN(test_resume_adamw_amp);
    RUN(test_resume_gpt);
    RUN(test_resume_constant);
    RUN(test_save_every);
    RUN(test_init);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
