# Tests of the CPU backend (label cpu; the suite also runs them under TSan).
# The collective matrix runs as three tests split by world size, so that
# ctest can run them side by side.
ddplab_add_test(test_cpu_matrix
  SOURCES test_cpu_matrix.c test_env.c test_world.c
  LIBS ddplab_cpu
  ARGS 1 2 3
  LABELS cpu
  TIMEOUT 600)
foreach(sizes IN ITEMS "4;5" "8;16")
  string(REPLACE ";" "_" suffix "${sizes}")
  add_test(NAME test_cpu_matrix_${suffix} COMMAND test_cpu_matrix ${sizes})
  set_tests_properties(test_cpu_matrix_${suffix} PROPERTIES TIMEOUT 600 LABELS cpu)
endforeach()

ddplab_add_test(test_cpu_rounding SOURCES test_cpu_rounding.c test_world.c LIBS ddplab_cpu LABELS cpu TIMEOUT 120)
ddplab_add_test(test_cpu_errors SOURCES test_cpu_errors.c test_world.c LIBS ddplab_cpu LABELS cpu TIMEOUT 60)
ddplab_add_test(test_cpu_scale SOURCES test_cpu_scale.c test_world.c test_env.c LIBS ddplab_cpu LABELS cpu TIMEOUT 120)
ddplab_add_test(test_cpu_trace SOURCES test_cpu_trace.c test_world.c LIBS ddplab_cpu LABELS cpu TIMEOUT 60)
ddplab_add_test(test_cpu_p2p SOURCES test_cpu_p2p.c test_world.c LIBS ddplab_cpu LABELS cpu TIMEOUT 60)
