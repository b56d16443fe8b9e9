// backend_cuda/cuda_rdzv_secret.c: the secret the ranks of a tcp rendezvous
// share, with which each proves to the other side that it belongs to the
// job (cuda_rdzv_tcp.c). The launcher hands the same secret to every
// process, as a variable or as a file (see cuda_rdzv.h):
//   DDPLAB_RENDEZVOUS_SECRET       the secret itself: simplest under srun or
//                                  mpirun, which pass the environment on;
//   DDPLAB_RENDEZVOUS_SECRET_FILE  a file holding it, for launchers started
//                                  by hand on each machine (torchrun per
//                                  node) with a home directory they share.
// A file that its group or others may read is refused, as ssh refuses such
// a private key: whoever can read it can join the job and read NCCL's id.
// One trailing line end is not part of the secret, so that `openssl rand
// -hex 32 > FILE` and DDPLAB_RENDEZVOUS_SECRET=$(cat FILE) give the same.
// No message shows the secret.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_rdzv_internal.h" // defines: cuda_rdzv_read_secret

#define SECRET_VAR "DDPLAB_RENDEZVOUS_SECRET"
#define SECRET_FILE_VAR "DDPLAB_RENDEZVOUS_SECRET_FILE"
// What every message about the secret offers.
#define SECRET_ALLOWED \
    "16 .. 256 bytes, the same for every rank, e.g. from openssl rand -hex 32"

static SimStatus secret_set(CudaRdzvIdentity *id, const void *p, size_t n, const char *from,
                            char *err, size_t errlen) {
    if (n < CUDA_RDZV_SECRET_MIN || n > CUDA_RDZV_SECRET_MAX) {
        snprintf(err, errlen, "%s holds a secret of %zu byte%s (ddplab); allowed: %s", from, n,
                 n == 1 ? "" : "s", SECRET_ALLOWED);
        return SIM_EINVAL;
    }
    memcpy(id->secret, p, n);
    id->secret_len = n;
    return SIM_OK;
}

// Why the opened secret file may not be used (in why, with what to do in
// allowed), or NULL.
static const char *file_unfit(int fd, const char *path, char *why, char *allowed, size_t n) {
    struct stat st;
    snprintf(allowed, n, "a regular file of this user that only its owner can read (chmod 600), "
             "holding %s", SECRET_ALLOWED);
    if (fstat(fd, &st) != 0)
        snprintf(why, n, "cannot be examined: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(why, n, "is not a regular file");
    else if (st.st_uid != geteuid() && st.st_uid != 0)
        snprintf(why, n, "belongs to uid %ld, not to this user (uid %ld)", (long)st.st_uid,
                 (long)geteuid());
    else if (st.st_mode & 077) {
        snprintf(why, n, "can be read or changed by its group or others (mode %03o), who could "
                 "then join the job", (unsigned)(st.st_mode & 0777));
        snprintf(allowed, n, "a file only its owner can read: chmod 600 '%.200s'", path);
    } else
        return NULL;
    return why;
}

// Up to cap bytes of the file; the count, or -1.
static ssize_t read_upto(int fd, unsigned char *buf, size_t cap) {
    size_t n = 0;
    while (n < cap) {
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        n += (size_t)k;
    }
    return (ssize_t)n;
}

static SimStatus secret_from_file(const char *path, CudaRdzvIdentity *id, char *err,
                                  size_t errlen) {
    char why[300], allowed[300], from[360];
    snprintf(from, sizeof from, SECRET_FILE_VAR "='%.300s'", path);
    // O_NONBLOCK: a FIFO at that name must not hold the process in open().
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    unsigned char buf[CUDA_RDZV_SECRET_MAX + 3]; // room for a line end, and a byte too many
    ssize_t n = -1;
    const char *unfit = NULL;
    if (fd < 0) {
        snprintf(why, sizeof why, "cannot be opened: %s", strerror(errno));
        snprintf(allowed, sizeof allowed, "a file that only its owner can read (chmod 600), "
                 "holding %s", SECRET_ALLOWED);
        unfit = why;
    } else {
        unfit = file_unfit(fd, path, why, allowed, sizeof why);
        if (unfit == NULL && (n = read_upto(fd, buf, sizeof buf)) < 0) {
            snprintf(why, sizeof why, "cannot be read: %s", strerror(errno));
            unfit = why;
        }
        close(fd);
    }
    if (unfit) {
        snprintf(err, errlen, "%s %s (ddplab); allowed: %s", from, unfit, allowed);
        return SIM_EINVAL;
    }
    size_t len = (size_t)n;
    if (len > 0 && buf[len - 1] == '\n')
        len--;
    if (len > 0 && buf[len - 1] == '\r')
        len--;
    SimStatus st = secret_set(id, buf, len, from, err, errlen);
    memset(buf, 0, sizeof buf);
    return st;
}

SimStatus cuda_rdzv_read_secret(CudaRdzvLookup get, void *arg, CudaRdzvIdentity *id, char *err,
                                size_t errlen) {
    const char *text = get(arg, SECRET_VAR), *file = get(arg, SECRET_FILE_VAR);
    id->secret_len = 0;
    if (text && file) {
        snprintf(err, errlen, "both " SECRET_VAR " and " SECRET_FILE_VAR " are set (ddplab); "
                 "allowed: one of them, the same for every rank");
        return SIM_EINVAL;
    }
    if (file)
        return secret_from_file(file, id, err, errlen);
    if (text)
        return secret_set(id, text, strlen(text), SECRET_VAR, err, errlen);
    return SIM_OK;
}

SimStatus cuda_rdzv_need_secret(const char *where, const CudaRdzvIdentity *id, char *err,
                                size_t errlen) {
    if (id->secret_len > 0)
        return SIM_OK;
    snprintf(err, errlen, "%s needs a secret that every rank shares, and none is set (the "
             "ranks prove it to each other without sending it); allowed: export " SECRET_VAR
             "=SECRET (%s) or " SECRET_FILE_VAR "=PATH (a file holding it that only you can "
             "read: chmod 600 PATH); or file:PATH, which needs none", where, SECRET_ALLOWED);
    return SIM_EINVAL;
}
