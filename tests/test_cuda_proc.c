// tests/test_cuda_proc.c: the CUDA backend's process mode on a real GPU, as
// a world of one process (RANK=0 WORLD_SIZE=1 LOCAL_RANK=0, as torchrun
// --nproc-per-node 1 would set them).
//
//   - the backend's own init with a file rendezvous: NCCL's id through the
//     file, ncclCommInitRank, memory and copies of the own rank, a world
//     size other than the launcher's refused, the rendezvous files removed;
//   - a world on the backend in process mode (tcp rendezvous): all_reduce
//     and a barrier through NCCL, checked element by element; the rank's
//     trace written as a process writes it and merged (no math kernels
//     needed);
//   - `ddplab run --backend cuda --rendezvous file:... / tcp:...` training
//     DDP for a few steps: it completes, writes the rank's file
//     TRACE.rank0, merges it into TRACE, and the merged trace loads with
//     the rank's events, collectives included. (This part needs the cuda
//     backend's math kernels, linear layers included.)
//
// Without a GPU (or a driver) the backend's init fails with SIM_ENODEV: the
// test prints "SKIP: <reason>" and exits 77 (ctest: skipped).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "cuda_backend.h"        // defines: cuda_backend_ops
#include "engine/comm.h"         // defines: sim_all_reduce, sim_barrier
#include "engine/world.h"        // defines: SimWorld, sim_world_init
#include "report/merge_traces.h" // defines: merge_traces_files
#include "test_cli_run.h"        // defines: TCLI_RUN, tcli_path
#include "test_files.h"          // defines: tfile_mkdtemp, tfile_exists
#include "vtrace.h"              // defines: viz_trace_load

static const char *exe;
static char dir[512];

static void set_world_of_one(void) {
    static const char *const clear[] = {
        "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "MASTER_ADDR", "MASTER_PORT",
        "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_RUN_ID"};
    for (size_t i = 0; i < sizeof clear / sizeof clear[0]; i++)
        unsetenv(clear[i]);
    setenv("RANK", "0", 1);
    setenv("WORLD_SIZE", "1", 1);
    setenv("LOCAL_RANK", "0", 1);
    setenv("LOCAL_WORLD_SIZE", "1", 1);
    setenv("DDPLAB_RENDEZVOUS_TIMEOUT", "60", 1);
    setenv("DDPLAB_RENDEZVOUS_SECRET", "test-proc-secret-0123456789", 1); // tcp needs one
    unsetenv("DDPLAB_RENDEZVOUS_SECRET_FILE");
    unsetenv("DDPLAB_RENDEZVOUS_BIND");
}

static SimBackendConfig world_config(int nranks, const char *spec) {
    SimBackendConfig c;
    memset(&c, 0, sizeof c);
    c.nranks = nranks;
    c.nodes = 1;
    c.ranks_per_node = nranks;
    c.watchdog_s = 30;
    c.opt.rendezvous = spec;
    return c;
}

// 1 when the GPU is usable, 0 after printing SKIP; -1 on a failure.
static int backend_init(void) {
    char spec[700], err[1024] = "";
    const char *path = tcli_path(dir, "init.rdzv");
    snprintf(spec, sizeof spec, "file:%s", path);
    SimBackendConfig c = world_config(1, spec);
    void *ctx = NULL;
    SimStatus st = cuda_backend_ops.init(&c, &ctx, err, sizeof err);
    if (st == SIM_ENODEV) {
        printf("SKIP: %s\n", err);
        return 0;
    }
    if (st != SIM_OK) {
        fprintf(stderr, "init: %s (%s)\n", err, sim_strerror(st));
        return -1;
    }
    // the own rank's memory and copies
    float host[4] = {1, 2, 3, 4}, back[4] = {0};
    void *d = cuda_backend_ops.alloc(ctx, 0, sizeof host);
    int ok = d != NULL &&
             cuda_backend_ops.copy_to_device(ctx, 0, d, host, sizeof host) == SIM_OK &&
             cuda_backend_ops.copy_to_host(ctx, 0, back, d, sizeof back) == SIM_OK &&
             memcmp(host, back, sizeof host) == 0;
    cuda_backend_ops.free(ctx, 0, d);
    // a rank outside the world is refused
    ok = ok && cuda_backend_ops.alloc(ctx, 1, 16) == NULL;
    cuda_backend_ops.finalize(ctx);
    if (!ok || tfile_exists(path)) {
        fprintf(stderr, "memory of rank 0 or the rendezvous file's removal failed\n");
        return -1;
    }
    // -n other than the launcher's world size
    c = world_config(2, spec);
    st = cuda_backend_ops.init(&c, &ctx, err, sizeof err);
    if (st != SIM_EINVAL || strstr(err, "started a world of 1 process") == NULL) {
        fprintf(stderr, "a world of 2 in a launcher's world of 1: %s (%s)\n", err,
                sim_strerror(st));
        return -1;
    }
    return 1;
}

static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &sl) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

// What the rank of the world below does: an all_reduce of 4099 floats and
// a barrier, through NCCL.
static SimStatus collectives(SimRank *r, void *arg) {
    long *wrong = arg;
    SimWorld *w = r->world;
    enum { N = 4099 };
    float *host = malloc(N * sizeof *host);
    float *d = w->ops->alloc(w->ctx, r->rank, N * sizeof *d);
    SimStatus st = host && d ? SIM_OK : SIM_ENOMEM;
    for (int i = 0; host && i < N; i++)
        host[i] = (float)(i % 97) - 40.0f;
    if (st == SIM_OK)
        st = w->ops->copy_to_device(w->ctx, r->rank, d, host, N * sizeof *d);
    if (st == SIM_OK)
        st = sim_all_reduce(r, d, d, N, SIM_FP32, SIM_SUM, SIM_ALGO_AUTO);
    if (st == SIM_OK)
        st = sim_barrier(r);
    if (st == SIM_OK)
        st = w->ops->copy_to_host(w->ctx, r->rank, host, d, N * sizeof *d);
    *wrong = 0;
    for (int i = 0; st == SIM_OK && i < N; i++) // a world of one: the sum is the input
        *wrong += host[i] != (float)(i % 97) - 40.0f;
    w->ops->free(w->ctx, r->rank, d);
    free(host);
    return st;
}

static int world_in_process(void) {
    char spec[64];
    int port = free_port();
    CHECK(port > 0);
    snprintf(spec, sizeof spec, "tcp:127.0.0.1:%d", port);
    SimWorldConfig wc;
    sim_world_config_default(&wc);
    wc.nranks = 1;
    wc.watchdog_s = 30;
    wc.backend_opt.rendezvous = spec;
    SimWorld w;
    SimStatus st = sim_world_init(&w, &wc, &cuda_backend_ops);
    if (st != SIM_OK)
        fprintf(stderr, "world: %s\n", sim_world_error(&w));
    CHECK_EQ_INT(st, SIM_OK);
    long wrong = -1;
    st = sim_world_run(&w, collectives, &wrong);
    if (st != SIM_OK)
        fprintf(stderr, "run: %s\n", sim_world_error(&w));
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(wrong, 0);
    // the rank's file, as `ddplab run --rendezvous` writes it, and its merge
    char mine[720], merged[700], err[1024] = "";
    snprintf(merged, sizeof merged, "%s/world.ddptrace", dir);
    snprintf(mine, sizeof mine, "%s.rank0", merged);
    CHECK_EQ_INT(sim_trace_write_bin(w.trace, mine), SIM_OK);
    const char *in[1] = {mine};
    MergeTracesResult res;
    CHECK_EQ_INT(merge_traces_files(merged, in, 1, &res, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(res.events, sim_trace_rank_count(w.trace, 0));
    VizTrace t;
    CHECK_EQ_INT(viz_trace_load(merged, &t, err, sizeof err), SIM_OK);
    int kinds = 0;
    for (size_t i = 0; i < t.n; i++)
        kinds |= t.ev[i].kind == SIM_EV_COLL ? (t.ev[i].coll == SIM_COLL_BARRIER ? 2 : 1) : 0;
    CHECK_EQ_INT(kinds, 3); // the all_reduce and the barrier
    viz_trace_free(&t);
    sim_world_free(&w);
    printf("ok     process-mode world: all_reduce and barrier through NCCL, trace merged\n");
    return 0;
}

// One run through `spec`; its merged trace checked.
static int run_with(const char *spec, const char *name) {
    char trace[700], mine[720];
    snprintf(trace, sizeof trace, "%s/%s.ddptrace", dir, name);
    snprintf(mine, sizeof mine, "%s.rank0", trace);
    TcliResult r;
    TCLI_RUN(r, exe, 300, "run", "--backend", "cuda", "--rendezvous", spec, "--strategy", "ddp",
             "-n", "1", "--steps", "3", "--batch", "16", "--trace", trace);
    if (r.rc != 0)
        fprintf(stderr, "%s: rc %d\nstdout: %s\nstderr: %s\n%s", spec, r.rc, r.out, r.err,
                strstr(r.err, "not supported by backend cuda")
                    ? "(training needs every math kernel of sim/engine/kernels.h on the cuda backend: "
                      "backend_cuda/cuda_math_table.c)\n"
                    : "");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "merged from their files");
    CHECK_STR_CONTAINS(r.err, "rank 0 of 1 (torchrun, local rank 0)");
    tcli_result_free(&r);
    VizTrace t, one;
    char err[512] = "";
    CHECK_EQ_INT(viz_trace_load(trace, &t, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(viz_trace_load(mine, &one, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(t.nranks, 1);
    CHECK(t.n > 0);
    CHECK_EQ_INT(t.n, one.n);
    size_t colls = 0;
    for (size_t i = 0; i < t.n; i++)
        colls += t.ev[i].kind == SIM_EV_COLL;
    CHECK(colls > 0); // DDP's all_reduces went through NCCL
    CHECK(strstr(t.info.title, "ddp") != NULL);
    viz_trace_free(&t);
    viz_trace_free(&one);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "cuda-proc") != 0)
        return 2;
    set_world_of_one();
    int gpu = backend_init();
    if (gpu <= 0) {
        tfile_rmtree(dir);
        return gpu == 0 ? 77 : 1;
    }
    int failures = world_in_process() != 0;
    char spec[700];
    snprintf(spec, sizeof spec, "file:%s/run.rdzv", dir);
    failures += run_with(spec, "file") != 0;
    CHECK(!tfile_exists(tcli_path(dir, "run.rdzv"))); // removed once NCCL met
    int port = free_port();
    CHECK(port > 0);
    snprintf(spec, sizeof spec, "tcp:127.0.0.1:%d", port);
    failures += run_with(spec, "tcp") != 0;
    printf("%s process mode (file and tcp rendezvous)\n", failures ? "FAILED" : "ok    ");
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
