// sim/formats/safetensors.h: reading and writing files in the safetensors format, the
// container of ddplab's checkpoints.
//
// The format (https://github.com/huggingface/safetensors):
//   8 bytes    N, the header length, unsigned little-endian
//   N bytes    a JSON object: for each tensor, "name": {"dtype": "F32",
//              "shape": [2, 3], "data_offsets": [begin, end]} with offsets in
//              bytes from the start of the data; and "__metadata__", a map
//              of strings to strings. Padded with spaces to a multiple of 8.
//   the data   every tensor's elements, row-major, little-endian, packed
//              without holes in the order of their offsets
//
// ddplab adds a checksum to the metadata: "checksum" = "sha256:<64 hex>",
// the SHA-256 of the whole file as written with those 64 digits replaced by
// 64 '0' characters. It covers the length, the header (names, shapes,
// metadata) and the data, and anyone can verify it with a few lines of any
// language (tests/conformance/train_ref.py does, with hashlib).
//
// Files are written atomically (sim/base/outfile.h). Reading validates the whole
// structure (and the checksum, when the file has one) before anything is
// handed out, so a damaged file never yields a partial result.
#ifndef DDPLAB_SIM_SAFETENSORS_H
#define DDPLAB_SIM_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"  // defines: SimDtype
#include "base/status.h" // defines: SimStatus
#include "base/tensor.h" // defines: SIM_MAX_DIMS

// The metadata key that holds the checksum.
#define SIM_STFILE_CHECKSUM_KEY "checksum"

// One tensor. For writing, data points to numel elements in host memory;
// in a loaded file it points into the file's bytes (read-only).
typedef struct {
    const char *name;
    SimDtype dtype;          // fp32, fp16, bf16, int32 or int64
    int ndim;                // 0..SIM_MAX_DIMS
    int64_t shape[SIM_MAX_DIMS];
    const void *data;
} SimStTensor;

typedef struct {
    const char *key;
    const char *value;
} SimStMeta;

// Writes the tensors (in the order given) and metadata, plus the checksum,
// to path atomically. Metadata keys must be unique and must not be
// "checksum"; tensor names must be unique and not "__metadata__". On failure
// writes a one-line reason into err and returns SIM_EINVAL (bad arguments),
// SIM_ENOMEM or SIM_EIO; nothing is left at path (an existing file stays).
SimStatus sim_stfile_save(const char *path, const SimStTensor *tensors, int ntensors,
                          const SimStMeta *meta, int nmeta, char *err, size_t errlen);
// The same write with the save-crash fault armed (sim_outfile_kill_midway):
// the process is killed by SIGKILL halfway through it. Returns only on a
// failure before that point.
SimStatus sim_stfile_save_killed(const char *path, const SimStTensor *tensors, int ntensors,
                                 const SimStMeta *meta, int nmeta, char *err, size_t errlen);

// A file read into memory.
typedef struct {
    uint8_t *bytes;          // the whole file
    size_t len;
    int ntensors;
    SimStTensor *tensors;    // names are heap copies; data points into bytes
    int nmeta;
    SimStMeta *meta;         // keys and values are heap copies
    int checked;             // 1: the file had a checksum and it matched
} SimStFile;

// Reads and validates path. Every failure leaves f empty (safe to free) and
// writes one line into err that starts with the path and says what is wrong:
// SIM_EIO (cannot be read), SIM_EFORMAT (truncated; corrupt header: not
// JSON, a tensor entry that is malformed, offsets outside the data or
// overlapping, an unsupported dtype; checksum mismatch), SIM_ENOMEM.
// A file without a checksum is accepted with f->checked = 0.
SimStatus sim_stfile_load(SimStFile *f, const char *path, char *err, size_t errlen);
// The tensor called name, or NULL.
const SimStTensor *sim_stfile_find(const SimStFile *f, const char *name);
// The metadata value of key, or NULL.
const char *sim_stfile_meta(const SimStFile *f, const char *key);
void sim_stfile_free(SimStFile *f);

// "F32", "F16", "BF16", "I32", "I64" (NULL for other types), and back
// (-1 for a name ddplab does not read).
const char *sim_stfile_dtype_name(SimDtype dt);
int sim_stfile_dtype_parse(const char *s, SimDtype *out);

#endif
