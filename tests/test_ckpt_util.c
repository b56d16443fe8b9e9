// tests/test_ckpt_util.c: see test_ckpt_util.h.
#include "test_ckpt_util.h"

#include <stdio.h>

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
