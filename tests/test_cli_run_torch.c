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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"
#include "test_train_ref.h"
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
#define SGD_TOL 1e-5
#define ADAMW_TOL 1e-4

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

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
    CHECK_EQ_INT(ttrain_read_losses(metrics, ours, NULL, 64), steps);
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
    const TtrainTol tol = {c->elem_tol, NORM_TOL, PARAM_FLOOR};
    double worst = 0, worst_norm = 0;
    return ttrain_compare_params(final, dir, &tol, 1, &worst, &worst_norm);
}

static const Case mlp_sgd = {"mlp, sgd + momentum", "mlp:8,32,32,4", 0, "16", "14",
                             {TTRAIN_SGD_OPTS, NULL}, TTRAIN_SGD_CASE, SGD_TOL};
static const Case mlp_adamw = {"mlp, adamw + clip + warmup-cosine", "mlp:8,32,32,4", 0, "16",
                               "14", {TTRAIN_ADAMW_OPTS("0.01", "3"), NULL},
                               TTRAIN_ADAMW_CASE("0.01", "3"), ADAMW_TOL};
static const Case gpt_sgd = {"minigpt, sgd + momentum",
                             "gpt:layers=2,embd=32,heads=4,ctx=16,vocab=40", 1, "8", "12",
                             {TTRAIN_SGD_OPTS, NULL}, TTRAIN_SGD_CASE, SGD_TOL};
static const Case gpt_adamw = {"minigpt, adamw + clip + warmup-cosine",
                               "gpt:layers=2,embd=32,heads=4,ctx=16,vocab=40", 1, "8", "12",
                               {TTRAIN_ADAMW_OPTS("0.003", "3"), NULL},
                               TTRAIN_ADAMW_CASE("0.003", "3"), ADAMW_TOL};

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
    int rc = ttrain_start(argc, argv, &exe, dir, sizeof dir);
    if (rc >= 0)
        return rc;
    int failures = 0;
    // 88 samples in batches of 16: 6 batches per epoch, the last of 8, so 14
    // steps cross two epochs and their reshuffles.
    if (ttrain_write_mlp_data(dir, 88, 8, 12345) != 0 || write_text() != 0)
        return 1;
    RUN(test_mlp_sgd);
    RUN(test_mlp_adamw);
    RUN(test_gpt_sgd);
    RUN(test_gpt_adamw);
    torchref_rmdir(dir);
    return failures ? 1 : 0;
}
