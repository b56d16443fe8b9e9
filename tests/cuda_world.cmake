# Where ranks go on the GPUs, which collectives they run, and the arithmetic
# of ddplab's device collectives: host code of the CUDA backend, tested in
# every build (no GPU, no CUDA toolkit needed).
ddplab_add_test(test_cuda_world
  SOURCES test_cuda_world.c ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_world.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 30)
target_include_directories(test_cuda_world PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)
