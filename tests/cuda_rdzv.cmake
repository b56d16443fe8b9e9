# The rendezvous of a world of processes (backend_cuda/cuda_rdzv*.c): plain C,
# built into the test directly so that it runs in every build, also without
# CUDA and under the sanitizers. The exchanges fork 4 processes and talk
# through files and loopback TCP.
ddplab_add_test(test_cuda_rdzv
  SOURCES test_cuda_rdzv.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_file.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_tcp.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 120)
target_include_directories(test_cuda_rdzv PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)

# `ddplab run --rendezvous` with bad input: exit 2 and one line, in any build
# (the launcher's variables are checked in a CUDA build only, where
# --backend cuda exists).
ddplab_add_test(test_cli_rdzv
  SOURCES test_cli_rdzv.c test_cli_run.c test_files.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_rdzv ddplab)

# Process mode on a GPU: a world of one process through a file and a TCP
# rendezvous (skipped, exit 77, without a GPU).
if(DDPLAB_HAVE_CUDA)
  target_compile_definitions(test_cli_rdzv PRIVATE DDPLAB_HAVE_CUDA=1)
  ddplab_add_test(test_cuda_proc
    SOURCES test_cuda_proc.c test_cli_run.c test_files.c
    LIBS ddplab_cli
    ARGS $<TARGET_FILE:ddplab>
    LABELS cuda
    TIMEOUT 600)
  add_dependencies(test_cuda_proc ddplab)
endif()
