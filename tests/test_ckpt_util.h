// tests/test_ckpt_util.h: reading checkpoint files (safetensors) that a
// test compares with each other.
#ifndef DDPLAB_TESTS_CKPT_UTIL_H
#define DDPLAB_TESTS_CKPT_UTIL_H

#include "formats/safetensors.h"

// Loads the checkpoints at a and b into fa and fb. 0; or -1 after printing
// why on stderr, with nothing left loaded. The caller frees both with
// sim_stfile_free.
int tckpt_load_pair(const char *a, SimStFile *fa, const char *b, SimStFile *fb);

// Loads the checkpoint at path (structure and a verified checksum) and
// returns its "step" metadata, or -1 after printing why on stderr.
long long tckpt_step(const char *path);

#endif
