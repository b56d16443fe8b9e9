// tests/test_train_ref.c: the shared parts of the training conformance
// tests against PyTorch (see test_train_ref.h): their data, their reading
// of --metrics, and the comparison of final parameters.
#include "test_train_ref.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/npy.h"
#include "formats/safetensors.h"
#include "test_cli_run.h"
#include "test_files.h"
#include "torch_ref.h"

int ttrain_start(int argc, char **argv, const char **exe, char *dir, size_t len) {
    *exe = tcli_exe_arg(argc, argv);
    if (*exe == NULL)
        return 2;
    if (!torchref_available())
        return 77;
    if (torchref_tmpdir(dir, len) != 0) {
        perror("tmpdir");
        return 1;
    }
    return -1;
}

int ttrain_write_mlp_data(const char *dir, int n, int d, uint64_t seed) {
    float *x = malloc((size_t)n * (size_t)d * sizeof(float));
    int64_t *y = malloc((size_t)n * sizeof(int64_t));
    if (x == NULL || y == NULL) {
        free(x);
        free(y);
        CHECK(x && y);
    }
    uint64_t s = seed;
    for (int i = 0; i < n * d; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (float)((double)(s >> 40) / (double)(1 << 24) * 4.0 - 2.0);
    }
    for (int i = 0; i < n; i++) {
        float a = 0, b = 0;
        for (int k = 0; k < d; k++) {
            a += x[i * d + k] * (float)(k % 3 - 1);
            b += x[i * d + k] * (float)((k * 7) % 5 - 2);
        }
        y[i] = (a > 0) * 2 + (b > 0);
    }
    int64_t xs[2] = {n, d}, ys[1] = {n};
    SimStatus sx = sim_npy_write(tcli_path(dir, "X.npy"), SIM_NPY_F32, x, 2, xs);
    SimStatus sy = sim_npy_write(tcli_path(dir, "y.npy"), SIM_NPY_I64, y, 1, ys);
    free(x);
    free(y);
    CHECK_EQ_INT(sx, SIM_OK);
    CHECK_EQ_INT(sy, SIM_OK);
    return 0;
}

int ttrain_read_losses(const char *path, float *avg, float *rank0, int max) {
    char *text = tfile_read(path, NULL);
    int n = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line && n < max;
         line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "loss");
        avg[n] = cJSON_IsNumber(l) ? (float)l->valuedouble : -1.0f;
        if (rank0 != NULL) {
            const cJSON *l0 = cJSON_GetObjectItemCaseSensitive(j, "loss_rank0");
            rank0[n] = cJSON_IsNumber(l0) ? (float)l0->valuedouble : avg[n];
        }
        n++;
        cJSON_Delete(j);
    }
    free(text);
    return n;
}

double ttrain_norm_rel(const float *a, const float *b, size_t n) {
    double d = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        d += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        r += (double)b[i] * b[i];
    }
    return r > 0 ? sqrt(d / r) : sqrt(d);
}

// One tensor t of n floats against ref_dir/ref.<name>.f32.
static int compare_tensor(const SimStTensor *t, size_t n, const char *ref_dir,
                          const TtrainTol *tol, double *worst, double *worst_norm) {
    float *ours = malloc(n * sizeof(float)), *ref = malloc(n * sizeof(float));
    if (ours == NULL || ref == NULL) {
        free(ours);
        free(ref);
        CHECK(ours && ref);
    }
    memcpy(ours, t->data, n * sizeof(float));
    char name[200];
    snprintf(name, sizeof name, "ref.%s.f32", t->name);
    int read = torchref_read(ref_dir, name, ref, n * sizeof(float));
    size_t at = 0;
    double rel = read == 0 ? torchref_max_rel(ours, ref, n, tol->floor, &at) : 0;
    double nrel = read == 0 ? ttrain_norm_rel(ours, ref, n) : 0;
    *worst = rel > *worst ? rel : *worst;
    *worst_norm = nrel > *worst_norm ? nrel : *worst_norm;
    if (read == 0 && (!(rel <= tol->elem) || !(nrel <= tol->norm)))
        fprintf(stderr, "  %s[%zu]: ddplab %.9g, torch %.9g (rel %.3g; tensor %.3g)\n", t->name,
                at, (double)ours[at], (double)ref[at], rel, nrel);
    free(ours);
    free(ref);
    CHECK(read == 0);
    CHECK(rel <= tol->elem);
    CHECK(nrel <= tol->norm);
    return 0;
}

int ttrain_compare_params(const char *final_path, const char *ref_dir, const TtrainTol *tol,
                          int summary, double *worst, double *worst_norm) {
    SimStFile f;
    char err[512];
    CHECK_EQ_INT(sim_stfile_load(&f, final_path, err, sizeof err), SIM_OK);
    int compared = 0, rc = 0;
    for (int i = 0; i < f.ntensors && rc == 0; i++) {
        const SimStTensor *t = &f.tensors[i];
        if (strchr(t->name, '/') || t->dtype != SIM_FP32 || strstr(t->name, "mask"))
            continue; // training state, or a buffer training does not change
        size_t n = 1;
        for (int d = 0; d < t->ndim; d++)
            n *= (size_t)t->shape[d];
        rc = compare_tensor(t, n, ref_dir, tol, worst, worst_norm);
        compared += rc == 0;
    }
    if (rc == 0 && summary)
        printf("  %d parameters: largest relative difference of a tensor %.3g, of an element "
               "%.3g\n", compared, *worst_norm, *worst);
    sim_stfile_free(&f);
    CHECK_EQ_INT(rc, 0);
    CHECK(compared > 0);
    return 0;
}
