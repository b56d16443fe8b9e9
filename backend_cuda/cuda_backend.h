// backend_cuda/cuda_backend.h: the CUDA backend, seen from outside. One rank
// per visible GPU in one process, device memory from cudaMalloc, collectives
// through NCCL on a per-rank communication stream.
//
// The program reaches the table through the plugin's entry point
// (cuda_plugin.h); the tests, which link the backend's static library, take
// it here. This header deliberately includes no CUDA, cuBLAS or NCCL header,
// so that its users stay free of them. Everything else in backend_cuda/ is
// private to the backend.
#ifndef DDPLAB_BACKEND_CUDA_H
#define DDPLAB_BACKEND_CUDA_H

#include "engine/backend.h" // defines: SimBackendOps

extern const SimBackendOps cuda_backend_ops;

#endif
