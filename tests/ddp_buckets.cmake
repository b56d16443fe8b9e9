# Tests of DDP's bucket plans (sim/strategy/ddp_buckets.c): hand-computed cases, and
# conformance with PyTorch 1.13 (compute_bucket_assignment_by_size itself,
# and the plans a real DistributedDataParallel on gloo builds and rebuilds;
# skipped, exit 77, without torch).
ddplab_add_test(test_ddp_buckets
  SOURCES test_ddp_buckets.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 30)

ddplab_add_test(test_ddp_buckets_torch
  SOURCES test_ddp_buckets_torch.c test_model_util.c test_world.c
  LIBS ddplab_cpu ddplab_torch_ref
  LABELS sim
  TIMEOUT 120)
