// sim/formats/npy.h: NumPy .npy files, read and written without Python.
//
// The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor
// version byte, the header length (2 bytes little-endian in version 1.0, 4
// bytes in 2.0 and 3.0), then the header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (100, 16), }
// padded with spaces and ended by '\n', then the raw elements in C order.
//
// ddplab reads versions 1.0, 2.0 and 3.0 with the element types a dataset
// needs: little-endian float32 '<f4', float64 '<f8' (converted to float32 on
// reading), int64 '<i8' and int32 '<i4' (widened to int64). The reader is
// strict: a wrong magic, a truncated header or data, fortran_order True, any
// other dtype, big-endian data, a shape whose size overflows, unknown or
// repeated header keys and bytes after the data are all SIM_EFORMAT, with a
// message naming the file and the byte offset or header field.
#ifndef DDPLAB_SIM_NPY_H
#define DDPLAB_SIM_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h" // defines: SimStatus

#define SIM_NPY_MAX_DIMS 8

// Element types as stored in a file.
typedef enum { SIM_NPY_F32 = 0, SIM_NPY_F64, SIM_NPY_I32, SIM_NPY_I64 } SimNpyType;

// An array read from a file. Exactly one of f and i is set: float files
// (f4, f8) give f, integer files (i4, i8) give i. Both are heap memory owned
// by the array (sim_npy_free); NULL when numel is 0.
typedef struct {
    SimNpyType stored;               // the file's dtype (before conversion)
    int ndim;                        // 0 (a scalar) .. SIM_NPY_MAX_DIMS
    int64_t shape[SIM_NPY_MAX_DIMS]; // C order: the last dimension is contiguous
    size_t numel;                    // product of shape (1 for a scalar)
    float *f;                        // [numel] for f4 and f8 files, else NULL
    int64_t *i;                      // [numel] for i4 and i8 files, else NULL
} SimNpyArray;

// "<f4", "<f8", "<i4", "<i8".
const char *sim_npy_descr(SimNpyType t);
// Bytes per stored element (4 or 8); 0 if t is not a SimNpyType.
size_t sim_npy_type_size(SimNpyType t);
// 1 for SIM_NPY_F32 and SIM_NPY_F64.
int sim_npy_type_is_float(SimNpyType t);

// Reads path into *out (zeroed first). SIM_EIO if the file cannot be opened
// or read (the message gives the system's reason), SIM_EFORMAT for a
// malformed file, SIM_ENOMEM if the data do not fit in memory. On failure
// writes one line into err ("FILE: byte N: what is wrong") and *out holds
// nothing to release.
SimStatus sim_npy_read(const char *path, SimNpyArray *out, char *err, size_t errlen);
// Releases the array's memory and zeroes it; safe on a zeroed array.
void sim_npy_free(SimNpyArray *a);
// The shape as Python writes it, "(3, 4)", "(5,)" or "()", into buf.
const char *sim_npy_shape_str(const SimNpyArray *a, char *buf, size_t cap);

// Formats a complete header (magic, version major.0, length field, the dict
// padded with spaces so that the data start at a multiple of 64 bytes, and
// the final '\n') into buf. Returns its length in bytes, or 0 if major is not
// 1, 2 or 3, the header does not fit the version's length field, cap is too
// small, or ndim/shape are invalid (ndim outside 0..SIM_NPY_MAX_DIMS, a
// negative dimension). A 1024-byte buffer always suffices.
size_t sim_npy_format_header(char *buf, size_t cap, int major, SimNpyType t, int ndim,
                             const int64_t *shape);

// Writes data (numel elements of type t, C order, host order = little
// endian) with the given shape as a version 1.0 .npy file, atomically (a
// temporary file renamed into place; a failure leaves nothing). SIM_EINVAL
// for a bad type or shape, SIM_EIO if the file cannot be written.
SimStatus sim_npy_write(const char *path, SimNpyType t, const void *data, int ndim,
                        const int64_t *shape);

#endif
