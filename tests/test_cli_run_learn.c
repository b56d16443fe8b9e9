// tests/test_cli_run_learn.c: training through `ddplab run` learns. On each
// synthetic set the mean loss of the last 5 steps falls well below that of
// the first 3 (read from --metrics), and MiniGPT overfits a short text: its
// loss falls below 0.2 nats per token within 100 steps.
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 120.0

static const char *exe;
static char dir[512];
static char metrics[600];

// Runs `ddplab run ARGS --metrics FILE` and reads the mean loss of the first
// 3 and of the last 5 steps.
static int train(const char *const *args, double *first, double *last) {
    const char *argv[48];
    int n = 0;
    argv[n++] = "run";
    for (; *args && n < 44; args++)
        argv[n++] = *args;
    argv[n++] = "--metrics";
    argv[n++] = metrics;
    argv[n] = NULL;
    TcliResult r;
    tcli_run(&r, exe, argv, TIMEOUT_S);
    if (r.rc != 0)
        fprintf(stderr, "ddplab run failed (%d): %s\n", r.rc, r.err);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    char *text = tfile_read(metrics, NULL);
    CHECK(text != NULL);
    double loss[4096];
    int steps = 0;
    for (char *line = strtok(text, "\n"); line && steps < 4096; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "loss");
        loss[steps++] = cJSON_IsNumber(l) ? l->valuedouble : 1e30;
        cJSON_Delete(j);
    }
    free(text);
    CHECK(steps >= 8);
    *first = (loss[0] + loss[1] + loss[2]) / 3;
    *last = 0;
    for (int i = steps - 5; i < steps; i++)
        *last += loss[i] / 5;
    printf("  first 3 steps %.4f, last 5 steps %.4f (%d steps)\n", *first, *last, steps);
    return 0;
}

static int test_blobs(void) {
    double first, last;
    const char *sgd[] = {"--data", "blobs", "--steps", "100", NULL}; // every default
    CHECK(train(sgd, &first, &last) == 0);
    CHECK(last < 0.5 * first);
    const char *adam[] = {"--data", "blobs", "--optimizer", "adam", "--lr", "0.01", "--steps",
                          "60", NULL};
    CHECK(train(adam, &first, &last) == 0);
    CHECK(first > 0.8); // about ln 4 at first: four classes
    CHECK(last < 0.1);
    return 0;
}

static int test_teacher(void) {
    double first, last;
    const char *args[] = {"--data", "teacher", "--optimizer", "adam", "--lr", "0.01", "--steps",
                          "150", NULL};
    CHECK(train(args, &first, &last) == 0);
    CHECK(last < 0.25 * first);
    return 0;
}

static int test_arith(void) {
    double first, last;
    const char *args[] = {"--data", "arith:lines=2000", "--model",
                          "gpt:layers=1,embd=32,heads=2,ctx=16,vocab=13", "--batch", "16",
                          "--optimizer", "adamw", "--lr", "0.01", "--steps", "150", NULL};
    CHECK(train(args, &first, &last) == 0);
    CHECK(first > 2.3);  // about ln 13: 13 characters, none known yet
    CHECK(last < 1.9);   // the digits of the operands stay random; the rest is learnt
    return 0;
}

static int test_overfit_text(void) {
    char path[600], text[400] = "";
    snprintf(path, sizeof path, "%s/short.txt", dir);
    for (int i = 0; i < 6; i++)
        strcat(text, "the quick brown fox jumps over the lazy dog. ");
    CHECK(tfile_write(path, text, strlen(text)) == 0);
    double first, last;
    const char *args[] = {"--text", path, "--model", "gpt:layers=1,embd=32,heads=2,ctx=16,vocab=32",
                          "--batch", "16", "--optimizer", "adamw", "--lr", "0.01", "--steps",
                          "100", NULL};
    CHECK(train(args, &first, &last) == 0);
    CHECK(first > 2.5);
    CHECK(last < 0.2);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "runlearn") != 0)
        return 2;
    snprintf(metrics, sizeof metrics, "%s/m.jsonl", dir);
    int failures = 0;
    RUN(test_blobs);
    RUN(test_teacher);
    RUN(test_arith);
    RUN(test_overfit_text);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
