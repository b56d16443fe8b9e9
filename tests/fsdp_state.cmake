# FSDP state dicts and checkpoints: FULL, SHARDED and LOCAL saved at 4 ranks
# and resumed at 2, 4 and 8 (and under other shardings) against DDP resumed
# the same way; --save-every; the state dict called on rank 0 only; damaged
# files (label cpu: ranks are threads, so TSan runs them too). And the same
# through the `ddplab` program (label cli).
ddplab_add_test(test_fsdp_state
  SOURCES test_fsdp_state.c test_ckpt_util.c test_ddp_util.c test_world.c test_env.c test_files.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 180)
ddplab_add_test(test_cli_run_fsdp_ckpt
  SOURCES test_cli_run_fsdp_ckpt.c test_ckpt_util.c test_cli_run.c test_files.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 180)
add_dependencies(test_cli_run_fsdp_ckpt ddplab)
