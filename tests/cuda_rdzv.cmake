# The rendezvous of a world of processes (backend_cuda/cuda_rdzv*.c): plain C,
# built into the test directly so that it runs in every build, also without
# CUDA and under the sanitizers. The exchanges fork 4 processes and talk
# through files and loopback TCP.
ddplab_add_test(test_cuda_rdzv
  SOURCES test_cuda_rdzv.c test_rdzv_world.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_file.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_tcp.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_hmac.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_secret.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 120)
target_include_directories(test_cuda_rdzv PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)

# The TCP rendezvous among forked processes on loopback addresses: the
# secret, replays, idle connections, where rank 0 listens.
ddplab_add_test(test_cuda_rdzv_tcp
  SOURCES test_cuda_rdzv_tcp.c test_rdzv_world.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_file.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_tcp.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_hmac.c
    ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_secret.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 120)
target_include_directories(test_cuda_rdzv_tcp PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)

# The TCP rendezvous's SHA-256 (the engine's) and HMAC-SHA256 against the
# FIPS 180-4 examples and the RFC 4231 test vectors.
ddplab_add_test(test_cuda_rdzv_hmac
  SOURCES test_cuda_rdzv_hmac.c ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_hmac.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 60)
target_include_directories(test_cuda_rdzv_hmac PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda)

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

# `--rendezvous mpi` where the build found MPI (as ddplab_rdzv in
# cli/CMakeLists.txt has it): test_cuda_rdzv and test_cli_rdzv see that
# "mpi" parses (DDPLAB_RDZV_MPI=1; without it, that it is refused with the
# way to get MPI), and test_cuda_rdzv_mpi exchanges blobs among 3 processes
# that mpirun starts (tests/run_mpi.sh: skipped, 77, when mpirun is missing
# or cannot start them). The driver links the library itself: it includes
# no MPI header, as no caller of the rendezvous does.
if(DDPLAB_HAVE_MPI)
  target_sources(test_cuda_rdzv PRIVATE ${PROJECT_SOURCE_DIR}/backend_cuda/cuda_rdzv_mpi.c)
  target_compile_definitions(test_cuda_rdzv PRIVATE DDPLAB_RDZV_MPI=1)
  target_link_libraries(test_cuda_rdzv PRIVATE MPI::MPI_C)
  target_compile_definitions(test_cli_rdzv PRIVATE DDPLAB_RDZV_MPI=1)
  add_executable(test_cuda_rdzv_mpi test_cuda_rdzv_mpi.c)
  target_include_directories(test_cuda_rdzv_mpi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_cuda_rdzv_mpi PRIVATE ddplab_rdzv)
  add_test(NAME test_cuda_rdzv_mpi
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run_mpi.sh 3 $<TARGET_FILE:test_cuda_rdzv_mpi>)
  set_tests_properties(test_cuda_rdzv_mpi PROPERTIES
    TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS cpu)
endif()

# Process mode on a GPU: a world of one process through a file and a TCP
# rendezvous (skipped, exit 77, without a GPU).
if(DDPLAB_HAVE_CUDA)
  target_compile_definitions(test_cli_rdzv PRIVATE DDPLAB_HAVE_CUDA=1)
  ddplab_add_test(test_cuda_proc
    SOURCES test_cuda_proc.c test_cli_run.c test_files.c
    LIBS ddplab_cli ddplab_viz_sdl ddplab_cuda
    ARGS $<TARGET_FILE:ddplab>
    LABELS cuda
    TIMEOUT 600)
  add_dependencies(test_cuda_proc ddplab)
endif()

# Process mode with `mpi` on a machine without a GPU: both processes of an
# mpirun world stop with the no-GPU line (exit 4) before any MPI call,
# rather than one waiting for the other (skipped with a GPU).
if(DDPLAB_HAVE_MPI AND DDPLAB_HAVE_CUDA)
  add_test(NAME test_cuda_rdzv_mpi_nogpu
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cuda_rdzv_mpi_nogpu.sh $<TARGET_FILE:ddplab>)
  set_tests_properties(test_cuda_rdzv_mpi_nogpu PROPERTIES
    TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS cpu)
endif()
