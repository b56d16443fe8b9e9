# --strategy layer-owner, the wrong picture of FSDP kept for the lessons:
# parity with DDP, its collectives and bytes against DDP's, per-rank memory,
# checkpoints (label cpu: ranks are threads, so TSan runs them too); and the
# program run with it as a user would.
ddplab_add_test(test_layer_owner
  SOURCES test_layer_owner.c test_ddp_util.c test_world.c test_env.c test_files.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
ddplab_add_test(test_layer_owner_cli
  SOURCES test_layer_owner_cli.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu cli
  TIMEOUT 120)
add_dependencies(test_layer_owner_cli ddplab)
