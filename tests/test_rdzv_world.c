// tests/test_rdzv_world.c: see test_rdzv_world.h.
#include "test_rdzv_world.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void trw_pattern(unsigned char *b, unsigned seed) {
    for (int i = 0; i < TRW_BLOB; i++)
        b[i] = (unsigned char)(seed * 131u + (unsigned)i * 37u + 11u);
}

void trw_set_secret(CudaRdzvIdentity *id, const char *secret) {
    id->secret_len = strlen(secret);
    memcpy(id->secret, secret, id->secret_len);
}

CudaRdzvIdentity trw_ident(int rank, int world, const char *job) {
    CudaRdzvIdentity id;
    memset(&id, 0, sizeof id);
    id.rank = rank;
    id.world_size = world;
    id.local_rank = id.local_world_size = -1;
    snprintf(id.job, sizeof id.job, "%s", job);
    id.timeout_s = 10;
    trw_set_secret(&id, TRW_SECRET);
    return id;
}

pid_t trw_spawn(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, double timeout_s,
                SimStatus want, const char *says) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    unsigned char blob[TRW_BLOB], expect[TRW_BLOB];
    trw_pattern(expect, TRW_SEED);
    if (id->rank == 0)
        memcpy(blob, expect, TRW_BLOB);
    else
        memset(blob, 0xEE, TRW_BLOB);
    char err[1536] = "";
    SimStatus st = cuda_rdzv_bcast(s, id, blob, TRW_BLOB, timeout_s, err, sizeof err);
    int ok = st == want && (st == SIM_OK ? memcmp(blob, expect, TRW_BLOB) == 0
                                         : says == NULL || strstr(err, says) != NULL);
    if (!ok)
        fprintf(stderr, "rank %d: status %d (wanted %d): %s\n", id->rank, (int)st, (int)want,
                st == SIM_OK ? "(the blob)" : err);
    _exit(ok ? 0 : 1);
}

pid_t trw_spawn_rank(const CudaRdzvSpec *s, int rank, int world, double timeout_s) {
    CudaRdzvIdentity id = trw_ident(rank, world, "job-1");
    return trw_spawn(s, &id, timeout_s, SIM_OK, NULL);
}

int trw_wait_all(const pid_t *pids, int n) {
    int bad = 0;
    double until = trw_now() + 30;
    for (int i = 0; i < n; i++) {
        int status = 0;
        for (;;) {
            pid_t got = waitpid(pids[i], &status, WNOHANG);
            if (got == pids[i])
                break;
            if (trw_now() > until) {
                kill(pids[i], SIGKILL);
                waitpid(pids[i], &status, 0);
                fprintf(stderr, "child %d (pid %ld) did not finish\n", i, (long)pids[i]);
                bad = 1;
                break;
            }
            trw_sleep(0.01);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child %d: exit status %d\n", i,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            bad = 1;
        }
    }
    return bad;
}

int trw_run_world(const CudaRdzvSpec *s, int root_last) {
    pid_t pids[4];
    int k = 0;
    if (!root_last)
        pids[k++] = trw_spawn_rank(s, 0, 4, 20);
    for (int r = 1; r < 4; r++)
        pids[k++] = trw_spawn_rank(s, r, 4, 20);
    if (root_last) {
        trw_sleep(0.3);
        pids[k++] = trw_spawn_rank(s, 0, 4, 20);
    }
    return trw_wait_all(pids, k);
}

int trw_free_port(void) {
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

int trw_tcp_spec(CudaRdzvSpec *s, const char *host, int port) {
    char spec[300], err[512];
    snprintf(spec, sizeof spec, strchr(host, ':') ? "tcp:[%s]:%d" : "tcp:%s:%d", host, port);
    return cuda_rdzv_parse(spec, s, err, sizeof err) == SIM_OK ? 0 : -1;
}

double trw_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void trw_sleep(double s) {
    struct timespec t;
    t.tv_sec = (time_t)s;
    t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
    nanosleep(&t, NULL);
}
