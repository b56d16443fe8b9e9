// backend_cuda/cuda_hints.c: what to try next, for the CUDA, NCCL and cuBLAS
// failures a learner meets (cuda_errors.c appends it to the error line).
// A code without a hint of its own gets NULL: the line then ends with the
// call that failed, which is all that is known.
#include "cuda_internal.h" // declares: cuda_hint_*

const char *cuda_hint_cuda(cudaError_t e) {
    switch (e) {
    case cudaErrorMemoryAllocation:
        return "lower --batch, shard with --strategy fsdp, or put fewer ranks on each GPU";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
        return "check that nvidia-smi lists a GPU and that CUDA_VISIBLE_DEVICES does not hide it";
    case cudaErrorInvalidDevice:
        return "the device number is beyond the visible GPUs: check CUDA_VISIBLE_DEVICES and, "
               "in a multi-process run, LOCAL_RANK";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidKernelImage:
        return "this build has no code for this GPU: rebuild with "
               "-DCMAKE_CUDA_ARCHITECTURES set to its compute capability (nvidia-smi "
               "--query-gpu=compute_cap --format=csv)";
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
        return "a kernel faulted and the GPU context is lost: rerun with CUDA_LAUNCH_BLOCKING=1 "
               "to stop at the faulting kernel, or under compute-sanitizer";
    case cudaErrorLaunchTimeout:
        return "the display's watchdog stopped a long kernel: use a GPU that drives no display";
    case cudaErrorDevicesUnavailable:
        return "the GPU is busy in exclusive-process compute mode (nvidia-smi -q shows the "
               "Compute Mode and its processes)";
    case cudaErrorECCUncorrectable:
    case cudaErrorHardwareStackError:
        return "a hardware fault: nvidia-smi -q shows the ECC error counts; try another GPU";
    default:
        return NULL;
    }
}

// NCCL's own text already says which NCCL_DEBUG level tells more.
const char *cuda_hint_nccl(ncclResult_t e) {
    switch (e) {
    case ncclUnhandledCudaError:
        return "a CUDA call inside NCCL failed, often after the GPU faulted or ran out of "
               "memory";
    case ncclSystemError:
        return "in a container, often a /dev/shm too small for NCCL's buffers (docker "
               "--shm-size), or a network interface NCCL cannot use (NCCL_SOCKET_IFNAME)";
    case ncclInvalidArgument:
    case ncclInvalidUsage:
        return "every rank must call the same collectives with the same counts and types, "
               "each rank on a GPU of its own";
    case ncclRemoteError:
        return "another rank's process or node failed: its own log has the cause";
    default:
        return NULL;
    }
}

const char *cuda_hint_cublas(cublasStatus_t e) {
    switch (e) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "cuBLAS could not start, usually for lack of GPU memory when its handle was made";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "lower --batch, shard with --strategy fsdp, or put fewer ranks on each GPU";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "this GPU lacks a feature the call needs: it is older than the "
               "architectures this build was made for";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "the product's kernel failed on the GPU: rerun with CUDA_LAUNCH_BLOCKING=1";
    default:
        return NULL;
    }
}
