# The per-rank memory ledger (sim/engine/memory.h): the closed forms it is checked
# against (label sim: pure functions), the ledger itself, the categories of
# real training runs on CPU ranks (label cpu: ranks are threads, so TSan
# runs them too), and `ddplab run --device-memory` as a user runs it.
ddplab_add_test(test_memory_formula
  SOURCES test_memory_formula.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 60)
ddplab_add_test(test_memory
  SOURCES test_memory.c test_files.c
  LIBS ddplab_cpu ${CJSON_LIBRARY}
  LABELS cpu
  TIMEOUT 60)
target_include_directories(test_memory PRIVATE ${CJSON_INCLUDE_DIR})
ddplab_add_test(test_memory_train
  SOURCES test_memory_train.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
ddplab_add_test(test_cli_memory
  SOURCES test_cli_memory.c test_cli_run.c test_files.c
  LIBS ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
target_include_directories(test_cli_memory PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_memory ddplab)
