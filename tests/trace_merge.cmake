# Per-rank traces merged into one (cli/report/merge_traces.c, sim/trace/trace_merge.c):
# a 4-rank run of the cpu backend split into one file per rank, as the
# processes of `ddplab run --rendezvous` write them, and merged back, in
# process and through `ddplab merge-traces`.
ddplab_add_test(test_trace_merge
  SOURCES test_trace_merge.c test_cli_run.c test_files.c
  LIBS ddplab_cli ddplab_viz_sdl
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu cli
  TIMEOUT 180)
add_dependencies(test_trace_merge ddplab)
