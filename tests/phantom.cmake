# Phantom mode (--phantom) and the sym backend: a numeric and a phantom run
# of the same configuration give identical traces and ledgers (single, ddp,
# fsdp full_shard / shard_grad_op / zero1, hybrid 2x2, dp, layer-owner; an
# MLP and a GPT), collectives take NULL buffers, the sym backend's rank 0
# equals the cpu backend's, and the asymmetric strategies refuse it (label
# cpu: ranks are threads). test_phantom_scale: the cost model's closed forms
# against the rank-by-rank reference, and a Llama-2-70B-sized FSDP step at
# 1024 and 16384 ranks in bounded time and memory.
ddplab_add_test(test_phantom
  SOURCES test_phantom.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
ddplab_add_test(test_phantom_scale
  SOURCES test_phantom_scale.c test_cost_ref.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
ddplab_add_test(test_cli_phantom
  SOURCES test_cli_phantom.c test_cli_run.c test_files.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_phantom ddplab)
