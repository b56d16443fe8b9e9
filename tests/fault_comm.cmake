# --fault kinds of the collectives (skip, mismatch, reorder, crash,
# slow-rank, slow-link; sim/engine/comm_fault.c) with the effect each must have:
# the library on CPU ranks (label cpu: TSan runs the ranks too) and
# `ddplab run` as a user runs it (label cli). Several cases wait for a
# watchdog on purpose (0.5 s, 2 s under sanitizers).
ddplab_add_test(test_fault_comm
  SOURCES test_fault_comm.c test_ddp_util.c test_world.c test_env.c test_files.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)

ddplab_add_test(test_cli_fault_comm
  SOURCES test_cli_fault_comm.c test_cli_run.c test_ckpt_util.c test_trace_events.c test_files.c test_env.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 240)
target_include_directories(test_cli_fault_comm PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_fault_comm ddplab)
