// tests/test_cuda_rdzv_tcp.c: the TCP rendezvous (backend_cuda/
// cuda_rdzv_tcp.c) among processes made by fork(), on loopback addresses
// only (127.0.0.1, 127.0.0.2 and, where the machine has it, ::1):
//   - worlds of 4 join, also when rank 0 starts last, by name and by
//     address; a port in use, nobody listening, an unreachable host, a world
//     of another size and bad arguments give their messages;
//   - the secret: a process with another one is refused (and told so) while
//     the others join; the exchange as the protocol describes it, spoken by
//     hand, succeeds, and replaying it fails both ways (a recorded hello and
//     proof to a new rank 0; a recorded challenge and answer to a new rank);
//     a process of protocol 1 is told why it is refused;
//   - serving at once: 70 idle connections, one that stops half-way through
//     its hello and one that speaks HTTP do not hold the honest ranks, and
//     an idle connection is closed after the handshake's 5 s; a joined rank
//     that dies may be replaced; a rank 0 that gives up tells the joined
//     ranks at once;
//   - where rank 0 listens: on the named address only (127.0.0.1 is not
//     127.0.0.2, and the other way round), on every interface for 0.0.0.0
//     or DDPLAB_RENDEZVOUS_BIND=0.0.0.0; a host that is not this machine's,
//     and a loopback host while the launcher puts ranks on other machines,
//     are refused with the way out.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cuda_rdzv.h"
#include "cuda_rdzv_hmac.h"
#include "test_rdzv_world.h"

#define BLOB TRW_BLOB

// ----------------------------------------------------------------------------
// Raw sockets

// A connected socket to ip:port (IPv4 or IPv6), or -1 with errno set.
static int dial(const char *ip, int port) {
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    int family = strchr(ip, ':') ? AF_INET6 : AF_INET;
    if (family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        inet_pton(AF_INET6, ip, &a->sin6_addr);
        sl = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        inet_pton(AF_INET, ip, &a->sin_addr);
        sl = sizeof *a;
    }
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&ss, sl) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

// 0 once ip:port accepts connections (rank 0 listens), -1 after 5 s.
static int wait_listening(const char *ip, int port) {
    for (double until = trw_now() + 5; trw_now() < until; trw_sleep(0.02)) {
        int fd = dial(ip, port);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
    }
    return -1;
}

// 1 when a bare socket can be bound to ip here (the machine has it).
static int have_address(const char *ip) {
    int fd = dial(ip, 9); // nothing listens on the discard port: refused, or absent
    int e = errno;
    if (fd >= 0)
        close(fd);
    return fd >= 0 || e == ECONNREFUSED;
}

static int send_all(int fd, const void *p, size_t n) {
    return send(fd, p, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

// Exactly n bytes within timeout_s; 0, or -1 (closed, failed, too slow).
static int recv_all(int fd, void *p, size_t n, double timeout_s) {
    size_t done = 0;
    double until = trw_now() + timeout_s;
    while (done < n) {
        struct pollfd pf = {fd, POLLIN, 0};
        int left = (int)((until - trw_now()) * 1000);
        if (left <= 0 || poll(&pf, 1, left) <= 0)
            return -1;
        ssize_t k = recv(fd, (char *)p + done, n - done, 0);
        if (k <= 0)
            return -1;
        done += (size_t)k;
    }
    return 0;
}

// Seconds until the peer closes fd (reading and dropping what comes), or
// -1 when it is still open after timeout_s.
static double seconds_to_close(int fd, double timeout_s) {
    double t0 = trw_now();
    char buf[256];
    while (trw_now() - t0 < timeout_s) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 50) > 0 && recv(fd, buf, sizeof buf, 0) <= 0)
            return trw_now() - t0;
    }
    return -1;
}

// ----------------------------------------------------------------------------
// The protocol, spoken by hand as cuda_rdzv_tcp.c describes it

#define MAGIC "DDPRDZV2"
#define NONCE 32
#define MAC CUDA_RDZV_SHA256_LEN

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// A hello of `magic` with a fresh nonce (none for protocol 1); its length.
static size_t raw_hello(unsigned char *h, const char *magic, int world, int rank,
                        const char *job) {
    size_t j = strlen(job), n = 24 + j;
    memcpy(h, magic, 8);
    put32(h + 8, (uint32_t)world);
    put32(h + 12, (uint32_t)rank);
    put32(h + 16, BLOB);
    put32(h + 20, (uint32_t)j);
    memcpy(h + 24, job, j);
    if (strcmp(magic, MAGIC) == 0) {
        if (cuda_rdzv_random_bytes(h + n, NONCE) != 0)
            return 0;
        n += NONCE;
    }
    return n;
}

// MAC(label | a | b | c | d), keyed with TRW_SECRET (a part may be empty).
static void raw_mac(const char *label, const void *a, size_t an, const void *b, size_t bn,
                          const void *c, size_t cn, const void *d, size_t dn,
                          unsigned char out[MAC]) {
    CudaRdzvHmac m;
    cuda_rdzv_hmac_init(&m, TRW_SECRET, strlen(TRW_SECRET));
    cuda_rdzv_hmac_update(&m, label, strlen(label) + 1);
    cuda_rdzv_hmac_update(&m, a, an);
    cuda_rdzv_hmac_update(&m, b, bn);
    cuda_rdzv_hmac_update(&m, c, cn);
    cuda_rdzv_hmac_update(&m, d, dn);
    cuda_rdzv_hmac_final(&m, out);
}

// One exchange as rank K of a world of 2 (job "job-1"), recorded: what this
// side sent (hello and proof) and what rank 0 sent (challenge and answer).
typedef struct {
    unsigned char sent[256];
    size_t sent_len;
    unsigned char got[8 + NONCE + 16 + BLOB + MAC];
} Recording;

#define ANSWER_LEN (16 + BLOB + MAC)

// Speaks for rank 1 to rank 0 at 127.0.0.1:port, checks rank 0's tag and
// deciphers its blob into blob. 0 when all of it held.
static int raw_join(int port, Recording *rec, unsigned char *blob) {
    int fd = dial("127.0.0.1", port);
    CHECK(fd >= 0);
    size_t h = raw_hello(rec->sent, MAGIC, 2, 1, "job-1");
    unsigned char *chal = rec->got, *ans = rec->got + 8 + NONCE;
    CHECK(h > 0 && send_all(fd, rec->sent, h) == 0);
    CHECK(recv_all(fd, chal, 8 + NONCE, 5) == 0 && memcmp(chal, MAGIC, 8) == 0);
    raw_mac("ddplab-rdzv2 rank", rec->sent, h, chal + 8, NONCE, "", 0, "", 0, rec->sent + h);
    rec->sent_len = h + MAC;
    CHECK(send_all(fd, rec->sent + h, MAC) == 0);
    CHECK(recv_all(fd, ans, ANSWER_LEN, 5) == 0);
    close(fd);
    CHECK(memcmp(ans, MAGIC, 8) == 0);
    CHECK_EQ_INT(get32(ans + 8), 0);
    CHECK_EQ_INT(get32(ans + 12), BLOB);
    const unsigned char *nk = rec->sent + h - NONCE, *n0 = chal + 8, *payload = ans + 16;
    unsigned char len[4], tag[MAC];
    put32(len, BLOB);
    raw_mac("ddplab-rdzv2 root", nk, NONCE, n0, NONCE, len, 4, payload, BLOB, tag);
    CHECK(memcmp(tag, payload + BLOB, MAC) == 0);
    for (int i = 0; i * MAC < BLOB; i++) { // the key stream, block by block
        unsigned char ctr[4], ks[MAC];
        put32(ctr, (uint32_t)i);
        raw_mac("ddplab-rdzv2 blob", nk, NONCE, n0, NONCE, ctr, 4, "", 0, ks);
        for (int k = 0; k < MAC && i * MAC + k < BLOB; k++)
            blob[i * MAC + k] = payload[i * MAC + k] ^ ks[k];
    }
    return 0;
}

// rank 0's refusal on fd (status 1), with its reason in why.
static int read_refusal(int fd, const char *magic, char *why, size_t n) {
    unsigned char head[16];
    CHECK(recv_all(fd, head, sizeof head, 5) == 0);
    CHECK(memcmp(head, magic, 8) == 0);
    CHECK_EQ_INT(get32(head + 8), 1);
    uint32_t len = get32(head + 12);
    CHECK(len < n && recv_all(fd, why, len, 5) == 0);
    why[len] = '\0';
    return 0;
}

// ----------------------------------------------------------------------------
// Worlds

static int test_tcp_exchange(void) {
    CudaRdzvSpec s;
    char err[1024] = "";
    unsigned char blob[BLOB];
    int port = trw_free_port();
    CHECK(port > 0);
    CHECK(trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CHECK_EQ_INT(trw_run_world(&s, 0), 0);
    CHECK_EQ_INT(trw_run_world(&s, 1), 0); // the others retry until rank 0 listens
    CHECK(trw_tcp_spec(&s, "localhost", port) == 0);
    CHECK_EQ_INT(trw_run_world(&s, 0), 0);

    // a port in use
    int busy = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t sl = sizeof a;
    CHECK(busy >= 0 && bind(busy, (struct sockaddr *)&a, sizeof a) == 0 && listen(busy, 1) == 0 &&
          getsockname(busy, (struct sockaddr *)&a, &sl) == 0);
    CHECK(trw_tcp_spec(&s, "127.0.0.1", ntohs(a.sin_port)) == 0);
    CudaRdzvIdentity id0 = trw_ident(0, 2, "");
    trw_pattern(blob, TRW_SEED);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id0, blob, BLOB, 1, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "already in use");
    close(busy);

    // nobody listens: the connection is refused until the timeout
    CHECK(trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity id1 = trw_ident(1, 2, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 0.5, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "refused");
    CHECK_STR_CONTAINS(err, "rank 1 waited");

    // an unreachable host (TEST-NET-1, RFC 5737: routed nowhere)
    CHECK(trw_tcp_spec(&s, "192.0.2.1", port) == 0);
    double t0 = trw_now();
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &id1, blob, BLOB, 1.0, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "tcp:192.0.2.1:");
    CHECK_STR_CONTAINS(err, "can this machine reach 192.0.2.1");
    printf("  the unreachable host: given up after %.2f s (limit 1 s)\n", trw_now() - t0);

    // a process of another world size is refused by rank 0, which waits on
    // and names the refusal when it times out
    CHECK(trw_tcp_spec(&s, "127.0.0.1", trw_free_port()) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 2, "");
    pid_t root = trw_spawn(&s, &r0, 1.5, SIM_ETIMEDOUT, "refused: rank 0 runs a world of 2");
    CudaRdzvIdentity wrong = trw_ident(1, 3, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &wrong, blob, BLOB, 5, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 0 refused rank 1");
    CHECK_STR_CONTAINS(err, "world of 2 processes and this one says 3");
    CHECK_EQ_INT(trw_wait_all(&root, 1), 0);

    // a world of one listens and returns
    CudaRdzvIdentity solo = trw_ident(0, 1, "");
    CHECK(trw_tcp_spec(&s, "127.0.0.1", trw_free_port()) == 0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, BLOB, 1, err, sizeof err), SIM_OK);
    // bad arguments
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, 0, 1, err, sizeof err), SIM_EINVAL);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &solo, blob, CUDA_RDZV_MAX_BLOB + 1, 1, err, sizeof err),
                 SIM_EINVAL);
    return 0;
}

// ----------------------------------------------------------------------------
// The secret

// A process with another secret is refused, told why, and the world joins.
static int test_tcp_wrong_secret(void) {
    CudaRdzvSpec s;
    char err[1024] = "";
    unsigned char blob[BLOB];
    int port = trw_free_port();
    CHECK(port > 0 && trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 3, "job-1");
    pid_t pids[3];
    pids[0] = trw_spawn(&s, &r0, 20, SIM_OK, NULL);
    CudaRdzvIdentity bad = trw_ident(1, 3, "job-1");
    trw_set_secret(&bad, "another-secret-0123456789");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &bad, blob, BLOB, 10, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 0 refused rank 1: its proof of the shared secret does not "
                            "match rank 0's: every rank needs the same DDPLAB_RENDEZVOUS_SECRET");
    CHECK(strchr(err, '\n') == NULL);
    // the secret comes first: a stranger learns nothing of the world or job
    bad = trw_ident(2, 5, "their-job");
    trw_set_secret(&bad, "another-secret-0123456789");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &bad, blob, BLOB, 10, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "its proof of the shared secret does not match");
    CHECK(strstr(err, "job-1") == NULL && strstr(err, "world of 3") == NULL);
    pids[1] = trw_spawn_rank(&s, 1, 3, 20);
    pids[2] = trw_spawn_rank(&s, 2, 3, 20);
    CHECK_EQ_INT(trw_wait_all(pids, 3), 0);
    return 0;
}

// The exchange by hand; then each half of it replayed.
static int test_tcp_replay(void) {
    CudaRdzvSpec s;
    int port = trw_free_port();
    CHECK(port > 0 && trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 2, "job-1");
    Recording rec;
    unsigned char blob[BLOB], want[BLOB];
    trw_pattern(want, TRW_SEED);
    pid_t root = trw_spawn(&s, &r0, 10, SIM_OK, NULL);
    CHECK(wait_listening("127.0.0.1", port) == 0);
    int joined = raw_join(port, &rec, blob);
    CHECK_EQ_INT(trw_wait_all(&root, 1), 0);
    CHECK_EQ_INT(joined, 0);
    CHECK(memcmp(blob, want, BLOB) == 0);
    const unsigned char *answer = rec.got + 8 + NONCE;
    CHECK(memcmp(answer + 16, want, BLOB) != 0); // enciphered on the wire

    // hello and proof replayed to a new rank 0: its challenge is new, so the
    // proof fails; a process of protocol 1 is told why it is refused
    root = trw_spawn(&s, &r0, 10, SIM_OK, NULL);
    CHECK(wait_listening("127.0.0.1", port) == 0);
    int fd = dial("127.0.0.1", port);
    unsigned char chal[8 + NONCE];
    char why[1100];
    CHECK(fd >= 0 && send_all(fd, rec.sent, rec.sent_len) == 0);
    CHECK(recv_all(fd, chal, sizeof chal, 5) == 0);
    CHECK(memcmp(chal + 8, rec.got + 8, NONCE) != 0);
    CHECK(read_refusal(fd, MAGIC, why, sizeof why) == 0);
    CHECK_STR_CONTAINS(why, "its proof of the shared secret does not match");
    close(fd);
    unsigned char v1[64];
    size_t n = raw_hello(v1, "DDPRDZV1", 2, 1, "job-1");
    fd = dial("127.0.0.1", port);
    CHECK(fd >= 0 && send_all(fd, v1, n) == 0);
    CHECK(read_refusal(fd, "DDPRDZV1", why, sizeof why) == 0);
    CHECK_STR_CONTAINS(why, "speaks ddplab's rendezvous protocol 1 and rank 0 protocol 2");
    close(fd);
    pid_t honest = trw_spawn_rank(&s, 1, 2, 10); // the world still joins
    pid_t both[2] = {root, honest};
    CHECK_EQ_INT(trw_wait_all(both, 2), 0);

    // challenge and answer replayed to a new rank 1 by a rank 0 without the
    // secret: the rank's nonce is new, so the tag fails
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    (void)setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(lfd, 4) == 0);
    CudaRdzvIdentity r1 = trw_ident(1, 2, "job-1");
    pid_t victim = trw_spawn(&s, &r1, 10, SIM_EINVAL, "the answer does not prove the shared "
                                                      "secret: what answers there is not rank 0");
    fd = accept(lfd, NULL, NULL);
    unsigned char hello[24 + 5 + NONCE], proof[MAC];
    int spoke = fd >= 0 && recv_all(fd, hello, sizeof hello, 5) == 0 &&
                send_all(fd, rec.got, 8 + NONCE) == 0 && recv_all(fd, proof, MAC, 5) == 0 &&
                send_all(fd, answer, ANSWER_LEN) == 0;
    CHECK_EQ_INT(trw_wait_all(&victim, 1), 0);
    close(fd);
    close(lfd);
    CHECK(spoke);
    return 0;
}

// ----------------------------------------------------------------------------
// Serving at once

// Idle, half-finished and foreign connections hold nobody.
static int test_tcp_idle(void) {
    CudaRdzvSpec s;
    int port = trw_free_port(), idle[70], half, http;
    CHECK(port > 0 && trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 3, "job-1");
    pid_t pids[3];
    pids[0] = trw_spawn(&s, &r0, 20, SIM_OK, NULL);
    CHECK(wait_listening("127.0.0.1", port) == 0);
    // what is not ddplab's is dropped without a word, at once (while rank 0
    // waits on)
    const char get[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    CHECK((http = dial("127.0.0.1", port)) >= 0 && send_all(http, get, sizeof get - 1) == 0);
    // (rank 0 gives up after 20 s: a close seen before then is its doing)
    double closed = seconds_to_close(http, 15);
    for (int i = 0; i < 70; i++) // more than rank 0 keeps in their handshake
        CHECK((idle[i] = dial("127.0.0.1", port)) >= 0);
    unsigned char hello[64];
    CHECK(raw_hello(hello, MAGIC, 3, 1, "job-1") > 0);
    CHECK((half = dial("127.0.0.1", port)) >= 0 && send_all(half, hello, 20) == 0);
    double t0 = trw_now();
    pids[1] = trw_spawn_rank(&s, 1, 3, 20);
    pids[2] = trw_spawn_rank(&s, 2, 3, 20);
    int rc = trw_wait_all(pids, 3);
    double took = trw_now() - t0;
    for (int i = 0; i < 70; i++)
        close(idle[i]);
    close(half);
    close(http);
    CHECK_EQ_INT(rc, 0);
    // dropped while rank 0 waited on; the ranks joined past 71 connections
    // that would have held a one-at-a-time rank 0 for 5 s each, beyond their
    // 20 s (how long it took is printed, not asserted: load changes it)
    CHECK(closed >= 0);
    printf("  the HTTP request dropped after %.3f s; ranks 1 and 2 joined in %.3f s\n", closed,
           took);
    return 0;
}

// An idle connection is closed after the handshake's 5 s, while rank 0
// waits on.
static int test_tcp_handshake_timeout(void) {
    CudaRdzvSpec s;
    int port = trw_free_port();
    CHECK(port > 0 && trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 2, "job-1");
    pid_t pids[2];
    pids[0] = trw_spawn(&s, &r0, 20, SIM_OK, NULL);
    CHECK(wait_listening("127.0.0.1", port) == 0);
    int fd = dial("127.0.0.1", port);
    CHECK(fd >= 0);
    double closed = seconds_to_close(fd, 15);
    close(fd);
    pids[1] = trw_spawn_rank(&s, 1, 2, 10);
    CHECK_EQ_INT(trw_wait_all(pids, 2), 0);
    // not at once, and by the handshake's limit rather than rank 0 leaving:
    // rank 1 joined the same rank 0 afterwards
    printf("  the idle connection was closed after %.2f s\n", closed);
    CHECK(closed > 4.0);
    return 0;
}

// A joined rank that dies before the answer may be replaced.
static int test_tcp_rejoin(void) {
    CudaRdzvSpec s;
    int port = trw_free_port();
    CHECK(port > 0 && trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 3, "job-1");
    pid_t pids[3];
    pids[0] = trw_spawn(&s, &r0, 20, SIM_OK, NULL);
    CHECK(wait_listening("127.0.0.1", port) == 0);
    pid_t first = trw_spawn_rank(&s, 1, 3, 20);
    trw_sleep(0.5); // it has joined, and waits for rank 2
    kill(first, SIGKILL);
    waitpid(first, NULL, 0);
    pids[1] = trw_spawn_rank(&s, 1, 3, 20); // not "rank 1 has already connected"
    pids[2] = trw_spawn_rank(&s, 2, 3, 20);
    CHECK_EQ_INT(trw_wait_all(pids, 3), 0);
    return 0;
}

// A rank 0 that gives up says so to the ranks that joined, which stop then
// rather than at their own timeout.
static int test_tcp_give_up(void) {
    CudaRdzvSpec s;
    int port = trw_free_port();
    CHECK(port > 0 && trw_tcp_spec(&s, "127.0.0.1", port) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 3, "job-1"), r1 = trw_ident(1, 3, "job-1");
    pid_t pids[2];
    double t0 = trw_now();
    pids[0] = trw_spawn(&s, &r0, 1.0, SIM_ETIMEDOUT, "(missing: 2)");
    pids[1] = trw_spawn(&s, &r1, 20, SIM_EINVAL, "rank 0 refused rank 1: rank 0 gave up waiting");
    CHECK_EQ_INT(trw_wait_all(pids, 2), 0);
    printf("  both ended after %.2f s (rank 0's limit 1 s)\n", trw_now() - t0);
    return 0;
}

// ----------------------------------------------------------------------------
// Where rank 0 listens

// Rank 0 of a world of 2 on spec (and bind, when not NULL); while it waits,
// `yes` accepts connections and `no` refuses them; then rank 1 joins.
static int listens_on(const char *host, const char *bind, const char *yes, const char *no) {
    CudaRdzvSpec s;
    int port = trw_free_port();
    CHECK(port > 0 && trw_tcp_spec(&s, host, port) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 2, "job-1");
    if (bind)
        snprintf(r0.bind, sizeof r0.bind, "%s", bind);
    pid_t pids[2];
    pids[0] = trw_spawn(&s, &r0, 20, SIM_OK, NULL);
    int up = wait_listening(yes, port), fd = no ? dial(no, port) : -1, e = errno;
    if (fd >= 0)
        close(fd);
    pids[1] = trw_spawn_rank(&s, 1, 2, 20);
    CHECK_EQ_INT(trw_wait_all(pids, 2), 0);
    CHECK_EQ_INT(up, 0);
    CHECK(no == NULL || (fd < 0 && e == ECONNREFUSED));
    return 0;
}

static int test_tcp_bind(void) {
    if (!have_address("127.0.0.2")) {
        printf("(127.0.0.2 is not an address of this machine: the named address checks skipped)\n");
    } else {
        CHECK(listens_on("127.0.0.1", NULL, "127.0.0.1", "127.0.0.2") == 0);
        CHECK(listens_on("127.0.0.2", NULL, "127.0.0.2", "127.0.0.1") == 0);
        CHECK(listens_on("127.0.0.1", "0.0.0.0", "127.0.0.2", NULL) == 0); // every interface
        CHECK(listens_on("0.0.0.0", NULL, "127.0.0.2", NULL) == 0);
    }
    if (have_address("::1")) {
        CHECK(listens_on("::1", NULL, "::1", "127.0.0.1") == 0);
        CHECK(listens_on("127.0.0.1", "::", "::1", NULL) == 0); // :: takes IPv4 too
        CHECK(listens_on("::", NULL, "127.0.0.1", NULL) == 0);
    }
    CudaRdzvSpec s;
    char err[1024] = "";
    unsigned char blob[BLOB];
    trw_pattern(blob, TRW_SEED);
    // a host that is not this machine's
    CHECK(trw_tcp_spec(&s, "192.0.2.1", trw_free_port()) == 0);
    CudaRdzvIdentity r0 = trw_ident(0, 2, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &r0, blob, BLOB, 5, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "'192.0.2.1' (the rendezvous's host, where rank 0 listens) is not an "
                            "address of this machine");
    CHECK_STR_CONTAINS(err, "DDPLAB_RENDEZVOUS_BIND=0.0.0.0 (every interface)");
    snprintf(r0.bind, sizeof r0.bind, "192.0.2.1");
    CHECK(trw_tcp_spec(&s, "127.0.0.1", trw_free_port()) == 0);
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &r0, blob, BLOB, 5, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "'192.0.2.1' (DDPLAB_RENDEZVOUS_BIND) is not an address");
    // loopback only, while the launcher puts ranks on other machines
    r0 = trw_ident(0, 4, "");
    r0.local_world_size = 2;
    snprintf(r0.launcher, sizeof r0.launcher, "torchrun");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &r0, blob, BLOB, 5, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "rank 0 would listen on 127.0.0.1:");
    CHECK_STR_CONTAINS(err, "torchrun runs 2 of the 4 ranks on other machines");
    CHECK_STR_CONTAINS(err, "DDPLAB_RENDEZVOUS_BIND=0.0.0.0");
    // when the launcher does not say, the timeout says it
    r0 = trw_ident(0, 2, "");
    CHECK_EQ_INT(cuda_rdzv_bcast(&s, &r0, blob, BLOB, 0.3, err, sizeof err), SIM_ETIMEDOUT);
    CHECK_STR_CONTAINS(err, "can they reach 127.0.0.1:");
    CHECK_STR_CONTAINS(err, "(rank 0 listens on loopback only");
    return 0;
}

int main(void) {
    signal(SIGPIPE, SIG_IGN); // a raw socket's peer may be gone
    int failures = 0;
    RUN(test_tcp_exchange);
    RUN(test_tcp_wrong_secret);
    RUN(test_tcp_replay);
    RUN(test_tcp_idle);
    RUN(test_tcp_handshake_timeout);
    RUN(test_tcp_rejoin);
    RUN(test_tcp_give_up);
    RUN(test_tcp_bind);
    return failures ? 1 : 0;
}
