# Tests of the optimizers, learning-rate schedules, gradient clipping and the
# loss scaler (label sim: one rank, no concurrency to check). The torch test
# exits 77 (skipped) where python3-torch is missing.
ddplab_add_test(test_optim SOURCES test_optim.c LIBS ddplab_sim LABELS sim TIMEOUT 30)
ddplab_add_test(test_optim_ops
  SOURCES test_optim_ops.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 60)
ddplab_add_test(test_optim_torch
  SOURCES test_optim_torch.c test_world.c
  LIBS ddplab_cpu ddplab_torch_ref
  LABELS sim
  TIMEOUT 120)
