// tests/test_npy.c: the .npy reader and writer: round trips of every type
// and format version, files written by numpy itself (and ddplab's files read
// by numpy), and every kind of corrupt file, each rejected with a message
// that names the file and the byte offset or header field.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "formats/npy.h"
#include "test_files.h"
#include "torch_ref.h"

static char dir[512];
static char err[1024];

static const char *at(const char *name) {
    static char p[2][640];
    static int k;
    k ^= 1;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

// Element k of the test arrays (the same formulas as conformance/npy_ref.py).
static float val_f32(size_t k) { return (float)k * 0.5f - 3.0f; }
static double val_f64(size_t k) { return (double)k / 3.0; }
static int64_t val_i64(size_t k) { return (int64_t)k * 10000000000LL - 5; }
static int32_t val_i32(size_t k) { return (int32_t)k * 7 - 100; }

// Writes a file of: the preamble of version major.0, the dict text padded
// with spaces and '\n' to 64 bytes, then nbytes of data.
static int write_raw(const char *path, int major, const char *dict, const void *data,
                     size_t nbytes) {
    char buf[8192];
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hlen = total - pre;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (char)major;
    buf[7] = 0;
    for (size_t k = 0; k < pre - 8; k++)
        buf[8 + k] = (char)(hlen >> (8 * k));
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', hlen - dl - 1);
    buf[total - 1] = '\n';
    if (total + nbytes > sizeof buf)
        return -1;
    if (nbytes)
        memcpy(buf + total, data, nbytes);
    return tfile_write(path, buf, total + nbytes);
}

// ----------------------------------------------------------------------------

static int test_round_trips(void) {
    static const int64_t shapes[][3] = {{0}, {5}, {3, 4}, {2, 3, 4}, {0, 7}, {4, 0, 2}};
    static const int ndims[] = {0, 1, 2, 3, 2, 3};
    for (int t = 0; t < 4; t++) {
        for (size_t s = 0; s < sizeof ndims / sizeof ndims[0]; s++) {
            size_t numel = 1;
            for (int d = 0; d < ndims[s]; d++)
                numel *= (size_t)shapes[s][d];
            union {
                float f[24];
                double d[24];
                int32_t i4[24];
                int64_t i8[24];
            } v;
            memset(&v, 0, sizeof v);
            for (size_t k = 0; k < numel; k++) {
                if (t == SIM_NPY_F32) v.f[k] = val_f32(k);
                if (t == SIM_NPY_F64) v.d[k] = val_f64(k);
                if (t == SIM_NPY_I32) v.i4[k] = val_i32(k);
                if (t == SIM_NPY_I64) v.i8[k] = val_i64(k);
            }
            CHECK_EQ_INT(sim_npy_write(at("rt.npy"), (SimNpyType)t, &v, ndims[s], shapes[s]),
                         SIM_OK);
            SimNpyArray a;
            CHECK_EQ_INT(sim_npy_read(at("rt.npy"), &a, err, sizeof err), SIM_OK);
            CHECK_EQ_INT(a.stored, t);
            CHECK_EQ_INT(a.ndim, ndims[s]);
            CHECK_EQ_INT(a.numel, numel);
            for (int d = 0; d < ndims[s]; d++)
                CHECK_EQ_INT(a.shape[d], shapes[s][d]);
            CHECK(sim_npy_type_is_float((SimNpyType)t) ? a.i == NULL : a.f == NULL);
            for (size_t k = 0; k < numel; k++) {
                if (t == SIM_NPY_F32) CHECK(a.f[k] == val_f32(k));
                if (t == SIM_NPY_F64) CHECK(a.f[k] == (float)val_f64(k));
                if (t == SIM_NPY_I32) CHECK_EQ_INT(a.i[k], val_i32(k));
                if (t == SIM_NPY_I64) CHECK_EQ_INT(a.i[k], val_i64(k));
            }
            sim_npy_free(&a);
        }
    }
    // The writer's header is numpy's: 64-byte aligned, version 1.0.
    size_t len;
    char *raw = tfile_read(at("rt.npy"), &len);
    CHECK(raw != NULL);
    CHECK(memcmp(raw, "\x93NUMPY\x01\x00", 8) == 0);
    size_t hl = (unsigned char)raw[8] | (size_t)(unsigned char)raw[9] << 8;
    CHECK_EQ_INT((10 + hl) % 64, 0);
    CHECK(raw[10 + hl - 1] == '\n');
    CHECK(strstr(raw + 10, "{'descr': '<i8', 'fortran_order': False, 'shape': (4, 0, 2), }") ==
          raw + 10);
    free(raw);
    return 0;
}

// Versions 2.0 and 3.0 (4-byte header length), and headers written in other
// styles that numpy accepts: keys in another order, double quotes, "(5,)".
static int test_versions_and_styles(void) {
    float f[6];
    for (int k = 0; k < 6; k++)
        f[k] = val_f32((size_t)k);
    char hdr[1024];
    for (int major = 1; major <= 3; major++) {
        int64_t shape[2] = {2, 3};
        size_t hn = sim_npy_format_header(hdr, sizeof hdr, major, SIM_NPY_F32, 2, shape);
        CHECK(hn > 0 && hn % 64 == 0);
        char file[2048];
        memcpy(file, hdr, hn);
        memcpy(file + hn, f, sizeof f);
        CHECK_EQ_INT(tfile_write(at("v.npy"), file, hn + sizeof f), 0);
        SimNpyArray a;
        CHECK_EQ_INT(sim_npy_read(at("v.npy"), &a, err, sizeof err), SIM_OK);
        CHECK_EQ_INT(a.ndim, 2);
        CHECK(a.f[5] == f[5]);
        sim_npy_free(&a);
    }
    static const char *const dicts[] = {
        "{\"shape\": (6,), \"fortran_order\": False, \"descr\": \"<f4\"}",
        "{'descr':'<f4','fortran_order':False,'shape':(6L,)}",
        "{ 'descr' : '<f4' , 'shape' : ( 6 , ) , 'fortran_order' : False , }",
    };
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(write_raw(at("s.npy"), 1, dicts[k], f, sizeof f), 0);
        SimNpyArray a;
        SimStatus st = sim_npy_read(at("s.npy"), &a, err, sizeof err);
        if (st != SIM_OK)
            fprintf(stderr, "%s\n", err);
        CHECK_EQ_INT(st, SIM_OK);
        CHECK_EQ_INT(a.ndim, 1);
        CHECK_EQ_INT(a.shape[0], 6);
        sim_npy_free(&a);
    }
    // Invalid requests to the header formatter.
    int64_t neg[1] = {-1}, ok[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_EQ_INT(sim_npy_format_header(hdr, sizeof hdr, 4, SIM_NPY_F32, 1, ok), 0);
    CHECK_EQ_INT(sim_npy_format_header(hdr, sizeof hdr, 1, SIM_NPY_F32, 1, neg), 0);
    CHECK_EQ_INT(sim_npy_format_header(hdr, sizeof hdr, 1, SIM_NPY_F32, 9, ok), 0);
    CHECK_EQ_INT(sim_npy_format_header(hdr, 32, 1, SIM_NPY_F32, 1, ok), 0);
    return 0;
}

// One corrupt file: st is expected, and the message names the file and
// contains `want` (a byte offset and/or a field).
static int expect_bad(const char *name, SimStatus st, const char *want1, const char *want2) {
    SimNpyArray a;
    memset(&a, 0x5a, sizeof a);
    SimStatus got = sim_npy_read(at(name), &a, err, sizeof err);
    if (got != st || strstr(err, at(name)) == NULL || strstr(err, want1) == NULL ||
        (want2 && strstr(err, want2) == NULL)) {
        fprintf(stderr, "%s: got %s \"%s\", wanted %s with \"%s\" and \"%s\"\n", name,
                sim_status_name(got), err, sim_status_name(st), want1, want2 ? want2 : "");
        return 1;
    }
    CHECK(a.f == NULL && a.i == NULL); // nothing to release after a failure
    printf("  %-20s %s\n", name, strstr(err, name)); // the message, for the log
    return 0;
}

static int test_corrupt_files(void) {
    float f[16] = {0}; // 3 x 4 floats, and room for trailing bytes
    int fails = 0;
    const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
    // Preamble.
    CHECK_EQ_INT(tfile_write(at("magic.npy"), "\x93NUMPX\x01\x00\x10\x00", 10), 0);
    fails += expect_bad("magic.npy", SIM_EFORMAT, "byte 0:", "not an .npy file");
    CHECK_EQ_INT(tfile_write(at("empty.npy"), "", 0), 0);
    fails += expect_bad("empty.npy", SIM_EFORMAT, "byte 0:", "empty file");
    CHECK_EQ_INT(tfile_write(at("short.npy"), "\x93NUM", 4), 0);
    fails += expect_bad("short.npy", SIM_EFORMAT, "byte 4:", "truncated header");
    CHECK_EQ_INT(tfile_write(at("nolen.npy"), "\x93NUMPY\x01\x00\x10", 9), 0);
    fails += expect_bad("nolen.npy", SIM_EFORMAT, "byte 8:", "truncated header");
    CHECK_EQ_INT(tfile_write(at("hlen.npy"), "\x93NUMPY\x01\x00\x80\x00{'descr'", 17), 0);
    fails += expect_bad("hlen.npy", SIM_EFORMAT, "byte 10:", "claims 128 bytes");
    CHECK_EQ_INT(tfile_write(at("v4.npy"), "\x93NUMPY\x04\x00\x10\x00", 10), 0);
    fails += expect_bad("v4.npy", SIM_EFORMAT, "byte 6:", "version 4.0");
    // Header fields (the dict starts at byte 10 in version 1.0).
    CHECK_EQ_INT(write_raw(at("fortran.npy"), 1,
                           "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", f, 48),
                 0);
    fails += expect_bad("fortran.npy", SIM_EFORMAT, "byte 44:", "'fortran_order'");
    CHECK_EQ_INT(write_raw(at("u2.npy"), 1,
                           "{'descr': '<u2', 'fortran_order': False, 'shape': (3, 4), }", f, 24),
                 0);
    fails += expect_bad("u2.npy", SIM_EFORMAT, "byte 20:", "unsupported dtype '<u2'");
    CHECK_EQ_INT(write_raw(at("bool.npy"), 1,
                           "{'descr': '|b1', 'fortran_order': False, 'shape': (3, 4), }", f, 12),
                 0);
    fails += expect_bad("bool.npy", SIM_EFORMAT, "field 'descr'", "'|b1'");
    CHECK_EQ_INT(write_raw(at("struct.npy"), 1,
                           "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }",
                           f, 12),
                 0);
    fails += expect_bad("struct.npy", SIM_EFORMAT, "byte 20:", "structured dtypes");
    CHECK_EQ_INT(write_raw(at("be.npy"), 2,
                           "{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), }", f, 48),
                 0);
    fails += expect_bad("be.npy", SIM_EFORMAT, "byte 22:", "big-endian");
    CHECK_EQ_INT(write_raw(at("ovf.npy"), 1,
                           "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, "
                           "4294967296), }",
                           f, 48),
                 0);
    fails += expect_bad("ovf.npy", SIM_EFORMAT, "byte 60: header field 'shape'", "too many");
    CHECK_EQ_INT(write_raw(at("big.npy"), 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': "
                           "(99999999999999999999,), }",
                           f, 48),
                 0);
    fails += expect_bad("big.npy", SIM_EFORMAT, "byte 61:", "64 bits");
    CHECK_EQ_INT(write_raw(at("neg.npy"), 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 4), }", f, 48),
                 0);
    fails += expect_bad("neg.npy", SIM_EFORMAT, "byte 61:", "negative dimension");
    CHECK_EQ_INT(write_raw(at("int.npy"), 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (12), }", f, 48),
                 0);
    fails += expect_bad("int.npy", SIM_EFORMAT, "byte 60:", "not a tuple");
    CHECK_EQ_INT(write_raw(at("nokey.npy"), 1, "{'descr': '<f4', 'shape': (12,), }", f, 48), 0);
    fails += expect_bad("nokey.npy", SIM_EFORMAT, "byte 10:", "missing key 'fortran_order'");
    CHECK_EQ_INT(write_raw(at("extra_key.npy"), 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (12,), 'x': 1}", f,
                           48),
                 0);
    fails += expect_bad("extra_key.npy", SIM_EFORMAT, "byte 67:", "unknown key 'x'");
    CHECK_EQ_INT(write_raw(at("twice.npy"), 1,
                           "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': "
                           "(12,)}",
                           f, 48),
                 0);
    fails += expect_bad("twice.npy", SIM_EFORMAT, "byte 27:", "appears twice");
    CHECK_EQ_INT(write_raw(at("junk.npy"), 1,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (12,)} junk", f,
                           48),
                 0);
    fails += expect_bad("junk.npy", SIM_EFORMAT, "byte 67:", "after the dict");
    CHECK_EQ_INT(write_raw(at("open.npy"), 1, "{'descr': '<f4', 'fortran_order': False, ", f,
                           48),
                 0);
    fails += expect_bad("open.npy", SIM_EFORMAT, "byte 64:", "header ends early");
    // Data: 3 x 4 floats are 48 bytes after the header (128 bytes, as the
    // dict is longer than 54 bytes).
    CHECK_EQ_INT(write_raw(at("trunc.npy"), 1, good, f, 47), 0);
    fails += expect_bad("trunc.npy", SIM_EFORMAT, "byte 175:", "the file has 47");
    CHECK_EQ_INT(write_raw(at("nodata.npy"), 1, good, f, 0), 0);
    fails += expect_bad("nodata.npy", SIM_EFORMAT, "byte 128:", "needs 48 bytes");
    CHECK_EQ_INT(write_raw(at("trail.npy"), 1, good, f, 48 + 3), 0);
    fails += expect_bad("trail.npy", SIM_EFORMAT, "byte 176:", "3 extra bytes");
    // Unreadable.
    fails += expect_bad("does_not_exist.npy", SIM_EIO, "cannot open", "No such file");
    CHECK_EQ_INT(mkdir(at("adir.npy"), 0700), 0);
    fails += expect_bad("adir.npy", SIM_EIO, "directory", NULL);
    return fails;
}

// The writer is atomic: a failure leaves nothing, success replaces.
static int test_writer_atomic(void) {
    float f[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    CHECK_EQ_INT(sim_npy_write(at("missing/dir/x.npy"), SIM_NPY_F32, f, 1, shape), SIM_EIO);
    char sub[640];
    snprintf(sub, sizeof sub, "%s", at("atomic"));
    CHECK_EQ_INT(mkdir(sub, 0700), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/x.npy", sub);
    CHECK_EQ_INT(tfile_write(path, "old", 3), 0);
    CHECK_EQ_INT(sim_npy_write(path, SIM_NPY_F32, f, 1, shape), SIM_OK);
    CHECK_EQ_INT(tfile_dir_entries(sub), 1); // no temporary left beside it
    SimNpyArray a;
    CHECK_EQ_INT(sim_npy_read(path, &a, err, sizeof err), SIM_OK);
    CHECK(a.numel == 4 && a.f[3] == 4.0f);
    sim_npy_free(&a);
    int64_t bad[1] = {-2};
    CHECK_EQ_INT(sim_npy_write(path, SIM_NPY_F32, f, 1, bad), SIM_EINVAL);
    CHECK_EQ_INT(sim_npy_write(path, (SimNpyType)9, f, 1, shape), SIM_EINVAL);
    CHECK_EQ_INT(tfile_dir_entries(sub), 1);
    unlink(path);
    rmdir(sub);
    return 0;
}

// Files written by numpy read correctly, and numpy reads ddplab's files.
static int test_numpy_interop(void) {
    float f[12];
    int64_t i8[5];
    for (size_t k = 0; k < 12; k++)
        f[k] = val_f32(k);
    for (size_t k = 0; k < 5; k++)
        i8[k] = val_i64(k);
    int64_t s2[2] = {4, 3}, s1[1] = {5};
    CHECK_EQ_INT(sim_npy_write(at("dd_f32.npy"), SIM_NPY_F32, f, 2, s2), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(at("dd_i64.npy"), SIM_NPY_I64, i8, 1, s1), SIM_OK);
    const char *args[] = {dir, NULL};
    int rc = torchref_run("npy_ref.py", args);
    if (rc == 77 || rc == 127) {
        printf("SKIP test_numpy_interop: %s cannot run numpy\n", torchref_python());
        return 0;
    }
    CHECK_EQ_INT(rc, 0);
    SimNpyArray a;
    CHECK_EQ_INT(sim_npy_read(at("np_f32.npy"), &a, err, sizeof err), SIM_OK);
    CHECK(a.stored == SIM_NPY_F32 && a.ndim == 2 && a.shape[0] == 3 && a.shape[1] == 5);
    for (size_t k = 0; k < 15; k++)
        CHECK(a.f[k] == val_f32(k));
    sim_npy_free(&a);
    CHECK_EQ_INT(sim_npy_read(at("np_f64.npy"), &a, err, sizeof err), SIM_OK);
    CHECK(a.stored == SIM_NPY_F64 && a.ndim == 1 && a.shape[0] == 7);
    for (size_t k = 0; k < 7; k++)
        CHECK(a.f[k] == (float)val_f64(k));
    sim_npy_free(&a);
    CHECK_EQ_INT(sim_npy_read(at("np_i64.npy"), &a, err, sizeof err), SIM_OK);
    CHECK(a.stored == SIM_NPY_I64 && a.ndim == 3 && a.shape[2] == 3 && a.numel == 24);
    for (size_t k = 0; k < 24; k++)
        CHECK_EQ_INT(a.i[k], val_i64(k));
    sim_npy_free(&a);
    CHECK_EQ_INT(sim_npy_read(at("np_i32.npy"), &a, err, sizeof err), SIM_OK);
    CHECK(a.stored == SIM_NPY_I32 && a.ndim == 1 && a.numel == 6);
    for (size_t k = 0; k < 6; k++)
        CHECK_EQ_INT(a.i[k], val_i32(k));
    sim_npy_free(&a);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(dir, sizeof dir, "npy") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_round_trips);
    RUN(test_versions_and_styles);
    RUN(test_corrupt_files);
    RUN(test_writer_atomic);
    RUN(test_numpy_interop);
    rmdir(at("adir.npy"));
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
