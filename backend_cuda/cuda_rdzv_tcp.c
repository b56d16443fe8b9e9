// backend_cuda/cuda_rdzv_tcp.c: the blob exchange over TCP
// (`--rendezvous tcp:HOST:PORT`, and `env` once resolved).
//
// Rank 0 listens on PORT (every address of its machine, of the family HOST
// resolves to; SO_REUSEADDR, so a port in TIME_WAIT from an earlier run is
// taken, while a port that another program listens on is refused with
// "in use"). Every other rank connects to HOST:PORT, retrying (every 0.1 s
// growing to 1 s) until the timeout: rank 0 may start later than it. A
// connected rank sends its hello; rank 0 answers every rank only once all
// W-1 have said hello, so every rank returns after all have arrived.
//
// Messages (integers little-endian u32):
//   hello  rank K -> 0:  "DDPRDZV1", world W, rank K, blob length, job
//                        length, job bytes (the launcher's job id, <= 127)
//   answer 0 -> rank K:  "DDPRDZV1", status (0 ok, 1 refused), length,
//                        then the blob (ok) or rank 0's reason (refused)
// Rank 0 refuses a hello of another world size, blob length or job, a rank
// outside 1 .. W-1, and a second process with a rank already connected: the
// refused process stops with rank 0's reason, rank 0 goes on waiting (a
// stray process must not stop a good world) and names the refusal if it
// times out. A connection that sends no valid hello within 5 s is dropped
// (a port scanner, a health check).
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

#include "cuda_rdzv_internal.h" // defines: cuda_rdzv_now, cuda_rdzv_sleep

#define MAGIC "DDPRDZV1"
#define MAGIC_LEN 8
#define HELLO_FIXED (MAGIC_LEN + 16) // magic, world, rank, blob length, job length
#define ANSWER_FIXED (MAGIC_LEN + 8) // magic, status, length
#define HELLO_WAIT_S 5.0             // a connection must say hello within this

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

static int send_answer(int fd, uint32_t status, const void *data, size_t len, double deadline) {
    unsigned char head[ANSWER_FIXED];
    memcpy(head, MAGIC, MAGIC_LEN);
    put32(head + MAGIC_LEN, status);
    put32(head + MAGIC_LEN + 4, (uint32_t)len);
    int rc = io_all(fd, head, sizeof head, 1, deadline);
    return rc == IO_OK && len > 0 ? io_all(fd, (void *)data, len, 1, deadline) : rc;
}

// ----------------------------------------------------------------------------
// Rank 0

// The listening socket on PORT, or -1 with the reason in why.
static int listen_on(const CudaRdzvSpec *s, int backlog, char *why, size_t whylen) {
    int family = AF_INET;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(s->host, NULL, &hints, &res) == 0 && res != NULL)
        family = res->ai_family == AF_INET6 ? AF_INET6 : AF_INET;
    if (res)
        freeaddrinfo(res);
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd < 0 && family == AF_INET6) { // a kernel without IPv6
        family = AF_INET;
        fd = socket(family, SOCK_STREAM, 0);
    }
    if (fd < 0) {
        snprintf(why, whylen, "cannot open a socket: %s", strerror(errno));
        return -1;
    }
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    int one = 1, zero = 0;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    if (family == AF_INET6) {
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); // IPv4 too
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        a->sin6_port = htons((uint16_t)s->port);
        sl = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_ANY);
        a->sin_port = htons((uint16_t)s->port);
        sl = sizeof *a;
    }
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0) {
        int e = errno;
        if (e == EADDRINUSE)
            snprintf(why, whylen, "port %d is already in use on this machine (another run, or "
                     "torchrun's own store?); allowed: a free port", s->port);
        else
            snprintf(why, whylen, "cannot listen on port %d: %s", s->port, strerror(e));
        close(fd);
        return -1;
    }
    if (listen(fd, backlog) != 0 || set_nonblocking(fd) != 0) {
        snprintf(why, whylen, "cannot listen on port %d: %s", s->port, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

// Reads a hello. 0 with its fields, or -1 when the connection is not a
// ddplab rank (nothing, or something else, within HELLO_WAIT_S).
static int read_hello(int fd, double deadline, uint32_t f[4], char job[128]) {
    unsigned char head[HELLO_FIXED];
    if (io_all(fd, head, sizeof head, 0, deadline) != IO_OK || memcmp(head, MAGIC, MAGIC_LEN))
        return -1;
    for (int i = 0; i < 4; i++)
        f[i] = get32(head + MAGIC_LEN + 4 * i);
    if (f[3] > 127 || io_all(fd, job, f[3], 0, deadline) != IO_OK)
        return -1;
    job[f[3]] = '\0';
    return 0;
}

// Why rank 0 refuses this hello, or NULL.
static const char *refusal(const CudaRdzvIdentity *id, size_t len, const int *fds,
                           const uint32_t f[4], const char *job, char *buf, size_t n) {
    uint32_t world = f[0], rank = f[1], blen = f[2];
    if (world != (uint32_t)id->world_size)
        snprintf(buf, n, "rank 0 runs a world of %d processes and this one says %u (check "
                 "WORLD_SIZE and -n)", id->world_size, world);
    else if (rank == 0 || rank >= world)
        snprintf(buf, n, "rank %u is not one that rank 0 waits for (1 .. %d)%s", rank,
                 id->world_size - 1, rank == 0 ? ": two processes say they are rank 0" : "");
    else if (fds[rank] >= 0)
        snprintf(buf, n, "rank %u has already connected: two processes say they are rank %u",
                 rank, rank);
    else if (blen != (uint32_t)len)
        snprintf(buf, n, "rank 0 sends %zu bytes and this process expects %u (another "
                 "program's rendezvous?)", len, blen);
    else if (strcmp(job, id->job) != 0)
        snprintf(buf, n, "rank 0 belongs to job '%s' and this process to job '%s'", id->job, job);
    else
        return NULL;
    return buf;
}

static SimStatus root_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, const void *blob,
                            size_t len, double timeout_s, char *err, size_t errlen) {
    char where[300], why[512], refused[512] = "";
    cuda_rdzv_describe(s, where, sizeof where);
    int world = id->world_size;
    int lfd = listen_on(s, world < 1024 ? world : 1024, why, sizeof why);
    if (lfd < 0) {
        snprintf(err, errlen, "%s: rank 0 %s", where, why);
        return SIM_EIO;
    }
    int *fds = malloc((size_t)world * sizeof *fds);
    if (fds == NULL) {
        close(lfd);
        return SIM_ENOMEM;
    }
    for (int r = 0; r < world; r++)
        fds[r] = -1;
    int have = 1;
    double deadline = cuda_rdzv_now() + timeout_s;
    SimStatus st = SIM_OK;
    while (have < world) {
        if (cuda_rdzv_now() > deadline) {
            snprintf(err, errlen, "%s: rank 0 waited %g s and %d of %d ranks connected "
                     "(missing:", where, timeout_s, have - 1, world - 1);
            size_t at = strlen(err);
            for (int r = 1, shown = 0; r < world && at < errlen; r++)
                if (fds[r] < 0 && shown++ < 8)
                    at += (size_t)snprintf(err + at, errlen - at, " %d", r);
            if (at < errlen)
                snprintf(err + at, errlen - at, ")%s%s: are they running, with the same "
                         "--rendezvous, and can they reach this machine at port %d?",
                         refused[0] ? "; refused: " : "", refused, s->port);
            st = SIM_ETIMEDOUT;
            break;
        }
        struct pollfd pf = {lfd, POLLIN, 0};
        if (poll(&pf, 1, ms_until(deadline)) <= 0)
            continue;
        int cfd = accept(lfd, NULL, NULL);
        if (cfd < 0)
            continue;
        (void)fcntl(cfd, F_SETFD, FD_CLOEXEC);
        uint32_t f[4];
        char job[128];
        double hello_by = cuda_rdzv_now() + HELLO_WAIT_S;
        if (set_nonblocking(cfd) != 0 ||
            read_hello(cfd, hello_by < deadline ? hello_by : deadline, f, job) != 0) {
            close(cfd);
            continue;
        }
        const char *no = refusal(id, len, fds, f, job, why, sizeof why);
        if (no) {
            (void)send_answer(cfd, 1, no, strlen(no), cuda_rdzv_now() + 2.0);
            snprintf(refused, sizeof refused, "%s", no);
            close(cfd);
            continue;
        }
        fds[f[1]] = cfd;
        have++;
    }
    close(lfd);
    // Everyone has arrived: the answers.
    double answer_by = cuda_rdzv_now() + 30.0;
    for (int r = 1; r < world; r++) {
        if (fds[r] < 0)
            continue;
        if (st == SIM_OK && send_answer(fds[r], 0, blob, len, answer_by) != IO_OK) {
            snprintf(err, errlen, "%s: rank %d went away before rank 0 could answer it", where, r);
            st = SIM_EIO;
        }
        close(fds[r]);
    }
    free(fds);
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

// Sends the hello and reads the answer on a connected socket. IO_OK with
// *st the outcome (SIM_OK: the blob is in; else err says why), or the
// IO_* failure of the connection (the caller tries again).
static int exchange(int fd, const CudaRdzvIdentity *id, const unsigned char *hello, size_t hlen,
                    void *blob, size_t len, double deadline, SimStatus *st, const char *where,
                    char *err, size_t errlen) {
    unsigned char head[ANSWER_FIXED];
    int rc = io_all(fd, (void *)hello, hlen, 1, deadline);
    if (rc == IO_OK)
        rc = io_all(fd, head, sizeof head, 0, deadline);
    if (rc != IO_OK)
        return rc;
    uint32_t status = get32(head + MAGIC_LEN), n = get32(head + MAGIC_LEN + 4);
    int magic = memcmp(head, MAGIC, MAGIC_LEN) == 0;
    if (!(magic && status == 0 && n == len) && !(magic && status == 1 && n <= 1024)) {
        snprintf(err, errlen, "%s: rank %d: what answers there is not ddplab's rank 0", where,
                 id->rank);
        *st = SIM_EINVAL;
        return IO_OK;
    }
    if (status == 0) {
        rc = io_all(fd, blob, n, 0, deadline);
        *st = SIM_OK;
        return rc;
    }
    char reason[1025];
    rc = io_all(fd, reason, n, 0, deadline);
    if (rc == IO_OK) {
        reason[n] = '\0';
        snprintf(err, errlen, "%s: rank 0 refused rank %d: %s", where, id->rank, reason);
        *st = SIM_EINVAL;
    }
    return rc;
}

static SimStatus peer_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                            size_t len, double timeout_s, char *err, size_t errlen) {
    char where[300], last[512] = "no attempt";
    cuda_rdzv_describe(s, where, sizeof where);
    size_t joblen = strlen(id->job);
    unsigned char hello[HELLO_FIXED + 128];
    memcpy(hello, MAGIC, MAGIC_LEN);
    put32(hello + MAGIC_LEN, (uint32_t)id->world_size);
    put32(hello + MAGIC_LEN + 4, (uint32_t)id->rank);
    put32(hello + MAGIC_LEN + 8, (uint32_t)len);
    put32(hello + MAGIC_LEN + 12, (uint32_t)joblen);
    memcpy(hello + HELLO_FIXED, id->job, joblen);
    double deadline = cuda_rdzv_now() + timeout_s, nap = 0.1;
    while (cuda_rdzv_now() < deadline) {
        int fd = connect_once(s, deadline, last, sizeof last);
        if (fd >= 0) {
            SimStatus st = SIM_OK;
            int rc = exchange(fd, id, hello, HELLO_FIXED + joblen, blob, len, deadline, &st,
                              where, err, errlen);
            close(fd);
            if (rc == IO_OK)
                return st;
            snprintf(last, sizeof last, "%s", rc == IO_TIMEOUT ? "connected, but rank 0 did not "
                     "answer (it waits for every rank)" : "rank 0 closed the connection");
        }
        cuda_rdzv_sleep(nap < deadline - cuda_rdzv_now() ? nap : deadline - cuda_rdzv_now());
        nap = nap < 0.5 ? nap * 2 : 1.0;
    }
    snprintf(err, errlen, "%s: rank %d waited %g s for rank 0 (last: %s): is rank 0 running, "
             "with the same --rendezvous, and can this machine reach %s at port %d?", where,
             id->rank, timeout_s, last, s->host, s->port);
    return SIM_ETIMEDOUT;
}

// ----------------------------------------------------------------------------

SimStatus cuda_rdzv_tcp_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                              size_t len, double timeout_s, char *err, size_t errlen) {
    return id->rank == 0 ? root_bcast(s, id, blob, len, timeout_s, err, errlen)
                         : peer_bcast(s, id, blob, len, timeout_s, err, errlen);
}
