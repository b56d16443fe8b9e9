# Faults that can never fire, refused through `ddplab run`: every kind,
# before the run (steps, ranks, epochs, accumulation, kinds given twice,
# two faults on one collective) and when a step ends without launching a
# fault's collective; and the boundaries that are still in reach.
ddplab_add_test(test_cli_fault_reach
  SOURCES test_cli_fault_reach.c test_cli_run.c test_files.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_fault_reach ddplab)
