# `ddplab run --strategy ddp` against PyTorch's DistributedDataParallel on
# gloo, with R real processes on this machine (loopback): per-step losses and
# final parameters for SGD and AdamW, an MLP and a MiniGPT, R = 2, 3, 4,
# accumulation with and without no_sync, padded epochs with short last
# batches. Label cli: it runs the built program. Skipped (exit 77) without
# python3-torch.
ddplab_add_test(test_ddp_torch
  SOURCES test_ddp_torch.c test_train_ref.c test_cli_run.c test_files.c
  LIBS ddplab_sim ddplab_torch_ref ${CJSON_LIBRARY}
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 300)
target_include_directories(test_ddp_torch PRIVATE ${CJSON_INCLUDE_DIR})
add_dependencies(test_ddp_torch ddplab)

# The half-precision all_reduce of simulated ranks and DDP's fp16 hook, bit
# for bit against gloo's on 3, 4 and 5 ranks (R real processes each).
# Label cpu: ranks are threads. Skipped (exit 77) without python3-torch.
ddplab_add_test(test_fp16_hook_torch
  SOURCES test_fp16_hook_torch.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu ddplab_torch_ref
  LABELS cpu
  TIMEOUT 600)
set_tests_properties(test_fp16_hook_torch PROPERTIES SKIP_RETURN_CODE 77)

# The PowerSGD hook against powerSGD_hook under gloo on 2 and 4 ranks (R real
# processes each), iteration by iteration on the same local gradients:
# plain iterations bit for bit, compressed ones within 2e-5 of each tensor's
# scale. Label cpu: ranks are threads. Skipped (exit 77) without
# python3-torch.
ddplab_add_test(test_powersgd_torch
  SOURCES test_powersgd_torch.c test_ddp_util.c test_world.c test_env.c
  LIBS ddplab_cpu ddplab_torch_ref
  LABELS cpu
  TIMEOUT 600)
set_tests_properties(test_powersgd_torch PROPERTIES SKIP_RETURN_CODE 77)
