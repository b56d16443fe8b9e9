// backend_cpu/cpu_backend.h: the CPU backend, ranks as pthreads in one
// process and collectives through shared memory. This table is the only thing
// the backend exports; everything behind it is private to backend_cpu/.
#ifndef DDPLAB_CPU_BACKEND_H
#define DDPLAB_CPU_BACKEND_H

#include "engine/backend.h" // defines: SimBackendOps

extern const SimBackendOps cpu_backend_ops;

#endif
