// cli/report/compare_diff.c: `ddplab compare`: pairing the tensors of two files by
// name, comparing each pair element by element, and the metadata that
// differs.
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail
#include "report/compare.h"

static int64_t numel(const SimStTensor *t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static int same_shape(const SimStTensor *a, const SimStTensor *b) {
    if (a->ndim != b->ndim)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return 0;
    return 1;
}

static CompareRow pair_row(const SimStTensor *a, const SimStTensor *b) {
    CompareRow row = {a ? a->name : b->name, COMPARE_ONLY_A, a, b, {0}};
    row.st.argmax = -1;
    if (b == NULL)
        return row;
    if (a == NULL)
        row.kind = COMPARE_ONLY_B;
    else if (a->dtype != b->dtype)
        row.kind = COMPARE_DTYPE;
    else if (!same_shape(a, b))
        row.kind = COMPARE_SHAPE;
    else {
        sim_ulp_compare(a->dtype, a->data, b->data, numel(a), &row.st);
        row.kind = row.st.ndiff > 0 ? COMPARE_DIFF : COMPARE_SAME;
    }
    return row;
}

// Compared tensors first, the largest ULP first; among equal ULPs (0 for a
// +0 against a -0) the most differing elements, so every differing tensor
// comes before every identical one and the table's rows are a prefix.
// Then mismatches and tensors in one file only, by kind. Names last, for
// an order that does not depend on qsort.
static int row_order(const void *pa, const void *pb) {
    const CompareRow *a = pa, *b = pb;
    int ga = a->kind > COMPARE_DIFF ? (int)a->kind : 0;
    int gb = b->kind > COMPARE_DIFF ? (int)b->kind : 0;
    if (ga != gb)
        return ga < gb ? -1 : 1;
    if (a->st.max_ulp != b->st.max_ulp)
        return a->st.max_ulp > b->st.max_ulp ? -1 : 1;
    if (a->st.ndiff != b->st.ndiff)
        return a->st.ndiff > b->st.ndiff ? -1 : 1;
    return strcmp(a->name, b->name);
}

static SimStatus pair_tensors(CompareResult *r) {
    const SimStFile *fa = &r->f[0], *fb = &r->f[1];
    r->rows = calloc((size_t)fa->ntensors + (size_t)fb->ntensors + 1, sizeof *r->rows);
    if (r->rows == NULL)
        return SIM_ENOMEM;
    for (int i = 0; i < fa->ntensors; i++) {
        const SimStTensor *a = &fa->tensors[i];
        r->rows[r->nrows++] = pair_row(a, sim_stfile_find(fb, a->name));
    }
    for (int i = 0; i < fb->ntensors; i++)
        if (sim_stfile_find(fa, fb->tensors[i].name) == NULL)
            r->rows[r->nrows++] = pair_row(NULL, &fb->tensors[i]);
    qsort(r->rows, (size_t)r->nrows, sizeof *r->rows, row_order);
    for (int i = 0; i < r->nrows; i++)
        r->count[r->rows[i].kind]++;
    r->worst = r->nrows > 0 && r->rows[0].kind == COMPARE_DIFF ? 0 : -1;
    return SIM_OK;
}

static int same_str(const char *a, const char *b) {
    return a != NULL && b != NULL ? strcmp(a, b) == 0 : a == b;
}

// The checksum covers the whole file, so it differs whenever anything does:
// it says nothing of its own.
static void add_meta(CompareResult *r, const char *key) {
    const char *a = sim_stfile_meta(&r->f[0], key), *b = sim_stfile_meta(&r->f[1], key);
    if (strcmp(key, SIM_STFILE_CHECKSUM_KEY) != 0 && !same_str(a, b))
        r->meta[r->nmeta++] = (CompareMeta){key, a, b};
}

static SimStatus diff_meta(CompareResult *r) {
    const SimStFile *fa = &r->f[0], *fb = &r->f[1];
    r->meta = calloc((size_t)fa->nmeta + (size_t)fb->nmeta + 1, sizeof *r->meta);
    if (r->meta == NULL)
        return SIM_ENOMEM;
    for (int i = 0; i < fa->nmeta; i++)
        add_meta(r, fa->meta[i].key);
    for (int i = 0; i < fb->nmeta; i++)
        if (sim_stfile_meta(fa, fb->meta[i].key) == NULL)
            add_meta(r, fb->meta[i].key);
    return SIM_OK;
}

SimStatus compare_files(const char *a, const char *b, CompareResult *r, char *err,
                        size_t errlen) {
    memset(r, 0, sizeof *r);
    r->path[0] = a;
    r->path[1] = b;
    r->worst = -1;
    SimStatus st = sim_stfile_load(&r->f[0], a, err, errlen);
    if (st == SIM_OK)
        st = sim_stfile_load(&r->f[1], b, err, errlen);
    if (st == SIM_OK && (pair_tensors(r) != SIM_OK || diff_meta(r) != SIM_OK))
        st = sim_errbuf_fail(err, errlen, SIM_ENOMEM, "out of memory comparing %s and %s", a,
                             b);
    if (st != SIM_OK)
        compare_free(r);
    return st;
}

void compare_free(CompareResult *r) {
    sim_stfile_free(&r->f[0]);
    sim_stfile_free(&r->f[1]);
    free(r->rows);
    free(r->meta);
    r->rows = NULL;
    r->meta = NULL;
    r->nrows = r->nmeta = 0;
}

int compare_identical(const CompareResult *r) { return r->count[COMPARE_SAME] == r->nrows; }

int compare_shown(const CompareResult *r, const CompareOptions *o, int i) {
    int n = r->count[COMPARE_DIFF] + (o->all ? r->count[COMPARE_SAME] : 0);
    if (o->top > 0 && o->top < n)
        n = o->top;
    return i < n;
}
