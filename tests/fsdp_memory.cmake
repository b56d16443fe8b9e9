# FSDP / ZeRO memory ledger: model-state bytes per rank against the closed
# forms for each sharding strategy, offload, the gathered-unit peak and the
# cost of no_sync accumulation. Label cpu: ranks are threads.
ddplab_add_test(test_fsdp_memory
  SOURCES test_fsdp_memory.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
