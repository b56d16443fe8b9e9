# The watchdog's diagnosis: the flight recorder's history, the divergence
# and every probable-cause rule on hand-made recorder states, real worlds
# that hang or disagree (label cpu: pthread ranks, run under TSan), and
# `ddplab run` / `ddplab replay` with the runs that hang today (label cli):
# the text on stderr, the --diagnosis file, the trace event and its frame.
ddplab_add_test(test_diagnosis
  SOURCES test_diagnosis.c test_world.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 30)

ddplab_add_test(test_cli_diagnosis
  SOURCES test_cli_diagnosis.c test_cli_run.c test_files.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 60)
add_dependencies(test_cli_diagnosis ddplab)
