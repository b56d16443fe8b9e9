// backend_cuda/cuda_rdzv_hmac.c: SHA-256 as FIPS 180-4 specifies it
// (sections 4.1.2, 4.2.2, 5.1.1, 5.3.3 and 6.2), HMAC as RFC 2104 builds it
// on a hash, and the random bytes and the comparison the rendezvous needs
// next to them. See cuda_rdzv_hmac.h.
#include "cuda_rdzv_hmac.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// SHA-256

// The first 32 bits of the fractional parts of the cube roots of the first
// 64 primes (FIPS 180-4, 4.2.2).
static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) {
    return x >> n | x << (32 - n);
}

static uint32_t load_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (24 - 8 * i));
}

// The message schedule W_0 .. W_63 of one block (6.2.2, step 1).
static void schedule(const unsigned char *block, uint32_t w[64]) {
    for (int t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
}

// One block into the hash value (6.2.2, steps 2-4).
static void compress(uint32_t h[8], const unsigned char *block) {
    uint32_t w[64], v[8];
    schedule(block, w);
    memcpy(v, h, sizeof v);
    for (int t = 0; t < 64; t++) {
        uint32_t e = v[4], a = v[0];
        uint32_t ch = (e & v[5]) ^ (~e & v[6]);
        uint32_t maj = (a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]);
        uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ch + K256[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + maj;
        memmove(v + 1, v, 7 * sizeof v[0]);
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h[i] += v[i];
}

void cuda_rdzv_sha256_init(CudaRdzvSha256 *c) {
    // The first 32 bits of the fractional parts of the square roots of the
    // first 8 primes (5.3.3).
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, h0, sizeof h0);
    c->bytes = 0;
    c->fill = 0;
}

void cuda_rdzv_sha256_update(CudaRdzvSha256 *c, const void *data, size_t n) {
    const unsigned char *p = data;
    c->bytes += n;
    while (n > 0) {
        size_t take = CUDA_RDZV_SHA256_BLOCK - c->fill;
        if (take > n)
            take = n;
        memcpy(c->buf + c->fill, p, take);
        c->fill += take;
        p += take;
        n -= take;
        if (c->fill == CUDA_RDZV_SHA256_BLOCK) {
            compress(c->h, c->buf);
            c->fill = 0;
        }
    }
}

// Padding (5.1.1): a 1 bit, zeros up to 56 bytes into a block, then the
// message length in bits as a big-endian 64-bit number.
void cuda_rdzv_sha256_final(CudaRdzvSha256 *c, unsigned char out[CUDA_RDZV_SHA256_LEN]) {
    uint64_t bits = c->bytes * 8;
    c->buf[c->fill++] = 0x80;
    if (c->fill > 56) {
        memset(c->buf + c->fill, 0, CUDA_RDZV_SHA256_BLOCK - c->fill);
        compress(c->h, c->buf);
        c->fill = 0;
    }
    memset(c->buf + c->fill, 0, 56 - c->fill);
    store_be32(c->buf + 56, (uint32_t)(bits >> 32));
    store_be32(c->buf + 60, (uint32_t)bits);
    compress(c->h, c->buf);
    for (int i = 0; i < 8; i++)
        store_be32(out + 4 * i, c->h[i]);
    memset(c, 0, sizeof *c);
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
