// backend_cuda/cuda_plugin.h: what the program and the CUDA backend's plugin
// (ddplab-cuda.so, built from this folder) know of each other. The program
// (cli/core/backends.c) lists the backend from the name and description
// here, without loading anything, and loads the plugin with dlopen the first
// time the backend is asked for, to call its one entry point.
//
// Like cuda_backend.h, this header includes no CUDA, cuBLAS or NCCL header.
#ifndef DDPLAB_BACKEND_CUDA_PLUGIN_H
#define DDPLAB_BACKEND_CUDA_PLUGIN_H

#include <stddef.h>

#include "engine/backend.h" // defines: SimBackendOps

// The backend's name and description (its ops table has the same ones).
#define CUDA_BACKEND_NAME "cuda"
#define CUDA_BACKEND_DESCRIPTION                                                               \
    "one rank per visible GPU: cudaMalloc memory, cuBLAS math, NCCL collectives on a "       \
    "per-rank communication stream"

// The plugin's file name, and the name of its entry point's symbol.
#define CUDA_PLUGIN_FILE "ddplab-cuda.so"
#define CUDA_PLUGIN_ENTRY "cuda_plugin_entry"

// The entry point. The plugin carries no engine of its own: it calls the
// program's (sim_*, cuda_rdzv_*), so it only works with the program of its
// own build. The caller passes the version it was built as (DDPLAB_VERSION)
// and its sizeof(SimBackendOps); the plugin returns its ops table, or NULL
// with one line in err when it was built for another program.
typedef const SimBackendOps *(*CudaPluginEntry)(const char *version, size_t ops_size,
                                                char *err, size_t errlen);
const SimBackendOps *cuda_plugin_entry(const char *version, size_t ops_size, char *err,
                                       size_t errlen);

#endif
