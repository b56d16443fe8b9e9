// tests/test_cli_viz.c: `ddplab run --viz ...` and `ddplab replay` as a user
// runs them: text frames of a DDP and an FSDP run, a trace recorded and
// replayed (the same frames), --at, --png, --plot, and bad traces and
// options rejected with messages that name the file and the position.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

static const char *exe;
static char tmpdir[256];

static const char *path(const char *name) { return tcli_path(tmpdir, name); }

static long file_size(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

#define DDP_RUN "run", "--strategy", "ddp", "-n", "4", "--steps", "2", "--model", \
                "mlp:16,32,32,4", "--bucket-cap-mb", "0.001"

static int test_text_frames(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, DDP_RUN, "--viz", "text", "--viz-width", "100");
    CHECK_EQ_INT(r.rc, 0);
    // one frame per iteration (and the last event)
    CHECK(strstr(r.out, "ddp") != NULL);
    CHECK(strstr(r.out, "rank 0") != NULL);
    CHECK(strstr(r.out, "rank 3") != NULL);
    CHECK(strstr(r.out, "#0") != NULL || strstr(r.out, "bucket") != NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "run", "--strategy", "fsdp", "-n", "2", "--steps", "1", "--model",
             "mlp:16,32,32,4", "--viz", "text", "--viz-stops", "gather");
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "unit") != NULL);
    tcli_result_free(&r);
    // FSDP2: a column per parameter; 0.weight's 3 rows on 4 ranks leave
    // rank 3 only padding ('_'), 2.weight's 4 rows one each
    TCLI_RUN(r, exe, 120, "run", "--strategy", "fsdp2", "-n", "4", "--steps", "1", "--model",
             "mlp:16,3,4", "--viz", "text", "--viz-stops", "gather");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "Ownership: parameter x rank, each parameter's rows (dim 0) in 4");
    CHECK_STR_CONTAINS(r.out, "u1 0.weight  u1 0.bias    u2 2.weight  u2 2.bias");
    CHECK_STR_CONTAINS(r.out, " rank 3    [..._]       [..._]       [...3]       [...3]");
    CHECK_STR_CONTAINS(r.out, "_ padding only");
    tcli_result_free(&r);
    // Several nodes: every box names its node in a form that fits, the
    // same form on every box (8 ranks: "rank 7, node 1"; 16: "r15 node 1")
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "8", "--nodes", "2", "--steps", "1",
             "--viz", "text");
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "rank 0, node 0") != NULL && strstr(r.out, "rank 7, node 1") != NULL);
    CHECK(strstr(r.out, "(nod") == NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "16", "--nodes", "2", "--steps", "1",
             "--viz", "text");
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "r0 node 0") != NULL && strstr(r.out, "r15 node 1") != NULL);
    CHECK(strstr(r.out, "rank 9, node") == NULL);
    tcli_result_free(&r);
    return 0;
}

static int test_replay_same_frames(void) {
    TcliResult a, b;
    TCLI_RUN(a, exe, 120, DDP_RUN, "--trace", path("ddp.ddptrace"), "--viz", "text",
             "--viz-stops", "bucket-launch");
    CHECK_EQ_INT(a.rc, 0);
    CHECK(tfile_exists(path("ddp.ddptrace")));
    TCLI_RUN(b, exe, 60, "replay", path("ddp.ddptrace"), "--viz", "text", "--viz-stops",
             "bucket-launch");
    CHECK_EQ_INT(b.rc, 0);
    // The replay's frames are the run's (the run prints its report first).
    const char *frames = strstr(a.out, b.out);
    if (frames == NULL)
        fprintf(stderr, "replay output differs from the run's frames:\n%s\n", b.out);
    CHECK(frames != NULL);
    tcli_result_free(&a);
    tcli_result_free(&b);
    TCLI_RUN(b, exe, 60, "replay", path("ddp.ddptrace"), "--info");
    CHECK_EQ_INT(b.rc, 0);
    CHECK(strstr(b.out, "ranks:      4") != NULL);
    CHECK(strstr(b.out, "iterations: 2") != NULL);
    tcli_result_free(&b);
    // --at an iteration and a kind
    TCLI_RUN(b, exe, 60, "replay", path("ddp.ddptrace"), "--viz", "text", "--at", "i1",
             "--viz-stops", "iteration");
    CHECK_EQ_INT(b.rc, 0);
    tcli_result_free(&b);
    TCLI_RUN(b, exe, 60, "replay", path("ddp.ddptrace"), "--viz", "text", "--at", "i7");
    CHECK_EQ_INT(b.rc, 2);
    CHECK(strstr(b.err, "iterations") != NULL);
    tcli_result_free(&b);
    return 0;
}

// A hang keeps its trace, and the watchdog's diagnosis is an event in it
// that the views can jump to.
static int test_fault_in_trace(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "3", "--uneven", "1", "--watchdog",
             "1", "--epochs", "2", "--model", "mlp:16,32,32,4", "--trace", path("hang.ddptrace"));
    CHECK_EQ_INT(r.rc, 3);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 60, "replay", path("hang.ddptrace"), "--viz", "text", "--at", "fault",
             "--viz-stops", "fault", "--ascii");
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "fault: AllReduce #") != NULL);
    CHECK(strstr(r.out, "watchdog timeout") != NULL);
    tcli_result_free(&r);
    return 0;
}

static int test_pictures(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, DDP_RUN, "--plot", path("loss.png"), "--plot-memory",
             path("mem.png"));
    if (r.rc == 2 && strstr(r.err, "cairo") != NULL) { // a build without the chart plugin
        CHECK(file_size(path("loss.png")) < 0);
        tcli_result_free(&r);
        return 0;
    }
    CHECK_EQ_INT(r.rc, 0);
    CHECK(file_size(path("loss.png")) > 1000);
    CHECK(file_size(path("mem.png")) > 1000);
    tcli_result_free(&r);
    // from a recorded trace, as SVG; an unknown extension stops before the replay
    TCLI_RUN(r, exe, 120, "replay", path("ddp.ddptrace"), "--plot-memory", path("mem.svg"));
    CHECK_EQ_INT(r.rc, 0);
    CHECK(file_size(path("mem.svg")) > 1000);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "replay", path("ddp.ddptrace"), "--plot-memory", path("mem.bmp"));
    CHECK_EQ_INT(r.rc, 2);
    CHECK(strstr(r.err, "unknown chart format") != NULL);
    CHECK(file_size(path("mem.bmp")) < 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "bench", "-n", "4", "-b", "1K", "-e", "64K", "--plot", path("bw.png"));
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "bw.png") != NULL);
    CHECK(file_size(path("bw.png")) > 1000);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 120, "replay", path("ddp.ddptrace"), "--png", path("frame.png"), "--at",
             "bucket-launch:1");
    if (r.rc == 2 && strstr(r.err, "SDL2") != NULL) { // a build without SDL2
        tcli_result_free(&r);
        return 0;
    }
    CHECK_EQ_INT(r.rc, 0);
    CHECK(file_size(path("frame.png")) > 1000);
    tcli_result_free(&r);
    return 0;
}

static int test_bad_input(void) {
    TcliResult r;
    // not a trace
    const char junk[] = "hello, this is not a trace\n";
    CHECK_EQ_INT(tfile_write(path("junk.ddptrace"), junk, sizeof junk - 1), 0);
    TCLI_RUN(r, exe, 30, "replay", path("junk.ddptrace"), "--viz", "text");
    CHECK_EQ_INT(r.rc, 2);
    CHECK(strstr(r.err, "junk.ddptrace") != NULL);
    tcli_result_free(&r);
    // truncated: the first half of a real trace
    size_t n = 0;
    char *whole = tfile_read(path("ddp.ddptrace"), &n);
    CHECK(whole != NULL && n > 100);
    FILE *f = fopen(path("half.ddptrace"), "wb");
    CHECK(f != NULL);
    fwrite(whole, 1, n / 2, f);
    fclose(f);
    free(whole);
    TCLI_RUN(r, exe, 30, "replay", path("half.ddptrace"));
    CHECK_EQ_INT(r.rc, 2);
    CHECK(strstr(r.err, "half.ddptrace") != NULL);
    CHECK(strstr(r.err, "truncated") != NULL);
    tcli_result_free(&r);
    // a Chrome trace is an export only
    TCLI_RUN(r, exe, 120, DDP_RUN, "--trace", path("t.json"));
    CHECK_EQ_INT(r.rc, 0);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, "replay", path("t.json"));
    CHECK_EQ_INT(r.rc, 2);
    CHECK(strstr(r.err, "ddptrace") != NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, "replay", path("missing.ddptrace"));
    CHECK_EQ_INT(r.rc, 2);
    CHECK(strstr(r.err, "missing.ddptrace") != NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, DDP_RUN, "--viz", "opengl");
    CHECK_EQ_INT(r.rc, 2);
    CHECK(strstr(r.err, "text, ncurses, sdl") != NULL);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, DDP_RUN, "--viz", "text", "--viz-stops", "bucket-lunch");
    CHECK_EQ_INT(r.rc, 2);
    tcli_result_free(&r);
    TCLI_RUN(r, exe, 30, "replay");
    CHECK_EQ_INT(r.rc, 2);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tfile_mkdtemp(tmpdir, sizeof tmpdir, "cli-viz") != 0)
        return 1;
    int fails = 0;
    fails += test_text_frames();
    fails += test_replay_same_frames();
    fails += test_pictures();
    fails += test_fault_in_trace();
    fails += test_bad_input();
    tfile_rmtree(tmpdir);
    if (fails == 0)
        printf("ok\n");
    return fails ? 1 : 0;
}
