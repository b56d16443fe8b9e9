// tests/test_cli_run_fsdp_ckpt.c: FSDP checkpoints through `ddplab run`.
//
// `--strategy fsdp -n 4 --save ck --state-dict sharded` after 4 of 8 steps
// writes the index and one file per rank; `--resume ck` at -n 2 finishes
// the run, and its final checkpoint (a FULL one, which any strategy reads)
// holds the parameters DDP reaches when its own checkpoint, saved the same
// way at 4 ranks, is resumed at 2 (within 1e-6 relative, the tolerance of
// tests/test_fsdp_state.c, which explains it). Bad uses get clear errors:
// the sharded index given to --strategy ddp, a local state dict at another
// world size, and state_dict() called on rank 0 only (exit 3, a diagnosed
// distributed failure).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/safetensors.h"
#include "test_ckpt_util.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 120.0
#define TOL 1e-6

static const char *exe;
static char dir[512];

static const char *const common[] = {"--data", "blobs", "--model", "mlp:16,32,32,4",
                                     "--optimizer", "adam", "--batch", "8", "--steps", "8",
                                     NULL};

// Runs `ddplab run` with the common arguments and more (NULL-terminated);
// the result goes to res (free it).
static int run(TcliResult *res, const char *const *more) {
    const char *argv[48];
    int n = 0;
    argv[n++] = "run";
    for (const char *const *a = common; *a; a++)
        argv[n++] = *a;
    for (; *more && n < 46; more++)
        argv[n++] = *more;
    argv[n] = NULL;
    return tcli_run(res, exe, argv, TIMEOUT_S);
}

// Runs and expects exit 0.
static int run_ok(const char *const *more) {
    TcliResult res;
    int rc = run(&res, more);
    if (rc != 0)
        fprintf(stderr, "ddplab run failed (%d): %s\n", rc, res.err);
    tcli_result_free(&res);
    return rc;
}

// The largest |a - b| / (1 + |b|) over the F32 tensors without a '/' in
// their name (the model's parameters) of two checkpoints; -1 if they
// cannot be read or do not match.
static double param_diff(const char *a, const char *b) {
    SimStFile fa, fb;
    if (tckpt_load_pair(a, &fa, b, &fb) != 0)
        return -1;
    double worst = 0;
    int n = 0;
    for (int i = 0; i < fa.ntensors && worst >= 0; i++) {
        const SimStTensor *x = &fa.tensors[i];
        if (strchr(x->name, '/') || x->dtype != SIM_FP32)
            continue;
        const SimStTensor *y = sim_stfile_find(&fb, x->name);
        size_t cnt = 1;
        for (int d = 0; d < x->ndim; d++)
            cnt *= (size_t)x->shape[d];
        if (y == NULL || y->dtype != SIM_FP32 || y->ndim != x->ndim) {
            worst = -1;
            break;
        }
        for (size_t k = 0; k < cnt; k++) {
            float p, q;
            memcpy(&p, (const char *)x->data + 4 * k, 4);
            memcpy(&q, (const char *)y->data + 4 * k, 4);
            double d = fabs((double)p - q) / (1 + fabs((double)q));
            worst = isnan(d) ? INFINITY : d > worst ? d : worst;
        }
        n++;
    }
    sim_stfile_free(&fa);
    sim_stfile_free(&fb);
    return n == 6 ? worst : -1; // the MLP's three weights and biases
}

static int test_sharded_4_to_2(void) {
    const char *ck = tcli_path(dir, "ck"), *end = tcli_path(dir, "end");
    const char *dk = tcli_path(dir, "dk"), *dend = tcli_path(dir, "dend");
    const char *save4[] = {"--strategy", "fsdp", "-n", "4", "--stop-after", "4",
                           "--save", ck, "--state-dict", "sharded", NULL};
    CHECK(run_ok(save4) == 0);
    CHECK(tfile_exists(ck));
    for (int g = 0; g < 4; g++) {
        char name[64];
        snprintf(name, sizeof name, "ck.step4.shard%d-of-4.safetensors", g);
        CHECK(tfile_exists(tcli_path(dir, name)));
    }
    const char *resume2[] = {"--strategy", "fsdp", "-n", "2", "--resume", ck, "--save", end,
                             NULL};
    TcliResult res;
    int rc = run(&res, resume2);
    if (rc != 0)
        fprintf(stderr, "%s", res.err);
    tcli_result_free(&res);
    CHECK_EQ_INT(rc, 0);
    // the reference: DDP's own checkpoint saved at 4 and resumed at 2
    const char *dsave4[] = {"--strategy", "ddp", "-n", "4", "--stop-after", "4", "--save", dk,
                            NULL};
    const char *dresume2[] = {"--strategy", "ddp", "-n", "2", "--resume", dk, "--save", dend,
                              NULL};
    CHECK(run_ok(dsave4) == 0);
    CHECK(run_ok(dresume2) == 0);
    double d = param_diff(end, dend);
    printf("  fsdp sharded at 4 -> 2: max param diff %.3g from ddp resumed the same way "
           "(tol %g)\n", d, TOL);
    CHECK(d >= 0 && d <= TOL);
    return 0;
}

static int test_errors(void) {
    const char *ck = tcli_path(dir, "ck"), *lk = tcli_path(dir, "lk");
    TcliResult res;
    // the sharded index, given to another strategy
    const char *ddp[] = {"--strategy", "ddp", "-n", "2", "--resume", ck, NULL};
    int rc = run(&res, ddp);
    CHECK_EQ_INT(rc, 2);
    CHECK_STR_CONTAINS(res.err, "not a checkpoint of the whole model");
    CHECK_STR_CONTAINS(res.err, "resume it with --strategy fsdp");
    tcli_result_free(&res);
    // a local state dict at another world size
    const char *local4[] = {"--strategy", "fsdp", "-n", "4", "--stop-after", "4", "--save", lk,
                            "--state-dict", "local", NULL};
    CHECK(run_ok(local4) == 0);
    const char *local2[] = {"--strategy", "fsdp", "-n", "2", "--resume", lk, NULL};
    rc = run(&res, local2);
    CHECK_EQ_INT(rc, 2);
    CHECK_STR_CONTAINS(res.err, "local state dict saved at 4 ranks; this run has 2");
    tcli_result_free(&res);
    // state_dict() on rank 0 only: a diagnosed mismatch, not a hang
    const char *rank0[] = {"--strategy", "fsdp", "-n", "4", "--save", tcli_path(dir, "r0"),
                           "--save-every", "2", "--state-dict-rank0-call", NULL};
    rc = run(&res, rank0);
    CHECK_EQ_INT(rc, 3);
    CHECK_STR_CONTAINS(res.err, "state_dict() called on rank 0 only: every rank must take part");
    tcli_result_free(&res);
    CHECK(!tfile_exists(tcli_path(dir, "r0")));
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "runfsdpckpt") != 0)
        return 2;
    int failures = 0;
    RUN(test_sharded_4_to_2);
    RUN(test_errors);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
