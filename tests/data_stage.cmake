# The input pipeline in simulated time (sim/data/data_stage.h, `ddplab run
# --loader-workers --prefetch --sample-cost --pin-memory`): the schedule
# against hand-computed ready and wait times, the host link of each profile,
# the stage in the training loop on CPU ranks (off: the trace unchanged bit
# for bit), and through the program: data wait the largest share with no
# workers and a high sample cost, gone after the first batch with enough
# workers, every strategy and phantom mode, the report line, bad values
# refused with one line and exit 2. Label cpu: ranks are threads.
ddplab_add_test(test_data_stage
  SOURCES test_data_stage.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 60)

ddplab_add_test(test_cli_data_stage
  SOURCES test_cli_data_stage.c test_cli_run.c test_trace_events.c test_files.c test_env.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 120)
target_include_directories(test_cli_data_stage PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_data_stage ddplab)
