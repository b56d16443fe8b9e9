# env:// initialisation by the RANK each process read (sim/train/launch.h),
# the model of --fault same-rank; test_launch_torch holds its one-node case
# against four gloo processes of PyTorch itself (skipped, exit 77, without
# python3-torch).
ddplab_add_test(test_launch
  SOURCES test_launch.c
  LIBS ddplab_sim ddplab_torch_ref
  LABELS sim
  TIMEOUT 30)
add_test(NAME test_launch_torch COMMAND test_launch torch)
set_tests_properties(test_launch_torch PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS sim)

# `ddplab run --fault same-rank`: what each process prints, the diagnosis,
# exit 3, and the refusals.
ddplab_add_test(test_cli_launch
  SOURCES test_cli_launch.c test_cli_run.c test_files.c
  ARGS $<TARGET_FILE:ddplab>
  LABELS cli
  TIMEOUT 60)
add_dependencies(test_cli_launch ddplab)
