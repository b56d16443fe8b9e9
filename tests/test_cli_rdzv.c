// tests/test_cli_rdzv.c: `ddplab run --rendezvous SPEC` with bad input, in
// any build. Every case exits 2 after one line on stderr that names what is
// wrong, prints nothing on stdout and writes no file: a spec that is not
// one, the cpu backend, and (in a CUDA build, before any GPU is touched)
// no launcher's variables, malformed ones, -n other than the launcher's
// world size, `env` without MASTER_ADDR, tcp and env without the shared
// secret or with one in a file others can read, a view beside the
// rendezvous.
// Without CUDA, `--backend cuda` itself is refused first. `mpi` is a spec
// only where the build found MPI (DDPLAB_RDZV_MPI=1); elsewhere it is
// refused as it is parsed, with the way to get MPI.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "test_cli_run.h"
#include "test_files.h"

static const char *exe;
static char dir[512];

// The launcher variables ddplab reads: none may leak in from the
// environment the tests run in (a CI job under Slurm sets SLURM_PROCID).
static void clear_launcher_env(void) {
    static const char *const vars[] = {
        "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
        "OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID",
        "MPI_LOCALNRANKS", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_LOCALID",
        "SLURM_NTASKS_PER_NODE", "TORCHELASTIC_USE_AGENT_STORE", "DDPLAB_RENDEZVOUS_TIMEOUT",
        "DDPLAB_RENDEZVOUS_SECRET", "DDPLAB_RENDEZVOUS_SECRET_FILE", "DDPLAB_RENDEZVOUS_BIND"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

// `ddplab run ARGS... --trace DIR/t.ddptrace`: exit 2, one line holding
// every `want`, no stdout, no file.
static int expect_bad(const char *const *args, const char *const *want) {
    const char *argv[40];
    int n = 0;
    argv[n++] = "run";
    for (; *args && n < 34; args++)
        argv[n++] = *args;
    argv[n++] = "--trace";
    argv[n++] = tcli_path(dir, "t.ddptrace");
    argv[n] = NULL;
    TcliResult r;
    tcli_run(&r, exe, argv, 60);
    int ok = r.rc == 2 && tcli_lines(r.err) == 1 && strncmp(r.err, "ddplab run: ", 12) == 0 &&
             r.out[0] == '\0' && tfile_dir_entries(dir) == 0;
    for (; *want && ok; want++)
        ok = strstr(r.err, *want) != NULL;
    if (!ok) {
        fprintf(stderr, "case:");
        for (int i = 1; argv[i]; i++)
            fprintf(stderr, " %s", argv[i]);
        fprintf(stderr, "\n  rc %d, %d files left\n  stderr: %s  stdout: %.300s\n", r.rc,
                tfile_dir_entries(dir), r.err, r.out);
    }
    tcli_result_free(&r);
    return ok ? 0 : 1;
}

// BAD(ARGS(...), what stderr must hold...)
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define BAD(args, ...)                                                         \
    CHECK(expect_bad(args, (const char *const[]){__VA_ARGS__, NULL}) == 0)

static int test_spec(void) {
    BAD(ARGS("--rendezvous", "bogus"), "--rendezvous: 'bogus' is not a rendezvous",
        "allowed: file:PATH");
    BAD(ARGS("--rendezvous", "tcp:node0"), "--rendezvous: 'tcp:node0' has no port");
    BAD(ARGS("--rendezvous", "tcp:node0:99999"), "1 to 65535");
    BAD(ARGS("--rendezvous", "file:"), "names no file");
    BAD(ARGS("--rendezvous="), "is empty");
    BAD(ARGS("--backend", "cuda", "--rendezvous", "tcp:::1:80"), "brackets");
    BAD(ARGS("--rendezvous", "file:/tmp/x.rdzv"), "--rendezvous: needs --backend cuda");
#if DDPLAB_RDZV_MPI
    BAD(ARGS("--rendezvous", "mpi"), "--rendezvous: needs --backend cuda", "--rendezvous mpi");
#else
    BAD(ARGS("--rendezvous", "mpi"),
        "--rendezvous: 'mpi' needs MPI, and this build of ddplab has none",
        "apt-get install openmpi-bin libopenmpi-dev, then reconfigure");
#endif
    return 0;
}

static int test_launcher(void) {
#ifdef DDPLAB_HAVE_CUDA
    const char *spec = tcli_path(dir, "x.rdzv"); // never written
    char file[700];
    snprintf(file, sizeof file, "file:%s", spec);
    BAD(ARGS("--backend", "cuda", "--rendezvous", file), "--rendezvous: no launcher's rank is set");
    setenv("RANK", "2", 1);
    setenv("WORLD_SIZE", "2", 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", file), "--rendezvous: RANK='2'", "0 .. 1");
    setenv("RANK", "x1", 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", file), "RANK='x1' is not a whole number");
    setenv("RANK", "1", 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", file, "--strategy", "ddp"),
        "--ranks: '1' is not the world of 2 processes that torchrun started", "-n 2");
    BAD(ARGS("--backend", "cuda", "--rendezvous", "env", "--strategy", "ddp", "-n", "2"),
        "'env' needs MASTER_ADDR");
#if DDPLAB_RDZV_MPI
    // mpi reads the same variables: -n is checked against them up front
    BAD(ARGS("--backend", "cuda", "--rendezvous", "mpi", "--strategy", "ddp", "-n", "3"),
        "--ranks: '3' is not the world of 2 processes that torchrun started");
#endif
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    setenv("MASTER_PORT", "port", 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", "env", "--strategy", "ddp", "-n", "2"),
        "MASTER_PORT='port'");
    // tcp and env need the secret every rank shares, from a file only its
    // owner can read (kept outside dir, where nothing may be written)
    setenv("MASTER_PORT", "29500", 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", "env", "--strategy", "ddp", "-n", "2"),
        "--rendezvous: tcp:127.0.0.1:29500 needs a secret that every rank shares",
        "export DDPLAB_RENDEZVOUS_SECRET=SECRET", "or DDPLAB_RENDEZVOUS_SECRET_FILE=PATH");
    BAD(ARGS("--backend", "cuda", "--rendezvous", "tcp:127.0.0.1:29500", "--strategy", "ddp",
             "-n", "2"),
        "needs a secret");
    char sdir[512], secret[600];
    CHECK(tfile_mkdtemp(sdir, sizeof sdir, "cli-rdzv-secret") == 0);
    snprintf(secret, sizeof secret, "%s/secret", sdir);
    CHECK(tfile_write(secret, "correct horse battery staple\n", 29) == 0);
    CHECK(chmod(secret, 0644) == 0);
    setenv("DDPLAB_RENDEZVOUS_SECRET_FILE", secret, 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", "env", "--strategy", "ddp", "-n", "2"),
        "--rendezvous: DDPLAB_RENDEZVOUS_SECRET_FILE='", "(mode 644)", "chmod 600");
    unsetenv("DDPLAB_RENDEZVOUS_SECRET_FILE");
    setenv("DDPLAB_RENDEZVOUS_SECRET", "short", 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", "env", "--strategy", "ddp", "-n", "2"),
        "DDPLAB_RENDEZVOUS_SECRET holds a secret of 5 bytes");
    unsetenv("DDPLAB_RENDEZVOUS_SECRET");
    tfile_rmtree(sdir);
    BAD(ARGS("--backend", "cuda", "--rendezvous", file, "--strategy", "ddp", "-n", "2", "--viz",
             "text"),
        "cannot be combined with --viz");
    clear_launcher_env();
    setenv("SLURM_PROCID", "0", 1);
    BAD(ARGS("--backend", "cuda", "--rendezvous", file), "SLURM_PROCID is set (Slurm)");
    clear_launcher_env();
#else
    BAD(ARGS("--backend", "cuda", "--rendezvous", "file:/tmp/x.rdzv"), "--backend: 'cuda'");
#endif
    return 0;
}

static int test_help(void) {
    TcliResult r;
    TCLI_RUN(r, exe, 60, "run", "--help");
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "--rendezvous SPEC");
    CHECK_STR_CONTAINS(r.out, "tcp:HOST:PORT");
    CHECK_STR_CONTAINS(r.out, "mpi (MPI_Bcast");
    CHECK_STR_CONTAINS(r.out, "DDPLAB_RENDEZVOUS_SECRET");
    CHECK_STR_CONTAINS(r.out, "DDPLAB_RENDEZVOUS_SECRET_FILE");
    CHECK_STR_CONTAINS(r.out, "DDPLAB_RENDEZVOUS_BIND=0.0.0.0");
    CHECK_STR_CONTAINS(r.out, "merge-traces");
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_exe_arg(argc, argv);
    if (exe == NULL || tfile_mkdtemp(dir, sizeof dir, "cli-rdzv") != 0)
        return 2;
    clear_launcher_env();
    int failures = 0;
    RUN(test_spec);
    RUN(test_launcher);
    RUN(test_help);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
