# Trace files for replay (viz/vtrace.h, sim/trace/trace_bin.c): round trips of an
# engine trace through .ddptrace and JSON lines, copies and live appends;
# every kind of bad file (cut at every byte, corrupted fields, foreign and
# Chrome files, random damage); a million events loaded in under 2 s and
# 500 MB; and `ddplab run/bench --trace FILE.ddptrace`. Label cpu: the
# engine trace comes from CPU ranks.
ddplab_add_test(test_viz_trace
  SOURCES test_viz_trace.c test_vtrace_util.c test_world.c test_files.c
  LIBS ddplab_viz ddplab_cpu
  LABELS cpu
  TIMEOUT 60)
ddplab_add_test(test_viz_trace_errors
  SOURCES test_viz_trace_errors.c test_vtrace_util.c test_files.c
  LIBS ddplab_viz
  LABELS cpu
  TIMEOUT 180)
ddplab_add_test(test_viz_trace_big
  SOURCES test_viz_trace_big.c test_files.c test_env.c
  LIBS ddplab_viz
  LABELS cpu
  TIMEOUT 180)
ddplab_add_test(test_viz_trace_cli
  SOURCES test_viz_trace_cli.c test_vtrace_util.c test_cli_run.c test_files.c
  LIBS ddplab_viz
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu cli
  TIMEOUT 300)
add_dependencies(test_viz_trace_cli ddplab)
