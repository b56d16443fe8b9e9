// backend_cuda/cuda_world.h: how a world of R ranks is laid out on the GPUs
// this process sees, and which collectives it runs. Plain C, no CUDA: the
// decisions are tested on machines without a GPU (tests/test_cuda_world.c).
//
// Placement: ranks fill GPUs in contiguous blocks, rank r on GPU
// r * G / R (G = min(GPUs, R)), so ranks that share a GPU are neighbours and
// a ring all-reduce crosses between GPUs as few times as it can. With at
// least as many GPUs as ranks, rank r gets GPU r.
//
// Collectives: NCCL when every GPU holds one rank. NCCL refuses two ranks of
// one communicator on one GPU, so when ranks share a GPU the world runs
// ddplab's own device-memory implementation of the same schedules
// (cuda_devcoll.c) instead.
#ifndef DDPLAB_BACKEND_CUDA_WORLD_H
#define DDPLAB_BACKEND_CUDA_WORLD_H

#include <stddef.h>

typedef enum { CUDA_IMPL_NCCL = 0, CUDA_IMPL_DEVICE = 1 } CudaCollImpl;

typedef struct {
    int nranks;
    int ngpus;          // GPUs used: min(visible, nranks)
    int max_per_gpu;    // the most ranks any GPU holds
    CudaCollImpl impl;
} CudaWorldPlan;

// Decides the layout for nranks ranks on `visible` GPUs. coll_impl is NULL,
// "auto", "nccl" or "device" (SimBackendOptions.coll_impl). Returns 0, or -1
// with one line in err (bad counts, unknown name, NCCL asked for with ranks
// sharing a GPU).
int cuda_world_plan(int nranks, int visible, const char *coll_impl, CudaWorldPlan *plan,
                    char *err, size_t errlen);
// The GPU of rank r under the plan.
int cuda_world_device(const CudaWorldPlan *plan, int rank);
// "nccl" or "ddplab-device": what the trace and the report call the impl.
const char *cuda_world_impl_name(CudaCollImpl impl);
// Sets NCCL_ALGO to algo before the communicators are made (NCCL reads it
// then), so that --algo ring or dbtree runs NCCL's Ring or Tree; NULL
// leaves the environment alone. Returns 0, or -1 when setenv fails.
int cuda_world_nccl_algo(const char *algo);

#endif
