// cli/run/run_data_save.c: --save-data DIR, the dataset a run trains on
// written as .npy files, so that a PyTorch script can load the very samples
// (np.load) and, with --rng torch, train on them in the same order:
//   DIR/X.npy       float32 [N, D]  features            (blobs, teacher, --data)
//   DIR/y.npy       int64 [N]       class labels        (classification)
//                   float32 [N, K]  targets             (regression)
//   DIR/tokens.npy  int64 [L]       the token stream    (arith, tokens, --text);
//                   sample i is tokens[i:i+T], its targets tokens[i+1:i+T+1]
// DIR is made if it does not exist (its parent must). Each file is written
// atomically (sim/formats/npy.h), before the run starts.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cli.h" // defines: CLI_EXIT_*
#include "formats/npy.h"
#include "run/run.h"

// Writes DIR/name; a failure is bad input (exit 2), as for every output file.
static int write_one(const char *dir, const char *name, SimNpyType t, const void *data,
                     int ndim, const int64_t *shape) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        run_error("--save-data: '%s' is too long a directory name", dir);
        return CLI_EXIT_USAGE;
    }
    if (sim_npy_write(path, t, data, ndim, shape) != SIM_OK) {
        run_error("--save-data: cannot write '%s' (the directory is not writable, or the disk "
                  "is full)", path);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

// int32 values widened to the int64 PyTorch's cross_entropy and indexing take.
static int write_ints(const char *dir, const char *name, const int32_t *v, int64_t n) {
    int64_t *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (!w) {
        run_error("--save-data: out of memory for %lld values", (long long)n);
        return CLI_EXIT_INTERNAL;
    }
    for (int64_t i = 0; i < n; i++)
        w[i] = v[i];
    int rc = write_one(dir, name, SIM_NPY_I64, w, 1, &n);
    free(w);
    return rc;
}

static int make_dir(const char *dir) {
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return CLI_EXIT_OK;
    if (mkdir(dir, 0777) != 0) {
        run_error("--save-data: cannot make the directory '%s': %s", dir, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int run_data_save(const RunOptions *o, const SimDataset *ds) {
    if (o->save_data == NULL)
        return CLI_EXIT_OK;
    int rc = make_dir(o->save_data);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (ds->kind == SIM_DATA_TOKENS)
        return write_ints(o->save_data, "tokens.npy", ds->tokens, ds->ntokens);
    int64_t xs[2] = {ds->n, ds->features};
    rc = write_one(o->save_data, "X.npy", SIM_NPY_F32, ds->x, 2, xs);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (ds->kind == SIM_DATA_CLASSES)
        return write_ints(o->save_data, "y.npy", ds->labels, ds->n);
    int64_t ys[2] = {ds->n, ds->target_dim};
    return write_one(o->save_data, "y.npy", SIM_NPY_F32, ds->targets, 2, ys);
}
