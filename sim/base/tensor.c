// sim/base/tensor.c: shapes, sizes and printing of SimTensor (sim/base/tensor.h).
// Storage is not handled here: sim/engine/ops.c allocates it through the backend,
// so that a tensor with no storage (phantom mode) is still a whole tensor
// for everything in this file.
#include "base/tensor.h"

#include <stdio.h>
#include <string.h>

void sim_tensor_init(SimTensor *t, const char *name, SimDtype dt, int ndim, const int64_t *shape) {
    memset(t, 0, sizeof *t);
    t->name = name;
    t->dtype = dt;
    if (ndim < 0)
        ndim = 0;
    if (ndim > SIM_MAX_DIMS)
        ndim = SIM_MAX_DIMS;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t->shape[i] = shape[i];
    t->data = NULL;
}

// A negative dimension counts as empty, so a malformed shape never turns
// into a huge size.
size_t sim_tensor_numel(const SimTensor *t) {
    size_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i] > 0 ? (size_t)t->shape[i] : 0;
    return n;
}

size_t sim_tensor_bytes(const SimTensor *t) {
    return sim_tensor_numel(t) * sim_dtype_size(t->dtype);
}

int sim_tensor_same_shape(const SimTensor *a, const SimTensor *b) {
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

const char *sim_tensor_shape_str(const SimTensor *t, char *buf, size_t len) {
    if (len == 0)
        return buf;
    size_t used = 0;
    buf[0] = '\0';
    int w = snprintf(buf, len, "[");
    used = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < t->ndim && used < len; i++) {
        w = snprintf(buf + used, len - used, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (used < len)
        snprintf(buf + used, len - used, "]");
    return buf;
}
