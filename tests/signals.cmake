# Ctrl-C and kill: `ddplab run` (DDP with checkpoints, trace and metrics;
# one rank; ranks hung in an all_reduce; FSDP's sharded checkpoints) ends
# within a second of SIGINT / SIGTERM with 130 / 143, leaving no temporary
# and no half-written file, and its last checkpoint loadable; bench, plan
# and a lesson die of the signal just as fast, leaving nothing behind
# (test_cli_signals). The same in a terminal under tmux: the live ncurses
# view and a lesson, with the terminal restored (test_signals_tmux, skipped
# without tmux or ncurses). Label cpu too: the TSan build runs them (the
# watcher thread, the cancel and the ranks).
ddplab_add_test(test_cli_signals
  SOURCES test_cli_signals.c test_cli_run.c test_ckpt_util.c test_files.c test_env.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS "cli;cpu"
  TIMEOUT 300)
add_dependencies(test_cli_signals ddplab)
if(DDPLAB_HAVE_SDL) # the live window's case
  target_compile_definitions(test_cli_signals PRIVATE DDPLAB_HAVE_SDL=1)
endif()
add_test(NAME test_signals_tmux
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_signals_tmux.sh $<TARGET_FILE:ddplab>)
set_tests_properties(test_signals_tmux PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  LABELS "cli;cpu")
# Nothing left behind by runs that fail (watchdog, protocol mismatch, bad
# input, SIGINT), run in-process through run_main: descriptors, threads,
# temporaries; memory by the ASan build's leak checker.
ddplab_add_test(test_cli_leaks
  SOURCES test_cli_leaks.c test_cli_run.c test_files.c
  LIBS ddplab_cli ddplab_viz_sdl
  LABELS "cli;cpu"
  TIMEOUT 300)
