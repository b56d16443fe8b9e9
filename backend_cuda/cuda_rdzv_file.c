// backend_cuda/cuda_rdzv_file.c: the blob exchange through files on a
// filesystem every rank sees (`--rendezvous file:PATH`).
//
// The hazard of a file rendezvous is a file left by an earlier run (one that
// crashed, or ran with the same PATH): a rank that starts before this run's
// rank 0 would read it and give NCCL the id of a world that no longer
// exists. A header with the world size and the launcher's job id (when it
// has one) rejects most stale files; the handshake below rejects the rest,
// because a rank takes the blob only when rank 0 has answered a random
// challenge that the rank made after it started.
//
// Files (every one written atomically: a temporary in the same directory,
// fsync, rename, then an fsync of the directory; each is plain text):
//   PATH      rank 0:  "ddplab-rendezvous 1", world W, nonce N, job J,
//                      blob LEN HEX
//   PATH.rK   rank K:  "ddplab-rendezvous-ack 1", world W, rank K,
//                      nonce N (of the PATH it read), challenge C_K
//   PATH.go   rank 0:  "ddplab-rendezvous-go 1", world W, nonce N, then
//                      C_1 .. C_{W-1}, one a line, in rank order
// Rank 0:
//   1. draws a fresh random nonce N; removes PATH.go, PATH and PATH.r1 ..
//      PATH.r{W-1} (all from earlier runs: no rank can have acknowledged
//      this run's PATH before it exists);
//   2. writes PATH;
//   3. polls until every PATH.rK holds world W, rank K and nonce N, and
//      keeps each C_K (acknowledgements of another nonce are stale: their
//      rank will acknowledge again once it reads the new PATH);
//   4. writes PATH.go with N and every C_K, and returns.
// Rank K > 0:
//   1. draws a fresh random challenge C_K;
//   2. polls PATH until it holds world W and the same job id; whenever its
//      nonce differs from the one last acknowledged, writes PATH.rK with
//      that nonce and C_K;
//   3. returns PATH's blob once PATH.go holds world W, PATH's nonce and C_K
//      on line K. A PATH.go of an earlier run cannot hold C_K: C_K did not
//      exist before this process started.
// Either side gives up after the timeout with a message that names the file
// and what it saw (no file, a file of another world or job, no
// confirmation; rank 0: the ranks that never acknowledged).
// After NCCL's init, which needs every rank, rank 0 removes all these
// files (cuda_rdzv_file_finish): no rank reads them any more.
//
// Polling starts every 5 ms and slows to every 100 ms: a rank that waits a
// minute reads the file about 600 times, which a shared filesystem bears.
//
// The files are created 0600 (less under the umask) and read only when they
// are regular files of this process's user, opened without following a
// symbolic link: PATH holds NCCL's id, with which anyone could join the
// world, and PATH.rK the challenges, with which another user sharing the
// directory could forge a PATH.go for a PATH of their own. Temporaries are
// created O_EXCL under a random name, so nothing planted at their name is
// written through.
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_rdzv_internal.h" // defines: cuda_rdzv_now, cuda_rdzv_random, ...

#define MAGIC_ID "ddplab-rendezvous 1"
#define MAGIC_ACK "ddplab-rendezvous-ack 1"
#define MAGIC_GO "ddplab-rendezvous-go 1"
#define MAX_FILE (8u << 20) // bytes read of any of the files at most
#define PATH_CAP 1100        // spec path (< 960, cuda_rdzv_parse) + a suffix

// ----------------------------------------------------------------------------
// Files

static void path_with(char *out, const char *base, const char *suffix) {
    snprintf(out, PATH_CAP, "%s%s", base, suffix);
}

static void ack_path(char *out, const char *base, int rank) {
    char suffix[24];
    snprintf(suffix, sizeof suffix, ".r%d", rank);
    path_with(out, base, suffix);
}

// Makes a rename in the file's directory durable (best effort: some
// filesystems refuse fsync on a directory).
static void sync_dir(const char *path) {
    char dir[PATH_CAP];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        slash[1] = '\0';
    else
        *slash = '\0';
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

// Writes data to path atomically. 0, or -1 with the reason in why.
static int write_atomic(const char *path, const char *data, size_t n, char *why, size_t whylen) {
    char tmp[PATH_CAP + 48];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%016" PRIx64, path, (long)getpid(), cuda_rdzv_random());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        snprintf(why, whylen, "cannot create '%s': %s", tmp, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, data + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            snprintf(why, whylen, "cannot write '%s': %s", tmp, k < 0 ? strerror(errno) : "no space");
            close(fd);
            unlink(tmp);
            return -1;
        }
        done += (size_t)k;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        snprintf(why, whylen, "cannot write '%s': %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(why, whylen, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    sync_dir(path);
    return 0;
}

// Whether an opened file is one of ours: NULL when it is (its size in
// *size), else why not.
static const char *not_ours(int fd, size_t *size, char *buf, size_t n) {
    struct stat st;
    if (fstat(fd, &st) != 0)
        snprintf(buf, n, "cannot be examined: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(buf, n, "is not a regular file (not taken)");
    else if (st.st_uid != geteuid())
        snprintf(buf, n, "belongs to another user (uid %ld; this process runs as uid %ld), so "
                 "it is not taken", (long)st.st_uid, (long)geteuid());
    else if (st.st_size < 0 || (uint64_t)st.st_size >= MAX_FILE)
        snprintf(buf, n, "is too large to be a rendezvous file");
    else {
        *size = (size_t)st.st_size;
        return NULL;
    }
    return buf;
}

// The whole file, NUL-terminated, in a malloc'ed buffer; NULL when it does
// not exist, is not a regular file of this user (a symbolic link included),
// cannot be read or is larger than MAX_FILE, with why it was not read in why
// when why is not NULL. O_NONBLOCK: a FIFO planted at the name must not hold
// the rank in open().
static char *read_all(const char *path, char *why, size_t whylen) {
    char reason[160];
    if (why == NULL) {
        why = reason;
        whylen = sizeof reason;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, whylen, "%s", errno == ENOENT ? "does not exist"
                                    : errno == ELOOP ? "is a symbolic link (not taken)"
                                                     : "cannot be opened");
        return NULL;
    }
    char *buf = NULL;
    size_t size = 0;
    if (not_ours(fd, &size, why, whylen) == NULL) {
        size_t cap = size + 1, n = 0;
        buf = malloc(cap);
        while (buf && n + 1 < cap) {
            ssize_t k = read(fd, buf + n, cap - 1 - n);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            n += (size_t)k;
        }
        if (buf)
            buf[n] = '\0';
    }
    close(fd);
    return buf;
}

// ----------------------------------------------------------------------------
// Parsing the files: one "key value" per line, in a fixed order

typedef struct {
    char *p; // next line
} Lines;

// The next line, NUL-terminated in place (the '\n' replaced), or NULL.
static char *next_line(Lines *l) {
    if (l->p == NULL || *l->p == '\0')
        return NULL;
    char *line = l->p, *nl = strchr(line, '\n');
    if (nl == NULL)
        return NULL; // every line of ours ends with '\n': a cut file
    *nl = '\0';
    l->p = nl + 1;
    return line;
}

// The value after "key " on the next line, or NULL.
static char *next_value(Lines *l, const char *key) {
    char *line = next_line(l);
    size_t k = strlen(key);
    if (line == NULL || strncmp(line, key, k) != 0 || line[k] != ' ')
        return NULL;
    return line + k + 1;
}

static int parse_u64(const char *s, int base, uint64_t *out) {
    if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

typedef struct {
    uint64_t world, nonce;
    char job[128];
    size_t len;
    unsigned char blob[CUDA_RDZV_MAX_BLOB];
} IdFile;

// 0 when text is an id file (any world, job or nonce), else -1.
static int parse_id(char *text, IdFile *f) {
    Lines l = {text};
    char *line = next_line(&l), *v;
    uint64_t len = 0;
    if (line == NULL || strcmp(line, MAGIC_ID) != 0 ||
        parse_u64(next_value(&l, "world"), 10, &f->world) != 0 ||
        parse_u64(next_value(&l, "nonce"), 16, &f->nonce) != 0 ||
        (v = next_value(&l, "job")) == NULL || strlen(v) >= sizeof f->job)
        return -1;
    snprintf(f->job, sizeof f->job, "%s", strcmp(v, "-") == 0 ? "" : v);
    v = next_value(&l, "blob");
    char *sp = v ? strchr(v, ' ') : NULL;
    if (sp == NULL)
        return -1;
    *sp = '\0';
    if (parse_u64(v, 10, &len) != 0 || len == 0 || len > CUDA_RDZV_MAX_BLOB ||
        strlen(sp + 1) != 2 * len)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int hi = hexval(sp[1 + 2 * i]), lo = hexval(sp[2 + 2 * i]);
        if (hi < 0 || lo < 0)
            return -1;
        f->blob[i] = (unsigned char)(hi << 4 | lo);
    }
    f->len = (size_t)len;
    return next_line(&l) == NULL ? 0 : -1;
}

// 0 when the ack file holds world, rank and nonce as given; its challenge in *c.
static int parse_ack(char *text, uint64_t world, int rank, uint64_t nonce, uint64_t *c) {
    Lines l = {text};
    char *line = next_line(&l);
    uint64_t w = 0, r = 0, n = 0;
    if (line == NULL || strcmp(line, MAGIC_ACK) != 0 ||
        parse_u64(next_value(&l, "world"), 10, &w) != 0 ||
        parse_u64(next_value(&l, "rank"), 10, &r) != 0 ||
        parse_u64(next_value(&l, "nonce"), 16, &n) != 0 ||
        parse_u64(next_value(&l, "challenge"), 16, c) != 0 || next_line(&l) != NULL)
        return -1;
    return w == world && r == (uint64_t)rank && n == nonce ? 0 : -1;
}

// 0 when the go file holds world and nonce and `challenge` on the line of rank.
static int go_confirms(char *text, uint64_t world, uint64_t nonce, int rank, uint64_t challenge) {
    Lines l = {text};
    char *line = next_line(&l);
    uint64_t w = 0, n = 0, c = 0;
    if (line == NULL || strcmp(line, MAGIC_GO) != 0 ||
        parse_u64(next_value(&l, "world"), 10, &w) != 0 || w != world ||
        parse_u64(next_value(&l, "nonce"), 16, &n) != 0 || n != nonce)
        return -1;
    for (int k = 1; k <= rank; k++)
        if ((line = next_line(&l)) == NULL)
            return -1;
    return parse_u64(line, 16, &c) == 0 && c == challenge ? 0 : -1;
}

// ----------------------------------------------------------------------------
// Rank 0

static char *format_id(const CudaRdzvIdentity *id, uint64_t nonce, const unsigned char *blob,
                       size_t len, size_t *n) {
    size_t cap = 512 + sizeof id->job + 2 * len;
    char *s = malloc(cap);
    if (s == NULL)
        return NULL;
    int k = snprintf(s, cap, "%s\nworld %d\nnonce %016" PRIx64 "\njob %s\nblob %zu ", MAGIC_ID,
                     id->world_size, nonce, id->job[0] ? id->job : "-", len);
    size_t at = (size_t)k;
    for (size_t i = 0; i < len; i++)
        at += (size_t)snprintf(s + at, cap - at, "%02x", blob[i]);
    at += (size_t)snprintf(s + at, cap - at, "\n");
    *n = at;
    return s;
}

static char *format_go(const CudaRdzvIdentity *id, uint64_t nonce, const uint64_t *ch,
                       size_t *n) {
    size_t cap = 128 + (size_t)id->world_size * 18;
    char *s = malloc(cap);
    if (s == NULL)
        return NULL;
    size_t at = (size_t)snprintf(s, cap, "%s\nworld %d\nnonce %016" PRIx64 "\n", MAGIC_GO,
                                 id->world_size, nonce);
    for (int r = 1; r < id->world_size; r++)
        at += (size_t)snprintf(s + at, cap - at, "%016" PRIx64 "\n", ch[r]);
    *n = at;
    return s;
}

// "2, 5 and 3 more" of the ranks not yet in got[].
static void list_missing(const unsigned char *got, int world, char *out, size_t n) {
    size_t at = 0;
    int shown = 0, more = 0;
    out[0] = '\0';
    for (int r = 1; r < world; r++) {
        if (got[r])
            continue;
        if (shown < 8 && at < n)
            at += (size_t)snprintf(out + at, n - at, "%s%d", shown ? ", " : "", r);
        else
            more++;
        shown++;
    }
    if (more && at < n)
        snprintf(out + at, n - at, " and %d more", more);
}

static void remove_stale(const char *base, int world) {
    char p[PATH_CAP];
    path_with(p, base, ".go");
    (void)unlink(p);
    (void)unlink(base);
    for (int r = 1; r < world; r++) {
        ack_path(p, base, r);
        (void)unlink(p);
    }
}

static SimStatus root_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id,
                            const unsigned char *blob, size_t len, double timeout_s, char *err,
                            size_t errlen) {
    const char *base = s->path;
    char why[PATH_CAP + 256], p[PATH_CAP];
    uint64_t nonce = cuda_rdzv_random();
    int world = id->world_size;
    unsigned char *got = calloc((size_t)world, 1);
    uint64_t *ch = calloc((size_t)world, sizeof *ch);
    size_t n = 0;
    char *text = format_id(id, nonce, blob, len, &n);
    SimStatus st = SIM_OK;
    if (got == NULL || ch == NULL || text == NULL) {
        st = SIM_ENOMEM;
        snprintf(err, errlen, "file:%s: out of memory for a world of %d", base, world);
        goto done;
    }
    remove_stale(base, world);
    if (write_atomic(base, text, n, why, sizeof why) != 0) {
        snprintf(err, errlen, "file:%s: rank 0 %s (the directory must exist, be writable and "
                 "be seen by every rank)", base, why);
        st = SIM_EIO;
        goto done;
    }
    double deadline = cuda_rdzv_now() + timeout_s, nap = 0.005;
    int have = 1; // rank 0 itself
    while (have < world) {
        for (int r = 1; r < world; r++) {
            if (got[r])
                continue;
            ack_path(p, base, r);
            char *ack = read_all(p, NULL, 0);
            if (ack && parse_ack(ack, (uint64_t)world, r, nonce, &ch[r]) == 0) {
                got[r] = 1;
                have++;
            }
            free(ack);
        }
        if (have == world)
            break;
        if (cuda_rdzv_now() > deadline) {
            char missing[160];
            list_missing(got, world, missing, sizeof missing);
            snprintf(err, errlen, "file:%s: rank 0 waited %g s for rank%s %s of %d to "
                     "acknowledge (%s.rK): are they running, with the same --rendezvous, on "
                     "a filesystem that shares this file?", base, timeout_s,
                     world - have > 1 ? "s" : "", missing, world, base);
            st = SIM_ETIMEDOUT;
            goto done;
        }
        cuda_rdzv_sleep(nap);
        nap = nap < 0.05 ? nap * 2 : 0.1;
    }
    free(text);
    text = format_go(id, nonce, ch, &n);
    path_with(p, base, ".go");
    if (text == NULL) {
        st = SIM_ENOMEM;
        snprintf(err, errlen, "file:%s: out of memory", base);
    } else if (write_atomic(p, text, n, why, sizeof why) != 0) {
        snprintf(err, errlen, "file:%s: rank 0 %s", base, why);
        st = SIM_EIO;
    }
done:
    free(text);
    free(got);
    free(ch);
    return st;
}

// ----------------------------------------------------------------------------
// The other ranks

static SimStatus write_ack(const char *base, const CudaRdzvIdentity *id, uint64_t nonce,
                           uint64_t challenge, char *err, size_t errlen) {
    char text[256], p[PATH_CAP], why[PATH_CAP + 256];
    int n = snprintf(text, sizeof text,
                     "%s\nworld %d\nrank %d\nnonce %016" PRIx64 "\nchallenge %016" PRIx64 "\n",
                     MAGIC_ACK, id->world_size, id->rank, nonce, challenge);
    ack_path(p, base, id->rank);
    if (write_atomic(p, text, (size_t)n, why, sizeof why) != 0) {
        snprintf(err, errlen, "file:%s: rank %d %s", base, id->rank, why);
        return SIM_EIO;
    }
    return SIM_OK;
}

static SimStatus peer_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id,
                            unsigned char *blob, size_t len, double timeout_s, char *err,
                            size_t errlen) {
    const char *base = s->path;
    char gop[PATH_CAP], seen[PATH_CAP + 512] = "does not exist";
    path_with(gop, base, ".go");
    uint64_t challenge = cuda_rdzv_random(), acked = 0;
    int have_ack = 0;
    IdFile *f = malloc(sizeof *f);
    if (f == NULL)
        return SIM_ENOMEM;
    double deadline = cuda_rdzv_now() + timeout_s, nap = 0.005;
    SimStatus st = SIM_ETIMEDOUT;
    for (;;) {
        char *text = read_all(base, seen, sizeof seen);
        if (text == NULL) {
            // seen says why: missing, or not a file of this user
        } else if (parse_id(text, f) != 0) {
            snprintf(seen, sizeof seen, "is not a ddplab rendezvous file");
        } else if (f->world != (uint64_t)id->world_size || strcmp(f->job, id->job) != 0) {
            snprintf(seen, sizeof seen, "is another run's (a world of %" PRIu64 "%s%s; this "
                     "one has %d%s%s)", f->world, f->job[0] ? ", job " : "", f->job,
                     id->world_size, id->job[0] ? ", job " : "", id->job);
        } else if (f->len != len) {
            snprintf(seen, sizeof seen, "carries %zu bytes where %zu are expected (another "
                     "program's?)", f->len, len);
        } else {
            snprintf(seen, sizeof seen, "was written, but rank 0 has not confirmed it (it "
                     "waits for every rank's %s.rK)", base);
            if (!have_ack || f->nonce != acked) {
                st = write_ack(base, id, f->nonce, challenge, err, errlen);
                if (st != SIM_OK) {
                    free(text);
                    break;
                }
                st = SIM_ETIMEDOUT;
                acked = f->nonce;
                have_ack = 1;
            }
            char *go = read_all(gop, NULL, 0);
            int ok = go && go_confirms(go, (uint64_t)id->world_size, f->nonce, id->rank,
                                       challenge) == 0;
            free(go);
            if (ok) {
                memcpy(blob, f->blob, len);
                free(text);
                st = SIM_OK;
                break;
            }
        }
        free(text);
        if (cuda_rdzv_now() > deadline) {
            snprintf(err, errlen, "file:%s: rank %d waited %g s for rank 0: the file %s (is "
                     "rank 0 running, with the same --rendezvous, and does this machine see "
                     "the same file?)", base, id->rank, timeout_s, seen);
            break;
        }
        cuda_rdzv_sleep(nap);
        nap = nap < 0.05 ? nap * 2 : 0.1;
    }
    free(f);
    return st;
}

// ----------------------------------------------------------------------------
// Entry points

SimStatus cuda_rdzv_file_bcast(const CudaRdzvSpec *s, const CudaRdzvIdentity *id, void *blob,
                               size_t len, double timeout_s, char *err, size_t errlen) {
    return id->rank == 0 ? root_bcast(s, id, blob, len, timeout_s, err, errlen)
                         : peer_bcast(s, id, blob, len, timeout_s, err, errlen);
}

void cuda_rdzv_file_finish(const CudaRdzvSpec *s, const CudaRdzvIdentity *id) {
    remove_stale(s->path, id->world_size);
}
