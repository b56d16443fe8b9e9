# --fault kinds of the training loop (unused, no-set-epoch, no-sampler,
# loss-not-divided, seeds, save-crash) with the effect each must have, and
# files that survive a kill -9: the library on CPU ranks (label cpu: TSan
# runs the ranks too) and `ddplab run` as a user runs it.
ddplab_add_test(test_fault_train
  SOURCES test_fault_train.c test_ddp_util.c test_world.c test_env.c test_files.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 60)

ddplab_add_test(test_cli_fault_train
  SOURCES test_cli_fault_train.c test_cli_run.c test_trace_events.c test_ckpt_util.c test_files.c test_env.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 60)
target_include_directories(test_cli_fault_train PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_fault_train ddplab)
