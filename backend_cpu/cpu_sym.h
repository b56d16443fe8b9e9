// backend_cpu/cpu_sym.h: the "sym" backend, one thread standing for every
// rank of a phantom world (see cpu_sym.c). Like cpu_backend.h, this table is
// all it exports.
#ifndef DDPLAB_CPU_SYM_H
#define DDPLAB_CPU_SYM_H

#include "engine/backend.h" // defines: SimBackendOps

// Ranks whose collectives still report their steps (and transfers) to the
// trace; above it only each collective's own event is traced.
#define CPU_SYM_STEP_RANKS 64

extern const SimBackendOps cpu_sym_backend_ops;

#endif
