# Tests of the models (sim/model*.c): the spec language, the tables, the
# grad-ready order, accumulation, phantom mode, finite differences, bad
# input, and conformance with PyTorch (skipped, exit 77, without torch).
ddplab_add_test(test_model_parse
  SOURCES test_model_parse.c
  LIBS ddplab_sim
  LABELS sim
  TIMEOUT 30)

ddplab_add_test(test_model
  SOURCES test_model.c test_model_util.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 120)

ddplab_add_test(test_model_checks
  SOURCES test_model_checks.c test_model_util.c test_world.c
  LIBS ddplab_cpu
  LABELS sim
  TIMEOUT 120)

ddplab_add_test(test_model_torch
  SOURCES test_model_torch.c test_model_util.c test_world.c
  LIBS ddplab_cpu ddplab_torch_ref
  LABELS sim
  TIMEOUT 180)
