// fuzz/fuzz_util.h: what the fuzz targets share. Each target (fuzz_*.c) is
// one LLVMFuzzerTestOneInput over one input that ddplab reads; libFuzzer
// drives it in a DDPLAB_FUZZ build (fuzz/CMakeLists.txt), and
// fuzz_replay.c drives it over the seed corpora (tests/fuzz/<target>/) in
// every build, as a regression test.
#ifndef DDPLAB_FUZZ_UTIL_H
#define DDPLAB_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// The entry points libFuzzer calls (and fuzz_replay.c).
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Writes data[size] to scratch file k (0..FUZZ_TEMP_FILES-1, in a private
// directory under /dev/shm, else $TMPDIR, else /tmp, made on first use and
// removed at exit; the same path for the same k every call) and returns its path;
// NULL (with a message on stderr) when it cannot be written. Loaders that
// read only from a path read it there.
#define FUZZ_TEMP_FILES 2
const char *fuzz_temp_file(int k, const uint8_t *data, size_t size);

// A heap copy of data[size] with a NUL after it (NULL when out of memory);
// the caller frees it.
char *fuzz_strndup(const uint8_t *data, size_t size);

// /dev/null opened for writing, once (views and wrapped text go there).
FILE *fuzz_devnull(void);

// What the target made of the last input: 1 accepted, 0 rejected as bad
// input. fuzz_replay.c checks it against the seed's name ("ok-..." must be
// accepted, "bad-..." rejected); the fuzzer ignores it.
void fuzz_set_accepted(int accepted);
int fuzz_accepted(void);

#endif
