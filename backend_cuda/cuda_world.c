// backend_cuda/cuda_world.c: placement of ranks on GPUs and the choice of
// collective implementation (see cuda_world.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_world.h"

int cuda_world_device(const CudaWorldPlan *plan, int rank) {
    return (int)((long long)rank * plan->ngpus / plan->nranks);
}

const char *cuda_world_impl_name(CudaCollImpl impl) {
    return impl == CUDA_IMPL_DEVICE ? "ddplab-device" : "nccl";
}

int cuda_world_nccl_algo(const char *algo) {
    return algo == NULL ? 0 : setenv("NCCL_ALGO", algo, 1);
}

int cuda_world_plan(int nranks, int visible, const char *coll_impl, CudaWorldPlan *plan,
                    char *err, size_t errlen) {
    memset(plan, 0, sizeof *plan);
    if (nranks < 1 || visible < 1) {
        snprintf(err, errlen, "a world needs at least one rank and one GPU (%d rank%s, %d "
                 "GPU%s)", nranks, nranks == 1 ? "" : "s", visible, visible == 1 ? "" : "s");
        return -1;
    }
    int want_nccl = 0, want_device = 0;
    if (coll_impl != NULL && strcmp(coll_impl, "auto") != 0) {
        want_nccl = strcmp(coll_impl, "nccl") == 0;
        want_device = strcmp(coll_impl, "device") == 0;
        if (!want_nccl && !want_device) {
            snprintf(err, errlen, "unknown collective implementation '%s'; allowed: auto, "
                     "nccl, device", coll_impl);
            return -1;
        }
    }
    plan->nranks = nranks;
    plan->ngpus = visible < nranks ? visible : nranks;
    plan->max_per_gpu = (nranks + plan->ngpus - 1) / plan->ngpus;
    int shared = plan->max_per_gpu > 1;
    if (want_nccl && shared) {
        snprintf(err, errlen, "--coll-impl nccl needs a GPU per rank: %d ranks on %d GPU%s "
                 "would put %d ranks on one GPU, and NCCL refuses two ranks of one "
                 "communicator on the same GPU (use --coll-impl device or auto, or ask for "
                 "at most %d ranks)", nranks, visible, visible == 1 ? "" : "s",
                 plan->max_per_gpu, visible);
        return -1;
    }
    plan->impl = shared || want_device ? CUDA_IMPL_DEVICE : CUDA_IMPL_NCCL;
    return 0;
}
