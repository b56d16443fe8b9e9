// tests/torch_ref.h: running a PyTorch reference script from a C test.
//
// Conformance tests compare ddplab with PyTorch itself (Debian's
// python3-torch, importable only by /usr/bin/python3; scripts/setup.sh
// installs it). A test writes its inputs as raw little-endian arrays into a
// temporary directory, runs a script from tests/conformance/ that reads them
// with numpy.fromfile, computes the reference with torch, and writes raw
// arrays back; the test reads and compares them.
#ifndef DDPLAB_TESTS_TORCH_REF_H
#define DDPLAB_TESTS_TORCH_REF_H

#include <stddef.h>
#include <stdint.h>

// The interpreter that has torch (DDPLAB_PYTHON overrides /usr/bin/python3).
const char *torchref_python(void);
// 1 if that interpreter can import torch; otherwise prints why to stderr.
// Tests exit 77 (skipped) when it returns 0.
int torchref_available(void);
// Runs tests/conformance/<script> with the arguments (NULL-terminated), with
// torch limited to one thread. Returns the exit status (0 = success); the
// script's output goes to the test's output.
int torchref_run(const char *script, const char *const *args);
// Makes a fresh temporary directory; returns 0 on success.
int torchref_tmpdir(char *out, size_t len);
// Removes the files in dir and dir itself.
void torchref_rmdir(const char *dir);
// Raw array files: dir/name, little-endian, n elements.
int torchref_write(const char *dir, const char *name, const void *data, size_t bytes);
// Reads exactly `bytes` bytes; returns 0 on success, -1 if missing or of another size.
int torchref_read(const char *dir, const char *name, void *data, size_t bytes);
// Largest |a-b| / max(|b|, floor) over n floats; *worst gets its index.
double torchref_max_rel(const float *a, const float *b, size_t n, double floor, size_t *worst);

#endif
