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
#include "test_rdzv_world.h"

#define BLOB TRW_BLOB

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
                          "MASTER_PORT=29500", "DDPLAB_RENDEZVOUS_SECRET=" TRW_SECRET),
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

// ----------------------------------------------------------------------------
// The secret of a tcp rendezvous, and where rank 0 listens

#define SECRET_VAR "DDPLAB_RENDEZVOUS_SECRET="
#define SECRET_FILE_VAR "DDPLAB_RENDEZVOUS_SECRET_FILE="

// A file holding text with the given mode; its path in path.
static int secret_file(char *path, size_t n, const char *dir, const char *name, const char *text,
                       mode_t mode) {
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 && chmod(path, mode) == 0 ? 0 : -1;
}

// The identity of RANK=0 WORLD_SIZE=2 with one more variable.
static SimStatus with_var(CudaRdzvIdentity *id, char *err, size_t errlen, const char *var) {
    return identity_of(id, err, errlen, (const char *const[]){"RANK=0", "WORLD_SIZE=2", var, NULL});
}

// An unfit secret: SIM_EINVAL, one line holding says, and never the secret.
static int refused_secret(const char *var, const char *says, const char *secret) {
    CudaRdzvIdentity id;
    char err[1024] = "";
    CHECK_EQ_INT(with_var(&id, err, sizeof err, var), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, says);
    CHECK(strchr(err, '\n') == NULL);
    CHECK(secret == NULL || strstr(err, secret) == NULL);
    return 0;
}

static int test_secret(void) {
    CudaRdzvIdentity id;
    char err[1024] = "", path[300], var[400];
    char dir[64] = "/tmp/ddplab-secret-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    // the variable: the secret as it is
    CHECK_EQ_INT(with_var(&id, err, sizeof err, SECRET_VAR "correct horse battery"), SIM_OK);
    CHECK_EQ_INT(id.secret_len, 21);
    CHECK(memcmp(id.secret, "correct horse battery", 21) == 0);
    CHECK_EQ_INT(with_var(&id, err, sizeof err, "HOME=/root"), SIM_OK);
    CHECK_EQ_INT(id.secret_len, 0); // none: only tcp needs one
    CHECK(refused_secret(SECRET_VAR "xyzzy", "DDPLAB_RENDEZVOUS_SECRET holds a secret of 5 bytes",
                         "xyzzy") == 0);
    CHECK(refused_secret(SECRET_VAR, "of 0 bytes (ddplab); allowed: 16 .. 256 bytes", NULL) == 0);
    char big[300 + sizeof SECRET_VAR];
    snprintf(big, sizeof big, SECRET_VAR "%0300d", 7);
    CHECK(refused_secret(big, "of 300 bytes", "0000000000") == 0);
    // the file: its line, without the line end; only its owner may read it
    CHECK(secret_file(path, sizeof path, dir, "ok", "correct horse battery\n", 0600) == 0);
    snprintf(var, sizeof var, SECRET_FILE_VAR "%s", path);
    CHECK_EQ_INT(with_var(&id, err, sizeof err, var), SIM_OK);
    CHECK_EQ_INT(id.secret_len, 21);
    CHECK(memcmp(id.secret, "correct horse battery", 21) == 0);
    CHECK(secret_file(path, sizeof path, dir, "crlf", "correct horse battery\r\n", 0400) == 0);
    snprintf(var, sizeof var, SECRET_FILE_VAR "%s", path);
    CHECK_EQ_INT(with_var(&id, err, sizeof err, var), SIM_OK);
    CHECK_EQ_INT(id.secret_len, 21);
    static const mode_t open_modes[] = {0644, 0640, 0604, 0620, 0660};
    for (size_t i = 0; i < sizeof open_modes / sizeof open_modes[0]; i++) {
        char says[64];
        CHECK(secret_file(path, sizeof path, dir, "open", "correct horse battery\n",
                          open_modes[i]) == 0);
        snprintf(var, sizeof var, SECRET_FILE_VAR "%s", path);
        snprintf(says, sizeof says, "others (mode %03o)", (unsigned)open_modes[i]);
        CHECK(refused_secret(var, says, "horse") == 0);
        CHECK(refused_secret(var, "allowed: a file only its owner can read: chmod 600 '", NULL) ==
              0);
    }
    CHECK(secret_file(path, sizeof path, dir, "short", "xyzzy\n", 0600) == 0);
    snprintf(var, sizeof var, SECRET_FILE_VAR "%s", path);
    CHECK(refused_secret(var, "holds a secret of 5 bytes", "xyzzy") == 0);
    snprintf(var, sizeof var, SECRET_FILE_VAR "%s/missing", dir);
    CHECK(refused_secret(var, "cannot be opened: No such file", NULL) == 0);
    snprintf(var, sizeof var, SECRET_FILE_VAR "%s", dir);
    CHECK(refused_secret(var, "is not a regular file", NULL) == 0);
    if (geteuid() == 0) { // only root can give a file away
        CHECK(secret_file(path, sizeof path, dir, "theirs", "correct horse battery\n", 0600) == 0);
        CHECK(chown(path, 65534, 65534) == 0);
        snprintf(var, sizeof var, SECRET_FILE_VAR "%s", path);
        CHECK(refused_secret(var, "belongs to uid 65534, not to this user", "horse") == 0);
    }
    // both ways at once
    CHECK_EQ_INT(identity_of(&id, err, sizeof err,
                             (const char *const[]){"RANK=0", "WORLD_SIZE=2",
                                                   SECRET_VAR TRW_SECRET, var, NULL}),
                 SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "both DDPLAB_RENDEZVOUS_SECRET and DDPLAB_RENDEZVOUS_SECRET_FILE");
    CHECK(strstr(err, TRW_SECRET) == NULL);
    static const char *const names[] = {"ok", "crlf", "open", "short", "theirs"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        (void)unlink(path);
    }
    CHECK(rmdir(dir) == 0);
    return 0;
}

// tcp and env need the secret; file and mpi do not.
static int test_secret_needed(void) {
    CudaRdzvIdentity id;
    CudaRdzvSpec s;
    char err[1024] = "";
    static const char *const says[] = {
        "needs a secret that every rank shares, and none is set",
        "allowed: export DDPLAB_RENDEZVOUS_SECRET=SECRET (16 .. 256 bytes",
        "or DDPLAB_RENDEZVOUS_SECRET_FILE=PATH (a file holding it that only you can read",
        "or file:PATH, which needs none"};
    CHECK_EQ_INT(IDENTITY(&id, err, "RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=10.1.2.3",
                          "MASTER_PORT=29500"),
                 SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_parse("tcp:node0:29500", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "tcp:node0:29500 needs a secret");
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        CHECK_STR_CONTAINS(err, says[i]);
    CHECK(strchr(err, '\n') == NULL);
    CHECK_EQ_INT(cuda_rdzv_parse("env", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "tcp:10.1.2.3:29500 needs a secret");
    // the exchange itself refuses too, before any connection
    unsigned char blob[BLOB] = {0};
    CHECK_EQ_INT(cuda_rdzv_parse("tcp:127.0.0.1:9", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id, blob, BLOB, 5, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, says[0]);
    CHECK_EQ_INT(cuda_rdzv_parse("file:/tmp/x.rdzv", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(cuda_rdzv_resolve(&s, &id, err, sizeof err), SIM_OK);
    return 0;
}

// DDPLAB_RENDEZVOUS_BIND: an address, IPv6 with or without brackets.
static int test_bind_var(void) {
    CudaRdzvIdentity id;
    char err[1024] = "";
    CHECK_EQ_INT(with_var(&id, err, sizeof err, "HOME=/root"), SIM_OK);
    CHECK(id.bind[0] == '\0');
    CHECK_EQ_INT(with_var(&id, err, sizeof err, "DDPLAB_RENDEZVOUS_BIND=0.0.0.0"), SIM_OK);
    CHECK(strcmp(id.bind, "0.0.0.0") == 0);
    CHECK_EQ_INT(with_var(&id, err, sizeof err, "DDPLAB_RENDEZVOUS_BIND=[::]"), SIM_OK);
    CHECK(strcmp(id.bind, "::") == 0);
    CHECK_EQ_INT(with_var(&id, err, sizeof err, "DDPLAB_RENDEZVOUS_BIND=fe80::1%eth0"), SIM_OK);
    CHECK(strcmp(id.bind, "fe80::1%eth0") == 0);
    CHECK_EQ_INT(with_var(&id, err, sizeof err, "DDPLAB_RENDEZVOUS_BIND=node0-ib"), SIM_OK);
    static const char *const bad[] = {"DDPLAB_RENDEZVOUS_BIND=", "DDPLAB_RENDEZVOUS_BIND=a b",
                                      "DDPLAB_RENDEZVOUS_BIND=[]", "DDPLAB_RENDEZVOUS_BIND=h/1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_INT(with_var(&id, err, sizeof err, bad[i]), SIM_EINVAL);
        CHECK_STR_CONTAINS(err, "is not a host (ddplab); allowed: an address or name of rank 0");
    }
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
    CHECK_EQ_INT(trw_run_world(&s, 0), 0);
    CHECK_EQ_INT(trw_run_world(&s, 1), 0); // rank 0 last, over the files of the run before
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
    CudaRdzvIdentity id0 = trw_ident(0, 4, "job-1");
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
    CHECK_EQ_INT(trw_run_world(&s, 1), 0); // exits 1 if a rank took the 0x55 blob
    cuda_rdzv_finish(&s, &id0);

    // Alone, a rank waits for a confirmation the stale file never gets.
    CHECK(write_text(path, stale) == 0);
    CudaRdzvIdentity id1 = trw_ident(1, 4, "job-1");
    unsigned char blob[BLOB];
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.4, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, path);
    CHECK_STR_CONTAINS(err, "rank 0 has not confirmed");
    // a file of another world size, or of another job
    CudaRdzvIdentity other = trw_ident(1, 8, "job-1");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &other, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "another run's (a world of 4");
    other = trw_ident(1, 4, "job-2");
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
    CudaRdzvIdentity id3 = trw_ident(0, 3, "");
    trw_pattern(blob, 1);
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
    CudaRdzvIdentity solo = trw_ident(0, 1, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, BLOB, 1, err, sizeof err), SIM_OK);
    cuda_rdzv_finish(&s, &solo);
    CHECK(!exists(path));
    CHECK(rmdir(dir) == 0); // nothing left behind, temporaries included
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_torchrun);
    RUN(test_mpi_and_slurm);
    RUN(test_identity_errors);
    RUN(test_spec);
    RUN(test_spec_mpi);
    RUN(test_secret);
    RUN(test_secret_needed);
    RUN(test_bind_var);
    RUN(test_file_exchange);
    return failures ? 1 : 0;
}
