// tests/test_cli_memory.c: `ddplab run --device-memory` as a user runs it.
// A run that fits prints every rank's peak by category and logs rank 0's
// peak in --metrics; the peak it reports is exactly the capacity the run
// needs (one byte less fails, mid-step, with the itemised report); a model
// too big fails with exit code 1, the itemised report, the closed forms and
// what would fit (and what is suggested does fit); a layer too big for any
// sharding says so; bad sizes are bad input (exit code 2).
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

// `ddplab run --data blobs:features=8 --model mlp:8,256,256,4 --optimizer
// adam --steps 2 ARGS...`: 69,124 parameters, 270 KiB each of parameters and
// gradients, 540 KiB of Adam state.
static int run(TcliResult *r, const char *const *args) {
    const char *argv[40] = {"run", "--data", "blobs:features=8", "--model", "mlp:8,256,256,4",
                            "--optimizer", "adam", "--steps", "2", "--progress", "lines"};
    int n = 11;
    for (; *args && n < 38; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    return tcli_run(r, exe, argv, TIMEOUT_S);
}

// The last mem_peak_bytes of a --metrics file, or -1.
static long long last_peak(const char *path) {
    char *text = tfile_read(path, NULL);
    long long peak = -1, prev = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "mem_peak_bytes");
        peak = cJSON_IsNumber(v) && v->valuedouble >= (double)prev ? (long long)v->valuedouble
                                                                   : -1;
        prev = peak;
        cJSON_Delete(j);
        if (peak < 0)
            break;
    }
    free(text);
    return peak;
}

static int test_table(void) {
    TcliResult r;
    const char *args[] = {"--strategy", "ddp", "-n", "4", "--device-memory", "h100", NULL};
    CHECK_EQ_INT(run(&r, args), 0);
    CHECK_STR_CONTAINS(r.out, "memory: each rank's device peak by category (the memory ledger)\n"
                              "  capacity: --device-memory h100 = 74.5 GiB per rank\n"
                              "  rank                          0-3\n"
                              "  params                    270 KiB\n"
                              "  grads                     270 KiB\n"
                              "  optimizer                 540 KiB\n");
    CHECK_STR_CONTAINS(r.out, "  comm buffers              270 KiB\n");
    CHECK_STR_CONTAINS(r.out, "  of the capacity              0.0%\n");
    for (const char *line = r.out; *line; line += strcspn(line, "\n") + 1)
        CHECK(strcspn(line, "\n") <= 79);
    tcli_result_free(&r);
    // DataParallel: device 0 holds the optimizer, the others do not.
    const char *dp[] = {"--strategy", "dp", "-n", "4", NULL};
    CHECK_EQ_INT(run(&r, dp), 0);
    CHECK_STR_CONTAINS(r.out, "  rank                            0        1-3\n");
    CHECK_STR_CONTAINS(r.out, "  optimizer                 540 KiB        0 B\n");
    tcli_result_free(&r);
    // Each replica holds its chunk's activations, as a DDP rank with that
    // batch does: 30 samples go out as 8, 8, 8 and 6, and the last device's
    // largest chunk over the batch sizes it can meet is 7 (28 samples).
    const char *ddp8[] = {"--strategy", "ddp", "-n", "4", "--batch", "8", NULL};
    CHECK_EQ_INT(run(&r, ddp8), 0);
    CHECK_STR_CONTAINS(r.out, "  activations              64.7 KiB\n");
    tcli_result_free(&r);
    const char *dp30[] = {"--strategy", "dp", "-n", "4", "--batch", "30", NULL};
    CHECK_EQ_INT(run(&r, dp30), 0);
    CHECK_STR_CONTAINS(r.out, "  activations              64.7 KiB   64.7 KiB   56.6 KiB\n");
    tcli_result_free(&r);
    return 0;
}

// The peak a run reports is the capacity it needs, to the byte: DataParallel
// on 4 devices, whose device 0 peaks while it scatters a batch.
static int test_peak_is_the_need(void) {
    const char *m = tcli_path(dir, "m.jsonl");
    TcliResult r;
    const char *first[] = {"--strategy", "dp", "-n", "4", "--metrics", m, NULL};
    CHECK_EQ_INT(run(&r, first), 0);
    tcli_result_free(&r);
    long long peak = last_peak(m);
    CHECK(peak > 1100000); // Adam on device 0 and one chunk's activations (8 of 32 samples)
    char cap[32], less[32];
    snprintf(cap, sizeof cap, "%lld", peak);
    snprintf(less, sizeof less, "%lld", peak - 1);
    const char *fits[] = {"--strategy", "dp", "-n", "4", "--device-memory", cap, NULL};
    CHECK_EQ_INT(run(&r, fits), 0);
    CHECK_STR_CONTAINS(r.out, "  of the capacity            100.0%");
    tcli_result_free(&r);
    // One byte less: rank 0 fails inside a step, while the others wait in
    // their collectives (the watchdog ends the wait).
    const char *m2 = tcli_path(dir, "m2.jsonl");
    const char *over[] = {"--strategy", "dp", "-n", "4", "--device-memory", less,
                          "--watchdog", "1", "--metrics", m2, NULL};
    CHECK_EQ_INT(run(&r, over), 1);
    CHECK_STR_CONTAINS(r.err, "out of device memory on rank 0: allocating ");
    CHECK_STR_CONTAINS(r.err, "over its capacity of 1.12 MiB; in use: ");
    CHECK(strstr(r.out, "done:") == NULL);
    CHECK(!tfile_exists(m2)); // a failed run leaves no metrics
    tcli_result_free(&r);
    return 0;
}

// Runs each suggestion of a "would fit" line ("; "-separated "OPTIONS needs
// SIZE[ and SIZE of host memory]") after the failed run's own options
// (base, NULL-terminated; later options win), in `capacity`: each must
// finish and report SIZE as its device peak. Returns how many ran so, or -1
// at the first that did not.
static int check_suggestions(const char *list, const char *capacity, const char *const *base) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", list);
    buf[strcspn(buf, "\n")] = '\0';
    int ok = 0;
    for (char *item = strtok(buf, ";"); item; item = strtok(NULL, ";")) {
        char *needs = strstr(item, " needs ");
        if (needs == NULL)
            return -1;
        *needs = '\0';
        char want[64], *size = needs + strlen(" needs ");
        size[strcspn(size, "a")] = '\0'; // up to " and ... of host memory"
        for (size_t k = strlen(size); k > 0 && size[k - 1] == ' '; k--)
            size[k - 1] = '\0';
        // rank 0's column of the table (DataParallel's has the other ranks' after it)
        snprintf(want, sizeof want, "  peak%29s", size);
        const char *argv[40] = {"--device-memory", capacity};
        int n = 2;
        for (int b = 0; base[b] && n < 20; b++)
            argv[n++] = base[b];
        char opts[512];
        snprintf(opts, sizeof opts, "%s", item);
        char *paren = strchr(opts, '(');
        if (paren)
            *paren = '\0'; // "(256 samples per step)"
        for (char *w = strtok_r(opts, " ", &paren); w && n < 38; w = strtok_r(NULL, " ", &paren))
            argv[n++] = w;
        argv[n] = NULL;
        TcliResult r;
        int rc = run(&r, argv);
        const char *at = r.out ? strstr(r.out, want) : NULL;
        int good = rc == 0 && at != NULL && (at[strlen(want)] == '\n' || at[strlen(want)] == ' ');
        if (!good)
            fprintf(stderr, "suggestion '%s': exit %d, wanted '%s' in:\n%s\n%s\n", item, rc, want,
                    r.out ? r.out : "", r.err ? r.err : "");
        tcli_result_free(&r);
        if (!good)
            return -1;
        ok++;
    }
    return ok;
}

// DDP on 4 ranks with 1.4 MB each: the buckets do not fit.
static int test_oom_report(void) {
    TcliResult r;
    const char *args[] = {"--strategy", "ddp", "-n", "4", "--device-memory", "1.4MB", NULL};
    CHECK_EQ_INT(run(&r, args), 1);
    // The failure, itemised in one line, then the ledger at the refusal.
    CHECK_STR_CONTAINS(r.err, "ddplab run: ddp: out of device memory on rank 0: allocating 270 "
                              "KiB of comm buffers (ddp.bucket) would bring the device to 1.57 "
                              "MiB, over its capacity of 1.34 MiB; in use: other 128 B, params "
                              "270 KiB, grads 270 KiB, optimizer 540 KiB, activations 259 KiB\n");
    CHECK_STR_CONTAINS(r.err, "ddplab run: rank 0 ran out of device memory (--device-memory "
                              "1.4MB = 1.34 MiB): it held this when 270 KiB for comm buffers "
                              "(ddp.bucket) was refused:\n");
    CHECK_STR_CONTAINS(r.err, "  optimizer                     540 KiB\n"
                              "  activations                   259 KiB\n"
                              "  total                        1.31 MiB\n");
    // The closed forms: 16 bytes per parameter, the buckets on top.
    CHECK_STR_CONTAINS(r.err, "69124 parameters at 16 bytes each");
    // The closed forms, each beside what two phantom steps of it hold.
    CHECK_STR_CONTAINS(r.err, "  DDP                            states   1.05 MiB + transient    "
                              "270 KiB ->   1.57 MiB, measured 1.57 MiB  does not fit  <- this "
                              "run\n");
    // ZeRO-1's formula leaves out the shard of the parameters' all-gather
    CHECK_STR_CONTAINS(r.err, "  ZeRO-1                         states    675 KiB + transient    "
                              "270 KiB ->   1.18 MiB, measured 1.24 MiB  fits\n");
    CHECK_STR_CONTAINS(r.err, "ddplab run: would fit in 1.34 MiB per rank: --strategy ddp "
                              "--gradient-as-bucket-view needs 1.31 MiB; --strategy zero1 needs "
                              "1.24 MiB;");
    CHECK_STR_CONTAINS(r.err, "--strategy fsdp --cpu-offload needs 787 KiB and 270 KiB of host "
                              "memory");
    CHECK(strstr(r.out, "done:") == NULL);
    // Every suggestion runs in the capacity, and peaks at what it said.
    const char *line = strstr(r.err, "would fit in 1.34 MiB per rank:");
    CHECK(line != NULL);
    const char *ddp4[] = {"--strategy", "ddp", "-n", "4", NULL};
    CHECK_EQ_INT(check_suggestions(line + strlen("would fit in 1.34 MiB per rank:"), "1.4MB",
                                   ddp4),
                 6);
    tcli_result_free(&r);
    // One rank, a batch too big: offload, more ranks, or a smaller batch
    // with accumulation; the smaller batch runs.
    const char *big[] = {"--batch", "256", "--device-memory", "3MB", NULL};
    CHECK_EQ_INT(run(&r, big), 1);
    CHECK_STR_CONTAINS(r.err, "would fit in 2.86 MiB per rank: --strategy fsdp --cpu-offload "
                              "needs 2.54 MiB and 1.05 MiB of host memory; --strategy fsdp -n 4 "
                              "needs 2.80 MiB; --batch 128 --accum 2 (256 samples per step) "
                              "needs 2.07 MiB\n");
    line = strstr(r.err, "would fit in 2.86 MiB per rank:");
    CHECK(line != NULL);
    const char *b256[] = {"--batch", "256", NULL};
    CHECK_EQ_INT(check_suggestions(line + strlen("would fit in 2.86 MiB per rank:"), "3MB", b256),
                 3);
    tcli_result_free(&r);
    // DataParallel: device 0's own need is measured (it has no closed form),
    // and the other strategies are offered at each rank's share of its batch
    const char *dp[] = {"--strategy", "dp", "-n", "4", "--batch", "256", "--device-memory", "1.6MB",
                        NULL};
    CHECK_EQ_INT(run(&r, dp), 1);
    CHECK_STR_CONTAINS(r.err, "at --batch 64 (DataParallel's --batch 256 split over 4 devices)");
    CHECK_STR_CONTAINS(r.err, "  DataParallel (device 0)      ");
    CHECK_STR_CONTAINS(r.err, " measured 1.57 MiB  does not fit  <- this run\n");
    CHECK(strstr(r.err, "fits  <- this run") == NULL); // no closed form is this run
    CHECK_STR_CONTAINS(r.err, "would fit in 1.53 MiB per rank: --strategy zero1 --batch 64 needs "
                              "1.49 MiB;");
    CHECK_STR_CONTAINS(r.err, "--batch 128 --accum 2 (256 samples per step) needs 1.31 MiB\n");
    line = strstr(r.err, "would fit in 1.53 MiB per rank:");
    CHECK(line != NULL);
    const char *dp4[] = {"--strategy", "dp", "-n", "4", "--batch", "256", NULL};
    CHECK_EQ_INT(check_suggestions(line + strlen("would fit in 1.53 MiB per rank:"), "1.6MB", dp4),
                 5);
    tcli_result_free(&r);
    return 0;
}

// A layer of 4.2M parameters (16 MiB, 32 MiB with its gradient) on 20 MB
// devices: FSDP needs a unit whole while it computes, so no sharding and no
// number of ranks fits.
static int test_layer_too_big(void) {
    const char *argv[] = {"run", "--data", "blobs:features=8", "--model", "mlp:8,2048,2048,4",
                          "--strategy", "ddp", "-n", "4", "--steps", "1", "--device-memory",
                          "20MB", NULL};
    TcliResult r;
    CHECK_EQ_INT(tcli_run(&r, exe, argv, TIMEOUT_S), 1);
    CHECK_STR_CONTAINS(r.err, "out of device memory on rank 0: allocating 16.1 MiB of grads");
    CHECK_STR_CONTAINS(r.err, "the largest module 4196352 parameters");
    CHECK_STR_CONTAINS(r.err, "ddplab run: nothing here fits in 19.1 MiB per rank: even "
                              "FULL_SHARD with CPU offload needs 34.1 MiB on the device");
    CHECK_STR_CONTAINS(r.err, "FSDP computes a unit whole, so more ranks do not help");
    tcli_result_free(&r);
    return 0;
}

static int test_bad_sizes(void) {
    static const struct {
        const char *value, *want;
    } cases[] = {
        {"80XB", "--device-memory: '80XB' is not a size or a device; allowed: a size such as "
                 "80GB, 80GiB, 512MiB or 1.5e9 (bytes), or a device: h100 (80 GB), h200 (141 "
                 "GB), a100-40 (40 GB), a100-80 (80 GB), l40s (48 GB), rtx4090 (24 GB)"},
        {"0", "--device-memory: '0' is not above 0"},
        {"a100", "--device-memory: 'a100' is not a size or a device"},
        {"-5GB", "--device-memory: '-5GB' is not a size or a device"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TcliResult r;
        const char *args[] = {"run", "--device-memory", cases[i].value, NULL};
        CHECK_EQ_INT(tcli_run(&r, exe, args, TIMEOUT_S), 2);
        CHECK_STR_CONTAINS(r.err, cases[i].want);
        CHECK_EQ_INT(tcli_lines(r.err), 1);
        CHECK_EQ_INT(r.out[0], '\0');
        tcli_result_free(&r);
    }
    TcliResult r;
    const char *help[] = {"run", "--help", NULL};
    CHECK_EQ_INT(tcli_run(&r, exe, help, TIMEOUT_S), 0);
    CHECK_STR_CONTAINS(r.out, "--device-memory SIZE|DEVICE");
    CHECK_STR_CONTAINS(r.out, "does not fit --device-memory");
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    if ((exe = tcli_exe_arg(argc, argv)) == NULL)
        return 2;
    if (tfile_mkdtemp(dir, sizeof dir, "cli-memory") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_table);
    RUN(test_peak_is_the_need);
    RUN(test_oom_report);
    RUN(test_layer_too_big);
    RUN(test_bad_sizes);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
