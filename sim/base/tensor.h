// sim/base/tensor.h: a tensor is a shape, a storage type and a pointer to backend
// memory. The pointer may be NULL: in phantom mode tensors have shapes and
// sizes but no storage, and the ops wrappers (sim/engine/ops.h) skip the math while
// still accounting for it, so the same model code runs at any scale.
#ifndef DDPLAB_SIM_TENSOR_H
#define DDPLAB_SIM_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h" // defines: SimDtype

#define SIM_MAX_DIMS 4

typedef struct {
    const char *name;               // e.g. "0.weight"; owned by whoever made the tensor
    SimDtype dtype;                 // storage type
    int ndim;                       // 0..SIM_MAX_DIMS (0 = scalar)
    int64_t shape[SIM_MAX_DIMS];    // row-major: the last dimension is contiguous
    void *data;                     // backend memory of numel elements, or NULL (phantom)
    // The memory ledger (sim/engine/memory.h): the category and space that
    // sim_tensor_alloc charges the storage to (zero: SIM_MEM_OTHER on the
    // device; set them after sim_tensor_init, before the alloc), and the
    // bytes it charged, which sim_tensor_free releases (phantom tensors are
    // charged too; views and tensors never allocated hold 0).
    int16_t mem_cat;                // SimMemCat
    int16_t mem_space;              // SimMemSpace
    int64_t charged;                // bytes charged to the ledger
} SimTensor;

// Fills t with a shape (ndim values) and no storage (ledger fields zero).
void sim_tensor_init(SimTensor *t, const char *name, SimDtype dt, int ndim, const int64_t *shape);
size_t sim_tensor_numel(const SimTensor *t);
size_t sim_tensor_bytes(const SimTensor *t);
// 1 if both have the same ndim and shape.
int sim_tensor_same_shape(const SimTensor *a, const SimTensor *b);
// Writes "[2, 3, 4]" into buf.
const char *sim_tensor_shape_str(const SimTensor *t, char *buf, size_t len);

#endif
