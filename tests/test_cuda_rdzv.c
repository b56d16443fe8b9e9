// tests/test_cuda_rdzv.c: the rendezvous of a world of processes
// (backend_cuda/cuda_rdzv.h), on any machine: no GPU, CUDA or MPI needed
// (test_cuda_rdzv_mpi.c runs the MPI exchange, under mpirun).
//
//   - identity from each launcher's variables (torchrun, Open MPI, MPICH's
//     PMI, Slurm), their precedence, and a clear error for every malformed
//     or inconsistent value;
//   - the `--rendezvous` spec: file:PATH, tcp:HOST:PORT (IPv6 in brackets),
//     env (resolved from MASTER_ADDR / MASTER_PORT) and what is refused;
//     mpi, accepted in a build with MPI (DDPLAB_RDZV_MPI=1) and refused
//     with the way to get MPI in one without;
//   - the blob exchange among 4 processes made by fork(), through a file and
//     over TCP: the blob arrives intact at every rank, also when rank 0
//     starts last; the files are 0600; a stale file of an earlier run, a
//     symbolic link, a FIFO or another user's file is not taken; timeouts
//     name what was missing; a port in use, nobody listening, an
//     unreachable host and a world of another size give their messages.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cuda_rdzv.h"

#define BLOB 128 // an ncclUniqueId's size

// ----------------------------------------------------------------------------
// A fake environment: "NAME=value" strings

typedef struct {
    const char *const *vars; // NULL-terminated
} Env;

static const char *env_get(void *arg, const char *name) {
    const Env *e = arg;
    size_t n = strlen(name);
    for (const char *const *v = e->vars; *v; v++)
        if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
            return *v + n + 1;
    return NULL;
}

static SimStatus identity_of(CudaRdzvIdentity *id, char *err, size_t errlen,
                             const char *const *vars) {
    Env env = {vars};
    return cuda_rdzv_identity(env_get, &env, id, err, errlen);
}

// Reads the identity of the listed variables into *id; returns the status.
#define IDENTITY(id, err, ...)                                                 \
    identity_of((id), (err), sizeof(err), (const char *const[]){__VA_ARGS__, NULL})

// ----------------------------------------------------------------------------
// Identity

static int test_torchrun(void) {
    CudaRdzvIdentity id;
    char err[512] = "";
    CHECK_EQ_INT(IDENTITY(&id, err, "RANK=6", "WORLD_SIZE=8", "LOCAL_RANK=2",
                          "LOCAL_WORLD_SIZE=4", "MASTER_ADDR=node0", "MASTER_PORT=29500",
                          "TORCHELASTIC_RUN_ID=exp/1", "TORCHELASTIC_RESTART_COUNT=2",
                          "TORCHELASTIC_USE_AGENT_STORE=True"),
                 SIM_OK);
    CHECK_EQ_INT(id.rank, 6);
    CHECK_EQ_INT(id.world_size, 8);
    CHECK_EQ_INT(id.local_rank, 2);
    CHECK_EQ_INT(id.local_world_size, 4);
    CHECK(strcmp(id.launcher, "torchrun") == 0);
    CHECK(strcmp(id.master_addr, "node0") == 0);
    CHECK_EQ_INT(id.master_port, 29500);
    CHECK_EQ_INT(id.agent_store, 1);
    CHECK(strcmp(id.job, "exp_1.r2") == 0); // '/' is not kept
    CHECK_NEAR(id.timeout_s, CUDA_RDZV_DEFAULT_TIMEOUT, 0);
    // the local variables are optional
    CHECK_EQ_INT(IDENTITY(&id, err, "RANK=0", "WORLD_SIZE=1", "DDPLAB_RENDEZVOUS_TIMEOUT=2.5"),
                 SIM_OK);
    CHECK_EQ_INT(id.local_rank, -1);
    CHECK_EQ_INT(id.local_world_size, -1);
    CHECK_EQ_INT(id.master_port, 0);
    CHECK(id.job[0] == '\0');
    CHECK_NEAR(id.timeout_s, 2.5, 0);
    return 0;
}

static int test_mpi_and_slurm(void) {
    CudaRdzvIdentity id;
    char err[512] = "";
    CHECK_EQ_INT(IDENTITY(&id, err, "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
                          "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                          "PMIX_NAMESPACE=prterun-n0-123@1"),
                 SIM_OK);
    CHECK(strcmp(id.launcher, "Open MPI") == 0);
    CHECK_EQ_INT(id.rank, 3);
    CHECK_EQ_INT(id.world_size, 4);
    CHECK_EQ_INT(id.local_rank, 1);
    CHECK_EQ_INT(id.local_world_size, 2);
    CHECK(strcmp(id.job, "prterun-n0-123_1") == 0);

    CHECK_EQ_INT(IDENTITY(&id, err, "PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALRANKID=1",
                          "MPI_LOCALNRANKS=2"),
                 SIM_OK);
    CHECK(strcmp(id.launcher, "MPICH (PMI)") == 0);
    CHECK_EQ_INT(id.rank, 1);
    CHECK_EQ_INT(id.local_rank, 1);

    CHECK_EQ_INT(IDENTITY(&id, err, "SLURM_PROCID=5", "SLURM_NTASKS=8", "SLURM_LOCALID=1",
                          "SLURM_NTASKS_PER_NODE=4", "SLURM_JOB_ID=77", "SLURM_STEP_ID=0"),
                 SIM_OK);
    CHECK(strcmp(id.launcher, "Slurm") == 0);
    CHECK_EQ_INT(id.rank, 5);
    CHECK_EQ_INT(id.world_size, 8);
    CHECK_EQ_INT(id.local_rank, 1);
    CHECK_EQ_INT(id.local_world_size, 4);
    CHECK(strcmp(id.job, "77.0") == 0);
    // the older SLURM_NPROCS, and a per-node count that is not one number
    CHECK_EQ_INT(IDENTITY(&id, err, "SLURM_PROCID=1", "SLURM_NPROCS=3", "SLURM_LOCALID=0",
                          "SLURM_NTASKS_PER_NODE=2(x1),1"),
                 SIM_OK);
    CHECK_EQ_INT(id.world_size, 3);
    CHECK_EQ_INT(id.local_world_size, -1);

    // torchrun inside a Slurm step is torchrun; mpirun inside one is Open MPI
    CHECK_EQ_INT(IDENTITY(&id, err, "SLURM_PROCID=0", "SLURM_NTASKS=2", "RANK=3",
                          "WORLD_SIZE=4"),
                 SIM_OK);
    CHECK(strcmp(id.launcher, "torchrun") == 0);
    CHECK_EQ_INT(id.rank, 3);
    CHECK_EQ_INT(IDENTITY(&id, err, "SLURM_PROCID=0", "SLURM_NTASKS=1",
                          "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2"),
                 SIM_OK);
    CHECK(strcmp(id.launcher, "Open MPI") == 0);
    return 0;
}

// Every malformed or inconsistent value is refused with a message that
// names the variable.
static int test_identity_errors(void) {
    static const struct {
        const char *vars[6];
        const char *says[2];
    } cases[] = {
        {{"RANK=abc", "WORLD_SIZE=4"}, {"RANK='abc'", "not a whole number"}},
        {{"RANK=-1", "WORLD_SIZE=4"}, {"RANK='-1'", "negative"}},
        {{"RANK=4", "WORLD_SIZE=4"}, {"RANK='4'", "0 .. 3"}},
        {{"RANK= 1", "WORLD_SIZE=4"}, {"RANK=' 1'", "not a whole number"}},
        {{"RANK=1x", "WORLD_SIZE=4"}, {"RANK='1x'", "not a whole number"}},
        {{"RANK=", "WORLD_SIZE=4"}, {"RANK=''", "empty"}},
        {{"RANK=0", "WORLD_SIZE=0"}, {"WORLD_SIZE='0'", "1 or more"}},
        {{"RANK=0", "WORLD_SIZE=99999999999999999999"}, {"WORLD_SIZE=", "too large"}},
        {{"RANK=0", "WORLD_SIZE=-2"}, {"WORLD_SIZE='-2'", "negative"}},
        {{"RANK=1"}, {"RANK is set", "WORLD_SIZE is not"}},
        {{"RANK=1", "WORLD_SIZE=4", "LOCAL_RANK=2", "LOCAL_WORLD_SIZE=2"},
         {"LOCAL_RANK='2'", "local world size"}},
        {{"RANK=1", "WORLD_SIZE=4", "LOCAL_WORLD_SIZE=8"}, {"LOCAL_WORLD_SIZE='8'", "above"}},
        {{"RANK=1", "WORLD_SIZE=4", "LOCAL_RANK=-3"}, {"LOCAL_RANK='-3'", "negative"}},
        {{"RANK=0", "WORLD_SIZE=2", "MASTER_PORT=70000"}, {"MASTER_PORT='70000'", "1 .. 65535"}},
        {{"RANK=0", "WORLD_SIZE=2", "MASTER_PORT=http"}, {"MASTER_PORT='http'", "whole"}},
        {{"RANK=0", "WORLD_SIZE=2", "DDPLAB_RENDEZVOUS_TIMEOUT=-1"},
         {"DDPLAB_RENDEZVOUS_TIMEOUT", "seconds"}},
        {{"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=2"},
         {"OMPI_COMM_WORLD_RANK='2'", "Open MPI"}},
        {{"SLURM_PROCID=x", "SLURM_NTASKS=2"}, {"SLURM_PROCID='x'", "Slurm"}},
        {{"PMI_RANK=0"}, {"PMI_RANK is set", "PMI_SIZE"}},
        {{"WORLD_SIZE=4"}, {"WORLD_SIZE is set but RANK is not", "torchrun"}},
        {{"HOME=/root"}, {"no launcher's rank is set", "mpirun"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Env env = {cases[i].vars};
        CudaRdzvIdentity id;
        char err[512] = "";
        CHECK_EQ_INT(cuda_rdzv_identity(env_get, &env, &id, err, sizeof err), SIM_EINVAL);
        CHECK_STR_CONTAINS(err, cases[i].says[0]);
        CHECK_STR_CONTAINS(err, cases[i].says[1]);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// The spec

static int test_spec(void) {
    CudaRdzvSpec s;
    char err[512] = "", buf[300];
    CHECK_EQ_INT(cuda_rdzv_parse("file:/shared/run.rdzv", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, CUDA_RDZV_FILE);
    CHECK(strcmp(s.path, "/shared/run.rdzv") == 0);
    CHECK(strcmp(cuda_rdzv_describe(&s, buf, sizeof buf), "file:/shared/run.rdzv") == 0);
    CHECK_EQ_INT(cuda_rdzv_parse("tcp:node-0.cluster:29500", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, CUDA_RDZV_TCP);
    CHECK(strcmp(s.host, "node-0.cluster") == 0);
    CHECK_EQ_INT(s.port, 29500);
    CHECK_EQ_INT(cuda_rdzv_parse("tcp:10.0.0.7:1", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.port, 1);
    CHECK_EQ_INT(cuda_rdzv_parse("tcp:[fe80::1%eth0]:65535", &s, err, sizeof err), SIM_OK);
    CHECK(strcmp(s.host, "fe80::1%eth0") == 0);
    CHECK_EQ_INT(s.port, 65535);
    CHECK(strcmp(cuda_rdzv_describe(&s, buf, sizeof buf), "tcp:[fe80::1%eth0]:65535") == 0);
    CHECK_EQ_INT(cuda_rdzv_parse("env", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, CUDA_RDZV_ENV);

    static const struct {
        const char *spec, *says;
    } bad[] = {
        {"", "is empty"},
        {"bogus", "is not a rendezvous"},
        {"env:x", "is not a rendezvous"},
        {"file:", "names no file"},
        {"file:/tmp/dir/", "directory"},
        {"tcp:", "no port"},
        {"tcp:host", "no port"},
        {"tcp::29500", "no host"},
        {"tcp:host:0", "1 to 65535"},
        {"tcp:host:65536", "1 to 65535"},
        {"tcp:host:http", "1 to 65535"},
        {"tcp:host:-5", "1 to 65535"},
        {"tcp:::1:29500", "brackets"},
        {"tcp:[::1]", "no ':PORT'"},
        {"tcp:[::1:29500", "unclosed"},
        {"tcp:ho st:1", "cannot hold"},
        {"TCP:host:1", "is not a rendezvous"},
        {"MPI", "is not a rendezvous"},
        {"mpi:", "is not a rendezvous"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK_EQ_INT(cuda_rdzv_parse(bad[i].spec, &s, err, sizeof err), SIM_EINVAL);
        CHECK_STR_CONTAINS(err, bad[i].says);
        CHECK_STR_CONTAINS(err, "allowed: file:PATH");
    }
    CHECK_EQ_INT(cuda_rdzv_parse(NULL, &s, err, sizeof err), SIM_EINVAL);

    // env: MASTER_ADDR:MASTER_PORT; one port up under torchrun's agent store
    CudaRdzvIdentity id;
    CHECK_EQ_INT(IDENTITY(&id, err, "RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=10.1.2.3",
                          "MASTER_PORT=29500"),
                 SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_parse("env", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, CUDA_RDZV_TCP);
    CHECK(strcmp(s.host, "10.1.2.3") == 0);
    CHECK_EQ_INT(s.port, 29500);
    id.agent_store = 1;
    CHECK_EQ_INT(cuda_rdzv_parse("env", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.port, 29501);
    CHECK_EQ_INT(IDENTITY(&id, err, "RANK=0", "WORLD_SIZE=2", "MASTER_PORT=29500"), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_parse("env", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "MASTER_ADDR");
    CHECK_EQ_INT(IDENTITY(&id, err, "RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=n0"), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "MASTER_PORT");
    // a file spec is left as it is
    CHECK_EQ_INT(cuda_rdzv_parse("file:x", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, CUDA_RDZV_FILE);
    return 0;
}

// `mpi`: a transport of builds that found MPI only.
static int test_spec_mpi(void) {
    CudaRdzvSpec s;
    char err[512] = "", buf[64];
#if DDPLAB_RDZV_MPI
    CHECK_EQ_INT(cuda_rdzv_parse("mpi", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(s.kind, CUDA_RDZV_MPI);
    CHECK(strcmp(cuda_rdzv_describe(&s, buf, sizeof buf), "mpi") == 0);
    CHECK_EQ_INT(cuda_rdzv_parse("bogus", &s, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "or mpi (MPI_Bcast under mpirun or srun)");
#else
    CHECK_EQ_INT(cuda_rdzv_parse("mpi", &s, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "'mpi' needs MPI, and this build of ddplab has none");
    CHECK_STR_CONTAINS(err, "apt-get install openmpi-bin libopenmpi-dev, then reconfigure");
    CHECK(strchr(err, '\n') == NULL);
    CHECK_EQ_INT(cuda_rdzv_parse("bogus", &s, err, sizeof err), SIM_EINVAL);
    CHECK(strstr(err, "mpi") == NULL); // not offered where it cannot work
    // A spec made by hand reaches the stub, which refuses it the same way.
    CudaRdzvIdentity id;
    unsigned char blob[BLOB] = {0};
    CHECK_EQ_INT(IDENTITY(&id, err, "RANK=0", "WORLD_SIZE=1"), SIM_OK);
    memset(&s, 0, sizeof s);
    s.kind = CUDA_RDZV_MPI;
    CHECK(strcmp(cuda_rdzv_describe(&s, buf, sizeof buf), "mpi") == 0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id, blob, BLOB, 1, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "apt-get install openmpi-bin libopenmpi-dev");
#endif
    return 0;
}

// ----------------------------------------------------------------------------
// The exchange among processes

static void pattern(unsigned char *b, unsigned seed) {
    for (int i = 0; i < BLOB; i++)
        b[i] = (unsigned char)(seed * 131u + (unsigned)i * 37u + 11u);
}

static CudaRdzvIdentity ident(int rank, int world, const char *job) {
    CudaRdzvIdentity id;
    memset(&id, 0, sizeof id);
    id.rank = rank;
    id.world_size = world;
    id.local_rank = id.local_world_size = -1;
    snprintf(id.job, sizeof id.job, "%s", job);
    id.timeout_s = 10;
    return id;
}

// A child that runs rank `rank` of a world and exits 0 when the blob it got
// is rank 0's (seed 7), 1 when it is not, 2 + status on failure.
static pid_t spawn_rank(const CudaRdzvSpec *s, int rank, int world, double timeout_s) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    unsigned char blob[BLOB], want[BLOB];
    pattern(want, 7);
    if (rank == 0)
        memcpy(blob, want, BLOB);
    else
        memset(blob, 0xEE, BLOB);
    CudaRdzvIdentity id = ident(rank, world, "job-1");
    char err[1024] = "";
    SimStatus st = cuda_rdzv_bcast(s, &id, blob, BLOB, timeout_s, err, sizeof err);
    if (st != SIM_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, err);
        _exit(2 + (int)st);
    }
    _exit(memcmp(blob, want, BLOB) == 0 ? 0 : 1);
}

// Waits for the children (killing them after 30 s); 0 when all exited 0.
static int wait_all(const pid_t *pids, int n) {
    int bad = 0;
    double waited = 0;
    for (int i = 0; i < n; i++) {
        int status = 0;
        for (;;) {
            pid_t got = waitpid(pids[i], &status, WNOHANG);
            if (got == pids[i])
                break;
            if (waited > 30) {
                kill(pids[i], SIGKILL);
                waitpid(pids[i], &status, 0);
                fprintf(stderr, "child %d (pid %ld) did not finish\n", i, (long)pids[i]);
                bad = 1;
                break;
            }
            struct timespec t = {0, 10000000};
            nanosleep(&t, NULL);
            waited += 0.01;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child %d: exit status %d\n", i,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            bad = 1;
        }
    }
    return bad;
}

// Four processes; with root_last, ranks 1-3 start 0.3 s before rank 0.
static int run_world(const CudaRdzvSpec *s, int root_last) {
    pid_t pids[4];
    int k = 0;
    if (!root_last)
        pids[k++] = spawn_rank(s, 0, 4, 20);
    for (int r = 1; r < 4; r++)
        pids[k++] = spawn_rank(s, r, 4, 20);
    if (root_last) {
        struct timespec t = {0, 300000000};
        nanosleep(&t, NULL);
        pids[k++] = spawn_rank(s, 0, 4, 20);
    }
    return wait_all(pids, k);
}

static const char *tmpdir_make(void) {
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/ddplab-rdzv-XXXXXX");
    return mkdtemp(dir);
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

// The permission bits of path, or -1.
static int mode_of(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int)(st.st_mode & 07777) : -1;
}

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static int test_file_exchange(void) {
    const char *dir = tmpdir_make();
    CHECK(dir != NULL);
    char path[256], p[300], spec[300], err[1024] = "";
    snprintf(path, sizeof path, "%s/world.rdzv", dir);
    snprintf(spec, sizeof spec, "file:%s", path);
    CudaRdzvSpec s;
    CHECK_EQ_INT(cuda_rdzv_parse(spec, &s, err, sizeof err), SIM_OK);
    mode_t mask = umask(022); // the usual umask, which the old 0644 files passed through
    CHECK_EQ_INT(run_world(&s, 0), 0);
    CHECK_EQ_INT(run_world(&s, 1), 0); // rank 0 last, over the files of the run before
    umask(mask);
    // only this user can read NCCL's id and the challenges
    CHECK_EQ_INT(mode_of(path), 0600);
    snprintf(p, sizeof p, "%s.go", path);
    CHECK_EQ_INT(mode_of(p), 0600);
    for (int r = 1; r < 4; r++) {
        snprintf(p, sizeof p, "%s.r%d", path, r);
        CHECK_EQ_INT(mode_of(p), 0600);
    }

    // rank 0's finish removes every file of the rendezvous
    CudaRdzvIdentity id0 = ident(0, 4, "job-1");
    CHECK(exists(path));
    cuda_rdzv_finish(&s, &id0);
    CHECK(!exists(path));
    snprintf(p, sizeof p, "%s.go", path);
    CHECK(!exists(p));
    snprintf(p, sizeof p, "%s.r3", path);
    CHECK(!exists(p));

    // A stale file of an earlier world of the same size and job, with its
    // confirmation: the ranks that start first must not take its blob.
    char stale[2 * BLOB + 256];
    int n = snprintf(stale, sizeof stale, "ddplab-rendezvous 1\nworld 4\nnonce 00000000000000aa\n"
                     "job job-1\nblob %d ", BLOB);
    for (int i = 0; i < BLOB; i++)
        n += snprintf(stale + n, sizeof stale - (size_t)n, "%02x", 0x55);
    snprintf(stale + n, sizeof stale - (size_t)n, "\n");
    CHECK(write_text(path, stale) == 0);
    snprintf(p, sizeof p, "%s.go", path);
    CHECK(write_text(p, "ddplab-rendezvous-go 1\nworld 4\nnonce 00000000000000aa\n"
                        "0000000000000001\n0000000000000002\n0000000000000003\n") == 0);
    CHECK_EQ_INT(run_world(&s, 1), 0); // exits 1 if a rank took the 0x55 blob
    cuda_rdzv_finish(&s, &id0);

    // Alone, a rank waits for a confirmation the stale file never gets.
    CHECK(write_text(path, stale) == 0);
    CudaRdzvIdentity id1 = ident(1, 4, "job-1");
    unsigned char blob[BLOB];
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.4, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, path);
    CHECK_STR_CONTAINS(err, "rank 0 has not confirmed");
    // a file of another world size, or of another job
    CudaRdzvIdentity other = ident(1, 8, "job-1");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &other, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "another run's (a world of 4");
    other = ident(1, 4, "job-2");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &other, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "job job-2");
    // a file rank 0 did not write: a symbolic link to it, a FIFO (which
    // must not hold the rank in open()), a file of another user
    char target[300];
    snprintf(target, sizeof target, "%s.elsewhere", path);
    CHECK(rename(path, target) == 0);
    CHECK(symlink(target, path) == 0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "the file is a symbolic link (not taken)");
    CHECK(unlink(path) == 0 && unlink(target) == 0);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "the file is not a regular file");
    CHECK(unlink(path) == 0);
    if (geteuid() == 0) { // only root can give a file away
        CHECK(write_text(path, stale) == 0);
        CHECK(chown(path, 65534, 65534) == 0);
        CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
        CHECK_STR_CONTAINS(err, "the file belongs to another user (uid 65534");
        CHECK(unlink(path) == 0);
    }
    // no file at all
    CHECK(write_text(path, stale) == 0);
    CHECK(unlink(path) == 0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "does not exist");
    CHECK_STR_CONTAINS(err, "rank 1 waited");
    // rank 0 alone names the ranks that never acknowledged
    CudaRdzvIdentity id3 = ident(0, 3, "");
    pattern(blob, 1);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id3, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "ranks 1, 2 of 3");
    cuda_rdzv_finish(&s, &id3);
    // a directory that does not exist
    CudaRdzvSpec nodir;
    snprintf(spec, sizeof spec, "file:%s/missing/world.rdzv", dir);
    CHECK_EQ_INT(cuda_rdzv_parse(spec, &nodir, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_bcast(&nodir, &id0, blob, BLOB, 5, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "cannot create");
    // a world of one needs nobody else
    CudaRdzvIdentity solo = ident(0, 1, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, BLOB, 1, err, sizeof err), SIM_OK);
    cuda_rdzv_finish(&s, &solo);
    CHECK(!exists(path));
    CHECK(rmdir(dir) == 0); // nothing left behind, temporaries included
    return 0;
}

// A port nobody listens on (bound to find it, then closed).
static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &sl) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

static int tcp_spec(CudaRdzvSpec *s, const char *host, int port) {
    char spec[128], err[512];
    snprintf(spec, sizeof spec, "tcp:%s:%d", host, port);
    return cuda_rdzv_parse(spec, s, err, sizeof err) == SIM_OK ? 0 : -1;
}

static int test_tcp_exchange(void) {
    CudaRdzvSpec s;
    char err[1024] = "";
    unsigned char blob[BLOB];
    int port = free_port();
    CHECK(port > 0);
    CHECK(tcp_spec(&s, "127.0.0.1", port) == 0);
    CHECK_EQ_INT(run_world(&s, 0), 0);
    CHECK_EQ_INT(run_world(&s, 1), 0); // the others retry until rank 0 listens
    CHECK(tcp_spec(&s, "localhost", port) == 0);
    CHECK_EQ_INT(run_world(&s, 0), 0);

    // a port in use
    int busy = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t sl = sizeof a;
    CHECK(busy >= 0 && bind(busy, (struct sockaddr *)&a, sizeof a) == 0 && listen(busy, 1) == 0 &&
          getsockname(busy, (struct sockaddr *)&a, &sl) == 0);
    CHECK(tcp_spec(&s, "127.0.0.1", ntohs(a.sin_port)) == 0);
    CudaRdzvIdentity id0 = ident(0, 2, "");
    pattern(blob, 7);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id0, blob, BLOB, 1, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "already in use");
    close(busy);

    // nobody listens: the connection is refused until the timeout
    CHECK(tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity id1 = ident(1, 2, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.5, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "refused");
    CHECK_STR_CONTAINS(err, "rank 1 waited");

    // an unreachable host (TEST-NET-1, RFC 5737: routed nowhere)
    CHECK(tcp_spec(&s, "192.0.2.1", port) == 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 1.0, err, sizeof err), SIM_ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_STR_CONTAINS(err, "tcp:192.0.2.1:");
    CHECK_STR_CONTAINS(err, "can this machine reach 192.0.2.1");
    CHECK((double)(t1.tv_sec - t0.tv_sec) < 5.0);

    // a process of another world size is refused by rank 0, which waits on
    port = free_port();
    CHECK(tcp_spec(&s, "127.0.0.1", port) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t root = fork();
    if (root == 0) {
        unsigned char b[BLOB];
        pattern(b, 7);
        CudaRdzvIdentity r0 = ident(0, 2, "");
        char e[1024] = "";
        SimStatus st = cuda_rdzv_bcast(&s, &r0, b, BLOB, 1.5, e, sizeof e);
        // rank 0 times out and names the refusal
        _exit(st == SIM_ETIMEDOUT && strstr(e, "refused: rank 0 runs a world of 2") ? 0 : 1);
    }
    CudaRdzvIdentity wrong = ident(1, 3, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &wrong, blob, BLOB, 5, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 0 refused rank 1");
    CHECK_STR_CONTAINS(err, "world of 2 processes and this one says 3");
    CHECK_EQ_INT(wait_all(&root, 1), 0);

    // a world of one listens and returns
    CudaRdzvIdentity solo = ident(0, 1, "");
    CHECK(tcp_spec(&s, "127.0.0.1", free_port()) == 0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, BLOB, 1, err, sizeof err), SIM_OK);
    // bad arguments
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, 0, 1, err, sizeof err), SIM_EINVAL);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, CUDA_RDZV_MAX_BLOB + 1, 1, err, sizeof err),
                 SIM_EINVAL);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_torchrun);
    RUN(test_mpi_and_slurm);
    RUN(test_identity_errors);
    RUN(test_spec);
    RUN(test_spec_mpi);
    RUN(test_file_exchange);
    RUN(test_tcp_exchange);
    return failures ? 1 : 0;
}
