# FSDP and ZeRO (--strategy fsdp|zero1|zero2|zero3): numeric parity with DDP
# for every sharding, wrap policy, prefetch and precision setting, with the
# shards' padding and the freed units checked after every step; collective
# counts, bytes, the simulated overlap and the memory peaks from the trace
# (label cpu: ranks are threads, so TSan runs them too); and the plan of
# units and shards, the divide factors and the names (label sim).
foreach(t IN ITEMS parity comm)
  ddplab_add_test(test_fsdp_${t}
    SOURCES test_fsdp_${t}.c test_ddp_util.c test_world.c test_env.c
    LIBS ddplab_cpu
    LABELS cpu
    TIMEOUT 300)
endforeach()
ddplab_add_test(test_fsdp_plan
  SOURCES test_fsdp_plan.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 60)
