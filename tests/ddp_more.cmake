# DDP beyond the core: communication hooks (fp16/bf16 compression, the
# "sum" hook), the logged loss across ranks, and the accumulation options
# (zero_grad's place, set_to_none, the epoch's short last block). Label cpu:
# ranks are threads, so TSan runs them too.
ddplab_add_test(test_ddp_more
  SOURCES test_ddp_more.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)

# Uneven inputs: Join (shadowing with zero gradients, parity with an update
# computed from single-rank gradients) and the watchdog's diagnosis without
# it, in the engine and through `ddplab run`.
ddplab_add_test(test_ddp_join
  SOURCES test_ddp_join.c test_ddp_util.c test_world.c test_env.c test_cli_run.c test_files.c
  LIBS ddplab_cpu
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 120)
add_dependencies(test_ddp_join ddplab)

# Distributed evaluation: the all_reduced sums equal a one-rank evaluation;
# mean-of-means is unweighted; rank0-only ends in a diagnosed failure.
ddplab_add_test(test_ddp_eval
  SOURCES test_ddp_eval.c test_ddp_util.c test_world.c test_env.c test_cli_run.c test_files.c
  LIBS ddplab_cpu
  ARGS $<TARGET_FILE:ddplab>
  LABELS cpu
  TIMEOUT 120)
add_dependencies(test_ddp_eval ddplab)

# The probe batch (--probe): equal probe losses on every rank with DDP's
# broadcast, though the training losses differ; different ones without it.
ddplab_add_test(test_cli_probe
  SOURCES test_cli_probe.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_probe ddplab)

# SyncBatchNorm (--sync-bn): four ranks train as one process with their
# global batch; one row per rank; the refusals.
ddplab_add_test(test_cli_syncbn
  SOURCES test_cli_syncbn.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_syncbn ddplab)

# The PowerSGD hook: its arithmetic (Gram-Schmidt, rank-r reconstruction,
# the compression test, numpy's seeds), one bucket on 2 ranks (plain
# iterations, error feedback that loses nothing, the elements sent), and
# training with it, with and without gradient_as_bucket_view.
ddplab_add_test(test_ddp_powersgd
  SOURCES test_ddp_powersgd.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
