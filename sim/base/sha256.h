// sim/base/sha256.h: SHA-256 (FIPS 180-4), used as the checksum of checkpoint
// files. Written here rather than taken from a crypto library because ddplab
// only needs to detect damaged files, and one small function keeps the
// engine free of another dependency.
#ifndef DDPLAB_SIM_SHA256_H
#define DDPLAB_SIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];      // chaining state
    uint64_t bytes;     // message length so far
    uint8_t block[64];  // pending input
    size_t used;        // bytes pending in block
} SimSha256;

void sim_sha256_init(SimSha256 *s);
void sim_sha256_update(SimSha256 *s, const void *data, size_t len);
// Writes the 32-byte digest; s must be re-initialised before reuse.
void sim_sha256_final(SimSha256 *s, uint8_t out[32]);
// The digest of data as 64 lowercase hex digits and a NUL in hex[65].
void sim_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
