# Tests of the tensors, the op wrappers and the CPU math kernels (label sim:
# each runs on a single rank, so there is nothing for TSan to see).
ddplab_add_test(test_kernels_grad
  SOURCES test_kernels_grad.c test_kernels_util.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 60)

# Every kernel and optimizer step against PyTorch (skipped without torch).
ddplab_add_test(test_kernels_torch
  SOURCES test_kernels_torch.c test_kernels_util.c test_world.c
  LIBS ddplab_cpu ddplab_torch_ref
  LABELS sim
  TIMEOUT 120)

# The wrappers: shapes, messages, phantom mode, cost, trace, amp rounding.
ddplab_add_test(test_kernels_ops
  SOURCES test_kernels_ops.c test_kernels_util.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 60)

# The kernels on several ranks at once (label cpu: also runs under TSan),
# and a thousand ranks crowding the BLAS gate.
ddplab_add_test(test_kernels_ranks
  SOURCES test_kernels_ranks.c test_kernels_util.c test_world.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)

# SyncBatchNorm on 4 ranks with uneven rows against one BatchNorm1d over the
# whole batch (label cpu: also runs under TSan).
ddplab_add_test(test_syncbn
  SOURCES test_syncbn.c test_kernels_util.c test_world.c
  LIBS ddplab_sim ddplab_cpu
  LABELS cpu
  TIMEOUT 60)
