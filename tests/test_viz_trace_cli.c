// tests/test_viz_trace_cli.c: `ddplab run --trace FILE.ddptrace` and
// `ddplab bench --trace FILE.ddptrace` write the binary trace (and say it
// is for replay), which loads; the same run recorded as JSON lines loads to
// the same events (the simulated clock is deterministic; wall times are not
// compared); the help of both commands mentions .ddptrace.
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"
#include "test_vtrace_util.h"
#include "vtrace.h"

static const char *exe;
static char dir[4096];

static int load(const char *path, VizTrace *v) {
    char err[512];
    SimStatus st = viz_trace_load(path, v, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", err);
    return st == SIM_OK ? 0 : 1;
}

static int run_ddp(const char *trace) {
    TcliResult r;
    TCLI_RUN(r, exe, 120, "run", "--strategy", "ddp", "-n", "2", "--steps", "3", "--trace",
             trace);
    if (r.rc != 0)
        fprintf(stderr, "%s", r.err);
    int ok = r.rc == 0 && strstr(r.out, "trace: ") != NULL;
    if (strstr(trace, ".ddptrace") != NULL)
        ok = ok && strstr(r.out, "for ddplab replay") != NULL;
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

static int test_run(void) {
    const char *bin = tcli_path(dir, "run.ddptrace"), *jsonl = tcli_path(dir, "run.jsonl");
    CHECK_EQ_INT(run_ddp(bin), 0);
    CHECK_EQ_INT(run_ddp(jsonl), 0);
    VizTrace a, b;
    CHECK_EQ_INT(load(bin, &a), 0);
    CHECK_EQ_INT(load(jsonl, &b), 0);
    CHECK(a.n > 100);
    CHECK_EQ_INT(a.n, b.n);
    CHECK_EQ_INT(a.nranks, 2);
    CHECK_EQ_INT(b.nranks, 2);
    int same = tvt_same_events(a.ev, b.ev, a.n, 1);
    size_t compute = 0, coll = 0, memory = 0;
    for (size_t i = 0; i < a.n; i++) {
        compute += a.ev[i].kind == SIM_EV_COMPUTE;
        coll += a.ev[i].kind == SIM_EV_COLL;
        memory += a.ev[i].kind == SIM_EV_MEMORY;
    }
    viz_trace_free(&a);
    viz_trace_free(&b);
    CHECK(same);
    CHECK(compute > 0 && coll > 0 && memory > 0);
    return 0;
}

static int test_bench(void) {
    const char *path = tcli_path(dir, "bench.ddptrace");
    TcliResult r;
    TCLI_RUN(r, exe, 120, "bench", "-a", "ring", "-n", "3", "-b", "1K", "-e", "2K", "-w", "0",
             "-i", "1", "--trace", path);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "binary, for ddplab replay");
    tcli_result_free(&r);
    VizTrace v;
    CHECK_EQ_INT(load(path, &v), 0);
    size_t steps = 0;
    for (size_t i = 0; i < v.n; i++)
        steps += v.ev[i].kind == SIM_EV_COLL_STEP;
    CHECK_EQ_INT(v.nranks, 3);
    CHECK(steps > 0);
    viz_trace_free(&v);
    return 0;
}

static int test_help(void) {
    const char *cmds[] = {"run", "bench"};
    for (int k = 0; k < 2; k++) {
        TcliResult r;
        TCLI_RUN(r, exe, 60, cmds[k], "--help");
        int rc = r.rc;
        int says = strstr(r.out, ".ddptrace") != NULL && strstr(r.out, "ddplab replay") != NULL;
        tcli_result_free(&r);
        CHECK_EQ_INT(rc, 0);
        CHECK(says);
    }
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL)
        return 2;
    if (tfile_mkdtemp(dir, sizeof dir, "viz-trace-cli") != 0)
        return 1;
    int failures = 0;
    RUN(test_run);
    RUN(test_bench);
    RUN(test_help);
    tfile_rmtree(dir);
    return failures != 0;
}
