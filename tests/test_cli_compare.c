// tests/test_cli_compare.c: `ddplab compare A.st B.st` on checkpoints of
// real runs and on files the test writes:
//   identical    a rerun of the same command: exit 0, "bit-identical"
//   different    3 steps against 4: exit 1; the table names every tensor
//                that differs; --json --top 0 holds exactly those tensors,
//                each with the differing count, max ULP and index that
//                sim_ulp_compare gives on the files as the test reads them,
//                and "largest" is the largest of them; --all, --top N
//   mismatches   a file with one tensor left out, one added, one reshaped,
//                one in another dtype, and a metadata value changed: exit 1,
//                each listed in the text and in the JSON
//   metadata     the same tensors with other metadata: exit 0, the keys shown
//   bad inputs   a corrupt file, a truncated one, a missing one, unknown or
//                bad options, one file or three: one line "ddplab compare: "
//                on stderr and exit 2; --help
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ulp.h"
#include "check.h"
#include "formats/safetensors.h"
#include "test_cli_run.h"
#include "test_files.h"

#define TIMEOUT_S 90.0

static const char *exe;
static char dir[512];

static const char *in_dir(const char *name) { return tcli_path(dir, name); }

// `ddplab run --strategy ddp -n 2 --data blobs --steps STEPS --save PATH`.
static int save_run(const char *path, const char *steps) {
    const char *args[] = {"--strategy", "ddp", "-n", "2", "--data", "blobs", "--steps", steps,
                          "--save", path, NULL};
    return tcli_run_cmd(exe, args, NULL, TIMEOUT_S);
}

// `ddplab compare A B ARGS...` (NULL-terminated, at most 6).
static void compare(TcliResult *r, const char *a, const char *b, const char *x1,
                    const char *x2, const char *x3) {
    const char *args[] = {"compare", a, b, x1, x2, x3, NULL};
    tcli_run(r, exe, args, TIMEOUT_S);
}

// `ddplab compare A B --json X1 X2`, parsed; *rc gets the exit code.
static cJSON *compare_json(const char *a, const char *b, const char *x1, const char *x2,
                           int *rc) {
    TcliResult r;
    compare(&r, a, b, "--json", x1, x2);
    cJSON *doc = cJSON_Parse(r.out);
    if (doc == NULL)
        tcli_show("ddplab compare --json", &r);
    *rc = r.rc;
    tcli_result_free(&r);
    return doc;
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static const cJSON *item(const cJSON *o, const char *k) {
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static int64_t numel(const SimStTensor *t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static int load(SimStFile *f, const char *path) {
    char err[512];
    if (sim_stfile_load(f, path, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

// What sim_ulp_compare says of tensor i of a against its namesake in b.
static SimUlpStats expected(const SimStFile *a, const SimStFile *b, int i) {
    const SimStTensor *ta = &a->tensors[i], *tb = sim_stfile_find(b, ta->name);
    SimUlpStats s;
    sim_ulp_compare(ta->dtype, ta->data, tb->data, numel(ta), &s);
    return s;
}

static int test_identical(void) {
    TcliResult r;
    compare(&r, in_dir("a.st"), in_dir("a2.st"), NULL, NULL, NULL);
    if (r.rc != 0)
        tcli_show("identical", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "bit-identical");
    CHECK_STR_CONTAINS(r.out, "step 3");
    CHECK(strstr(r.out, "metadata that differs") == NULL);
    tcli_result_free(&r);
    int rc;
    cJSON *doc = compare_json(in_dir("a.st"), in_dir("a2.st"), NULL, NULL, &rc);
    CHECK(doc != NULL);
    CHECK_EQ_INT(rc, 0);
    CHECK(cJSON_IsTrue(item(doc, "identical")));
    CHECK_EQ_INT(cJSON_GetArraySize(item(doc, "tensors")), 0);
    CHECK(cJSON_IsNull(item(doc, "largest")));
    cJSON_Delete(doc);
    return 0;
}

// Every row of the JSON table against sim_ulp_compare on the files.
static int check_rows(const cJSON *doc, const SimStFile *a, const SimStFile *b) {
    const cJSON *row;
    cJSON_ArrayForEach(row, item(doc, "tensors")) {
        const SimStTensor *t = sim_stfile_find(a, str(row, "name"));
        CHECK(t != NULL);
        SimUlpStats s = expected(a, b, (int)(t - a->tensors));
        CHECK(num(row, "max_ulp") == (double)s.max_ulp);
        CHECK_EQ_INT(num(row, "differing"), s.ndiff);
        CHECK_EQ_INT(num(row, "elements"), s.n);
        CHECK(num(row, "max_abs") == s.max_abs);
        if (s.argmax < 0) { // an identical tensor, listed by --all
            CHECK(cJSON_IsNull(item(row, "index")));
            continue;
        }
        CHECK_EQ_INT(num(row, "index"), s.argmax);
        CHECK(num(row, "a") == s.a_at && num(row, "b") == s.b_at);
    }
    return 0;
}

static int test_different(void) {
    SimStFile a, b;
    CHECK(load(&a, in_dir("a.st")) == 0 && load(&b, in_dir("b.st")) == 0);
    TcliResult r;
    compare(&r, in_dir("a.st"), in_dir("b.st"), "--top", "0", NULL);
    CHECK_EQ_INT(r.rc, 1);
    int ndiff = 0;
    uint64_t worst = 0;
    for (int i = 0; i < a.ntensors; i++) {
        SimUlpStats s = expected(&a, &b, i);
        if (s.ndiff > 0)
            CHECK_STR_CONTAINS(r.out, a.tensors[i].name);
        ndiff += s.ndiff > 0;
        worst = s.max_ulp > worst ? s.max_ulp : worst;
    }
    CHECK(ndiff > 0);
    CHECK_STR_CONTAINS(r.out, "max ULP");
    CHECK_STR_CONTAINS(r.out, "largest ULP: ");
    CHECK_STR_CONTAINS(r.out, "step: 3 | 4");
    tcli_result_free(&r);

    int rc;
    cJSON *doc = compare_json(in_dir("a.st"), in_dir("b.st"), "--top", "0", &rc);
    CHECK(doc != NULL);
    CHECK_EQ_INT(rc, 1);
    CHECK(cJSON_IsFalse(item(doc, "identical")));
    CHECK_EQ_INT(cJSON_GetArraySize(item(doc, "tensors")), ndiff);
    CHECK_EQ_INT(num(item(doc, "counts"), "differing"), ndiff);
    CHECK(check_rows(doc, &a, &b) == 0);
    CHECK(num(item(doc, "largest"), "max_ulp") == (double)worst);
    // The largest first.
    CHECK(num(cJSON_GetArrayItem(item(doc, "tensors"), 0), "max_ulp") == (double)worst);
    cJSON_Delete(doc);

    doc = compare_json(in_dir("a.st"), in_dir("b.st"), "--all", NULL, &rc);
    CHECK(doc != NULL);
    int want = a.ntensors < 20 ? a.ntensors : 20;
    CHECK_EQ_INT(cJSON_GetArraySize(item(doc, "tensors")), want);
    CHECK_EQ_INT(num(doc, "listed"), a.ntensors);
    CHECK(check_rows(doc, &a, &b) == 0);
    cJSON_Delete(doc);
    doc = compare_json(in_dir("a.st"), in_dir("b.st"), "--top=2", NULL, &rc);
    CHECK(doc != NULL);
    CHECK_EQ_INT(cJSON_GetArraySize(item(doc, "tensors")), ndiff < 2 ? ndiff : 2);
    cJSON_Delete(doc);
    sim_stfile_free(&a);
    sim_stfile_free(&b);
    return 0;
}

// a.st's tensors after an fp16 tensor "odd" of odd length (so that the
// rest lie at unaligned offsets), and a.st's metadata with "step" = 99.
// Unless same_tensors: the first tensor left out, "extra" added, the
// second reshaped to [numel, 1], the third (an fp32 one) made bf16.
static int write_variant(const char *path, const SimStFile *a, int same_tensors) {
    SimStTensor t[64];
    SimStMeta m[64];
    static const uint16_t odd[3] = {0x3C00, 0x4000, 0x4200};
    static const float extra[2] = {1.0f, 2.0f};
    uint16_t *bf = NULL;
    int n = 0, nm = 0;
    CHECK(a->ntensors + 2 <= 64 && a->nmeta <= 64 && a->ntensors >= 3);
    t[n++] = (SimStTensor){"odd", SIM_FP16, 1, {3}, odd};
    for (int i = same_tensors ? 0 : 1; i < a->ntensors; i++)
        t[n++] = a->tensors[i];
    if (!same_tensors) {
        t[n++] = (SimStTensor){"extra", SIM_FP32, 1, {2}, extra};
        t[1].ndim = 2;
        t[1].shape[0] = numel(&a->tensors[1]);
        t[1].shape[1] = 1;
        CHECK(t[2].dtype == SIM_FP32);
        bf = calloc((size_t)numel(&t[2]), sizeof *bf);
        t[2].dtype = SIM_BF16;
        t[2].data = bf;
    }
    for (int i = 0; i < a->nmeta; i++)
        if (strcmp(a->meta[i].key, SIM_STFILE_CHECKSUM_KEY) != 0)
            m[nm++] = strcmp(a->meta[i].key, "step") == 0 ? (SimStMeta){"step", "99"}
                                                          : a->meta[i];
    char err[512];
    SimStatus st = sim_stfile_save(path, t, n, m, nm, err, sizeof err);
    free(bf);
    if (st != SIM_OK)
        fprintf(stderr, "%s\n", err);
    return st != SIM_OK;
}

static int test_mismatches(void) {
    SimStFile a;
    CHECK(load(&a, in_dir("a.st")) == 0);
    const char *x = in_dir("x.st");
    CHECK(write_variant(x, &a, 0) == 0);
    TcliResult r;
    compare(&r, in_dir("a.st"), x, NULL, NULL, NULL);
    if (r.rc != 1)
        tcli_show("mismatches", &r);
    CHECK_EQ_INT(r.rc, 1);
    char line[256];
    snprintf(line, sizeof line, "only in A: %s\n", a.tensors[0].name);
    CHECK_STR_CONTAINS(r.out, line);
    CHECK_STR_CONTAINS(r.out, "only in B: extra\n");
    CHECK_STR_CONTAINS(r.out, "only in B: odd\n");
    snprintf(line, sizeof line, "shape differs: %s: fp32 [", a.tensors[1].name);
    CHECK_STR_CONTAINS(r.out, line);
    snprintf(line, sizeof line, "dtype differs: %s: fp32 [", a.tensors[2].name);
    CHECK_STR_CONTAINS(r.out, line);
    CHECK_STR_CONTAINS(r.out, "step: 3 | 99");
    tcli_result_free(&r);

    int rc;
    cJSON *doc = compare_json(in_dir("a.st"), x, NULL, NULL, &rc);
    CHECK(doc != NULL);
    CHECK_EQ_INT(rc, 1);
    const cJSON *c = item(doc, "counts");
    CHECK_EQ_INT(num(c, "only_in_a"), 1);
    CHECK_EQ_INT(num(c, "only_in_b"), 2);
    CHECK_EQ_INT(num(c, "shape_mismatch"), 1);
    CHECK_EQ_INT(num(c, "dtype_mismatch"), 1);
    CHECK_EQ_INT(num(c, "identical"), a.ntensors - 3);
    CHECK_EQ_INT(cJSON_GetArraySize(item(doc, "mismatches")), 5);
    const cJSON *mm;
    int seen = 0;
    cJSON_ArrayForEach(mm, item(doc, "mismatches")) {
        if (strcmp(str(mm, "kind"), "dtype") == 0) {
            CHECK(strcmp(str(mm, "name"), a.tensors[2].name) == 0);
            CHECK(strcmp(str(item(mm, "b"), "dtype"), "bf16") == 0);
            seen++;
        }
        if (strcmp(str(mm, "kind"), "only_in_a") == 0)
            CHECK(cJSON_IsNull(item(mm, "b")));
    }
    CHECK_EQ_INT(seen, 1);
    const cJSON *meta = cJSON_GetArrayItem(item(doc, "metadata"), 0);
    CHECK(strcmp(str(meta, "key"), "step") == 0 && strcmp(str(meta, "b"), "99") == 0);
    cJSON_Delete(doc);
    sim_stfile_free(&a);
    return 0;
}

// Bit-identical tensors with other metadata: shown, but exit 0.
static int test_metadata_only(void) {
    SimStFile a;
    CHECK(load(&a, in_dir("a.st")) == 0);
    const char *y = in_dir("y.st");
    CHECK(write_variant(y, &a, 1) == 0);
    sim_stfile_free(&a);
    // z.st: y.st's tensors, other metadata.
    TcliResult r;
    SimStFile yf;
    CHECK(load(&yf, y) == 0);
    SimStMeta m[] = {{"step", "7"}, {"note", "hello"}};
    char err[512];
    const char *z = in_dir("z.st");
    CHECK(sim_stfile_save(z, yf.tensors, yf.ntensors, m, 2, err, sizeof err) == SIM_OK);
    sim_stfile_free(&yf);
    compare(&r, y, z, NULL, NULL, NULL);
    if (r.rc != 0)
        tcli_show("metadata only", &r);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_STR_CONTAINS(r.out, "bit-identical");
    CHECK_STR_CONTAINS(r.out, "metadata that differs");
    CHECK_STR_CONTAINS(r.out, "step: 99 | 7");
    CHECK_STR_CONTAINS(r.out, "note: (absent) | hello");
    CHECK(strstr(r.out, "  checksum:") == NULL);
    tcli_result_free(&r);
    return 0;
}

// `ddplab compare A B X1 X2` (a NULL ends the list early) is refused: one
// line on stderr starting "ddplab compare: " and containing want; exit 2.
static int refused(const char *want, const char *a, const char *b, const char *x1,
                   const char *x2) {
    TcliResult r;
    compare(&r, a, b, x1, x2, NULL);
    int rc = tcli_refused(&r, "ddplab compare: ", want);
    tcli_result_free(&r);
    return rc;
}

static int test_bad_files(void) {
    size_t len = 0;
    char *whole = tfile_read(in_dir("a.st"), &len);
    CHECK(whole != NULL && len > 100);
    whole[len - 3] ^= 0x40; // a byte of the last tensor: the checksum fails
    CHECK(tfile_write(in_dir("flip.st"), whole, len) == 0);
    CHECK(tfile_write(in_dir("cut.st"), whole, len / 2) == 0);
    free(whole);
    CHECK(refused("flip.st: checksum mismatch", in_dir("a.st"), in_dir("flip.st"), NULL,
                  NULL) == 0);
    CHECK(refused("cut.st: truncated", in_dir("cut.st"), in_dir("a.st"), "--json", NULL) == 0);
    CHECK(refused("missing.st", in_dir("a.st"), in_dir("missing.st"), NULL, NULL) == 0);
    return 0;
}

static int test_bad_options(void) {
    const char *a = in_dir("a.st"), *b = in_dir("b.st");
    CHECK(refused("unknown option '--bogus'", a, b, "--bogus", NULL) == 0);
    static const char *tops[] = {"-1", "x", "5x", "+3", ""};
    for (int i = 0; i < 5; i++)
        CHECK(refused("--top", a, b, "--top", tops[i]) == 0);
    CHECK(refused("--top needs", a, b, "--top", NULL) == 0);
    CHECK(refused("which files?", a, NULL, NULL, NULL) == 0);
    CHECK(refused("two files at a time", a, b, a, NULL) == 0);
    TcliResult r;
    compare(&r, "--help", NULL, NULL, NULL, NULL);
    CHECK_EQ_INT(r.rc, 0);
    static const char *says[] = {"--top N", "--all", "--json", "unit in the last place",
                                 "exit codes"};
    for (int i = 0; i < 5; i++)
        CHECK_STR_CONTAINS(r.out, says[i]);
    tcli_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    exe = tcli_begin(argc, argv, dir, sizeof dir, "compare");
    if (exe == NULL)
        return 2;
    int failures = 0;
    if (save_run(in_dir("a.st"), "3") != 0 || save_run(in_dir("a2.st"), "3") != 0 ||
        save_run(in_dir("b.st"), "4") != 0) {
        fprintf(stderr, "could not write the checkpoints\n");
        failures++;
    } else {
        RUN(test_identical);
        RUN(test_different);
        RUN(test_mismatches);
        RUN(test_metadata_only);
        RUN(test_bad_files);
        RUN(test_bad_options);
    }
    tfile_rmtree(dir);
    if (failures == 0)
        printf("test_cli_compare: ok\n");
    return failures != 0;
}
