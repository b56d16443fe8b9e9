# The soak: 128 ranks x 50 steps of DDP on a small MLP through the program
# (32 x 20 under DDPLAB_TEST_QUICK, the sanitizer builds' setting): no
# deadlock (the timeout), no leak (the ASan build's leak checker), every
# step's metrics written. Label cpu: the TSan build runs it too (the
# pthread backend at 128 threads). bench/soak.sh runs the full 128 x 2000.
add_test(NAME test_soak
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_soak.sh $<TARGET_FILE:ddplab>)
set_tests_properties(test_soak PROPERTIES TIMEOUT 600 LABELS "cli;cpu")
