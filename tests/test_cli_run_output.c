// tests/test_cli_run_output.c: what `ddplab run` shows and writes: the
// configuration table (with the lr-scaling sentence), progress lines or a
// bar on stderr, the summary, one --metrics line per step with every field,
// --epochs turned into steps, the --trace file of compute events, and the
// help listing every option with its default, and the line that names the
// step where a diverging loss first became inf or NaN, and a gpt's effective
// batch in tokens.
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 60.0

static const char *exe;
static char dir[512];

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static int test_table_and_summary(void) {
    TcliResult r;
    const char *args[] = {"run", "--steps", "20", "--lr-scale", "linear", "--accum", "2",
                          "--progress", "lines", "--log-every", "5", NULL};
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    // The table, as llm.c prints its own.
    CHECK_STR_CONTAINS(r.out, "| Parameter             | Value");
    CHECK_STR_CONTAINS(r.out, "| strategy              | single (1 rank, backend cpu)");
    CHECK_STR_CONTAINS(r.out, "| model                 | mlp:16,64,64,4");
    CHECK_STR_CONTAINS(r.out, "| parameters            | 5,508 in 6 tensors");
    CHECK_STR_CONTAINS(r.out, "| data                  | blobs: 2048 samples x 16 features");
    CHECK_STR_CONTAINS(r.out, "| lr scaling            | lr 0.01 x 1 rank");
    CHECK_STR_CONTAINS(r.out, "accumulation steps = 0.02");
    CHECK_STR_CONTAINS(r.out, "(linear scaling rule)");
    for (const char *line = r.out; *line; line += strcspn(line, "\n") + 1)
        CHECK(strcspn(line, "\n") <= 79); // the table fits a terminal
    // Progress: a line every 5 steps (and the first), on stderr.
    CHECK_STR_CONTAINS(r.err, "step 1/20 | epoch 0 | loss ");
    CHECK_STR_CONTAINS(r.err, "step 5/20 |");
    CHECK_STR_CONTAINS(r.err, "step 20/20 |");
    CHECK_EQ_INT(tcli_lines(r.err), 5);
    CHECK(strchr(r.err, '\r') == NULL);
    // The summary.
    CHECK_STR_CONTAINS(r.out, "done: 20 steps");
    CHECK_STR_CONTAINS(r.out, "final loss ");
    CHECK_STR_CONTAINS(r.out, "samples/s");
    CHECK_STR_CONTAINS(r.out, "wall time ");
    CHECK_STR_CONTAINS(r.out, "simulated time ");
    CHECK(strstr(r.out, "| collectives") == NULL); // one rank: no collectives
    tcli_result_free(&r);

    // Several ranks: the table names the collectives' algorithm
    const char *algo[] = {"run", "--strategy", "ddp", "-n", "2", "--steps", "1", "--algo",
                          "dbtree", NULL};
    tcli_run(&r, exe, algo, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "| collectives           | dbtree: NCCL's Tree: two binary");
    // the mean over the ranks by default: the summary names no rank
    CHECK_STR_CONTAINS(r.out, "| loss shown            | mean over the ranks");
    CHECK(strstr(r.out, "(rank 0's, not the mean)") == NULL);
    tcli_result_free(&r);
    // --loss-log rank0: the summary says whose loss it is
    const char *rank0[] = {"run", "--strategy", "ddp", "-n", "2", "--steps", "1", "--loss-log",
                           "rank0", NULL};
    tcli_run(&r, exe, rank0, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "| loss shown            | rank 0's");
    CHECK_STR_CONTAINS(r.out, " (rank 0's, not the mean)\n");
    tcli_result_free(&r);

    // Not a terminal and no choice made: plain lines; --progress bar forces the bar.
    const char *bar[] = {"run", "--steps", "5", "--progress", "bar", NULL};
    tcli_run(&r, exe, bar, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strchr(r.err, '\r') != NULL);
    CHECK_STR_CONTAINS(r.err, "5/5 loss ");
    tcli_result_free(&r);
    return 0;
}

static int test_metrics_and_epochs(void) {
    char m[600];
    snprintf(m, sizeof m, "%s/m.jsonl", dir);
    // blobs:n=100 in batches of 32: 4 batches per epoch, the last of 4 samples.
    const char *args[] = {"run", "--data", "blobs:n=100", "--epochs", "3", "--metrics", m,
                          "--amp", "fp16", NULL};
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "12 (4 batches per epoch; 3.00 epochs)");
    tcli_result_free(&r);
    char *text = tfile_read(m, NULL);
    CHECK(text != NULL);
    CHECK_EQ_INT(tcli_lines(text), 12);
    static const char *const fields[] = {"step", "epoch", "loss", "lr", "loss_scale",
                                         "grad_norm", "samples_per_s", "skipped", "wall_s",
                                         "sim_s"};
    int step = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        CHECK(j != NULL);
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, fields[k])));
        step++;
        CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(j, "step")->valueint, step);
        CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(j, "epoch")->valueint, (step - 1) / 4);
        CHECK(cJSON_GetObjectItemCaseSensitive(j, "loss_scale")->valuedouble == 65536.0);
        CHECK(cJSON_GetObjectItemCaseSensitive(j, "grad_norm")->valuedouble > 0);
        CHECK(cJSON_GetObjectItemCaseSensitive(j, "sim_s")->valuedouble > 0);
        cJSON_Delete(j);
    }
    free(text);
    // --accum-tail step restarts the blocks each epoch: 3 batches per epoch
    // at accum 4 are one (short) step, so 5 steps are 5 epochs, not 6.67
    const char *tail[] = {"run", "--data", "blobs:n=96", "--epochs", "5", "--accum", "4",
                          "--accum-tail", "step", NULL};
    tcli_run(&r, exe, tail, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "5 (3 batches per epoch; 5.00 epochs)");
    CHECK_STR_CONTAINS(r.out, "done: 5 steps, 5.00 epochs in all");
    tcli_result_free(&r);
    return 0;
}

static int test_trace(void) {
    char t[600];
    snprintf(t, sizeof t, "%s/t.json", dir);
    const char *args[] = {"run", "--steps", "3", "--trace", t, NULL};
    TcliResult r;
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "trace: ");
    tcli_result_free(&r);
    char *text = tfile_read(t, NULL);
    CHECK(text != NULL);
    cJSON *j = cJSON_Parse(text);
    CHECK(j != NULL); // a valid Chrome trace
    cJSON_Delete(j);
    // Three linear layers, three steps: forward and backward of each.
    CHECK(count(text, "\"name\":\"linear_fwd\"") >= 9);
    CHECK(count(text, "\"name\":\"linear_bwd\"") >= 9);
    free(text);
    return 0;
}

static int test_help(void) {
    static const char *const opts[] = {
        "--strategy NAME", "-n, --ranks R", "-B, --backend NAME", "-p, --profile",
        "--model SPEC", "--data SET|X.npy", "--labels Y.npy", "--text FILE", "-b, --batch B",
        "--steps N", "--epochs E", "--stop-after N", "--accum N", "--shuffle 0|1",
        "--drop-last 0|1", "--seed N", "--metrics FILE.jsonl", "--save FILE",
        "--save-every N", "--resume FILE", "--init FILE", "--trace FILE", "--log-every N",
        "--progress auto|bar|lines", "--optimizer", "--lr X", "--momentum X", "--dampening X",
        "--nesterov", "--betas B1,B2", "--eps X", "--weight-decay X", "--lr-schedule",
        "--warmup N", "--min-lr X", "--lr-scale", "--clip-grad-norm X", "--amp",
        "--init-scale X", "--growth-interval N", "[single]", "[32]", "[100]", "[blobs]",
        "[dgx-h100]", "(default sgd)", "exit codes"};
    TcliResult r;
    const char *args[] = {"run", "--help", NULL};
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        CHECK_STR_CONTAINS(r.out, opts[i]);
    for (const char *line = r.out; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0))
        CHECK(strcspn(line, "\n") <= 79);
    tcli_result_free(&r);
    const char *help[] = {"help", "run", NULL};
    tcli_run(&r, exe, help, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "usage: ddplab run");
    tcli_result_free(&r);
    return 0;
}

// A learning rate far too large: the loss overflows, and the summary says
// from which step on, with the remedies. A run that trains says nothing.
static int test_divergence(void) {
    TcliResult r;
    const char *args[] = {"run", "--model", "mlp:16,64,64,4,act=gelu,mse", "--data",
                          "teacher:n=256", "--lr", "50", "--steps", "12",
                          "--progress", "lines", "--log-every", "1", NULL};
    tcli_run(&r, exe, args, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    const char *line = strstr(r.out, "the loss diverged: not finite from step ");
    CHECK(line != NULL);
    if (line) {
        long k = strtol(line + strlen("the loss diverged: not finite from step "), NULL, 10);
        CHECK(k >= 1 && k <= 12);
        char want[64]; // that step's progress line is the first non-finite one
        snprintf(want, sizeof want, "step %ld/12 | epoch ", k);
        const char *at = strstr(r.err, want);
        CHECK(at != NULL);
        at = at ? strstr(at, "| loss ") : NULL;
        CHECK(at != NULL);
        if (at) {
            char c = at[strlen("| loss ")];
            CHECK(c == 'i' || c == 'n' || c == '-');
        }
        CHECK_STR_CONTAINS(line, "lower --lr, add --warmup, or add --clip-grad-norm");
    }
    tcli_result_free(&r);
    const char *ok[] = {"run", "--steps", "5", NULL};
    tcli_run(&r, exe, ok, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "diverged") == NULL);
    tcli_result_free(&r);
    return 0;
}

// The effective batch row: samples for an MLP, samples and tokens (each
// sample a window of ctx tokens) for a gpt.
static int test_tokens_per_step(void) {
    TcliResult r;
    const char *gpt[] = {"run", "--strategy", "ddp", "-n", "4", "--batch", "8", "--accum", "2",
                         "--data", "arith", "--steps", "1", NULL};
    tcli_run(&r, exe, gpt, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "| effective batch       | 64 samples (2,048 tokens) per");
    tcli_result_free(&r);
    const char *mlp[] = {"run", "--steps", "1", NULL};
    tcli_run(&r, exe, mlp, TIMEOUT_S);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "| effective batch       | 32 samples per optimizer step");
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "runout") != 0)
        return 2;
    int failures = 0;
    RUN(test_table_and_summary);
    RUN(test_metrics_and_epochs);
    RUN(test_trace);
    RUN(test_help);
    RUN(test_divergence);
    RUN(test_tokens_per_step);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
