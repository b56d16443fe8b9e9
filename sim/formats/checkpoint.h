// sim/formats/checkpoint.h: training checkpoints: a model's parameters and buffers,
// the optimizer's state and the scalars of the training loop, in one
// safetensors file (sim/formats/safetensors.h) with a SHA-256 checksum.
//
// Layout of the file:
//   "0.weight", "blocks.0.ln1.bias", ...   every parameter, then every buffer,
//                                          under its PyTorch state_dict name
//                                          and with PyTorch's dtype (F32; I64
//                                          for num_batches_tracked), so the
//                                          model tensors load into the
//                                          equivalent torch module with
//                                          load_state_dict(strict=True)
//   "optimizer/state.3.exp_avg", ...      training state: any tensor whose
//                                          name holds a '/' (which never
//                                          occurs in a PyTorch name), such as
//                                          the optimizer's per-parameter
//                                          state under torch's optimizer
//                                          state_dict names (sim/model/optim.h)
//   __metadata__                           strings: "format" =
//                                          "ddplab-checkpoint", "version",
//                                          "model" (the spec), and whatever
//                                          the training loop adds (step, epoch,
//                                          optimizer, scaler, RNG, sampler),
//                                          plus "checksum"
//
// Loading validates everything (structure, checksum, names, shapes, dtypes,
// metadata the caller asks for) before it touches the model, so a failed load
// changes nothing.
#ifndef DDPLAB_SIM_CHECKPOINT_H
#define DDPLAB_SIM_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/world.h"        // defines: SimRank
#include "formats/safetensors.h" // defines: SimStMeta, SimStFile
#include "model/model.h"         // defines: SimModel

#define SIM_CKPT_FORMAT "ddplab-checkpoint"
#define SIM_CKPT_VERSION "1"
#define SIM_CKPT_NAME_MAX 160

// A range of a flat fp32 tensor in backend memory saved as one tensor
// (e.g. one parameter's exp_avg inside the optimizer's flat state).
typedef struct {
    char name[SIM_CKPT_NAME_MAX];   // its name in the file; must hold a '/'
    SimTensor *flat;                // fp32, backend memory
    size_t offset, numel;           // elements of flat
    int ndim;                       // the shape it is saved with (numel elements)
    int64_t shape[SIM_MAX_DIMS];
} SimCkptView;

// Everything a checkpoint holds besides the model; arrays owned by the caller.
typedef struct {
    int nviews;
    const SimCkptView *views;
    int nhost;
    const SimStTensor *host;        // tensors in host memory (names with a '/')
    int nmeta;
    const SimStMeta *meta;          // must not use "format", "version", "model"
} SimCkptExtra;

// Writes the model, the extra tensors and the metadata to path atomically.
// On failure writes one line into err and returns the status; an existing
// file at path is left as it was.
SimStatus sim_ckpt_save(SimRank *r, const SimModel *m, const SimCkptExtra *extra,
                        const char *path, char *err, size_t errlen);
// The same save with the save-crash fault (sim/engine/fault.h) armed: the process
// is killed by SIGKILL halfway through writing the file
// (sim_outfile_kill_midway). Returns only on a failure before that point.
SimStatus sim_ckpt_save_killed(SimRank *r, const SimModel *m, const SimCkptExtra *extra,
                               const char *path, char *err, size_t errlen);

// A checkpoint read and checked against a model, not yet applied.
typedef struct {
    SimStFile file;
    char path[512];
} SimCkpt;

// Reads path and checks it against the model: a ddplab checkpoint for this
// very model spec (full = 1: format metadata and a valid checksum required;
// for --resume) or any safetensors file holding the model's tensors (full =
// 0: checksum verified when present; for --init with weights from
// elsewhere). Every parameter and buffer must be present with the model's
// shape and dtype, and every other tensor must be training state (a '/' in
// its name). On failure writes one line naming the file and what is wrong
// (truncated, corrupt header, checksum mismatch, not a ddplab checkpoint,
// another kind of ddplab file such as the index of a sharded FSDP
// checkpoint (named as such, with its "description"), tensor NAME is
// missing, tensor NAME has shape [a, b] in the file, the model expects
// [c, d], ...), returns SIM_EIO / SIM_EFORMAT / SIM_EINVAL and c holds
// nothing. Every fp32 parameter and buffer, and with full every fp32 tensor
// of training state, must be finite: the first NaN or infinity is refused
// by sim_ckpt_check_finite's line.
SimStatus sim_ckpt_open(SimCkpt *c, const char *path, const SimModel *m, int full, char *err,
                        size_t errlen);
// SIM_EINVAL with one line naming the file, the tensor, the element (its
// flat index and its place in the shape) and what it is (NaN, +inf, -inf)
// when fp32 tensor t holds a value that is not finite; SIM_OK otherwise
// and for other dtypes.
SimStatus sim_ckpt_check_finite(const char *path, const SimStTensor *t, char *err,
                                size_t errlen);
// The metadata value of key, or NULL.
const char *sim_ckpt_meta(const SimCkpt *c, const char *key);
// The tensor called name, or NULL.
const SimStTensor *sim_ckpt_tensor(const SimCkpt *c, const char *name);
// Checks that tensor `name` is in the file with this dtype and shape; one
// line into err (naming the file, the tensor, both shapes) otherwise.
SimStatus sim_ckpt_expect(const SimCkpt *c, const char *name, SimDtype dt, int ndim,
                          const int64_t *shape, char *err, size_t errlen);
// Copies the parameters and buffers into the model (weights only).
SimStatus sim_ckpt_apply_model(SimRank *r, const SimCkpt *c, SimModel *m);
// Copies the buffers alone (every buffer must be in c: sim_ckpt_expect).
SimStatus sim_ckpt_apply_buffers(SimRank *r, const SimCkpt *c, SimModel *m);
// Copies the named tensors into their ranges (checked with sim_ckpt_expect
// first). Ranges of a flat tensor that no view names keep their values.
SimStatus sim_ckpt_apply_views(SimRank *r, const SimCkpt *c, const SimCkptView *views, int n);
void sim_ckpt_close(SimCkpt *c);

// Helpers for metadata values: strict whole numbers, and doubles (written
// with "%.17g" so that they read back exactly). 0 on success, -1 if absent
// or malformed.
int sim_ckpt_meta_i64(const SimCkpt *c, const char *key, int64_t *out);
int sim_ckpt_meta_f64(const SimCkpt *c, const char *key, double *out);

#endif
