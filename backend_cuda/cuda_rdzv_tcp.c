// backend_cuda/cuda_rdzv_tcp.c: the blob exchange over TCP
// (`--rendezvous tcp:HOST:PORT`, and `env` once resolved).
//
// Where rank 0 listens. On PORT of the addresses HOST resolves to on its
// machine (each of them: localhost is 127.0.0.1 and ::1), or of
// DDPLAB_RENDEZVOUS_BIND's instead; 0.0.0.0 or :: as either is every
// interface (:: takes IPv4 as well). So the rendezvous is not offered on the
// machine's other networks. HOST is also where the other ranks connect,
// which torchrun's MASTER_ADDR means too: the address by which the others
// reach rank 0. On rank 0's machine that name can resolve elsewhere (the
// machine's own name to 127.0.1.1, as Debian's /etc/hosts has it), so:
//   - a HOST that is no address of this machine is refused at once;
//   - a HOST of loopback addresses only is refused when the launcher says
//     that ranks run on other machines (a local world smaller than the
//     world), which could not reach it; the message names
//     DDPLAB_RENDEZVOUS_BIND, and when the launcher does not say, rank 0's
//     timeout message does.
// SO_REUSEADDR: a port in TIME_WAIT from an earlier run is taken, while a
// port that another program listens on is refused with "in use".
//
// Who may join. Every rank proves that it holds the secret the launcher
// gave every process (DDPLAB_RENDEZVOUS_SECRET or _FILE, cuda_rdzv_secret.c)
// with HMAC-SHA256 (cuda_rdzv_hmac.c) over nonces both sides draw afresh for
// each connection (32 bytes from getrandom), and rank 0 proves it in its
// answer: the secret never crosses the wire, and a recorded exchange is of
// no use later, since the other side's nonce is new. The blob (NCCL's id,
// with which anyone could join the world) travels enciphered with a key
// stream that only holders of the secret can make.
//
// Messages ("|" joins; integers are little-endian u32; MAC(x) is
// HMAC-SHA256 keyed with the secret; each label ends with its NUL byte):
//   hello     K -> 0  "DDPRDZV2" | world W | rank K | blob length L |
//                     job length J | job (the launcher's job id, J <= 127) |
//                     NK (32 random bytes)
//   challenge 0 -> K  "DDPRDZV2" | N0 (32 random bytes)
//   proof     K -> 0  MAC("ddplab-rdzv2 rank" | hello | N0)
//   answer    0 -> K  "DDPRDZV2" | status | length n | payload | tag:
//     status 0 (ok)       payload: the blob XOR S, where S is
//                         MAC("ddplab-rdzv2 blob" | NK | N0 | i) for
//                         i = 0, 1, ...; tag: MAC("ddplab-rdzv2 root" | NK |
//                         N0 | n | payload)
//     status 1 (refused)  payload: rank 0's reason (<= 1024 bytes); no tag
// The proof covers the whole hello, so nobody in between can change what a
// rank said; the labels keep a MAC of one kind from passing for another.
// Rank 0 answers every rank only once all W-1 have proved themselves, so
// every rank returns after all have arrived.
//
// Rank 0 serves its connections at once, polling them all (no thread): a
// connection has 5 s from its accept to finish the hello and the proof, so
// an idle or slow one holds nobody else; at most 64 are at that stage, and
// when one more arrives the oldest is dropped (an honest rank takes
// milliseconds, and retries when dropped). Connections that say nothing, or
// nothing of ddplab's (a port scanner, a health check), are closed without
// a word. Rank 0 refuses, with its reason, a proof that does not match the
// secret, a hello of another world size, blob length or job, a rank outside
// 1 .. W-1, a second process for a rank already joined, and a hello of
// ddplab's protocol 1 (in protocol 1's form, so that an older ddplab says
// why): the refused process stops with rank 0's reason; rank 0 prints the
// refusal on stderr (the first 8), goes on waiting (a stray process must not
// stop a good world) and names the last refusal if it times out, when it
// also tells the ranks that have joined that it gave up. A joined rank whose
// connection closes before the answer is forgotten: it may join again.
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cuda_rdzv_hmac.h"     // defines: cuda_rdzv_hmac_*, cuda_rdzv_equal_ct
#include "cuda_rdzv_internal.h" // defines: cuda_rdzv_now, cuda_rdzv_sleep

#define MAGIC "DDPRDZV2"
#define MAGIC_V1 "DDPRDZV1" // protocol 1: no secret; refused in its own form
#define MAGIC_LEN 8
#define NONCE_LEN 32
#define MAC_LEN CUDA_RDZV_SHA256_LEN
#define JOB_MAX 127
#define HELLO_HEAD (MAGIC_LEN + 16) // magic, world, rank, blob length, job length
#define HELLO_MAX (HELLO_HEAD + JOB_MAX + NONCE_LEN)
#define CHALLENGE_LEN (MAGIC_LEN + NONCE_LEN)
#define ANSWER_HEAD (MAGIC_LEN + 8) // magic, status, length
#define REASON_MAX 1024
#define HANDSHAKE_S 5.0  // from accept to a checked proof, at most
#define PENDING_MAX 64   // connections in their handshake at once
#define LISTEN_MAX 8     // addresses rank 0 listens on
#define LISTEN_BACKLOG 128
#define WARN_MAX 8       // refusals rank 0 prints
#define LABEL_RANK "ddplab-rdzv2 rank"
#define LABEL_ROOT "ddplab-rdzv2 root"
#define LABEL_BLOB "ddplab-rdzv2 blob"

enum { IO_OK = 0, IO_ERROR = -1, IO_TIMEOUT = -2, IO_CLOSED = -3 };

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int set_nonblocking(int fd) {
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int ms_until(double deadline) {
    double left = deadline - cuda_rdzv_now();
    return left <= 0 ? 0 : left > 1.0 ? 1000 : (int)(left * 1000) + 1;
}

// Sends or receives exactly n bytes on a non-blocking socket before the
// deadline. IO_OK, IO_TIMEOUT, IO_CLOSED (the peer closed it) or IO_ERROR.
static int io_all(int fd, void *buf, size_t n, int sending, double deadline) {
    unsigned char *p = buf;
    size_t done = 0;
    while (done < n) {
        ssize_t k = sending ? send(fd, p + done, n - done, MSG_NOSIGNAL)
                            : recv(fd, p + done, n - done, 0);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k == 0 && !sending)
            return IO_CLOSED;
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return errno == EPIPE || errno == ECONNRESET ? IO_CLOSED : IO_ERROR;
        if (cuda_rdzv_now() >= deadline)
            return IO_TIMEOUT;
        struct pollfd pf = {fd, (short)(sending ? POLLOUT : POLLIN), 0};
        (void)poll(&pf, 1, ms_until(deadline));
    }
    return IO_OK;
}

// ----------------------------------------------------------------------------
// The MACs and the key stream

static void hmac_label(CudaRdzvHmac *m, const CudaRdzvIdentity *id, const char *label) {
    cuda_rdzv_hmac_init(m, id->secret, id->secret_len);
    cuda_rdzv_hmac_update(m, label, strlen(label) + 1);
}

static void rank_proof(const CudaRdzvIdentity *id, const unsigned char *hello, size_t hlen,
                       const unsigned char *n0, unsigned char mac[MAC_LEN]) {
    CudaRdzvHmac m;
    hmac_label(&m, id, LABEL_RANK);
    cuda_rdzv_hmac_update(&m, hello, hlen);
    cuda_rdzv_hmac_update(&m, n0, NONCE_LEN);
    cuda_rdzv_hmac_final(&m, mac);
}

static void root_tag(const CudaRdzvIdentity *id, const unsigned char *nk,
                     const unsigned char *n0, const unsigned char *payload, size_t n,
                     unsigned char mac[MAC_LEN]) {
    CudaRdzvHmac m;
    unsigned char len[4];
    put32(len, (uint32_t)n);
    hmac_label(&m, id, LABEL_ROOT);
    cuda_rdzv_hmac_update(&m, nk, NONCE_LEN);
    cuda_rdzv_hmac_update(&m, n0, NONCE_LEN);
    cuda_rdzv_hmac_update(&m, len, sizeof len);
    cuda_rdzv_hmac_update(&m, payload, n);
    cuda_rdzv_hmac_final(&m, mac);
}

// XORs data with the key stream of this connection: enciphers, deciphers.
static void key_stream(const CudaRdzvIdentity *id, const unsigned char *nk,
                       const unsigned char *n0, unsigned char *data, size_t n) {
    for (size_t at = 0, i = 0; at < n; at += MAC_LEN, i++) {
        CudaRdzvHmac m;
        unsigned char block[MAC_LEN], ctr[4];
        put32(ctr, (uint32_t)i);
        hmac_label(&m, id, LABEL_BLOB);
        cuda_rdzv_hmac_update(&m, nk, NONCE_LEN);
        cuda_rdzv_hmac_update(&m, n0, NONCE_LEN);
        cuda_rdzv_hmac_update(&m, ctr, sizeof ctr);
        cuda_rdzv_hmac_final(&m, block);
        for (size_t k = 0; k < MAC_LEN && at + k < n; k++)
            data[at + k] ^= block[k];
    }
}

// ----------------------------------------------------------------------------
// Rank 0: where it listens

typedef struct {
    int fd[LISTEN_MAX];
    int n;
    int loopback_only;  // every address is a loopback one
    char shown[256];    // "127.0.0.1:29500, [::1]:29500", for messages
} Listeners;

static int is_loopback(const struct sockaddr *sa) {
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

static int is_any(const struct sockaddr *sa) {
    if (sa->sa_family == AF_INET)
        return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
    return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

// "10.0.0.1:29500" or "[::1]:29500" into buf.
static const char *addr_text(const struct sockaddr *sa, socklen_t sl, char *buf, size_t n) {
    char host[64], serv[16]; // an IPv6 address with its scope fits (NI_MAXHOST is not POSIX)
    if (getnameinfo(sa, sl, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(buf, n, "(an address)");
    else
        snprintf(buf, n, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
    return buf;
}

// Why bind() failed with e, in the words a user can act on; from says
// where host came from.
static void bind_failure(int e, const char *host, const char *from, const struct sockaddr *sa,
                         socklen_t sl, int port, char *why, size_t n) {
    char a[80];
    addr_text(sa, sl, a, sizeof a);
    if (e == EADDRINUSE)
        snprintf(why, n, "port %d is already in use on this machine (another run, or "
                 "torchrun's own store?); allowed: a free port", port);
    else if (e == EADDRNOTAVAIL)
        snprintf(why, n, "cannot listen on %s: '%s' (%s) is not an address of this machine; "
                 "allowed: a name or address of rank 0's machine, or DDPLAB_RENDEZVOUS_BIND="
                 "0.0.0.0 (every interface)", a, host, from);
    else
        snprintf(why, n, "cannot listen on %s: %s", a, strerror(e));
}

// One listening socket on ai's address; the fd, or -1 with errno set.
static int listen_one(const struct addrinfo *ai) {
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0)
        return -1;
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    int one = 1, v6only = !is_any(ai->ai_addr); // :: is every interface, IPv4 too
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ai->ai_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, LISTEN_BACKLOG) != 0 ||
        set_nonblocking(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static void listeners_close(Listeners *l) {
    for (int i = 0; i < l->n; i++)
        close(l->fd[i]);
    l->n = 0;
}

static void listeners_note(Listeners *l, const struct addrinfo *ai) {
    char a[80];
    size_t at = strlen(l->shown);
    addr_text(ai->ai_addr, ai->ai_addrlen, a, sizeof a);
    if (at + strlen(a) + 8 < sizeof l->shown)
        snprintf(l->shown + at, sizeof l->shown - at, "%s%s", at ? ", " : "", a);
    l->loopback_only = l->loopback_only && is_loopback(ai->ai_addr);
}

// 1 when an address before ai in the list is ai's: /etc/hosts may name a
// host twice, and a second bind of one address would fail as "in use".
static int seen_before(const struct addrinfo *res, const struct addrinfo *ai) {
    for (const struct addrinfo *p = res; p != ai; p = p->ai_next)
        if (p->ai_addrlen == ai->ai_addrlen && memcmp(p->ai_addr, ai->ai_addr, ai->ai_addrlen) == 0)
            return 1;
    return 0;
}

// Listens on every address host resolves to; addresses of a family this
// kernel lacks, or not on this machine while another one is, are skipped.
// 0, or -1 with the reason in why.
static int listeners_open(Listeners *l, const char *host, const char *from, int port, char *why,
                          size_t n) {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    memset(l, 0, sizeof *l);
    l->loopback_only = 1;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char serv[16];
    snprintf(serv, sizeof serv, "%d", port);
    int gai = getaddrinfo(host, serv, &hints, &res);
    if (gai != 0) {
        snprintf(why, n, "cannot resolve '%s' to listen on: %s", host, gai_strerror(gai));
        return -1;
    }
    int first_error = 0;
    for (struct addrinfo *ai = res; ai && l->n < LISTEN_MAX; ai = ai->ai_next) {
        if (seen_before(res, ai))
            continue;
        int fd = listen_one(ai);
        if (fd >= 0) {
            l->fd[l->n++] = fd;
            listeners_note(l, ai);
            continue;
        }
        int e = errno;
        if (e == EADDRINUSE || (first_error == 0 && e != EAFNOSUPPORT)) {
            bind_failure(e, host, from, ai->ai_addr, ai->ai_addrlen, port, why, n);
            first_error = e;
        }
        if (e == EADDRINUSE)
            break;
    }
    freeaddrinfo(res);
    if (first_error == EADDRINUSE || l->n == 0) {
        if (first_error == 0)
            snprintf(why, n, "cannot listen on '%s': no address of a family this machine has",
                     host);
        listeners_close(l);
        return -1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// Rank 0: the connections

typedef enum { CONN_FREE = 0, CONN_HEAD, CONN_BODY, CONN_PROOF } ConnStage;

// A connection in its handshake.
typedef struct {
    int fd;
    ConnStage stage;
    int v1;                                  // said hello in protocol 1
    double expires;                          // the proof is due by then
    unsigned char in[HELLO_MAX + MAC_LEN];   // the hello, then the proof
    size_t have, want;                       // bytes of in received, and expected
    size_t hello_len;
    unsigned char n0[NONCE_LEN];
    char peer[80];                           // its address, for messages
} Conn;

// A rank that has proved itself, waiting for the answer.
typedef struct {
    int fd; // -1: not joined
    unsigned char nk[NONCE_LEN], n0[NONCE_LEN];
} Member;

typedef struct {
    const CudaRdzvIdentity *id;
    size_t len;          // of the blob
    char where[300];     // "tcp:HOST:PORT", for messages
    Listeners l;
    Conn conn[PENDING_MAX];
    Member *members;     // [world]; [0] unused
    int have;            // ranks joined, rank 0 included
    int warned;          // refusals printed
    char refused[600];   // the last refusal, for the timeout message
} Root;

static void conn_close(Conn *c) {
    if (c->stage != CONN_FREE)
        close(c->fd);
    c->stage = CONN_FREE;
}

// Sends rank 0's refusal in one non-blocking send: it is far smaller than
// any socket buffer, on a connection to which nothing else is unsent.
static void send_refusal(int fd, const char *magic, const char *reason) {
    unsigned char msg[ANSWER_HEAD + REASON_MAX];
    size_t n = strlen(reason) < REASON_MAX ? strlen(reason) : REASON_MAX;
    memcpy(msg, magic, MAGIC_LEN);
    put32(msg + MAGIC_LEN, 1);
    put32(msg + MAGIC_LEN + 4, (uint32_t)n);
    memcpy(msg + ANSWER_HEAD, reason, n);
    (void)send(fd, msg, ANSWER_HEAD + n, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)shutdown(fd, SHUT_WR);
}

// Refuses the connection with reason: tells it, keeps the reason for the
// timeout message, prints it (the first WARN_MAX).
static void refuse(Root *r, Conn *c, const char *reason) {
    uint32_t said = get32(c->in + MAGIC_LEN + 4);
    send_refusal(c->fd, c->v1 ? MAGIC_V1 : MAGIC, reason);
    snprintf(r->refused, sizeof r->refused, "%s", reason);
    if (r->warned < WARN_MAX)
        fprintf(stderr, "ddplab rendezvous: warning: %s: rank 0 refused the process at %s "
                "(rank %u): %s\n", r->where, c->peer, said, reason);
    else if (r->warned == WARN_MAX)
        fprintf(stderr, "ddplab rendezvous: warning: %s: rank 0 refuses further processes "
                "(not shown)\n", r->where);
    r->warned++;
    conn_close(c);
}

// Why rank 0 refuses this proved hello, or NULL.
static const char *refusal(const Root *r, const unsigned char *hello, char *buf, size_t n) {
    const CudaRdzvIdentity *id = r->id;
    uint32_t world = get32(hello + MAGIC_LEN), rank = get32(hello + MAGIC_LEN + 4);
    uint32_t blen = get32(hello + MAGIC_LEN + 8), joblen = get32(hello + MAGIC_LEN + 12);
    char job[JOB_MAX + 1];
    memcpy(job, hello + HELLO_HEAD, joblen);
    job[joblen] = '\0';
    if (world != (uint32_t)id->world_size)
        snprintf(buf, n, "rank 0 runs a world of %d processes and this one says %u (check "
                 "WORLD_SIZE and -n)", id->world_size, world);
    else if (rank == 0 || rank >= world)
        snprintf(buf, n, "rank %u is not one that rank 0 waits for (1 .. %d)%s", rank,
                 id->world_size - 1, rank == 0 ? ": two processes say they are rank 0" : "");
    else if (r->members[rank].fd >= 0)
        snprintf(buf, n, "rank %u has already connected: two processes say they are rank %u",
                 rank, rank);
    else if (blen != (uint32_t)r->len)
        snprintf(buf, n, "rank 0 sends %zu bytes and this process expects %u (another "
                 "program's rendezvous?)", r->len, blen);
    else if (strcmp(job, id->job) != 0)
        snprintf(buf, n, "rank 0 belongs to job '%s' and this process to job '%s'", id->job, job);
    else
        return NULL;
    return buf;
}

// The hello's head has arrived: what follows it, or -1 for a connection
// that is not a ddplab rank.
static int head_done(Conn *c) {
    c->v1 = memcmp(c->in, MAGIC_V1, MAGIC_LEN) == 0;
    uint32_t joblen = get32(c->in + MAGIC_LEN + 12);
    if ((!c->v1 && memcmp(c->in, MAGIC, MAGIC_LEN) != 0) || joblen > JOB_MAX)
        return -1;
    c->want = HELLO_HEAD + joblen + (c->v1 ? 0 : NONCE_LEN);
    c->stage = CONN_BODY;
    return 0;
}

// The whole hello has arrived: the challenge goes out (one non-blocking
// send, as in send_refusal). 0; 1 when refused (protocol 1); -1 to drop
// the connection.
static int body_done(Root *r, Conn *c) {
    if (c->v1) {
        refuse(r, c, "this process speaks ddplab's rendezvous protocol 1 and rank 0 protocol "
               "2, which needs the shared secret: every process needs the same ddplab");
        return 1;
    }
    unsigned char msg[CHALLENGE_LEN];
    if (cuda_rdzv_random_bytes(c->n0, NONCE_LEN) != 0)
        return -1;
    memcpy(msg, MAGIC, MAGIC_LEN);
    memcpy(msg + MAGIC_LEN, c->n0, NONCE_LEN);
    if (send(c->fd, msg, sizeof msg, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof msg)
        return -1;
    c->hello_len = c->have;
    c->want = c->have + MAC_LEN;
    c->stage = CONN_PROOF;
    return 0;
}

// The proof has arrived: the rank joins, or is refused.
static void proof_done(Root *r, Conn *c) {
    unsigned char mac[MAC_LEN];
    char why[512];
    rank_proof(r->id, c->in, c->hello_len, c->n0, mac);
    if (!cuda_rdzv_equal_ct(mac, c->in + c->hello_len, MAC_LEN)) {
        refuse(r, c, "its proof of the shared secret does not match rank 0's: every rank needs "
               "the same DDPLAB_RENDEZVOUS_SECRET (or DDPLAB_RENDEZVOUS_SECRET_FILE)");
        return;
    }
    const char *no = refusal(r, c->in, why, sizeof why);
    if (no) {
        refuse(r, c, no);
        return;
    }
    Member *m = &r->members[get32(c->in + MAGIC_LEN + 4)];
    m->fd = c->fd;
    memcpy(m->nk, c->in + c->hello_len - NONCE_LEN, NONCE_LEN);
    memcpy(m->n0, c->n0, NONCE_LEN);
    c->stage = CONN_FREE; // the fd is the member's now
    r->have++;
}

// A message of c is complete: 0 when more is to be read, else 1 (c has
// been closed, refused or has joined).
static int conn_advance(Root *r, Conn *c) {
    int rc;
    switch (c->stage) {
    case CONN_HEAD: rc = head_done(c); break;
    case CONN_BODY: rc = body_done(r, c); break;
    default: proof_done(r, c); return 1;
    }
    if (rc < 0)
        conn_close(c);
    return rc != 0;
}

// Reads what has arrived on c and moves it on when a message is complete.
static void conn_step(Root *r, Conn *c) {
    while (c->stage != CONN_FREE) {
        if (c->have == c->want) {
            if (conn_advance(r, c) != 0)
                return;
            continue;
        }
        ssize_t k = recv(c->fd, c->in + c->have, c->want - c->have, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (k <= 0) { // closed, or failed: nothing to say to it
            conn_close(c);
            return;
        }
        c->have += (size_t)k;
    }
}

// The slot for a new connection: a free one, else the oldest's (dropped).
static Conn *conn_slot(Root *r) {
    Conn *oldest = &r->conn[0];
    for (int i = 0; i < PENDING_MAX; i++) {
        if (r->conn[i].stage == CONN_FREE)
            return &r->conn[i];
        if (r->conn[i].expires < oldest->expires)
            oldest = &r->conn[i];
    }
    conn_close(oldest);
    return oldest;
}

static void accept_all(Root *r, int lfd, double deadline) {
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept(lfd, (struct sockaddr *)&ss, &sl);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                       errno == ENOMEM))
            cuda_rdzv_sleep(0.05); // out of descriptors: the listener stays readable
        if (fd < 0)
            return; // EAGAIN: no more waiting; anything else: the next poll sees
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        if (set_nonblocking(fd) != 0) {
            close(fd);
            continue;
        }
        Conn *c = conn_slot(r);
        memset(c, 0, sizeof *c);
        c->fd = fd;
        c->stage = CONN_HEAD;
        c->want = HELLO_HEAD;
        double by = cuda_rdzv_now() + HANDSHAKE_S;
        c->expires = by < deadline ? by : deadline;
        addr_text((struct sockaddr *)&ss, sl, c->peer, sizeof c->peer);
    }
}

// A joined rank's connection is readable: it closed (the process went
// away) or sent what it should not. Either way it is no longer joined.
static void member_gone(Root *r, int rank) {
    Member *m = &r->members[rank];
    unsigned char b;
    ssize_t k = recv(m->fd, &b, 1, MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    close(m->fd);
    m->fd = -1;
    r->have--;
}

// ----------------------------------------------------------------------------
// Rank 0: the loop

static void watch(struct pollfd *pf, int *who, int *n, int fd, int tag) {
    pf[*n] = (struct pollfd){fd, POLLIN, 0};
    who[(*n)++] = tag;
}

// One poll over the listeners (tag -1 - i), the handshakes (i) and the
// joined ranks (PENDING_MAX + rank), and what it found handled. pf and who
// have room for all of them.
static void serve_once(Root *r, struct pollfd *pf, int *who, double deadline) {
    int n = 0;
    double wake = deadline;
    for (int i = 0; i < r->l.n; i++)
        watch(pf, who, &n, r->l.fd[i], -1 - i);
    for (int i = 0; i < PENDING_MAX; i++)
        if (r->conn[i].stage != CONN_FREE) {
            watch(pf, who, &n, r->conn[i].fd, i);
            wake = r->conn[i].expires < wake ? r->conn[i].expires : wake;
        }
    for (int k = 1; k < r->id->world_size; k++)
        if (r->members[k].fd >= 0)
            watch(pf, who, &n, r->members[k].fd, PENDING_MAX + k);
    if (poll(pf, (nfds_t)n, ms_until(wake)) > 0)
        for (int i = 0; i < n; i++) {
            if (pf[i].revents == 0)
                continue;
            if (who[i] < 0)
                accept_all(r, r->l.fd[-1 - who[i]], deadline);
            else if (who[i] < PENDING_MAX)
                conn_step(r, &r->conn[who[i]]);
            else
                member_gone(r, who[i] - PENDING_MAX);
        }
    double now = cuda_rdzv_now();
    for (int i = 0; i < PENDING_MAX; i++) // the slow and the idle
        if (r->conn[i].stage != CONN_FREE && now >= r->conn[i].expires)
            conn_close(&r->conn[i]);
}

// The message of a rank 0 that waited in vain.
static void timeout_message(const Root *r, double timeout_s, char *err, size_t errlen) {
    int world = r->id->world_size;
    snprintf(err, errlen, "%s: rank 0 waited %g s and %d of %d ranks connected (missing:",
             r->where, timeout_s, r->have - 1, world - 1);
    size_t at = strlen(err);
    for (int k = 1, shown = 0; k < world && at < errlen; k++)
        if (r->members[k].fd < 0 && shown++ < 8)
            at += (size_t)snprintf(err + at, errlen - at, " %d", k);
    if (at < errlen)
        at += (size_t)snprintf(err + at, errlen - at, ")%s%s: are they running, with the same "
                               "--rendezvous and secret, and can they reach %s?",
                               r->refused[0] ? "; refused: " : "", r->refused, r->l.shown);
    if (at < errlen && r->l.loopback_only)
        snprintf(err + at, errlen - at, " (rank 0 listens on loopback only, which other "
                 "machines cannot reach; DDPLAB_RENDEZVOUS_BIND=0.0.0.0 listens on every "
                 "interface)");
}

// The ok answer to member m: the blob enciphered, with rank 0's tag.
static int send_blob(const Root *r, const Member *m, const void *blob, double deadline) {
    unsigned char msg[ANSWER_HEAD + CUDA_RDZV_MAX_BLOB + MAC_LEN];
    unsigned char *payload = msg + ANSWER_HEAD;
    memcpy(msg, MAGIC, MAGIC_LEN);
    put32(msg + MAGIC_LEN, 0);
    put32(msg + MAGIC_LEN + 4, (uint32_t)r->len);
    memcpy(payload, blob, r->len);
    key_stream(r->id, m->nk, m->n0, payload, r->len);
    root_tag(r->id, m->nk, m->n0, payload, r->len, payload + r->len);
    return io_all(m->fd, msg, ANSWER_HEAD + r->len + MAC_LEN, 1, deadline);
}

// Everyone has arrived (st == SIM_OK): the answers; else word that rank 0
// gave up, so that the joined ranks stop now rather than at their timeout.
static SimStatus answer_all(Root *r, const void *blob, SimStatus st, char *err, size_t errlen) {
    double answer_by = cuda_rdzv_now() + 30.0;
    for (int k = 1; k < r->id->world_size; k++) {
        Member *m = &r->members[k];
        if (m->fd < 0)
            continue;
        if (st != SIM_OK) {
            send_refusal(m->fd, MAGIC, "rank 0 gave up waiting for the other ranks (see its "
                         "message)");
        } else if (send_blob(r, m, blob, answer_by) != IO_OK) {
            snprintf(err, errlen, "%s: rank %d went away before rank 0 could answer it",
                     r->where, k);
            st = SIM_EIO;
        }
        close(m->fd);
        m->fd = -1;
    }
    return st;
}

// Refuses a loopback-only listener when the launcher says that some ranks
// are on other machines.
static SimStatus check_reach(const Root *r, const char *host, char *err, size_t errlen) {
    const CudaRdzvIdentity *id = r->id;
    if (!r->l.loopback_only || id->local_world_size < 1 ||
        id->local_world_size >= id->world_size)
        return SIM_OK;
    snprintf(err, errlen, "%s: rank 0 would listen on %s only ('%s' resolves to loopback on "
             "this machine; /etc/hosts often maps the machine's own name to 127.0.1.1), but %s "
             "runs %d of the %d ranks on other machines, which cannot reach it; allowed: a host "
             "the other machines reach rank 0 by (MASTER_ADDR for env), or "
             "DDPLAB_RENDEZVOUS_BIND=0.0.0.0 (every interface)", r->where, r->l.shown, host,
             id->launcher[0] ? id->launcher : "the launcher",
             id->world_size - id->local_world_size, id->world_size);
    return SIM_EINVAL;
}

static Root *root_new(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, size_t len) {
    Root *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->members = malloc((size_t)id->world_size * sizeof *r->members);
    if (r->members == NULL) {
        free(r);
        return NULL;
    }
    for (int k = 0; k < id->world_size; k++)
        r->members[k].fd = -1;
    r->id = id;
    r->len = len;
    r->have = 1;
    cuda_rdzv_describe(s, r->where, sizeof r->where);
    return r;
}

static void root_free(Root *r) {
    for (int i = 0; i < PENDING_MAX; i++)
        conn_close(&r->conn[i]);
    listeners_close(&r->l);
    free(r->members);
    free(r);
}

static SimStatus root_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, const void *blob,
                            size_t len, double timeout_s, char *err, size_t errlen) {
    Root *r = root_new(s, id, len);
    int world = id->world_size, nfds = LISTEN_MAX + PENDING_MAX + world;
    struct pollfd *pf = r ? malloc((size_t)nfds * sizeof *pf) : NULL;
    int *who = pf ? malloc((size_t)nfds * sizeof *who) : NULL;
    const char *host = id->bind[0] ? id->bind : s->host;
    const char *from = id->bind[0] ? "DDPLAB_RENDEZVOUS_BIND"
                                   : "the rendezvous's host, where rank 0 listens";
    char why[768];
    SimStatus st = SIM_OK;
    if (who == NULL) {
        snprintf(err, errlen, "rendezvous: out of memory for a world of %d", world);
        st = SIM_ENOMEM;
    } else if (listeners_open(&r->l, host, from, s->port, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: rank 0 %s", r->where, why);
        st = SIM_EIO;
    } else {
        st = check_reach(r, host, err, errlen);
    }
    double deadline = cuda_rdzv_now() + timeout_s;
    while (st == SIM_OK && r->have < world) {
        if (cuda_rdzv_now() > deadline) {
            timeout_message(r, timeout_s, err, errlen);
            st = SIM_ETIMEDOUT;
            break;
        }
        serve_once(r, pf, who, deadline);
    }
    if (r) {
        listeners_close(&r->l); // nobody more is let in while the answers go out
        st = answer_all(r, blob, st, err, errlen);
        root_free(r);
    }
    free(pf);
    free(who);
    return st;
}

// ----------------------------------------------------------------------------
// The other ranks

// A connected non-blocking socket to one of HOST's addresses, or -1 with the
// last failure in why.
static int connect_once(const CudaRdzvSpec *s, double deadline, char *why, size_t whylen) {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    char port[16];
    snprintf(port, sizeof port, "%d", s->port);
    int gai = getaddrinfo(s->host, port, &hints, &res);
    if (gai != 0) {
        snprintf(why, whylen, "cannot resolve '%s': %s", s->host, gai_strerror(gai));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) {
            snprintf(why, whylen, "cannot open a socket: %s", strerror(errno));
            continue;
        }
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        int e = set_nonblocking(fd) != 0 ? errno : 0;
        if (e == 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            e = errno;
            if (e == EINPROGRESS) {
                double by = cuda_rdzv_now() + 2.0;
                struct pollfd pf = {fd, POLLOUT, 0};
                int ready = poll(&pf, 1, ms_until(by < deadline ? by : deadline));
                socklen_t sl = sizeof e;
                if (ready <= 0)
                    e = ETIMEDOUT;
                else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) != 0)
                    e = errno;
            }
        }
        if (e != 0) {
            snprintf(why, whylen, "%s", strerror(e));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

// The hello of this rank, with a fresh nonce in nk; its length, or 0 when
// no random bytes could be had.
static size_t make_hello(const CudaRdzvIdentity *id, size_t len, unsigned char *hello,
                         unsigned char *nk) {
    size_t joblen = strlen(id->job);
    if (joblen > JOB_MAX || cuda_rdzv_random_bytes(nk, NONCE_LEN) != 0)
        return 0;
    memcpy(hello, MAGIC, MAGIC_LEN);
    put32(hello + MAGIC_LEN, (uint32_t)id->world_size);
    put32(hello + MAGIC_LEN + 4, (uint32_t)id->rank);
    put32(hello + MAGIC_LEN + 8, (uint32_t)len);
    put32(hello + MAGIC_LEN + 12, (uint32_t)joblen);
    memcpy(hello + HELLO_HEAD, id->job, joblen);
    memcpy(hello + HELLO_HEAD + joblen, nk, NONCE_LEN);
    return HELLO_HEAD + joblen + NONCE_LEN;
}

typedef struct {
    const CudaRdzvSpec *s;
    const CudaRdzvIdentity *id;
    char where[300];
    void *blob;
    size_t len;
    double deadline;
} Peer;

// Reads the answer whose head has arrived. IO_OK with *st the outcome, or
// the IO_* failure of the connection (the caller tries again).
static int read_answer(const Peer *p, int fd, const unsigned char *head, const unsigned char *nk,
                       const unsigned char *n0, SimStatus *st, char *err, size_t errlen) {
    uint32_t status = get32(head + MAGIC_LEN), n = get32(head + MAGIC_LEN + 4);
    if (status == 1 && n <= REASON_MAX) {
        char reason[REASON_MAX + 1];
        int rc = io_all(fd, reason, n, 0, p->deadline);
        reason[rc == IO_OK ? n : 0] = '\0';
        snprintf(err, errlen, "%s: rank 0 refused rank %d: %s", p->where, p->id->rank, reason);
        *st = SIM_EINVAL;
        return IO_OK;
    }
    unsigned char body[CUDA_RDZV_MAX_BLOB + MAC_LEN], tag[MAC_LEN];
    if (status != 0 || n != p->len) {
        snprintf(err, errlen, "%s: rank %d: what answers there is not ddplab's rank 0",
                 p->where, p->id->rank);
        *st = SIM_EINVAL;
        return IO_OK;
    }
    int rc = io_all(fd, body, n + MAC_LEN, 0, p->deadline);
    if (rc != IO_OK)
        return rc;
    root_tag(p->id, nk, n0, body, n, tag);
    if (!cuda_rdzv_equal_ct(tag, body + n, MAC_LEN)) {
        snprintf(err, errlen, "%s: rank %d: the answer does not prove the shared secret: what "
                 "answers there is not rank 0 of this job", p->where, p->id->rank);
        *st = SIM_EINVAL;
        return IO_OK;
    }
    key_stream(p->id, nk, n0, body, n);
    memcpy(p->blob, body, n);
    *st = SIM_OK;
    return IO_OK;
}

// The whole exchange on a connected socket. IO_OK with *st the outcome
// (SIM_OK: the blob is in; else err says why), or the IO_* failure of the
// connection (the caller tries again).
static int exchange(const Peer *p, int fd, SimStatus *st, char *err, size_t errlen) {
    unsigned char hello[HELLO_MAX + MAC_LEN], nk[NONCE_LEN], chal[CHALLENGE_LEN];
    unsigned char head[ANSWER_HEAD];
    size_t hlen = make_hello(p->id, p->len, hello, nk);
    if (hlen == 0) {
        snprintf(err, errlen, "%s: rank %d cannot draw random bytes: %s", p->where, p->id->rank,
                 strerror(errno));
        *st = SIM_EIO;
        return IO_OK;
    }
    int rc = io_all(fd, hello, hlen, 1, p->deadline);
    if (rc == IO_OK)
        rc = io_all(fd, chal, sizeof chal, 0, p->deadline);
    if (rc != IO_OK)
        return rc;
    if (memcmp(chal, MAGIC, MAGIC_LEN) != 0) {
        snprintf(err, errlen, "%s: rank %d: what answers there is not ddplab's rank 0", p->where,
                 p->id->rank);
        *st = SIM_EINVAL;
        return IO_OK;
    }
    rank_proof(p->id, hello, hlen, chal + MAGIC_LEN, hello + hlen); // the proof follows
    rc = io_all(fd, hello + hlen, MAC_LEN, 1, p->deadline);
    if (rc == IO_OK)
        rc = io_all(fd, head, sizeof head, 0, p->deadline);
    if (rc == IO_OK && memcmp(head, MAGIC, MAGIC_LEN) != 0) {
        snprintf(err, errlen, "%s: rank %d: what answers there is not ddplab's rank 0", p->where,
                 p->id->rank);
        *st = SIM_EINVAL;
        return IO_OK;
    }
    return rc == IO_OK ? read_answer(p, fd, head, nk, chal + MAGIC_LEN, st, err, errlen) : rc;
}

static SimStatus peer_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                            size_t len, double timeout_s, char *err, size_t errlen) {
    Peer p = {s, id, "", blob, len, cuda_rdzv_now() + timeout_s};
    char last[512] = "no attempt";
    cuda_rdzv_describe(s, p.where, sizeof p.where);
    double nap = 0.1;
    while (cuda_rdzv_now() < p.deadline) {
        int fd = connect_once(s, p.deadline, last, sizeof last);
        if (fd >= 0) {
            SimStatus st = SIM_OK;
            int rc = exchange(&p, fd, &st, err, errlen);
            close(fd);
            if (rc == IO_OK)
                return st;
            snprintf(last, sizeof last, "%s", rc == IO_TIMEOUT ? "connected, but rank 0 did not "
                     "answer (it waits for every rank)" : "rank 0 closed the connection (as one "
                     "of another ddplab version does)");
        }
        double left = p.deadline - cuda_rdzv_now();
        cuda_rdzv_sleep(nap < left ? nap : left);
        nap = nap < 0.5 ? nap * 2 : 1.0;
    }
    snprintf(err, errlen, "%s: rank %d waited %g s for rank 0 (last: %s): is rank 0 running, "
             "with the same --rendezvous, and can this machine reach %s at port %d?", p.where,
             id->rank, timeout_s, last, s->host, s->port);
    return SIM_ETIMEDOUT;
}

// ----------------------------------------------------------------------------

SimStatus cuda_rdzv_tcp_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                              size_t len, double timeout_s, char *err, size_t errlen) {
    char where[300];
    SIM_CHECK(cuda_rdzv_need_secret(cuda_rdzv_describe(s, where, sizeof where), id, err,
                                    errlen));
    return id->rank == 0 ? root_bcast(s, id, blob, len, timeout_s, err, errlen)
                         : peer_bcast(s, id, blob, len, timeout_s, err, errlen);
}
