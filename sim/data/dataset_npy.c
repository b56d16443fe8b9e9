// sim/data/dataset_npy.c: a dataset from two .npy files (--data X.npy --labels
// Y.npy), with every check a user needs to find a bad file: the shapes
// agree, the dataset is not empty, every feature and target is finite and
// every label is a valid class. Each message names the file and the index.
#include "data/dataset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail
#include "formats/npy.h" // defines: SimNpyArray

// The first non-finite value of v[n x cols], reported as "sample i, column j".
static SimStatus check_finite(const char *path, const char *what, const float *v, size_t n,
                              size_t cols, int from_f64, char *err, size_t errlen) {
    for (size_t k = 0; k < n * cols; k++)
        if (!isfinite(v[k]))
            return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                   "%s: sample %zu, %s %zu (element %zu) is %s%s", path, k / cols,
                                   what, k % cols, k, isnan(v[k]) ? "NaN" : "infinite",
                                   from_f64 && !isnan(v[k]) ? " (too large for float32)" : "");
    return SIM_OK;
}

// Features: float [N, D...] -> x [N, D].
static SimStatus take_features(SimDataset *ds, const char *path, SimNpyArray *a, char *err,
                               size_t errlen) {
    char sh[256];
    if (!sim_npy_type_is_float(a->stored))
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: features must be float32 or float64, found %s", path,
                               sim_npy_descr(a->stored));
    if (a->ndim < 2)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: features must have shape [N, D], found %s", path,
                               sim_npy_shape_str(a, sh, sizeof sh));
    if (a->shape[0] == 0)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: empty dataset: shape %s has no samples", path,
                               sim_npy_shape_str(a, sh, sizeof sh));
    int64_t d = (int64_t)(a->numel / (size_t)a->shape[0]);
    if (d == 0)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT, "%s: shape %s has no features", path,
                               sim_npy_shape_str(a, sh, sizeof sh));
    if (d > INT32_MAX)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: %lld features per sample are too many", path, (long long)d);
    SIM_CHECK(check_finite(path, "feature", a->f, (size_t)a->shape[0], (size_t)d,
                           a->stored == SIM_NPY_F64, err, errlen));
    ds->n = a->shape[0];
    ds->features = (int)d;
    ds->x = a->f; // the dataset takes the array's buffer
    a->f = NULL;
    return SIM_OK;
}

// Integer labels [N] -> classification.
static SimStatus take_labels(SimDataset *ds, const char *path, SimNpyArray *a, int classes,
                             char *err, size_t errlen) {
    char sh[256];
    if (a->ndim != 1)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: integer labels must have shape [N], found %s", path,
                               sim_npy_shape_str(a, sh, sizeof sh));
    int64_t maxl = -1;
    for (size_t k = 0; k < a->numel; k++) {
        int64_t l = a->i[k];
        if (l < 0)
            return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                   "%s: label at index %zu is %lld; labels must be >= 0", path, k,
                                   (long long)l);
        if (classes > 0 && l >= classes)
            return sim_errbuf_fail(
                err, errlen, SIM_EFORMAT,
                "%s: label at index %zu is %lld, out of range for %d classes (0..%d)", path, k,
                (long long)l, classes, classes - 1);
        if (l >= INT32_MAX)
            return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                                   "%s: label at index %zu is %lld, too large for a class", path, k,
                                   (long long)l);
        if (l > maxl)
            maxl = l;
    }
    ds->labels = malloc(a->numel * sizeof(int32_t));
    if (ds->labels == NULL) {
        sim_errbuf_fail(err, errlen, SIM_EFORMAT, "%s: out of memory for %zu labels", path,
                        a->numel);
        return SIM_ENOMEM;
    }
    for (size_t k = 0; k < a->numel; k++)
        ds->labels[k] = (int32_t)a->i[k];
    ds->kind = SIM_DATA_CLASSES;
    ds->classes = classes > 0 ? classes : (int)(maxl + 1);
    return SIM_OK;
}

// Float targets [N] or [N, K] -> regression.
static SimStatus take_targets(SimDataset *ds, const char *path, SimNpyArray *a, char *err,
                              size_t errlen) {
    char sh[256];
    if (a->ndim != 1 && a->ndim != 2)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: float targets must have shape [N] or [N, K], found %s", path,
                               sim_npy_shape_str(a, sh, sizeof sh));
    int64_t k = a->ndim == 2 ? a->shape[1] : 1;
    if (k == 0 || k > INT32_MAX)
        return sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                               "%s: targets of shape %s: K must be in 1..%d", path,
                               sim_npy_shape_str(a, sh, sizeof sh), INT32_MAX);
    SIM_CHECK(check_finite(path, "target", a->f, (size_t)a->shape[0], (size_t)k,
                           a->stored == SIM_NPY_F64, err, errlen));
    ds->kind = SIM_DATA_TARGETS;
    ds->target_dim = (int)k;
    ds->targets = a->f;
    a->f = NULL;
    return SIM_OK;
}

static void set_name(SimDataset *ds, const char *path) {
    const char *slash = strrchr(path, '/');
    snprintf(ds->name, sizeof ds->name, "%s", slash ? slash + 1 : path);
}

SimStatus sim_dataset_load_npy(SimDataset *ds, const char *data_path, const char *labels_path,
                               int classes, char *err, size_t errlen) {
    if (ds == NULL || data_path == NULL || labels_path == NULL || classes < 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset: missing data or labels file");
    memset(ds, 0, sizeof *ds);
    SimNpyArray xa, ya;
    memset(&ya, 0, sizeof ya);
    SimStatus st = sim_npy_read(data_path, &xa, err, errlen);
    if (st != SIM_OK)
        return st;
    SIM_CHECK_GOTO(take_features(ds, data_path, &xa, err, errlen), st, out);
    SIM_CHECK_GOTO(sim_npy_read(labels_path, &ya, err, errlen), st, out);
    if (ya.ndim == 0 || ya.shape[0] != ds->n) {
        char sh[256];
        st = sim_errbuf_fail(err, errlen, SIM_EFORMAT,
                             "%s: %lld labels (shape %s) for %lld samples in %s", labels_path,
                             ya.ndim ? (long long)ya.shape[0] : 0LL,
                             sim_npy_shape_str(&ya, sh, sizeof sh), (long long)ds->n, data_path);
        goto out;
    }
    if (sim_npy_type_is_float(ya.stored))
        st = take_targets(ds, labels_path, &ya, err, errlen);
    else
        st = take_labels(ds, labels_path, &ya, classes, err, errlen);
    if (st == SIM_OK)
        set_name(ds, data_path);
out:
    sim_npy_free(&xa);
    sim_npy_free(&ya);
    if (st != SIM_OK)
        sim_dataset_free(ds);
    return st;
}
