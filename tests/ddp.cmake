# DDP (--strategy ddp): parity with single-process training, accumulation,
# gradient_as_bucket_view, broadcasts, the unused-parameter error, the
# bucket launch order and the trace. Label cpu: ranks are threads, so TSan
# runs them too.
foreach(t IN ITEMS parity behaviour)
  ddplab_add_test(test_ddp_${t}
    SOURCES test_ddp_${t}.c test_ddp_util.c test_world.c test_env.c
    LIBS ddplab_cpu ddplab_torch_ref
    LABELS cpu
    TIMEOUT 120)
endforeach()
# PyTorch's unused-parameter error text against the installed torch's own
# (2 gloo processes); skipped without python3-torch.
add_test(NAME test_ddp_behaviour_torch COMMAND test_ddp_behaviour torch)
set_tests_properties(test_ddp_behaviour_torch PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77
  LABELS cpu)
