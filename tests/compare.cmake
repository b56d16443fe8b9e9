# `ddplab compare A.st B.st` (sim/base/ulp.h, cli/compare*.c). test_ulp: ULP
# distances checked by hand (neighbours, across zero, the infinities, NaNs)
# in fp32, fp16 and bf16, the 16-bit formats also against an oracle of
# sorted values, and the element-wise statistics and their merge on arrays
# with known answers. test_cli_compare: the program on checkpoints of real
# runs (identical reruns, different step counts) and on files the test
# writes (tensors in one file only, another shape or dtype, metadata only),
# its JSON checked against sim_ulp_compare on the same files, and bad
# inputs refused with one line and exit 2. Label cpu: the runs' ranks are
# threads.
ddplab_add_test(test_ulp
  SOURCES test_ulp.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 120)

ddplab_add_test(test_cli_compare
  SOURCES test_cli_compare.c test_cli_run.c test_files.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 120)
target_include_directories(test_cli_compare PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_compare ddplab)
