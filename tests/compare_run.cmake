# `ddplab run --compare-backends A,B` and `--compare-with OPTIONS`
# (cli/run_compare*.c): one configuration run twice and compared stage by
# stage. Through the program: cpu against cpu is bit-identical; bucket
# boundaries, the all_reduce algorithm and an optimizer setting are each
# found at the right step and stage and named as the cause; the report's
# per-tensor ULPs equal those of checkpoints of the two runs; bad inputs are
# refused. Label cpu: the ranks are threads.
ddplab_add_test(test_cli_compare_run
  SOURCES test_cli_compare_run.c test_cli_run.c test_files.c test_env.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 300)
add_dependencies(test_cli_compare_run ddplab)
