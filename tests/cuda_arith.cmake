# The arithmetic of the CUDA kernels (backend_cuda/cuda_arith_*.h, plain C in
# the CUDA_HD convention) against the cpu backend's kernels: host tests, built
# in every build, also without CUDA and under the sanitizers.
ddplab_add_test(test_cuda_arith_vec
  SOURCES test_cuda_arith_vec.c test_cuda_vec_data.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
target_include_directories(test_cuda_arith_vec PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)
ddplab_add_test(test_cuda_arith_nn
  SOURCES test_cuda_arith_nn.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 60)
target_include_directories(test_cuda_arith_nn PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)
