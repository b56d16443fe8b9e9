// tests/test_cli_run_torch.c: `ddplab run --strategy single` against
// PyTorch, end to end. For an MLP and for a small MiniGPT, each with SGD +
// momentum and with AdamW + weight decay + clip_grad_norm_ + a warmup-cosine
// schedule:
//   1. ddplab writes its initial weights (one step at lr 0, --save init.st);
//   2. ddplab trains from them (--init init.st) on shuffled batches that
//      cross an epoch boundary, with --metrics and --save final.st;
//   3. tests/conformance/train_ref.py builds the same torch module, loads
//      init.st by name with load_state_dict(strict=True), takes the same
//      batches (ddplab's sampler: shuffle seeded by seed + epoch), trains
//      with torch.optim, and checks that final.st loads strictly too;
//   4. the per-step losses and the final parameters must agree.
// Exits 77 (skipped) when python3-torch is not installed.
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npy.h"
#include "safetensors.h"
#include "test_cli_run.h"
#include "test_files.h"
#include "torch_ref.h"

#define TIMEOUT_S 120.0
// Tolerances, relative. Losses: every step within LOSS_TOL. Parameters:
// each tensor within NORM_TOL in the 2-norm of the difference, and each
// element within the case's element tolerance (|value| below PARAM_FLOOR
// compared at PARAM_FLOOR's scale): 1e-5 for SGD, 1e-4 for AdamW, whose
// update m / sqrt(v) normalises away the size of a gradient, so an element
// whose gradients nearly cancel turns fp32 rounding into an update as large
// as any other (one element in 27,000 of the MiniGPT case differs by 5e-5).
#define LOSS_TOL 1e-5
#define NORM_TOL 1e-5
#define PARAM_FLOOR 1e-2

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

// Features with structure: 4 classes by the sign pattern of two linear
// forms of the inputs, so the MLP has something to learn.
static int write_mlp_data(int n, int d) {
    float *x = malloc((size_t)n * (size_t)d * sizeof(float));
    int64_t *y = malloc((size_t)n * sizeof(int64_t));
    CHECK(x && y);
    uint64_t s = 12345;
    for (int i = 0; i < n * d; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (float)((double)(s >> 40) / (double)(1 << 24) * 4.0 - 2.0);
    }
    for (int i = 0; i < n; i++) {
        float a = 0, b = 0;
        for (int k = 0; k < d; k++) {
            a += x[i * d + k] * (float)(k % 3 - 1);
            b += x[i * d + k] * (float)((k * 7) % 5 - 2);
        }
        y[i] = (a > 0) * 2 + (b > 0);
    }
    int64_t xs[2] = {n, d}, ys[1] = {n};
    CHECK_EQ_INT(sim_npy_write(in_dir("X.npy"), SIM_NPY_F32, x, 2, xs), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(in_dir("y.npy"), SIM_NPY_I64, y, 1, ys), SIM_OK);
    free(x);
    free(y);
    return 0;
}

static int write_text(void) {
    const char *t = "ddplab trains a small transformer on this line, then on it again; "
                    "pytorch must see the very same numbers. ";
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s", t, t);
    return tfile_write(in_dir("text.txt"), buf, strlen(buf));
}

typedef struct {
    const char *name;
    const char *spec;
    int gpt;
    const char *batch, *steps;
    const char *opt[24];     // ddplab's optimizer options, NULL-terminated
    const char *case_opt;    // the same for train_ref.py, as key=value lines
    double elem_tol;         // element-wise parameter tolerance
} Case;

static int run_ddplab(const char *const *a, const char *const *b) {
    return tcli_run_cmd(exe, a, b, TIMEOUT_S);
}

// The losses of a --metrics file, as floats (they are fp32 losses).
static int read_losses(const char *path, float *out, int max) {
    char *text = tfile_read(path, NULL);
    int n = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line && n < max;
         line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "loss");
        out[n++] = cJSON_IsNumber(l) ? (float)l->valuedouble : -1.0f;
        cJSON_Delete(j);
    }
    free(text);
    return n;
}

// ||a - b|| / ||b|| over n floats.
static double norm_rel(const float *a, const float *b, size_t n) {
    double d = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        d += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        r += (double)b[i] * b[i];
    }
    return r > 0 ? sqrt(d / r) : sqrt(d);
}

static int compare_params(const char *final, double elem_tol) {
    SimStFile f;
    char err[512];
    CHECK_EQ_INT(sim_stfile_load(&f, final, err, sizeof err), SIM_OK);
    int compared = 0;
    double worst = 0, worst_norm = 0;
    for (int i = 0; i < f.ntensors; i++) {
        const SimStTensor *t = &f.tensors[i];
        if (strchr(t->name, '/') || t->dtype != SIM_FP32 || strstr(t->name, "mask"))
            continue; // training state, or a buffer training does not change
        size_t n = 1;
        for (int d = 0; d < t->ndim; d++)
            n *= (size_t)t->shape[d];
        float *ours = malloc(n * sizeof(float)), *ref = malloc(n * sizeof(float));
        CHECK(ours && ref);
        memcpy(ours, t->data, n * sizeof(float));
        char name[200];
        snprintf(name, sizeof name, "ref.%s.f32", t->name);
        CHECK(torchref_read(dir, name, ref, n * sizeof(float)) == 0);
        size_t at = 0;
        double rel = torchref_max_rel(ours, ref, n, PARAM_FLOOR, &at);
        double nrel = norm_rel(ours, ref, n);
        worst = rel > worst ? rel : worst;
        worst_norm = nrel > worst_norm ? nrel : worst_norm;
        if (!(rel <= elem_tol) || !(nrel <= NORM_TOL))
            fprintf(stderr, "  %s[%zu]: ddplab %.9g, torch %.9g (rel %.3g; tensor %.3g)\n",
                    t->name, at, (double)ours[at], (double)ref[at], rel, nrel);
        free(ours);
        free(ref);
        CHECK(rel <= elem_tol);
        CHECK(nrel <= NORM_TOL);
        compared++;
    }
    printf("  %d parameters: largest relative difference of a tensor %.3g, of an element %.3g\n",
           compared, worst_norm, worst);
    sim_stfile_free(&f);
    CHECK(compared > 0);
    return 0;
}

static int run_case(const Case *c) {
    char data[2][600];
    const char *data_args[5] = {NULL};
    if (c->gpt) {
        data_args[0] = "--text";
        data_args[1] = strcpy(data[0], in_dir("text.txt"));
    } else {
        data_args[0] = "--data";
        data_args[1] = strcpy(data[0], in_dir("X.npy"));
        data_args[2] = "--labels";
        data_args[3] = strcpy(data[1], in_dir("y.npy"));
    }
    char init[600], final[600], metrics[600];
    snprintf(init, sizeof init, "%s", in_dir("init.st"));
    snprintf(final, sizeof final, "%s", in_dir("final.st"));
    snprintf(metrics, sizeof metrics, "%s", in_dir("m.jsonl"));
    const char *first[] = {"--model", c->spec, "--batch", c->batch, "--steps", "1", "--lr", "0",
                           "--save", init, NULL};
    CHECK_EQ_INT(run_ddplab(data_args, first), 0);
    const char *common[] = {"--model", c->spec, "--batch", c->batch, "--steps", c->steps,
                            "--seed", "7", "--init", init, "--metrics", metrics, "--save",
                            final, NULL};
    const char *argv[64];
    int n = 0;
    for (int i = 0; data_args[i]; i++)
        argv[n++] = data_args[i];
    for (int i = 0; common[i]; i++)
        argv[n++] = common[i];
    for (int i = 0; c->opt[i]; i++)
        argv[n++] = c->opt[i];
    argv[n] = NULL;
    CHECK_EQ_INT(run_ddplab(argv, NULL), 0);

    char text[2048];
    int len = snprintf(text, sizeof text, "spec=%s\nbatch=%s\nsteps=%s\nseed=7\nshuffle=1\n"
                       "init=%s\nfinal=%s\n%s\n", c->spec, c->batch, c->steps, init, final,
                       c->case_opt);
    if (c->gpt)
        len += snprintf(text + len, sizeof text - (size_t)len, "text=%s\n", data[0]);
    else
        len += snprintf(text + len, sizeof text - (size_t)len, "x=%s\ny=%s\n", data[0], data[1]);
    CHECK(tfile_write(in_dir("case.txt"), text, (size_t)len) == 0);
    const char *args[] = {dir, NULL};
    CHECK_EQ_INT(torchref_run("train_ref.py", args), 0);

    int steps = atoi(c->steps);
    float ours[64], ref[64];
    CHECK_EQ_INT(read_losses(metrics, ours, 64), steps);
    CHECK(torchref_read(dir, "ref_losses.f32", ref, (size_t)steps * sizeof(float)) == 0);
    size_t at = 0;
    double rel = torchref_max_rel(ours, ref, (size_t)steps, 1e-6, &at);
    printf("  %s: losses %.6f -> %.6f, largest relative difference %.3g (step %zu)\n", c->name,
           (double)ref[0], (double)ref[steps - 1], rel, at + 1);
    if (!(rel <= LOSS_TOL))
        fprintf(stderr, "  step %zu: ddplab %.9g, torch %.9g\n", at + 1, (double)ours[at],
                (double)ref[at]);
    CHECK(rel <= LOSS_TOL);
    CHECK(ref[steps - 1] < ref[0]); // it trained
    return compare_params(final, c->elem_tol);
}

#define SGD_OPTS "--lr", "0.1", "--momentum", "0.9"
#define SGD_CASE "optimizer=sgd\nlr=0.1\nmomentum=0.9\nnesterov=0\nweight_decay=0\n" \
                 "schedule=constant\nwarmup=0\nmin_lr=0\nclip=0"
#define ADAMW_OPTS(lr) "--optimizer", "adamw", "--lr", lr, "--weight-decay", "0.1",          \
                       "--clip-grad-norm", "0.5", "--lr-schedule", "cosine", "--warmup", "3", \
                       "--min-lr", "0.0005"
#define ADAMW_CASE(lr) "optimizer=adamw\nlr=" lr "\nweight_decay=0.1\nbetas=0.9,0.999\n"   \
                       "eps=1e-8\nschedule=cosine\nwarmup=3\nmin_lr=0.0005\nclip=0.5"

static const Case mlp_sgd = {"mlp, sgd + momentum", "mlp:8,32,32,4", 0, "16", "14",
                             {SGD_OPTS, NULL}, SGD_CASE, 1e-5};
static const Case mlp_adamw = {"mlp, adamw + clip + warmup-cosine", "mlp:8,32,32,4", 0, "16",
                               "14", {ADAMW_OPTS("0.01"), NULL}, ADAMW_CASE("0.01"), 1e-4};
static const Case gpt_sgd = {"minigpt, sgd + momentum",
                             "gpt:layers=2,embd=32,heads=4,ctx=16,vocab=40", 1, "8", "12",
                             {SGD_OPTS, NULL}, SGD_CASE, 1e-5};
static const Case gpt_adamw = {"minigpt, adamw + clip + warmup-cosine",
                               "gpt:layers=2,embd=32,heads=4,ctx=16,vocab=40", 1, "8", "12",
                               {ADAMW_OPTS("0.003"), NULL}, ADAMW_CASE("0.003"), 1e-4};

static int test_mlp_sgd(void) {
    return run_case(&mlp_sgd);
}
static int test_mlp_adamw(void) {
    return run_case(&mlp_adamw);
}
static int test_gpt_sgd(void) {
    return run_case(&gpt_sgd);
}
static int test_gpt_adamw(void) {
    return run_case(&gpt_adamw);
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (!torchref_available())
        return 77;
    if (torchref_tmpdir(dir, sizeof dir) != 0) {
        perror("tmpdir");
        return 1;
    }
    int failures = 0;
    // 88 samples in batches of 16: 6 batches per epoch, the last of 8, so 14
    // steps cross two epochs and their reshuffles.
    if (write_mlp_data(88, 8) != 0 || write_text() != 0)
        return 1;
    RUN(test_mlp_sgd);
    RUN(test_mlp_adamw);
    RUN(test_gpt_sgd);
    RUN(test_gpt_adamw);
    torchref_rmdir(dir);
    return failures ? 1 : 0;
}
