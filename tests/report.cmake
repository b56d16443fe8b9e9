# `ddplab report TRACE` (sim/trace/trace_report.h, cli/report*.c): the analysis on
# hand-built event arrays with known answers (overlap, exposed comm, data
# wait, idle, the slowest rank, bytes per kind, memory peaks; the four parts
# add up to the step time), and through the program on traces of real runs
# (ddp with small buckets, a slow rank, a slow input pipeline; .ddptrace and
# Chrome JSON; the PNG chart; bad inputs refused with one line and exit 2).
# Label cpu: the runs' ranks are threads.
ddplab_add_test(test_trace_report
  SOURCES test_trace_report.c test_env.c
  LIBS ddplab_sim
  LABELS cpu
  TIMEOUT 120)

ddplab_add_test(test_cli_report
  SOURCES test_cli_report.c test_cli_run.c test_files.c test_env.c
  LIBS ddplab_sim ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 120)
target_include_directories(test_cli_report PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_cli_report ddplab)
