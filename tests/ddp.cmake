# DDP (--strategy ddp): parity with single-process training, accumulation,
# gradient_as_bucket_view, broadcasts, the unused-parameter error, the
# bucket launch order and the trace. Label cpu: ranks are threads, so TSan
# runs them too.
foreach(t IN ITEMS parity behaviour)
  ddplab_add_test(test_ddp_${t}
    SOURCES test_ddp_${t}.c test_ddp_util.c test_world.c test_env.c
    LIBS ddplab_cpu
    LABELS cpu
    TIMEOUT 120)
endforeach()
