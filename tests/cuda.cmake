# Tests of the CUDA backend, built wherever the backend is. test_cuda_meet
# needs no GPU (the host rendezvous is plain pthreads); the GPU tests exit 77,
# which ctest reports as skipped, when init finds no usable device.
if(DDPLAB_HAVE_CUDA)
  ddplab_add_test(test_cuda_meet
    SOURCES test_cuda_meet.c
    LIBS ddplab_cuda
    LABELS cuda
    TIMEOUT 30)
  # The backend's cancel and error lines on a hand-built host context: no
  # GPU either.
  ddplab_add_test(test_cuda_host
    SOURCES test_cuda_host.c
    LIBS ddplab_cuda
    LABELS cuda
    TIMEOUT 30)
  target_include_directories(test_cuda_host PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)
  ddplab_add_test(test_cuda_allreduce
    SOURCES test_cuda_allreduce.c test_env.c
    LIBS ddplab_cuda CUDA::cudart
    LABELS cuda
    TIMEOUT 120)
endif()
