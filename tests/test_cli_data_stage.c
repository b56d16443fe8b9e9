// tests/test_cli_data_stage.c: the input pipeline through `ddplab run`:
//   no workers    with a high --sample-cost, data wait (the "data.wait"
//                 events of the exported trace) is the largest share of
//                 rank 0's step time, and the report line says so
//   8 workers     prefetch 2: only the first batch waits (the warm-up)
//   off           --sample-cost 0 leaves the trace as it is without it
//   strategies    ddp (every rank), fsdp, dp (rank 0 alone loads), and a
//                 phantom run tracing the same data events as a numeric one
//   bad values    one line on stderr naming option, value and what is
//                 allowed; exit 2
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_env.h"
#include "test_files.h"
#include "test_trace_events.h"

#define TIMEOUT_S 60.0

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

// `ddplab run` with a small MLP; the caller frees r.
#define RUN_CLI(r, ...)                                                            \
    TCLI_RUN(r, exe, TIMEOUT_S, "run", "--model", "mlp:16,64,64,4", "--data",  \
             "blobs:n=2048,features=16,classes=4", "--batch", "32", __VA_ARGS__)

static void show(const char *what, const TcliResult *r) {
    fprintf(stderr, "%s: rc %d\n  stdout: %.2000s\n  stderr: %.1500s\n", what, r->rc,
            r->out ? r->out : "", r->err ? r->err : "");
}

// Rank `rank`'s compute-stream time in "data.wait" and in every other
// compute event; their counts.
typedef struct {
    double wait_s, other_s;
    int waits, loads, h2d;
} Split;

static int split(const char *trace, int rank, Split *s) {
    memset(s, 0, sizeof *s);
    int n = 0;
    cJSON **ev = tev_read(trace, "compute", NULL, rank, &n);
    CHECK(ev != NULL);
    for (int i = 0; i < n; i++) {
        const char *name = tev_str(ev[i], "name"), *stream = tev_str(ev[i], "stream");
        double d = tev_num(ev[i], "sim_end") - tev_num(ev[i], "sim_start");
        if (strcmp(name, "data.load") == 0)
            s->loads++;
        if (strcmp(name, "data.h2d") == 0)
            s->h2d++;
        if (strcmp(stream, "compute") != 0)
            continue;
        if (strcmp(name, "data.wait") == 0) {
            s->wait_s += d;
            s->waits++;
        } else {
            s->other_s += d;
        }
    }
    tev_free(ev, n);
    return 0;
}

static int test_no_workers(void) {
    TcliResult r;
    const char *t = in_dir("w0.jsonl");
    RUN_CLI(r, "--steps", "6", "--sample-cost", "0.001", "--trace", t);
    if (r.rc != 0)
        show("0 workers", &r);
    CHECK_EQ_INT(r.rc, 0);
    // 32 ms of loading per step against well under a millisecond of compute
    CHECK_STR_CONTAINS(r.out, "data wait (the loop loads (0 workers), 0.001 s/sample, pinned "
                              "copies): rank 0 99.");
    CHECK_STR_CONTAINS(r.out, "6 of 6 batches waited");
    tcli_result_free(&r);
    Split s;
    CHECK(split(t, 0, &s) == 0);
    CHECK_EQ_INT(s.waits, 6);
    CHECK_EQ_INT(s.loads, 6);
    CHECK_EQ_INT(s.h2d, 6);
    CHECK(s.wait_s > 6 * 0.032);             // 32 samples x 1 ms, plus the copy
    CHECK(s.wait_s > 10 * s.other_s);        // by far the largest share
    return 0;
}

static int test_enough_workers(void) {
    TcliResult r;
    const char *t = in_dir("w8.jsonl");
    const char *steps = tenv_quick() ? "20" : "40";
    // 160 us per batch per worker, 8 workers: 20 us a batch, a step computes ~80 us
    RUN_CLI(r, "--steps", steps, "--sample-cost", "5e-6", "--loader-workers", "8", "--prefetch",
            "2", "--trace", t);
    if (r.rc != 0)
        show("8 workers", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "8 workers x prefetch 2");
    CHECK_STR_CONTAINS(r.out, "1 of ");
    tcli_result_free(&r);
    Split s;
    CHECK(split(t, 0, &s) == 0);
    CHECK_EQ_INT(s.waits, 1); // the warm-up: the first batch only
    CHECK_EQ_INT(s.loads, atoi(steps));
    CHECK_NEAR(s.wait_s, 32 * 5e-6, 5e-6); // one batch's load, and its copy
    // the same with the loop loading: every batch waits
    t = in_dir("w0b.jsonl");
    RUN_CLI(r, "--steps", steps, "--sample-cost", "5e-6", "--trace", t);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    Split z;
    CHECK(split(t, 0, &z) == 0);
    CHECK_EQ_INT(z.waits, atoi(steps));
    CHECK(z.wait_s > z.other_s); // the largest share
    CHECK(z.wait_s > 10 * s.wait_s); // every batch against the first alone
    return 0;
}

// Every event's simulated fields of two traces, in file order.
static int same_traces(const char *a, const char *b) {
    int na = 0, nb = 0;
    cJSON **ea = tev_read(a, NULL, NULL, -1, &na), **eb = tev_read(b, NULL, NULL, -1, &nb);
    int rc = ea && eb && na == nb && na > 0 ? 0 : 1;
    for (int i = 0; rc == 0 && i < na; i++) {
        const char *keys[] = {"sim_start", "sim_end", "bytes", "count", "step", "chunk"};
        for (int k = 0; k < 6; k++)
            if (tev_num(ea[i], keys[k]) != tev_num(eb[i], keys[k]))
                rc = 1;
        if (strcmp(tev_str(ea[i], "name"), tev_str(eb[i], "name")) != 0 ||
            strcmp(tev_str(ea[i], "stream"), tev_str(eb[i], "stream")) != 0)
            rc = 1;
        if (rc)
            fprintf(stderr, "event %d differs: %s against %s\n", i, tev_str(ea[i], "name"),
                    tev_str(eb[i], "name"));
    }
    if (na != nb)
        fprintf(stderr, "%d events against %d\n", na, nb);
    tev_free(ea, na);
    tev_free(eb, nb);
    return rc;
}

static int test_off_unchanged(void) {
    TcliResult r;
    const char *a = in_dir("plain.jsonl"), *b = in_dir("zero.jsonl");
    RUN_CLI(r, "--strategy", "ddp", "-n", "2", "--steps", "3", "--trace", a);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    RUN_CLI(r, "--strategy", "ddp", "-n", "2", "--steps", "3", "--sample-cost", "0", "--trace", b);
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "data wait") == NULL);
    tcli_result_free(&r);
    CHECK(same_traces(a, b) == 0);
    Split s;
    CHECK(split(b, 0, &s) == 0);
    CHECK_EQ_INT(s.waits + s.loads + s.h2d, 0);
    return 0;
}

static int test_strategies(void) {
    TcliResult r;
    Split s;
    // ddp: both ranks load and wait; phantom traces the same data events
    const char *num = in_dir("ddp.jsonl"), *ph = in_dir("ddp-phantom.jsonl");
    RUN_CLI(r, "--strategy", "ddp", "-n", "2", "--steps", "4", "--sample-cost", "1e-5",
        "--loader-workers", "2", "--pin-memory", "0", "--trace", num);
    if (r.rc != 0)
        show("ddp", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "pageable copies): rank 0 ");
    CHECK_STR_CONTAINS(r.out, ", rank 1 ");
    tcli_result_free(&r);
    RUN_CLI(r, "--strategy", "ddp", "-n", "2", "--steps", "4", "--sample-cost", "1e-5",
        "--loader-workers", "2", "--pin-memory", "0", "--phantom", "--trace", ph);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    for (int rank = 0; rank < 2; rank++) {
        Split p;
        CHECK(split(num, rank, &s) == 0);
        CHECK(split(ph, rank, &p) == 0);
        CHECK_EQ_INT(s.loads, 4);
        CHECK_EQ_INT(s.h2d, 4);
        CHECK(s.waits >= 1);
        CHECK_EQ_INT(p.waits, s.waits);
        CHECK(p.wait_s == s.wait_s);
    }
    // fsdp
    const char *f = in_dir("fsdp.jsonl");
    RUN_CLI(r, "--strategy", "fsdp", "-n", "2", "--steps", "3", "--sample-cost", "1e-4", "--trace",
        f);
    if (r.rc != 0)
        show("fsdp", &r);
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    CHECK(split(f, 1, &s) == 0);
    CHECK_EQ_INT(s.waits, 3);
    CHECK(s.wait_s > s.other_s);
    // dp: one process loads the whole batch for every device
    const char *d = in_dir("dp.jsonl");
    RUN_CLI(r, "--strategy", "dp", "-n", "2", "--steps", "3", "--sample-cost", "1e-4", "--trace",
            d);
    if (r.rc != 0)
        show("dp", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, ", rank 1 ") == NULL);
    tcli_result_free(&r);
    CHECK(split(d, 0, &s) == 0);
    CHECK_EQ_INT(s.loads, 3);
    CHECK(split(d, 1, &s) == 0);
    CHECK_EQ_INT(s.loads + s.waits + s.h2d, 0);
    return 0;
}

// Each refusal: exit 2, exactly one line on stderr holding `want`.
static int refused(const char *want, const char *const *args) {
    const char *argv[24] = {"run", "--steps", "1"};
    int n = 3;
    for (; *args && n < 23; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    TcliResult r;
    tcli_run(&r, exe, argv, TIMEOUT_S);
    int ok = r.rc == 2 && r.err && tcli_lines(r.err) == 1 && strstr(r.err, want) != NULL;
    if (!ok)
        show(want, &r);
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

#define REFUSED(want, ...)                                                     \
    do {                                                                       \
        const char *refused_args_[] = {__VA_ARGS__, NULL};                     \
        CHECK(refused(want, refused_args_) == 0);                              \
    } while (0)

static int test_bad_values(void) {
    REFUSED("--sample-cost: '-0.5' is negative; allowed: a number of seconds from 0 to 3600",
            "--sample-cost", "-0.5");
    REFUSED("--sample-cost: 'fast' is not a number of seconds", "--sample-cost", "fast");
    REFUSED("--sample-cost: 'inf' is not a number of seconds", "--sample-cost", "inf");
    REFUSED("--loader-workers: '-2' is negative; allowed: a whole number from 0 to 1024",
            "--sample-cost", "0.001", "--loader-workers", "-2");
    REFUSED("--prefetch: '0' is out of range; allowed: a whole number from 1 to 1024",
            "--sample-cost", "0.001", "--loader-workers", "2", "--prefetch", "0");
    REFUSED("--prefetch: '4' needs loader workers (DataLoader takes prefetch_factor only with "
            "num_workers > 0)", "--sample-cost", "0.001", "--prefetch", "4");
    REFUSED("--pin-memory: '2' is not 0 or 1; allowed: 0, 1", "--sample-cost", "0.001",
            "--pin-memory", "2");
    REFUSED("--loader-workers: '4' has no effect without --sample-cost", "--loader-workers", "4");
    REFUSED("--loader-workers: '4' has no effect without --sample-cost", "--loader-workers", "4",
            "--sample-cost", "0");
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tfile_mkdtemp(dir, sizeof dir, "data-stage") != 0) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    int failures = 0;
    RUN(test_no_workers);
    RUN(test_enough_workers);
    RUN(test_off_unchanged);
    RUN(test_strategies);
    RUN(test_bad_values);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
