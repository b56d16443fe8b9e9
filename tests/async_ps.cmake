# Asynchronous data parallel with parameter servers (`ddplab run --strategy
# async-ps`): one worker equals single-process training bit for bit, the
# bulk synchronous mode equals DDP, a straggler's schedule matches one worked
# out by hand, the trace's markers and waits, bad input (label cpu: the
# schedule runs on one thread, so the sanitizer builds run it too).
ddplab_add_test(test_cli_async_ps
  SOURCES test_cli_async_ps.c test_ckpt_util.c test_cli_run.c test_files.c test_env.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 180)
add_dependencies(test_cli_async_ps ddplab)
