// backend_cuda/cuda_devcoll.h: ddplab's own device-memory collectives, for
// worlds whose ranks share GPUs (NCCL refuses two ranks of one communicator
// on one GPU; cuda_world.h decides). They execute the very schedules of
// sim/coll/schedule.h that the cpu backend executes and the views animate.
//
// Asynchronous, as NCCL is: launch only ENQUEUES the schedule on the rank's
// comm stream and returns, so a DDP bucket's all-reduce runs on the GPU while
// the rank goes on with its backward pass on the compute stream. The ordering
// contract of sim/coll/schedule.h is kept on the GPU with CUDA events: after each
// step every rank records an event on its comm stream, and before step t a
// rank's stream waits for the events of its sources and of the ranks that
// read its buffer at step t-1. Each rank's enqueuer thread (cuda_enqueue.c)
// enqueues step by step with a host barrier between steps, so that an event
// is always recorded before a peer's stream is told to wait for it (a wait
// on an event not yet recorded would not wait). The barrier only orders the
// enqueueing; no host thread waits for the GPU, the rank's own thread is
// back at its compute stream as soon as the host meeting is over, and the
// GPU cannot hang on a peer that failed, because every wait refers to an
// event already recorded.
#ifndef DDPLAB_BACKEND_CUDA_DEVCOLL_H
#define DDPLAB_BACKEND_CUDA_DEVCOLL_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "base/dtype.h" // defines: SimDtype, SimRedOp

#ifdef __cplusplus
extern "C" {
#endif

// dst[i] = dst[i] (op) src[i] for i < n (cuda_arith_coll.h), on stream.
cudaError_t cuda_kernel_reduce(void *dst, const void *src, size_t n, SimDtype dt, SimRedOp op,
                               cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
