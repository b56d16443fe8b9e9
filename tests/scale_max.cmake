# The largest world `ddplab run` accepts, run through the program: five FSDP
# runs and one DDP run at the top of --ranks' range, each of which must end
# with exit 0 and a sane loss (tests/test_scale_max.sh). Skipped under
# DDPLAB_TEST_QUICK (the sanitizer passes), where test_kernels_ranks crowds
# the BLAS gate instead. Its minutes are thread start-up and rendezvous at
# thousands of ranks on a few cores, hence the timeout.
add_test(NAME test_scale_max
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_scale_max.sh $<TARGET_FILE:ddplab>)
set_tests_properties(test_scale_max PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77 LABELS "cli;cpu")
