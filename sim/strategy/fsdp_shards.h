// sim/strategy/fsdp_shards.h: what the two halves of the SHARDED and LOCAL state
// dicts share: fsdp_shards.c (the format, file names, the ranks' agreement,
// saving) and fsdp_shards_load.c (restoring). The format is described at
// the top of fsdp_shards.c.
#ifndef DDPLAB_SIM_FSDP_SHARDS_H
#define DDPLAB_SIM_FSDP_SHARDS_H

#include <stddef.h>
#include <stdint.h>

#include "strategy/fsdp_internal.h"

#define FSDP_INDEX_FORMAT "ddplab-fsdp-index"
#define FSDP_SHARD_FORMAT "ddplab-fsdp-shard"
#define FSDP_LOCAL_FORMAT "ddplab-fsdp-local"
#define FSDP_SHARDS_VERSION "1"

// Parameter i's elements in shard g (an index in the sharding group) of its
// unit: [*lo, *hi) within the parameter, flattened row-major (lo == hi: none).
void fsdp_shard_range(const FsdpState *s, int i, int g, size_t *lo, size_t *hi);
// The name of unit u's flat parameter in a local state dict: "flat_param"
// for a root without a module name, else "<module>.flat_param".
void fsdp_flat_name(const FsdpState *s, int u, char *out, size_t n);
// "d0,d1,..." (the metadata spelling of a shape; "" for a scalar).
void fsdp_shape_str(int ndim, const int64_t *shape, char *out, size_t n);
// The file part of a path (after its last '/').
const char *fsdp_base_name(const char *path);

#endif
