// backend_cuda/cuda_rdzv_hmac.c: HMAC as RFC 2104 builds it on SHA-256 (the
// engine's, sim/base/sha256.c, FIPS 180-4), and the random bytes and the
// comparison the rendezvous needs next to them. See cuda_rdzv_hmac.h.
#include "cuda_rdzv_hmac.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// SHA-256: the engine's (sim/base/sha256.c)

void cuda_rdzv_sha256_init(CudaRdzvSha256 *c) {
    sim_sha256_init(c);
}

void cuda_rdzv_sha256_update(CudaRdzvSha256 *c, const void *data, size_t n) {
    sim_sha256_update(c, data, n);
}

void cuda_rdzv_sha256_final(CudaRdzvSha256 *c, unsigned char out[CUDA_RDZV_SHA256_LEN]) {
    sim_sha256_final(c, out);
    memset(c, 0, sizeof *c); // what it held depends on the key
}

void cuda_rdzv_sha256(const void *data, size_t n, unsigned char out[CUDA_RDZV_SHA256_LEN]) {
    CudaRdzvSha256 c;
    cuda_rdzv_sha256_init(&c);
    cuda_rdzv_sha256_update(&c, data, n);
    cuda_rdzv_sha256_final(&c, out);
}

// ----------------------------------------------------------------------------
// HMAC (RFC 2104): H((K ^ opad) || H((K ^ ipad) || message))

void cuda_rdzv_hmac_init(CudaRdzvHmac *m, const void *key, size_t keylen) {
    unsigned char k[CUDA_RDZV_SHA256_BLOCK] = {0}, ikey[CUDA_RDZV_SHA256_BLOCK];
    if (keylen > CUDA_RDZV_SHA256_BLOCK)
        cuda_rdzv_sha256(key, keylen, k);
    else if (keylen > 0)
        memcpy(k, key, keylen);
    for (int i = 0; i < CUDA_RDZV_SHA256_BLOCK; i++) {
        ikey[i] = k[i] ^ 0x36;
        m->okey[i] = k[i] ^ 0x5c;
    }
    cuda_rdzv_sha256_init(&m->inner);
    cuda_rdzv_sha256_update(&m->inner, ikey, sizeof ikey);
    memset(k, 0, sizeof k);
    memset(ikey, 0, sizeof ikey);
}

void cuda_rdzv_hmac_update(CudaRdzvHmac *m, const void *data, size_t n) {
    cuda_rdzv_sha256_update(&m->inner, data, n);
}

void cuda_rdzv_hmac_final(CudaRdzvHmac *m, unsigned char out[CUDA_RDZV_SHA256_LEN]) {
    unsigned char ih[CUDA_RDZV_SHA256_LEN];
    cuda_rdzv_sha256_final(&m->inner, ih);
    CudaRdzvSha256 outer;
    cuda_rdzv_sha256_init(&outer);
    cuda_rdzv_sha256_update(&outer, m->okey, sizeof m->okey);
    cuda_rdzv_sha256_update(&outer, ih, sizeof ih);
    cuda_rdzv_sha256_final(&outer, out);
    memset(m, 0, sizeof *m);
}

void cuda_rdzv_hmac(const void *key, size_t keylen, const void *data, size_t n,
                    unsigned char out[CUDA_RDZV_SHA256_LEN]) {
    CudaRdzvHmac m;
    cuda_rdzv_hmac_init(&m, key, keylen);
    cuda_rdzv_hmac_update(&m, data, n);
    cuda_rdzv_hmac_final(&m, out);
}

// ----------------------------------------------------------------------------
// Comparison and randomness

int cuda_rdzv_equal_ct(const void *a, const void *b, size_t n) {
    // volatile: the compiler may not turn the loop into one that stops at
    // the first difference.
    const volatile unsigned char *x = a, *y = b;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(x[i] ^ y[i]);
    return diff == 0;
}

// From /dev/urandom, for kernels older than getrandom (Linux 3.17).
static int urandom_bytes(unsigned char *p, size_t n) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < n) {
        ssize_t k = read(fd, p + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        done += (size_t)k;
    }
    int e = errno;
    close(fd);
    errno = done == n ? 0 : (e ? e : EIO);
    return done == n ? 0 : -1;
}

int cuda_rdzv_random_bytes(void *buf, size_t n) {
    unsigned char *p = buf;
    size_t done = 0;
    while (done < n) {
        ssize_t k = getrandom(p + done, n - done, 0);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == ENOSYS || errno == EPERM)) // old kernel, or a seccomp filter
            return urandom_bytes(p + done, n - done);
        return -1;
    }
    return 0;
}
