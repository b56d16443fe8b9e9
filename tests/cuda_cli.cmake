# The CUDA backend from the command line. Without a CUDA build `ddplab run
# --backend cuda` names the missing backend instead, so both need the build.
if(DDPLAB_HAVE_CUDA)
  add_test(NAME test_cuda_nogpu
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cuda_nogpu.sh $<TARGET_FILE:ddplab>)
  set_tests_properties(test_cuda_nogpu PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS cpu)
  add_test(NAME test_cuda_cli
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cuda_cli.sh $<TARGET_FILE:ddplab>
            ${PROJECT_SOURCE_DIR}/lessons)
  set_tests_properties(test_cuda_cli PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77 LABELS cuda)
  # The NCCL peer of the benchmarks runs, and its results are exact, on one GPU.
  add_test(NAME bench_nccl_allreduce
    COMMAND $<TARGET_FILE:nccl_allreduce> -g 1 -b 4K -e 1M -f 4 -w 1 -i 2)
  set_tests_properties(bench_nccl_allreduce PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
                       LABELS cuda)
endif()
