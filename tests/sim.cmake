# Tests of the trace, its exporters, the cost model and the hardware profiles.
# They need no backend; the exporters' tests read the files back with cJSON.
ddplab_add_test(test_trace
  SOURCES test_trace.c test_events.c test_env.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 60)

ddplab_add_test(test_trace_export
  SOURCES test_trace_export.c test_events.c test_files.c test_env.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  LABELS sim
  TIMEOUT 120)
target_include_directories(test_trace_export PRIVATE ${CJSON_INCLUDE_DIR})

ddplab_add_test(test_cost
  SOURCES test_cost.c test_cost_ref.c test_env.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 120)

ddplab_add_test(test_cost_profiles
  SOURCES test_cost_profiles.c test_files.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  LABELS sim
  TIMEOUT 60)
target_include_directories(test_cost_profiles PRIVATE ${CJSON_INCLUDE_DIR})
