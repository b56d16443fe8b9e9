// backend_cuda/cuda_rdzv_hmac.h: SHA-256 (FIPS 180-4) and HMAC-SHA256
// (RFC 2104), the only cryptography the TCP rendezvous needs: each side
// proves that it holds the secret the launcher shared without sending it,
// and rank 0's answer is authenticated and kept from onlookers
// (cuda_rdzv_tcp.c). Written here rather than taken from a crypto library so
// that the rendezvous, built in every build, depends on nothing more than
// libc; tests/test_cuda_rdzv_hmac.c checks it against the FIPS 180-4
// examples and the RFC 4231 test vectors.
//
// Also the two helpers every such protocol needs: a comparison of MACs whose
// time does not depend on where they differ, and random bytes from the
// kernel (getrandom, else /dev/urandom) that fail rather than fall back to
// anything guessable.
#ifndef DDPLAB_BACKEND_CUDA_RDZV_HMAC_H
#define DDPLAB_BACKEND_CUDA_RDZV_HMAC_H

#include <stddef.h>
#include <stdint.h>

#include "base/sha256.h" // defines: SimSha256

#define CUDA_RDZV_SHA256_LEN 32   // bytes of a digest, and of an HMAC-SHA256
#define CUDA_RDZV_SHA256_BLOCK 64 // bytes SHA-256 compresses at a time

// The hash is the engine's own SHA-256 (sim/base/sha256.h, the checksum of
// checkpoint files): one implementation of FIPS 180-4 in the program.
typedef SimSha256 CudaRdzvSha256;

void cuda_rdzv_sha256_init(CudaRdzvSha256 *c);
void cuda_rdzv_sha256_update(CudaRdzvSha256 *c, const void *data, size_t n);
// Writes the digest; c must be initialised again before further use.
void cuda_rdzv_sha256_final(CudaRdzvSha256 *c, unsigned char out[CUDA_RDZV_SHA256_LEN]);
void cuda_rdzv_sha256(const void *data, size_t n, unsigned char out[CUDA_RDZV_SHA256_LEN]);

// HMAC-SHA256 over a message given in pieces.
typedef struct {
    CudaRdzvSha256 inner;                       // H(K ^ ipad || message ...)
    unsigned char okey[CUDA_RDZV_SHA256_BLOCK]; // K ^ opad, for the final hash
} CudaRdzvHmac;

// Any key length: a key longer than a block is hashed first (RFC 2104).
void cuda_rdzv_hmac_init(CudaRdzvHmac *m, const void *key, size_t keylen);
void cuda_rdzv_hmac_update(CudaRdzvHmac *m, const void *data, size_t n);
// Writes the MAC and wipes the key material from m.
void cuda_rdzv_hmac_final(CudaRdzvHmac *m, unsigned char out[CUDA_RDZV_SHA256_LEN]);
void cuda_rdzv_hmac(const void *key, size_t keylen, const void *data, size_t n,
                    unsigned char out[CUDA_RDZV_SHA256_LEN]);

// 1 when a[0 .. n) equals b[0 .. n), else 0, in a time that depends on n
// only: a peer that guesses a MAC learns nothing from how fast it is told no.
int cuda_rdzv_equal_ct(const void *a, const void *b, size_t n);

// n bytes from the kernel's random generator. 0, or -1 (errno set) when
// neither getrandom nor /dev/urandom gives them.
int cuda_rdzv_random_bytes(void *buf, size_t n);

#endif
