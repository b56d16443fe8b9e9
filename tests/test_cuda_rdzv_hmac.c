// tests/test_cuda_rdzv_hmac.c: the cryptography of the TCP rendezvous
// (backend_cuda/cuda_rdzv_hmac.h) against published answers:
//   - SHA-256: the examples NIST publishes with FIPS 180-4 ("abc", the
//     448- and 896-bit messages), the empty message and one million 'a';
//     messages whose padding falls at each block boundary (55, 56, 63,
//     64, 65, 119, 120, 128 bytes; digests from an independent
//     implementation, Python's hashlib); and the same digest whatever the
//     pieces a message is fed in;
//   - HMAC-SHA256: the seven test cases of RFC 4231 (case 5 truncated to
//     128 bits, as the RFC gives it), keys shorter and longer than a block;
//   - the constant-time comparison, and random bytes that differ per call.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_rdzv_hmac.h"

// Lower-case hex of n bytes into out (2n + 1 bytes).
static const char *hex(const unsigned char *p, size_t n, char *out) {
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", p[i]);
    out[2 * n] = '\0';
    return out;
}

static int sha_is(const void *msg, size_t n, const char *want) {
    unsigned char d[CUDA_RDZV_SHA256_LEN];
    char h[2 * CUDA_RDZV_SHA256_LEN + 1];
    cuda_rdzv_sha256(msg, n, d);
    CHECK(strcmp(hex(d, sizeof d, h), want) == 0);
    return 0;
}

static int test_sha256_fips(void) {
    CHECK(sha_is("abc", 3,
                 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    CHECK(sha_is("", 0,
                 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK(sha_is(m448, strlen(m448),
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    CHECK(sha_is(m896, strlen(m896),
                 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1") == 0);
    char *million = malloc(1000000);
    CHECK(million != NULL);
    memset(million, 'a', 1000000);
    int rc = sha_is(million, 1000000,
                    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
    CHECK(rc == 0);
    return 0;
}

// Lengths around the 56-byte point where the padding needs a second block.
static int test_sha256_boundaries(void) {
    static const struct {
        size_t n;
        const char *digest;
    } cases[] = {
        {55, "8af594de0e003fdee5c8bb088216c824349b4137070f559574f4a4bddd27b714"},
        {56, "db81bc2bfd43620591df192139062da77d4c376f1888ea3d2190bd07c8d901f9"},
        {63, "bd535b38bf0d0d1a09d370b7e34b2696cea3767801a45d5611a4aaa6954e8527"},
        {64, "292be91abe8c0909fe3d26575af5755eee74d23816dc68c3ba41765136967654"},
        {65, "ba65aedf7884642499a59ae124894611d986cf429e69f569488048af3a99e25a"},
        {119, "d367ab298e74477421127b0b448667c37c006c636f5738f081c39388756e5fad"},
        {120, "be7beb9c82089eb08da8fe6eb30c13b9d56869014e228a8c3eb0fdfe832efab2"},
        {128, "cb5311e1d7aa8e11d6af7081f3ffc3e4efa008c7483a1a791fe170bf37546ba7"},
    };
    unsigned char msg[128];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (unsigned char)(i * 7 % 251);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(sha_is(msg, cases[i].n, cases[i].digest) == 0);
    return 0;
}

// Fed in pieces of every size from 1 to 70 bytes, a message hashes as whole.
static int test_sha256_pieces(void) {
    unsigned char msg[300], whole[CUDA_RDZV_SHA256_LEN], part[CUDA_RDZV_SHA256_LEN];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (unsigned char)(i * 31 + 5);
    cuda_rdzv_sha256(msg, sizeof msg, whole);
    for (size_t step = 1; step <= 70; step++) {
        CudaRdzvSha256 c;
        cuda_rdzv_sha256_init(&c);
        for (size_t at = 0; at < sizeof msg; at += step)
            cuda_rdzv_sha256_update(&c, msg + at, at + step <= sizeof msg ? step : sizeof msg - at);
        cuda_rdzv_sha256_final(&c, part);
        CHECK(memcmp(whole, part, sizeof whole) == 0);
    }
    return 0;
}

static int test_hmac_rfc4231(void) {
    unsigned char k20b[20], k20a[20], k25[25], k20c[20], k131[131], d50d[50], d50c[50];
    memset(k20b, 0x0b, sizeof k20b);
    memset(k20a, 0xaa, sizeof k20a);
    for (int i = 0; i < 25; i++)
        k25[i] = (unsigned char)(i + 1);
    memset(k20c, 0x0c, sizeof k20c);
    memset(k131, 0xaa, sizeof k131);
    memset(d50d, 0xdd, sizeof d50d);
    memset(d50c, 0xcd, sizeof d50c);
    const char *d6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    const char *d7 = "This is a test using a larger than block-size key and a larger than "
                     "block-size data. The key needs to be hashed before being used by the "
                     "HMAC algorithm.";
    const struct {
        const void *key;
        size_t klen;
        const void *data;
        size_t dlen;
        const char *mac; // as long as the RFC gives it
    } cases[] = {
        {k20b, 20, "Hi There", 8,
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        {"Jefe", 4, "what do ya want for nothing?", 28,
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        {k20a, 20, d50d, 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
        {k25, 25, d50c, 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
        {k20c, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b"},
        {k131, 131, d6, strlen(d6),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
        {k131, 131, d7, strlen(d7),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char mac[CUDA_RDZV_SHA256_LEN];
        char h[2 * CUDA_RDZV_SHA256_LEN + 1];
        cuda_rdzv_hmac(cases[i].key, cases[i].klen, cases[i].data, cases[i].dlen, mac);
        size_t n = strlen(cases[i].mac) / 2;
        if (strcmp(hex(mac, n, h), cases[i].mac) != 0) {
            fprintf(stderr, "RFC 4231 test case %zu: %s\n", i + 1, h);
            return 1;
        }
        // the same MAC when the message comes in two pieces
        CudaRdzvHmac m;
        unsigned char again[CUDA_RDZV_SHA256_LEN];
        cuda_rdzv_hmac_init(&m, cases[i].key, cases[i].klen);
        cuda_rdzv_hmac_update(&m, cases[i].data, cases[i].dlen / 3);
        cuda_rdzv_hmac_update(&m, (const char *)cases[i].data + cases[i].dlen / 3,
                              cases[i].dlen - cases[i].dlen / 3);
        cuda_rdzv_hmac_final(&m, again);
        CHECK(memcmp(mac, again, sizeof mac) == 0);
    }
    return 0;
}

static int test_compare_and_random(void) {
    unsigned char a[32], b[32];
    memset(a, 0x5a, sizeof a);
    memcpy(b, a, sizeof b);
    CHECK_EQ_INT(cuda_rdzv_equal_ct(a, b, sizeof a), 1);
    CHECK_EQ_INT(cuda_rdzv_equal_ct(a, b, 0), 1);
    for (size_t i = 0; i < sizeof a; i++) { // a difference anywhere is seen
        b[i] ^= 0x01;
        CHECK_EQ_INT(cuda_rdzv_equal_ct(a, b, sizeof a), 0);
        b[i] ^= 0x01;
    }
    CHECK_EQ_INT(cuda_rdzv_random_bytes(a, sizeof a), 0);
    CHECK_EQ_INT(cuda_rdzv_random_bytes(b, sizeof b), 0);
    CHECK_EQ_INT(cuda_rdzv_equal_ct(a, b, sizeof a), 0); // 2^-256 to fail by chance
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_sha256_fips);
    RUN(test_sha256_boundaries);
    RUN(test_sha256_pieces);
    RUN(test_hmac_rfc4231);
    RUN(test_compare_and_random);
    return failures ? 1 : 0;
}
