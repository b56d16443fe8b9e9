// sim/base/strpool.h: a pool of interned strings: each distinct content is
// copied once, and interning the same bytes again returns the same pointer,
// valid until the pool is freed. Not thread-safe: a caller shared between
// threads holds its own lock (sim/trace/trace_meta.c does).
#ifndef DDPLAB_SIM_STRPOOL_H
#define DDPLAB_SIM_STRPOOL_H

#include <stddef.h>

typedef struct SimStrPool SimStrPool;

// An empty pool, or NULL when memory runs out. Free with sim_strpool_free.
SimStrPool *sim_strpool_new(void);
void sim_strpool_free(SimStrPool *p);
// The pooled, NUL-terminated copy of s[0..len) (s need not be
// NUL-terminated), or NULL when memory runs out.
const char *sim_strpool_intern(SimStrPool *p, const char *s, size_t len);

#endif
