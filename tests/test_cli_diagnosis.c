// tests/test_cli_diagnosis.c: `ddplab run` with the hangs and mismatches a
// user can cause today, as a user runs them:
//   - a rank that leaves early (--uneven without --join): the watchdog's
//     diagnosis names the rank, the collective and its sequence number, the
//     divergence and the probable cause, on stderr and in --diagnosis FILE
//     (the same text), exit 3; the trace holds it as one event, and
//     `ddplab replay --viz text --at fault` shows it;
//   - rank 0 alone evaluating (--eval-variant rank0-only) and FSDP's
//     state_dict() on rank 0 only: protocol mismatches and a lone rank, each
//     with its divergence and cause;
//   - --diagnosis none writes no file; a run that succeeds writes none.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

static const char *exe;
static char tmpdir[256];

static const char *path(const char *name) {
    return tcli_path(tmpdir, name);
}

#define UNEVEN "run", "--strategy", "ddp", "-n", "4", "--data", "blobs", "--uneven", "2", \
               "--epochs", "1", "--watchdog", "0.5"

// The file holds exactly the diagnosis that stderr shows; returns its text.
static char *dump_matches(const char *file, const char *err) {
    size_t n = 0;
    char *d = tfile_read(file, &n);
    if (d == NULL) {
        fprintf(stderr, "%s was not written\n", file);
        return NULL;
    }
    if (n < 100 || d[n - 1] != '\n' || strstr(err, d) == NULL) {
        fprintf(stderr, "%s differs from what stderr shows:\n%s\n", file, d);
        free(d);
        return NULL;
    }
    return d;
}

static int test_rank_leaves(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 30, UNEVEN, "--trace", path("t.jsonl"), "--diagnosis", path("diag.txt"));
    CHECK_EQ_INT(r.rc, 3);
    // the run's own line, then the diagnosis, headline first
    CHECK_STR_CONTAINS(r.err, "ddplab run: ddp (backward): AllReduce #30 failed: watchdog "
                              "timeout: a rank never arrived\nwatchdog: rank ");
    CHECK_STR_CONTAINS(r.err, " s (limit 0.5 s) in AllReduce #30 (5508 x fp32); ");
    CHECK_STR_CONTAINS(r.err, "\n  ranks 0,1,2: #23 AllReduce 1 x fp32 done, #24 AllReduce 5508 "
                              "x fp32 done, ");
    CHECK_STR_CONTAINS(r.err, ", #30 AllReduce 5508 x fp32 waiting in rendezvous; waiting "
                              "(algo direct)\n");
    CHECK_STR_CONTAINS(r.err, ", #29 AllReduce 1 x fp32 done; rank function returned\n");
    CHECK_STR_CONTAINS(r.err, "\ndiverge at #30: ranks 0,1,2 called AllReduce 5508 x fp32, rank "
                              "3 never called #30 (last entered #29)\n");
    CHECK_STR_CONTAINS(r.err, "\nranks 0,1,2 wait in AllReduce #30 (5508 x fp32); rank 3 never "
                              "arrived (last completed #29)\n");
    CHECK_STR_CONTAINS(r.err, "\nprobable cause: rank 3 left the training loop early (fewer "
                              "batches, a return inside a rank-dependent branch) while the "
                              "others waited for it in AllReduce #30\n");
    // the parts in their order
    const char *h = strstr(r.err, "watchdog: rank "), *dv = strstr(r.err, "\ndiverge at #30");
    const char *sm = strstr(r.err, "\nranks 0,1,2 wait"), *pc = strstr(r.err, "\nprobable cause");
    CHECK(h && dv && sm && pc && h < dv && dv < sm && sm < pc);
    CHECK_STR_CONTAINS(r.out, "diagnosis written to ");
    CHECK_STR_CONTAINS(r.out, "diag.txt\n");
    char *d = dump_matches(path("diag.txt"), r.err);
    CHECK(d != NULL);
    CHECK(strncmp(d, "watchdog: rank ", 15) == 0);
    CHECK_STR_CONTAINS(d, "\nprobable cause: rank 3 left the training loop early");
    // the trace: one diagnosis event, the text as its name
    char *tr = tfile_read(path("t.jsonl"), NULL);
    CHECK(tr != NULL);
    const char *ev = strstr(tr, "\"label\":\"diagnosis\"");
    CHECK(ev != NULL);
    CHECK(strstr(ev + 1, "\"label\":\"diagnosis\"") == NULL);
    CHECK_STR_CONTAINS(tr, "\"kind\":\"fault\",\"name\":\"watchdog: rank ");
    CHECK_STR_CONTAINS(tr, "\\nprobable cause: rank 3 left the training loop early");
    free(tr);
    free(d);
    tcli_result_free(&r);
    return 0;
}

// The trace in the views: `--at fault` opens at the first fault and shows
// the diagnosis under its caption.
static int test_replay_at_fault(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 30, UNEVEN, "--trace", path("t.ddptrace"), "--diagnosis", "none");
    CHECK_EQ_INT(r.rc, 3);
    CHECK(strstr(r.out, "diagnosis written") == NULL);
    CHECK_STR_CONTAINS(r.err, "\nprobable cause: rank 3 left");
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, "replay", path("t.ddptrace"), "--viz", "text", "--at", "fault",
             "--ascii", "--viz-width", "400");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, ": fault: AllReduce #30 failed: watchdog timeout: a rank never "
                              "arrived\n  watchdog: rank ");
    CHECK_STR_CONTAINS(r.out, "\n  diverge at #30: ranks 0,1,2 called AllReduce 5508 x fp32, "
                              "rank 3 never called #30 (last entered #29)\n");
    CHECK_STR_CONTAINS(r.out, "\n  probable cause: rank 3 left the training loop early (fewer "
                              "batches, a return inside a rank-dependent branch) while the "
                              "others waited for it in AllReduce #30\n");
    tcli_result_free(&r);
    // the diagnosis event itself, among the fault stops
    TCLI_RUN(r, exe, 30, "replay", path("t.ddptrace"), "--viz", "text", "--at", "fault:1",
             "--viz-stops", "fault", "--ascii", "--viz-width", "400");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, " diagnosed the failure (what every rank was doing, below):\n"
                              "  watchdog: rank ");
    tcli_result_free(&r);
    return 0;
}

// rank 0 evaluates alone: its metrics all_reduce meets the others' next
// collective, the protocol check's broadcast of DDP's buffers.
static int test_eval_rank0_only(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 30, "run", "--strategy", "ddp", "-n", "4", "--data", "blobs", "--steps",
             "4", "--eval-variant", "rank0-only", "--eval-every", "1", "--watchdog", "0.5",
             "--diagnosis", path("eval.txt"));
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "\ncollective #3: rank 1 called Broadcast, rank 0 called AllReduce "
                              "(and 2 more ranks differ from rank 0)\n"
                              "diverge at #3: rank 0 called AllReduce 5 x fp32, ranks 1,2,3 "
                              "called Broadcast 7 x int32\n"
                              "probable cause: rank 0 called a different collective at #3 "
                              "(AllReduce 5 x fp32 instead of Broadcast 7 x int32): a collective "
                              "skipped or added in a rank-dependent branch, or buckets in a "
                              "different order\n");
    char *d = dump_matches(path("eval.txt"), r.err);
    CHECK(d != NULL);
    CHECK(strncmp(d, "collective #3: rank 1 called Broadcast", 38) == 0);
    free(d);
    tcli_result_free(&r);
    return 0;
}

// FSDP's state_dict() on rank 0 only: at the final save the others have
// left (the watchdog), with --save-every it meets their training (protocol).
static int test_fsdp_rank0_state_dict(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 30, "run", "--strategy", "fsdp", "-n", "4", "--data", "blobs", "--steps",
             "4", "--state-dict-rank0-call", "--save", path("x.ckpt"), "--watchdog", "0.5",
             "--diagnosis", path("fsdp.txt"));
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "\nwatchdog: rank 0 waited ");
    CHECK_STR_CONTAINS(r.err, " s (limit 0.5 s) in AllGather #40 (272 x fp32); ");
    CHECK_STR_CONTAINS(r.err, "\ndiverge at #40: rank 0 called AllGather 272 x fp32, ranks 1,2,3 "
                              "never called #40 (last entered #39)\n");
    CHECK_STR_CONTAINS(r.err, "\nprobable cause: rank 0 called AllGather #40 after ranks 1,2,3 "
                              "had finished: a collective the other ranks never call (inside a "
                              "rank-dependent branch, e.g. an evaluation or a state_dict() on "
                              "rank 0 only)\n");
    char *d = dump_matches(path("fsdp.txt"), r.err);
    CHECK(d != NULL);
    free(d);
    CHECK(!tfile_exists(path("x.ckpt")));
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, "run", "--strategy", "fsdp", "-n", "4", "--data", "blobs", "--steps",
             "4", "--state-dict-rank0-call", "--save-every", "2", "--save", path("y.ckpt"),
             "--watchdog", "0.5", "--diagnosis", path("fsdp2.txt"));
    CHECK_EQ_INT(r.rc, 3);
    CHECK_STR_CONTAINS(r.err, "\ndiverge at #23: rank 0 called AllReduce 6 x fp32, ranks 1,2,3 "
                              "called AllGather 65 x fp32\nprobable cause: rank 0 called a "
                              "different collective at #23 (AllReduce 6 x fp32 instead of "
                              "AllGather 65 x fp32)");
    d = dump_matches(path("fsdp2.txt"), r.err);
    CHECK(d != NULL);
    free(d);
    tcli_result_free(&r);
    return 0;
}

// Exit codes: 0 for a run that succeeds (no file), 2 for bad input (one
// line, no file), 3 for a diagnosed failure even when the file cannot be
// written.
static int test_exit_codes(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 30, "run", "--strategy", "ddp", "-n", "2", "--data", "blobs", "--steps",
             "2", "--diagnosis", path("ok.txt"));
    CHECK_EQ_INT(r.rc, 0);
    CHECK(!tfile_exists(path("ok.txt")));
    CHECK(strstr(r.out, "diagnosis written") == NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, "run", "--strategy", "ddp", "-n", "2", "--data", "blobs", "--steps",
             "2", "--diagnosis", path("no-such-dir/d.txt"));
    CHECK_EQ_INT(r.rc, 2);
    CHECK_EQ_INT(tcli_lines(r.err), 1);
    CHECK_STR_CONTAINS(r.err, "--diagnosis");
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tfile_mkdtemp(tmpdir, sizeof tmpdir, "diag") != 0)
        return 1;
    int failures = 0;
    RUN(test_rank_leaves);
    RUN(test_replay_at_fault);
    RUN(test_eval_rank0_only);
    RUN(test_fsdp_rank0_state_dict);
    RUN(test_exit_codes);
    tfile_rmtree(tmpdir);
    return failures != 0;
}
