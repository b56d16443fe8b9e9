# DataParallel (--strategy dp): equal to single-process training on the
# same batch and to DDP on the same global batch, torch.chunk's chunks, the
# five communication phases in the trace, device 0's memory, one device
# refused. Label cpu: devices are threads, so TSan runs them too.
ddplab_add_test(test_dp
  SOURCES test_dp.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu
  LABELS cpu
  TIMEOUT 120)
