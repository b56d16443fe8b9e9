// tests/test_checkpoint_file.c: the checkpoint container: SHA-256 against
// the standard's test vectors, safetensors files written and read back with
// every element type and odd metadata, and damaged files (truncated at every
// kind of place, flipped bytes, a garbage header, no checksum) rejected with
// a message that says which damage it is.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "check.h"
#include "formats/safetensors.h"
#include "test_files.h"

static char dir[512];

static int test_sha256_vectors(void) {
    char hex[65];
    sim_sha256_hex("abc", 3, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    sim_sha256_hex("", 0, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sim_sha256_hex(m, strlen(m), hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    // One million 'a', fed in uneven pieces: the padding and block joins.
    size_t n = 1000000;
    char *a = malloc(n);
    CHECK(a != NULL);
    memset(a, 'a', n);
    SimSha256 s;
    uint8_t d[32];
    sim_sha256_init(&s);
    for (size_t at = 0, piece = 1; at < n; at += piece, piece = piece * 3 % 1000 + 1)
        sim_sha256_update(&s, a + at, at + piece > n ? n - at : piece);
    sim_sha256_final(&s, d);
    free(a);
    static const uint8_t want[32] = {0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92,
                                     0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
                                     0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e,
                                     0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
    CHECK(memcmp(d, want, 32) == 0);
    return 0;
}

// A file with one tensor of each type, a scalar and an empty tensor.
static float f32[6] = {1.5f, -2.25f, 3e-8f, 0.0f, -0.0f, 1e30f};
static uint16_t f16[3] = {0x3c00, 0x8001, 0x7bff};
static uint16_t bf16[2] = {0x3f80, 0xc000};
static int32_t i32[4] = {-1, 0, 7, 2147483647};
static int64_t i64[1] = {INT64_C(-9007199254740993)};

static int write_sample(const char *path) {
    SimStTensor t[6] = {
        {"0.weight", SIM_FP32, 2, {2, 3}, f32},
        {"half", SIM_FP16, 1, {3}, f16},
        {"brain", SIM_BF16, 2, {1, 2}, bf16},
        {"ints", SIM_INT32, 1, {4}, i32},
        {"scalar \"quoted\"", SIM_INT64, 0, {0}, i64},
        {"empty", SIM_FP32, 2, {0, 5}, NULL},
    };
    SimStMeta meta[3] = {{"step", "12"}, {"note", "tab\tnewline\n\"q\" \\ ü"}, {"", "empty key"}};
    char err[512] = "";
    SimStatus st = sim_stfile_save(path, t, 6, meta, 3, err, sizeof err);
    if (st != SIM_OK)
        fprintf(stderr, "save: %s\n", err);
    return st == SIM_OK ? 0 : 1;
}

static int test_round_trip(void) {
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/sample.safetensors", dir);
    CHECK(write_sample(path) == 0);
    SimStFile f;
    CHECK_EQ_INT(sim_stfile_load(&f, path, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(f.checked, 1);
    CHECK_EQ_INT(f.ntensors, 6);
    const SimStTensor *w = sim_stfile_find(&f, "0.weight");
    CHECK(w != NULL && w->dtype == SIM_FP32 && w->ndim == 2 && w->shape[0] == 2 &&
          w->shape[1] == 3);
    CHECK(memcmp(w->data, f32, sizeof f32) == 0);
    // The data start 8-byte aligned, as the reference writer keeps them.
    CHECK_EQ_INT(((const uint8_t *)w->data - f.bytes) % 8, 0);
    const SimStTensor *h = sim_stfile_find(&f, "half");
    CHECK(h && h->dtype == SIM_FP16 && memcmp(h->data, f16, sizeof f16) == 0);
    const SimStTensor *b = sim_stfile_find(&f, "brain");
    CHECK(b && b->dtype == SIM_BF16 && memcmp(b->data, bf16, sizeof bf16) == 0);
    const SimStTensor *i = sim_stfile_find(&f, "ints");
    CHECK(i && i->dtype == SIM_INT32 && memcmp(i->data, i32, sizeof i32) == 0);
    const SimStTensor *s = sim_stfile_find(&f, "scalar \"quoted\"");
    CHECK(s && s->dtype == SIM_INT64 && s->ndim == 0 && memcmp(s->data, i64, 8) == 0);
    const SimStTensor *e = sim_stfile_find(&f, "empty");
    CHECK(e && e->ndim == 2 && e->shape[0] == 0 && e->shape[1] == 5);
    CHECK(sim_stfile_find(&f, "missing") == NULL);
    CHECK(strcmp(sim_stfile_meta(&f, "step"), "12") == 0);
    CHECK(strcmp(sim_stfile_meta(&f, "note"), "tab\tnewline\n\"q\" \\ ü") == 0);
    CHECK(strcmp(sim_stfile_meta(&f, ""), "empty key") == 0);
    CHECK(strncmp(sim_stfile_meta(&f, SIM_STFILE_CHECKSUM_KEY), "sha256:", 7) == 0);
    sim_stfile_free(&f);
    return 0;
}

// Loads path, expecting failure with `status` and `words` in the message.
static int expect_reject(const char *path, SimStatus status, const char *words) {
    SimStFile f;
    char err[600] = "";
    SimStatus st = sim_stfile_load(&f, path, err, sizeof err);
    if (st != status || strstr(err, words) == NULL || strstr(err, path) == NULL) {
        fprintf(stderr, "%s: got %d '%s', expected %d with '%s'\n", path, (int)st, err,
                (int)status, words);
        return 1;
    }
    CHECK(f.bytes == NULL && f.ntensors == 0 && f.nmeta == 0); // nothing handed out
    return 0;
}

static int write_bytes(const char *name, const char *data, size_t len, char *path, size_t plen) {
    snprintf(path, plen, "%s/%s", dir, name);
    return tfile_write(path, data, len);
}

// A file by hand: the length of header, header, then dlen bytes of data.
static int write_raw(const char *name, const char *header, const void *data, size_t dlen,
                     char *path, size_t plen) {
    size_t hlen = strlen(header);
    char buf[1024];
    if (8 + hlen + dlen > sizeof buf)
        return -1;
    for (int i = 0; i < 8; i++)
        buf[i] = (char)(uint8_t)((uint64_t)hlen >> (8 * i));
    memcpy(buf + 8, header, hlen);
    memcpy(buf + 8 + hlen, data, dlen);
    return write_bytes(name, buf, 8 + hlen + dlen, path, plen);
}

static int test_truncated(void) {
    char path[600], cut[600];
    snprintf(path, sizeof path, "%s/sample.safetensors", dir);
    CHECK(write_sample(path) == 0);
    size_t len = 0;
    char *raw = tfile_read(path, &len);
    CHECK(raw != NULL);
    uint64_t hlen = 0;
    for (int i = 0; i < 8; i++)
        hlen |= (uint64_t)(uint8_t)raw[i] << (8 * i);
    size_t cuts[] = {0, 3, 7, 8, 9, 8 + hlen / 2, 8 + hlen - 1, 8 + hlen, 8 + hlen + 5, len - 1};
    const char *words[] = {"truncated: 0 bytes", "truncated: 3 bytes", "truncated: 7 bytes",
                           "truncated: the header needs", "truncated: the header needs",
                           "truncated: the header needs", "truncated: the header needs",
                           "truncated: the header describes", "truncated: the header describes",
                           "truncated: the header describes"};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        CHECK(write_bytes("cut.safetensors", raw, cuts[k], cut, sizeof cut) == 0);
        CHECK(expect_reject(cut, SIM_EFORMAT, words[k]) == 0);
    }
    // Bytes appended after the data are not a valid file either.
    char *longer = malloc(len + 4);
    CHECK(longer != NULL);
    memcpy(longer, raw, len);
    memcpy(longer + len, "junk", 4);
    CHECK(write_bytes("long.safetensors", longer, len + 4, cut, sizeof cut) == 0);
    CHECK(expect_reject(cut, SIM_EFORMAT, "4 bytes follow the last tensor") == 0);
    free(longer);
    free(raw);
    return 0;
}

static int test_corrupt(void) {
    char path[600], bad[600];
    snprintf(path, sizeof path, "%s/sample.safetensors", dir);
    CHECK(write_sample(path) == 0);
    size_t len = 0;
    char *raw = tfile_read(path, &len);
    CHECK(raw != NULL);
    // One bit of the data: only the checksum can tell.
    raw[len - 3] ^= 0x10;
    CHECK(write_bytes("flip.safetensors", raw, len, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "checksum mismatch") == 0);
    raw[len - 3] ^= 0x10;
    // A metadata value changed: still valid JSON, caught by the checksum.
    char *at = strstr(raw + 8, "\"12\"");
    CHECK(at != NULL);
    at[2] = '3';
    CHECK(write_bytes("meta.safetensors", raw, len, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "checksum mismatch") == 0);
    at[2] = '2';
    // A shape that no longer matches its byte range.
    at = strstr(raw + 8, "\"shape\":[2,3]");
    CHECK(at != NULL);
    at[9] = '4';
    CHECK(write_bytes("shape.safetensors", raw, len, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "corrupt header: tensor '0.weight' spans 24 bytes") == 0);
    at[9] = '2';
    // The header's JSON broken.
    raw[8] = '[';
    CHECK(write_bytes("json.safetensors", raw, len, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "corrupt header: not a JSON object") == 0);
    free(raw);
    // Not a safetensors file at all: its first 8 bytes make an absurd length.
    const char text[] = "this is a text file, not a checkpoint\n";
    CHECK(write_bytes("text.safetensors", text, sizeof text - 1, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "not a safetensors file?") == 0);
    // Overlapping tensors and an unsupported dtype, in hand-written headers.
    static const char zeros[16] = {0};
    CHECK(write_raw("overlap.safetensors",
                    "{\"a\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                    "\"b\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                    zeros, 4, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "overlap or leave a hole") == 0);
    CHECK(write_raw("f64.safetensors",
                    "{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", zeros,
                    8, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "dtype 'F64'") == 0);
    CHECK(write_raw("twice.safetensors",
                    "{\"a\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                    "\"a\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                    zeros, 8, bad, sizeof bad) == 0);
    CHECK(expect_reject(bad, SIM_EFORMAT, "tensor 'a' appears twice") == 0);
    // Missing and unreadable files are I/O errors, named with the reason.
    snprintf(bad, sizeof bad, "%s/does-not-exist.safetensors", dir);
    CHECK(expect_reject(bad, SIM_EIO, "No such file") == 0);
    CHECK(expect_reject(dir, SIM_EIO, dir) == 0);
    return 0;
}

// A file from another writer, without a checksum, is read with checked = 0.
static int test_no_checksum(void) {
    const float data[2] = {1.0f, 2.0f};
    char path[600], err[512];
    CHECK(write_raw("plain.safetensors",
                    "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"__metadata__\":{\"from\":\"elsewhere\"}}   ",
                    data, sizeof data, path, sizeof path) == 0);
    SimStFile f;
    CHECK_EQ_INT(sim_stfile_load(&f, path, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(f.checked, 0);
    const SimStTensor *x = sim_stfile_find(&f, "x");
    float v[2];
    CHECK(x != NULL);
    memcpy(v, x->data, sizeof v);
    CHECK(v[0] == 1.0f && v[1] == 2.0f);
    CHECK(strcmp(sim_stfile_meta(&f, "from"), "elsewhere") == 0);
    sim_stfile_free(&f);
    return 0;
}

// A file that cannot be written leaves nothing, and bad arguments are refused.
static int test_write_failures(void) {
    char path[600], err[512] = "";
    float one = 1;
    SimStTensor t[2] = {{"a", SIM_FP32, 0, {0}, &one}, {"a", SIM_FP32, 0, {0}, &one}};
    snprintf(path, sizeof path, "%s/no-such-dir/x.safetensors", dir);
    CHECK_EQ_INT(sim_stfile_save(path, t, 1, NULL, 0, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "cannot create");
    snprintf(path, sizeof path, "%s/dup.safetensors", dir);
    CHECK_EQ_INT(sim_stfile_save(path, t, 2, NULL, 0, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "appears twice");
    SimStMeta m = {SIM_STFILE_CHECKSUM_KEY, "mine"};
    CHECK_EQ_INT(sim_stfile_save(path, t, 1, &m, 1, err, sizeof err), SIM_EINVAL);
    CHECK(!tfile_exists(path));
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(dir, sizeof dir, "ckptfile") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_sha256_vectors);
    RUN(test_round_trip);
    RUN(test_truncated);
    RUN(test_corrupt);
    RUN(test_no_checksum);
    RUN(test_write_failures);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
