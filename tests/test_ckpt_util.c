// tests/test_ckpt_util.c: see test_ckpt_util.h.
#include "test_ckpt_util.h"

#include <stdio.h>
#include <stdlib.h>

int tckpt_load_pair(const char *a, SimStFile *fa, const char *b, SimStFile *fb) {
    char err[512];
    if (sim_stfile_load(fa, a, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (sim_stfile_load(fb, b, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        sim_stfile_free(fa);
        return -1;
    }
    return 0;
}

long long tckpt_step(const char *path) {
    SimStFile f;
    char err[600];
    if (sim_stfile_load(&f, path, err, sizeof err) != SIM_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    const char *s = sim_stfile_meta(&f, "step");
    long long step = f.checked && s ? atoll(s) : -1;
    sim_stfile_free(&f);
    return step;
}
