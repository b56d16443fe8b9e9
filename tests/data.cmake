# Tests of the data pipeline: .npy files, datasets, batches and the
# distributed sampler. test_sampler_torch compares the sampler with PyTorch's
# DistributedSampler + DataLoader and is skipped when python3-torch is
# missing; test_npy's numpy round trip skips itself likewise.
ddplab_add_test(test_npy
  SOURCES test_npy.c test_files.c
  LIBS ddplab_sim ddplab_torch_ref
  LABELS sim
  TIMEOUT 60)

ddplab_add_test(test_dataset
  SOURCES test_dataset.c test_files.c test_env.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 60)

ddplab_add_test(test_sampler
  SOURCES test_sampler.c test_files.c test_env.c
  LIBS ddplab_sim ddplab_torch_ref
  LABELS sim
  TIMEOUT 60)
add_test(NAME test_sampler_torch COMMAND test_sampler torch)
set_tests_properties(test_sampler_torch PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS sim)

# The streaming loader, `ddplab run --stream rank|shared`: its draws, the
# distinct share of the ranks' batches, and the runs (a shared seed trains as
# one process does).
ddplab_add_test(test_cli_stream
  SOURCES test_cli_stream.c test_cli_run.c test_files.c
  LIBS ddplab_sim
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_stream ddplab)
