// tests/test_dataset.c: datasets and batches: .npy loading with every
// validation error, the synthetic sets (shapes, determinism, the arith
// task's text and vocabulary), text files as bytes, and the loader's copies.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "data/dataset.h"
#include "formats/npy.h"
#include "test_env.h"
#include "test_files.h"

static char dir[512];
static char err[1024];

static const char *at(const char *name) {
    static char p[4][640];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

// X [n, d] float32 with x[i][j] = i + j / 100, labels[i] = i % c as int64.
static int write_xy(const char *xname, const char *yname, int64_t n, int64_t d, int c) {
    float *x = malloc((size_t)(n * d + 1) * sizeof(float));
    int64_t *y = malloc((size_t)(n + 1) * sizeof(int64_t));
    CHECK(x != NULL && y != NULL);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < d; j++)
            x[i * d + j] = (float)i + (float)j / 100.0f;
        y[i] = i % c;
    }
    int64_t xs[2] = {n, d}, ys[1] = {n};
    CHECK_EQ_INT(sim_npy_write(at(xname), SIM_NPY_F32, x, 2, xs), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(at(yname), SIM_NPY_I64, y, 1, ys), SIM_OK);
    free(x);
    free(y);
    return 0;
}

// ----------------------------------------------------------------------------
// .npy datasets

static int test_npy_classes(void) {
    CHECK(write_xy("x.npy", "y.npy", 20, 3, 4) == 0);
    SimDataset ds;
    CHECK_EQ_INT(sim_dataset_load_npy(&ds, at("x.npy"), at("y.npy"), 0, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ds.kind, SIM_DATA_CLASSES);
    CHECK_EQ_INT(ds.n, 20);
    CHECK_EQ_INT(ds.features, 3);
    CHECK_EQ_INT(ds.classes, 4); // largest label + 1
    CHECK(ds.x[7 * 3 + 2] == 7.02f);
    CHECK_EQ_INT(ds.labels[7], 3);
    CHECK(strcmp(ds.name, "x.npy") == 0);
    char line[256];
    CHECK_STR_CONTAINS(sim_dataset_describe(&ds, line, sizeof line),
                       "x.npy: 20 samples x 3 features, 4 classes");
    sim_dataset_free(&ds);
    CHECK_EQ_INT(sim_dataset_load_npy(&ds, at("x.npy"), at("y.npy"), 10, err, sizeof err),
                 SIM_OK);
    CHECK_EQ_INT(ds.classes, 10); // given
    sim_dataset_free(&ds);
    sim_dataset_free(&ds); // safe twice

    // float64 features [N, 2, 3] are converted and flattened to D = 6;
    // int32 labels are accepted.
    double x64[4 * 6];
    int32_t y32[4] = {1, 0, 1, 0};
    for (int k = 0; k < 24; k++)
        x64[k] = k * 0.25;
    int64_t s3[3] = {4, 2, 3}, s1[1] = {4};
    CHECK_EQ_INT(sim_npy_write(at("x64.npy"), SIM_NPY_F64, x64, 3, s3), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(at("y32.npy"), SIM_NPY_I32, y32, 1, s1), SIM_OK);
    CHECK_EQ_INT(sim_dataset_load_npy(&ds, at("x64.npy"), at("y32.npy"), 0, err, sizeof err),
                 SIM_OK);
    CHECK_EQ_INT(ds.features, 6);
    CHECK_EQ_INT(ds.classes, 2);
    CHECK(ds.x[23] == 5.75f);
    sim_dataset_free(&ds);
    return 0;
}

static int test_npy_targets(void) {
    float x[5 * 2], t[5 * 3];
    for (int k = 0; k < 10; k++)
        x[k] = (float)k;
    for (int k = 0; k < 15; k++)
        t[k] = -(float)k;
    int64_t xs[2] = {5, 2}, ts[2] = {5, 3}, t1[1] = {5};
    CHECK_EQ_INT(sim_npy_write(at("rx.npy"), SIM_NPY_F32, x, 2, xs), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(at("rt.npy"), SIM_NPY_F32, t, 2, ts), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(at("rt1.npy"), SIM_NPY_F32, t, 1, t1), SIM_OK);
    SimDataset ds;
    CHECK_EQ_INT(sim_dataset_load_npy(&ds, at("rx.npy"), at("rt.npy"), 0, err, sizeof err),
                 SIM_OK);
    CHECK_EQ_INT(ds.kind, SIM_DATA_TARGETS);
    CHECK_EQ_INT(ds.target_dim, 3);
    CHECK(ds.targets[14] == -14.0f && ds.labels == NULL);
    sim_dataset_free(&ds);
    CHECK_EQ_INT(sim_dataset_load_npy(&ds, at("rx.npy"), at("rt1.npy"), 0, err, sizeof err),
                 SIM_OK);
    CHECK_EQ_INT(ds.target_dim, 1);
    sim_dataset_free(&ds);
    return 0;
}

// One rejected pair: status st, and a message containing both strings.
static int expect_reject(const char *x, const char *y, int classes, SimStatus st,
                         const char *want1, const char *want2) {
    SimDataset ds;
    SimStatus got = sim_dataset_load_npy(&ds, at(x), at(y), classes, err, sizeof err);
    if (got != st || strstr(err, want1) == NULL || (want2 && strstr(err, want2) == NULL)) {
        fprintf(stderr, "%s + %s: got %s \"%s\", wanted %s with \"%s\" and \"%s\"\n", x, y,
                sim_status_name(got), err, sim_status_name(st), want1, want2 ? want2 : "");
        return 1;
    }
    CHECK(ds.x == NULL && ds.labels == NULL && ds.targets == NULL);
    printf("  %s\n", err);
    return 0;
}

static int test_npy_rejects(void) {
    int fails = 0;
    CHECK(write_xy("x20.npy", "y19.npy", 19, 3, 4) == 0);
    CHECK(write_xy("x20.npy", "y20.npy", 20, 3, 4) == 0);
    fails += expect_reject("x20.npy", "y19.npy", 0, SIM_EFORMAT, "y19.npy: 19 labels",
                           "for 20 samples in");
    // Labels out of range, negative.
    int64_t y[40];
    for (int k = 0; k < 40; k++)
        y[k] = k % 3;
    int64_t ys[1] = {20};
    CHECK_EQ_INT(sim_npy_write(at("y3.npy"), SIM_NPY_I64, y, 1, ys), SIM_OK);
    fails += expect_reject("x20.npy", "y3.npy", 2, SIM_EFORMAT, "label at index 2 is 2",
                           "out of range for 2 classes (0..1)");
    y[13] = -1;
    CHECK_EQ_INT(sim_npy_write(at("yneg.npy"), SIM_NPY_I64, y, 1, ys), SIM_OK);
    fails += expect_reject("x20.npy", "yneg.npy", 0, SIM_EFORMAT, "yneg.npy: label at index 13",
                           "is -1");
    y[13] = 5000000000LL;
    CHECK_EQ_INT(sim_npy_write(at("ybig.npy"), SIM_NPY_I64, y, 1, ys), SIM_OK);
    fails += expect_reject("x20.npy", "ybig.npy", 0, SIM_EFORMAT, "index 13", "too large");
    int64_t y2s[2] = {20, 2};
    CHECK_EQ_INT(sim_npy_write(at("y2d.npy"), SIM_NPY_I64, y, 2, y2s), SIM_OK);
    fails += expect_reject("x20.npy", "y2d.npy", 0, SIM_EFORMAT, "y2d.npy", "shape [N]");
    // NaN and infinity in the features and targets, named by index.
    float x[20 * 3] = {0};
    int64_t xs[2] = {20, 3};
    x[5 * 3 + 2] = NAN;
    CHECK_EQ_INT(sim_npy_write(at("xnan.npy"), SIM_NPY_F32, x, 2, xs), SIM_OK);
    fails += expect_reject("xnan.npy", "y20.npy", 0, SIM_EFORMAT,
                           "xnan.npy: sample 5, feature 2 (element 17) is NaN", NULL);
    x[5 * 3 + 2] = 0;
    x[19 * 3] = -INFINITY;
    CHECK_EQ_INT(sim_npy_write(at("xinf.npy"), SIM_NPY_F32, x, 2, xs), SIM_OK);
    fails += expect_reject("xinf.npy", "y20.npy", 0, SIM_EFORMAT, "sample 19, feature 0",
                           "infinite");
    double big[20 * 3] = {0};
    big[4] = 1e300;
    CHECK_EQ_INT(sim_npy_write(at("xbig.npy"), SIM_NPY_F64, big, 2, xs), SIM_OK);
    fails += expect_reject("xbig.npy", "y20.npy", 0, SIM_EFORMAT, "sample 1, feature 1",
                           "too large for float32");
    int64_t ts[2] = {20, 3};
    CHECK_EQ_INT(sim_npy_write(at("tinf.npy"), SIM_NPY_F32, x, 2, ts), SIM_OK);
    fails += expect_reject("x20.npy", "tinf.npy", 0, SIM_EFORMAT, "tinf.npy: sample 19, target 0",
                           NULL);
    // Empty datasets and wrong shapes or types.
    int64_t e2[2] = {0, 3}, e1[1] = {0}, d0[2] = {20, 0}, flat[1] = {60};
    CHECK_EQ_INT(sim_npy_write(at("xe.npy"), SIM_NPY_F32, x, 2, e2), SIM_OK);
    CHECK_EQ_INT(sim_npy_write(at("ye.npy"), SIM_NPY_I64, y, 1, e1), SIM_OK);
    fails += expect_reject("xe.npy", "ye.npy", 0, SIM_EFORMAT, "xe.npy: empty dataset", NULL);
    CHECK_EQ_INT(sim_npy_write(at("xd0.npy"), SIM_NPY_F32, x, 2, d0), SIM_OK);
    fails += expect_reject("xd0.npy", "y20.npy", 0, SIM_EFORMAT, "no features", NULL);
    CHECK_EQ_INT(sim_npy_write(at("x1d.npy"), SIM_NPY_F32, x, 1, flat), SIM_OK);
    fails += expect_reject("x1d.npy", "y20.npy", 0, SIM_EFORMAT, "shape [N, D], found (60,)",
                           NULL);
    fails += expect_reject("y20.npy", "y20.npy", 0, SIM_EFORMAT, "must be float32 or float64",
                           "<i8");
    // Unreadable and malformed files.
    fails += expect_reject("nope.npy", "y20.npy", 0, SIM_EIO, "nope.npy: cannot open", NULL);
    fails += expect_reject("x20.npy", "nope.npy", 0, SIM_EIO, "nope.npy: cannot open", NULL);
    CHECK_EQ_INT(tfile_write(at("bad.npy"), "hello", 5), 0);
    fails += expect_reject("x20.npy", "bad.npy", 0, SIM_EFORMAT, "bad.npy: byte 0", NULL);
    return fails;
}

// ----------------------------------------------------------------------------
// synthetic sets

static int same_dataset(const SimDataset *a, const SimDataset *b) {
    if (a->n != b->n || a->kind != b->kind)
        return 0;
    if (a->kind == SIM_DATA_TOKENS)
        return a->ntokens == b->ntokens &&
               memcmp(a->tokens, b->tokens, (size_t)a->ntokens * sizeof(int32_t)) == 0;
    size_t nd = (size_t)a->n * (size_t)a->features;
    if (memcmp(a->x, b->x, nd * sizeof(float)) != 0)
        return 0;
    if (a->kind == SIM_DATA_CLASSES)
        return memcmp(a->labels, b->labels, (size_t)a->n * sizeof(int32_t)) == 0;
    return memcmp(a->targets, b->targets, (size_t)a->n * (size_t)a->target_dim * 4) == 0;
}

static int make(const char *spec, SimDataset *ds) {
    SimSynthSpec s;
    if (sim_dataset_synth_parse(spec, &s, err, sizeof err) != SIM_OK ||
        sim_dataset_synth(ds, &s, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", spec, err);
        return 1;
    }
    return 0;
}

static int test_blobs(void) {
    SimDataset a, b, c;
    CHECK(make("blobs:n=600,features=5,classes=3,seed=11", &a) == 0);
    CHECK(make("blobs:n=600,features=5,classes=3,seed=11", &b) == 0);
    CHECK(make("blobs:n=600,features=5,classes=3,seed=12", &c) == 0);
    CHECK_EQ_INT(a.kind, SIM_DATA_CLASSES);
    CHECK(a.n == 600 && a.features == 5 && a.classes == 3);
    CHECK(same_dataset(&a, &b));
    CHECK(!same_dataset(&a, &c));
    // Every class appears, and a nearest-centroid classifier separates the
    // clusters (centres 3 apart per dimension against unit noise).
    double mean[3][5] = {{0}};
    int count[3] = {0};
    for (int64_t i = 0; i < a.n; i++) {
        CHECK(a.labels[i] >= 0 && a.labels[i] < 3);
        count[a.labels[i]]++;
        for (int j = 0; j < 5; j++)
            mean[a.labels[i]][j] += a.x[i * 5 + j];
    }
    for (int k = 0; k < 3; k++) {
        CHECK(count[k] > 150);
        for (int j = 0; j < 5; j++)
            mean[k][j] /= count[k];
    }
    int right = 0;
    for (int64_t i = 0; i < a.n; i++) {
        int best = 0;
        double bd = INFINITY;
        for (int k = 0; k < 3; k++) {
            double d = 0;
            for (int j = 0; j < 5; j++)
                d += (a.x[i * 5 + j] - mean[k][j]) * (a.x[i * 5 + j] - mean[k][j]);
            if (d < bd) {
                bd = d;
                best = k;
            }
        }
        right += best == a.labels[i];
    }
    CHECK(right > 540);
    sim_dataset_free(&a);
    sim_dataset_free(&b);
    sim_dataset_free(&c);
    // The clusters depend on the seed only: fewer samples give a prefix.
    CHECK(make("blobs:n=50,features=5,classes=3,seed=11", &a) == 0);
    CHECK(make("blobs:n=80,features=5,classes=3,seed=11", &b) == 0);
    CHECK(memcmp(a.x, b.x, 50 * 5 * sizeof(float)) == 0);
    sim_dataset_free(&a);
    sim_dataset_free(&b);
    return 0;
}

static int test_teacher(void) {
    SimDataset a, b, c;
    CHECK(make("teacher:n=300,features=6,targets=2,hidden=8,noise=0,seed=3", &a) == 0);
    CHECK(make("teacher:n=300,features=6,targets=2,hidden=8,noise=0,seed=3", &b) == 0);
    CHECK(make("teacher:n=300,features=6,targets=2,hidden=8,noise=0.5,seed=3", &c) == 0);
    CHECK_EQ_INT(a.kind, SIM_DATA_TARGETS);
    CHECK(a.n == 300 && a.features == 6 && a.target_dim == 2 && a.labels == NULL);
    CHECK(same_dataset(&a, &b));
    // Same teacher and inputs, noise added to the targets only.
    CHECK(memcmp(a.x, c.x, 300 * 6 * sizeof(float)) == 0);
    double var = 0, diff = 0, mean = 0;
    for (int k = 0; k < 600; k++)
        mean += a.targets[k] / 600.0;
    for (int k = 0; k < 600; k++) {
        CHECK(isfinite(a.targets[k]));
        var += (a.targets[k] - mean) * (a.targets[k] - mean) / 600.0;
        diff += (c.targets[k] - a.targets[k]) * (c.targets[k] - a.targets[k]) / 600.0;
    }
    CHECK(var > 0.05);                      // the targets depend on x
    CHECK(diff > 0.2 && diff < 0.3);        // noise 0.5: variance 0.25
    sim_dataset_free(&a);
    sim_dataset_free(&b);
    sim_dataset_free(&c);
    return 0;
}

static int test_arith(void) {
    SimDataset ds;
    CHECK(make("arith:lines=500,ctx=16,seed=5", &ds) == 0);
    CHECK_EQ_INT(ds.kind, SIM_DATA_TOKENS);
    CHECK_EQ_INT(ds.vocab, 13);
    CHECK(memcmp(ds.vocab_bytes, "\n+0123456789=", 13) == 0);
    CHECK_EQ_INT(ds.ctx, 16);
    CHECK_EQ_INT(ds.n, ds.ntokens - 16 - 1);
    char *text = malloc((size_t)ds.ntokens + 1);
    CHECK(text != NULL);
    CHECK_EQ_INT(sim_dataset_decode(&ds, ds.tokens, (size_t)ds.ntokens, text,
                                    (size_t)ds.ntokens + 1),
                 ds.ntokens);
    // Every line is "a+b=c\n" with a, b < 100 and c = a + b.
    int lines = 0;
    for (char *p = text; *p; lines++) {
        char *end;
        long a = strtol(p, &end, 10);
        CHECK(end > p && end - p <= 2 && *end == '+');
        p = end + 1;
        long b = strtol(p, &end, 10);
        CHECK(end > p && end - p <= 2 && *end == '=');
        p = end + 1;
        long c = strtol(p, &end, 10);
        CHECK(end > p && *end == '\n');
        CHECK(a >= 0 && b >= 0 && a < 100 && b < 100 && c == a + b);
        p = end + 1;
    }
    CHECK_EQ_INT(lines, 500);
    // About 9.3 characters a line (two-digit operands 90% of the time, a
    // three-digit sum about half the time): with 2 ln 100 nats of random
    // operands per line, the loss floor is near 1 nat per token (docs/training.md).
    double per_line = (double)ds.ntokens / lines;
    CHECK(per_line > 9.0 && per_line < 9.6);
    printf("  arith's first line: %.*s\n", (int)strcspn(text, "\n"), text);
    // Encoding the text again gives the same ids.
    int32_t *ids = malloc((size_t)ds.ntokens * sizeof(int32_t));
    CHECK(ids != NULL);
    CHECK_EQ_INT(sim_dataset_encode(&ds, text, (size_t)ds.ntokens, ids, NULL), 0);
    CHECK(memcmp(ids, ds.tokens, (size_t)ds.ntokens * sizeof(int32_t)) == 0);
    size_t bad = 0;
    CHECK_EQ_INT(sim_dataset_encode(&ds, "12*3", 4, ids, &bad), -1);
    CHECK_EQ_INT(bad, 2);
    free(ids);
    free(text);
    // Deterministic from the seed; a longer run starts with the same lines.
    SimDataset b;
    CHECK(make("arith:lines=800,ctx=16,seed=5", &b) == 0);
    CHECK(b.ntokens > ds.ntokens);
    CHECK(memcmp(b.tokens, ds.tokens, (size_t)ds.ntokens * sizeof(int32_t)) == 0);
    sim_dataset_free(&b);
    CHECK(make("arith:lines=500,ctx=16,seed=6", &b) == 0);
    CHECK(b.ntokens != ds.ntokens ||
          memcmp(b.tokens, ds.tokens, (size_t)ds.ntokens * sizeof(int32_t)) != 0);
    sim_dataset_free(&b);
    sim_dataset_free(&ds);
    // The context length must be set.
    SimSynthSpec s;
    CHECK_EQ_INT(sim_dataset_synth_parse("arith", &s, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(sim_dataset_synth(&ds, &s, err, sizeof err), SIM_EINVAL);
    CHECK_STR_CONTAINS(err, "context length is not set");
    return 0;
}

static int test_synth_parse(void) {
    SimSynthSpec s;
    CHECK_EQ_INT(sim_dataset_synth_parse("blobs", &s, err, sizeof err), SIM_OK);
    CHECK(s.n == 2048 && s.features == 16 && s.classes == 4 && !s.seed_given);
    CHECK_EQ_INT(sim_dataset_synth_parse("teacher:targets=3,noise=0.2,seed=9", &s, err,
                                         sizeof err),
                 SIM_OK);
    CHECK(s.target_dim == 3 && fabsf(s.noise - 0.2f) < 1e-7f && s.seed == 9 && s.seed_given);
    CHECK_EQ_INT(sim_dataset_synth_parse("arith:lines=10,digits=3,ctx=8", &s, err, sizeof err),
                 SIM_OK);
    CHECK(s.n == 10 && s.digits == 3 && s.ctx == 8);
    static const char *const bad[][2] = {
        {"moons", "unknown dataset 'moons'"},
        {"teacher:classes=3", "teacher: unknown key 'classes'"},
        {"arith:n=5", "arith: unknown key 'n'"},
        {"blobs:n=0", "blobs: n=0: expected an integer from 1"},
        {"blobs:classes=1", "classes=1"},
        {"blobs:features=abc", "features=abc"},
        {"blobs:noise=-1", "noise=-1"},
        {"blobs:seed=-4", "seed=-4"},
        {"blobs:n", "'n': expected key=value"},
        {"arith:digits=10", "digits=10"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        if (sim_dataset_synth_parse(bad[k][0], &s, err, sizeof err) != SIM_EINVAL ||
            strstr(err, bad[k][1]) == NULL) {
            fprintf(stderr, "%s: \"%s\", wanted \"%s\"\n", bad[k][0], err, bad[k][1]);
            return 1;
        }
    }
    SimDataset ds;
    CHECK_EQ_INT(sim_dataset_synth_parse("blobs:n=1000000,features=2000", &s, err, sizeof err),
                 SIM_OK);
    CHECK_EQ_INT(sim_dataset_synth(&ds, &s, err, sizeof err), SIM_EINVAL); // 2e9 floats
    CHECK_STR_CONTAINS(err, "blobs: 1000000 samples x 2000 values is too large");
    return 0;
}

// ----------------------------------------------------------------------------
// text files

static int test_text(void) {
    const char *txt = "h\xc3\xa9llo w\xc3\xb6rld\nhello\n"; // "héllo wörld\nhello\n"
    size_t len = strlen(txt);
    CHECK_EQ_INT(tfile_write(at("t.txt"), txt, len), 0);
    SimDataset ds;
    CHECK_EQ_INT(sim_dataset_load_text(&ds, at("t.txt"), 4, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ds.kind, SIM_DATA_TOKENS);
    CHECK_EQ_INT(ds.ntokens, (int64_t)len); // bytes, not characters
    CHECK_EQ_INT(ds.n, (int64_t)len - 4 - 1);
    CHECK(strcmp(ds.name, "t.txt") == 0);
    // Vocabulary: the distinct bytes, ascending: \n ' ' d e h l o r w 0xa9 0xb6 0xc3.
    CHECK_EQ_INT(ds.vocab, 12);
    CHECK(memcmp(ds.vocab_bytes, "\n dehlorw\xa9\xb6\xc3", 12) == 0);
    char back[64];
    sim_dataset_decode(&ds, ds.tokens, (size_t)ds.ntokens, back, sizeof back);
    CHECK(strcmp(back, txt) == 0);
    sim_dataset_free(&ds);
    // Too short for one window of ctx + 1 tokens (needs ctx + 2 bytes).
    CHECK_EQ_INT(tfile_write(at("short.txt"), "abcde", 5), 0);
    CHECK_EQ_INT(sim_dataset_load_text(&ds, at("short.txt"), 4, err, sizeof err), SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, "short.txt: 5 bytes of text are too short");
    CHECK_STR_CONTAINS(err, "need at least 6 bytes");
    CHECK_EQ_INT(sim_dataset_load_text(&ds, at("short.txt"), 3, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ds.n, 1);
    sim_dataset_free(&ds);
    CHECK_EQ_INT(tfile_write(at("empty.txt"), "", 0), 0);
    CHECK_EQ_INT(sim_dataset_load_text(&ds, at("empty.txt"), 4, err, sizeof err), SIM_EFORMAT);
    CHECK_STR_CONTAINS(err, "empty.txt: empty text");
    CHECK_EQ_INT(sim_dataset_load_text(&ds, at("none.txt"), 4, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "none.txt: cannot open");
    CHECK_EQ_INT(sim_dataset_load_text(&ds, dir, 4, err, sizeof err), SIM_EIO);
    CHECK_STR_CONTAINS(err, "directory");
    CHECK_EQ_INT(sim_dataset_load_text(&ds, at("t.txt"), 0, err, sizeof err), SIM_EINVAL);
    // A file larger than the reader's first buffer.
    size_t big = tenv_quick() ? 70000 : 300000;
    char *b = malloc(big);
    CHECK(b != NULL);
    for (size_t k = 0; k < big; k++)
        b[k] = (char)('a' + k % 7);
    CHECK_EQ_INT(tfile_write(at("big.txt"), b, big), 0);
    free(b);
    CHECK_EQ_INT(sim_dataset_load_text(&ds, at("big.txt"), 64, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(ds.ntokens, (int64_t)big);
    CHECK_EQ_INT(ds.vocab, 7);
    CHECK_EQ_INT(ds.tokens[big - 1], (int32_t)((big - 1) % 7));
    sim_dataset_free(&ds);
    return 0;
}

// ----------------------------------------------------------------------------
// batches

static int test_loader(void) {
    SimDataset ds;
    SimLoader ld;
    SimBatch b;
    CHECK(write_xy("lx.npy", "ly.npy", 10, 3, 4) == 0);
    CHECK_EQ_INT(sim_dataset_load_npy(&ds, at("lx.npy"), at("ly.npy"), 0, err, sizeof err),
                 SIM_OK);
    CHECK_EQ_INT(sim_loader_init(&ld, &ds, 4), SIM_OK);
    int64_t idx[3] = {5, 0, 9};
    CHECK_EQ_INT(sim_loader_fill(&ld, idx, 3, &b), SIM_OK);
    CHECK(b.n == 3 && b.features == 3 && b.seq == 0 && b.tokens == NULL && b.targets == NULL);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(b.indices[k], idx[k]);
        CHECK_EQ_INT(b.labels[k], idx[k] % 4);
        for (int j = 0; j < 3; j++)
            CHECK(b.x[k * 3 + j] == (float)idx[k] + (float)j / 100.0f);
    }
    int64_t out_of_range[1] = {10}, neg[1] = {-1};
    CHECK_EQ_INT(sim_loader_fill(&ld, out_of_range, 1, &b), SIM_EINVAL);
    CHECK_EQ_INT(sim_loader_fill(&ld, neg, 1, &b), SIM_EINVAL);
    CHECK_EQ_INT(sim_loader_fill(&ld, idx, 5, &b), SIM_EINVAL); // more than max_batch
    CHECK_EQ_INT(sim_loader_fill(&ld, idx, 0, &b), SIM_EINVAL);
    sim_loader_free(&ld);
    sim_dataset_free(&ds);
    CHECK_EQ_INT(sim_loader_init(&ld, &ds, 0), SIM_EINVAL);

    // Regression targets.
    CHECK(make("teacher:n=20,features=4,targets=3", &ds) == 0);
    CHECK_EQ_INT(sim_loader_init(&ld, &ds, 2), SIM_OK);
    int64_t two[2] = {19, 7};
    CHECK_EQ_INT(sim_loader_fill(&ld, two, 2, &b), SIM_OK);
    CHECK(b.target_dim == 3 && b.labels == NULL);
    CHECK(memcmp(b.x + 4, ds.x + 7 * 4, 4 * sizeof(float)) == 0);
    CHECK(memcmp(b.targets, ds.targets + 19 * 3, 3 * sizeof(float)) == 0);
    sim_loader_free(&ld);
    sim_dataset_free(&ds);

    // Token windows: x = t[i .. i+T), y = t[i+1 .. i+T], up to the last sample.
    CHECK(make("arith:lines=20,ctx=8,seed=1", &ds) == 0);
    CHECK_EQ_INT(sim_loader_init(&ld, &ds, 3), SIM_OK);
    int64_t w[3] = {0, ds.n - 1, 17};
    CHECK_EQ_INT(sim_loader_fill(&ld, w, 3, &b), SIM_OK);
    CHECK(b.seq == 8 && b.features == 0 && b.x == NULL);
    for (int k = 0; k < 3; k++)
        for (int t = 0; t < 8; t++) {
            CHECK_EQ_INT(b.tokens[k * 8 + t], ds.tokens[w[k] + t]);
            CHECK_EQ_INT(b.labels[k * 8 + t], ds.tokens[w[k] + t + 1]);
        }
    // The last sample's last target is token L - 2 (see dataset.h).
    CHECK_EQ_INT(w[1] + 8, ds.ntokens - 2);
    int64_t past[1] = {ds.n};
    CHECK_EQ_INT(sim_loader_fill(&ld, past, 1, &b), SIM_EINVAL);
    sim_loader_free(&ld);
    sim_loader_free(&ld); // safe twice
    sim_dataset_free(&ds);
    return 0;
}

int main(void) {
    if (tfile_mkdtemp(dir, sizeof dir, "dataset") != 0) {
        perror("mkdtemp");
        return 1;
    }
    int failures = 0;
    RUN(test_npy_classes);
    RUN(test_npy_targets);
    RUN(test_npy_rejects);
    RUN(test_blobs);
    RUN(test_teacher);
    RUN(test_arith);
    RUN(test_synth_parse);
    RUN(test_text);
    RUN(test_loader);
    tfile_rmtree(dir);
    return failures ? 1 : 0;
}
